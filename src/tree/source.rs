//! Reading a document from disk: decoding, line endings, and the line index
//! that lets every later stage follow a node's line pointers.

use std::path::{Path, PathBuf};

/// Why a file could not be read as a document.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{path}: cannot read")]
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
        let bytes = std::fs::read(path).map_err(|source| InputError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_bytes(path, &bytes, lossy)
    }

    /// Decodes raw bytes: rejects empty and binary input, checks UTF-8
    /// (or replaces bad sequences when `lossy`), then normalises.
    pub fn from_bytes(path: &Path, bytes: &[u8], lossy: bool) -> Result<Self, InputError> {
        let path_buf = path.to_path_buf();
        if let Some(offset) = bytes.iter().position(|&b| b == 0) {
            return Err(InputError::Binary {
                path: path_buf,
                offset,
            });
        }
        let decoded: std::borrow::Cow<'_, str> = match std::str::from_utf8(bytes) {
            Ok(s) => s.into(),
            Err(_) if lossy => String::from_utf8_lossy(bytes),
            Err(e) => {
                return Err(InputError::InvalidUtf8 {
                    path: path_buf,
                    offset: e.valid_up_to(),
                })
            }
        };
        let source = Self::from_text(path_buf, &decoded);
        if source.text.trim().is_empty() {
            return Err(InputError::Empty { path: source.path });
        }
        Ok(source)
    }

    /// Builds a source from text already in memory (tests, stdin): strips a
    /// BOM and turns CRLF and lone CR into `\n`.
    pub fn from_text(path: impl Into<PathBuf>, text: &str) -> Self {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let text = normalise_newlines(text);
        let mut line_starts = Vec::with_capacity(text.len() / 40 + 1);
        line_starts.push(0);
        let bytes = text.as_bytes();
        let mut pos = 0;
        while let Some(i) = bytes[pos..].iter().position(|&b| b == b'\n') {
            pos += i + 1;
            if pos < bytes.len() {
                line_starts.push(pos);
            }
        }
        if text.is_empty() {
            line_starts.clear();
        }
        Self {
            path: path.into(),
            text,
            line_starts,
        }
    }

    /// Number of lines; a final newline does not start another line.
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Every line without its newline, in order (uses the line index, no
    /// new scan of the text).
    pub fn lines(&self) -> impl Iterator<Item = &str> + '_ {
        let n = self.line_starts.len();
        (0..n).map(move |i| {
            let from = self.line_starts[i];
            let to = if i + 1 < n {
                self.line_starts[i + 1] - 1
            } else {
                self.text.len() - usize::from(self.text.ends_with('\n'))
            };
            &self.text[from..to]
        })
    }

    /// Line `n` (1-based) without its newline. Panics when out of range.
    pub fn line(&self, n: usize) -> &str {
        self.span_text(n, n)
    }

    /// The 1-based line that holds byte offset `offset` of [`Self::text`].
    pub fn line_of_offset(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i.max(1),
        }
    }

    /// Lines `start..=end` (1-based, inclusive), joined by `\n`.
    /// Panics when the range is empty or outside the document.
    pub fn span_text(&self, start: usize, end: usize) -> &str {
        assert!(
            start >= 1 && start <= end && end <= self.line_count(),
            "line span {start}..={end} outside 1..={} of {}",
            self.line_count(),
            self.path.display()
        );
        let from = self.line_starts[start - 1];
        if end < self.line_count() {
            &self.text[from..self.line_starts[end] - 1]
        } else {
            let all = &self.text[from..];
            all.strip_suffix('\n').unwrap_or(all)
        }
    }
}

fn normalise_newlines(text: &str) -> String {
    if !text.contains('\r') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('\r') {
        out.push_str(&rest[..i]);
        out.push('\n');
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix('\n') {
            rest = r;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(t: &str) -> SourceText {
        SourceText::from_text("t.txt", t)
    }

    #[test]
    fn line_endings_and_bom_are_normalised() {
        let s = src("\u{feff}a\r\nb\rc\n");
        assert_eq!(s.text, "a\nb\nc\n");
        assert_eq!(s.line_count(), 3);
        assert_eq!(s.line(2), "b");
        assert_eq!(s.span_text(1, 3), "a\nb\nc");
    }

    #[test]
    fn last_line_without_newline_counts() {
        let s = src("a\n\nb");
        assert_eq!(s.line_count(), 3);
        assert_eq!(s.line(2), "");
        assert_eq!(s.line(3), "b");
        assert_eq!(s.line_of_offset(3), 3);
        assert_eq!(s.line_of_offset(0), 1);
        assert_eq!(s.lines().collect::<Vec<_>>(), ["a", "", "b"]);
        assert_eq!(src("x\n").lines().collect::<Vec<_>>(), ["x"]);
    }

    #[test]
    fn decoding_errors_name_the_offset() {
        let p = Path::new("x.txt");
        let e = SourceText::from_bytes(p, b"ok \xff bad", false).unwrap_err();
        assert!(
            matches!(e, InputError::InvalidUtf8 { offset: 3, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("x.txt") && e.to_string().contains("3"));
        let s = SourceText::from_bytes(p, b"ok \xff bad", true).unwrap();
        assert_eq!(s.text, "ok \u{fffd} bad");
        let e = SourceText::from_bytes(p, b"ab\0c", false).unwrap_err();
        assert!(matches!(e, InputError::Binary { offset: 2, .. }));
        let e = SourceText::from_bytes(p, b"\xef\xbb\xbf \n\n", false).unwrap_err();
        assert!(matches!(e, InputError::Empty { .. }));
    }
}
