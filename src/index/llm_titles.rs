//! Optional LLM title mapping: one cheap call per document for the titles
//! the offline matcher left unmatched.
//!
//! Only titles and breadcrumbs are sent (never section text), with the
//! index's canonical titles; the model answers each title with one of them
//! or `none`. Anything else in the answer (an invented entry, a title that
//! was not asked about, text that is not JSON) is dropped, so a garbage
//! answer leaves the titles unmatched instead of mis-routing them. Answers
//! are cached by model, index version and the titles asked, like
//! extractions; `--no-llm-match` turns the call off.

use super::GraphabilityIndex;
use crate::extract::llm::client::LlmClient;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Bumped when the prompt changes, so old cached answers are not reused.
pub const PROMPT_VERSION: &str = "titles-1";

/// One title to map: the heading's name and its breadcrumb.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TitleQuery {
    pub name: String,
    pub breadcrumb: String,
}

/// The validated mapping: title name -> canonical entry (only titles the
/// model mapped to a real entry).
pub type TitleMapping = BTreeMap<String, String>;

/// The messages of the one call for a document.
pub fn messages(index: &GraphabilityIndex, titles: &[TitleQuery]) -> Vec<Value> {
    let entries: Vec<&str> = index.entries().iter().map(|e| e.title.as_str()).collect();
    let asked: Vec<Value> = titles
        .iter()
        .map(|t| json!({"title": t.name, "breadcrumb": t.breadcrumb}))
        .collect();
    vec![
        json!({"role": "system", "content": format!(
            "You map section headings of a {} to the entries of a fixed list. \
             For each heading answer the one entry that names the same kind of \
             section, or \"none\" when no entry does. Answer JSON only: \
             {{\"mappings\": [{{\"title\": <heading as given>, \"entry\": <entry or \"none\">}}]}}.",
            if index.document_type.is_empty() { "contract" } else { &index.document_type }
        )}),
        json!({"role": "user", "content": json!({"entries": entries, "headings": asked}).to_string()}),
    ]
}

/// Keeps the answer's mappings that name a heading that was asked and an
/// entry of the index; drops everything else.
pub fn parse_answer(
    index: &GraphabilityIndex,
    titles: &[TitleQuery],
    content: &str,
) -> TitleMapping {
    let mut out = TitleMapping::new();
    let Ok(v) = serde_json::from_str::<Value>(content) else {
        return out;
    };
    let Some(list) = v.get("mappings").and_then(Value::as_array) else {
        return out;
    };
    for m in list {
        let (Some(t), Some(e)) = (
            m.get("title").and_then(Value::as_str),
            m.get("entry").and_then(Value::as_str),
        ) else {
            continue;
        };
        if !titles.iter().any(|q| q.name == t) {
            continue;
        }
        if let Some(entry) = index.entries().iter().find(|x| x.title == e) {
            out.insert(t.to_string(), entry.title.clone());
        }
    }
    out
}

/// Cache key: model, prompt version, index type and version, titles asked.
pub fn cache_key(model: &str, index: &GraphabilityIndex, titles: &[TitleQuery]) -> String {
    let mut h = Sha256::new();
    for f in [model, PROMPT_VERSION, &index.document_type, &index.version] {
        h.update((f.len() as u64).to_le_bytes());
        h.update(f.as_bytes());
    }
    for t in titles {
        for f in [&t.name, &t.breadcrumb] {
            h.update((f.len() as u64).to_le_bytes());
            h.update(f.as_bytes());
        }
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn cache_path(dir: &Path, key: &str) -> PathBuf {
    dir.join("titles").join(format!("{key}.json"))
}

/// Maps `titles` with one call (or the cache). A failed call or a garbage
/// answer maps nothing; the error is returned for the caller to report.
pub async fn map_titles(
    client: &LlmClient,
    cache_dir: Option<&Path>,
    index: &GraphabilityIndex,
    titles: &[TitleQuery],
) -> anyhow::Result<TitleMapping> {
    if titles.is_empty() {
        return Ok(TitleMapping::new());
    }
    let key = cache_key(&client.config().model, index, titles);
    if let Some(dir) = cache_dir {
        if let Ok(bytes) = std::fs::read(cache_path(dir, &key)) {
            if let Ok(m) = serde_json::from_slice::<TitleMapping>(&bytes) {
                return Ok(m);
            }
        }
    }
    let answer = client
        .chat_with_format(
            &messages(index, titles),
            json!({"type": "json_object"}),
            false,
        )
        .await
        .map_err(|e| anyhow::anyhow!("LLM title mapping failed: {e:?}"))?;
    let mapping = parse_answer(index, titles, &answer.content);
    if let Some(dir) = cache_dir {
        let p = cache_path(dir, &key);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)?;
        }
        crate::atomic_file::write_atomic(&p, serde_json::to_vec_pretty(&mapping)?.as_slice())?;
    }
    Ok(mapping)
}
