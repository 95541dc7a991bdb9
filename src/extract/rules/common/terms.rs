//! Defined terms as a section writes them: `"Term" means ...` and
//! `(the "Borrower")`, which of them a text starts with, and whether a
//! quoted phrase can be a term at all.

use super::text::*;
use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::HashSet;

/// `"Term" means ...`, `"Term": ...`, `"Term" has the meaning ...` at the
/// start of a paragraph (optionally after a clause number).
pub(in crate::extract::rules) static DEFINITION: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r#"^\s*(?:\([a-z0-9]{1,4}\)\s*)?"([^"]{1,100})"(?:\s*(?:,|and|or)\s*"([^"]{1,100})")?[^"]{0,160}?(:|\b(?:means?|(?:is|are)\s+defined|(?:has|have)\s+the\s+meanings?|refers?\s+to|includes?)\b)"#,
    )
    .unwrap()
});

/// `(the "Borrower")`, `(each, a "Lender")`, `(collectively, the "Lenders")`.
pub(in crate::extract::rules) static PAREN_TERM: Lazy<Regex> =
    Lazy::new(|| Regex::new(r#"\(([^()"]{0,40})"([^"]{1,60})"\s*\)"#).unwrap());

pub(in crate::extract::rules) fn valid_term(t: &str) -> bool {
    let first = t.chars().next();
    !t.is_empty()
        && t.chars().count() <= 80
        && t.split_whitespace().count() <= 10
        && first.is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
}

pub(in crate::extract::rules) fn push_term(
    terms: &mut Vec<String>,
    set: &mut HashSet<String>,
    raw: &str,
) {
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
pub(in crate::extract::rules) struct TermMatcher {
    terms: HashSet<String>,
    /// The distinct byte lengths of the terms, longest first.
    lengths: Vec<usize>,
}

impl TermMatcher {
    /// The length of the match at the start of `s`: the longest term that
    /// `s` starts with, with a plural `s` when one follows, ending at a
    /// word boundary; as the regex's leftmost-first alternation and greedy
    /// `s?` choose.
    pub(in crate::extract::rules) fn match_at_start(&self, s: &str) -> Option<usize> {
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
pub(in crate::extract::rules) fn term_regex(terms: &[String]) -> Option<TermMatcher> {
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
pub(in crate::extract::rules) fn term_of(m: &str, set: &HashSet<String>) -> Option<String> {
    if set.contains(m) {
        return Some(m.to_string());
    }
    m.strip_suffix('s')
        .filter(|s| set.contains(*s))
        .map(str::to_string)
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
