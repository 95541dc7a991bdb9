//! `kgroute index_check` (being built; see its issue).

use super::Outcome;

#[derive(Debug, clap::Args)]
pub struct IndexCheckArgs {}

pub fn run(args: IndexCheckArgs) -> anyhow::Result<Outcome> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
