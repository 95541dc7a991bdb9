//! The definitions of a document's periods: `"Service Period" means April
//! 1st 2019 through to March 30, 2020`, `"Term" means the period of three
//! years from the Effective Date`. A term clause often runs `for the
//! Service Period` and leaves its length to the definitions, which sit in
//! another section than the clause; the register reads the end there.

use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::BTreeMap;

/// Longest definition kept, in characters.
const DEFINITION_CHARS: usize = 600;

/// Defined name (ending in `Term` or `Period`, `Term of Agreement`) ->
/// its definition's text (whitespace collapsed, cut at the sentence's
/// end), first definition wins.
pub fn term_definitions(text: &str) -> BTreeMap<String, String> {
    static DEFINED: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r#"["“](?P<name>(?:[A-Z][\w-]*\s+){0,4}(?:Term|Period)(?:\s+of\s+(?:this\s+)?[A-Z][\w-]*)?)["”]\s*(?:shall\s+mean|means|is\s+defined\s+as|shall\s+be|is)\b"#)
            .unwrap()
    });
    static END: Lazy<Regex> =
        Lazy::new(|| Regex::new(r"[.;]\s+(?:[A-Z(\x22“]|\d+(?:\.\d+)+\s|$)|\n\s*\n").unwrap());
    let mut out = BTreeMap::new();
    for c in DEFINED.captures_iter(text) {
        let name = c["name"].split_whitespace().collect::<Vec<_>>().join(" ");
        if out.contains_key(&name) {
            continue;
        }
        let body_at = c.get(0).map_or(0, |m| m.end());
        let mut body_end = (body_at + DEFINITION_CHARS * 2).min(text.len());
        while !text.is_char_boundary(body_end) {
            body_end -= 1;
        }
        let window = &text[body_at..body_end];
        let cut = END.find(window).map_or(window.len(), |m| m.start() + 1);
        let body: String = window[..cut]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(DEFINITION_CHARS)
            .collect();
        out.insert(name, body);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_period_s_definition_is_read_to_its_sentence_end() {
        let text = "1.12 \"Service Period\" means April. 1st 2019 through to March 30,\n2020. 1.13 \"Services\" means the services.\n\"Cure Period\" shall mean thirty (30) days; \"Term\" has the meaning given in Section 9.";
        let d = term_definitions(text);
        assert_eq!(
            d.get("Service Period").map(String::as_str),
            Some("April. 1st 2019 through to March 30, 2020.")
        );
        assert_eq!(
            d.get("Cure Period").map(String::as_str),
            Some("thirty (30) days;")
        );
        // `has the meaning given in` defines nothing here.
        assert!(!d.contains_key("Term"), "{d:?}");
    }
}
