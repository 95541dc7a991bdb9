//! Content-addressed on-disk cache of LLM answers, so a re-run, a resumed
//! run or a second batch asking the same spends nothing. Its user decides
//! what a key covers ([`key`] hashes the fields that shape an answer) and
//! what is stored (validated answers only; failures and the API key never).
//! Writes are atomic (temp file + rename).

use anyhow::{Context, Result};
use serde::{de::DeserializeOwned, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// sha256 over `fields`, each length-prefixed so no two field lists collide.
pub fn key(fields: &[&str]) -> String {
    let mut h = Sha256::new();
    for f in fields {
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

    /// Fails unless a new entry can be stored: the folder (or the nearest
    /// existing folder above it) and every shard folder already in it take a
    /// new file. A cache that cannot be written would make every re-run pay
    /// the LLM again for every section without a word, so a run
    /// checks this at its start.
    pub fn check_writable(&self) -> Result<()> {
        crate::atomic_file::check_writable(&self.dir.join(".kgroute-cache-probe"))?;
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Ok(());
        };
        for e in entries.flatten() {
            let p = e.path();
            let shard = e.file_name().len() == 2 && p.is_dir();
            if shard {
                crate::atomic_file::check_writable(&p.join(".kgroute-cache-probe"))?;
            }
        }
        Ok(())
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir
            .join(&key[..2.min(key.len())])
            .join(format!("{key}.json"))
    }

    /// The cached value, if any. An unreadable or corrupt entry is a miss
    /// (it will be overwritten by the next good answer).
    pub async fn get<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        let bytes = tokio::fs::read(self.path(key)).await.ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Stores a value atomically.
    pub async fn put<T: Serialize>(&self, key: &str, value: &T) -> Result<()> {
        let path = self.path(key);
        let parent = path.parent().expect("cache path has a parent");
        tokio::fs::create_dir_all(parent)
            .await
            .with_context(|| format!("creating cache directory {}", parent.display()))?;
        // Unique per write, so two writers of one key never share a temp file.
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let n = WRITES.fetch_add(1, Ordering::Relaxed);
        let tmp = parent.join(format!(".{key}.{}.{n}.tmp", std::process::id()));
        let body = serde_json::to_vec_pretty(value)?;
        if let Err(e) = tokio::fs::write(&tmp, body).await {
            // No half entry left behind (a full disk).
            let _ = tokio::fs::remove_file(&tmp).await;
            return Err(e).with_context(|| format!("writing cache file {}", tmp.display()));
        }
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
    fn key_is_length_prefixed() {
        assert_ne!(key(&["ab", "c"]), key(&["a", "bc"]));
        assert_eq!(key(&["a"]), key(&["a"]));
        assert_eq!(key(&["a"]).len(), 64);
    }

    #[tokio::test]
    async fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::new(dir.path());
        let k = key(&["m", "v", "o", "t", "b", "d"]);
        assert!(c.get::<Vec<u64>>(&k).await.is_none());
        let a = vec![3u64, 4];
        c.put(&k, &a).await.unwrap();
        assert_eq!(c.get::<Vec<u64>>(&k).await, Some(a.clone()));
        // Concurrent writers of one key both succeed; a corrupt entry is a miss.
        let (x, y) = tokio::join!(c.put(&k, &a), c.put(&k, &a));
        x.unwrap();
        y.unwrap();
        std::fs::write(
            dir.path().join(&k[..2]).join(format!("{k}.json")),
            "{broken",
        )
        .unwrap();
        assert!(c.get::<Vec<u64>>(&k).await.is_none());
    }
}
