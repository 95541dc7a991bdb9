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
    read_jsonl(&path)
}
