//! One file per subcommand: its arguments, its help, and its `run`.

pub mod ask;
pub mod batch_args;
pub mod contracts;
pub mod export;
pub mod history;
pub mod index_check;
pub mod index_draft;
pub mod index_learn;
pub mod ingest;
pub mod merge;
pub mod plan;
pub mod prices;
pub mod rebuild_search;
pub mod review;
pub mod tree;
pub mod verify_calibrate;

/// How a command that did not fail outright ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything worked: exit 0.
    Success,
    /// Finished, but some documents or sections failed (or a check found
    /// problems): exit 1.
    PartialFailure,
}
