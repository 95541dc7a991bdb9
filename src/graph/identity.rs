//! Entity identity: which entities are the same node. Kept apart from the
//! graph builder so the rule is small, documented and tested on its own.
//!
//! Rule: a name is normalised by Unicode lower-casing and collapsing every run
//! of characters that are not letters or digits into one space
//! (`JPMorgan Chase Bank, N.A.` and `JPMORGAN  CHASE BANK N.A` both become
//! `jpmorgan chase bank n a`). Organisations, people and jurisdictions are
//! global: their key is `<type>:<normalised name>`, shared by every document.
//! Everything else (defined terms, roles, obligations, amounts, ...) is scoped
//! to its document: `<doc_id>/<type>:<normalised name>`.

/// Entity types (compared case-insensitively) whose nodes are shared across
/// documents.
pub const GLOBAL_TYPES: [&str; 4] = ["organization", "organisation", "person", "jurisdiction"];

/// Lower-cases `name` and collapses punctuation and whitespace runs into
/// single spaces. Returns an empty string for a name with no letters or digits.
pub fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut gap = false;
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
    out
}

/// The type part of a key: the type name lower-cased, `organisation` spelt
/// `organization` so both spellings meet.
pub fn type_key(entity_type: &str) -> String {
    let t = entity_type.trim().to_lowercase();
    if t == "organisation" {
        "organization".to_string()
    } else {
        t
    }
}

/// True when entities of this type are shared across documents.
pub fn is_global(entity_type: &str) -> bool {
    let t = entity_type.trim().to_lowercase();
    GLOBAL_TYPES.contains(&t.as_str())
}

/// The identity key of an entity with the given (already normalised) name.
pub fn entity_key(doc_id: &str, entity_type: &str, normalized: &str) -> String {
    if is_global(entity_type) {
        format!("{}:{normalized}", type_key(entity_type))
    } else {
        format!("{doc_id}/{}:{normalized}", type_key(entity_type))
    }
}

/// A Neo4j label from an ontology type name: characters outside
/// `[A-Za-z0-9_]` become `_`, a leading digit gets a `_` prefix. Returns
/// `None` when nothing usable is left.
pub fn sanitize_label(type_name: &str) -> Option<String> {
    let mut s: String = type_name
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.chars().all(|c| c == '_') {
        return None;
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    Some(s)
}

/// True for a valid relationship type of the graph: `[A-Z_][A-Z0-9_]*`.
pub fn is_valid_relation_type(t: &str) -> bool {
    let mut chars = t.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_uppercase() || c == '_')
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bank_names_meet() {
        assert_eq!(
            normalize_name("JPMorgan Chase Bank, N.A."),
            normalize_name("JPMORGAN  CHASE BANK N.A")
        );
        assert_eq!(
            normalize_name("JPMorgan Chase Bank, N.A."),
            "jpmorgan chase bank n a"
        );
        assert_ne!(
            normalize_name("Chase Bank"),
            normalize_name("JPMorgan Chase Bank")
        );
    }

    #[test]
    fn hostile_and_empty_names() {
        assert_eq!(normalize_name("\"`})-[:X]->(\n"), "x");
        assert_eq!(normalize_name("!!! ,,"), "");
        assert_eq!(normalize_name("Société Générale"), "société générale");
    }

    #[test]
    fn scope_of_keys() {
        assert_eq!(
            entity_key("d1", "Organization", "acme"),
            "organization:acme"
        );
        assert_eq!(
            entity_key("d1", "organisation", "acme"),
            "organization:acme"
        );
        assert_eq!(
            entity_key("d1", "DefinedTerm", "borrower"),
            "d1/definedterm:borrower"
        );
        assert_ne!(
            entity_key("d1", "Role", "borrower"),
            entity_key("d2", "Role", "borrower")
        );
    }

    #[test]
    fn labels_and_relation_types() {
        assert_eq!(
            sanitize_label("DefinedTerm").as_deref(),
            Some("DefinedTerm")
        );
        assert_eq!(
            sanitize_label("Legal Entity`)").as_deref(),
            Some("Legal_Entity__")
        );
        assert_eq!(sanitize_label("9x").as_deref(), Some("_9x"));
        assert_eq!(sanitize_label("`"), None);
        assert!(is_valid_relation_type("ROLE_OF"));
        assert!(!is_valid_relation_type("role_of"));
        assert!(!is_valid_relation_type("X]->(n) DETACH DELETE n//"));
        assert!(!is_valid_relation_type("1X"));
        assert!(!is_valid_relation_type(""));
    }
}
