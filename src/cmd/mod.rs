//! One file per subcommand: its arguments, its help, and its `run`.

pub mod ask;
pub mod contracts;
pub mod history;
pub mod index_check;
pub mod index_draft;
pub mod index_search;
pub mod ingest;
pub mod merge;
pub mod plan;
pub mod prices;
pub mod review;
pub mod tree;

use crate::cli::{Cli, Command, IndexCommand};

/// How a command that did not fail outright ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything worked: exit 0.
    Success,
    /// Finished, but some documents or sections failed (or a check found
    /// problems): exit 1.
    PartialFailure,
}

/// Dispatches a parsed command line. An `Err` is fatal (exit 2).
pub fn run(cli: Cli) -> anyhow::Result<Outcome> {
    match cli.command {
        Command::Tree(a) => tree::run(a),
        Command::Plan(a) => plan::run(a),
        Command::Ingest(a) => ingest::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Ask(a) => ask::run(a),
        Command::Contracts(a) => contracts::run(a),
        Command::IndexSearch(a) => index_search::run(a),
        Command::Review(a) => review::run(a),
        Command::History(a) => history::run(a),
        Command::Index(IndexCommand::Check(a)) => index_check::run(a),
        Command::Index(IndexCommand::Draft(a)) => index_draft::run(a),
    }
}
