//! The feedback loop between batches, above the stages it learns from:
//! `review` (this file) applies a reviewer's decisions, and `draft` writes
//! a first index for a new family from calibrated batches.
//!
//! The review applies a reviewer's decisions from the `decision`
//! column of `sections.csv` to a graphability index YAML, keeping the file's
//! comments, order and formatting (a line-level edit, never a serde
//! round-trip).
//!
//! Decisions: `add:<tier>` (a new heading becomes an entry, with a `note:`
//! saying which document and section it came from), `alias:<entry>` (the
//! heading becomes an alias of an existing entry), `retier:<tier>` (the
//! matched entry's whole block moves to another tier), `ignore`. Headings go
//! into the index in display form ([`crate::report::display_title`]:
//! `Section 1.03 Types of Advances` -> `Types of Advances`). All problems
//! are collected and reported together, each naming the CSV line.
//!
//! `review` edits one index file with the rows of its document type (every
//! row of a report without a `doc_type` column); `folder::review_folder`
//! takes a folder of indices and sends each row to its `doc_type`'s index.
//! Rows that no given index takes are listed as not written (`rows`).

pub mod decision;
pub mod draft;
pub mod editor;
pub mod folder;
pub mod learn;
pub mod names;
pub mod paragraphs;
pub mod rows;
pub mod scalar;
pub mod validate;
pub mod version;

pub use decision::{read_decisions, Action, Decision};
pub use editor::IndexText;
pub use validate::check_index_text;

use crate::index::normalize_title;
use anyhow::{Context, Result};
use std::path::Path;

/// What applying a CSV's decisions to an index produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewResult {
    pub original: String,
    pub edited: String,
    /// One line per change made, naming the CSV row.
    pub changes: Vec<String>,
    /// Decisions that changed nothing (already there, `ignore`).
    pub notices: Vec<String>,
    /// `version:` before the edit (`None` when the file has none).
    pub old_version: Option<String>,
    /// `version:` after it; moves whenever the text changes.
    pub new_version: Option<String>,
}

impl ReviewResult {
    pub fn changed(&self) -> bool {
        self.original != self.edited
    }

    /// A unified diff of the edit, with `name` on both header lines (so
    /// `patch` can apply it).
    pub fn diff(&self, name: &str) -> String {
        similar::TextDiff::from_lines(&self.original, &self.edited)
            .unified_diff()
            .context_radius(3)
            .header(name, &format!("{name} (reviewed)"))
            .to_string()
    }
}

/// The problems of a review, each on its own line.
#[derive(Debug, thiserror::Error)]
#[error("{} problem(s) in the review; nothing was changed:\n  {}", .0.len(), .0.join("\n  "))]
pub struct ReviewErrors(pub Vec<String>);

/// What a one-file review produced: the edit, and the decisions of rows of
/// another document type, which that file does not take.
#[derive(Debug, Clone, PartialEq)]
pub struct OneIndexReview {
    pub result: ReviewResult,
    /// One line per decision not written, each naming its row and why.
    pub unwritable: Vec<String>,
}

/// Reads the decisions of `csv_path` and applies those of rows of the
/// index's document type to the text of `index_path` in memory (nothing is
/// written). A report without a `doc_type` column gives every row.
pub fn review(csv_path: &Path, index_path: &Path) -> Result<OneIndexReview> {
    review_as(csv_path, index_path, None)
}

/// [`review`], with the rows of documents that fit no index (`unknown`)
/// taken as documents of `as_type`, which must be the index's type: the
/// review loop of a new family, whose first batch was typed `unknown`.
pub fn review_as(
    csv_path: &Path,
    index_path: &Path,
    as_type: Option<&str>,
) -> Result<OneIndexReview> {
    let original = crate::index::load::read_index_file(index_path)?;
    let problems = check_index_text(index_path, &original);
    if !problems.is_empty() {
        anyhow::bail!(
            "{} must be valid before review edits it (see `kgroute index check`):\n  {}",
            index_path.display(),
            problems.join("\n  ")
        );
    }
    // The type an overlay has is its base's.
    let doc_type =
        crate::index::GraphabilityIndex::load(&[index_path.to_path_buf()])?.document_type;
    // Every problem is reported at once: bad cells, conflicts, and
    // decisions that cannot be applied.
    let bases = load_bases(index_path, &IndexText::new(&original))?;
    let (mut decisions, mut errors) = read_decisions(csv_path)?;
    if let Some(t) = as_type {
        if t != doc_type {
            anyhow::bail!(
                "--doc-type {t}: {} is an index of `{doc_type}`; give the index of `{t}` (or draft one: kgroute index draft --doc-type {t} --from BATCH --out FILE)",
                index_path.display()
            );
        }
    }
    for d in &mut decisions {
        d.doc_type.get_or_insert_with(|| doc_type.clone());
        rows::take_unknown_as(d, as_type);
    }
    let decisions = decision::dedupe(decisions, &mut errors);
    let files = std::collections::BTreeMap::from([(doc_type.clone(), index_path.to_path_buf())]);
    let mut sorted = rows::sort_rows(decisions, &files, |_, ty| {
        format!(
            "its doc_type `{ty}` is not the type of {} (`{doc_type}`); review it with the index of `{ty}`, or with the folder of indices (--index DIR)",
            index_path.display()
        )
    });
    let mine = sorted.by_type.remove(&doc_type).unwrap_or_default();
    let result = apply_decisions(&original, &bases, &mine);
    let result = match result {
        Ok(r) if errors.is_empty() => r,
        Ok(_) => return Err(ReviewErrors(errors).into()),
        Err(more) => {
            errors.extend(more);
            return Err(ReviewErrors(errors).into());
        }
    };
    validate_edit(index_path, &result)?;
    Ok(OneIndexReview {
        result,
        unwritable: sorted.unwritable,
    })
}

/// Everything `kgroute index check` checks (overlays merged with their
/// bases) plus the editor's layout, on the edited text in memory.
fn validate_edit(index_path: &Path, result: &ReviewResult) -> Result<()> {
    let mut problems = check_index_text(index_path, &result.edited);
    if problems.is_empty() {
        problems.extend(
            crate::index::load::check_edited(index_path, &result.edited)
                .iter()
                .map(ToString::to_string),
        );
    }
    if !problems.is_empty() {
        anyhow::bail!(
            "the edited {} would not be a valid index; nothing was written:\n  {}",
            index_path.display(),
            problems.join("\n  ")
        );
    }
    Ok(())
}

/// The entries nearest to `wanted` (at most five, by edit distance, case
/// aside) and how many the index and its bases hold: a whole index's
/// titles on one line would hide the one that was meant.
fn entry_list(wanted: &str, text: &IndexText, bases: &[IndexText]) -> String {
    let mut titles: Vec<String> = std::iter::once(text)
        .chain(bases)
        .flat_map(|t| t.all_entries().unwrap_or_default())
        .map(|e| e.title)
        .collect();
    titles.sort();
    titles.dedup();
    let w = wanted.to_lowercase();
    let mut near: Vec<(usize, &String)> = titles
        .iter()
        .map(|t| (crate::index::check::levenshtein(&w, &t.to_lowercase()), t))
        .collect();
    near.sort();
    let shown: Vec<&str> = near.iter().take(5).map(|(_, t)| t.as_str()).collect();
    format!(
        "nearest: {} (of {} entries: the `title:` lines of the index and its bases)",
        shown.join(", "),
        titles.len()
    )
}

/// How many `extends:` levels review follows.
const MAX_EXTENDS: usize = 8;

/// The bases an overlay extends, nearest first (paths relative to the file
/// that names them).
pub fn load_bases(index_path: &Path, text: &IndexText) -> Result<Vec<IndexText>> {
    let mut bases = Vec::new();
    let mut from = index_path.to_path_buf();
    let mut next = text.extends();
    while let Some(rel) = next {
        if bases.len() == MAX_EXTENDS {
            anyhow::bail!(
                "{}: more than {MAX_EXTENDS} levels of `extends:`",
                index_path.display()
            );
        }
        let path = from.parent().unwrap_or(Path::new(".")).join(&rel);
        let base_text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "{}: cannot read its base `extends: {rel}` ({})",
                from.display(),
                path.display()
            )
        })?;
        let base = IndexText::new(&base_text);
        next = base.extends();
        bases.push(base);
        from = path;
    }
    Ok(bases)
}

/// Applies decisions, in order, to an index's text (`bases` are the files
/// it `extends:`, nearest first; empty for a base index). Returns every
/// problem (each naming its CSV row) when any decision cannot be applied.
///
/// In an overlay, an entry that lives in a base is changed the overlay way:
/// `retier` adds the title to the overlay's target tier, `alias` adds the
/// title with the new alias to the base entry's tier (aliases merge).
pub fn apply_decisions(
    index_text: &str,
    bases: &[IndexText],
    decisions: &[Decision],
) -> Result<ReviewResult, Vec<String>> {
    let mut text = IndexText::new(index_text);
    let mut names = names::Names::read(&text, bases).map_err(|e| vec![e])?;
    let mut changes = Vec::new();
    let mut notices = Vec::new();
    let mut errors = Vec::new();
    for d in decisions {
        let o = &d.origin;
        let note = format!("added by review from {} {}", d.doc_id, d.node_id);
        let step: Result<(), String> = (|| {
            // A character lost in some decoding never enters an index.
            if !matches!(d.action, Action::Ignore) && d.title.contains('\u{fffd}') {
                return Err(format!(
                    "heading `{}` holds U+FFFD, a character lost in decoding; fix the heading \
                     in the sheet (or save it again as \"CSV UTF-8\")",
                    d.heading
                ));
            }
            match &d.action {
                Action::Ignore => notices.push(format!("{o}: `{}` ignored", d.title)),
                Action::Add(tier) => {
                    if normalize_title(&d.title).is_empty() {
                        return Err(format!("heading `{}` has no words to add", d.heading));
                    }
                    if let Some((e, _)) = names.title_or_alias(&d.title) {
                        notices.push(format!(
                            "{o}: `{}` is already in the index as `{}` ({}); use retier:<tier> to move it",
                            d.title,
                            e.title,
                            e.tier.key()
                        ));
                        return Ok(());
                    }
                    text.add_entry(*tier, &d.title, &note)
                        .map_err(|e| e.to_string())?;
                    names.added(*tier, &d.title, &[]);
                    changes.push(format!("{o}: added `{}` to {}", d.title, tier.key()));
                }
                Action::Alias(entry) => {
                    let Some((target, local)) = names.entry(entry) else {
                        return Err(format!(
                            "unknown entry `{entry}` in `{}`; {}",
                            d.raw,
                            entry_list(entry, &text, bases)
                        ));
                    };
                    match names.title_or_alias(&d.title) {
                        Some((e, _)) if normalize_title(&e.title) == normalize_title(&target.title) => {
                            notices.push(format!(
                                "{o}: `{}` already names `{}`",
                                d.title, target.title
                            ));
                        }
                        Some((e, _)) => {
                            return Err(format!(
                                "`{}` already names entry `{}` ({}); it cannot also be an alias of `{}`",
                                d.title,
                                e.title,
                                e.tier.key(),
                                target.title
                            ))
                        }
                        None if local => {
                            text.add_alias(&target.title, &d.title)
                                .map_err(|e| e.to_string())?;
                            names.aliased(&target.title, &d.title);
                            changes.push(format!(
                                "{o}: `{}` is now an alias of `{}`",
                                d.title, target.title
                            ));
                        }
                        None => {
                            text.add_entry_with_aliases(target.tier, &target.title, &[&d.title], &note)
                                .map_err(|e| e.to_string())?;
                            names.added(target.tier, &target.title, &[&d.title]);
                            changes.push(format!(
                                "{o}: `{}` is now an alias of the base entry `{}` (overlay entry)",
                                d.title, target.title
                            ));
                        }
                    }
                }
                Action::Retier(tier) => {
                    let Some(entry) = &d.matched_entry else {
                        return Err(format!(
                            "`{}` on a section with no matched_entry (a new section); use add:<tier>",
                            d.raw
                        ));
                    };
                    let Some((found, local)) = names.entry(entry) else {
                        return Err(format!(
                            "matched entry `{entry}` is not in this index; {}",
                            entry_list(entry, &text, bases)
                        ));
                    };
                    if found.tier == *tier {
                        notices.push(format!("{o}: `{}` is already {}", found.title, tier.key()));
                        return Ok(());
                    }
                    if local {
                        text.retier(&found.title, *tier)
                            .map_err(|e| e.to_string())?;
                        names.retiered(&found.title, *tier);
                    } else {
                        let note = format!("retiered by review from {} {}", d.doc_id, d.node_id);
                        text.add_entry(*tier, &found.title, &note)
                            .map_err(|e| e.to_string())?;
                        names.added(*tier, &found.title, &[]);
                    }
                    changes.push(format!(
                        "{o}: moved `{}` from {} to {}",
                        found.title,
                        found.tier.key(),
                        tier.key()
                    ));
                }
            }
            Ok(())
        })();
        if let Err(msg) = step {
            errors.push(format!("{o}: {msg}"));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let old_version = text.version();
    let mut new_version = old_version.clone();
    if text.render() != index_text {
        new_version = Some(text.bump_version());
    }
    Ok(ReviewResult {
        original: index_text.to_string(),
        edited: text.render(),
        changes,
        notices,
        old_version,
        new_version,
    })
}

/// Validates the edited index in memory and, only when it is valid, writes
/// it in place (temporary file + rename): a failed review never leaves a
/// broken index on disk.
pub fn write_index(index_path: &Path, result: &ReviewResult) -> Result<()> {
    validate_edit(index_path, result)?;
    unchanged_since_read(index_path, result)?;
    crate::atomic_file::write_atomic(index_path, result.edited.as_bytes())
}

/// Compare-and-swap: the file must still hold the text the edit was made
/// from (an editor or a run without the lock may have written it since);
/// otherwise the write is refused rather than losing that change.
pub fn unchanged_since_read(index_path: &Path, result: &ReviewResult) -> Result<()> {
    let now = std::fs::read_to_string(index_path).unwrap_or_default();
    if now != result.original {
        anyhow::bail!(
            "{}: changed since this review read it (version {} when read); nothing written, run the review again",
            index_path.display(),
            result.old_version.as_deref().unwrap_or("(none)")
        );
    }
    Ok(())
}
