//! What extraction stores in the LLM answer cache ([`crate::llm::cache`]):
//! the validated model output of one section piece, keyed by everything that
//! shapes it (model, prompt version, ontology, section text, breadcrumb,
//! document type).

use crate::extract::validate::ModelOutput;
use crate::index::Ontology;
use crate::llm::cache::{hex, key};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One cached answer: the validated model output (before ontology pruning),
/// what it cost when it was made, and who paid for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedAnswer {
    pub output: ModelOutput,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// Of `tokens_in`, read from the server's prefix cache.
    #[serde(default)]
    pub tokens_cached: u64,
    /// The batch and document whose request made this answer
    /// ([`payer`]); `None` in entries written before it was kept.
    #[serde(default)]
    pub paid_by: Option<String>,
}

/// What the cache keeps of an answer cut at `max_tokens`: the piece is
/// never sent whole again, and the tokens the cut answer cost are counted
/// like a [`CachedAnswer`]'s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CutAnswer {
    pub max_tokens: u32,
    pub tokens_in: u64,
    pub tokens_out: u64,
    #[serde(default)]
    pub tokens_cached: u64,
    #[serde(default)]
    pub paid_by: Option<String>,
}

/// Who pays for a request: one document of one batch. A resumed batch that
/// finds its own answer to the same document in the cache counts the tokens
/// as spent (its first run paid them and no saved outcome holds them); an
/// answer made by another batch, or for another document of this one
/// (counted there), costs this section nothing.
pub fn payer(batch_id: &str, doc_id: &str) -> String {
    format!("{batch_id}/{doc_id}")
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
