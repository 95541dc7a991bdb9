//! Reviewers' decisions on single paragraphs, kept beside the index of
//! their document type (`indices/commercial.yaml` ->
//! `indices/commercial.paragraphs.tsv`). Routing by content sends or
//! leaves out each paragraph by its clause score; a reviewer who reads a
//! plan's `paragraphs.csv` and marks a row `send` or `skip` (`kgroute
//! review paragraphs.csv --write`) decides that paragraph for every later
//! batch of the family, before any score.
//!
//! A paragraph is known by the fingerprint of its words: case, spacing,
//! punctuation and line breaks aside, so the same clause re-flowed by
//! another PDF extraction, or repeated in another contract of the same
//! template, takes the decision too; a changed word makes it another
//! paragraph, decided by its score again.
//!
//! The file is plain text, one decision a line, so that a reviewer can
//! read and diff it beside the YAML:
//!
//! ```text
//! # comment lines
//! fingerprint<TAB>decision<TAB>category<TAB>opening
//! 3f2a...<TAB>send<TAB>Anti-Assignment<TAB>Neither party may assign ...
//! ```

use super::check::Problem;
use super::IndexError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The decisions of one document type, by fingerprint.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReviewedParagraphs {
    by_fingerprint: BTreeMap<String, ReviewedParagraph>,
}

/// One reviewer's decision on a paragraph.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewedParagraph {
    pub fingerprint: String,
    /// `true`: the paragraph goes to the extractor; `false`: it is left out.
    pub send: bool,
    /// The category the clause model gave it when it was reviewed.
    pub category: String,
    /// Its opening words, for the reader of the file.
    pub opening: String,
}

/// The header line of the file.
const HEADER: &str = "fingerprint\tdecision\tcategory\topening";

/// Where the decisions of the index `yaml` are kept: beside it, named
/// after it (`commercial.yaml` -> `commercial.paragraphs.tsv`).
pub fn path_beside(yaml: &Path) -> PathBuf {
    let stem = yaml
        .file_stem()
        .map_or_else(|| "index".into(), |s| s.to_string_lossy().into_owned());
    yaml.with_file_name(format!("{stem}.paragraphs.tsv"))
}

/// The fingerprint of a paragraph: the first 16 hex digits of the SHA-256
/// of its words (letters and digits, lower-cased, one space apart).
pub fn fingerprint(text: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut words = String::with_capacity(text.len());
    let mut gap = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if gap && !words.is_empty() {
                words.push(' ');
            }
            gap = false;
            words.extend(c.to_lowercase());
        } else {
            gap = true;
        }
    }
    Sha256::digest(words.as_bytes())[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A decision as a reviewer writes it: `send` or `skip` (any case).
pub fn parse_decision(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "send" => Some(true),
        "skip" => Some(false),
        _ => None,
    }
}

impl ReviewedParagraphs {
    /// The decisions kept beside the index `yaml`; none when there is no
    /// file.
    pub fn load_beside(yaml: &Path) -> Result<ReviewedParagraphs, IndexError> {
        let path = path_beside(yaml);
        match std::fs::read_to_string(&path) {
            Ok(text) => Self::parse(&path, &text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(source) => Err(IndexError::Io { path, source }),
        }
    }

    /// Reads the text of a decisions file; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<ReviewedParagraphs, IndexError> {
        let problem = |line: usize, message: String| IndexError::Invalid {
            problems: vec![Problem {
                file: path.to_path_buf(),
                line,
                col: 0,
                message,
                fix: "each line: a fingerprint, `send` or `skip`, the category and the opening, \
                      tab-separated (written by `kgroute review paragraphs.csv --write`)"
                    .into(),
            }],
        };
        let mut out = ReviewedParagraphs::default();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            if line.trim().is_empty() || line.starts_with('#') || line == HEADER {
                continue;
            }
            let mut fields = line.splitn(4, '\t');
            let fp = fields.next().unwrap_or_default().trim();
            if fp.len() != 16 || !fp.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(problem(n, format!("`{fp}` is not a paragraph fingerprint")));
            }
            let decision = fields.next().unwrap_or_default();
            let Some(send) = parse_decision(decision) else {
                return Err(problem(
                    n,
                    format!("decision `{decision}`: expected `send` or `skip`"),
                ));
            };
            let entry = ReviewedParagraph {
                fingerprint: fp.to_ascii_lowercase(),
                send,
                category: fields.next().unwrap_or_default().to_string(),
                opening: fields.next().unwrap_or_default().to_string(),
            };
            if out
                .by_fingerprint
                .insert(entry.fingerprint.clone(), entry)
                .is_some()
            {
                return Err(problem(n, format!("fingerprint {fp} is decided twice")));
            }
        }
        Ok(out)
    }

    /// The decision on the paragraph of this fingerprint, if reviewed.
    pub fn decision(&self, fingerprint: &str) -> Option<bool> {
        self.by_fingerprint.get(fingerprint).map(|r| r.send)
    }

    pub fn is_empty(&self) -> bool {
        self.by_fingerprint.is_empty()
    }

    pub fn len(&self) -> usize {
        self.by_fingerprint.len()
    }

    /// Takes a decision in; the previous decision on the same paragraph,
    /// if there was one.
    pub fn decide(&mut self, entry: ReviewedParagraph) -> Option<ReviewedParagraph> {
        self.by_fingerprint.insert(entry.fingerprint.clone(), entry)
    }

    /// The text form [`ReviewedParagraphs::parse`] reads, by fingerprint.
    pub fn to_text(&self, document_type: &str) -> String {
        let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
        let mut out = format!(
            "# Reviewers' decisions on paragraphs of {document_type} documents: each goes to the \
             extractor (send) or is left out (skip) before its clause score is read.\n\
             # Written by `kgroute review paragraphs.csv --write`; a paragraph is known by the \
             fingerprint of its words.\n{HEADER}\n"
        );
        for r in self.by_fingerprint.values() {
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\n",
                r.fingerprint,
                if r.send { "send" } else { "skip" },
                clean(&r.category),
                clean(&r.opening)
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paragraph_reflowed_or_recased_keeps_its_fingerprint() {
        let a = fingerprint("Neither party may assign this Agreement\nwithout consent.");
        let b = fingerprint("  NEITHER party may assign  this Agreement without consent ");
        assert_eq!(a, b);
        assert_eq!(a.len(), 16);
        assert_ne!(
            a,
            fingerprint("Either party may assign this Agreement without consent.")
        );
    }

    #[test]
    fn decisions_read_back_and_a_damaged_line_is_named() {
        let mut r = ReviewedParagraphs::default();
        let fp = fingerprint("Counterparts. This Agreement may be executed in counterparts.");
        r.decide(ReviewedParagraph {
            fingerprint: fp.clone(),
            send: false,
            category: "Other".into(),
            opening: "Counterparts.\tThis".into(),
        });
        let text = r.to_text("commercial");
        let back = ReviewedParagraphs::parse(Path::new("c.paragraphs.tsv"), &text).unwrap();
        assert_eq!(back.decision(&fp), Some(false));
        assert_eq!(back.len(), 1);

        let bad = format!("{HEADER}\n{fp}\tmaybe\tOther\tx\n");
        let e = ReviewedParagraphs::parse(Path::new("c.paragraphs.tsv"), &bad).unwrap_err();
        let IndexError::Invalid { problems } = e else {
            panic!("not a problem: {e}")
        };
        assert_eq!(
            (problems[0].line, problems[0].file.clone()),
            (2, "c.paragraphs.tsv".into())
        );
        assert!(
            problems[0].message.contains("maybe"),
            "{}",
            problems[0].message
        );
        let twice = format!("{fp}\tsend\t\t\n{fp}\tskip\t\t\n");
        assert!(ReviewedParagraphs::parse(Path::new("c"), &twice).is_err());
    }

    #[test]
    fn the_file_sits_beside_its_index() {
        assert_eq!(
            path_beside(Path::new("indices/commercial.yaml")),
            PathBuf::from("indices/commercial.paragraphs.tsv")
        );
    }
}
