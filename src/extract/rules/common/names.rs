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

#[cfg(test)]
mod tests {
    use super::display_name;
    use crate::extract::rules::extract;
    use crate::extract::rules::test_support::{has, input, org_names};

    #[test]
    fn names_in_capitals_take_the_sections_mixed_case_spelling() {
        let o = extract(&input(
            "Signatures",
            "JPMORGAN CHASE BANK, N.A., as Agent and as a Lender\n\n\
             By: /s/ Jane Doe\n\n\
             ICICI BANK LIMITED, NEW YORK BRANCH, as a Lender\n\n\
             By: /s/ Akashdeep Sarpal\nName: Akashdeep Sarpal\nTitle: Country Head \u{2013} USA\nICICI Bank Limited\n\n\
             Notices to JPMorgan Chase Bank, N.A., 10 South Dearborn, Chicago.",
        ));
        let orgs = org_names(&o);
        assert_eq!(
            orgs,
            ["JPMorgan Chase Bank, N.A.", "ICICI Bank Limited"],
            "one entity each, spelled as the section writes them in mixed case"
        );
        let jp = &o.entities.iter().find(|e| e.name == orgs[0]).unwrap();
        assert_eq!(jp.aliases, ["JPMORGAN CHASE BANK, N.A."]);
        assert!(has(&o, "JPMorgan Chase Bank, N.A.", "HAS_ROLE", "Agent"));
        assert!(has(&o, "ICICI Bank Limited", "HAS_ROLE", "Lender"));
    }

    #[test]
    fn acronyms_in_capitals_stay_capitals() {
        for (raw, shown) in [
            ("HSBC BANK USA, N.A.", "HSBC Bank USA, N.A."),
            ("MUFG BANK, LTD.", "MUFG Bank, Ltd."),
            (
                "BNP PARIBAS SECURITIES CORP.",
                "BNP Paribas Securities Corp.",
            ),
            (
                "MORGAN STANLEY MUFG LOAN PARTNERS, LLC",
                "Morgan Stanley MUFG Loan Partners, LLC",
            ),
            ("BofA SECURITIES, INC.", "BofA Securities, Inc."),
            ("JPMORGAN CHASE BANK, N.A.", "Jpmorgan Chase Bank, N.A."),
            ("ICICI Bank Limited", "ICICI Bank Limited"),
        ] {
            assert_eq!(display_name(raw, &Default::default()), shown, "{raw}");
        }
        let o = extract(&input(
            "Preamble",
            "CREDIT AGREEMENT among CUMMINS INC., the LENDERS party hereto and \
             BofA SECURITIES, INC., as Joint Lead Arranger.",
        ));
        assert_eq!(org_names(&o), ["Cummins Inc.", "BofA Securities, Inc."]);
    }
}
