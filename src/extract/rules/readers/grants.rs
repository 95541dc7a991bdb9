//! Licence grants (`Licensor hereby grants to Licensee a non-exclusive
//! licence ...`): who grants, who holds the right, and where an exclusive
//! grant holds.
//!
//! A grantor counts only when it is a party: a role word or one of the
//! document's party short names ([`Builder::bindable`]).

use crate::extract::rules::common::builder::Builder;
use crate::extract::rules::common::clause::{clause_at, party, party_entity, PARTY_NAME};
use crate::extract::rules::common::text::EVIDENCE_CHARS;
use crate::extract::rules::common::text::*;
use once_cell::sync::Lazy;
use regex::Regex;

/// `X (hereby) grants to Y ... a ... licence`.
static GRANTS_LICENCE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(&format!(
        r"\b({PARTY_NAME})\s+(?:hereby\s+)?(?:grants?|shall\s+grant|will\s+grant|agrees\s+to\s+grant)\s+(?:to\s+)?(?:the\s+|each\s+)?({PARTY_NAME})\b[^.;]{{0,240}}?\b(?:sub)?licen[cs]es?\b"
    ))
    .unwrap()
});

/// `exclusive ... in the Territory`, `exclusive ... throughout the Field`:
/// where an exclusive grant holds (a defined place or field).
static EXCLUSIVE_WHERE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(&format!(
        r"\b(?:in|throughout|within)\s+the\s+({PARTY_NAME})\b"
    ))
    .unwrap()
});

/// Capitalised words after `in the` that name a document or a time, not a
/// territory or a field.
const NOT_A_PLACE: &[&str] = &[
    "Agreement",
    "Term",
    "Section",
    "Article",
    "Exhibit",
    "Schedule",
    "Effective",
    "Event",
];

/// `exclusive` that is not `non-exclusive`.
fn exclusive(clause: &str) -> bool {
    let l = clause.to_ascii_lowercase();
    l.match_indices("exclusive")
        .any(|(i, _)| !l[..i].trim_end_matches(['-', ' ']).ends_with("non"))
}

/// `Licensor hereby grants to Licensee a non-exclusive licence ...`: the
/// grantor LICENSES the grant (a Right named by its clause) and the
/// grantee HOLDS_RIGHT it.
pub(in crate::extract::rules) fn licence_grants(b: &mut Builder, p: &str) {
    // Words every match holds.
    if !(p.contains("grant") && p.contains("licen")) {
        return;
    }
    for c in GRANTS_LICENCE.captures_iter(p) {
        let (grantor, grantee) = (normalize_ws(&c[1]), normalize_ws(&c[2]));
        let (Some(grantor), Some(grantee)) = (party(b, &grantor), party(b, &grantee)) else {
            continue;
        };
        let clause = clause_at(p, c.get(1).unwrap().start());
        let name = truncate(&normalize_ws(clause), 240);
        let right = b.entity(&name, "Right", &truncate(clause, 200));
        let evidence = truncate(clause, EVIDENCE_CHARS);
        let from = party_entity(b, &grantor);
        let to = party_entity(b, &grantee);
        if let Some(rel) = b.offered("LICENSES") {
            b.relate(&from, rel, &right, &evidence);
        }
        b.relate(&to, "HOLDS_RIGHT", &right, &evidence);
        // An exclusive grant is exclusive where the clause says: the
        // Territory or Field it names (defined terms, capitalised).
        if let (Some(rel), true) = (b.offered("EXCLUSIVE_IN"), exclusive(clause)) {
            for w in EXCLUSIVE_WHERE.captures_iter(clause) {
                let name = normalize_ws(&w[1]);
                let first = name.split(' ').next().unwrap_or("");
                if NOT_A_PLACE.contains(&first) {
                    continue;
                }
                let place = b.entity(&name, "DefinedTerm", "");
                b.relate(&right, rel, &place, &evidence);
            }
        }
    }
}
