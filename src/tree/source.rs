//! Reading a document from disk: decoding, line endings, and the line index
//! that lets every later stage follow a node's line pointers.

use std::path::{Path, PathBuf};

/// Why a file could not be read as a document.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: file is empty; give a document with at least one line of text")]
    Empty { path: PathBuf },
    #[error("{path}: invalid UTF-8 at byte offset {offset}; convert the file to UTF-8 or pass --lossy to replace bad bytes")]
    InvalidUtf8 { path: PathBuf, offset: usize },
    #[error("{path}: looks binary (NUL byte at offset {offset}); kgroute reads Markdown or plain-text documents")]
    Binary { path: PathBuf, offset: usize },
}

/// A document's text, normalised to `\n` line endings without a BOM, with an
/// index of where each line starts.
#[derive(Debug, Clone)]
pub struct SourceText {
    pub path: PathBuf,
    pub text: String,
    /// Byte offset of the start of each line (line 1 is index 0).
    line_starts: Vec<usize>,
}

impl SourceText {
    /// Reads and decodes a file. `lossy` replaces invalid UTF-8 instead of
    /// failing.
    pub fn read(path: &Path, lossy: bool) -> Result<Self, InputError> {
        let _ = (path, lossy);
        todo!("issue 2: reading")
    }

    /// Builds a source from text already in memory (tests, stdin).
    pub fn from_text(path: impl Into<PathBuf>, text: &str) -> Self {
        let _ = (path.into(), text);
        todo!("issue 2: normalising")
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Lines `start..=end` (1-based, inclusive), joined by `\n`.
    pub fn span_text(&self, start: usize, end: usize) -> &str {
        let _ = (start, end);
        todo!("issue 2: span text")
    }
}
