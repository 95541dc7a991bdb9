//! Heading words as the matcher compares them: meaning-bearing stems.
//!
//! `normalize_title` keeps a title readable for reports and exact lookups;
//! matching on meaning needs more: British and American spellings meet
//! (`Licence`/`License`), hyphenated words join (`Set-off` -> `setoff`),
//! words reduce to their Snowball stem (`Judgments` -> `judgment`,
//! `Indemnification`/`Indemnity` stay apart, `Assigns`/`Assignments` meet)
//! and words that never decide what a section is about drop out. The `of`
//! position is kept long enough to find the head word of the phrase (see
//! [`heads`]).

use once_cell::sync::Lazy;
use rust_stemmers::{Algorithm, Stemmer};

/// Words that carry no topic in a heading.
pub const STOPWORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "and",
    "or",
    "of",
    "to",
    "for",
    "in",
    "on",
    "by",
    "with",
    "as",
    "at",
    "from",
    "under",
    "into",
    "upon",
    "its",
    "their",
    "any",
    "all",
    "each",
    "this",
    "that",
    "etc",
    "certain",
    "hereunder",
    "thereof",
    "herein",
    "such",
    "other",
    "various",
    "be",
    "is",
    "are",
    "not",
    "so",
    "than",
    "provision",
    "provisions",
    "matter",
    "matters",
    "generally",
    "respect",
    "relating",
    "related",
    "regarding",
    "respecting",
    "hereof",
];

/// British spellings mapped to the American ones most filings use.
const SPELLING: &[(&str, &str)] = &[
    ("licence", "license"),
    ("licences", "licenses"),
    ("judgement", "judgment"),
    ("judgements", "judgments"),
    ("labour", "labor"),
    ("honour", "honor"),
    ("favour", "favor"),
    ("defence", "defense"),
    ("offence", "offense"),
    ("programme", "program"),
    ("centre", "center"),
    ("fulfil", "fulfill"),
    ("cheque", "check"),
    ("acknowledgement", "acknowledgment"),
    ("instalment", "installment"),
    ("instalments", "installments"),
    ("behaviour", "behavior"),
    ("cancelled", "canceled"),
    ("cancellation", "cancelation"),
    ("cancelation", "cancelation"),
];

static STEMMER: Lazy<Stemmer> = Lazy::new(|| Stemmer::create(Algorithm::English));

thread_local! {
    static WORD_STEMS: super::memo::Memory<String> = Default::default();
    static NAME_STEMS: super::memo::Memory<Vec<String>> = Default::default();
}

/// One word of a heading after spelling and stemming (`of` kept as `of`).
fn word(w: &str) -> String {
    super::memo::remembered(&WORD_STEMS, w, stem_word)
}

/// [`word`] computed: the spelling table, British endings, the stemmer.
fn stem_word(w: &str) -> String {
    let w = SPELLING
        .iter()
        .find(|(b, _)| *b == w)
        .map_or(w.to_string(), |(_, a)| a.to_string());
    // -isation/-ised: British endings of -ization words.
    let w = if let Some(s) = w.strip_suffix("isation") {
        format!("{s}ization")
    } else if let Some(s) = w.strip_suffix("isations") {
        format!("{s}izations")
    } else {
        w
    };
    STEMMER.stem(&w).into_owned()
}

/// Lower-cased words of a heading name: `&` -> `and`, apostrophes dropped,
/// hyphenated words joined, parenthesised asides removed, every other
/// non-alphanumeric a separator. Stop words are still there.
pub fn raw_words(name: &str) -> Vec<String> {
    let mut text = String::with_capacity(name.len());
    let mut depth = 0usize;
    let mut prev_alnum = false;
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if super::normalize::is_invisible(c) {
            continue;
        }
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            '\'' | '’' | '‘' | '`' => {}
            '-' | '‐' | '‑' if prev_alnum && chars.peek().is_some_and(|n| n.is_alphanumeric()) =>
                {}
            '&' => text.push_str(" and "),
            c if c.is_ascii_alphanumeric() => text.push(c.to_ascii_lowercase()),
            c if c.is_alphanumeric() => text.extend(c.to_lowercase()),
            _ => text.push(' '),
        }
        prev_alnum = c.is_alphanumeric();
    }
    text.split_whitespace().map(str::to_string).collect()
}

/// Stemmed words of a heading name, stop words kept (the concept table and
/// the head finder need their positions); see [`content`] to drop them.
pub fn stems(name: &str) -> Vec<String> {
    super::memo::remembered(&NAME_STEMS, name, stems_of)
}

/// [`stems`] computed.
fn stems_of(name: &str) -> Vec<String> {
    raw_words(name)
        .iter()
        .map(|w| {
            if STOPWORDS.contains(&w.as_str()) {
                w.clone()
            } else {
                word(w)
            }
        })
        .collect()
}

/// One lower-case word without its inflection: plural `-s` / `-ies`, the
/// verb's `-ing`, a final `e` (`Pricing` = `Price`, `Testing` = `Test`),
/// never a derivation. Agreement at this level says two phrases use the
/// same word, where stems also equate derivations (`Borrower` and
/// `Borrowing`, `Documents` and `Documentation`).
pub fn lemma(w: &str) -> String {
    let mut w = w.to_string();
    if let Some(b) = w.strip_suffix("ies").filter(|b| b.len() >= 2) {
        w = format!("{b}y");
    } else if w.ends_with("sses") {
        w.truncate(w.len() - 2);
    } else if w.len() > 3
        && w.ends_with('s')
        && !w.ends_with("ss")
        && !w.ends_with("us")
        && !w.ends_with("is")
    {
        w.truncate(w.len() - 1);
    }
    if w.len() >= 6 && w.ends_with("ing") {
        w.truncate(w.len() - 3);
    }
    if w.len() > 3 && w.ends_with('e') {
        w.truncate(w.len() - 1);
    }
    w
}

/// Stems a phrase of the concept table or an index key the same way.
pub fn is_stopword(w: &str) -> bool {
    STOPWORDS.contains(&w)
}

/// Words that end the head phrase: what follows qualifies it.
const PREPOSITIONS: &[&str] = &[
    "of",
    "on",
    "upon",
    "for",
    "with",
    "under",
    "by",
    "to",
    "in",
    "after",
    "before",
    "from",
    "into",
    "against",
    "regarding",
    "respecting",
    "re",
    "during",
    "following",
    "as",
    "at",
];

/// Adjectives that follow the noun they qualify (`Rates Applicable After
/// Default`): never the head.
const POSTMODIFIERS: &[&str] = &["applic", "payabl", "due", "requir", "permit", "general"];

/// Nouns that only introduce their object (`Limitation on Liens`,
/// `Maintenance of Insurance`): the object is a head too.
const LIGHT_HEADS: &[&str] = &[
    "limit",
    "restrict",
    "mainten",
    "complianc",
    "provis",
    "matter",
    "form",
    "use",
    "effect",
    "conduct",
    "notic",
    "prohibit",
    "incur",
    "amount",
    "type",
    "kind",
    "evid",
];

/// Light nouns weigh less in similarity: `Limitation on Acquisitions` is
/// about acquisitions more than about limiting.
pub fn is_light(stem: &str) -> bool {
    LIGHT_HEADS.contains(&stem)
}

/// Weight factor of a light noun in similarity.
pub const LIGHT_WEIGHT: f64 = 0.3;

/// The head words of a stemmed word list (stop words included): the last
/// word of the first phrase (`Payment of Taxes` -> `payment`, `Judgment
/// Currency` -> `currency`), plus its object when that head is a light noun
/// (`Limitation on Liens` -> `limitation`, `lien`).
pub fn heads(words: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut phrases: Vec<Vec<&str>> = vec![Vec::new()];
    for w in words {
        if PREPOSITIONS.contains(&w.as_str()) {
            if !phrases.last().is_some_and(|p| p.is_empty()) {
                phrases.push(Vec::new());
            }
        } else if !is_stopword(w) {
            phrases.last_mut().expect("one phrase").push(w);
        }
    }
    for p in phrases.iter().filter(|p| !p.is_empty()) {
        let head = p
            .iter()
            .rev()
            .find(|w| !POSTMODIFIERS.contains(w))
            .unwrap_or(&p[p.len() - 1]);
        out.push(head.to_string());
        if !LIGHT_HEADS.contains(head) {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(s: &str) -> Vec<String> {
        stems(s).into_iter().filter(|w| !is_stopword(w)).collect()
    }

    #[test]
    fn lemmas_undo_inflection_not_derivation() {
        let lemmas = |name: &str| -> Vec<String> {
            raw_words(name)
                .iter()
                .filter(|w| !is_stopword(w))
                .map(|w| lemma(w))
                .collect()
        };
        assert_eq!(
            lemmas("Notices of Borrowings"),
            lemmas("Notice of Borrowing")
        );
        assert_eq!(lemmas("Pricing"), lemmas("Price"));
        assert_eq!(lemmas("Acceptance Testing"), lemmas("Acceptance Tests"));
        assert_eq!(lemmas("Properties"), lemmas("Property"));
        assert_ne!(lemmas("Borrower"), lemmas("Borrowing"));
        assert_ne!(lemmas("Documents"), lemmas("Documentation"));
        assert_ne!(lemmas("Lender"), lemmas("Lending"));
        // Stems do merge them: that is why context reads lemmas.
        assert_eq!(st("Borrower"), st("Borrowing"));
    }

    #[test]
    fn spelling_hyphens_and_stems_meet() {
        assert_eq!(st("Licence Grant"), st("License Grants"));
        assert_eq!(st("Set-off"), st("Setoff"));
        assert_eq!(st("Authorisation"), st("Authorization"));
        assert_eq!(st("Judgments"), st("Judgment"));
        assert_eq!(st("Terms & Conditions"), st("Terms and Conditions"));
        assert_eq!(st("Agent’s Fees (Aggregated)"), st("Agents Fee"));
        assert_ne!(st("Indemnity"), st("Interest"));
    }

    #[test]
    fn head_word_is_the_first_phrase_noun() {
        assert_eq!(heads(&stems("Payment of Taxes")), ["payment"]);
        assert_eq!(heads(&stems("Judgment Currency")), ["currenc"]);
        assert_eq!(heads(&stems("Judgments")), ["judgment"]);
        assert_eq!(heads(&stems("Rates Applicable After Default")), ["rate"]);
        assert_eq!(heads(&stems("Limitation on Liens")), ["limit", "lien"]);
    }
}
