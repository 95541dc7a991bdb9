//! `kgroute contracts`: the batch's register as something to query. The
//! rows come from `register.jsonl` ([`crate::register`]); [`category`]
//! reads what people type as a CUAD category, [`query`] filters and groups
//! the rows, [`render`] prints them. `ask --contracts` answers with the
//! same engine.

pub mod category;
pub mod query;
pub mod question;
pub mod render;

use crate::register::{read_jsonl, RegisterRow, REGISTER_JSONL};
use std::path::Path;

/// The batch's register rows; when the batch has none, an error naming
/// the batch and how to make its register.
pub fn load(batch: &Path) -> anyhow::Result<Vec<RegisterRow>> {
    crate::search::batch::check_exists(batch)?;
    let path = batch.join(REGISTER_JSONL);
    if !path.exists() {
        anyhow::bail!(
            "{}: the batch {} has no register ({REGISTER_JSONL}); batches ingested before the register existed lack it: re-ingest the documents (`kgroute ingest DOCS --out {}`), or finish an unfinished batch with `--resume`, to write it",
            path.display(),
            batch.display(),
            batch.display()
        );
    }
    Ok(one_per_document(read_jsonl(&path)?, &path))
}

/// The sources of `rows` that changed or cannot be read since the batch
/// read them, each named with why; a row written before the register kept
/// hashes is not checked.
pub fn stale_sources<'a>(rows: impl Iterator<Item = &'a RegisterRow>) -> Vec<String> {
    use sha2::{Digest, Sha256};
    let mut stale = Vec::new();
    for r in rows.filter(|r| !r.sha256.is_empty()) {
        let why = match std::fs::read(&r.path) {
            Ok(bytes) => {
                let now: String = Sha256::digest(&bytes)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                if now == r.sha256 {
                    continue;
                }
                "changed"
            }
            Err(_) => "cannot be read",
        };
        stale.push(format!("{} ({why})", r.path));
    }
    stale
}

/// One row per document, in first-seen order: a register holding a
/// document's line twice (copied twice, or appended by hand) would count
/// that contract twice. The last line of a document is its newest; a
/// repeated line that differs from the one before is said on stderr.
fn one_per_document(rows: Vec<RegisterRow>, path: &Path) -> Vec<RegisterRow> {
    let mut at: std::collections::HashMap<String, usize> = Default::default();
    let mut out: Vec<RegisterRow> = Vec::with_capacity(rows.len());
    for r in rows {
        match at.get(&r.doc_id) {
            Some(&i) => {
                if out[i] != r {
                    eprintln!(
                        "kgroute: warning: {}: document {} has more than one line; its last one is read",
                        path.display(),
                        r.doc_id
                    );
                }
                out[i] = r;
            }
            None => {
                at.insert(r.doc_id.clone(), out.len());
                out.push(r);
            }
        }
    }
    out
}
