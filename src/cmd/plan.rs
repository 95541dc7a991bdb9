//! `kgroute plan` (being built; see its issue).

use super::Outcome;

#[derive(Debug, clap::Args)]
pub struct PlanArgs {}

pub fn run(args: PlanArgs) -> anyhow::Result<Outcome> {
    let _ = args;
    anyhow::bail!("not implemented yet")
}
