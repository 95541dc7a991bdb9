//! `summary.json` and `summary.md`: per document and for the batch, how well
//! the index predicted (alignment), how much text the LLM was spared
//! (payload cut), what it cost, what failed, and what the audit sample of
//! skipped sections found (the silent-loss rate).
//!
//! Percentages of alignment (perfect, deviation, mismatch, new) are over the
//! *aligned* sections: every section except noise and empty ones, as in the
//! article (Emerson: 66 perfect + 29 new = 95 sections). Payload cut is
//! `100 * (total - sent) / total` over the characters of all sections.

use super::{BatchReport, MatchQuality, SectionView};
use crate::extract::SectionStatus;
use crate::index::Tier;
use crate::route::{Override, Route};
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Counts and rates for one document or a whole batch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub sections: usize,
    /// Sections in the alignment statistics (not noise, not empty).
    pub aligned_sections: usize,
    pub perfect: usize,
    pub deviations: usize,
    pub mismatches: usize,
    pub new_sections: usize,
    pub not_scanned: usize,
    pub noise: usize,
    pub empty: usize,
    pub perfect_pct: f64,
    pub deviation_pct: f64,
    pub mismatch_pct: f64,
    pub new_pct: f64,
    pub chars_total: usize,
    /// Characters of sections routed to the LLM.
    pub chars_sent: usize,
    /// Characters of sections skipped by prediction (Low / Very Low).
    pub chars_skipped: usize,
    pub chars_noise: usize,
    pub chars_empty: usize,
    pub payload_cut_pct: f64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost_usd: f64,
    pub failed_sections: usize,
    /// Skipped-by-prediction sections sent anyway by the audit sample and
    /// answered.
    pub audited: usize,
    /// Of those, how many turned out Medium or better (would have been lost).
    pub audited_medium_plus: usize,
    /// `100 * audited_medium_plus / audited`; `None` without an audit.
    pub silent_loss_pct: Option<f64>,
}

fn pct(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

impl Stats {
    fn add_section(&mut self, v: &SectionView<'_>) {
        let s = v.section;
        self.sections += 1;
        self.chars_total += s.chars;
        match s.route {
            Route::Llm => self.chars_sent += s.chars,
            Route::Skip => self.chars_skipped += s.chars,
            Route::Noise => self.chars_noise += s.chars,
            Route::Empty => self.chars_empty += s.chars,
        }
        match v.quality {
            MatchQuality::Perfect => self.perfect += 1,
            MatchQuality::Deviation => self.deviations += 1,
            MatchQuality::Mismatch => self.mismatches += 1,
            MatchQuality::New => self.new_sections += 1,
            MatchQuality::NotScanned => self.not_scanned += 1,
            // Counted by status below, as `failed_sections`.
            MatchQuality::Failed => {}
            MatchQuality::Noise => self.noise += 1,
            MatchQuality::Empty => self.empty += 1,
        }
        if v.quality.is_aligned_section() {
            self.aligned_sections += 1;
        }
        if let Some(e) = v.extraction {
            self.tokens_in += e.tokens_in;
            self.tokens_out += e.tokens_out;
            match &e.status {
                SectionStatus::Failed(_) => self.failed_sections += 1,
                _ if s.override_reason == Override::Audit => {
                    self.audited += 1;
                    if e.actual_tier.is_sent() {
                        self.audited_medium_plus += 1;
                    }
                }
                _ => {}
            }
        }
    }

    fn merge(&mut self, o: &Stats) {
        self.sections += o.sections;
        self.aligned_sections += o.aligned_sections;
        self.perfect += o.perfect;
        self.deviations += o.deviations;
        self.mismatches += o.mismatches;
        self.new_sections += o.new_sections;
        self.not_scanned += o.not_scanned;
        self.noise += o.noise;
        self.empty += o.empty;
        self.chars_total += o.chars_total;
        self.chars_sent += o.chars_sent;
        self.chars_skipped += o.chars_skipped;
        self.chars_noise += o.chars_noise;
        self.chars_empty += o.chars_empty;
        self.tokens_in += o.tokens_in;
        self.tokens_out += o.tokens_out;
        self.failed_sections += o.failed_sections;
        self.audited += o.audited;
        self.audited_medium_plus += o.audited_medium_plus;
    }

    /// Computes the rates and the cost from the counts.
    fn finish(&mut self, input_per_million: f64, output_per_million: f64) {
        let n = self.aligned_sections;
        self.perfect_pct = pct(self.perfect, n);
        self.deviation_pct = pct(self.deviations, n);
        self.mismatch_pct = pct(self.mismatches, n);
        self.new_pct = pct(self.new_sections, n);
        self.payload_cut_pct = pct(self.chars_total - self.chars_sent, self.chars_total);
        self.cost_usd = self.tokens_in as f64 / 1e6 * input_per_million
            + self.tokens_out as f64 / 1e6 * output_per_million;
        self.silent_loss_pct =
            (self.audited > 0).then(|| pct(self.audited_medium_plus, self.audited));
    }
}

/// One document's summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocSummary {
    pub doc_id: String,
    pub doc_name: String,
    pub path: PathBuf,
    /// The whole-document failure, if any.
    pub error: Option<String>,
    pub stats: Stats,
}

/// The batch's summary: what `summary.json` holds and history records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchSummary {
    pub batch_id: String,
    /// RFC 3339, UTC.
    pub finished_at: String,
    pub index_version: String,
    pub extractor: String,
    pub sink: String,
    pub documents: usize,
    pub failed_documents: usize,
    pub totals: Stats,
    pub per_document: Vec<DocSummary>,
}

impl BatchSummary {
    /// True when a document or a section failed (exit code 1).
    pub fn has_failures(&self) -> bool {
        self.failed_documents > 0 || self.totals.failed_sections > 0
    }

    /// One line for the end of `kgroute ingest`.
    pub fn headline(&self) -> String {
        let t = &self.totals;
        format!(
            "batch {}: {} documents ({} failed), {} sections ({} failed), perfect {:.1}%, mismatches {:.1}%, new {:.1}%, LLM payload cut {:.1}%, {} tokens, ${:.4}",
            self.batch_id,
            self.documents,
            self.failed_documents,
            t.sections,
            t.failed_sections,
            t.perfect_pct,
            t.mismatch_pct,
            t.new_pct,
            t.payload_cut_pct,
            t.tokens_in + t.tokens_out,
            t.cost_usd
        )
    }
}

/// Computes the per-document and batch statistics.
pub fn summarize(batch: &BatchReport) -> BatchSummary {
    let (pin, pout) = (batch.input_per_million, batch.output_per_million);
    let mut totals = Stats::default();
    let mut per_document = Vec::new();
    for doc in &batch.documents {
        let mut stats = Stats::default();
        for v in doc.sections() {
            stats.add_section(&v);
        }
        totals.merge(&stats);
        stats.finish(pin, pout);
        per_document.push(DocSummary {
            doc_id: doc.doc_id.clone(),
            doc_name: doc.doc_name.clone(),
            path: doc.path.clone(),
            error: doc.error.clone(),
            stats,
        });
    }
    totals.finish(pin, pout);
    BatchSummary {
        batch_id: batch.batch_id.clone(),
        finished_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        index_version: batch.index_version.clone(),
        extractor: batch.extractor.clone(),
        sink: batch.sink.clone(),
        documents: batch.documents.len(),
        failed_documents: per_document.iter().filter(|d| d.error.is_some()).count(),
        totals,
        per_document,
    }
}

pub fn write_summary_json(path: &Path, summary: &BatchSummary) -> anyhow::Result<()> {
    let mut json = serde_json::to_vec_pretty(summary)?;
    json.push(b'\n');
    crate::atomic_file::write_atomic(path, &json)
        .with_context(|| format!("writing {}", path.display()))
}

/// Escapes a cell of a Markdown table.
fn md(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn tier_label(t: Option<Tier>) -> String {
    t.map(|t| t.to_string()).unwrap_or_else(|| "-".into())
}

/// How many example extractions `summary.md` shows per actual tier.
const EXAMPLES_PER_TIER: usize = 3;

/// Renders `summary.md`: batch totals, one table per document in the
/// article's columns, and a few example extractions per actual tier.
pub fn render_summary_md(batch: &BatchReport, summary: &BatchSummary) -> String {
    let t = &summary.totals;
    let mut out = String::new();
    let _ = writeln!(out, "# kgroute batch {}\n", md(&summary.batch_id));
    let _ = writeln!(
        out,
        "Index version {} - extractor `{}` - sink `{}` - finished {}\n",
        md(&summary.index_version),
        md(&summary.extractor),
        md(&summary.sink),
        summary.finished_at
    );
    out.push_str("## Batch\n\n");
    out.push_str("| document | sections | perfect alignment | deviations | mismatches | new sections | chars total | chars sent | chars skipped | LLM payload cut | tokens in/out | cost | failures |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    let line = |name: &str, s: &Stats, failure: &str| {
        format!(
            "| {} | {} | {} ({:.1}%) | {} | {} ({:.1}%) | {} ({:.1}%) | {} | {} | {} | {:.2}% | {}/{} | ${:.4} | {} |\n",
            md(name),
            s.sections,
            s.perfect,
            s.perfect_pct,
            s.deviations,
            s.mismatches,
            s.mismatch_pct,
            s.new_sections,
            s.new_pct,
            s.chars_total,
            s.chars_sent,
            s.chars_skipped,
            s.payload_cut_pct,
            s.tokens_in,
            s.tokens_out,
            s.cost_usd,
            md(failure),
        )
    };
    for d in &summary.per_document {
        let failure = match &d.error {
            Some(e) => format!("document failed: {e}"),
            None if d.stats.failed_sections > 0 => {
                format!("{} sections failed", d.stats.failed_sections)
            }
            None => String::new(),
        };
        out.push_str(&line(&d.doc_name, &d.stats, &failure));
    }
    let failure = format!(
        "{} documents, {} sections failed",
        summary.failed_documents, t.failed_sections
    );
    out.push_str(&line("**batch**", t, &failure));
    out.push('\n');
    match t.silent_loss_pct {
        Some(p) => {
            let _ = writeln!(
                out,
                "Audit: {} skipped sections sampled, {} turned out Medium or better (silent-loss rate {:.1}%).\n",
                t.audited, t.audited_medium_plus, p
            );
        }
        None => out.push_str("Audit: no skipped section was sampled (`--audit-rate 0`).\n\n"),
    }

    for doc in &batch.documents {
        let _ = writeln!(out, "## {} ({})\n", md(&doc.doc_name), md(&doc.doc_id));
        if let Some(e) = &doc.error {
            let _ = writeln!(out, "Failed: {}\n", md(e));
        }
        let views = doc.sections();
        if views.is_empty() {
            continue;
        }
        out.push_str("| Node ID | Section Heading | Chars | Entities | Relations | Actual Rating | Predicted Rating | Match Quality |\n");
        out.push_str("|---|---|---:|---:|---:|---|---|---|\n");
        for v in &views {
            let s = v.section;
            let (ents, rels) = v
                .extraction
                .map(|e| (e.entities.len().to_string(), e.relations.len().to_string()))
                .unwrap_or_else(|| ("-".into(), "-".into()));
            let predicted = match (&s.predicted_tier, &s.matched.entry) {
                (Some(t), Some(entry)) => format!("{t} ({})", md(entry)),
                (Some(t), None) => t.to_string(),
                (None, _) => "-".into(),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                s.node_id,
                md(&s.title),
                s.chars,
                ents,
                rels,
                tier_label(super::quality::actual_tier(v.extraction)),
                predicted,
                v.quality
            );
        }
        out.push('\n');
    }

    out.push_str("## Example extractions by actual tier\n\n");
    for tier in Tier::ALL {
        let examples: Vec<String> = batch
            .documents
            .iter()
            .flat_map(|d| d.sections())
            .filter(|v| super::quality::actual_tier(v.extraction) == Some(tier))
            .flat_map(|v| {
                let e = v.extraction.expect("has an actual tier");
                e.relations.first().map(|r| {
                    format!(
                        "- `[{}]-({})->[{}]` ({}, {})",
                        r.source,
                        r.relation_type,
                        r.target,
                        md(&v.section.title),
                        v.doc_id
                    )
                })
            })
            .take(EXAMPLES_PER_TIER)
            .collect();
        if examples.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### {tier}\n");
        for e in examples {
            out.push_str(&e);
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

pub fn write_summary_md(
    path: &Path,
    batch: &BatchReport,
    summary: &BatchSummary,
) -> anyhow::Result<()> {
    let text = render_summary_md(batch, summary);
    crate::atomic_file::write_atomic(path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}
