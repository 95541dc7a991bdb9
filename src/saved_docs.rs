//! A batch's per-document state on disk: `docs/<doc_id>.json.gz`, one
//! gzip-compressed JSON file per document, written through a temp file and
//! a rename. It is what `--resume`, `merge`, re-reports, `rebuild-search`,
//! `index draft` and `index learn` read back. Each file repeats the
//! document's ids, titles, entity names and quotes many times over, so it
//! shrinks about six times compressed; plain, the folder was larger than
//! the contracts it describes.
//!
//! Only bytes live here (the document's type is the pipeline's): where a
//! document's state is, how it is written and read, which files a folder
//! holds. A file of an older version (`docs/<doc_id>.json`, plain) still
//! reads, and is replaced when its document is written again.

use crate::atomic_file::write_atomic;
use anyhow::Context;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The folder of per-document state inside a batch folder.
pub const DOCS_DIR: &str = "docs";
/// Ending of a saved document.
pub const ENDING: &str = ".json.gz";

/// A folder of one gzip file per document, `<doc_id><ending>`, each
/// written through a temp file and a rename; a file of an older version
/// (`<doc_id><old_ending>`) still reads and gives way when its document is
/// written again. The saved documents are one ([`SAVED`]), the graph's
/// parts another (`sink::parts`).
#[derive(Debug, Clone, Copy)]
pub struct DocFiles {
    pub ending: &'static str,
    pub old_ending: &'static str,
}

/// The saved documents' files (in [`DOCS_DIR`]).
pub const SAVED: DocFiles = DocFiles {
    ending: ENDING,
    old_ending: ".json",
};

impl DocFiles {
    /// Where this version writes `doc_id`'s file in `dir`.
    pub fn path(&self, dir: &Path, doc_id: &str) -> PathBuf {
        dir.join(format!("{doc_id}{}", self.ending))
    }

    fn old_path(&self, dir: &Path, doc_id: &str) -> PathBuf {
        dir.join(format!("{doc_id}{}", self.old_ending))
    }

    /// `doc_id`'s file as it is on disk: this version's, else an older
    /// one's.
    pub fn existing(&self, dir: &Path, doc_id: &str) -> Option<PathBuf> {
        [self.path(dir, doc_id), self.old_path(dir, doc_id)]
            .into_iter()
            .find(|p| p.is_file())
    }

    /// Writes `doc_id`'s file, serialised by `write` straight into the
    /// compressor (a document of 100,000 sections makes several hundred MB
    /// of plain JSON), replacing what an earlier run wrote for it.
    pub fn write(
        &self,
        dir: &Path,
        doc_id: &str,
        write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        write(&mut z)?;
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create", dir.display()))?;
        write_atomic(&self.path(dir, doc_id), &z.finish()?)?;
        let old = self.old_path(dir, doc_id);
        if old.is_file() {
            std::fs::remove_file(&old)
                .with_context(|| format!("{}: cannot remove", old.display()))?;
        }
        Ok(())
    }

    /// The document id a file of the folder is for (`None`: not one of
    /// these files, e.g. a temp file).
    pub fn doc_id_of<'a>(&self, file_name: &'a str) -> Option<&'a str> {
        if file_name.starts_with('.') {
            return None;
        }
        file_name
            .strip_suffix(self.ending)
            .or_else(|| file_name.strip_suffix(self.old_ending))
    }

    /// Every file of `dir` as (document id, file), in `doc_id` order;
    /// where a document has both forms, this version's.
    pub fn list(&self, dir: &Path) -> anyhow::Result<Vec<(String, PathBuf)>> {
        let mut by_doc: std::collections::BTreeMap<String, PathBuf> = Default::default();
        for entry in
            std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))?
        {
            let path = entry
                .with_context(|| format!("{}: cannot list", dir.display()))?
                .path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let Some(id) = self.doc_id_of(name) else {
                continue;
            };
            let newer = name.ends_with(self.ending);
            let kept_newer = by_doc
                .get(id)
                .is_some_and(|kept| kept.to_string_lossy().ends_with(self.ending));
            if newer || !kept_newer {
                by_doc.insert(id.to_string(), path.clone());
            }
        }
        Ok(by_doc.into_iter().collect())
    }
}

/// Where this version writes `doc_id`'s state.
pub fn path(batch: &Path, doc_id: &str) -> PathBuf {
    SAVED.path(&batch.join(DOCS_DIR), doc_id)
}

/// `doc_id`'s saved state as it is on disk: this version's, else an older
/// one's.
pub fn existing(batch: &Path, doc_id: &str) -> Option<PathBuf> {
    SAVED.existing(&batch.join(DOCS_DIR), doc_id)
}

/// Writes `doc_id`'s state ([`DocFiles::write`]).
pub fn write(
    batch: &Path,
    doc_id: &str,
    write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    SAVED.write(&batch.join(DOCS_DIR), doc_id, write)
}

/// A saved document's JSON: inflated when compressed, as it is when plain
/// (an older version's).
pub fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() * 6);
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_end(&mut out)
        .with_context(|| {
            format!(
                "{}: cannot read (damaged: delete it and resume the batch to redo the document)",
                path.display()
            )
        })?;
    Ok(out)
}

/// Every saved document of the batch folder as (document id, file), in
/// `doc_id` order; where a document has both forms, this version's. An
/// error when the folder has no `docs/`.
pub fn list(batch: &Path) -> anyhow::Result<Vec<(String, PathBuf)>> {
    SAVED.list(&batch.join(DOCS_DIR))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written compressed, read back whole; an older plain file reads as
    /// it is and gives way when its document is written again; a cut file
    /// is named.
    #[test]
    fn saved_documents_of_both_versions_read_and_a_cut_one_is_named() {
        let batch = std::env::temp_dir().join(format!("kgroute-saved-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&batch);
        std::fs::create_dir_all(batch.join(DOCS_DIR)).unwrap();
        std::fs::write(SAVED.old_path(&batch.join(DOCS_DIR), "a"), b"{\"old\":1}").unwrap();
        std::fs::write(batch.join(DOCS_DIR).join(".b.json.gz.tmp9"), b"x").unwrap();
        let body = format!("{{\"text\":\"{}\"}}", "indemnify ".repeat(500));
        write(&batch, "b", |w| Ok(w.write_all(body.as_bytes())?)).unwrap();
        let raw = std::fs::read(path(&batch, "b")).unwrap();
        assert!(raw.len() * 5 < body.len(), "stored compressed");

        let listed: Vec<String> = list(&batch)
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(listed, ["a", "b"]);
        assert_eq!(
            read(&existing(&batch, "a").unwrap()).unwrap(),
            b"{\"old\":1}"
        );
        assert_eq!(
            read(&existing(&batch, "b").unwrap()).unwrap(),
            body.as_bytes()
        );

        write(&batch, "a", |w| Ok(w.write_all(b"{\"new\":1}")?)).unwrap();
        assert!(!SAVED.old_path(&batch.join(DOCS_DIR), "a").exists());
        assert_eq!(
            read(&existing(&batch, "a").unwrap()).unwrap(),
            b"{\"new\":1}"
        );

        std::fs::write(path(&batch, "b"), &raw[..raw.len() / 2]).unwrap();
        let err = format!("{:#}", read(&path(&batch, "b")).unwrap_err());
        assert!(err.contains("b.json.gz") && err.contains("resume"), "{err}");
        std::fs::remove_dir_all(&batch).unwrap();
    }
}
