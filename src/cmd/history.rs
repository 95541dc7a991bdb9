//! `kgroute history` (being built; see its issue).

use super::Outcome;

#[derive(Debug, clap::Args)]
pub struct HistoryArgs {}

pub fn run(args: HistoryArgs) -> anyhow::Result<Outcome> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
