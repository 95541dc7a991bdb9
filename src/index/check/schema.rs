//! The index format's keys, read from the one place that spells them:
//! `schemas/graphability-index.schema.json` (embedded at build time).
//!
//! `index check` takes its allowed keys from here, so adding a key to the
//! format is one change to the JSON schema (plus, where the key carries
//! data, its field in `load.rs`'s `RawIndex` and any rule the schema cannot
//! express in `check.rs`). A test checks that the loader accepts every key
//! the schema allows.

use once_cell::sync::Lazy;
use serde_json::Value;

/// The JSON schema of index files.
pub static SCHEMA: Lazy<Value> = Lazy::new(|| {
    serde_json::from_str(include_str!(
        "../../../schemas/graphability-index.schema.json"
    ))
    .expect("schemas/graphability-index.schema.json is valid JSON")
});

fn property_names(pointer: &str) -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = SCHEMA
        .pointer(pointer)
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("the index schema has no {pointer}"))
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

/// Top-level keys of an index file.
pub static TOP_KEYS: Lazy<Vec<&'static str>> = Lazy::new(|| property_names("/properties"));
/// Keys of `match:`.
pub static MATCH_KEYS: Lazy<Vec<&'static str>> =
    Lazy::new(|| property_names("/properties/match/properties"));
/// Keys of `ontology:`.
pub static ONTOLOGY_KEYS: Lazy<Vec<&'static str>> =
    Lazy::new(|| property_names("/properties/ontology/properties"));
/// Keys of a mapping tier entry (`- title: ...`).
pub static ENTRY_KEYS: Lazy<Vec<&'static str>> =
    Lazy::new(|| property_names("/$defs/entry/oneOf/1/properties"));
/// Keys of `density:`, highest tier first (the schema's `required` order,
/// which the thresholds must not increase along).
pub static DENSITY_KEYS: Lazy<Vec<&'static str>> = Lazy::new(|| {
    SCHEMA
        .pointer("/properties/density/required")
        .and_then(Value::as_array)
        .expect("the index schema lists density.required")
        .iter()
        .filter_map(Value::as_str)
        .collect()
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_come_from_the_schema() {
        assert!(TOP_KEYS.contains(&"very_high") && TOP_KEYS.contains(&"extends"));
        assert_eq!(*MATCH_KEYS, ["fuzzy_threshold"]);
        assert_eq!(*DENSITY_KEYS, ["very_high", "high", "medium", "low"]);
        assert_eq!(*ENTRY_KEYS, ["aliases", "note", "title"]);
        assert_eq!(
            *ONTOLOGY_KEYS,
            [
                "entity_types",
                "relation_patterns",
                "relation_types",
                "review_only"
            ]
        );
    }
}
