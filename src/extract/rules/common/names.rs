//! How an organisation's name is shown: the spelling the section uses
//! for a word in mixed case (`JPMorgan`, `ICICI`), else title case for a
//! name written in capitals.

use super::orgs::{all_caps, mostly_caps, orgs};
use std::collections::{HashMap, HashSet};

/// Words as a section writes them in organisation names that are not in
/// capitals, keyed by their lower case: `JPMorgan Chase Bank, N.A.` gives
/// `jpmorgan` -> `JPMorgan`, `ICICI Bank Limited` gives `icici` -> `ICICI`.
/// [`display_name`] prefers these to title-casing.
pub(in crate::extract::rules) fn spellings(paragraphs: &[String]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let none = HashSet::new();
    for p in paragraphs {
        for m in orgs(p, &none) {
            if mostly_caps(&m.raw) {
                continue;
            }
            for w in m.raw.split_whitespace() {
                let bare = w.trim_end_matches(',');
                if bare.chars().next().is_some_and(char::is_uppercase) {
                    out.entry(bare.to_lowercase())
                        .or_insert_with(|| bare.to_string());
                }
            }
        }
    }
    out
}

/// Capitalised words kept as written: acronyms (no vowel, `HSBC`; at most
/// three letters, `BNP`; four letters with one vowel, `MUFG`), initials
/// (`U.S.`) and `&` names; common short words (`BANK`, `NEW`) are not.
pub(in crate::extract::rules) fn keep_caps(bare: &str) -> bool {
    const TITLE: &[&str] = &[
        "CO.", "INC.", "LTD.", "CORP.", "THE", "AND", "BANK", "TRUST", "FUND", "NEW", "YORK",
        "WEST", "EAST", "CITY", "GAS", "OIL", "AIR", "LIFE", "HOME", "CARE", "ONE", "STAR", "BAY",
        "EDISON",
    ];
    let letters: Vec<char> = bare.chars().filter(|c| c.is_alphabetic()).collect();
    let vowels = letters.iter().filter(|c| "AEIOUY".contains(**c)).count();
    bare.contains('&')
        || bare.trim_end_matches('.').contains('.')
        || (!TITLE.contains(&bare)
            && (vowels == 0 || letters.len() <= 3 || (letters.len() == 4 && vowels < 2)))
}

/// The name to show: mixed-case names as written; names in capitals
/// word by word, preferring the section's own `spellings` (`JPMORGAN` ->
/// `JPMorgan` when the section also writes `JPMorgan`), else keeping
/// acronyms ([`keep_caps`]) and title-casing the rest:
/// `JPMORGAN CHASE BANK, N.A.` -> `Jpmorgan Chase Bank, N.A.` without one.
pub(in crate::extract::rules) fn display_name(
    raw: &str,
    spellings: &HashMap<String, String>,
) -> String {
    if !mostly_caps(raw) {
        return raw.to_string();
    }
    raw.split(' ')
        .map(|w| {
            let bare = w.trim_end_matches(',');
            let rest = &w[bare.len()..];
            if !all_caps(bare) {
                w.to_string()
            } else if let Some(s) = spellings.get(&bare.to_lowercase()) {
                format!("{s}{rest}")
            } else if bare == "OF" || bare == "AND" {
                w.to_lowercase()
            } else if keep_caps(bare) {
                w.to_string()
            } else {
                let mut cs = w.chars();
                match cs.next() {
                    Some(f) => f
                        .to_uppercase()
                        .chain(cs.flat_map(|c| c.to_lowercase()))
                        .collect(),
                    None => String::new(),
                }
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
