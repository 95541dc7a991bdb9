//! A "which contracts ...?" question read as a register [`Query`]: the
//! categories it names ([`categories_in`]), which of them it asks to be
//! absent (`no`, `without`, `lack(s|ing)`, `not have`), and the party or law
//! it names when the batch's register knows that party or place.

use super::category::categories_in;
use super::query::{facts_of, name_key, value_of, Query, GOVERNING_LAW};
use crate::register::RegisterRow;

/// Words that say the category after them is absent.
const ABSENT: &[&str] = &[
    "no", "without", "lack", "lacks", "lacking", "missing", "absent",
];
/// `not`-words that, followed closely by a verb of having, say the same.
const NOT: &[&str] = &["not", "never", "dont", "doesnt", "didnt", "t"];
const HAVE: &[&str] = &[
    "have", "has", "contain", "contains", "include", "includes", "provide", "provides",
];
/// Words between a `not`-word and its verb (`do not even have`).
const NOT_REACH: usize = 2;

/// What the question asks of the register.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Asked {
    pub query: Query,
    /// Every category the question names, present or absent.
    pub categories: Vec<&'static str>,
    /// What it names that the register does not know: a name no party or
    /// governing law of the batch goes by (`Zebulon Widgets`), a clause
    /// kind that is none of the categories (`a unicorn clause`). Said, and
    /// nothing listed, rather than answered as if not asked.
    pub unknown: Vec<String>,
}

/// `not`-words that negate a law or a party said after them, within
/// [`NEGATION_REACH`] words (`not governed by New York law`, `not with
/// Acme`, `other than Acme`).
const NEGATING: &[&str] = &[
    "not",
    "never",
    "isnt",
    "arent",
    "dont",
    "doesnt",
    "except",
    "excluding",
    "other",
    "outside",
];
const NEGATION_REACH: usize = 4;

/// Where the run `part` starts in `whole`.
fn run_at(whole: &[String], part: &[String]) -> Option<usize> {
    (!part.is_empty())
        .then(|| whole.windows(part.len()).position(|w| w == part))
        .flatten()
}

/// True when a `not`-word stands within reach before position `at`, with
/// no category said between them (`no cap on liability, not New York` is
/// read by each cue for what follows it).
fn negated(q: &[String], at: usize, spans: &[(usize, usize)]) -> bool {
    let from = at.saturating_sub(NEGATION_REACH);
    (from..at)
        .any(|k| NEGATING.contains(&q[k].as_str()) && !spans.iter().any(|&(a, b)| a > k && b < at))
}

/// Lower-case words, apostrophes dropped (`don't` is `dont`), `-` and `/`
/// splitting.
fn raw_words(s: &str) -> Vec<String> {
    s.replace(['\'', '’'], "")
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Where in `q` a category is said: the positions of the question words
/// that begin like one of its name's words (`liabil`ity, `compet`e).
fn span_of(q: &[String], category: &str) -> Option<(usize, usize)> {
    let stems: Vec<String> = raw_words(category)
        .into_iter()
        .filter(|w| w.len() > 2 || w == "no" || w == "ip")
        .map(|w| w.chars().take(5).collect())
        .collect();
    let at: Vec<usize> = q
        .iter()
        .enumerate()
        .filter(|(_, w)| stems.iter().any(|s| w.starts_with(s.as_str())))
        .map(|(i, _)| i)
        .collect();
    Some((*at.first()?, *at.last()?))
}

/// Positions of the words that say "absent".
fn absence_cues(q: &[String]) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, w) in q.iter().enumerate() {
        if ABSENT.contains(&w.as_str())
            || (NOT.contains(&w.as_str())
                && q[i + 1..]
                    .iter()
                    .take(NOT_REACH + 1)
                    .any(|v| HAVE.contains(&v.as_str())))
        {
            out.push(i);
        }
    }
    out
}

/// Reads `question` against the batch's rows.
pub fn read(question: &str, rows: &[RegisterRow]) -> Asked {
    let q = raw_words(question);
    let categories = categories_in(question);
    let spans: Vec<(&'static str, (usize, usize))> = categories
        .iter()
        .filter_map(|c| span_of(&q, c).map(|s| (*c, s)))
        .collect();
    let cues = absence_cues(&q);
    let mut query = Query::default();
    for c in &categories {
        let Some(&(_, (start, _))) = spans.iter().find(|(n, _)| n == c) else {
            query.has.push(c);
            continue;
        };
        // A cue before this category and after every other category said
        // before it: `a non-compete but no cap on liability`.
        let after_prev = spans
            .iter()
            .filter(|(_, (_, e))| *e < start)
            .map(|(_, (_, e))| *e)
            .max();
        let absent = cues
            .iter()
            .any(|&k| k < start && after_prev.is_none_or(|p| k > p));
        if absent {
            query.lacks.push(c);
        } else {
            query.has.push(c);
        }
    }
    query.law = law_in(&q, rows);
    query.party = party_in(question, &q, rows, query.law.as_deref());
    // "governed by New York law" names the place; the law is then had.
    if query.law.is_some() {
        query.has.retain(|c| *c != GOVERNING_LAW);
    }
    let said: Vec<(usize, usize)> = spans.iter().map(|(_, s)| *s).collect();
    if let Some(at) = query.law.as_deref().and_then(|l| run_at(&q, &raw_words(l))) {
        query.not_law = negated(&q, at, &said);
    }
    if let Some(at) = query
        .party
        .as_deref()
        .and_then(|p| run_at(&q, &raw_words(p)))
    {
        query.not_party = negated(&q, at, &said);
    }
    let mut unknown = Vec::new();
    if query.party.is_none() {
        unknown.extend(unknown_names(question, &categories, query.law.as_deref()));
    }
    if categories.is_empty() {
        unknown.extend(unknown_clause(&q));
    }
    Asked {
        query,
        categories,
        unknown,
    }
}

/// Words that open a question or name a document, never a party.
const NOT_NAMES: &[&str] = &[
    "which",
    "what",
    "who",
    "whose",
    "list",
    "show",
    "find",
    "agreement",
    "agreements",
    "contract",
    "contracts",
    "clause",
    "clauses",
    "law",
    "laws",
    "state",
    "i",
    "a",
    "an",
    "the",
    "any",
    "all",
];

/// Capitalised runs of two words or more (not the question's first word)
/// that are no category, no known law and no party of the register: the
/// name of someone or somewhere the batch does not hold.
fn unknown_names(question: &str, categories: &[&'static str], law: Option<&str>) -> Vec<String> {
    let category_words: Vec<String> = categories.iter().flat_map(|c| raw_words(c)).collect();
    let law_words: Vec<String> = law.map(raw_words).unwrap_or_default();
    let known = |w: &str| {
        raw_words(w).iter().all(|x| {
            NOT_NAMES.contains(&x.as_str()) || category_words.contains(x) || law_words.contains(x)
        })
    };
    let mut out = Vec::new();
    for run in capitalised_runs(question) {
        // A known word inside a run splits it: `Non-Compete Zebulon`.
        for part in run.split(|w| known(w)) {
            if part.len() >= 2 {
                out.push(part.join(" "));
            }
        }
    }
    out
}

/// The runs of capitalised words of `question` (its first word aside), as
/// written, letters, digits and `&` kept; a `?`, `,` or `;` ends a run.
fn capitalised_runs(question: &str) -> Vec<Vec<String>> {
    let mut runs: Vec<Vec<String>> = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    for (i, w) in question.split_whitespace().enumerate() {
        let clean: String = w
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == '&')
            .collect();
        let capital = clean.chars().next().is_some_and(char::is_uppercase);
        if i > 0 && capital {
            cur.push(clean);
        } else if !cur.is_empty() {
            runs.push(std::mem::take(&mut cur));
        }
        if w.ends_with(['?', ',', ';']) && !cur.is_empty() {
            runs.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        runs.push(cur);
    }
    runs
}

/// `a unicorn clause`: a clause kind the question asks for that is none
/// of the categories (called only when it names none).
fn unknown_clause(q: &[String]) -> Option<String> {
    let at = q.iter().position(|w| {
        matches!(
            w.as_str(),
            "clause" | "clauses" | "provision" | "provisions"
        )
    })?;
    let start = q[..at]
        .iter()
        .rposition(|w| matches!(w.as_str(), "a" | "an" | "any" | "no" | "without"))?;
    let kind = q[start + 1..at].join(" ");
    (!kind.is_empty() && at - start <= 4).then(|| format!("a {kind} clause"))
}

/// True when `part` occurs in `whole` as a run.
fn has_run(whole: &[String], part: &[String]) -> bool {
    !part.is_empty() && whole.windows(part.len()).any(|w| w == part)
}

/// Words of a law that are not the place.
const LAW_WORDS: &[&str] = &["the", "laws", "law", "of", "state", "commonwealth"];

/// The longest governing-law place of the batch the question says.
fn law_in(q: &[String], rows: &[RegisterRow]) -> Option<String> {
    let mut best: Option<(usize, String)> = None;
    for r in rows {
        for f in facts_of(r, GOVERNING_LAW) {
            let place = value_of(f);
            let w: Vec<String> = raw_words(place)
                .into_iter()
                .filter(|w| !LAW_WORDS.contains(&w.as_str()))
                .collect();
            // A place, not a clause quoted whole.
            if w.is_empty() || w.len() > 4 || !has_run(q, &w) {
                continue;
            }
            if best.as_ref().is_none_or(|(n, _)| w.len() > *n) {
                best = Some((w.len(), w.join(" ")));
            }
        }
    }
    best.map(|b| b.1)
}

/// The party the question names: a run of capitalised words (not the
/// question's first word) that is one of a party's names or begins it,
/// legal forms aside, and is not the law's place.
fn party_in(
    question: &str,
    q: &[String],
    rows: &[RegisterRow],
    law: Option<&str>,
) -> Option<String> {
    let law_words: Vec<String> = law.map(raw_words).unwrap_or_default();
    for run in capitalised_runs(question) {
        let key = name_key(&run.join(" "));
        if key.is_empty() || (!law_words.is_empty() && has_run(&law_words, &key)) {
            continue;
        }
        let names = rows
            .iter()
            .flat_map(|r| &r.parties)
            .flat_map(|p| std::iter::once(&p.name).chain(&p.aliases));
        for n in names {
            let nk = name_key(n);
            if nk.starts_with(&key) {
                return Some(run.join(" "));
            }
        }
    }
    // A party's whole name, legal form and all, said in any case.
    rows.iter()
        .flat_map(|r| &r.parties)
        .map(|p| &p.name)
        .find(|n| {
            let w = raw_words(n);
            w.len() >= 2 && !name_key(n).is_empty() && has_run(q, &w)
        })
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::super::query::tests::rows;
    use super::*;

    fn asked(q: &str) -> Query {
        read(q, &rows()).query
    }

    #[test]
    fn negation_reads_the_category_it_precedes() {
        let q = asked("Which contracts have no cap on liability?");
        assert_eq!((q.has, q.lacks), (vec![], vec!["Cap On Liability"]));
        for text in [
            "which contracts lack a cap on liability",
            "Which agreements are without a cap on liability?",
            "which contracts do not have a cap on liability",
            "Which contracts don't have a cap on liability?",
        ] {
            assert_eq!(asked(text).lacks, vec!["Cap On Liability"], "{text}");
        }
        let q = asked("Which contracts have a non-compete but no cap on liability?");
        assert_eq!(
            (q.has, q.lacks),
            (vec!["Non-Compete"], vec!["Cap On Liability"])
        );
        let q = asked("Which contracts have a non-compete?");
        assert_eq!((q.has, q.lacks), (vec!["Non-Compete"], vec![]));
        // The `No` of a category's own name says nothing absent.
        let q = asked("Which contracts have a no-solicit of employees clause?");
        assert_eq!((q.has, q.lacks), (vec!["No-Solicit Of Employees"], vec![]));
    }

    #[test]
    fn a_law_or_a_party_can_be_negated() {
        let q = asked("Which contracts are not governed by New York law?");
        assert_eq!((q.law.as_deref(), q.not_law), (Some("new york"), true));
        let q = asked("Which contracts are governed by New York law?");
        assert_eq!((q.law.as_deref(), q.not_law), (Some("new york"), false));
        let q = asked("Which contracts are not with Acme?");
        assert_eq!((q.party.as_deref(), q.not_party), (Some("Acme"), true));
        let q = asked("Which contracts with Acme have no cap on liability?");
        assert_eq!((q.party.as_deref(), q.not_party), (Some("Acme"), false));
        assert_eq!(q.lacks, vec!["Cap On Liability"]);
    }

    #[test]
    fn names_and_clause_kinds_the_register_does_not_know_are_said() {
        let a = read("Which contracts is Zebulon Widgets a party to?", &rows());
        assert_eq!(a.unknown, vec!["Zebulon Widgets".to_string()]);
        let a = read("Which contracts have a unicorn clause?", &rows());
        assert_eq!(a.unknown, vec!["a unicorn clause".to_string()]);
        for known in [
            "Which contracts with Acme have a non-compete?",
            "Which contracts have a Non-Compete?",
            "Which contracts governed by New York law lack a cap on liability?",
            "Which contracts have a no-solicit of employees clause?",
        ] {
            assert!(read(known, &rows()).unknown.is_empty(), "{known}");
        }
    }

    #[test]
    fn a_party_or_a_law_the_register_knows() {
        let q = asked("Which contracts with Acme have a non-compete?");
        assert_eq!(q.party.as_deref(), Some("Acme"));
        let q = asked("Which contracts governed by New York law lack a cap on liability?");
        assert_eq!(q.law.as_deref(), Some("new york"));
        assert_eq!(q.party, None);
        assert!(q.has.is_empty(), "{q:?}");
        assert_eq!(q.lacks, vec!["Cap On Liability"]);
        let q = asked("Which contracts does gamma ltd sign without a non-compete?");
        assert_eq!(q.party.as_deref(), Some("Gamma Ltd."));
        // A capitalised word no party is named by is no filter.
        let q = asked("Which contracts have a Non-Compete?");
        assert_eq!(q.party, None);
        assert_eq!(q.law, None);
    }
}
