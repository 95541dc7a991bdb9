//! A batch folder as its readers open it: [`check_exists`] before `ask`
//! or `contracts` reads it, and the search index of a batch that exists
//! built again (`kgroute rebuild-search`): each saved document
//! (`docs/<doc_id>.json.gz`: its file and routing plan) is read again from
//! its source file and added, one at a time.

use super::SearchIndexWriter;
use crate::route::RoutePlan;
use crate::tree::source::ReadOptions;
use crate::tree::SourceText;
use anyhow::Context;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// An error unless `batch` is a folder (the caller then opens its index,
/// whose own error asks for `rebuild-search` when only the index is missing).
pub fn check_exists(batch: &Path) -> anyhow::Result<()> {
    if batch.is_dir() {
        return Ok(());
    }
    if batch.exists() {
        anyhow::bail!(
            "{}: not a batch folder (a file); give the folder `kgroute ingest --out` wrote",
            batch.display()
        );
    }
    anyhow::bail!(
        "{}: no such batch folder; give one that `kgroute ingest DOCS --out {}` made",
        batch.display(),
        batch.display()
    )
}

/// The part of a saved document the index needs.
#[derive(Deserialize)]
struct Saved {
    meta: SavedMeta,
    plan: RoutePlan,
}

#[derive(Deserialize)]
struct SavedMeta {
    path: PathBuf,
}

/// What rebuilding a batch's index did.
#[derive(Debug, Default)]
pub struct IndexedBatch {
    pub documents: usize,
    pub chunks: u64,
    /// Documents whose source could not be read: `path: error`.
    pub failed: Vec<String>,
}

/// Rebuilds `batch_dir/search` from the batch's saved documents.
pub fn index_batch(batch_dir: &Path) -> anyhow::Result<IndexedBatch> {
    let docs = batch_dir.join(crate::saved_docs::DOCS_DIR);
    if !docs.is_dir() {
        anyhow::bail!(
            "{}: no saved documents; is this a batch folder made by `kgroute ingest`?",
            docs.display()
        );
    }
    let files: Vec<PathBuf> = crate::saved_docs::list(batch_dir)?
        .into_iter()
        .map(|(_, path)| path)
        .collect();
    let dir = batch_dir.join(super::INDEX_DIR);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)
            .with_context(|| format!("{}: cannot replace the search index", dir.display()))?;
    }
    let writer = SearchIndexWriter::open(batch_dir)?;
    let mut out = IndexedBatch::default();
    for f in files {
        let text = crate::saved_docs::read(&f)?;
        let saved: Saved = serde_json::from_slice(&text)
            .with_context(|| format!("{}: not a saved kgroute document", f.display()))?;
        let source = match SourceText::read_with(&saved.meta.path, &ReadOptions::default()) {
            Ok(s) => s,
            Err(e) => {
                out.failed.push(format!("{e}"));
                continue;
            }
        };
        writer.add(&saved.plan, &source, &saved.meta.path)?;
        out.documents += 1;
    }
    out.chunks = writer.finish()?;
    Ok(out)
}
