//! Report stage: the mismatch CSV, summaries, suggestions and history that
//! reviewers use to refine the index between batches.
//!
//! Takes what the pipeline learned about each document of a batch (its
//! [`RoutePlan`] and [`SectionExtraction`]s) and writes, into one folder:
//! `sections.csv` (one row per section, with an empty `decision` column for
//! `kgroute review`), `sections.xlsx` (the same rows with filters and a
//! drop-down of valid decisions), `summary.md` / `summary.json` (alignment, payload cut,
//! cost, audit) and `suggestions.yaml` (candidate index entries). The batch's
//! headline numbers go to `reports/history.csv` through [`record_history`].

pub mod families;
pub mod heading;
pub mod history;
pub mod quality;
pub mod sanitize;
pub mod sections_csv;
pub mod sections_xlsx;
pub mod stream;
pub mod suggestions;
pub mod summary;

pub use heading::{display_heading, display_title};
pub use history::{read_history, record_history, HistoryRow};
pub use quality::MatchQuality;
pub use sanitize::sanitize_title;
pub use summary::{BatchSummary, DocSummary};

use crate::extract::SectionExtraction;
use crate::index::GraphabilityIndex;
use crate::route::{RoutePlan, RoutedSection};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What the pipeline knows about one document at the end of a batch.
#[derive(Debug, Clone)]
pub struct DocumentOutcome {
    pub doc_id: String,
    pub doc_name: String,
    pub path: PathBuf,
    /// `None` when the document failed before routing (unreadable, no text).
    pub plan: Option<RoutePlan>,
    /// One per section that was sent (or answered from cache), matched to
    /// the plan by `node_id`.
    pub extractions: Vec<SectionExtraction>,
    /// The rules over the sections the router did not send (skipped by
    /// prediction, noise): their facts are in the graph with source
    /// `rules`, counted apart in the summary.
    pub rules_on_skipped: Vec<SectionExtraction>,
    /// The LLM title mapping's request and tokens (counted apart from
    /// extraction in the summary).
    pub title_mapping: crate::index::llm_titles::TitleMappingUse,
    /// A whole-document failure, when there was one.
    pub error: Option<String>,
    /// Its extraction requests as counted before sending
    /// ([`crate::extract::bill`]); zero offline and for older saves.
    pub planned: crate::route::cost::RequestBill,
}

/// One index a batch was run with: the type it routes, where it was loaded
/// from, its version and size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexUsed {
    /// Its `document_type`: the documents of that type were routed with it.
    pub doc_type: String,
    /// The file named (`--index FILE`, or the folder's file of the type);
    /// the last of `files`.
    pub path: PathBuf,
    /// Every file it was loaded from, bases first.
    pub files: Vec<PathBuf>,
    pub version: String,
    pub entries: usize,
}

impl IndexUsed {
    pub fn of(index: &GraphabilityIndex) -> IndexUsed {
        IndexUsed {
            doc_type: index.document_type.clone(),
            path: index.sources.last().cloned().unwrap_or_default(),
            files: index.sources.clone(),
            version: index.version.clone(),
            entries: index.entries().len(),
        }
    }
}

/// The index a document of `doc_type` was routed with: the first of that
/// type, as the pipeline picks it (`None` for a document that fits none).
pub fn index_of<'a>(indices: &'a [IndexUsed], doc_type: &str) -> Option<&'a IndexUsed> {
    indices.iter().find(|i| i.doc_type == doc_type)
}

/// Everything the report stage needs about a finished batch.
#[derive(Debug, Clone)]
pub struct BatchReport {
    pub batch_id: String,
    /// The primary index's `version:` (base and overlays, as the pipeline
    /// names it); `indices` has every index of the batch.
    pub index_version: String,
    /// Every index the batch was run with, one per document type.
    pub indices: Vec<IndexUsed>,
    pub documents: Vec<DocumentOutcome>,
    /// USD per million input tokens (0 for the offline extractor).
    pub input_per_million: f64,
    /// USD per million output tokens.
    pub output_per_million: f64,
    /// `rules` or `llm:<model>`.
    pub extractor: String,
    /// `neo4j:<uri>` or `files:<dir>`.
    pub sink: String,
    /// Titles of the index's entries (base and overlays), offered as
    /// `alias:<entry>` in the decision drop-down of `sections.xlsx`.
    pub index_entries: Vec<String>,
}

/// One section of the plan joined with its extraction (if it had one).
#[derive(Debug, Clone, Copy)]
pub struct SectionView<'a> {
    pub doc_id: &'a str,
    /// The document's type and the confidence of its detection.
    pub doc_type: &'a str,
    pub doc_type_confidence: f64,
    pub section: &'a RoutedSection,
    pub extraction: Option<&'a SectionExtraction>,
    pub quality: MatchQuality,
}

impl DocumentOutcome {
    /// The document's sections in plan order, each with its extraction and
    /// match quality. Empty when the document has no plan.
    pub fn sections(&self) -> Vec<SectionView<'_>> {
        let Some(plan) = &self.plan else {
            return Vec::new();
        };
        let by_node: HashMap<&str, &SectionExtraction> = self
            .extractions
            .iter()
            .map(|e| (e.node_id.as_str(), e))
            .collect();
        plan.sections
            .iter()
            .map(|s| {
                let extraction = by_node.get(s.node_id.as_str()).copied();
                SectionView {
                    doc_id: &self.doc_id,
                    doc_type: &plan.doc_type,
                    doc_type_confidence: plan.doc_type_confidence,
                    section: s,
                    extraction,
                    quality: quality::classify(s, extraction),
                }
            })
            .collect()
    }
}

/// Names of the files [`write_batch_reports`] writes into its folder.
pub const SECTIONS_CSV: &str = "sections.csv";
pub const SECTIONS_XLSX: &str = "sections.xlsx";
pub const SUMMARY_MD: &str = "summary.md";
pub const SUMMARY_JSON: &str = "summary.json";
pub const SUGGESTIONS_YAML: &str = "suggestions.yaml";

/// Writes `sections.csv`, `sections.xlsx`, `summary.md`, `summary.json` and
/// `suggestions.yaml` into `out_dir` (created if missing) and returns the
/// batch summary (for [`record_history`] and the command's last line).
/// A file that cannot be written fails the call after the others are.
pub fn write_batch_reports(out_dir: &Path, batch: &BatchReport) -> anyhow::Result<BatchSummary> {
    let mut stream = stream::ReportStream::create(out_dir, batch, sections_xlsx::MAX_SHEET_ROWS)?;
    for doc in &batch.documents {
        stream.add(batch, doc);
    }
    let (summary, failures) = stream.finish(batch);
    stream::joined(failures)?;
    Ok(summary)
}

#[cfg(test)]
pub(crate) mod testdata;
