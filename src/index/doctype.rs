//! Document types: a folder of indices, one per type, and detection of the
//! type a document belongs to.

use serde::{Deserialize, Serialize};

/// The `detect:` block of an index.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectSpec {
    /// Phrases of the title block (`credit agreement`, `lease`).
    #[serde(default)]
    pub titles: Vec<String>,
    /// Words of the body typical of the type (`Borrower`, `Tenant`).
    #[serde(default)]
    pub terms: Vec<String>,
}

pub struct IndexSet;
pub struct DocTypeGuess;
