//! Amounts, rates and dates in running text, and the values a clause
//! mentions tied to what they measure (`AMOUNT_OF`, `RATE_OF`, else
//! `REFERENCES`).

use super::builder::Builder;
use super::text::*;
use once_cell::sync::Lazy;
use regex::Regex;

/// `May 23, 2018`.
pub(in crate::extract::rules) static DATE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},\s+\d{4}\b")
        .unwrap()
});

pub(in crate::extract::rules) static AMOUNT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\$\s?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:\s+(?:million|billion))?|\$\s?\d+(?:\.\d+)?(?:\s+(?:million|billion))?")
        .unwrap()
});

/// Percentages (`0.125% per annum`) and financial ratios (`3.00 to 1.00`).
/// A percentage is read whole even when glued to a word (`Moody's0.375%`
/// gives `0.375%`, not `375%`): the leftmost digit starts it.
pub(in crate::extract::rules) static RATE: Lazy<Regex> = Lazy::new(|| {
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

/// Amounts and rates mentioned in `text`: `Amount -AMOUNT_OF-> subject`
/// and `Rate -RATE_OF-> subject` when the ontology has those relation
/// types, else `subject -REFERENCES-> Amount/Rate`.
pub(in crate::extract::rules) fn values(b: &mut Builder, subject: &str, text: &str) {
    for (re, ty, rel) in [
        (&*AMOUNT, "Amount", b.offered("AMOUNT_OF")),
        (&*RATE, "Rate", b.offered("RATE_OF")),
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
mod tests {
    use crate::extract::rules::test_support::{has, input};
    use crate::extract::rules::{extract, extract_for};
    use crate::index::Ontology;

    #[test]
    fn values_use_amount_of_and_rate_of_when_the_ontology_has_them() {
        let i = input(
            "Section 2.01 The Facility",
            "Each Lender agrees to make Loans up to $100,000,000 at 0.125% per annum.",
        );
        let mut o = Ontology::default();
        o.relation_types.insert("AMOUNT_OF".into(), String::new());
        o.relation_types.insert("RATE_OF".into(), String::new());
        let with = extract_for(&i, &o);
        let ob = with
            .entities
            .iter()
            .find(|e| e.entity_type == "Obligation")
            .unwrap()
            .name
            .clone();
        assert!(
            has(&with, "$100,000,000", "AMOUNT_OF", &ob),
            "{:#?}",
            with.relations
        );
        assert!(has(&with, "0.125% per annum", "RATE_OF", &ob));
        let without = extract(&i);
        assert!(has(&without, &ob, "REFERENCES", "$100,000,000"));
    }
}
