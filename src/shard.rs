//! Deterministic sharding of a corpus across workers (`--shard K/N`).
//!
//! Every worker is given the same document list and keeps the documents whose
//! content hash falls in its shard. The hash is of the document's bytes, not
//! its path, so the split is the same on every machine, in every run, and
//! however the path was spelled; a renamed file stays in its shard, an edited
//! one may move (it is a new document).
//!
//! `K` may come from the environment so a scheduler can hand it out:
//! `KGROUTE_SHARD` (a whole `K/N`, or just `K`), or `JOB_COMPLETION_INDEX`,
//! which a Kubernetes Indexed Job sets on each pod (0-based, like `K`).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

/// One worker's part of the corpus: shard `index` of `count` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShardSpec {
    pub index: u32,
    pub count: u32,
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Environment variables that may carry `K`, in the order they are read.
pub const SHARD_ENV: &str = "KGROUTE_SHARD";
pub const JOB_INDEX_ENV: &str = "JOB_COMPLETION_INDEX";

impl ShardSpec {
    /// The whole corpus as one shard.
    pub const ALL: ShardSpec = ShardSpec { index: 0, count: 1 };

    /// Parses `K/N` as typed on the command line. `K` may be left out (`/N`)
    /// when the environment supplies it; see [`ShardSpec::resolve`].
    pub fn parse(typed: &str) -> Result<ShardSpec, String> {
        let (k, n) = split_spec(typed)?;
        let count = parse_count(n, typed)?;
        let index = match k {
            Some(k) => parse_index(k, count, typed)?,
            None => {
                return Err(format!(
                    "--shard `{typed}`: the shard index is missing; write `--shard K/{count}` \
                     or set {SHARD_ENV} or {JOB_INDEX_ENV}"
                ))
            }
        };
        Ok(ShardSpec { index, count })
    }

    /// The shard from the flag and the environment: `--shard K/N` wins;
    /// `--shard /N` (or `--shard N` with no slash is refused as ambiguous)
    /// takes `K` from `KGROUTE_SHARD` or `JOB_COMPLETION_INDEX`; with no flag,
    /// `KGROUTE_SHARD=K/N` alone is enough. `None` means no sharding.
    pub fn resolve(
        flag: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<ShardSpec>, String> {
        let from_env_index = |count: u32, typed: &str| -> Result<u32, String> {
            if let Some(v) = env(SHARD_ENV) {
                // `KGROUTE_SHARD` may be a whole `K/N` (whose N must agree) or `K`.
                let k = match v.split_once('/') {
                    Some((k, n)) => {
                        let n = parse_count(n.trim(), &v)?;
                        if n != count {
                            return Err(format!(
                                "{SHARD_ENV}={v} says {n} shards but --shard `{typed}` says {count}"
                            ));
                        }
                        k
                    }
                    None => v.as_str(),
                };
                return parse_index(k, count, &v);
            }
            if let Some(v) = env(JOB_INDEX_ENV) {
                return parse_index(&v, count, &v);
            }
            Err(format!(
                "--shard `{typed}` leaves the shard index to the environment, but neither \
                 {SHARD_ENV} nor {JOB_INDEX_ENV} is set; write `--shard K/{count}`"
            ))
        };
        match flag {
            Some(typed) => {
                let (k, n) = split_spec(typed)?;
                let count = parse_count(n, typed)?;
                let index = match k {
                    Some(k) if !k.is_empty() => parse_index(k, count, typed)?,
                    _ => from_env_index(count, typed)?,
                };
                Ok(Some(ShardSpec { index, count }))
            }
            None => match env(SHARD_ENV) {
                Some(v) if v.contains('/') => ShardSpec::parse(&v)
                    .map(Some)
                    .map_err(|e| format!("{SHARD_ENV}: {e}")),
                Some(v) => Err(format!(
                    "{SHARD_ENV}={v} needs the shard count too: set it to `{v}/N` or pass \
                     `--shard /N`"
                )),
                None => Ok(None),
            },
        }
    }

    /// Whether the document with these bytes belongs to this shard.
    pub fn owns(&self, content: &[u8]) -> bool {
        self.count <= 1 || shard_of(content, self.count) == self.index
    }
}

/// The documents of `docs` that belong to this shard, in order. A path that
/// is not a readable regular file is placed by its path instead, so exactly
/// one shard reports its error.
pub fn documents_of(spec: &ShardSpec, docs: Vec<std::path::PathBuf>) -> Vec<std::path::PathBuf> {
    if spec.count <= 1 {
        return docs;
    }
    docs.into_iter()
        .filter(|p| {
            let regular = std::fs::metadata(p).is_ok_and(|m| m.is_file());
            match regular.then(|| std::fs::read(p)).and_then(Result::ok) {
                Some(bytes) => spec.owns(&bytes),
                None => shard_of(p.to_string_lossy().as_bytes(), spec.count) == spec.index,
            }
        })
        .collect()
}

/// The shard (0-based) of a document's content among `count` shards: the
/// first 8 bytes of its SHA-256 as a big-endian integer, modulo `count`.
pub fn shard_of(content: &[u8], count: u32) -> u32 {
    let digest = Sha256::digest(content);
    let mut b = [0u8; 8];
    b.copy_from_slice(&digest[..8]);
    (u64::from_be_bytes(b) % u64::from(count.max(1))) as u32
}

fn split_spec(typed: &str) -> Result<(Option<&str>, &str), String> {
    let t = typed.trim();
    match t.split_once('/') {
        Some((k, n)) => Ok(((!k.trim().is_empty()).then_some(k.trim()), n.trim())),
        None => Err(format!(
            "shard `{typed}` must be K/N (e.g. `--shard 0/4`: the first of 4 shards, K from 0 \
             to N-1)"
        )),
    }
}

fn parse_count(n: &str, typed: &str) -> Result<u32, String> {
    match n.parse::<u32>() {
        Ok(c) if c >= 1 => Ok(c),
        _ => Err(format!(
            "shard `{typed}`: the shard count `{n}` must be a whole number of at least 1"
        )),
    }
}

fn parse_index(k: &str, count: u32, typed: &str) -> Result<u32, String> {
    match k.trim().parse::<u32>() {
        Ok(i) if i < count => Ok(i),
        Ok(i) => Err(format!(
            "shard `{typed}`: index {i} is out of range; with {count} shards it runs from 0 to {}",
            count - 1
        )),
        Err(_) => Err(format!(
            "shard `{typed}`: the shard index `{k}` must be a whole number from 0 to {}",
            count - 1
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn parse_accepts_k_of_n_and_teaches_on_errors() {
        assert_eq!(
            ShardSpec::parse("2/5").unwrap(),
            ShardSpec { index: 2, count: 5 }
        );
        assert!(ShardSpec::parse("5/5").unwrap_err().contains("0 to 4"));
        assert!(ShardSpec::parse("1/0").unwrap_err().contains("at least 1"));
        assert!(ShardSpec::parse("3").unwrap_err().contains("K/N"));
        assert!(ShardSpec::parse("x/3")
            .unwrap_err()
            .contains("whole number"));
    }

    #[test]
    fn every_document_falls_in_exactly_one_shard() {
        let docs: Vec<Vec<u8>> = (0..500).map(|i| format!("doc {i}").into_bytes()).collect();
        let n = 7;
        let mut sizes = vec![0usize; n as usize];
        for d in &docs {
            let owners: Vec<u32> = (0..n)
                .filter(|&k| ShardSpec { index: k, count: n }.owns(d))
                .collect();
            assert_eq!(owners.len(), 1, "{:?}", String::from_utf8_lossy(d));
            sizes[owners[0] as usize] += 1;
        }
        // A hash split is roughly even: no shard is empty or holds a third.
        assert!(sizes.iter().all(|&s| s > 20 && s < 170), "{sizes:?}");
        assert!(ShardSpec::ALL.owns(b"anything"));
    }

    #[test]
    fn the_flag_wins_and_the_environment_fills_in_k() {
        let none = env_of(&[]);
        assert_eq!(ShardSpec::resolve(None, &none).unwrap(), None);
        assert_eq!(
            ShardSpec::resolve(Some("1/3"), env_of(&[(SHARD_ENV, "2/3")])).unwrap(),
            Some(ShardSpec { index: 1, count: 3 })
        );
        assert_eq!(
            ShardSpec::resolve(Some("/3"), env_of(&[(JOB_INDEX_ENV, "2")])).unwrap(),
            Some(ShardSpec { index: 2, count: 3 })
        );
        assert_eq!(
            ShardSpec::resolve(Some("/4"), env_of(&[(SHARD_ENV, "3")])).unwrap(),
            Some(ShardSpec { index: 3, count: 4 })
        );
        assert_eq!(
            ShardSpec::resolve(None, env_of(&[(SHARD_ENV, "0/2")])).unwrap(),
            Some(ShardSpec { index: 0, count: 2 })
        );
        let err = ShardSpec::resolve(Some("/3"), &none).unwrap_err();
        assert!(err.contains(JOB_INDEX_ENV), "{err}");
        let err = ShardSpec::resolve(Some("/3"), env_of(&[(SHARD_ENV, "1/4")])).unwrap_err();
        assert!(err.contains("4 shards"), "{err}");
        let err = ShardSpec::resolve(None, env_of(&[(SHARD_ENV, "1")])).unwrap_err();
        assert!(err.contains("/N"), "{err}");
        let err = ShardSpec::resolve(Some("/3"), env_of(&[(JOB_INDEX_ENV, "3")])).unwrap_err();
        assert!(err.contains("out of range"), "{err}");
    }
}
