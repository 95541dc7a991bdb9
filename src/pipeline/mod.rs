//! The staged batch pipeline behind `kgroute ingest`: per document
//! tree -> route -> extract -> graph -> sink, then the batch report.
//!
//! Documents run concurrently (bounded); sections of all documents share the
//! extractor's one concurrency bound. One bad document is reported and the
//! batch goes on; the manifest records each document's state so `--resume`
//! finishes an interrupted batch.

pub mod budget;
pub mod discover;
pub mod document;
pub mod manifest;
pub mod merge;
pub mod progress;
pub mod run;
mod titles;

pub use discover::{
    discover, discover_documents, discover_with, DiscoverOptions, Discovery, Skipped,
};
pub use run::{run_batch, BatchResult, IngestConfig};
