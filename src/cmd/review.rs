//! `kgroute review` (being built; see its issue).

use super::Outcome;

#[derive(Debug, clap::Args)]
pub struct ReviewArgs {}

pub fn run(args: ReviewArgs) -> anyhow::Result<Outcome> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
