//! Expands the `ingest`/`plan` arguments (files and folders) into the list of
//! documents to process, in a stable order.

use anyhow::{bail, Context};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// File endings read as documents when a folder is given. A file named
/// explicitly is always taken, whatever its ending.
const DOCUMENT_EXTENSIONS: &[&str] = &["md", "markdown", "txt", "text"];

/// Files a folder walk passed over, by ending (`pdf` -> 2).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skipped(pub BTreeMap<String, usize>);

impl Skipped {
    /// `skipped 3 files: .pdf x2, .docx x1` (most frequent first), or
    /// `None` when nothing was skipped.
    pub fn line(&self) -> Option<String> {
        let total: usize = self.0.values().sum();
        if total == 0 {
            return None;
        }
        let mut kinds: Vec<(&String, &usize)> = self.0.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let list: Vec<String> = kinds
            .iter()
            .map(|(ext, n)| {
                if ext.is_empty() {
                    format!("no extension x{n}")
                } else {
                    format!(".{ext} x{n}")
                }
            })
            .collect();
        Some(format!(
            "skipped {total} file{}: {} (kgroute reads .{})",
            if total == 1 { "" } else { "s" },
            list.join(", "),
            DOCUMENT_EXTENSIONS.join(", .")
        ))
    }
}

/// What the walk found.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    pub documents: Vec<PathBuf>,
    pub skipped: Skipped,
    /// Folders not entered again (symlink loops), one note each.
    pub notes: Vec<String>,
    /// Subfolders that could not be listed, one error line each: the rest
    /// of the walk goes on and the run ends with exit code 1.
    pub unlistable: Vec<String>,
}

/// Files named directly, plus the documents found (recursively, sorted,
/// hidden entries skipped) in folders. Duplicates are dropped.
pub fn discover_documents(inputs: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    Ok(discover(inputs)?.documents)
}

/// [`discover_documents`] with what was skipped: files with other endings
/// are counted, a folder reached twice (a symlink loop) is entered once and
/// noted.
pub fn discover(inputs: &[PathBuf]) -> anyhow::Result<Discovery> {
    let mut found = Discovery::default();
    let mut visited = HashSet::new();
    for input in inputs {
        let meta = match std::fs::metadata(input) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                bail!("{}: no such file or folder", input.display())
            }
            r => r.with_context(|| format!("{}: cannot open", input.display()))?,
        };
        if meta.is_dir() {
            let before = found.documents.len();
            walk(input, &mut found, &mut visited)?;
            if found.documents.len() == before {
                bail!(
                    "{}: folder has no documents (looked for files ending in .{})",
                    input.display(),
                    DOCUMENT_EXTENSIONS.join(", .")
                );
            }
        } else {
            found.documents.push(input.clone());
        }
    }
    let mut seen = HashSet::new();
    found
        .documents
        .retain(|p| seen.insert(p.canonicalize().unwrap_or_else(|_| p.clone())));
    Ok(found)
}

fn walk(dir: &Path, found: &mut Discovery, visited: &mut HashSet<PathBuf>) -> anyhow::Result<()> {
    let real = dir
        .canonicalize()
        .with_context(|| format!("{}: cannot open folder", dir.display()))?;
    if !visited.insert(real.clone()) {
        found.notes.push(format!(
            "{}: folder already walked as {} (a symlink loop or a second link), not entered again",
            dir.display(),
            real.display()
        ));
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot list folder", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'))
        })
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            // A subfolder that cannot be listed is that folder's error,
            // not the batch's: its documents are missing, the others run.
            if let Err(e) = walk(&p, found, visited) {
                found.unlistable.push(format!("{e:#}"));
            }
            continue;
        }
        let ext = p
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        if DOCUMENT_EXTENSIONS.contains(&ext.as_str()) {
            found.documents.push(p);
        } else {
            *found.skipped.0.entry(ext).or_default() += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_walked_sorted_and_filtered() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::fs::create_dir(d.join(".hidden")).unwrap();
        for f in [
            "b.txt",
            "a.md",
            "notes.pdf",
            "sub/c.markdown",
            ".hidden/x.txt",
            ".y.md",
        ] {
            std::fs::write(d.join(f), "x").unwrap();
        }
        let got = discover_documents(&[d.to_path_buf()]).unwrap();
        let names: Vec<_> = got
            .iter()
            .map(|p| p.strip_prefix(d).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.md", "b.txt", "sub/c.markdown"]);
    }

    #[test]
    fn other_endings_are_counted_and_a_symlink_loop_is_walked_once() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        for f in ["a.md", "x.pdf", "y.PDF", "z.docx", "sub/b.txt"] {
            std::fs::write(d.join(f), "x").unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(d, d.join("sub").join("loop")).unwrap();
        let got = discover(&[d.to_path_buf()]).unwrap();
        assert_eq!(got.documents.len(), 2, "{:?}", got.documents);
        assert_eq!(
            got.skipped.line().unwrap(),
            "skipped 3 files: .pdf x2, .docx x1 (kgroute reads .md, .markdown, .txt, .text)"
        );
        #[cfg(unix)]
        {
            assert_eq!(got.notes.len(), 1, "{:?}", got.notes);
            assert!(got.notes[0].contains("loop"), "{:?}", got.notes);
        }
        assert_eq!(Skipped::default().line(), None);
    }

    #[test]
    fn a_named_file_is_taken_once_and_a_missing_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("contract.pdf.txt");
        std::fs::write(&f, "x").unwrap();
        let got = discover_documents(&[f.clone(), f.clone(), dir.path().to_path_buf()]).unwrap();
        assert_eq!(got.len(), 1);
        let err = discover_documents(&[dir.path().join("nope.txt")]).unwrap_err();
        assert!(format!("{err:#}").contains("nope.txt"));
    }

    #[test]
    fn an_empty_folder_is_an_error_that_says_what_was_looked_for() {
        let dir = tempfile::tempdir().unwrap();
        let err = discover_documents(&[dir.path().to_path_buf()]).unwrap_err();
        assert!(err.to_string().contains(".md"), "{err}");
    }
}
