//! The LLM as the register's verifier. The rules and the clause model
//! propose the clause kinds of a contract; each candidate paragraph goes to
//! the model with one closed question (`is this paragraph a Non-Compete
//! clause?`, the category's CUAD definition beside it), a few hundred
//! tokens instead of the section's whole extraction. The answer decides a
//! category only where a calibration on labelled contracts showed the
//! model beats the offline decision there ([`Calibration`]); everywhere
//! else the register stays as the offline reading made it, so a model can
//! only help. What the model said is recorded either way (the register
//! row's `verify`), which is what a calibration learns from.
//!
//! Layout: `questions` (what is asked: every clause kind the rules assert
//! or hold, and paragraphs the clause model scores high where no rule
//! asserted the kind; batches of them), `ask` (one request per batch: the
//! message, the schema, the answer read and its quote checked against the
//! excerpt),
//! `excerpt` (the sentences a question shows, not the whole paragraph),
//! `apply` (answers and calibration applied to a document's extractions),
//! `calibration` (the per-model file, how it is learned and read), `run`
//! (a document's questions through the extractor's client and cache),
//! `bill` (the same requests counted before any is sent).

mod apply;
mod ask;
pub mod bill;
pub mod calibration;
mod excerpt;
mod questions;
mod run;

pub use apply::{apply, CategoryCheck};
pub use ask::{Verdict, VERIFY_PROMPT_VERSION};
pub use calibration::Calibration;
pub use questions::{questions, Origin, Question, SUGGEST_FLOOR};
pub use run::DocumentChecks;

use serde::{Deserialize, Serialize};

/// What a configured LLM is asked to do.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum LlmMode {
    /// Extract the routed sections' entities and relations (the rules read
    /// the sections routing skips).
    #[default]
    Extract,
    /// The rules read every section; the LLM answers one closed question
    /// per candidate clause kind, and decides the kinds its calibration
    /// trusts it with.
    Verify,
}

impl LlmMode {
    pub fn as_str(self) -> &'static str {
        match self {
            LlmMode::Extract => "extract",
            LlmMode::Verify => "verify",
        }
    }
}
