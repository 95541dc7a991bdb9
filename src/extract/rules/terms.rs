//! Defined terms (`"Borrower" means ...`, `(the "Borrower")`), what
//! they are defined with, and the amounts, rates and dates they mention.

use super::builder::Builder;
use super::parties::*;
use super::text::*;
use super::EVIDENCE_CHARS;
use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::HashSet;

/// `"Term" means ...`, `"Term": ...`, `"Term" has the meaning ...` at the
/// start of a paragraph (optionally after a clause number).
pub(super) static DEFINITION: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r#"^\s*(?:\([a-z0-9]{1,4}\)\s*)?"([^"]{1,100})"(?:\s*(?:,|and|or)\s*"([^"]{1,100})")?[^"]{0,160}?(:|\b(?:means?|(?:is|are)\s+defined|(?:has|have)\s+the\s+meanings?|refers?\s+to|includes?)\b)"#,
    )
    .unwrap()
});

/// `(the "Borrower")`, `(each, a "Lender")`, `(collectively, the "Lenders")`.
pub(super) static PAREN_TERM: Lazy<Regex> =
    Lazy::new(|| Regex::new(r#"\(([^()"]{0,40})"([^"]{1,60})"\s*\)"#).unwrap());

/// `May 23, 2018`.
pub(super) static DATE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},\s+\d{4}\b")
        .unwrap()
});

pub(super) static AMOUNT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\$\s?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:\s+(?:million|billion))?|\$\s?\d+(?:\.\d+)?(?:\s+(?:million|billion))?")
        .unwrap()
});

/// Percentages (`0.125% per annum`) and financial ratios (`3.00 to 1.00`).
pub(super) static RATE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b\d{1,3}(?:\.\d+)?\s?%(?:\s+per\s+annum)?|\b\d{1,2}(?:\.\d{1,2})?\s+to\s+1(?:\.0{1,2})?\b")
        .unwrap()
});

pub(super) fn valid_term(t: &str) -> bool {
    let first = t.chars().next();
    !t.is_empty()
        && t.chars().count() <= 80
        && t.split_whitespace().count() <= 10
        && first.is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
}

pub(super) fn push_term(terms: &mut Vec<String>, set: &mut HashSet<String>, raw: &str) {
    let t = normalize_ws(raw);
    if valid_term(&t) && set.insert(t.clone()) {
        terms.push(t);
    }
}

/// One regex matching any defined term (longest first, optional plural `s`).
pub(super) fn term_regex(terms: &[String]) -> Option<Regex> {
    if terms.is_empty() {
        return None;
    }
    let mut sorted: Vec<&String> = terms.iter().collect();
    sorted.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    let alts: Vec<String> = sorted.iter().map(|t| regex::escape(t)).collect();
    Regex::new(&format!(r"\b(?:{})s?\b", alts.join("|"))).ok()
}

/// The term a match of [`term_regex`] stands for (plural `s` removed when
/// the singular is the term).
pub(super) fn term_of(m: &str, set: &HashSet<String>) -> Option<String> {
    if set.contains(m) {
        return Some(m.to_string());
    }
    m.strip_suffix('s')
        .filter(|s| set.contains(*s))
        .map(str::to_string)
}

/// A definition paragraph: the term, what it is (IS_A), what it is defined
/// with (DEFINED_AS other terms and organisations), and what it points to.
pub(super) fn definition(
    b: &mut Builder,
    term: &str,
    verb: &str,
    body: &str,
    term_re: &Option<Regex>,
    set: &HashSet<String>,
) {
    let desc = truncate(&format!("{verb} {body}"), EVIDENCE_CHARS);
    let t = b.entity(term, "DefinedTerm", &desc);
    let body_trim = body.trim_start_matches([' ', ',', ':']);
    if let Some(re) = term_re {
        // IS_A: `means a Ratable Advance ...` / `means the Company ...`.
        let lead = Regex::new(
            r"^(?:(?:with respect to [^,]{0,80},\s*)?(?:at any time,\s*)?)(?:a|an|the|any|each)\s+",
        )
        .unwrap();
        let is_a_target = lead.find(body_trim).and_then(|m| {
            re.find(&body_trim[m.end()..])
                .filter(|x| x.start() == 0)
                .and_then(|x| term_of(x.as_str(), set))
        });
        if let Some(k) = &is_a_target {
            if k != term {
                let kn = b.entity(k, "DefinedTerm", "");
                b.relate(&t, "IS_A", &kn, &truncate(body_trim, EVIDENCE_CHARS));
            }
        }
        let mut used = HashSet::new();
        for m in re.find_iter(body) {
            let Some(k) = term_of(m.as_str(), set) else {
                continue;
            };
            if k == term || Some(&k) == is_a_target.as_ref() || !used.insert(k.clone()) {
                continue;
            }
            let kn = b.entity(&k, "DefinedTerm", "");
            b.relate(&t, "DEFINED_AS", &kn, &snippet_around(body, m.as_str()));
        }
    }
    // Terms defined inline, e.g. `("Exempt Debt")`, are part of this definition.
    for c in PAREN_TERM.captures_iter(body) {
        let inner = normalize_ws(&c[2]);
        if valid_term(&inner) && inner != term {
            let i = b.entity(
                &inner,
                "DefinedTerm",
                &truncate(&snippet_around(body, &c[0]), EVIDENCE_CHARS),
            );
            b.relate(&t, "DEFINED_AS", &i, &snippet_around(body, &c[0]));
        }
    }
    for org in orgs(body, set) {
        let o = b.org(&org);
        b.relate(&t, "DEFINED_AS", &o, &snippet_around(body, &org.raw));
    }
    for sref in section_refs(body) {
        let s = b.entity(&sref, "SectionRef", "");
        b.relate(&t, "REFERENCES", &s, &snippet_around(body, &sref));
    }
    values(b, &t, body);
    for m in DATE.find_iter(body) {
        let d = b.entity(m.as_str(), "Period", "");
        b.relate(&t, "DEFINED_AS", &d, &snippet_around(body, m.as_str()));
    }
}

/// Amounts and rates mentioned in `text`: `Amount -AMOUNT_OF-> subject`
/// and `Rate -RATE_OF-> subject` when the ontology has those relation
/// types, else `subject -REFERENCES-> Amount/Rate`.
pub(super) fn values(b: &mut Builder, subject: &str, text: &str) {
    for (re, ty, rel) in [
        (&*AMOUNT, "Amount", b.amount_of),
        (&*RATE, "Rate", b.rate_of),
    ] {
        for m in re.find_iter(text) {
            let v = b.entity(&normalize_ws(m.as_str()), ty, "");
            let evidence = snippet_around(text, m.as_str());
            match rel {
                Some(r) => b.relate(&v, r, subject, &evidence),
                None => b.relate(subject, "REFERENCES", &v, &evidence),
            }
        }
    }
}
