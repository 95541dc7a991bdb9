//! Expands the `ingest`/`plan` arguments (files and folders) into the list of
//! documents to process, in a stable order.

use anyhow::{bail, Context};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// File endings read as documents when a folder is given. A file named
/// explicitly is always taken, whatever its ending.
pub const DOCUMENT_EXTENSIONS: &[&str] = &["md", "markdown", "txt", "text"];

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
    /// Folders not entered again (symlink loops) or left out (the batch's
    /// own output folder), one note each.
    pub notes: Vec<String>,
    /// Symlinks whose target lies outside every input folder, skipped.
    pub warnings: Vec<String>,
    /// Subfolders that could not be listed and documents whose name is not
    /// UTF-8, one error line each: the rest of the walk goes on and the run
    /// ends with exit code 1.
    pub unlistable: Vec<String>,
}

/// How a walk treats what it meets beyond plain files and folders.
#[derive(Debug, Clone, Default)]
pub struct DiscoverOptions {
    /// Follow symlinks whose target is outside every input folder
    /// (`--follow-outside`). Off, such a link is skipped with a warning: a
    /// link in a shared drop folder could otherwise pull any file the user
    /// can read into the batch and make it searchable with `ask`.
    pub follow_outside: bool,
    /// A folder never read as input: the run's own `--out`, which a folder
    /// walk would otherwise read back (its summary.md became a document on
    /// `--resume`).
    pub exclude: Option<PathBuf>,
}

/// Files named directly, plus the documents found (recursively, sorted,
/// hidden entries skipped) in folders. Duplicates are dropped.
pub fn discover_documents(inputs: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    Ok(discover(inputs)?.documents)
}

/// [`discover_with`] the default options.
pub fn discover(inputs: &[PathBuf]) -> anyhow::Result<Discovery> {
    discover_with(inputs, &DiscoverOptions::default())
}

/// [`discover_documents`] with what was skipped: files with other endings
/// are counted, a folder reached twice (a symlink loop) is entered once and
/// noted, a symlink leaving the input folders is skipped with a warning
/// (unless `opts.follow_outside`), `opts.exclude` is not entered, and a
/// document whose name is not UTF-8 is an error of its own (named lossily)
/// while the rest is taken.
pub fn discover_with(inputs: &[PathBuf], opts: &DiscoverOptions) -> anyhow::Result<Discovery> {
    let mut w = Walk {
        found: Discovery::default(),
        visited: HashSet::new(),
        roots: inputs
            .iter()
            .filter(|p| p.is_dir())
            .filter_map(|p| p.canonicalize().ok())
            .collect(),
        exclude: opts.exclude.as_ref().and_then(|p| p.canonicalize().ok()),
        follow_outside: opts.follow_outside,
    };
    for input in inputs {
        let meta = match std::fs::metadata(input) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                bail!("{}: no such file or folder", input.display())
            }
            r => r.with_context(|| format!("{}: cannot open", input.display()))?,
        };
        if meta.is_dir() {
            let before = w.found.documents.len() + w.found.unlistable.len();
            let links_before = w.found.warnings.len();
            w.walk(input)?;
            if w.found.documents.len() + w.found.unlistable.len() == before {
                // Links left out are the likely reason: name them and the
                // flag that takes them, or the user sees only "no documents".
                let links = &w.found.warnings[links_before..];
                let why = if links.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; {} symlink(s) to files outside the input folders were skipped, e.g. {}",
                        links.len(),
                        links[0]
                    )
                };
                bail!(
                    "{}: folder has no documents (looked for files ending in .{}){why}",
                    input.display(),
                    DOCUMENT_EXTENSIONS.join(", .")
                );
            }
        } else {
            w.take(input.clone());
        }
    }
    let mut found = w.found;
    let mut seen = HashSet::new();
    found
        .documents
        .retain(|p| seen.insert(p.canonicalize().unwrap_or_else(|_| p.clone())));
    Ok(found)
}

/// One walk's state: the folders entered and what it must not enter.
struct Walk {
    found: Discovery,
    visited: HashSet<PathBuf>,
    /// The input folders, resolved.
    roots: Vec<PathBuf>,
    exclude: Option<PathBuf>,
    follow_outside: bool,
}

impl Walk {
    fn walk(&mut self, dir: &Path) -> anyhow::Result<()> {
        let real = dir
            .canonicalize()
            .with_context(|| format!("{}: cannot open folder", dir.display()))?;
        if self.exclude.as_ref() == Some(&real) {
            self.found.notes.push(format!(
                "{}: the batch's own output folder (--out), not read as input",
                dir.display()
            ));
            return Ok(());
        }
        if !self.visited.insert(real.clone()) {
            self.found.notes.push(format!(
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
                    .is_some_and(|n| n.as_encoded_bytes().starts_with(b"."))
            })
            .collect();
        entries.sort();
        for p in entries {
            let is_dir = p.is_dir();
            if !is_dir && !is_document(&p) {
                *self.found.skipped.0.entry(extension(&p)).or_default() += 1;
                continue;
            }
            if let Some(target) = self.outside_link(&p) {
                self.found.warnings.push(format!(
                    "{}: symlink to {}, outside the input folders; skipped (--follow-outside \
                     takes it)",
                    p.display(),
                    target.display()
                ));
                continue;
            }
            if is_dir {
                // A subfolder that cannot be listed is that folder's error,
                // not the batch's: its documents are missing, the others run.
                if let Err(e) = self.walk(&p) {
                    self.found.unlistable.push(format!("{e:#}"));
                }
                continue;
            }
            self.take(p);
        }
        Ok(())
    }

    /// A document, or its error when its name is not UTF-8 (reports,
    /// manifest and search index name documents in UTF-8; one such name
    /// used to end the whole run with exit 2 and an empty --out).
    fn take(&mut self, p: PathBuf) {
        if p.to_str().is_some() {
            self.found.documents.push(p);
        } else {
            self.found.unlistable.push(format!(
                "{}: file name is not valid UTF-8 (shown with U+FFFD); rename it in UTF-8, \
                 e.g. `convmv -f latin1 -t utf8 --notest FILE`",
                p.to_string_lossy()
            ));
        }
    }

    /// The target of `p` when `p` is a symlink leading outside every input
    /// folder and such links are not followed.
    fn outside_link(&self, p: &Path) -> Option<PathBuf> {
        if self.follow_outside {
            return None;
        }
        let is_link = p
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            return None;
        }
        let target = p.canonicalize().ok()?;
        (!self.roots.iter().any(|r| target.starts_with(r))).then_some(target)
    }
}

fn extension(p: &Path) -> String {
    p.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

fn is_document(p: &Path) -> bool {
    DOCUMENT_EXTENSIONS.contains(&extension(p).as_str())
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

    #[cfg(unix)]
    #[test]
    fn a_symlink_leaving_the_inputs_is_skipped_with_a_warning_unless_followed() {
        let dir = tempfile::tempdir().unwrap();
        let (inp, outside) = (dir.path().join("in"), dir.path().join("secret"));
        std::fs::create_dir_all(inp.join("sub")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(inp.join("a.md"), "x").unwrap();
        std::fs::write(outside.join("passwd.txt"), "x").unwrap();
        std::os::unix::fs::symlink(outside.join("passwd.txt"), inp.join("p.txt")).unwrap();
        std::os::unix::fs::symlink(&outside, inp.join("sub/more")).unwrap();
        // A link that stays inside is taken as before.
        std::os::unix::fs::symlink(inp.join("a.md"), inp.join("sub/again.md")).unwrap();
        let got = discover(std::slice::from_ref(&inp)).unwrap();
        assert_eq!(got.documents, [inp.join("a.md")], "{got:?}");
        assert_eq!(got.warnings.len(), 2, "{:?}", got.warnings);
        assert!(got
            .warnings
            .iter()
            .all(|w| w.contains("outside the input folders")));
        let opts = DiscoverOptions {
            follow_outside: true,
            ..Default::default()
        };
        let got = discover_with(std::slice::from_ref(&inp), &opts).unwrap();
        // p.txt and sub/more/passwd.txt are one file, taken once.
        assert_eq!(got.documents, [inp.join("a.md"), inp.join("p.txt")]);
        assert!(got.warnings.is_empty());
    }

    /// A folder of nothing but links to outside files: the error names a
    /// skipped link and the flag that takes them, not only "no documents".
    #[cfg(unix)]
    #[test]
    fn a_folder_of_outside_links_says_they_were_skipped_and_how_to_take_them() {
        let dir = tempfile::tempdir().unwrap();
        let (inp, outside) = (dir.path().join("in"), dir.path().join("elsewhere"));
        std::fs::create_dir_all(&inp).unwrap();
        std::fs::create_dir(&outside).unwrap();
        for n in ["a.txt", "b.md"] {
            std::fs::write(outside.join(n), "x").unwrap();
            std::os::unix::fs::symlink(outside.join(n), inp.join(n)).unwrap();
        }
        let err = discover(std::slice::from_ref(&inp))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no documents")
                && err.contains("2 symlink(s)")
                && err.contains("--follow-outside")
                && err.contains(&inp.display().to_string())
                && !err.contains("  "),
            "{err}"
        );
        let opts = DiscoverOptions {
            follow_outside: true,
            ..Default::default()
        };
        assert_eq!(discover_with(&[inp], &opts).unwrap().documents.len(), 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_utf8_is_an_error_of_its_own_and_the_rest_is_taken() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("a.md"), "x").unwrap();
        let latin1 = d.join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt"));
        std::fs::write(&latin1, "x").unwrap();
        let got = discover(&[d.to_path_buf()]).unwrap();
        assert_eq!(got.documents, [d.join("a.md")]);
        assert_eq!(got.unlistable.len(), 1, "{:?}", got.unlistable);
        assert!(
            got.unlistable[0].contains("caf\u{fffd}.txt"),
            "{:?}",
            got.unlistable
        );
        assert!(got.unlistable[0].contains("not valid UTF-8"));
        // Named directly, the same; a folder holding only such a name is
        // not "a folder without documents".
        let only = tempfile::tempdir().unwrap();
        std::fs::write(
            only.path().join(std::ffi::OsStr::from_bytes(b"\xff.md")),
            "x",
        )
        .unwrap();
        let got = discover(&[latin1, only.path().to_path_buf()]).unwrap();
        assert!(got.documents.is_empty());
        assert_eq!(got.unlistable.len(), 2);
    }

    #[test]
    fn the_output_folder_inside_the_inputs_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("out/docs")).unwrap();
        std::fs::write(d.join("a.md"), "x").unwrap();
        std::fs::write(d.join("out/summary.md"), "x").unwrap();
        let opts = DiscoverOptions {
            exclude: Some(d.join("out")),
            ..Default::default()
        };
        let got = discover_with(&[d.to_path_buf()], &opts).unwrap();
        assert_eq!(got.documents, [d.join("a.md")]);
        assert!(got.notes[0].contains("--out"), "{:?}", got.notes);
        assert_eq!(discover(&[d.to_path_buf()]).unwrap().documents.len(), 2);
    }
}
