//! Bounds on a YAML text before anything builds a tree from it.
//!
//! YAML aliases let a few hundred bytes stand for billions of nodes (the
//! "billion laughs" file: nine aliases of the anchor above, eight levels
//! deep), and every tree builder here (the spanned tree of `index check`,
//! `serde_yaml_ng` values) expands them. This pass reads only the parser's
//! events, which never expand anything, and counts what an expansion would
//! build: the nodes an alias stands for are added each time it is used, with
//! saturating arithmetic. Nodes alone are not enough: a 1 MB scalar aliased
//! 100 times is only 101 nodes but 100 MB of text, which reached 3.86 GB of
//! memory, so the bytes of scalars an expansion would build are
//! counted the same way. A file over the size, depth, expanded-node or
//! expanded-byte limit is refused with its line and a one-line message;
//! every YAML reader of kgroute (index files, review edits, prices tables)
//! calls [`check`] first.

use saphyr_parser::{Event, Parser};
use std::collections::HashMap;

/// Largest YAML text read (an index file is some tens of KB).
pub const MAX_BYTES: usize = 16 * 1024 * 1024;
/// Deepest nesting of mappings and sequences (an index uses four levels).
pub const MAX_DEPTH: usize = 64;
/// Most nodes the text may stand for once its aliases are expanded (the
/// shipped indices have a few thousand).
pub const MAX_NODES: u64 = 1_000_000;
/// Most scalar bytes aliases may add to the file's own: a text stands for at
/// most its length plus this once expanded (the shipped indices use no
/// aliases at all).
pub const MAX_ALIAS_BYTES: u64 = 4 * 1024 * 1024;
/// Longest message quoted from the parser.
const MAX_MESSAGE: usize = 160;

/// Why a text was refused, at a 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl std::fmt::Display for GuardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for GuardError {}

/// Reads a YAML file under the same byte limit as [`check`], applied while
/// reading: a device (`/dev/zero`), a FIFO or a folder is refused before
/// it is opened (opening a FIFO waits for a writer), and a file that grows
/// past [`MAX_BYTES`] is cut off at one byte over it, never read whole.
pub fn read_bounded(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a device, FIFO or folder); give a YAML file",
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() > MAX_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "over the {} MiB limit of a YAML file",
                MAX_BYTES / (1024 * 1024)
            ),
        ));
    }
    Ok(bytes)
}

/// Checks `text` against the limits. A syntax error is returned as found,
/// its message cut to one line (see [`one_line`]).
pub fn check(text: &str) -> Result<(), GuardError> {
    if text.len() > MAX_BYTES {
        return Err(GuardError {
            line: 1,
            col: 1,
            message: format!(
                "YAML file of {} bytes is over the {} MiB limit",
                text.len(),
                MAX_BYTES / (1024 * 1024)
            ),
        });
    }
    // Per open container: (nodes and bytes counted when it opened, its
    // anchor id); per anchor: the nodes and scalar bytes it stands for.
    let mut open: Vec<(u64, u64, usize)> = Vec::new();
    let mut anchors: HashMap<usize, (u64, u64)> = HashMap::new();
    let mut nodes: u64 = 0;
    let mut bytes: u64 = 0;
    let max_bytes = (text.len() as u64).saturating_add(MAX_ALIAS_BYTES);
    for ev in Parser::new_from_str(text) {
        let (ev, span) = ev.map_err(|e| GuardError {
            line: e.marker().line(),
            col: e.marker().col() + 1,
            message: one_line(e.info()),
        })?;
        let (line, col) = (span.start.line(), span.start.col() + 1);
        match ev {
            Event::Scalar(value, _, anchor, _) => {
                nodes = nodes.saturating_add(1);
                let len = value.len() as u64;
                bytes = bytes.saturating_add(len);
                if anchor > 0 {
                    anchors.insert(anchor, (1, len));
                }
            }
            Event::Alias(id) => {
                let (n, b) = anchors.get(&id).copied().unwrap_or((1, 0));
                nodes = nodes.saturating_add(n);
                bytes = bytes.saturating_add(b);
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                nodes = nodes.saturating_add(1);
                open.push((nodes - 1, bytes, anchor));
                if open.len() > MAX_DEPTH {
                    return Err(GuardError {
                        line,
                        col,
                        message: format!(
                            "nesting deeper than {MAX_DEPTH} levels; an index nests at most four"
                        ),
                    });
                }
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((start, start_bytes, anchor)) = open.pop() {
                    if anchor > 0 {
                        anchors.insert(anchor, (nodes - start, bytes - start_bytes));
                    }
                }
            }
            Event::DocumentEnd => break,
            _ => {}
        }
        if nodes > MAX_NODES {
            return Err(GuardError {
                line,
                col,
                message: format!(
                    "aliases here expand to more than {MAX_NODES} nodes (a \"billion laughs\" \
                     file?); write the entries out instead of nesting aliases"
                ),
            });
        }
        if bytes > max_bytes {
            return Err(GuardError {
                line,
                col,
                message: format!(
                    "aliases here expand to more than {} MiB of text beyond the file's own \
                     {} bytes; write the entries out instead of repeating a long value by alias",
                    MAX_ALIAS_BYTES / (1024 * 1024),
                    text.len()
                ),
            });
        }
    }
    Ok(())
}

/// The first line of a parser message, at most [`MAX_MESSAGE`] characters
/// (a message may quote the input, and that input may be megabytes).
pub fn one_line(message: &str) -> String {
    let first = message.lines().next().unwrap_or("");
    let mut out: String = first.chars().take(MAX_MESSAGE).collect();
    if out.len() < first.len() || message.lines().nth(1).is_some() {
        out.push_str(" ...");
    }
    out
}

/// [`check`], then `serde_yaml_ng::from_str`: for readers with no spans
/// of their own. The error names the line and stays on one line.
pub fn from_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, GuardError> {
    check(text)?;
    serde_yaml_ng::from_str(text).map_err(|e| {
        let (line, col) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
        GuardError {
            line,
            col,
            message: one_line(&e.to_string()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nine aliases of the anchor above, eight levels: 9^8 = 43 million
    /// scalars from some 500 bytes.
    pub fn billion_laughs() -> String {
        let mut s = String::from(
            "a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        for i in 1..=8 {
            let p = format!("*a{}", i - 1);
            s.push_str(&format!("a{i}: &a{i} [{}]\n", vec![p; 9].join(",")));
        }
        s
    }

    #[test]
    fn billion_laughs_is_refused_at_its_line() {
        let text = billion_laughs();
        assert!(text.len() < 600, "{}", text.len());
        let e = check(&text).unwrap_err();
        assert!(e.message.contains("expand to more than"), "{e}");
        assert!(e.line >= 6 && e.line <= 9, "{e}");
    }

    #[test]
    fn a_long_scalar_aliased_many_times_is_refused_by_its_bytes() {
        // Issue 37: 101 nodes, but 100 MB once expanded.
        let mut text = format!("big: &b \"{}\"\nlist:\n", "x".repeat(1 << 20));
        for _ in 0..100 {
            text.push_str("  - *b\n");
        }
        let e = check(&text).unwrap_err();
        assert!(e.message.contains("MiB of text"), "{e}");
        assert!(e.to_string().len() < 300, "{e}");
        // Inside an aliased container too, and the same value a few times
        // passes.
        let nested = format!(
            "m: &m {{a: \"{}\"}}\nl: [{}]\n",
            "y".repeat(1 << 20),
            ["*m"; 10].join(",")
        );
        assert!(check(&nested).unwrap_err().message.contains("MiB of text"));
        let few = format!("m: &m \"{}\"\nl: [*m, *m, *m]\n", "y".repeat(1 << 20));
        check(&few).unwrap();
    }

    #[test]
    fn deep_nesting_is_refused_with_a_short_message() {
        let text = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = check(&text).unwrap_err();
        assert!(e.to_string().len() < 200, "{e}");
        let text = format!("{}1{}", "[".repeat(65), "]".repeat(65));
        assert!(check(&text).unwrap_err().message.contains("nesting deeper"));
        let block: String = (0..200)
            .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
            .collect();
        assert!(check(&block).unwrap_err().message.contains("nesting"));
    }

    #[test]
    fn ordinary_aliases_and_the_shipped_indices_pass() {
        check("base: &b {x: 1}\nother: *b\nlist: [*b, *b]\n").unwrap();
        for f in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/indices")).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|e| e == "yaml") {
                check(&std::fs::read_to_string(&p).unwrap()).unwrap();
            }
        }
    }

    #[test]
    fn one_line_cuts_long_and_multi_line_messages() {
        assert_eq!(one_line("short"), "short");
        assert!(one_line(&"x".repeat(50_000)).len() < 200);
        assert_eq!(one_line("a\nb"), "a ...");
    }
}
