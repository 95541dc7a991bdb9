//! Leases: `Landlord leases to Tenant` (LEASES_TO, landlord -> tenant)
//! and `Tenant leases from Landlord, the Premises` (LEASES, tenant -> what
//! it leases). Both ends must be parties: a role word (`Landlord`) or one
//! of the document's party short names.

use crate::extract::rules::common::builder::Builder;
use crate::extract::rules::common::clause::{party, party_entity, PARTY_NAME};
use crate::extract::rules::common::text::{holds_any, normalize_ws, snippet_around};
use once_cell::sync::Lazy;
use regex::Regex;

/// `Landlord (hereby) leases (and demises) to Tenant`.
static LEASES_TO: Lazy<Regex> = Lazy::new(|| {
    Regex::new(&format!(
        r"\b({PARTY_NAME})\s+(?:hereby\s+)?(?:leases|demises|lets)(?:\s*,?\s*(?:and|demises|lets|leases)\s*)*\s+to\s+(?:the\s+)?({PARTY_NAME})\b"
    ))
    .unwrap()
});

/// `Tenant (hereby) leases (or takes) from Landlord, the Premises`.
static LEASES_FROM: Lazy<Regex> = Lazy::new(|| {
    Regex::new(&format!(
        r"\b({PARTY_NAME})\s+(?:hereby\s+)?(?:leases|rents|takes|hires)(?:\s+and\s+(?:takes|hires|rents))?\s+from\s+(?:the\s+)?({PARTY_NAME}),?\s+(?:the\s+|all\s+of\s+the\s+)?({PARTY_NAME})"
    ))
    .unwrap()
});

/// `Landlord leases to Tenant` (LEASES_TO) and `Tenant leases from
/// Landlord, the Premises` (LEASES).
pub(in crate::extract::rules) fn leases(b: &mut Builder, p: &str) {
    if let Some(rel) = b.offered("LEASES_TO") {
        let may_match = holds_any(p, &["leases", "demises", "lets"]);
        for c in LEASES_TO.captures_iter(if may_match { p } else { "" }) {
            let (Some(from), Some(to)) = (party(b, &c[1]), party(b, &c[2])) else {
                continue;
            };
            let evidence = snippet_around(p, c.get(0).unwrap().as_str());
            let from = party_entity(b, &from);
            let to = party_entity(b, &to);
            b.relate(&from, rel, &to, &evidence);
        }
    }
    if let Some(rel) = b.offered("LEASES") {
        let may_match = holds_any(p, &["leases", "rents", "takes", "hires"]) && p.contains("from");
        for c in LEASES_FROM.captures_iter(if may_match { p } else { "" }) {
            let (Some(tenant), Some(_)) = (party(b, &c[1]), party(b, &c[2])) else {
                continue;
            };
            let evidence = snippet_around(p, c.get(0).unwrap().as_str());
            let tenant = party_entity(b, &tenant);
            let premises = b.entity(&normalize_ws(&c[3]), "DefinedTerm", "");
            b.relate(&tenant, rel, &premises, &evidence);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::rules::extract_for;
    use crate::extract::rules::test_support::{input, of_type, onto};

    #[test]
    fn a_lease_names_landlord_tenant_and_premises() {
        let ontology = onto(&["LEASES_TO", "LEASES"]);
        let lease = input(
            "2. Lease Grant",
            "2. Lease Grant. Subject to the terms of this Lease, Landlord leases to Tenant, and \
             Tenant leases from Landlord, the Premises.",
        );
        let o = extract_for(&lease, &ontology);
        assert_eq!(of_type(&o, "LEASES_TO"), vec![("Landlord", "Tenant")]);
        assert_eq!(of_type(&o, "LEASES"), vec![("Tenant", "Premises")]);
        // Each type on its own: an ontology with LEASES alone still gets it.
        let only_leases = extract_for(&lease, &onto(&["LEASES"]));
        assert_eq!(
            of_type(&only_leases, "LEASES"),
            vec![("Tenant", "Premises")]
        );
        // Words that are no party lease nothing.
        let other = input(
            "2. Space",
            "2. Space. Management leases to Marketing, and Marketing takes from Management, \
             the Conference Room.",
        );
        let o = extract_for(&other, &ontology);
        assert!(o.relations.is_empty(), "{:#?}", o.relations);
    }
}
