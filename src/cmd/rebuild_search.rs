//! `kgroute rebuild-search BATCH`: (re)builds the search index of a batch
//! folder from its saved documents, for batches ingested before the index
//! existed or whose index was lost.

use super::Outcome;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct RebuildSearchArgs {
    /// The batch folder (made by `kgroute ingest` or `kgroute merge`).
    #[arg(value_name = "BATCH")]
    pub batch: PathBuf,
}

pub fn run(args: RebuildSearchArgs) -> anyhow::Result<Outcome> {
    let r = crate::search::batch::index_batch(&args.batch)?;
    for f in &r.failed {
        eprintln!("kgroute: {f}");
    }
    println!(
        "search index: {} documents, {} chunks -> {}",
        r.documents,
        r.chunks,
        args.batch.join(crate::search::INDEX_DIR).display()
    );
    Ok(if r.failed.is_empty() {
        Outcome::Success
    } else {
        Outcome::PartialFailure
    })
}
