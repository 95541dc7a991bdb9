//! Display form of a section heading: what a reviewer would write in the
//! index. `Section 1.01 Definitions` becomes `Definitions`,
//! `Article 9: ADMINISTRATIVE AGENT` becomes `Administrative Agent`.
//!
//! Matching uses [`crate::index::normalize_title`]; this form is for people
//! (suggestions, entries added by `kgroute review`).

use once_cell::sync::Lazy;
use regex::Regex;

/// `Section 1.01`, `SECTION 2.12.`, `Article IV -`, `§ 3`.
static KEYWORD_NUMBER: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?i)^(?:section|article|§+)\s*(?:[0-9]+(?:\.[0-9]+)*[a-z]?|[ivxlc]+)\b[.:)\s\-–—]*",
    )
    .expect("valid regex")
});

/// A bare leading number: `1.01 `, `2. `, `10(a) `.
static BARE_NUMBER: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^[0-9]+(?:\.[0-9]+)*[A-Za-z]?(?:\([a-z0-9]+\))?[.:)]?\s+").expect("valid regex")
});

const SMALL_WORDS: [&str; 14] = [
    "a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with",
];

/// Drops control characters ([`super::sanitize::sanitize_title`]), strips
/// leading numbering and a trailing period, and turns an all-caps
/// heading into title case. Returns the trimmed input when nothing would be
/// left (`ARTICLE IV`).
pub fn display_title(heading: &str) -> String {
    let clean = super::sanitize::sanitize_title(heading);
    let trimmed = clean.trim();
    let mut rest = trimmed;
    if let Some(m) = KEYWORD_NUMBER.find(rest) {
        rest = &rest[m.end()..];
    } else if let Some(m) = BARE_NUMBER.find(rest) {
        rest = &rest[m.end()..];
    }
    let rest = rest.trim().trim_end_matches('.').trim();
    if rest.is_empty() {
        return trimmed.to_string();
    }
    let has_lower = rest.chars().any(char::is_lowercase);
    if has_lower {
        return rest.to_string();
    }
    title_case(rest)
}

fn title_case(s: &str) -> String {
    s.split(' ')
        .enumerate()
        .map(|(i, w)| {
            let lower = w.to_lowercase();
            if i > 0 && SMALL_WORDS.contains(&lower.as_str()) {
                return lower;
            }
            let mut chars = lower.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::display_title;

    #[test]
    fn strips_numbering_in_the_shapes_real_contracts_use() {
        let cases = [
            ("Section 1.01 Definitions", "Definitions"),
            (
                "SECTION 2.12. Payments and Computations",
                "Payments and Computations",
            ),
            (
                "ARTICLE 2.18. Extension of Termination Date",
                "Extension of Termination Date",
            ),
            ("1.01 Defined Terms", "Defined Terms"),
            ("Article 9: ADMINISTRATIVE AGENT", "Administrative Agent"),
            ("Article IV - Representations", "Representations"),
            ("Section 5.13 Subsidiaries.", "Subsidiaries"),
            ("Types of Advances", "Types of Advances"),
            ("ARTICLE IV", "ARTICLE IV"),
            ("Schedule 2.01A Commitments", "Schedule 2.01A Commitments"),
        ];
        for (input, want) in cases {
            assert_eq!(display_title(input), want, "{input}");
        }
    }
}
