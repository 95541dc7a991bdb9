//! The batch manifest: each document's state, saved after every change so an
//! interrupted batch can be finished with `--resume`.
//!
//! Written atomically (temp file + rename): a crash leaves either the old or
//! the new manifest, never half of one.

use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const MANIFEST_FILE: &str = "manifest.json";

/// Where a document is in the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DocState {
    /// Not started, or started and interrupted before extraction finished.
    Pending,
    /// Sections extracted and saved under `docs/`; not yet (fully) written to
    /// the sink. A resume rewrites it whole.
    Extracted,
    /// Committed to the sink. A resume does not redo it.
    Written,
    /// Could not be processed; `error` says why. A resume tries again.
    Failed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocEntry {
    pub path: PathBuf,
    pub doc_id: Option<String>,
    pub state: DocState,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub batch_id: String,
    pub created_at: String,
    pub index_files: Vec<PathBuf>,
    pub documents: Vec<DocEntry>,
}

impl Manifest {
    pub fn new(batch_id: &str, index_files: &[PathBuf], docs: &[PathBuf]) -> Self {
        Manifest {
            batch_id: batch_id.to_string(),
            created_at: chrono::Utc::now().to_rfc3339(),
            index_files: index_files.to_vec(),
            documents: docs
                .iter()
                .map(|p| DocEntry {
                    path: p.clone(),
                    doc_id: None,
                    state: DocState::Pending,
                    error: None,
                })
                .collect(),
        }
    }

    pub fn load(dir: &Path) -> anyhow::Result<Manifest> {
        let path = dir.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("{}: cannot read batch manifest", path.display()))?;
        serde_json::from_str(&text).with_context(|| {
            format!(
                "{}: not a kgroute batch manifest; start a new batch without --resume",
                path.display()
            )
        })
    }

    pub fn save(&self, dir: &Path) -> anyhow::Result<()> {
        let path = dir.join(MANIFEST_FILE);
        let json = serde_json::to_vec_pretty(self)?;
        crate::atomic_file::write_atomic(&path, &json)
    }

    /// Adds documents given on a resumed run that the batch did not have.
    pub fn add_missing(&mut self, docs: &[PathBuf]) {
        for p in docs {
            if !self.documents.iter().any(|d| &d.path == p) {
                self.documents.push(DocEntry {
                    path: p.clone(),
                    doc_id: None,
                    state: DocState::Pending,
                    error: None,
                });
            }
        }
    }

    pub fn entry_mut(&mut self, path: &Path) -> Option<&mut DocEntry> {
        self.documents.iter_mut().find(|d| d.path == path)
    }

    pub fn state_of(&self, path: &Path) -> Option<DocState> {
        self.documents
            .iter()
            .find(|d| d.path == path)
            .map(|d| d.state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_round_trips_and_tracks_states() {
        let dir = tempfile::tempdir().unwrap();
        let docs = vec![PathBuf::from("a.md"), PathBuf::from("b.txt")];
        let mut m = Manifest::new("batch-1", &[PathBuf::from("idx.yaml")], &docs);
        m.entry_mut(Path::new("a.md")).unwrap().state = DocState::Written;
        m.save(dir.path()).unwrap();
        let mut back = Manifest::load(dir.path()).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.state_of(Path::new("a.md")), Some(DocState::Written));
        assert_eq!(back.state_of(Path::new("b.txt")), Some(DocState::Pending));
        back.add_missing(&[PathBuf::from("b.txt"), PathBuf::from("c.md")]);
        assert_eq!(back.documents.len(), 3);
        assert!(!dir.path().read_dir().unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains(".tmp")));
    }

    #[test]
    fn a_corrupt_manifest_says_how_to_recover() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(MANIFEST_FILE), "{not json").unwrap();
        let err = format!("{:#}", Manifest::load(dir.path()).unwrap_err());
        assert!(err.contains("without --resume"), "{err}");
    }
}
