//! Review into a folder of indices: each decision goes into the index of
//! its row's `doc_type`, so a lease heading never lands in the credit
//! agreement index.
//!
//! Every touched file is edited in memory, validated and version-bumped on
//! its own; nothing is written unless every file's edit applies and
//! validates. Rows of a document that fit no index (`unknown`) or of a type
//! with no index in the folder cannot be written anywhere: they are listed
//! with the reason and left in the report for another review.

use super::decision;
use super::rows::{sort_rows, SortedRows};
use super::{apply_decisions, load_bases, validate_edit, IndexText, ReviewErrors, ReviewResult};
use crate::index::IndexSet;
use anyhow::{bail, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One index file of the folder and what its rows' decisions made of it.
#[derive(Debug, Clone, PartialEq)]
pub struct FileReview {
    pub doc_type: String,
    pub path: PathBuf,
    pub result: ReviewResult,
}

/// What a folder review produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FolderReview {
    /// The files some decision was about, in type order.
    pub files: Vec<FileReview>,
    /// Decisions that have no index to go into, each with its row and why.
    pub unwritable: Vec<String>,
}

impl FolderReview {
    pub fn changed(&self) -> bool {
        self.files.iter().any(|f| f.result.changed())
    }
}

/// The folder's index file of each document type.
fn files_by_type(dir: &Path) -> Result<BTreeMap<String, PathBuf>> {
    let set = IndexSet::load(&[dir.to_path_buf()])?;
    let mut out = BTreeMap::new();
    for idx in set.indices {
        // The folder's own file comes last, after the bases it extends: a
        // decision goes into it, never into a shared base.
        let Some(file) = idx.sources.last().cloned() else {
            continue;
        };
        if let Some(prev) = out.insert(idx.document_type.clone(), file.clone()) {
            bail!(
                "{} and {} both have document_type `{}`; review needs one index per type",
                prev.display(),
                file.display(),
                idx.document_type
            );
        }
    }
    Ok(out)
}

/// Reads the decisions of `csv_path` and applies each to the index of its
/// row's `doc_type` in `dir`, in memory (nothing is written).
pub fn review_folder(csv_path: &Path, dir: &Path) -> Result<FolderReview> {
    let files = files_by_type(dir)?;
    let (decisions, mut errors) = decision::read_decisions(csv_path)?;
    if decisions.iter().any(|d| d.doc_type.is_none()) {
        bail!(
            "{}: no `doc_type` column, so the rows cannot be matched to the indices of {}; give the index file with --index FILE",
            csv_path.display(),
            dir.display()
        );
    }
    let decisions = decision::dedupe(decisions, &mut errors);
    let types = files.keys().cloned().collect::<Vec<_>>().join(", ");
    let SortedRows {
        by_type,
        unwritable,
    } = sort_rows(decisions, &files, |_, ty| {
        format!(
            "no index of type `{ty}` in {} (types: {types})",
            dir.display()
        )
    });
    let mut out = FolderReview {
        files: Vec::new(),
        unwritable,
    };
    for (ty, decisions) in by_type {
        let path = files[&ty].clone();
        let original = crate::index::load::read_index_file(&path)?;
        let problems = super::check_index_text(&path, &original);
        if !problems.is_empty() {
            bail!(
                "{} must be valid before review edits it (see `kgroute index check`):\n  {}",
                path.display(),
                problems.join("\n  ")
            );
        }
        let bases = load_bases(&path, &IndexText::new(&original))?;
        match apply_decisions(&original, &bases, &decisions) {
            Ok(result) => out.files.push(FileReview {
                doc_type: ty,
                path,
                result,
            }),
            Err(more) => errors.extend(more),
        }
    }
    if !errors.is_empty() {
        return Err(ReviewErrors(errors).into());
    }
    for f in &out.files {
        validate_edit(&f.path, &f.result)?;
    }
    Ok(out)
}

/// Writes every changed file of a folder review (each validated, then
/// replaced atomically); the files written.
pub fn write_folder(review: &FolderReview) -> Result<Vec<PathBuf>> {
    for f in &review.files {
        validate_edit(&f.path, &f.result)?;
        super::unchanged_since_read(&f.path, &f.result)?;
    }
    let mut written = Vec::new();
    for f in review.files.iter().filter(|f| f.result.changed()) {
        crate::atomic_file::write_atomic(&f.path, f.result.edited.as_bytes())?;
        written.push(f.path.clone());
    }
    Ok(written)
}
