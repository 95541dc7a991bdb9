//! `kgroute history [--file reports/history.csv]`: prints the batch history
//! as an aligned table, so index owners can watch the new-section share and
//! mismatches fall as the index stabilises.

use super::Outcome;
use crate::report::history::{read_history, render_table};
use std::io::Write;
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Examples:
  kgroute history
  kgroute history --file reports/history.csv

Each `kgroute ingest` batch records one row; watch new% fall and payload cut
settle as the index is refined between batches.";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct HistoryArgs {
    /// The history file that `kgroute ingest` appends to.
    #[arg(long, value_name = "CSV", default_value = "reports/history.csv")]
    pub file: PathBuf,
}

pub fn run(args: HistoryArgs) -> anyhow::Result<Outcome> {
    let rows = read_history(&args.file)?;
    let mut out = std::io::stdout().lock();
    if rows.is_empty() {
        writeln!(out, "no batches recorded yet in {}", args.file.display())?;
    } else {
        out.write_all(render_table(&rows).as_bytes())?;
    }
    Ok(Outcome::Success)
}
