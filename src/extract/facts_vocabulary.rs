//! The one naming rule for typed facts: a CUAD category name becomes the
//! relation type that holds it (`Non-Compete` -> `NON_COMPETE`), so the
//! rules, the LLM prompt (through the indices' ontologies) and the
//! measuring scripts agree on every fact's type.

/// The 39 CUAD categories a typed fact may hold, as `cuad/labels.json`
/// names them (Document Name and Parties are the document and HAS_ROLE).
pub const CATEGORIES: &[&str] = &[
    "Affiliate License-Licensee",
    "Affiliate License-Licensor",
    "Agreement Date",
    "Anti-Assignment",
    "Audit Rights",
    "Cap On Liability",
    "Change Of Control",
    "Competitive Restriction Exception",
    "Covenant Not To Sue",
    "Effective Date",
    "Exclusivity",
    "Expiration Date",
    "Governing Law",
    "Insurance",
    "Ip Ownership Assignment",
    "Irrevocable Or Perpetual License",
    "Joint Ip Ownership",
    "License Grant",
    "Liquidated Damages",
    "Minimum Commitment",
    "Most Favored Nation",
    "No-Solicit Of Customers",
    "No-Solicit Of Employees",
    "Non-Compete",
    "Non-Disparagement",
    "Non-Transferable License",
    "Notice Period To Terminate Renewal",
    "Post-Termination Services",
    "Price Restrictions",
    "Renewal Term",
    "Revenue/Profit Sharing",
    "Rofr/Rofo/Rofn",
    "Source Code Escrow",
    "Termination For Convenience",
    "Third Party Beneficiary",
    "Uncapped Liability",
    "Unlimited/All-You-Can-Eat-License",
    "Volume Restriction",
    "Warranty Duration",
];

/// The categories whose fact is a value of the contract (a date, a term,
/// a law): the register reads their cell, not whether a clause is there.
pub const VALUE_CATEGORIES: &[&str] = &[
    "Agreement Date",
    "Effective Date",
    "Expiration Date",
    "Renewal Term",
    "Notice Period To Terminate Renewal",
    "Governing Law",
];

/// True for a clause kind: a category whose question is whether the
/// contract has such a clause (`NON_COMPETE`, `CAP_ON_LIABILITY`), not
/// which value it states.
pub fn is_clause_kind(relation_type: &str) -> bool {
    CATEGORIES.iter().any(|c| {
        !VALUE_CATEGORIES.contains(c)
            && category_relation_type(c).eq_ignore_ascii_case(relation_type)
    })
}

/// The CUAD category a relation type holds (`NON_COMPETE` ->
/// `Non-Compete`).
pub fn category_of(relation_type: &str) -> Option<&'static str> {
    CATEGORIES
        .iter()
        .copied()
        .find(|c| category_relation_type(c).eq_ignore_ascii_case(relation_type))
}

/// Relations beside the categories: what a party may do on the other's
/// breach, and the courts or seat that hear disputes.
pub const RICHER: &[&str] = &["REMEDY_FOR", "SUBMITS_TO_JURISDICTION"];

/// True for a typed-fact relation type (`CAP_ON_LIABILITY`, `REMEDY_FOR`).
pub fn is_fact_relation(relation_type: &str) -> bool {
    RICHER.iter().any(|r| r.eq_ignore_ascii_case(relation_type))
        || CATEGORIES
            .iter()
            .any(|c| category_relation_type(c).eq_ignore_ascii_case(relation_type))
}

/// `Cap On Liability` -> `CAP_ON_LIABILITY`, `Rofr/Rofo/Rofn` ->
/// `ROFR_ROFO_ROFN`: upper case, every run of characters that are not
/// A-Z or 0-9 one `_`, trimmed.
pub fn category_relation_type(category: &str) -> String {
    let mut out = String::with_capacity(category.len());
    for c in category.chars().map(|c| c.to_ascii_uppercase()) {
        if c.is_ascii_uppercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

#[cfg(test)]
mod tests {
    use super::category_relation_type as t;

    #[test]
    fn the_contract_examples() {
        assert_eq!(t("Non-Compete"), "NON_COMPETE");
        assert_eq!(t("Cap On Liability"), "CAP_ON_LIABILITY");
        assert_eq!(t("Rofr/Rofo/Rofn"), "ROFR_ROFO_ROFN");
        assert_eq!(t("Anti-Assignment"), "ANTI_ASSIGNMENT");
        assert_eq!(t("Governing Law"), "GOVERNING_LAW");
        assert_eq!(
            t("Unlimited/All-You-Can-Eat-License"),
            "UNLIMITED_ALL_YOU_CAN_EAT_LICENSE"
        );
        assert_eq!(
            t(" Affiliate License-Licensee "),
            "AFFILIATE_LICENSE_LICENSEE"
        );
    }

    #[test]
    fn clause_kinds_are_the_categories_without_a_value() {
        assert!(super::is_clause_kind("NON_COMPETE"));
        assert!(!super::is_clause_kind("GOVERNING_LAW"));
        assert!(!super::is_clause_kind("REMEDY_FOR"));
        assert_eq!(super::category_of("ROFR_ROFO_ROFN"), Some("Rofr/Rofo/Rofn"));
    }
}
