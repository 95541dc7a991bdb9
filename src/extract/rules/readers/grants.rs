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

#[cfg(test)]
mod tests {
    use crate::extract::rules::extract_for;
    use crate::extract::rules::test_support::{input, of_type, onto};

    #[test]
    fn licence_grants_name_both_parties() {
        let ontology = onto(&[
            "LICENSES",
            "HOLDS_RIGHT",
            "LEASES_TO",
            "LEASES",
            "RESTRICTS",
        ]);
        let mut i = input(
            "10.2 Limited License",
            "10.2 Limited License. Miltenyi hereby grants to Bellicum a limited, non-exclusive \
             right and license under the Miltenyi Technology for the Permitted Use. \
             Subcontractors shall not have the right to grant sublicenses.",
        );
        i.parties = vec!["Miltenyi".into(), "Bellicum".into()];
        let o = extract_for(&i, &ontology);
        let grant = of_type(&o, "LICENSES");
        assert_eq!(grant.len(), 1, "{:#?}", o.relations);
        assert_eq!(grant[0].0, "Miltenyi");
        assert!(of_type(&o, "HOLDS_RIGHT").contains(&("Bellicum", grant[0].1)));

        // A non-exclusive grant is exclusive nowhere; an exclusive one is
        // exclusive in the Territory it names.
        let exclusive_onto = onto(&["LICENSES", "HOLDS_RIGHT", "EXCLUSIVE_IN"]);
        assert!(of_type(&extract_for(&i, &exclusive_onto), "EXCLUSIVE_IN").is_empty());
        let mut excl = input(
            "2.1 License Grant",
            "2.1 License Grant. CytoDyn hereby grants to Vyera an exclusive, royalty-bearing \
             license under the CytoDyn Patents to Commercialize Licensed Products in the Field \
             in the Territory during the Term of the Agreement, as provided in the Agreement.",
        );
        excl.parties = vec!["CytoDyn".into(), "Vyera".into()];
        let o = extract_for(&excl, &exclusive_onto);
        let places: Vec<&str> = of_type(&o, "EXCLUSIVE_IN")
            .iter()
            .map(|(_, t)| *t)
            .collect();
        assert_eq!(places, vec!["Field", "Territory"], "{:#?}", o.relations);

        // A grant between words that are no party gives nothing.
        let other = input(
            "2.1 Grant",
            "2.1 Grant. Management hereby grants to Marketing a license to use the logo.",
        );
        assert!(of_type(&extract_for(&other, &ontology), "LICENSES").is_empty());
    }
}
