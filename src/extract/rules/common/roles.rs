//! Party roles: the last words that make a defined term a role
//! (`Borrower`, `Licensee`, `Sublessor`) and a role's singular.

use super::text::normalize_ws;

/// Last words that make a term a party role.
pub(in crate::extract::rules) const ROLE_HEADS: &[&str] = &[
    "borrower",
    "agent",
    "lender",
    "bank",
    "issuer",
    "guarantor",
    "arranger",
    "bookrunner",
    "company",
    "landlord",
    "tenant",
    "trustee",
    "obligor",
    "purchaser",
    "seller",
    "customer",
    "supplier",
    "licensor",
    "licensee",
    "party",
    "parties",
    "holder",
    // Commercial, lease and M&A roles.
    "lessor",
    "lessee",
    "sublessor",
    "sublessee",
    "subtenant",
    "distributor",
    "consultant",
    "contractor",
    "subcontractor",
    "manufacturer",
    "franchisor",
    "franchisee",
    "vendor",
    "buyer",
    "provider",
    "reseller",
    "client",
    "developer",
    "servicer",
    "sponsor",
    "investor",
    "shareholder",
    "stockholder",
    "executive",
    "employee",
];

pub(in crate::extract::rules) fn is_role(term: &str) -> bool {
    let last = term
        .split_whitespace()
        .last()
        .unwrap_or("")
        .to_ascii_lowercase();
    let last = last.trim_end_matches(['.', ',']);
    ROLE_HEADS.iter().any(|h| {
        last == *h || last.strip_suffix('s') == Some(h) || (last == "parties" && *h == "party")
    })
}

/// `Lenders` -> `Lender` for role names.
pub(in crate::extract::rules) fn singular_role(term: &str) -> String {
    let t = normalize_ws(term);
    if t.ends_with("ies") {
        return format!("{}y", &t[..t.len() - 3]);
    }
    match t.strip_suffix('s') {
        Some(s) if is_role(s) && !t.ends_with("ss") => s.to_string(),
        _ => t,
    }
}
