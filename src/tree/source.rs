//! Reading a document from disk: decoding, line endings, and the line index
//! that lets every later stage follow a node's line pointers.
//!
//! Reading is safe for any path a user can type: only regular files are
//! opened (a FIFO, device or socket is an error, never a hang), the size cap
//! is checked before a byte is read, and binary files are recognised from
//! their first bytes before the rest is read. UTF-16 with a byte-order mark
//! is decoded; invalid UTF-8 is located by line and column.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Default size cap (`--max-bytes`): 64 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// Bytes looked at for binary detection before the rest is read.
const SNIFF_BYTES: u64 = 8 * 1024;

/// How documents are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Replace invalid UTF-8 (or UTF-16) instead of failing.
    pub lossy: bool,
    /// Largest file read, in bytes.
    pub max_bytes: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            lossy: false,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

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
    #[error("{path}: invalid UTF-8 at line {line}, column {column} (byte offset {offset}); convert the file to UTF-8 (e.g. `iconv -f latin1 -t utf-8 FILE > FILE.utf8`) or pass --lossy to replace bad bytes")]
    InvalidUtf8 {
        path: PathBuf,
        offset: usize,
        line: usize,
        column: usize,
    },
    #[error("{path}: invalid UTF-16 (the file starts with a UTF-16 byte-order mark); convert it with `iconv -f utf-16 -t utf-8 FILE > FILE.utf8` or pass --lossy")]
    InvalidUtf16 { path: PathBuf },
    #[error("{path}: looks binary (NUL byte at offset {offset}); kgroute reads Markdown or plain-text documents")]
    Binary { path: PathBuf, offset: usize },
    #[error("{path}: not a regular file ({kind}); kgroute reads only regular files")]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error("{path}: {size} bytes is more than the --max-bytes limit of {max}; raise --max-bytes to read it")]
    TooLarge { path: PathBuf, size: u64, max: u64 },
}

/// What kind of non-regular file `t` is.
fn file_kind(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// A document's text, normalised to `\n` line endings without a BOM, with an
/// index of where each line starts.
#[derive(Debug, Clone)]
pub struct SourceText {
    pub path: PathBuf,
    pub text: String,
    /// Byte offset of the start of each line (line 1 is index 0).
    line_starts: Vec<usize>,
    /// SHA-256 of `text`, computed once on first use (the document id's
    /// hash, and the file's too when the file was `text` byte for byte).
    text_digest: std::sync::OnceLock<[u8; 32]>,
    /// How the file's bytes hash relates to the text's.
    file_digest: FileDigest,
    /// Where the text's bytes lie in the file's.
    file_offsets: FileOffsets,
}

/// How offsets of [`SourceText::text`] map to the bytes of the file it was
/// read from: a BOM and the `\r` of each CRLF were dropped, so the file's
/// bytes run ahead of the text's by what was dropped before them.
#[derive(Debug, Clone, PartialEq)]
enum FileOffsets {
    /// Nothing dropped: the offsets are the file's.
    Same,
    /// Sorted `(text offset, bytes dropped before it)`, one entry where
    /// the count grows.
    Shifted(Vec<(usize, usize)>),
    /// Decoded from UTF-16, or invalid bytes replaced: the text's bytes
    /// are not the file's, and no offset maps.
    Unmapped,
}

/// The SHA-256 of the bytes a source was read from.
#[derive(Debug, Clone, Copy)]
enum FileDigest {
    /// The bytes were the text exactly: the same digest as `text_digest`.
    SameAsText,
    /// The bytes differed (BOM, CRLF, UTF-16, lossy): hashed on reading.
    Bytes([u8; 32]),
    /// Built from text, not from a file.
    Unknown,
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

impl SourceText {
    /// SHA-256 of the (normalised) text, hashed at most once per source.
    pub fn text_sha256(&self) -> &[u8; 32] {
        use sha2::{Digest, Sha256};
        self.text_digest
            .get_or_init(|| Sha256::digest(self.text.as_bytes()).into())
    }

    /// Hex SHA-256 of the file's bytes, without reading or hashing the
    /// file again (`None` for a source built from text).
    pub fn file_sha256_hex(&self) -> Option<String> {
        match self.file_digest {
            FileDigest::SameAsText => Some(hex(self.text_sha256())),
            FileDigest::Bytes(d) => Some(hex(&d)),
            FileDigest::Unknown => None,
        }
    }

    /// The byte of the file that offset `offset` of [`Self::text`] was
    /// read from: what a tool slicing the file needs (a CRLF file's
    /// offsets run ahead of the text's by one per line break before).
    /// `None` for text decoded from UTF-16 or with invalid bytes replaced,
    /// whose bytes are not the file's.
    pub fn file_byte(&self, offset: usize) -> Option<usize> {
        match &self.file_offsets {
            FileOffsets::Same => Some(offset),
            FileOffsets::Shifted(shifts) => {
                let i = shifts.partition_point(|&(at, _)| at <= offset);
                Some(offset + if i == 0 { 0 } else { shifts[i - 1].1 })
            }
            FileOffsets::Unmapped => None,
        }
    }

    /// The file's byte span of the text's span `start..end`, or the text's
    /// own when the file's bytes do not map ([`Self::file_byte`]).
    pub fn file_span(&self, start: usize, end: usize) -> (usize, usize) {
        match (self.file_byte(start), self.file_byte(end)) {
            (Some(a), Some(b)) => (a, b),
            _ => (start, end),
        }
    }

    /// Records how `bytes` (what the source was decoded from) hash.
    fn with_file_bytes(mut self, bytes: &[u8]) -> Self {
        use sha2::{Digest, Sha256};
        self.file_digest = if bytes == self.text.as_bytes() {
            FileDigest::SameAsText
        } else {
            FileDigest::Bytes(Sha256::digest(bytes).into())
        };
        self
    }

    /// Reads and decodes a file. `lossy` replaces invalid UTF-8 instead of
    /// failing.
    pub fn read(path: &Path, lossy: bool) -> Result<Self, InputError> {
        Self::read_with(
            path,
            &ReadOptions {
                lossy,
                ..ReadOptions::default()
            },
        )
    }

    /// Reads and decodes a file safely: regular files only, size checked
    /// before reading, binary detected from the first bytes.
    pub fn read_with(path: &Path, opts: &ReadOptions) -> Result<Self, InputError> {
        let io = |source| InputError::Io {
            path: path.to_path_buf(),
            source,
        };
        let check = |meta: &std::fs::Metadata| -> Result<(), InputError> {
            if !meta.is_file() {
                return Err(InputError::NotRegular {
                    path: path.to_path_buf(),
                    kind: file_kind(meta.file_type()),
                });
            }
            if meta.len() > opts.max_bytes {
                return Err(InputError::TooLarge {
                    path: path.to_path_buf(),
                    size: meta.len(),
                    max: opts.max_bytes,
                });
            }
            Ok(())
        };
        // Checked before opening: opening a FIFO blocks.
        check(&std::fs::metadata(path).map_err(io)?)?;
        let mut file = std::fs::File::open(path).map_err(io)?;
        check(&file.metadata().map_err(io)?)?;
        let mut bytes = Vec::new();
        (&mut file)
            .take(SNIFF_BYTES)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if !is_utf16_bom(&bytes) {
            if let Some(offset) = bytes.iter().position(|&b| b == 0) {
                return Err(InputError::Binary {
                    path: path.to_path_buf(),
                    offset,
                });
            }
        }
        // One byte more than allowed tells a file that grew past the cap.
        file.take(opts.max_bytes + 1 - bytes.len() as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() as u64 > opts.max_bytes {
            return Err(InputError::TooLarge {
                path: path.to_path_buf(),
                size: bytes.len() as u64,
                max: opts.max_bytes,
            });
        }
        Self::from_bytes(path, &bytes, opts.lossy)
    }

    /// Decodes raw bytes: rejects empty and binary input, checks UTF-8
    /// (or replaces bad sequences when `lossy`), then normalises.
    pub fn from_bytes(path: &Path, bytes: &[u8], lossy: bool) -> Result<Self, InputError> {
        let path_buf = path.to_path_buf();
        if is_utf16_bom(bytes) {
            let text = decode_utf16(bytes, lossy).ok_or(InputError::InvalidUtf16 {
                path: path_buf.clone(),
            })?;
            let mut source = Self::from_text(path_buf, &text);
            if source.text.trim().is_empty() {
                return Err(InputError::Empty { path: source.path });
            }
            source.file_offsets = FileOffsets::Unmapped;
            return Ok(source.with_file_bytes(bytes));
        }
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
                let offset = e.valid_up_to();
                let (line, column) = line_and_column(bytes, offset);
                return Err(InputError::InvalidUtf8 {
                    path: path_buf,
                    offset,
                    line,
                    column,
                });
            }
        };
        let replaced = matches!(decoded, std::borrow::Cow::Owned(_));
        let mut source = Self::from_text(path_buf, &decoded);
        if source.text.trim().is_empty() {
            return Err(InputError::Empty { path: source.path });
        }
        if replaced {
            source.file_offsets = FileOffsets::Unmapped;
        }
        Ok(source.with_file_bytes(bytes))
    }

    /// Builds a source from text already in memory (tests, stdin): strips a
    /// BOM and turns CRLF and lone CR into `\n`.
    pub fn from_text(path: impl Into<PathBuf>, text: &str) -> Self {
        let bom = text.strip_prefix('\u{feff}');
        let dropped = if bom.is_some() {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        let text = bom.unwrap_or(text);
        let (text, mut shifts) = normalise_newlines(text);
        if dropped > 0 {
            for s in &mut shifts {
                s.1 += dropped;
            }
            shifts.insert(0, (0, dropped));
        }
        let file_offsets = if shifts.is_empty() {
            FileOffsets::Same
        } else {
            FileOffsets::Shifted(shifts)
        };
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
            text_digest: std::sync::OnceLock::new(),
            file_digest: FileDigest::Unknown,
            file_offsets,
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

    /// Byte offset in [`Self::text`] where line `n` (1-based) starts.
    /// Panics when out of range.
    pub fn line_start(&self, n: usize) -> usize {
        self.line_starts[n - 1]
    }

    /// The text of the byte span `start..end` of [`Self::text`] without
    /// the newline that ends it: a node's text, for every consumer (a node
    /// may start inside a line). Panics, naming the file, when the span is
    /// outside the text or not on character boundaries.
    pub fn byte_span_text(&self, start: usize, end: usize) -> &str {
        let text = self.text.get(start..end).unwrap_or_else(|| {
            panic!(
                "byte span {start}..{end} outside 0..{} (or not on a character boundary) of {}",
                self.text.len(),
                self.path.display()
            )
        });
        text.strip_suffix('\n').unwrap_or(text)
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

/// The 1-based line and column (in characters) of byte `offset`, where
/// everything before `offset` is valid UTF-8.
fn line_and_column(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = std::str::from_utf8(&before[line_start..])
        .map_or(offset - line_start, |s| s.chars().count())
        + 1;
    (line, column)
}

/// Starts with a UTF-16 byte-order mark (`FF FE` or `FE FF`).
fn is_utf16_bom(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF])
}

/// Decodes UTF-16 (little or big endian by its BOM, which is dropped);
/// `None` when invalid and not `lossy`.
fn decode_utf16(bytes: &[u8], lossy: bool) -> Option<String> {
    let little = bytes.starts_with(&[0xFF, 0xFE]);
    let body = &bytes[2..];
    if body.len() % 2 == 1 && !lossy {
        return None;
    }
    let units = body.chunks_exact(2).map(|c| {
        if little {
            u16::from_le_bytes([c[0], c[1]])
        } else {
            u16::from_be_bytes([c[0], c[1]])
        }
    });
    let mut out = String::with_capacity(body.len() / 2);
    for c in char::decode_utf16(units) {
        match c {
            Ok(c) => out.push(c),
            Err(_) if lossy => out.push('\u{fffd}'),
            Err(_) => return None,
        }
    }
    Some(out)
}

/// `text` with CRLF and lone CR as `\n`, and where bytes were dropped:
/// `(offset in the output, bytes dropped before it)` after each CRLF.
fn normalise_newlines(text: &str) -> (String, Vec<(usize, usize)>) {
    if !text.contains('\r') {
        return (text.to_owned(), Vec::new());
    }
    let mut out = String::with_capacity(text.len());
    let mut shifts = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('\r') {
        out.push_str(&rest[..i]);
        out.push('\n');
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix('\n') {
            rest = r;
            shifts.push((out.len(), shifts.len() + 1));
        }
    }
    out.push_str(rest);
    (out, shifts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(t: &str) -> SourceText {
        SourceText::from_text("t.txt", t)
    }

    #[test]
    fn a_span_of_the_text_maps_to_the_same_words_in_a_crlf_file_with_a_bom() {
        let bytes = b"\xef\xbb\xbfARTICLE I\r\nTerms apply.\r\n\r\nSection 2\rLaw \xc3\xa9t\xc3\xa9.\r\nEnd";
        let s = SourceText::from_bytes(Path::new("crlf.txt"), bytes, false).unwrap();
        assert_eq!(
            s.text,
            "ARTICLE I\nTerms apply.\n\nSection 2\nLaw \u{e9}t\u{e9}.\nEnd"
        );
        let file = std::str::from_utf8(bytes).unwrap();
        for n in 1..=s.line_count() {
            let a = s.line_start(n);
            let line = s.line(n);
            let (fa, fb) = s.file_span(a, a + line.len());
            assert_eq!(&file[fa..fb], line, "line {n}");
        }
        // A span across lines is the file's bytes with its line ends.
        let (a, b) = (
            s.text.find("Terms").unwrap(),
            s.text.find("End").unwrap() + 3,
        );
        let (fa, fb) = s.file_span(a, b);
        assert_eq!(
            file[fa..fb].replace("\r\n", "\n").replace('\r', "\n"),
            s.text[a..b]
        );
        assert_eq!(s.file_byte(0), Some(3), "after the BOM");

        let plain = SourceText::from_bytes(Path::new("lf.txt"), b"a\nb\n", false).unwrap();
        assert_eq!(plain.file_byte(2), Some(2));
        // Decoded from UTF-16 or with bytes replaced, no offset is the file's.
        let utf16 =
            SourceText::from_bytes(Path::new("u.txt"), b"\xff\xfea\x00\n\x00", false).unwrap();
        assert_eq!(utf16.file_byte(1), None);
        assert_eq!(utf16.file_span(0, 1), (0, 1));
        let lossy = SourceText::from_bytes(Path::new("l.txt"), b"a\xffb\n", true).unwrap();
        assert_eq!(lossy.file_byte(1), None);
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
    fn byte_spans_read_like_line_spans_and_may_start_inside_a_line() {
        let s = src("ARTICLE I\nterms. 1.1 Loans. The Banks\nlend.\n");
        // A span of whole lines reads as the line span does.
        assert_eq!(s.byte_span_text(0, s.line_start(2)), s.span_text(1, 1));
        assert_eq!(
            s.byte_span_text(s.line_start(2), s.text.len()),
            s.span_text(2, 3)
        );
        // A span that starts inside line 2 and one that ends there.
        let at = s.text.find("1.1").unwrap();
        assert_eq!(
            s.byte_span_text(at, s.text.len()),
            "1.1 Loans. The Banks\nlend."
        );
        assert_eq!(s.byte_span_text(s.line_start(2), at), "terms. ");
        assert_eq!(s.line_of_offset(at), 2);
        let t = src("no final newline");
        assert_eq!(t.byte_span_text(3, t.text.len()), "final newline");
    }

    #[test]
    #[should_panic(expected = "t.txt")]
    fn a_byte_span_outside_the_text_names_the_file() {
        src("abc\n").byte_span_text(2, 9);
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
            matches!(
                e,
                InputError::InvalidUtf8 {
                    offset: 3,
                    line: 1,
                    column: 4,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("x.txt") && e.to_string().contains("3"));
        let e = SourceText::from_bytes(p, b"a\nb\xc3\xa9 c\xff", false).unwrap_err();
        assert!(e.to_string().contains("line 2, column 5"), "{e}");
        let s = SourceText::from_bytes(p, b"ok \xff bad", true).unwrap();
        assert_eq!(s.text, "ok \u{fffd} bad");
        let e = SourceText::from_bytes(p, b"ab\0c", false).unwrap_err();
        assert!(matches!(e, InputError::Binary { offset: 2, .. }));
        let e = SourceText::from_bytes(p, b"\xef\xbb\xbf \n\n", false).unwrap_err();
        assert!(matches!(e, InputError::Empty { .. }));
    }

    #[test]
    fn utf16_with_a_bom_is_decoded_and_bad_utf16_says_how_to_convert() {
        let p = Path::new("u.txt");
        let text = "ARTICLE I\r\nDéfinitions\r\n";
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        for bytes in [le, be] {
            let s = SourceText::from_bytes(p, &bytes, false).unwrap();
            assert_eq!(s.text, "ARTICLE I\nDéfinitions\n");
        }
        // A lone surrogate.
        let e =
            SourceText::from_bytes(p, &[0xFF, 0xFE, 0x00, 0xD8, 0x41, 0x00], false).unwrap_err();
        assert!(e.to_string().contains("iconv -f utf-16"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn special_files_and_oversized_files_are_refused_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.txt");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success();
        assert!(ok, "mkfifo");
        // Would block forever if it were opened.
        let e = SourceText::read(&fifo, false).unwrap_err();
        assert!(
            matches!(e, InputError::NotRegular { kind: "a FIFO", .. }),
            "{e}"
        );
        let e = SourceText::read(Path::new("/dev/zero"), false).unwrap_err();
        assert!(e.to_string().contains("a device"), "{e}");

        let big = dir.path().join("big.txt");
        std::fs::write(&big, "x\n".repeat(100)).unwrap();
        let opts = ReadOptions {
            lossy: false,
            max_bytes: 150,
        };
        let e = SourceText::read_with(&big, &opts).unwrap_err();
        assert!(
            e.to_string().contains("200 bytes") && e.to_string().contains("--max-bytes"),
            "{e}"
        );
        // Binary found in the first bytes, the rest never matters.
        let bin = dir.path().join("b.txt");
        let mut bytes = b"PK\x03\x04\0".to_vec();
        bytes.extend(std::iter::repeat_n(b'a', 100_000));
        std::fs::write(&bin, bytes).unwrap();
        let e = SourceText::read(&bin, false).unwrap_err();
        assert!(matches!(e, InputError::Binary { offset: 4, .. }), "{e}");
    }

    #[test]
    fn the_file_hash_comes_from_reading_once_and_matches_the_bytes() {
        use sha2::{Digest, Sha256};
        let dir = tempfile::tempdir().unwrap();
        let sha = |b: &[u8]| hex(&Sha256::digest(b));
        for (name, bytes) in [
            ("plain.txt", &b"ARTICLE I\nTerms\n"[..]),
            ("crlf.txt", &b"\xef\xbb\xbfARTICLE I\r\nTerms\r\n"[..]),
        ] {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes).unwrap();
            let s = SourceText::read(&p, false).unwrap();
            assert_eq!(s.file_sha256_hex(), Some(sha(bytes)), "{name}");
            assert_eq!(hex(s.text_sha256()), sha(s.text.as_bytes()), "{name}");
        }
        assert_eq!(src("x").file_sha256_hex(), None);
    }
}
