//! `kgroute index learn --index YAML --from BATCH...`: learns a family's
//! own paragraph model from its batches and, with `--write`, keeps it
//! beside the family's index, where routing by content reads it (see
//! [`crate::review::learn`]).

use super::Outcome;
use crate::clause_model::learned;
use crate::index::GraphabilityIndex;
use crate::review::learn;
use anyhow::Context;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Examples:
  kgroute ingest leases/ --calibrate --out reports/leases-1
  kgroute index learn --index indices/lease.yaml --from reports/leases-1
  kgroute index learn --index indices/lease.yaml --from reports/leases-1 reports/leases-2 --write

Learns, from the documents of the index's type in the batches, which
paragraphs hold a relation worth extracting: a paragraph of a section the
extractor read whole holds one when a relation's evidence lies in it
(cross-references aside, in sections that earned Medium or more), and a
paragraph decided in indices/<type>.paragraphs.tsv (`kgroute review
paragraphs.csv --write`) is what the reviewer said. A calibrated batch
reads every section whole and teaches most.

The thresholds are chosen on documents the model did not learn from (folds
by document), and the figures printed are measured there: how much of the
relations titles alone keep and cut, and titles with the model.

Without --write nothing is written. With it, the model goes beside the
index (indices/lease.yaml -> indices/lease.model.tsv), the one it replaces
kept as FILE.bak (.bak.2, ... when an earlier copy is there). Every later
plan and ingest of the family routes paragraphs by it, in place of the
shipped model; a batch begun before refuses to resume. Remove the file to
go back. Exit 0 learned, 2 refused (too few documents or relations).";

/// Arguments of `kgroute index learn`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct IndexLearnArgs {
    /// The family's index: its document_type picks the documents, its
    /// reviewed paragraphs label theirs, and the model is kept beside it.
    #[arg(long, value_name = "YAML")]
    pub index: PathBuf,
    /// Batch folders written by `kgroute ingest` (repeatable); calibrated
    /// ones (`--calibrate`) teach most.
    #[arg(long = "from", value_name = "BATCH", required = true, num_args = 1..)]
    pub from: Vec<PathBuf>,
    /// The share of relations the `inside` threshold keeps on documents
    /// the model did not learn from.
    #[arg(long, value_name = "SHARE", default_value_t = 0.98)]
    pub recall: f64,
    /// Keep the model beside the index (without it: a dry run).
    #[arg(long)]
    pub write: bool,
}

pub fn run(args: IndexLearnArgs) -> anyhow::Result<Outcome> {
    if args.index.is_dir() {
        anyhow::bail!(
            "--index {}: a folder; name the family's index file (indices/lease.yaml)",
            args.index.display()
        );
    }
    let index = GraphabilityIndex::load(std::slice::from_ref(&args.index))?;
    let doc_type = index.document_type.clone();
    let labels = learn::labels::read(&args.from, &doc_type, &index.reviewed)?;
    let mut err = std::io::stderr().lock();
    for u in &labels.unreadable {
        writeln!(err, "kgroute: warning: skipped {u}")?;
    }
    if labels.documents.is_empty() {
        let others: Vec<String> = labels
            .other_types
            .iter()
            .map(|(t, n)| format!("{n} {t}"))
            .collect();
        anyhow::bail!(
            "no readable document of type {doc_type} in {} (the batches hold: {})",
            names(&args.from),
            if others.is_empty() {
                "none".to_string()
            } else {
                others.join(", ")
            }
        );
    }
    // The model that routes the family today, if any: measured beside.
    let shipped =
        crate::route::content::scorer_for(&doc_type, None)?.map(|s| (s.model, s.thresholds));
    let learned = learn::learn(&labels, args.recall, shipped)?;
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    let mut out = String::new();
    writeln!(
        out,
        "{doc_type}: {} documents, {} paragraphs of {} sections read whole ({} sections not, left out); \
         {} paragraphs hold a relation, {} decided by a reviewer",
        labels.documents.len(),
        labels.paragraphs.len(),
        labels.sections_read,
        labels.sections_left,
        learned.positives,
        learned.reviewed
    )?;
    if labels.unplaced > 0 {
        writeln!(
            out,
            "  {} of {} relations have evidence found in no paragraph and teach nothing",
            labels.unplaced, labels.relations
        )?;
    }
    let rescue = if learned.thresholds.rescue.is_finite() {
        format!("{:.4}", learned.thresholds.rescue)
    } else {
        "never".to_string()
    };
    writeln!(
        out,
        "thresholds: inside {:.4} (keeps {} of the relations), rescue {rescue}",
        learned.thresholds.inside,
        pct(args.recall)
    )?;
    writeln!(
        out,
        "on documents the model did not learn from ({} folds): titles alone keep {} of the relations, cutting {} of the characters; titles and this model keep {}, cutting {}",
        learned.folds,
        pct(learned.titles.relations),
        pct(learned.titles.cut),
        pct(learned.with_model.relations),
        pct(learned.with_model.cut)
    )?;
    if let Some(k) = learned.with_shipped {
        writeln!(
            out,
            "  the shipped clause model routes {doc_type} today: titles and it keep {}, cutting {} \
             (it learned from lawyers' clause labels, not from these relations; see docs/routing.md)",
            pct(k.relations),
            pct(k.cut)
        )?;
    }
    let path = learned::path_beside(&args.index);
    if !args.write {
        writeln!(
            out,
            "dry run: nothing written; --write keeps the model as {}",
            path.display()
        )?;
        crate::stdout::line(out.trim_end());
        return Ok(Outcome::Success);
    }
    let _lock = crate::lock::Lock::for_indices(&args.index)?;
    let batches: Vec<String> = args.from.iter().map(|b| b.display().to_string()).collect();
    let text = learned::to_text(
        &learned.model,
        &learned.thresholds,
        &learn::describe(&doc_type, &batches, &labels, &learned),
    );
    let kept = if path.exists() {
        Some(crate::atomic_file::keep_copy(&path)?)
    } else {
        None
    };
    crate::atomic_file::write_atomic(&path, text.as_bytes())
        .with_context(|| format!("{}: cannot write the learned model", path.display()))?;
    write!(out, "wrote {}", path.display())?;
    if let Some(k) = kept {
        write!(out, " (the model it replaces kept as {})", k.display())?;
    }
    writeln!(out)?;
    crate::stdout::line(out.trim_end());
    Ok(Outcome::Success)
}

fn names(batches: &[PathBuf]) -> String {
    batches
        .iter()
        .map(|b| b.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
