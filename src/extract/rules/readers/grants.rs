//! What one party gives another: payments (`Bellicum will pay to Miltenyi
//! an upfront fee ...`), licence grants (`Licensor hereby grants to
//! Licensee a non-exclusive licence ...`) and leases (`Landlord leases to
//! Tenant, and Tenant leases from Landlord, the Premises`).
//!
//! A grantor or payer counts only when it is a party: a role word or one
//! of the document's party short names ([`Builder::bindable`]).

use crate::extract::rules::common::builder::Builder;
use crate::extract::rules::common::clause::{clause_at, party_entity};
use crate::extract::rules::common::text::EVIDENCE_CHARS;
use crate::extract::rules::common::text::*;
use once_cell::sync::Lazy;
use regex::Regex;

/// A capitalised name of one to four words (`Bellicum`, `Service Provider`).
const NAME: &str = r"[A-Z][A-Za-z\-]*(?:\s+[A-Z][A-Za-z\-]*){0,3}";

/// `X (hereby) grants to Y ... a ... licence`.
static GRANTS_LICENCE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(&format!(
        r"\b({NAME})\s+(?:hereby\s+)?(?:grants?|shall\s+grant|will\s+grant|agrees\s+to\s+grant)\s+(?:to\s+)?(?:the\s+|each\s+)?({NAME})\b[^.;]{{0,240}}?\b(?:sub)?licen[cs]es?\b"
    ))
    .unwrap()
});

/// `Landlord (hereby) leases (and demises) to Tenant`.
static LEASES_TO: Lazy<Regex> = Lazy::new(|| {
    Regex::new(&format!(
        r"\b({NAME})\s+(?:hereby\s+)?(?:leases|demises|lets)(?:\s*,?\s*(?:and|demises|lets|leases)\s*)*\s+to\s+(?:the\s+)?({NAME})\b"
    ))
    .unwrap()
});

/// `Tenant (hereby) leases (or takes) from Landlord, the Premises`.
static LEASES_FROM: Lazy<Regex> = Lazy::new(|| {
    Regex::new(&format!(
        r"\b({NAME})\s+(?:hereby\s+)?(?:leases|rents|takes|hires)(?:\s+and\s+(?:takes|hires|rents))?\s+from\s+(?:the\s+)?({NAME}),?\s+(?:the\s+|all\s+of\s+the\s+)?({NAME})"
    ))
    .unwrap()
});

/// `exclusive ... in the Territory`, `exclusive ... throughout the Field`:
/// where an exclusive grant holds (a defined place or field).
static EXCLUSIVE_WHERE: Lazy<Regex> =
    Lazy::new(|| Regex::new(&format!(r"\b(?:in|throughout|within)\s+the\s+({NAME})\b")).unwrap());

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

/// The party a name is (`the Licensee`, `Bellicum`), or none.
fn party(b: &Builder, raw: &str) -> Option<String> {
    let name = normalize_ws(raw);
    let name = ["The ", "Each "]
        .iter()
        .find_map(|a| name.strip_prefix(a))
        .unwrap_or(&name)
        .to_string();
    b.bindable(&name).then_some(name)
}
