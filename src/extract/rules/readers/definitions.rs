//! Definitions (`"Borrower" means ...`): what a term is (IS_A), what it
//! is defined with (DEFINED_AS other terms and organisations), and the
//! references and values its body mentions.

use super::{Flow, Paragraph};
use crate::extract::rules::common::builder::Builder;
use crate::extract::rules::common::orgs::*;
use crate::extract::rules::common::terms::*;
use crate::extract::rules::common::text::*;
use crate::extract::rules::common::values::*;
use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::HashSet;

/// What opens a definition body that says what the term is: `a`, `an`,
/// `any`, `each`, after an optional `with respect to ...,`. Compiled once
/// (it was compiled once per definition: 45% of offline ingest CPU).
static IS_A_LEAD: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:(?:with respect to [^,]{0,80},\s*)?(?:at any time,\s*)?)(?:a|an|any|each)\s+")
        .unwrap()
});

/// A paragraph that opens with a definition (`"Term" means ...`, `"A" and
/// "B" mean ...`) is read as one, and by no later reader.
pub(super) fn read(b: &mut Builder, p: &mut Paragraph) -> Flow {
    let Some(c) = DEFINITION.captures(p.text) else {
        return Flow::Next;
    };
    let term = normalize_ws(&c[1]);
    if !valid_term(&term) {
        return Flow::Next;
    }
    let body = &p.text[c.get(0).map_or(0, |m| m.end())..];
    let verb = c.get(3).map_or("", |m| m.as_str());
    let (terms, matcher) = (p.section.terms, p.section.term_matcher);
    definition(b, &term, verb, body, matcher, terms);
    if let Some(second) = c.get(2) {
        let other = normalize_ws(second.as_str());
        if valid_term(&other) {
            definition(b, &other, verb, body, matcher, terms);
        }
    }
    Flow::Done
}

/// A definition paragraph: the term, what it is (IS_A), what it is defined
/// with (DEFINED_AS other terms and organisations), and what it points to.
pub(in crate::extract::rules) fn definition(
    b: &mut Builder,
    term: &str,
    verb: &str,
    body: &str,
    term_re: &Option<TermMatcher>,
    set: &HashSet<String>,
) {
    let desc = truncate(&format!("{verb} {body}"), EVIDENCE_CHARS);
    let t = b.entity(term, "DefinedTerm", &desc);
    let body_trim = body.trim_start_matches([' ', ',', ':']);
    if let Some(re) = term_re {
        // IS_A: `means a Ratable Advance ...` / `means the Company ...`.
        let trim_at = body.len() - body_trim.len();
        let is_a_target = IS_A_LEAD.find(body_trim).and_then(|m| {
            let rest = &body_trim[m.end()..];
            re.match_at_start(rest)
                .filter(|&end| {
                    let after = &rest[end..];
                    // Not `the Borrower's ...`, nor one of alternatives
                    // (`a Eurocurrency Interest Period or an Absolute ...`).
                    !after.starts_with('\'')
                        && !after.trim_start().starts_with("or ")
                        && !after.trim_start().starts_with("and ")
                })
                .and_then(|end| term_of(&rest[..end], set).map(|k| (k, trim_at + m.end() + end)))
        });
        if let Some((k, end)) = &is_a_target {
            if k != term {
                let kn = b.entity(k, "DefinedTerm", "");
                b.relate(&t, "IS_A", &kn, &definition_quote(term, verb, body, *end));
            }
        }
    }
    // Another term or organisation merely mentioned in the body is no
    // definition of this one (`Multiemployer Plan` mentions the Borrower);
    // only what the body opens with is: `"Company" means Emerson Electric
    // Co.`, `"Closing Date" means May 23, 2018`.
    let opening = body_trim
        .strip_prefix("the ")
        .or_else(|| body_trim.strip_prefix("The "))
        .unwrap_or(body_trim);
    let opening_at = body.len() - opening.len();
    // `"Agent" means JPMCB in its capacity as ...`, `"Borrower" means the
    // Company.`: a body that opens with another term, and says no more of
    // it than its capacity, names that term.
    if let Some(re) = term_re {
        if let Some(x_end) = re.match_at_start(opening) {
            let after = &opening[x_end..];
            let whole = after.is_empty()
                || [
                    ".",
                    ";",
                    " in its ",
                    ", in its ",
                    " and its successors",
                    ", and its successors",
                    " as ",
                ]
                .iter()
                .any(|e| after.starts_with(e));
            if let Some(k) = term_of(&opening[..x_end], set).filter(|k| whole && k != term) {
                let kn = b.entity(&k, "DefinedTerm", "");
                let end = opening_at + x_end;
                b.relate(
                    &t,
                    "DEFINED_AS",
                    &kn,
                    &definition_quote(term, verb, body, end),
                );
            }
        }
    }
    for org in orgs(body, set) {
        // Every organisation named is an entity; only the opening one is
        // what the term is defined as.
        let o = b.org(&org);
        if org.start <= opening_at + 1 && org.end > opening_at {
            b.relate(
                &t,
                "DEFINED_AS",
                &o,
                &definition_quote(term, verb, body, org.end),
            );
        }
    }
    if let Some(m) = DATE.find(opening).filter(|m| m.start() == 0) {
        let d = b.entity(m.as_str(), "Period", "");
        let end = opening_at + m.end();
        b.relate(
            &t,
            "DEFINED_AS",
            &d,
            &definition_quote(term, verb, body, end),
        );
    }
    for sref in section_refs(body) {
        let s = b.entity(&sref, "SectionRef", "");
        b.relate(&t, "REFERENCES", &s, &snippet_around(body, &sref));
    }
    values(b, &t, body);
}

/// `"Term" means <body up to end>`: the quote of a definition, holding its
/// term, its verb and what it is defined as.
fn definition_quote(term: &str, verb: &str, body: &str, end: usize) -> String {
    let head = body[..end.min(body.len())].trim();
    truncate(
        &format!("\"{term}\" {verb} {head}"),
        EVIDENCE_CHARS.max(term.len() + head.len() + 12),
    )
}

#[cfg(test)]
mod tests {
    use crate::extract::rules::extract;
    use crate::extract::rules::test_support::{has, input};

    #[test]
    fn definitions_yield_terms_is_a_and_defined_as() {
        let i = input(
            "Section 1.01 Definitions",
            "\u{201C}<u>Advance</u>\u{201D} means a Ratable Advance or a Competitive Bid Advance.\n\n\
             \"Ratable Advance\" means a borrowing by the Borrower under Section 2.02.\n\n\
             \"Swing Line Advance\" means a Ratable Advance made by the Swing Line Lender.\n\n\
             \"Competitive Bid Advance\": an advance bearing 0.125% per annum.\n\n\
             \"Borrower\" means the Company.\n\n\
             \"Company\" means Emerson Electric Co., a Missouri corporation, and its successors.",
        );
        let o = extract(&i);
        assert_eq!(o, extract(&i), "deterministic");
        let names: Vec<&str> = o
            .entities
            .iter()
            .filter(|e| e.entity_type == "DefinedTerm")
            .map(|e| e.name.as_str())
            .collect();
        for t in [
            "Advance",
            "Ratable Advance",
            "Competitive Bid Advance",
            "Borrower",
            "Company",
        ] {
            assert!(names.contains(&t), "{t} in {names:?}");
        }
        assert!(
            has(&o, "Swing Line Advance", "IS_A", "Ratable Advance"),
            "{:#?}",
            o.relations
        );
        // One of alternatives is no kind: an Advance is not always Ratable.
        assert!(!has(&o, "Advance", "IS_A", "Ratable Advance"));
        // A term merely mentioned in a definition's body defines nothing.
        assert!(!has(&o, "Ratable Advance", "DEFINED_AS", "Borrower"));
        assert!(!o
            .relations
            .iter()
            .any(|r| r.source == "Advance" && r.relation_type == "DEFINED_AS"));
        // `means the Company` names the same thing; it is no kind of it.
        assert!(!has(&o, "Borrower", "IS_A", "Company"));
        assert!(has(&o, "Ratable Advance", "REFERENCES", "Section 2.02"));
        assert!(has(
            &o,
            "Competitive Bid Advance",
            "REFERENCES",
            "0.125% per annum"
        ));
        assert!(
            has(&o, "Company", "DEFINED_AS", "Emerson Electric Co."),
            "{:#?}",
            o.relations
        );
    }

    #[test]
    fn wrapped_plain_text_definitions_are_found() {
        let o = extract(&input(
            "Section 1.01. Definitions",
            "\u{201C}Additional Lender\u{201D} means a Person which becomes a Lender pursuant to Section\n\
             2.17.\n\
             \u{201C}Administrative Agent\u{201D} means Bank of America, N.A., in its capacity as\n\
             administrative agent for the Lenders hereunder.\n\
             \u{201C}Lender\u{201D} means each bank party hereto.",
        ));
        let terms: Vec<&str> = o
            .entities
            .iter()
            .filter(|e| e.entity_type == "DefinedTerm")
            .map(|e| e.name.as_str())
            .collect();
        // The three terms, in the order the text defines them.
        assert_eq!(
            terms,
            ["Additional Lender", "Administrative Agent", "Lender"]
        );
        assert!(has(&o, "Additional Lender", "REFERENCES", "Section 2.17"));
        assert!(has(
            &o,
            "Administrative Agent",
            "DEFINED_AS",
            "Bank of America, N.A."
        ));
    }
}
