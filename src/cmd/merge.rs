//! `kgroute merge DIR... --out DIR`: joins the batch folders of `--shard K/N`
//! runs into one batch (sections.csv, sections.xlsx, summaries and
//! suggestions recomputed from every shard's documents; offline graph files
//! assembled once; one history row).

use super::Outcome;
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Examples:
  kgroute ingest corpus/ --shard 0/3 --out reports/b/shard-0   # one per worker
  kgroute ingest corpus/ --shard 1/3 --out reports/b/shard-1
  kgroute ingest corpus/ --shard 2/3 --out reports/b/shard-2
  kgroute merge reports/b/shard-0 reports/b/shard-1 reports/b/shard-2 --out reports/b/merged

Refused, saying which folder, when the folders are not one complete set of
finished shards of one batch (same N, index and extractor).";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct MergeArgs {
    /// The shard batch folders (each made by `kgroute ingest --shard K/N`).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Folder for the merged batch (must be new or empty).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Batch history file that gets the merged batch's row.
    #[arg(long, value_name = "CSV", default_value = "reports/history.csv")]
    pub history: PathBuf,
}

pub fn run(args: MergeArgs) -> anyhow::Result<Outcome> {
    let summary = crate::pipeline::merge::merge_shards(&args.dirs, &args.out, &args.history)?;
    crate::stdout::line(summary.headline());
    crate::stdout::line(format_args!("reports: {}", args.out.display()));
    Ok(if summary.has_failures() {
        Outcome::PartialFailure
    } else {
        Outcome::Success
    })
}
