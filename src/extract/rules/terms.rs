//! Defined terms (`"Borrower" means ...`, `(the "Borrower")`), what
//! they are defined with, and the amounts, rates and dates they mention.

use super::builder::Builder;
use super::common::text::*;
use super::parties::*;
use super::EVIDENCE_CHARS;
use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::HashSet;

/// `"Term" means ...`, `"Term": ...`, `"Term" has the meaning ...` at the
/// start of a paragraph (optionally after a clause number).
pub(super) static DEFINITION: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r#"^\s*(?:\([a-z0-9]{1,4}\)\s*)?"([^"]{1,100})"(?:\s*(?:,|and|or)\s*"([^"]{1,100})")?[^"]{0,160}?(:|\b(?:means?|(?:is|are)\s+defined|(?:has|have)\s+the\s+meanings?|refers?\s+to|includes?)\b)"#,
    )
    .unwrap()
});

/// `(the "Borrower")`, `(each, a "Lender")`, `(collectively, the "Lenders")`.
pub(super) static PAREN_TERM: Lazy<Regex> =
    Lazy::new(|| Regex::new(r#"\(([^()"]{0,40})"([^"]{1,60})"\s*\)"#).unwrap());

/// `May 23, 2018`.
pub(super) static DATE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},\s+\d{4}\b")
        .unwrap()
});

pub(super) static AMOUNT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\$\s?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:\s+(?:million|billion))?|\$\s?\d+(?:\.\d+)?(?:\s+(?:million|billion))?")
        .unwrap()
});

/// Percentages (`0.125% per annum`) and financial ratios (`3.00 to 1.00`).
/// A percentage is read whole even when glued to a word (`Moody's0.375%`
/// gives `0.375%`, not `375%`): the leftmost digit starts it.
pub(super) static RATE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"\d{1,3}(?:\.\d+)?\s?%(?:\s+per\s+annum)?|\b\d{1,2}(?:\.\d{1,2})?\s+to\s+1(?:\.0{1,2})?\b",
    )
    .unwrap()
});

/// Words near a percentage that make it a rate (of interest, a fee, a
/// margin), not a share (`50% or more of the voting stock`).
static RATE_WORD: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i)\b(?:rate|margin|fee|interest|spread|premium|yield|per\s+annum)s?\b").unwrap()
});

/// What opens a definition body that says what the term is: `a`, `an`,
/// `any`, `each`, after an optional `with respect to ...,`. Compiled once
/// (it was compiled once per definition: 45% of offline ingest CPU).
static IS_A_LEAD: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:(?:with respect to [^,]{0,80},\s*)?(?:at any time,\s*)?)(?:a|an|any|each)\s+")
        .unwrap()
});

pub(super) fn valid_term(t: &str) -> bool {
    let first = t.chars().next();
    !t.is_empty()
        && t.chars().count() <= 80
        && t.split_whitespace().count() <= 10
        && first.is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
}

pub(super) fn push_term(terms: &mut Vec<String>, set: &mut HashSet<String>, raw: &str) {
    let t = normalize_ws(raw);
    if valid_term(&t) && set.insert(t.clone()) {
        terms.push(t);
    }
}

/// The section's defined terms, to find one at the start of a text: what
/// `\b(?:T1|T2|...)s?\b` (terms longest first) matches at offset 0. That
/// regex was compiled once per section and only ever asked for a match at
/// the start. The terms are looked up, not tried in turn: the text's
/// prefixes of each length a term has, longest first, in a set. Among
/// terms of one length only one can be the prefix, so this finds what the
/// longest-first alternation finds, at a cost bounded by the distinct term
/// lengths instead of the number of terms (trying 20,000 terms in turn
/// made a definitions section quadratic).
pub(super) struct TermMatcher {
    terms: HashSet<String>,
    /// The distinct byte lengths of the terms, longest first.
    lengths: Vec<usize>,
}

impl TermMatcher {
    /// The length of the match at the start of `s`: the longest term that
    /// `s` starts with, with a plural `s` when one follows, ending at a
    /// word boundary; as the regex's leftmost-first alternation and greedy
    /// `s?` choose.
    pub(super) fn match_at_start(&self, s: &str) -> Option<usize> {
        if !word_boundary(s, 0) {
            return None;
        }
        self.lengths.iter().find_map(|&end| {
            let t = s.get(..end)?;
            if !self.terms.contains(t) {
                return None;
            }
            let rest = &s[end..];
            if rest.starts_with('s') && word_boundary(s, end + 1) {
                Some(end + 1)
            } else if word_boundary(s, end) {
                Some(end)
            } else {
                None
            }
        })
    }
}

/// A word character as the regex crate's Unicode `\w` (and so `\b`)
/// reads it.
fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    static WORD: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\w$").unwrap());
    let mut buf = [0u8; 4];
    WORD.is_match(c.encode_utf8(&mut buf))
}

/// Unicode `\b` at byte offset `at` of `s` (a char boundary).
fn word_boundary(s: &str, at: usize) -> bool {
    let before = s[..at].chars().next_back().is_some_and(is_word_char);
    let after = s[at..].chars().next().is_some_and(is_word_char);
    before != after
}

/// The matcher of the section's defined terms; none without terms.
pub(super) fn term_regex(terms: &[String]) -> Option<TermMatcher> {
    if terms.is_empty() {
        return None;
    }
    let terms: HashSet<String> = terms.iter().cloned().collect();
    let mut lengths: Vec<usize> = terms.iter().map(String::len).collect();
    lengths.sort_unstable_by(|a, b| b.cmp(a));
    lengths.dedup();
    Some(TermMatcher { terms, lengths })
}

/// The term a match of [`term_regex`] stands for (plural `s` removed when
/// the singular is the term).
pub(super) fn term_of(m: &str, set: &HashSet<String>) -> Option<String> {
    if set.contains(m) {
        return Some(m.to_string());
    }
    m.strip_suffix('s')
        .filter(|s| set.contains(*s))
        .map(str::to_string)
}

/// A definition paragraph: the term, what it is (IS_A), what it is defined
/// with (DEFINED_AS other terms and organisations), and what it points to.
pub(super) fn definition(
    b: &mut Builder,
    term: &str,
    verb: &str,
    body: &str,
    term_re: &Option<TermMatcher>,
    set: &HashSet<String>,
) {
    let desc = truncate(&format!("{verb} {body}"), EVIDENCE_CHARS);
    let t = b.entity(term, "DefinedTerm", &desc);
    let body_trim = body.trim_start_matches([' ', ',', ':']);
    if let Some(re) = term_re {
        // IS_A: `means a Ratable Advance ...` / `means the Company ...`.
        let trim_at = body.len() - body_trim.len();
        let is_a_target = IS_A_LEAD.find(body_trim).and_then(|m| {
            let rest = &body_trim[m.end()..];
            re.match_at_start(rest)
                .filter(|&end| {
                    let after = &rest[end..];
                    // Not `the Borrower's ...`, nor one of alternatives
                    // (`a Eurocurrency Interest Period or an Absolute ...`).
                    !after.starts_with('\'')
                        && !after.trim_start().starts_with("or ")
                        && !after.trim_start().starts_with("and ")
                })
                .and_then(|end| term_of(&rest[..end], set).map(|k| (k, trim_at + m.end() + end)))
        });
        if let Some((k, end)) = &is_a_target {
            if k != term {
                let kn = b.entity(k, "DefinedTerm", "");
                b.relate(&t, "IS_A", &kn, &definition_quote(term, verb, body, *end));
            }
        }
    }
    // Another term or organisation merely mentioned in the body is no
    // definition of this one (`Multiemployer Plan` mentions the Borrower);
    // only what the body opens with is: `"Company" means Emerson Electric
    // Co.`, `"Closing Date" means May 23, 2018`.
    let opening = body_trim
        .strip_prefix("the ")
        .or_else(|| body_trim.strip_prefix("The "))
        .unwrap_or(body_trim);
    let opening_at = body.len() - opening.len();
    // `"Agent" means JPMCB in its capacity as ...`, `"Borrower" means the
    // Company.`: a body that opens with another term, and says no more of
    // it than its capacity, names that term.
    if let Some(re) = term_re {
        if let Some(x_end) = re.match_at_start(opening) {
            let after = &opening[x_end..];
            let whole = after.is_empty()
                || [
                    ".",
                    ";",
                    " in its ",
                    ", in its ",
                    " and its successors",
                    ", and its successors",
                    " as ",
                ]
                .iter()
                .any(|e| after.starts_with(e));
            if let Some(k) = term_of(&opening[..x_end], set).filter(|k| whole && k != term) {
                let kn = b.entity(&k, "DefinedTerm", "");
                let end = opening_at + x_end;
                b.relate(
                    &t,
                    "DEFINED_AS",
                    &kn,
                    &definition_quote(term, verb, body, end),
                );
            }
        }
    }
    for org in orgs(body, set) {
        // Every organisation named is an entity; only the opening one is
        // what the term is defined as.
        let o = b.org(&org);
        if org.start <= opening_at + 1 && org.end > opening_at {
            b.relate(
                &t,
                "DEFINED_AS",
                &o,
                &definition_quote(term, verb, body, org.end),
            );
        }
    }
    if let Some(m) = DATE.find(opening).filter(|m| m.start() == 0) {
        let d = b.entity(m.as_str(), "Period", "");
        let end = opening_at + m.end();
        b.relate(
            &t,
            "DEFINED_AS",
            &d,
            &definition_quote(term, verb, body, end),
        );
    }
    for sref in section_refs(body) {
        let s = b.entity(&sref, "SectionRef", "");
        b.relate(&t, "REFERENCES", &s, &snippet_around(body, &sref));
    }
    values(b, &t, body);
}

/// `"Term" means <body up to end>`: the quote of a definition, holding its
/// term, its verb and what it is defined as.
fn definition_quote(term: &str, verb: &str, body: &str, end: usize) -> String {
    let head = body[..end.min(body.len())].trim();
    truncate(
        &format!("\"{term}\" {verb} {head}"),
        EVIDENCE_CHARS.max(term.len() + head.len() + 12),
    )
}

/// Amounts and rates mentioned in `text`: `Amount -AMOUNT_OF-> subject`
/// and `Rate -RATE_OF-> subject` when the ontology has those relation
/// types, else `subject -REFERENCES-> Amount/Rate`.
pub(super) fn values(b: &mut Builder, subject: &str, text: &str) {
    for (re, ty, rel) in [
        (&*AMOUNT, "Amount", b.amount_of),
        (&*RATE, "Rate", b.rate_of),
    ] {
        for m in re.find_iter(text) {
            if ty == "Rate" && m.as_str().contains('%') && !rate_context(text, m.start(), m.end()) {
                continue;
            }
            let v = b.entity(&normalize_ws(m.as_str()), ty, "");
            let evidence = snippet_around(text, m.as_str());
            match rel {
                Some(r) => b.relate(&v, r, subject, &evidence),
                None => b.relate(subject, "REFERENCES", &v, &evidence),
            }
        }
    }
}

/// A rate word within about 60 characters before the percentage, or right
/// after it (`0.125% per annum`, `the Applicable Margin of 1.00%`).
fn rate_context(text: &str, start: usize, end: usize) -> bool {
    let mut from = start.saturating_sub(60);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (end + 20).min(text.len());
    while !text.is_char_boundary(to) {
        to += 1;
    }
    // `½ of 1%`, `one-half of 1%`: the percentage is part of a larger
    // number, not read whole.
    let before = text[..start].trim_end();
    if let Some(head) = before.strip_suffix(" of") {
        let last = head.rsplit(' ').next().unwrap_or("");
        if last.contains(['½', '¼', '¾', '/']) || last.contains("half") || last.contains("quarter")
        {
            return false;
        }
    }
    // `50% or more of the voting stock`: a share, whatever is near it.
    let after = text[end..to].trim_start().to_ascii_lowercase();
    if [
        "or more",
        "or less",
        "or greater",
        "owned",
        "of the outstanding",
        "of the voting",
    ]
    .iter()
    .any(|w| after.starts_with(w))
    {
        return false;
    }
    RATE_WORD.is_match(&text[from..to])
}

#[cfg(test)]
mod term_matcher_tests {
    use super::*;

    /// The regex the matcher stands for, asked as the rules asked it.
    fn by_regex(terms: &[String], s: &str) -> Option<usize> {
        let mut sorted: Vec<&String> = terms.iter().collect();
        sorted.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        let alts: Vec<String> = sorted.iter().map(|t| regex::escape(t)).collect();
        let re = Regex::new(&format!(r"\b(?:{})s?\b", alts.join("|"))).unwrap();
        re.find(s).filter(|m| m.start() == 0).map(|m| m.end())
    }

    #[test]
    fn matches_at_the_start_as_the_alternation_regex_did() {
        let terms: Vec<String> = [
            "Loan",
            "Loans",
            "Loan Party",
            "Lender",
            "Section 2.01(a)",
            "Agent",
            "Agents",
            "Café",
            "Borrower",
            "B",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        let m = term_regex(&terms).unwrap();
        for s in [
            "Loan Party shall",
            "Loan Parties",
            "Loans and",
            "Loans",
            "Loan",
            "Loanss",
            "Loaner",
            "Lenders, each",
            "Lender's",
            "Section 2.01(a)s",
            "Section 2.01(a) hereof",
            "Section 2.01(a)x",
            "Agents' fees",
            "Caféteria",
            "Cafés",
            "Café é",
            "Borrower_x",
            "Borroweré",
            "B.",
            "Bs",
            " Loan",
            "the Loan",
            "",
        ] {
            assert_eq!(m.match_at_start(s), by_regex(&terms, s), "{s:?}");
        }
    }
}
