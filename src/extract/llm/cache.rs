//! Content-addressed on-disk cache of validated LLM answers, so a re-run, a
//! resumed run or a second batch with the same sections spends nothing.
//! The key hashes everything that shapes an answer (model, prompt version,
//! ontology, section text, breadcrumb); failures and the API key are never
//! stored. Writes are atomic (temp file + rename).

use crate::extract::validate::ModelOutput;
use crate::index::Ontology;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// One cached answer: the validated model output (before ontology pruning)
/// and what it cost when it was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedAnswer {
    pub output: ModelOutput,
    pub tokens_in: u64,
    pub tokens_out: u64,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
/// sha256 of the section text, breadcrumb and document type (fields
/// length-prefixed so no two field lists collide).
pub fn cache_key(
    model: &str,
    prompt_version: &str,
    ontology_hash: &str,
    text: &str,
    breadcrumb: &str,
    doc_type: &str,
) -> String {
    let text_hash = hex(&Sha256::digest(text.as_bytes()));
    let mut h = Sha256::new();
    for f in [
        model,
        prompt_version,
        ontology_hash,
        &text_hash,
        breadcrumb,
        doc_type,
    ] {
        h.update((f.len() as u64).to_le_bytes());
        h.update(f.as_bytes());
    }
    hex(&h.finalize())
}

/// A cache directory: `<dir>/<first 2 hex>/<key>.json`.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// A cache rooted at `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Cache { dir: dir.into() }
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir
            .join(&key[..2.min(key.len())])
            .join(format!("{key}.json"))
    }

    /// The cached answer, if any. An unreadable or corrupt entry is a miss
    /// (it will be overwritten by the next good answer).
    pub async fn get(&self, key: &str) -> Option<CachedAnswer> {
        let bytes = tokio::fs::read(self.path(key)).await.ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Stores a validated answer atomically.
    pub async fn put(&self, key: &str, answer: &CachedAnswer) -> Result<()> {
        let path = self.path(key);
        let parent = path.parent().expect("cache path has a parent");
        tokio::fs::create_dir_all(parent)
            .await
            .with_context(|| format!("creating cache directory {}", parent.display()))?;
        // Unique per write, so two writers of one key never share a temp file.
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let n = WRITES.fetch_add(1, Ordering::Relaxed);
        let tmp = parent.join(format!(".{key}.{}.{n}.tmp", std::process::id()));
        let body = serde_json::to_vec_pretty(answer)?;
        tokio::fs::write(&tmp, body)
            .await
            .with_context(|| format!("writing cache file {}", tmp.display()))?;
        tokio::fs::rename(&tmp, &path)
            .await
            .with_context(|| format!("moving cache file into place at {}", path.display()))?;
        Ok(())
    }
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

    #[tokio::test]
    async fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::new(dir.path());
        let k = cache_key("m", "v", "o", "t", "b", "d");
        assert!(c.get(&k).await.is_none());
        let a = CachedAnswer {
            output: ModelOutput::default(),
            tokens_in: 3,
            tokens_out: 4,
        };
        c.put(&k, &a).await.unwrap();
        assert_eq!(c.get(&k).await, Some(a.clone()));
        // Concurrent writers of one key both succeed; a corrupt entry is a miss.
        let (x, y) = tokio::join!(c.put(&k, &a), c.put(&k, &a));
        x.unwrap();
        y.unwrap();
        std::fs::write(
            dir.path().join(&k[..2]).join(format!("{k}.json")),
            "{broken",
        )
        .unwrap();
        assert!(c.get(&k).await.is_none());
    }
}
