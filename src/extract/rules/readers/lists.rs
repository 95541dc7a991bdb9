//! Lists a paragraph opens and the clauses (`(a) ...`) that go on it:
//! `... shall constitute an "Event of Default":` (each clause an event
//! that triggers a default), and a duty's sentence ending in `:` (each
//! clause its own, or an exception it permits).

use super::{Flow, Paragraph};
use crate::extract::rules::common::builder::Builder;
use crate::extract::rules::common::clause::clause_links;
use crate::extract::rules::common::qualifiers::permitted;
use crate::extract::rules::common::text::{page_furniture, truncate, EVIDENCE_CHARS, LIST_CLAUSE};
use once_cell::sync::Lazy;
use regex::Regex;

/// A clause of an open Event-of-Default list becomes an `EventOfDefault`
/// that TRIGGERS it; a paragraph ending in `:` that speaks of an event of
/// default opens such a list. Any other paragraph (but page furniture)
/// closes every open list.
pub(super) fn events_of_default(b: &mut Builder, p: &mut Paragraph) -> Flow {
    if let Some(lc) = LIST_CLAUSE.captures(p.text) {
        if let Some(trigger) = &p.lists.events_of {
            let clause = truncate(&p.text[lc.get(0).unwrap().end()..], 200);
            let name = truncate(&format!("{trigger} ({}): {}", &lc[1], clause), 100);
            let ev = b.entity(&name, "EventOfDefault", &clause);
            let t = b.entity(trigger, "DefinedTerm", "");
            b.relate(&ev, "TRIGGERS", &t, &truncate(&clause, EVIDENCE_CHARS));
            clause_links(b, &ev, p.text, p.section.own);
            return Flow::Done;
        }
    } else if !page_furniture(p.text) {
        p.lists.events_of = None;
        p.lists.duty = None;
    }
    if p.text.trim_end().ends_with(':') && p.text.to_ascii_lowercase().contains("event of default")
    {
        p.lists.events_of = Some("Event of Default".to_string());
        return Flow::Done;
    }
    Flow::Next
}

/// A clause of an open duty's list: its references, amounts and rates are
/// the duty's, or, after `except:`, it is an exception the duty permits.
pub(super) fn clauses_of_duty(b: &mut Builder, p: &mut Paragraph) -> Flow {
    let (Some((owner, permits)), Some(lc)) = (&p.lists.duty, LIST_CLAUSE.captures(p.text)) else {
        return Flow::Next;
    };
    let clause = &p.text[lc.get(0).unwrap().end()..];
    let holder = permits
        .then(|| permitted(b, owner, clause))
        .flatten()
        .unwrap_or_else(|| owner.clone());
    clause_links(b, &holder, clause, p.section.own);
    Flow::Done
}

/// True when a restriction's paragraph ends by opening a list of what it
/// permits: `... will not create any Lien ..., except:`, `other than the
/// following:`.
pub(super) fn opens_exceptions(p: &str) -> bool {
    static EXCEPT_LIST: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\b(?:except|other\s+than|excluding|but\s+excluding)\b[^:;]{0,60}:\s*$")
            .unwrap()
    });
    EXCEPT_LIST.is_match(p)
}

#[cfg(test)]
mod tests {
    use crate::extract::rules::extract;
    use crate::extract::rules::test_support::{has, input};

    #[test]
    fn events_of_default_trigger_the_default() {
        let o = extract(&input(
            "Section 6.01 Events of Default",
            "The occurrence of any one or more of the following events shall constitute an \"Event of Default\":\n\n\
             (a) any Borrower shall fail to pay any principal of any Loan;\n\n\
             54\n\n\
             (b) any Borrower shall fail to observe any covenant contained in Section 5.06;\n\n\
             then, and in every such event, the Agent may terminate the Commitments by notice to the Company.",
        ));
        let events: Vec<&str> = o
            .entities
            .iter()
            .filter(|e| e.entity_type == "EventOfDefault")
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(events.len(), 2, "{events:?}");
        assert!(events[0].starts_with("Event of Default (a): any Borrower shall fail to pay"));
        assert!(has(&o, events[1], "TRIGGERS", "Event of Default"));
        assert!(has(&o, events[1], "REFERENCES", "Section 5.06"));
        assert!(!o
            .relations
            .iter()
            .any(|r| r.relation_type == "OBLIGATED_TO" && r.target.contains("fail to pay")));
    }
}
