//! `kgroute tree` (being built; see its issue).

use super::Outcome;

#[derive(Debug, clap::Args)]
pub struct TreeArgs {}

pub fn run(args: TreeArgs) -> anyhow::Result<Outcome> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
