//! Text plumbing for the rules: cleaning PDF-to-Markdown output,
//! paragraphs, quotes and section references.

use once_cell::sync::Lazy;
use regex::Regex;

pub(in crate::extract::rules) use crate::tree::paragraphs::{
    clean, paragraphs, without_contents_lines, LIST_CLAUSE, PROSE, SIGNATURE_FIELD,
};

/// Longest evidence quote kept on a relation.
pub(in crate::extract::rules) const EVIDENCE_CHARS: usize = 160;

/// Page numbers, running headers and source URLs that PDF extraction leaves
/// between paragraphs.
pub(in crate::extract::rules) fn page_furniture(p: &str) -> bool {
    p.len() <= 80 || p.contains("://")
}

pub(in crate::extract::rules) static SECTION_REF: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:Sections?|SECTIONS?)\s+(\d{1,2}(?:\.\d{1,3})+(?:[A-Za-z]\b)?)").unwrap()
});

/// True for a recital (`WHEREAS, Licensor is willing to grant ...`): it
/// says what the parties intend or have done, not what binds them.
pub(in crate::extract::rules) fn is_recital(text: &str) -> bool {
    text.trim_start()
        .get(..7)
        .is_some_and(|w| w.eq_ignore_ascii_case("WHEREAS"))
}

/// Room for the lazy DFA of a pattern whose asides are counted runs
/// (`(?:\s*,[^,;]{1,160},)?`): each character of a run is a new DFA
/// state, so the default 2 MiB of cache filled and was cleared again and
/// again, and building states took half the time of the obligation
/// patterns. Bounded: one cache per rules thread.
const LARGE_DFA_BYTES: usize = 16 << 20;

/// A pattern compiled with [`LARGE_DFA_BYTES`] of lazy-DFA cache (the
/// same matches as `Regex::new`).
pub(in crate::extract::rules) fn with_large_dfa(pattern: &str) -> Result<Regex, regex::Error> {
    regex::RegexBuilder::new(pattern)
        .dfa_size_limit(LARGE_DFA_BYTES)
        .build()
}

/// `hay.to_ascii_lowercase().contains(needle)` for a lower-case ASCII
/// `needle`, without the lower-cased copy.
pub(in crate::extract::rules) fn contains_ignore_ascii_case(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let Some(&first) = n.first() else {
        return true;
    };
    memchr::memchr2_iter(first.to_ascii_lowercase(), first.to_ascii_uppercase(), h).any(|i| {
        h.get(i..i + n.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(n))
    })
}

/// `s.to_ascii_lowercase().starts_with(prefix)` for a lower-case ASCII
/// `prefix`, without the copy.
pub(in crate::extract::rules) fn starts_with_ignore_ascii_case(s: &str, prefix: &str) -> bool {
    s.as_bytes()
        .get(..prefix.len())
        .is_some_and(|h| h.eq_ignore_ascii_case(prefix.as_bytes()))
}

/// `s.to_ascii_lowercase().ends_with(suffix)` for a lower-case ASCII
/// `suffix`, without the copy.
pub(in crate::extract::rules) fn ends_with_ignore_ascii_case(s: &str, suffix: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= suffix.len() && b[b.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// True when `p` holds one of `words`. A pattern each of whose matches
/// holds one of them cannot match a text without any, so the (much
/// cheaper) substring search stands in front of the regex.
pub(in crate::extract::rules) fn holds_any(p: &str, words: &[&str]) -> bool {
    words.iter().any(|w| p.contains(w))
}

/// Words joined by one space (the tree's helper, under the rules' name).
pub(in crate::extract::rules) use crate::tree::label::collapse_spaces as normalize_ws;

/// `Article 4`, `ARTICLE IV`, `Exhibit G`, `Exhibit A-2`, `Schedule 2.01`,
/// `Schedule 2.01A` (a lettered schedule is its own part, not `Schedule 2`).
pub(in crate::extract::rules) static PART_REF: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(Article|ARTICLE|Exhibit|EXHIBIT|Schedule|SCHEDULE)\s+((?:\d{1,2}(?:\.\d{1,3})*[A-Z]?|[IVX]{1,5})\b|[A-Z](?:-\d{1,2})?\b)")
        .unwrap()
});

/// `10.16`, `99.1`: the number the SEC gives an exhibit to a filing
/// (a two-digit class, a dot, its sequence).
fn sec_exhibit_number(n: &str) -> bool {
    n.split_once('.').is_some_and(|(class, seq)| {
        class.len() == 2
            && class.bytes().all(|b| b.is_ascii_digit())
            && !seq.is_empty()
            && seq.bytes().all(|b| b.is_ascii_digit())
    })
}

/// Cross-references written in `p`: sections (`Section 2.05`), articles,
/// exhibits and schedules, in order, without a repeat. `this Section 4.8`
/// points at the text itself and is no cross-reference.
pub(in crate::extract::rules) fn section_refs(p: &str) -> Vec<String> {
    let self_ref = |at: usize| ends_with_ignore_ascii_case(p[..at].trim_end(), "this");
    // `Article 55 of Directive 2014/59/EU`, `Section 1.01 of the Existing
    // Credit Agreement`: a part of another document, named by it, not here.
    let external = |end: usize| {
        let rest =
            p[end..].trim_start_matches(|c: char| c == '(' || c == ')' || c.is_alphanumeric());
        starts_with_ignore_ascii_case(rest, " of ")
            && !starts_with_ignore_ascii_case(rest, " of this")
    };
    let mut found: Vec<(usize, String)> = SECTION_REF
        .captures_iter(p)
        .filter(|c| !self_ref(c.get(0).unwrap().start()) && !external(c.get(0).unwrap().end()))
        .map(|c| {
            (
                c.get(0).unwrap().start(),
                format!("Section {}", c[1].trim_end_matches('.')),
            )
        })
        .collect();
    for c in PART_REF.captures_iter(p) {
        if self_ref(c.get(0).unwrap().start()) || external(c.get(0).unwrap().end()) {
            continue;
        }
        // `Exhibit 10.16`, `EXHIBIT 99.1`: the SEC filing's own exhibit
        // number (two-digit, dotted), not a part of the agreement.
        if c[1].eq_ignore_ascii_case("exhibit") && sec_exhibit_number(&c[2]) {
            continue;
        }
        let mut kind = c[1].to_ascii_lowercase();
        kind[..1].make_ascii_uppercase();
        found.push((c.get(0).unwrap().start(), format!("{kind} {}", &c[2])));
    }
    found.sort();
    let mut out: Vec<String> = Vec::new();
    for (_, r) in found {
        if !out.contains(&r) {
            out.push(r);
        }
    }
    out
}

pub(in crate::extract::rules) fn truncate(s: &str, n: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= n {
        return s.to_string();
    }
    let cut: String = s.chars().take(n).collect();
    match cut.rfind(' ') {
        Some(i) if i > n / 2 => format!("{}...", &cut[..i]),
        _ => format!("{cut}..."),
    }
}

/// A short quote around the first occurrence of `needle`: it starts at a
/// word (never mid-word, `lan, as defined`) at most about 60 characters
/// before the needle, and holds the needle whole.
pub(in crate::extract::rules) fn snippet_around(p: &str, needle: &str) -> String {
    // Case-insensitive (`SECTION 2.05`), else by the needle's last word
    // (`Sections 8.03 and 8.04` for `Section 8.04`); ASCII lower-casing
    // keeps byte offsets.
    let hay = p.to_ascii_lowercase();
    let low = needle.to_ascii_lowercase();
    let last = low.rsplit(' ').next().unwrap_or(&low).to_string();
    let found = hay
        .find(&low)
        .map(|i| (i, needle.len()))
        .or_else(|| hay.find(&last).map(|i| (i, last.len())));
    let Some((pos, needle_len)) = found else {
        return truncate(p, EVIDENCE_CHARS);
    };
    let back = p[..pos].char_indices().rev().nth(60).map_or(0, |(i, _)| i);
    // Move forward to the start of the next word unless already at one.
    let start = if back == 0 || p[..back].ends_with(' ') {
        back
    } else {
        p[back..pos].find(' ').map_or(pos, |i| back + i + 1)
    };
    // Not from the punctuation a cut leaves (`, (a) with respect to`).
    let start = start
        + p[start..pos]
            .find(|c: char| c.is_alphanumeric() || c == '"' || c == '(' || c == '$')
            .unwrap_or(0);
    let room = EVIDENCE_CHARS.max(p[start..pos].chars().count() + needle_len + 20);
    truncate(&p[start..], room)
}

/// Words that begin a heading line: a contents page lists these.
static HEADING_LABEL: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i)\b(?:section|article|exhibit|schedule|annex|appendix)\s*(?:[\dIVXLC]+(?:\.\d+)*|[A-Z](?:-\d+)?\b)")
        .unwrap()
});

/// The same words in capitals: a clause set in capitals (`EXCEPT FOR
/// BREACHES OF SECTION 11, IN NO EVENT SHALL EITHER PARTY BE LIABLE ...`)
/// is running text, not a contents line.
static PROSE_CAPS: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:SHALL|MEANS|AGREES?|HEREBY|WILL|MAY|IS|ARE|HAS|HAVE|WAS|WERE)\b").unwrap()
});

/// A contents page or one of its lines, wherever it sits (also inside a
/// preamble): `TABLE OF CONTENTS`, or heading labels (`Section 2.01`,
/// `ARTICLE V`) among words that are almost all capitalised, as titles are,
/// with no verb of running text. Nothing is extracted from it.
pub(in crate::extract::rules) fn contents_like(p: &str) -> bool {
    if contains_ignore_ascii_case(p, "table of contents") {
        return true;
    }
    if !HEADING_LABEL.is_match(p) || PROSE.is_match(p) || PROSE_CAPS.is_match(p) {
        return false;
    }
    const SMALL: &[&str] = &[
        "of", "and", "or", "the", "in", "to", "for", "on", "by", "a", "an", "with", "etc.", "etc",
    ];
    let words: Vec<&str> = p
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .filter(|w| {
            !SMALL.contains(
                &w.to_ascii_lowercase()
                    .trim_matches(|c: char| !c.is_alphanumeric() && c != '.'),
            )
        })
        .collect();
    if words.is_empty() {
        return true;
    }
    let capital = words
        .iter()
        .filter(|w| {
            w.trim_start_matches(|c: char| !c.is_alphanumeric())
                .chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        })
        .count();
    capital * 10 >= words.len() * 9
}

/// Each word with a capital first letter and the rest in lower case:
/// `LICENSOR` -> `Licensor`, `NEW YORK` -> `New York`.
pub fn titled(s: &str) -> String {
    s.split_whitespace()
        .map(|w| {
            let mut cs = w.chars();
            cs.next().map_or(String::new(), |f| {
                f.to_uppercase()
                    .chain(cs.flat_map(char::to_lowercase))
                    .collect()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use crate::extract::rules::extract;
    use crate::extract::rules::test_support::{input, referenced};

    /// A clause in capitals that cites a section is text; a contents line
    /// in capitals is not.
    #[test]
    fn a_clause_in_capitals_citing_a_section_is_no_contents_line() {
        assert!(!super::contents_like(
            "EXCEPT FOR BREACHES OF SECTION 11, IN NO EVENT SHALL EITHER PARTY BE LIABLE FOR ANY CONSEQUENTIAL DAMAGES."
        ));
        assert!(super::contents_like(
            "ARTICLE V COVENANTS OF THE BORROWER 45"
        ));
    }

    #[test]
    fn a_lettered_schedule_is_referenced_whole() {
        let o = extract(&input(
            "Section 2.01 Commitments",
            "Each Lender's Commitment is set forth on Schedule 2.01A; the Letter of Credit \
             Commitments on Schedule 2.01B and the Existing Letters of Credit on Schedule 2.",
        ));
        assert_eq!(
            referenced(&o),
            ["Schedule 2.01A", "Schedule 2.01B", "Schedule 2"],
            "{:#?}",
            o.relations
        );
    }
}
