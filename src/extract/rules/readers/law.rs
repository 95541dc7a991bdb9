//! Governing law: `This Agreement shall be governed by and construed in
//! accordance with the laws of the State of New York` gives `Agreement
//! -GOVERNED_BY-> New York`, in any contract type. Only where the text says
//! the agreement is governed by (or construed under) a place's laws; a
//! court's jurisdiction or a party's state of organisation is no governing
//! law.

use crate::extract::rules::common::builder::Builder;
use crate::extract::rules::common::text::EVIDENCE_CHARS;
use crate::extract::rules::common::text::{snippet_around, truncate};
use once_cell::sync::Lazy;
use regex::Regex;

/// `governed by ... the laws of (the State of) X`, `construed ... under the
/// laws of X`.
static GOVERNED: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?ix)
        \b(?:governed|construed|interpreted|enforced)\b[^.;]{0,120}?\blaws?\s+of\s+
        (?:the\s+)?(?:(?:State|Commonwealth|Province|Republic|Kingdom|People's\s+Republic)\s+of\s+)?
        (?-i:(?P<place>(?:the\s+)?[A-Z][A-Za-z]+(?:\s+(?:of\s+)?[A-Z][A-Za-z]+){0,3}))",
    )
    .unwrap()
});

/// Words that end a place's name when the capitalised run goes on
/// (`New York Without Regard`, `Delaware Applicable`).
const NOT_PLACE: &[&str] = &[
    "without",
    "applicable",
    "excluding",
    "except",
    "and",
    "as",
    "in",
    "including",
    "notwithstanding",
    "that",
    "which",
    "regardless",
    "other",
    "shall",
    "the",
];

/// `Agreement -GOVERNED_BY-> <place>` for each governing-law statement of
/// paragraph `p` that names the agreement.
pub(in crate::extract::rules) fn governing_law(b: &mut Builder, p: &str) {
    let lower = p.to_ascii_lowercase();
    if !lower.contains("agreement") || !lower.contains("law") {
        return;
    }
    for c in GOVERNED.captures_iter(p) {
        let start = c.get(0).unwrap().start();
        // The statement is about the agreement: `this Agreement` (or `it`
        // right after it) within the sentence before the verb.
        let sentence_start = p[..start].rfind(['.', ';']).map_or(0, |i| i + 1);
        let lead = p[sentence_start..c.get(0).unwrap().end()].to_ascii_lowercase();
        if !lead.contains("agreement") {
            continue;
        }
        let mut words: Vec<&str> = c["place"].split_whitespace().collect();
        if words.first().is_some_and(|w| w.eq_ignore_ascii_case("the")) {
            words.remove(0);
        }
        if let Some(cut) = words
            .iter()
            .position(|w| NOT_PLACE.contains(&w.to_ascii_lowercase().as_str()))
        {
            words.truncate(cut);
        }
        while words.last().is_some_and(|w| w.eq_ignore_ascii_case("of")) {
            words.pop();
        }
        if words.is_empty() || (words.len() == 1 && words[0].len() < 3) {
            continue;
        }
        let place = words.join(" ");
        // `NEW YORK` -> `New York`.
        let place = if place.chars().any(char::is_lowercase) {
            place
        } else {
            crate::extract::rules::common::text::titled(&place)
        };
        let j = b.entity(&place, "Jurisdiction", "governing law");
        let a = b.entity("Agreement", "DefinedTerm", "");
        let evidence = truncate(&snippet_around(p, &c[0]), EVIDENCE_CHARS);
        b.relate(&a, "GOVERNED_BY", &j, &evidence);
    }
}
