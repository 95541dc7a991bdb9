//! The clause model: a learned score, per paragraph and CUAD category, of
//! how likely the paragraph is a clause of that kind (a cap on liability,
//! a non-compete, an audit right). It stands beside the rules: the rules
//! say what a sentence states and read its values; the model says whether
//! the paragraph is the kind of clause a lawyer would mark, which a rule
//! firing on a word cannot. A clause kind the two agree on is marked
//! present; one only the rules find is a candidate for review.
//!
//! The shipped model ([`shipped`]) is data in `indices/models/`, trained
//! by `scripts/train-clause-model` on the tuning half of the shared CUAD
//! split only, with its hash and settings beside it. It reads nothing but
//! text, so routing and the register can both read it.

mod features;
pub mod learned;
mod model;
pub mod train;

pub use features::features;
pub use learned::{LearnedModel, Thresholds};
pub use model::{ClauseModel, ModelError, TopScore};

use once_cell::sync::Lazy;
use std::path::PathBuf;

/// The score at which the model agrees with a rule that a paragraph is a
/// clause of the rule's kind: low, since the rule has read the clause's
/// words and the model only has to not rule the paragraph out.
pub const AGREES: f32 = 0.02;

/// The score at which the model alone marks a clause kind, with no rule
/// reading it.
pub const ALONE: f32 = 0.5;

/// Fewest training documents holding a clause kind for the model to have
/// a say on it: below, the model has seen too few examples for its "no"
/// to mean anything, and the rules decide alone.
pub const MIN_DOCUMENTS: u32 = 15;

impl ClauseModel {
    /// The model's score of a category for a paragraph's scores, when it
    /// has learned the category ([`MIN_DOCUMENTS`]); `None` when it has
    /// no say.
    pub fn say(&self, scores: &[f32], category: usize) -> Option<f32> {
        (self.documents(category) >= MIN_DOCUMENTS).then(|| scores[category])
    }
}

/// The shipped model's text, built into the binary so that it is the same
/// model wherever kgroute runs.
pub const SHIPPED_TEXT: &str = include_str!("../../indices/models/clauses.tsv");

/// The shipped model, read once.
pub fn shipped() -> &'static ClauseModel {
    static MODEL: Lazy<ClauseModel> = Lazy::new(|| {
        ClauseModel::parse(SHIPPED_TEXT).expect("the shipped clause model is checked by its tests")
    });
    &MODEL
}

/// The environment variable naming a model file to read instead of the
/// shipped one: a model retrained by `scripts/train-clause-model --out F`
/// (on other labels, or without the contracts a measurement scores).
pub const MODEL_ENV: &str = "KGROUTE_CLAUSE_MODEL";

/// A model file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{MODEL_ENV}={}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{MODEL_ENV}={}: {source}", path.display())]
    Parse { path: PathBuf, source: ModelError },
}

/// The model the rules read: the file [`MODEL_ENV`] names, else the
/// shipped one. Read once per process; a command calls this before any
/// work so a bad file stops it with the file and line.
pub fn active() -> Result<&'static ClauseModel, &'static LoadError> {
    match &*ACTIVE {
        Ok(Some((m, _))) => Ok(m),
        Ok(None) => Ok(shipped()),
        Err(e) => Err(e),
    }
}

/// The SHA-256 (hex) of the model file [`active`] reads: what a batch
/// records, so that `--resume` never mixes two models' clause kinds.
pub fn active_sha256() -> Result<String, &'static LoadError> {
    match &*ACTIVE {
        Ok(Some((_, sha))) => Ok(sha.clone()),
        Ok(None) => Ok(sha256_hex(SHIPPED_TEXT.as_bytes())),
        Err(e) => Err(e),
    }
}

/// The model file [`MODEL_ENV`] names, read once, with its hash; `None`
/// when the variable is unset (the shipped model).
static ACTIVE: Lazy<Result<Option<(ClauseModel, String)>, LoadError>> = Lazy::new(|| {
    let Some(path) = std::env::var_os(MODEL_ENV).filter(|p| !p.is_empty()) else {
        return Ok(None);
    };
    let path = PathBuf::from(path);
    let text = std::fs::read_to_string(&path).map_err(|source| LoadError::Read {
        path: path.clone(),
        source,
    })?;
    let sha = sha256_hex(text.as_bytes());
    ClauseModel::parse(&text)
        .map(|m| Some((m, sha)))
        .map_err(|source| LoadError::Parse { path, source })
});

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
