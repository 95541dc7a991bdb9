//! Reading a register row's values the same way everywhere it is read
//! (the `contracts` query engine, the Neo4j agreement node): a category's
//! facts, a fact's value in normal form, a party name's words without
//! legal forms, dates known in part and periods in days.

use super::{RegisterFact, RegisterRow};
use crate::extract::facts_vocabulary::category_relation_type;
use once_cell::sync::Lazy;
use regex::Regex;

pub const GOVERNING_LAW: &str = "Governing Law";
pub const EXPIRATION_DATE: &str = "Expiration Date";
pub const RENEWAL_TERM: &str = "Renewal Term";
pub const NOTICE_PERIOD: &str = "Notice Period To Terminate Renewal";

/// The row's facts of a category (empty when none).
pub fn facts_of<'a>(row: &'a RegisterRow, category: &str) -> &'a [RegisterFact] {
    row.facts
        .get(&category_relation_type(category))
        .map_or(&[], Vec::as_slice)
}

/// A fact's value in normal form, else as the text gives it.
pub fn value_of(f: &RegisterFact) -> &str {
    f.normalized.as_deref().unwrap_or(&f.value)
}

/// Legal forms that name no one: `Acme Corp.` is `Acme Corporation` is
/// `ACME, Inc.`.
const LEGAL_FORMS: &[&str] = &[
    "the",
    "inc",
    "incorporated",
    "corp",
    "corporation",
    "co",
    "company",
    "llc",
    "lc",
    "ltd",
    "limited",
    "plc",
    "lp",
    "llp",
    "lllp",
    "pc",
    "sa",
    "ag",
    "gmbh",
    "nv",
    "bv",
    "pty",
    "pte",
    "sarl",
    "spa",
    "srl",
    "kk",
    "ab",
    "oy",
];

/// Lower-case words, dots dropped first so `L.L.C.` is one word.
pub fn words(s: &str) -> Vec<String> {
    s.replace('.', "")
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// A name's words without legal forms.
pub fn name_key(name: &str) -> Vec<String> {
    words(name)
        .into_iter()
        .filter(|w| !LEGAL_FORMS.contains(&w.as_str()))
        .collect()
}

/// A date as far as it is known: `2014`, `2014-05`, `2014-05-31`, held as
/// the first and last day it may be (a month's last day as 31: only the
/// order matters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartialDate {
    pub first: (u16, u8, u8),
    pub last: (u16, u8, u8),
}

impl PartialDate {
    /// `YYYY`, `YYYY-MM` or `YYYY-MM-DD`; `None` otherwise.
    pub fn parse(s: &str) -> Option<Self> {
        let parts: Vec<&str> = s.trim().split('-').collect();
        let num = |i: usize, len: usize| -> Option<u32> {
            let p = parts.get(i)?;
            (p.len() == len && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.parse().ok())
                .flatten()
        };
        let y = num(0, 4)? as u16;
        let (m, d) = match parts.len() {
            1 => return Some(Self::span(y, (1, 12), (1, 31))),
            2 | 3 => (
                num(1, 2)? as u8,
                if parts.len() == 3 {
                    num(2, 2)? as u8
                } else {
                    0
                },
            ),
            _ => return None,
        };
        if !(1..=12).contains(&m) || d > days_in_month(y, m) || (parts.len() == 3 && d == 0) {
            return None;
        }
        Some(if d == 0 {
            Self::span(y, (m, m), (1, 31))
        } else {
            Self::span(y, (m, m), (d, d))
        })
    }

    fn span(y: u16, m: (u8, u8), d: (u8, u8)) -> Self {
        PartialDate {
            first: (y, m.0, d.0),
            last: (y, m.1, d.1),
        }
    }
}

/// The days of month `m` (1-12) of year `y`, leap years counted:
/// `2024-02-30` is no date.
fn days_in_month(y: u16, m: u8) -> u8 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        _ => 31,
    }
}

/// A period (`30 days`, `1 year`, `3 months`, `2 weeks`) in days: a month
/// as 30, a year as 365.
pub fn period_days(f: &RegisterFact) -> Option<u32> {
    parse_period(value_of(f))
}

fn parse_period(s: &str) -> Option<u32> {
    let w = words(s);
    let n: u32 = w.first()?.parse().ok()?;
    let unit = w
        .iter()
        .skip(1)
        .find(|u| !matches!(u.as_str(), "business" | "calendar"))?;
    let per = match unit.trim_end_matches('s') {
        "day" => 1,
        "week" => 7,
        "month" => 30,
        "year" => 365,
        _ => return None,
    };
    n.checked_mul(per)
}

/// True when a renewal fact says the contract renews by itself: it
/// renews automatically, for successive terms, or unless a party gives
/// notice. An option to renew, a renewal a party may elect or request, or
/// one by mutual agreement is no automatic renewal: the contract ends
/// unless someone acts.
pub fn renews_automatically(f: &RegisterFact) -> bool {
    AUTOMATIC.is_match(&f.quote) && !OPTION.is_match(&f.quote) && !MUTUAL.is_match(&f.quote)
}

/// How a renewal fact renews: [`AUTOMATIC_RENEWAL`] when it needs no one
/// to act (see [`renews_automatically`]), [`OPTION_TO_RENEW`] when a party
/// must elect, request or exercise it; `None` when the clause says neither
/// (a renewal by mutual agreement, or words the reader cannot place).
pub fn renewal_kind(f: &RegisterFact) -> Option<&'static str> {
    if renews_automatically(f) {
        Some(AUTOMATIC_RENEWAL)
    } else if OPTION.is_match(&f.quote) && !MUTUAL.is_match(&f.quote) {
        Some(OPTION_TO_RENEW)
    } else {
        None
    }
}

/// A renewal that happens unless a party gives notice.
pub const AUTOMATIC_RENEWAL: &str = "automatic";
/// A renewal a party must elect, request or exercise.
pub const OPTION_TO_RENEW: &str = "option";

static AUTOMATIC: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i)\b(?:automatic(?:ally)?|successive|evergreen|unless\b[^.;]{0,120}\bnoti(?:ce|fy|fies))")
        .unwrap()
});

/// A renewal one party must act for.
static OPTION: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i)\b(?:option|opt\s+to|may\s+(?:renew|extend)|right\s+to\s+(?:renew|extend)|elects?\s+to\s+(?:renew|extend)|upon\s+(?:the\s+)?(?:written\s+)?request|wish(?:es)?\s+to\s+renew|desires?\s+to\s+renew)\b")
        .unwrap()
});

/// A renewal both parties must agree to.
static MUTUAL: Lazy<Regex> = Lazy::new(|| Regex::new(r"(?i)\bmutual(?:ly)?\b").unwrap());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_in_days() {
        assert_eq!(parse_period("30 days"), Some(30));
        assert_eq!(parse_period("1 year"), Some(365));
        assert_eq!(parse_period("3 months"), Some(90));
        assert_eq!(parse_period("2 weeks"), Some(14));
        assert_eq!(parse_period("10 business days"), Some(10));
        assert_eq!(parse_period("thirty days"), None);
    }

    #[test]
    fn an_option_or_a_mutual_renewal_is_no_automatic_one() {
        let f = |quote: &str| RegisterFact {
            quote: quote.into(),
            ..Default::default()
        };
        for auto in [
            "This Agreement shall automatically renew for successive one (1) year periods.",
            "The term renews for successive terms of two years each.",
            "This Agreement will renew for one year unless either party gives notice of non-renewal.",
        ] {
            assert!(renews_automatically(&f(auto)), "{auto}");
        }
        for acted in [
            "Licensee shall have the option to renew this Agreement for one additional year.",
            "The parties may renew this Agreement by mutual written agreement for successive terms.",
            "Distributor may extend the term for an additional two years upon written notice.",
            "This Agreement may be renewed upon the written request of the Company for a further year, unless terminated with notice.",
            "A renewal term of 10 days.",
        ] {
            assert!(!renews_automatically(&f(acted)), "{acted}");
        }
        assert_eq!(
            renewal_kind(&f(
                "Licensee shall have the option to renew this Agreement for one additional year."
            )),
            Some(OPTION_TO_RENEW)
        );
        assert_eq!(
            renewal_kind(&f(
                "This Agreement shall automatically renew for successive one (1) year periods."
            )),
            Some(AUTOMATIC_RENEWAL)
        );
        assert_eq!(
            renewal_kind(&f(
                "The parties may renew this Agreement by mutual written agreement."
            )),
            None
        );
    }
}
