//! The batch manifest: each document's state, saved after every change so an
//! interrupted batch can be finished with `--resume`.
//!
//! Two files: `manifest.json`, a snapshot written atomically (temp file +
//! rename: a crash leaves either the old or the new one, never half), and
//! `manifest.journal`, one JSON line per change of a document's entry,
//! appended as the batch runs ([`Manifest::record`]). Loading applies the
//! journal over the snapshot (the last line of a path wins; a line cut by a
//! kill is ignored), and [`Manifest::save`] compacts both into a new
//! snapshot and empties the journal. A batch of N documents thus writes
//! O(N) bytes, where rewriting the whole manifest per change wrote O(N²).
//! A manifest of an older version (no journal) loads as before. Documents are keyed by their
//! canonical path (never the path as typed), and the manifest remembers what
//! the batch was built with ([`BatchIdentity`]), so a resume with another
//! index or extractor is refused instead of mixing two batches.

use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const MANIFEST_FILE: &str = "manifest.json";
/// Changes since the snapshot, one [`DocEntry`] a line.
pub const JOURNAL_FILE: &str = "manifest.journal";

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
    /// The same content as an earlier document of the batch (`error` names
    /// it); not processed.
    Duplicate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocEntry {
    /// Canonical path: the key of the document in the batch.
    pub path: PathBuf,
    pub doc_id: Option<String>,
    pub state: DocState,
    pub error: Option<String>,
    /// What the document's LLM title mapping did, recorded as soon as it
    /// is done, so a resume that redoes the document (its answer now in the
    /// cache) reports the request this batch made (absent in older
    /// manifests and before the mapping).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title_mapping: Option<crate::index::llm_titles::TitleMappingUse>,
}

/// What a batch was built with: a resume must use the same.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BatchIdentity {
    /// SHA-256 over the index files' contents, in the order given.
    pub index_sha256: String,
    /// `rules` or `llm:<model>`, with the prompt version.
    pub extractor: String,
    /// Whether the LLM title mapping was on (false in manifests of older
    /// versions, which had none).
    #[serde(default)]
    pub llm_match: bool,
    /// SHA-256 of the clause model file the rules read (empty in
    /// manifests of older versions, which then resume unchecked for it).
    #[serde(default)]
    pub clause_model_sha256: String,
}

impl BatchIdentity {
    /// Hashes the index files (their bytes, in order) and names the
    /// extractor.
    pub fn of(index_files: &[PathBuf], extractor: &str) -> anyhow::Result<BatchIdentity> {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        // A folder of indices counts as its `*.yaml` files, sorted.
        let mut files = Vec::new();
        for f in index_files {
            if f.is_dir() {
                let mut inner: Vec<PathBuf> = std::fs::read_dir(f)
                    .with_context(|| format!("{}: cannot list index folder", f.display()))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| {
                        p.is_file() && p.extension().is_some_and(|x| x == "yaml" || x == "yml")
                    })
                    .collect();
                inner.sort();
                files.extend(inner);
            } else {
                files.push(f.clone());
            }
        }
        for f in &files {
            let bytes =
                std::fs::read(f).with_context(|| format!("{}: cannot read index", f.display()))?;
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(&bytes);
            // Reviewed paragraphs route as the index does: a batch resumed
            // after a review would mix two routings.
            // So does a family's learned model.
            let beside = [
                (
                    &b"reviewed paragraphs"[..],
                    crate::index::reviewed::path_beside(f),
                ),
                (
                    &b"learned model"[..],
                    crate::clause_model::learned::path_beside(f),
                ),
            ];
            for (what, path) in beside {
                if let Ok(bytes) = std::fs::read(&path) {
                    h.update(what);
                    h.update((bytes.len() as u64).to_le_bytes());
                    h.update(&bytes);
                }
            }
        }
        Ok(BatchIdentity {
            index_sha256: h.finalize().iter().map(|b| format!("{b:02x}")).collect(),
            extractor: extractor.to_string(),
            llm_match: false,
            clause_model_sha256: crate::clause_model::active_sha256()
                .map_err(|e| anyhow::anyhow!("{e}"))?,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub batch_id: String,
    pub created_at: String,
    pub index_files: Vec<PathBuf>,
    /// What the batch was built with (absent in manifests of older
    /// versions, which then resume unchecked).
    #[serde(default)]
    pub identity: Option<BatchIdentity>,
    /// True once every document was handled and the reports written; a
    /// resume of a finished batch with nothing to redo changes nothing.
    #[serde(default)]
    pub finished: bool,
    /// `--shard K/N` the batch was run with (`kgroute merge` joins shards).
    #[serde(default)]
    pub shard: Option<crate::shard::ShardSpec>,
    pub documents: Vec<DocEntry>,
    /// Position of each path in `documents`, for lookups in O(1).
    #[serde(skip)]
    index: PathIndex,
}

/// Path -> position in `documents`; rebuilt when found stale (a caller
/// may replace `documents`). Never part of a manifest's equality.
#[derive(Debug, Clone, Default)]
struct PathIndex(std::collections::HashMap<PathBuf, usize>);

impl PartialEq for PathIndex {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Manifest {
    pub fn new(
        batch_id: &str,
        index_files: &[PathBuf],
        identity: BatchIdentity,
        docs: &[PathBuf],
    ) -> Self {
        let mut m = Manifest {
            batch_id: batch_id.to_string(),
            created_at: chrono::Utc::now().to_rfc3339(),
            index_files: index_files.to_vec(),
            identity: Some(identity),
            finished: false,
            shard: None,
            documents: docs
                .iter()
                .map(|p| DocEntry {
                    path: p.clone(),
                    doc_id: None,
                    state: DocState::Pending,
                    error: None,
                    title_mapping: None,
                })
                .collect(),
            index: PathIndex::default(),
        };
        m.reindex();
        m
    }

    /// The snapshot with the journal's changes applied.
    /// The way forward from a batch folder whose manifest exists but does
    /// not load (cut by a full disk, edited by hand): `--resume` cannot use
    /// it and a new batch cannot start in a non-empty folder, and each of
    /// neither message may point at the other as the way out. The
    /// documents' answers are in the LLM cache, so starting the batch again
    /// in a fresh folder re-pays nothing already answered.
    pub fn damaged_hint(dir: &Path) -> Option<String> {
        let path = dir.join(MANIFEST_FILE);
        if !path.is_file() {
            return None;
        }
        let cause = match std::fs::read(&path) {
            Err(e) => e.to_string(),
            Ok(bytes) => match serde_json::from_slice::<Manifest>(&bytes) {
                Ok(_) => return None,
                Err(e) => e.to_string(),
            },
        };
        let aside = format!("{}.damaged", dir.display());
        Some(format!(
            "{} is damaged ({}), so this batch can be neither resumed nor started again in \
             place; move the folder aside and run the same command without --resume: \
             `mv {} {aside}` (sections already answered come from the LLM cache at no \
             cost; {aside} keeps the old reports)",
            path.display(),
            crate::index::yaml_guard::one_line(&cause),
            dir.display(),
        ))
    }

    pub fn load(dir: &Path) -> anyhow::Result<Manifest> {
        let path = dir.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("{}: cannot read batch manifest", path.display()))?;
        let mut m: Manifest = serde_json::from_str(&text).with_context(|| {
            format!(
                "{}: not a kgroute batch manifest; start a new batch without --resume",
                path.display()
            )
        })?;
        m.reindex();
        m.apply_journal(&dir.join(JOURNAL_FILE))?;
        Ok(m)
    }

    /// Applies every whole line of the journal at `path` (none if missing).
    /// The last line may be cut by a kill: without its newline it is
    /// ignored; any other bad line is an error naming it.
    fn apply_journal(&mut self, path: &Path) -> anyhow::Result<()> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e).with_context(|| format!("{}: cannot read", path.display())),
        };
        let whole = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(end) => &bytes[..=end],
            None => return Ok(()),
        };
        for (n, line) in whole.split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let entry: DocEntry = serde_json::from_slice(line).with_context(|| {
                format!(
                    "{}:{}: not a manifest journal line; delete the file to resume from manifest.json",
                    path.display(),
                    n + 1
                )
            })?;
            match self.position(&entry.path) {
                Some(i) => self.documents[i] = entry,
                None => {
                    self.index
                        .0
                        .insert(entry.path.clone(), self.documents.len());
                    self.documents.push(entry);
                }
            }
        }
        Ok(())
    }

    /// Writes the whole manifest as a new snapshot and empties the journal
    /// (the snapshot holds every change it had). Call it at the start and
    /// the end of a batch; [`Manifest::record`] for each change between.
    pub fn save(&self, dir: &Path) -> anyhow::Result<()> {
        let path = dir.join(MANIFEST_FILE);
        let json = serde_json::to_vec_pretty(self)?;
        crate::atomic_file::write_atomic(&path, &json)?;
        let journal = dir.join(JOURNAL_FILE);
        match std::fs::remove_file(&journal) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("{}: cannot remove", journal.display()))
            }
            _ => Ok(()),
        }
    }

    /// Appends the entry of `path` to the journal: one line, written whole
    /// with one `write`, so a kill leaves at most a cut last line.
    pub fn record(&self, dir: &Path, path: &Path) -> anyhow::Result<()> {
        use std::io::Write;
        let Some(i) = self.position(path) else {
            return Ok(());
        };
        let mut line = serde_json::to_vec(&self.documents[i])?;
        line.push(b'\n');
        let journal = dir.join(JOURNAL_FILE);
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&journal)
            .with_context(|| format!("{}: cannot open", journal.display()))?;
        f.write_all(&line)
            .with_context(|| format!("{}: cannot append", journal.display()))
    }

    /// Where `path` is in `documents`, through the index (rebuilt when it
    /// is stale or empty).
    fn position(&self, path: &Path) -> Option<usize> {
        if let Some(&i) = self.index.0.get(path) {
            if self.documents.get(i).is_some_and(|d| d.path == path) {
                return Some(i);
            }
        }
        self.documents.iter().position(|d| d.path == path)
    }

    /// Rebuilds the path index from `documents`.
    fn reindex(&mut self) {
        self.index.0 = self
            .documents
            .iter()
            .enumerate()
            .map(|(i, d)| (d.path.clone(), i))
            .collect();
    }

    /// Refuses a resume whose index or extractor differs from the batch's.
    pub fn check_identity(&self, dir: &Path, now: &BatchIdentity) -> anyhow::Result<()> {
        let Some(was) = &self.identity else {
            return Ok(());
        };
        let mut problems = Vec::new();
        if was.index_sha256 != now.index_sha256 {
            let files: Vec<String> = self
                .index_files
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            problems.push(format!(
                "the index differs from the one the batch was built with ({}; contents, the reviewed paragraphs or the learned model beside them changed, or other files given)",
                files.join(", ")
            ));
        }
        if was.extractor != now.extractor {
            problems.push(format!(
                "the extractor differs: the batch used `{}`, this run `{}`",
                was.extractor, now.extractor
            ));
        }
        if !was.clause_model_sha256.is_empty() && was.clause_model_sha256 != now.clause_model_sha256
        {
            problems.push(format!(
                "the clause model differs from the one the batch was built with ({} set or changed)",
                crate::clause_model::MODEL_ENV
            ));
        }
        if was.llm_match != now.llm_match {
            let on = |b: bool| if b { "on" } else { "off (--no-llm-match)" };
            problems.push(format!(
                "the LLM title mapping differs: the batch had it {}, this run {}",
                on(was.llm_match),
                on(now.llm_match)
            ));
        }
        if problems.is_empty() {
            return Ok(());
        }
        anyhow::bail!(
            "{}: cannot resume batch {}: {}; resume with the same --index, model, clause model and --no-llm-match, or start a new batch with another --out",
            dir.display(),
            self.batch_id,
            problems.join("; ")
        )
    }

    /// Adds documents given on a resumed run that the batch did not have.
    pub fn add_missing(&mut self, docs: &[PathBuf]) {
        self.reindex();
        for p in docs {
            if self.position(p).is_none() {
                self.index.0.insert(p.clone(), self.documents.len());
                self.documents.push(DocEntry {
                    path: p.clone(),
                    doc_id: None,
                    state: DocState::Pending,
                    error: None,
                    title_mapping: None,
                });
            }
        }
    }

    pub fn entry_mut(&mut self, path: &Path) -> Option<&mut DocEntry> {
        let i = match self.position(path) {
            Some(i) if self.index.0.get(path) == Some(&i) => i,
            Some(_) | None => {
                // Stale or empty index: rebuild it once, then look again.
                self.reindex();
                self.position(path)?
            }
        };
        self.documents.get_mut(i)
    }

    pub fn entry(&self, path: &Path) -> Option<&DocEntry> {
        self.position(path).map(|i| &self.documents[i])
    }

    pub fn state_of(&self, path: &Path) -> Option<DocState> {
        self.entry(path).map(|d| d.state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_round_trips_and_tracks_states() {
        let dir = tempfile::tempdir().unwrap();
        let docs = vec![PathBuf::from("a.md"), PathBuf::from("b.txt")];
        let mut m = Manifest::new(
            "batch-1",
            &[PathBuf::from("idx.yaml")],
            BatchIdentity::default(),
            &docs,
        );
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
    fn a_resume_with_another_index_or_extractor_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let idx = dir.path().join("i.yaml");
        std::fs::write(&idx, "a: 1\n").unwrap();
        let id = BatchIdentity::of(std::slice::from_ref(&idx), "rules").unwrap();
        let mut m = Manifest::new("b", std::slice::from_ref(&idx), id.clone(), &[]);
        assert!(m.check_identity(dir.path(), &id).is_ok());
        let other = BatchIdentity::of(std::slice::from_ref(&idx), "llm:m").unwrap();
        let e = m
            .check_identity(dir.path(), &other)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`rules`") && e.contains("`llm:m`"), "{e}");
        std::fs::write(&idx, "a: 2\n").unwrap();
        let edited = BatchIdentity::of(std::slice::from_ref(&idx), "rules").unwrap();
        let e = m
            .check_identity(dir.path(), &edited)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("index differs") && e.contains("another --out"),
            "{e}"
        );
        // Reviewed paragraphs written beside the index since the batch
        // began route differently: refused the same way.
        std::fs::write(&idx, "a: 1\n").unwrap();
        assert!(m.check_identity(dir.path(), &id).is_ok());
        std::fs::write(
            crate::index::reviewed::path_beside(&idx),
            "0123456789abcdef\tskip\t\t\n",
        )
        .unwrap();
        let reviewed = BatchIdentity::of(std::slice::from_ref(&idx), "rules").unwrap();
        let e = m
            .check_identity(dir.path(), &reviewed)
            .unwrap_err()
            .to_string();
        assert!(e.contains("index differs"), "{e}");
        // So does a learned model kept beside it since.
        m.identity = Some(reviewed.clone());
        assert!(m.check_identity(dir.path(), &reviewed).is_ok());
        std::fs::write(
            crate::clause_model::learned::path_beside(&idx),
            "thresholds\tinside 0.1 rescue 0.5\n",
        )
        .unwrap();
        let learned = BatchIdentity::of(std::slice::from_ref(&idx), "rules").unwrap();
        let e = m
            .check_identity(dir.path(), &learned)
            .unwrap_err()
            .to_string();
        assert!(e.contains("learned model"), "{e}");
    }

    #[test]
    fn a_corrupt_manifest_says_how_to_recover() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(MANIFEST_FILE), "{not json").unwrap();
        let err = format!("{:#}", Manifest::load(dir.path()).unwrap_err());
        assert!(err.contains("without --resume"), "{err}");
    }

    #[test]
    fn changes_go_to_the_journal_and_a_load_applies_them() {
        let dir = tempfile::tempdir().unwrap();
        let docs: Vec<PathBuf> = (0..50).map(|i| PathBuf::from(format!("d{i}.md"))).collect();
        let mut m = Manifest::new("b", &[], BatchIdentity::default(), &docs);
        m.save(dir.path()).unwrap();
        let snapshot = std::fs::read(dir.path().join(MANIFEST_FILE)).unwrap();
        for (i, p) in docs.iter().enumerate() {
            for state in [DocState::Pending, DocState::Extracted, DocState::Written] {
                let e = m.entry_mut(p).unwrap();
                e.state = state;
                e.doc_id = Some(format!("id{i}"));
                m.record(dir.path(), p).unwrap();
            }
        }
        // The snapshot is not rewritten; the journal grows by a line per
        // change, so the bytes written are linear in the changes.
        assert_eq!(
            std::fs::read(dir.path().join(MANIFEST_FILE)).unwrap(),
            snapshot
        );
        let journal = std::fs::read_to_string(dir.path().join(JOURNAL_FILE)).unwrap();
        assert_eq!(journal.lines().count(), 150);
        let longest = journal.lines().map(str::len).max().unwrap();
        assert!(
            longest < 200,
            "one entry a line, not the manifest: {longest}"
        );
        assert_eq!(Manifest::load(dir.path()).unwrap(), m);

        // A kill mid-append leaves a cut last line: ignored.
        let mut cut = journal.clone();
        cut.push_str(r#"{"path":"d0.md","doc_id":"x","sta"#);
        std::fs::write(dir.path().join(JOURNAL_FILE), &cut).unwrap();
        assert_eq!(Manifest::load(dir.path()).unwrap(), m);

        // A bad whole line is an error naming the file and line.
        std::fs::write(dir.path().join(JOURNAL_FILE), format!("{journal}nope\n")).unwrap();
        let e = format!("{:#}", Manifest::load(dir.path()).unwrap_err());
        assert!(e.contains("manifest.journal:151"), "{e}");

        // Saving compacts: the snapshot has everything, the journal is gone.
        std::fs::write(dir.path().join(JOURNAL_FILE), &journal).unwrap();
        m.finished = true;
        m.save(dir.path()).unwrap();
        assert!(!dir.path().join(JOURNAL_FILE).exists());
        assert_eq!(Manifest::load(dir.path()).unwrap(), m);
    }

    #[test]
    fn a_manifest_of_an_older_version_loads_as_before() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(MANIFEST_FILE),
            r#"{"batch_id":"old","created_at":"2026-01-01T00:00:00Z","index_files":[],
               "documents":[{"path":"a.md","doc_id":"a-1","state":"written","error":null}]}"#,
        )
        .unwrap();
        let m = Manifest::load(dir.path()).unwrap();
        assert_eq!(m.state_of(Path::new("a.md")), Some(DocState::Written));
        assert!(m.identity.is_none() && !m.finished);
    }
}
