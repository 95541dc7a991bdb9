//! What extraction stores in the LLM answer cache ([`crate::llm::cache`]):
//! the validated model output of one section piece, keyed by everything that
//! shapes it (model, prompt version, ontology, section text, breadcrumb,
//! document type).

use crate::extract::validate::ModelOutput;
use crate::index::Ontology;
use crate::llm::cache::{hex, key};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One cached answer: the validated model output (before ontology pruning)
/// and what it cost when it was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedAnswer {
    pub output: ModelOutput,
    pub tokens_in: u64,
    pub tokens_out: u64,
}

/// sha256 of the ontology's types and meanings (stable: sorted maps).
pub fn ontology_hash(o: &Ontology) -> String {
    let mut h = Sha256::new();
    for (k, v) in &o.entity_types {
        h.update(b"E\0");
        h.update(k.as_bytes());
        h.update(b"\0");
        h.update(v.as_bytes());
        h.update(b"\0");
    }
    for (k, v) in &o.relation_types {
        h.update(b"R\0");
        h.update(k.as_bytes());
        h.update(b"\0");
        h.update(v.as_bytes());
        h.update(b"\0");
    }
    hex(&h.finalize())
}

/// The cache key: sha256 over model, prompt version, ontology hash,
/// sha256 of the section text, breadcrumb and document type.
pub fn cache_key(
    model: &str,
    prompt_version: &str,
    ontology_hash: &str,
    text: &str,
    breadcrumb: &str,
    doc_type: &str,
) -> String {
    let text_hash = hex(&Sha256::digest(text.as_bytes()));
    key(&[
        model,
        prompt_version,
        ontology_hash,
        &text_hash,
        breadcrumb,
        doc_type,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_changes_with_every_field() {
        let base = cache_key("m", "v1", "o", "text", "[a]", "credit");
        let variants = [
            cache_key("m2", "v1", "o", "text", "[a]", "credit"),
            cache_key("m", "v2", "o", "text", "[a]", "credit"),
            cache_key("m", "v1", "o2", "text", "[a]", "credit"),
            cache_key("m", "v1", "o", "text2", "[a]", "credit"),
            cache_key("m", "v1", "o", "text", "[b]", "credit"),
            cache_key("m", "v1", "o", "text", "[a]", "lease"),
        ];
        for v in variants {
            assert_ne!(v, base);
        }
        assert_eq!(base, cache_key("m", "v1", "o", "text", "[a]", "credit"));
        assert_eq!(base.len(), 64);
    }
}
