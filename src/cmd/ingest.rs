//! `kgroute ingest` (being built; see its issue).

use super::Outcome;

#[derive(Debug, clap::Args)]
pub struct IngestArgs {}

pub fn run(args: IngestArgs) -> anyhow::Result<Outcome> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
