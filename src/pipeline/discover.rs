//! Expands the `ingest`/`plan` arguments (files and folders) into the list of
//! documents to process, in a stable order.

use anyhow::{bail, Context};
use std::path::{Path, PathBuf};

/// File endings read as documents when a folder is given. A file named
/// explicitly is always taken, whatever its ending.
const DOCUMENT_EXTENSIONS: &[&str] = &["md", "markdown", "txt", "text"];

/// Files named directly, plus the documents found (recursively, sorted,
/// hidden entries skipped) in folders. Duplicates are dropped.
pub fn discover_documents(inputs: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for input in inputs {
        let meta = match std::fs::metadata(input) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                bail!("{}: no such file or folder", input.display())
            }
            r => r.with_context(|| format!("{}: cannot open", input.display()))?,
        };
        if meta.is_dir() {
            let before = out.len();
            walk(input, &mut out)?;
            if out.len() == before {
                bail!(
                    "{}: folder has no documents (looked for files ending in .{})",
                    input.display(),
                    DOCUMENT_EXTENSIONS.join(", .")
                );
            }
        } else {
            out.push(input.clone());
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.canonicalize().unwrap_or_else(|_| p.clone())));
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
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
            walk(&p, out)?;
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| DOCUMENT_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        {
            out.push(p);
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
