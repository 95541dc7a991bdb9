//! `summary.json` and `summary.md`: per document and for the batch, how well
//! the index predicted (alignment), how much text the LLM was spared
//! (payload cut), what it cost, what failed, and what the audit sample of
//! skipped sections found (the silent-loss rate).
//!
//! Every number of `summary.md` can be reconciled from the file itself:
//! each row of the batch table adds up (`sections = sent + skipped + noise +
//! empty`), each share names its denominator (`8 of 38 (21.1%)`), and the
//! alignment classes add up to the aligned sections (every section except
//! noise and empty ones, as in the article: Emerson 66 perfect + 29 new = 95).
//!
//! Sections that the `--audit-rate` sample sent although the index said skip
//! are counted apart (`audit_sampled`), not in perfect / deviation /
//! mismatch: without the sample they would be `not_scanned`, so sampling
//! more never moves the alignment shares. Payload cut is
//! `100 * (total - sent) / total` over the characters of all sections.

use super::{index_of, BatchReport, IndexUsed, MatchQuality, SectionView};
use crate::extract::SectionStatus;
use crate::index::llm_titles::TitleMappingUse;
use crate::index::Tier;
use crate::route::{Override, Route};
use crate::tree::TreeHealth;
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
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
    /// Sections routed to the LLM (answered, cached or failed).
    pub sent: usize,
    /// Sections skipped by prediction (Low / Very Low, not sampled).
    pub skipped: usize,
    /// Aligned sections sent only because the audit sample picked them; out
    /// of perfect / deviations / mismatches (see the module comment).
    pub audit_sampled: usize,
    /// Of those, how their actual tier compared with the prediction.
    pub audit_perfect: usize,
    pub audit_deviations: usize,
    pub audit_mismatches: usize,
    /// Sections sent because of `--calibrate` (`override_reason` calibrate).
    pub calibrated: usize,
    /// Routing by content: characters of sections their titles send that
    /// were left out, and of sections their titles skip that were sent.
    #[serde(default)]
    pub chars_skipped_by_content: usize,
    #[serde(default)]
    pub chars_sent_by_content: usize,
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
    /// Of `tokens_in`, what the server read from its prompt cache, where
    /// it says (billed at its cached rate by hosted APIs).
    #[serde(default)]
    pub tokens_cached: u64,
    /// The extraction requests counted before sending, the way `kgroute
    /// plan` counts them ([`crate::extract::bill`]): `tokens_in` held
    /// against `planned.input_tokens` says how far the plan was off.
    #[serde(default)]
    pub planned: crate::route::cost::RequestBill,
    pub cost_usd: f64,
    pub failed_sections: usize,
    /// Skipped-by-prediction sections sent anyway by the audit sample and
    /// answered.
    pub audited: usize,
    /// Of those, how many turned out Medium or better (would have been lost).
    pub audited_medium_plus: usize,
    /// `100 * audited_medium_plus / audited`; `None` without an audit.
    pub silent_loss_pct: Option<f64>,
    /// The LLM title mapping, counted apart from extraction (its tokens
    /// are not in `tokens_in`/`tokens_out`, its cost not in `cost_usd`).
    #[serde(default)]
    pub title_mapping: TitleMappingStats,
    /// What the rules found, free, in the sections the router did not send
    /// (skipped by prediction, noise); apart from the extraction figures.
    #[serde(default)]
    pub rules_on_skipped: RulesOnSkipped,
    /// Relation ends of the extracted sections that were not listed as
    /// entities: added as entities, or their relation pruned.
    #[serde(default)]
    pub relation_ends: RelationEnds,
    /// Relations pruned after extraction, by the kind of their reason.
    #[serde(default)]
    pub relations_pruned: PrunedByReason,
}

/// Relation ends an extractor named without listing them as entities
/// ([`crate::extract::validate::prune_in_section`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelationEnds {
    /// Entities added for them (found in the section's text or the party
    /// registry): their relations were kept.
    pub added: usize,
    /// Relations pruned because an end was neither.
    pub relations_pruned: usize,
}

/// Relations pruned, by the kind of their reason
/// ([`crate::extract::validate::reason_kind`]: `pattern`, `evidence`,
/// `verifier`, `end not an entity`, ...).
pub type PrunedByReason = std::collections::BTreeMap<String, usize>;

/// The rules over sections not sent: how many were read, and the entities
/// and relations they gave (before the graph's deduplication).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RulesOnSkipped {
    pub sections: usize,
    /// Of those, the sections that gave at least one entity or relation.
    pub sections_with_facts: usize,
    pub entities: usize,
    pub relations: usize,
}

impl RulesOnSkipped {
    fn add(&mut self, e: &crate::extract::SectionExtraction) {
        self.sections += 1;
        self.sections_with_facts += usize::from(!e.entities.is_empty() || !e.relations.is_empty());
        self.entities += e.entities.len();
        self.relations += e.relations.len();
    }

    fn merge(&mut self, o: &RulesOnSkipped) {
        self.sections += o.sections;
        self.sections_with_facts += o.sections_with_facts;
        self.entities += o.entities;
        self.relations += o.relations;
    }
}

/// The LLM title mapping of one document or a batch: at most one request
/// per document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TitleMappingStats {
    /// Distinct unmatched titles asked about.
    pub titles_asked: usize,
    /// Sections routed by the entry the answer named (method `llm`).
    pub sections_mapped: usize,
    /// Requests sent.
    pub calls: u64,
    /// Answers taken from the cache.
    pub cache_hits: u64,
    /// Documents whose mapping failed (their titles stayed new).
    pub failed: usize,
    /// Documents not asked: the question would have cost more than the
    /// text its answer could route away.
    #[serde(default)]
    pub not_asked: usize,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost_usd: f64,
}

impl TitleMappingStats {
    fn add(&mut self, u: &TitleMappingUse) {
        self.titles_asked += u.asked;
        self.sections_mapped += u.mapped;
        self.calls += u.calls;
        self.cache_hits += u.cache_hits;
        self.failed += usize::from(u.error.is_some());
        self.not_asked += usize::from(u.not_asked.is_some());
        self.tokens_in += u.tokens_in;
        self.tokens_out += u.tokens_out;
    }

    fn merge(&mut self, o: &TitleMappingStats) {
        self.titles_asked += o.titles_asked;
        self.sections_mapped += o.sections_mapped;
        self.calls += o.calls;
        self.cache_hits += o.cache_hits;
        self.failed += o.failed;
        self.not_asked += o.not_asked;
        self.tokens_in += o.tokens_in;
        self.tokens_out += o.tokens_out;
    }
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
            Route::Llm => {
                self.sent += 1;
                self.chars_sent += s.sent_chars();
                self.chars_skipped += s.chars - s.sent_chars();
            }
            Route::Skip => {
                self.skipped += 1;
                self.chars_skipped += s.chars;
            }
            Route::Noise => self.chars_noise += s.chars,
            Route::Empty => self.chars_empty += s.chars,
        }
        if s.override_reason == Override::Calibrate {
            self.calibrated += 1;
        }
        match (s.route, s.override_reason) {
            (Route::Llm, Override::Content) => self.chars_sent_by_content += s.sent_chars(),
            (Route::Llm, _) => self.chars_skipped_by_content += s.chars - s.sent_chars(),
            (_, Override::Content) => self.chars_skipped_by_content += s.chars,
            _ => {}
        }
        let sampled = s.override_reason == Override::Audit && v.quality.is_aligned_section();
        if sampled {
            self.audit_sampled += 1;
        }
        match v.quality {
            MatchQuality::Perfect if sampled => self.audit_perfect += 1,
            MatchQuality::Deviation if sampled => self.audit_deviations += 1,
            MatchQuality::Mismatch if sampled => self.audit_mismatches += 1,
            _ if sampled => {}
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
            self.relation_ends.added += e.ends_added.len();
            self.relation_ends.relations_pruned += e
                .pruned
                .iter()
                .filter(|p| {
                    p.item == "relation"
                        && p.reason.ends_with(crate::extract::validate::NOT_AN_ENTITY)
                })
                .count();
            for p in e.pruned.iter().filter(|p| p.item == "relation") {
                *self
                    .relations_pruned
                    .entry(crate::extract::validate::reason_kind(&p.reason).to_string())
                    .or_default() += 1;
            }
            self.tokens_in += e.tokens_in;
            self.tokens_out += e.tokens_out;
            self.tokens_cached += e.tokens_cached;
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
        self.sent += o.sent;
        self.skipped += o.skipped;
        self.audit_sampled += o.audit_sampled;
        self.audit_perfect += o.audit_perfect;
        self.audit_deviations += o.audit_deviations;
        self.audit_mismatches += o.audit_mismatches;
        self.calibrated += o.calibrated;
        self.chars_skipped_by_content += o.chars_skipped_by_content;
        self.chars_sent_by_content += o.chars_sent_by_content;
        self.chars_total += o.chars_total;
        self.chars_sent += o.chars_sent;
        self.chars_skipped += o.chars_skipped;
        self.chars_noise += o.chars_noise;
        self.chars_empty += o.chars_empty;
        self.tokens_in += o.tokens_in;
        self.tokens_out += o.tokens_out;
        self.tokens_cached += o.tokens_cached;
        self.planned.add(&o.planned);
        self.failed_sections += o.failed_sections;
        self.audited += o.audited;
        self.audited_medium_plus += o.audited_medium_plus;
        self.title_mapping.merge(&o.title_mapping);
        self.rules_on_skipped.merge(&o.rules_on_skipped);
        self.relation_ends.added += o.relation_ends.added;
        self.relation_ends.relations_pruned += o.relation_ends.relations_pruned;
        for (k, n) in &o.relations_pruned {
            *self.relations_pruned.entry(k.clone()).or_default() += n;
        }
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
        let m = &mut self.title_mapping;
        m.cost_usd = m.tokens_in as f64 / 1e6 * input_per_million
            + m.tokens_out as f64 / 1e6 * output_per_million;
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
    /// Why the LLM title mapping left the titles unmatched, if it failed.
    #[serde(default)]
    pub title_mapping_error: Option<String>,
    /// The detected (or `--doc-type` forced) type; empty when the document
    /// failed before routing.
    #[serde(default)]
    pub doc_type: String,
    #[serde(default)]
    pub doc_type_confidence: f64,
    /// The tree's structure figures (`None` when it failed before routing).
    #[serde(default)]
    pub tree_health: Option<TreeHealth>,
    /// The tree's warning line, when its figures look wrong.
    #[serde(default)]
    pub tree_warning: Option<String>,
    /// The index it was routed with (`None`: it fits no index, or failed
    /// before routing).
    #[serde(default)]
    pub index: Option<RoutedWith>,
    pub stats: Stats,
}

/// Which index a document was routed with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoutedWith {
    pub path: PathBuf,
    pub version: String,
}

/// One index of the batch and how many documents it routed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexSummary {
    #[serde(flatten)]
    pub index: IndexUsed,
    pub documents: usize,
}

/// The batch's summary: what `summary.json` holds and history records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchSummary {
    pub batch_id: String,
    /// RFC 3339, UTC.
    pub finished_at: String,
    /// The primary index's version (kept for older readers; `indices` has
    /// every index of the batch).
    pub index_version: String,
    /// Every index the batch was run with, with the documents each routed.
    #[serde(default)]
    pub indices: Vec<IndexSummary>,
    pub extractor: String,
    pub sink: String,
    pub documents: usize,
    pub failed_documents: usize,
    /// Routed documents per type (`unknown`: fits no index).
    #[serde(default)]
    pub doc_types: BTreeMap<String, usize>,
    pub totals: Stats,
    pub per_document: Vec<DocSummary>,
    /// How the LLM's limits were met in this run (zero offline).
    #[serde(default)]
    pub llm_limits: LlmLimits,
    /// Documents of unknown type grouped into candidate families
    /// ([`super::families`]), biggest first.
    #[serde(default)]
    pub unknown_families: Vec<super::families::UnknownFamily>,
}

/// How this run met the model's limits: answers cut at `max_tokens`,
/// requests that made no progress, pieces split in two because of either
/// or of a prompt over the context. Run-wide (a resume counts its own).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmLimits {
    pub answers_cut: u64,
    pub stalls: u64,
    pub splits: u64,
    /// Answers stopped while streaming because they repeated themselves.
    #[serde(default)]
    pub answers_repeated: u64,
    /// Cut or stopped answers of which what closed was kept.
    #[serde(default)]
    pub answers_salvaged: u64,
    /// Section requests sent (every attempt; zero when the cache answered all).
    #[serde(default)]
    pub requests: u64,
    /// Retries after a retryable transport failure.
    #[serde(default)]
    pub retries: u64,
    /// Answers sent back once for repair after failing the schema check.
    #[serde(default)]
    pub repairs: u64,
}

impl BatchSummary {
    /// True when a document or a section failed (exit code 1).
    pub fn has_failures(&self) -> bool {
        self.failed_documents > 0 || self.totals.failed_sections > 0
    }

    /// One line for the end of `kgroute ingest`; tokens and cost are the
    /// whole spend (extraction and title mapping).
    pub fn headline(&self) -> String {
        let t = &self.totals;
        let m = &t.title_mapping;
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
            t.tokens_in + t.tokens_out + m.tokens_in + m.tokens_out,
            t.cost_usd + m.cost_usd
        )
    }
}

/// Computes the per-document and batch statistics.
pub fn summarize(batch: &BatchReport) -> BatchSummary {
    let mut b = SummaryBuilder::default();
    for doc in &batch.documents {
        b.add(batch, doc);
    }
    b.finish(batch)
}

/// The batch summary folded one document at a time, as documents finish
/// ([`summarize`] over a whole report is the same fold): the counters add
/// up as they come, and each document keeps only its [`DocSummary`].
/// `batch` gives the prices and indices; its `documents` are not read.
#[derive(Debug, Default)]
pub struct SummaryBuilder {
    totals: Stats,
    per_document: Vec<DocSummary>,
}

impl SummaryBuilder {
    pub fn add(&mut self, batch: &BatchReport, doc: &super::DocumentOutcome) {
        let (pin, pout) = (batch.input_per_million, batch.output_per_million);
        let mut stats = Stats::default();
        for v in doc.sections() {
            stats.add_section(&v);
        }
        stats.title_mapping.add(&doc.title_mapping);
        stats.planned = doc.planned;
        for e in &doc.rules_on_skipped {
            stats.rules_on_skipped.add(e);
        }
        self.totals.merge(&stats);
        stats.finish(pin, pout);
        let plan = doc.plan.as_ref();
        self.per_document.push(DocSummary {
            doc_id: doc.doc_id.clone(),
            doc_name: doc.doc_name.clone(),
            path: doc.path.clone(),
            error: doc.error.clone(),
            title_mapping_error: doc.title_mapping.error.clone(),
            doc_type: plan.map(|p| p.doc_type.clone()).unwrap_or_default(),
            doc_type_confidence: plan.map_or(0.0, |p| p.doc_type_confidence),
            tree_health: plan.map(|p| p.tree_health.clone()),
            tree_warning: plan.and_then(|p| p.tree_health.warning(&doc.doc_name)),
            index: plan
                .and_then(|p| index_of(&batch.indices, &p.doc_type))
                .map(|i| RoutedWith {
                    path: i.path.clone(),
                    version: i.version.clone(),
                }),
            stats,
        });
    }

    pub fn finish(self, batch: &BatchReport) -> BatchSummary {
        let (pin, pout) = (batch.input_per_million, batch.output_per_million);
        let SummaryBuilder {
            mut totals,
            per_document,
        } = self;
        let mut doc_types = BTreeMap::new();
        for d in per_document.iter().filter(|d| d.tree_health.is_some()) {
            *doc_types.entry(d.doc_type.clone()).or_insert(0) += 1;
        }
        totals.finish(pin, pout);
        BatchSummary {
            batch_id: batch.batch_id.clone(),
            finished_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            index_version: batch.index_version.clone(),
            indices: batch
                .indices
                .iter()
                .map(|i| IndexSummary {
                    index: i.clone(),
                    documents: per_document
                        .iter()
                        .filter(|d| d.index.as_ref().is_some_and(|r| r.path == i.path))
                        .count(),
                })
                .collect(),
            extractor: batch.extractor.clone(),
            sink: batch.sink.clone(),
            documents: per_document.len(),
            failed_documents: per_document.iter().filter(|d| d.error.is_some()).count(),
            doc_types,
            totals,
            per_document,
            llm_limits: LlmLimits::default(),
            unknown_families: Vec::new(),
        }
    }
}

/// Writes `summary.json` straight to its temp file (never the whole text
/// in memory: a few KB per document), then renames it into place.
pub fn write_summary_json(path: &Path, summary: &BatchSummary) -> anyhow::Result<()> {
    use std::io::Write;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("summary.json");
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let write = || -> anyhow::Result<()> {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        serde_json::to_writer_pretty(&mut out, summary)?;
        out.write_all(b"\n")?;
        out.flush()?;
        Ok(())
    };
    write().with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
}

/// Escapes a cell of a Markdown table (control characters dropped first:
/// a heading is text, never a terminal command).
fn md(text: &str) -> String {
    super::sanitize::sanitize_title(text).replace('|', "\\|")
}

/// [`md`] for Markdown outside the tables (other modules' sections).
pub(crate) fn md_text(text: &str) -> String {
    md(text)
}

/// The `override_reason` cell of sections.csv (empty for none).
pub fn override_label(o: Override) -> &'static str {
    match o {
        Override::None => "",
        Override::Audit => "audit",
        Override::Calibrate => "calibrate",
        Override::Content => "content",
    }
}

fn tier_label(t: Option<Tier>) -> String {
    t.map(|t| t.to_string()).unwrap_or_else(|| "-".into())
}

/// How many example extractions `summary.md` shows per actual tier.
const EXAMPLES_PER_TIER: usize = 3;

/// Renders `summary.md`: batch totals, one table per document in the
/// article's columns, and a few example extractions per actual tier.
pub fn render_summary_md(batch: &BatchReport, summary: &BatchSummary) -> String {
    let mut out = render_summary_head(summary);
    for doc in &batch.documents {
        out.push_str(&render_document_md(doc));
    }
    let mut examples = TierExamples::default();
    for doc in &batch.documents {
        examples.add(doc);
    }
    out.push_str(&examples.render());
    out
}

/// What summary.md, sections.xlsx and `review` say of a batch the offline
/// rules read: their relations under-count what an LLM finds, so an actual
/// tier is a lower bound and a `retier:` taken from it may lower an entry
/// that deserves its tier.
pub fn offline_tiers_note(extractor: &str) -> Option<&'static str> {
    (extractor == crate::extract::extractor::OFFLINE_EXTRACTOR).then_some(
        "Actual tiers here come from the offline rules extractor, which finds fewer relations \
         than an LLM: an actual tier is a lower bound, and a mismatch where it is below the \
         predicted tier is no evidence that the entry is worth less. Take `retier:` decisions \
         from a batch run with an LLM.",
    )
}

/// What the server billed for extraction against what was counted before
/// sending; `None` when nothing was sent (unless verify left questions
/// out: that is said).
pub fn bill_line(t: &Stats) -> Option<String> {
    let p = &t.planned;
    if t.tokens_in == 0 && p.requests == 0 && p.questions_left_out == 0 {
        return None;
    }
    let off = if p.input_tokens > 0 {
        format!(
            " (billed/planned {:.2})",
            t.tokens_in as f64 / p.input_tokens as f64
        )
    } else {
        String::new()
    };
    if p.questions > 0 || p.extract_tokens > 0 {
        let share = p.vs_extract().map_or(String::new(), |r| {
            format!(": verify plans {:.1}% of that", 100.0 * r)
        });
        return Some(format!(
            "LLM verify: {} input tokens billed, {} of them from the server's prompt cache, {} output; \
             planned before sending: {} request(s) for {} question(s){}, ~{} input tokens{off}, of which {} the paragraphs asked about; \
             `--llm-mode extract` would send ~{} input tokens for the same documents{share}.",
            t.tokens_in,
            t.tokens_cached,
            t.tokens_out,
            p.requests,
            p.questions,
            p.left_out_phrase(),
            p.input_tokens,
            p.text_tokens,
            p.extract_tokens,
        ));
    }
    Some(format!(
        "LLM extraction: {} input tokens billed, {} of them from the server's prompt cache, {} output; \
         planned before sending: {} request(s), ~{} input tokens{off}, of which {} the sections' text; \
         the same documents sent whole: ~{} input tokens.",
        t.tokens_in,
        t.tokens_cached,
        t.tokens_out,
        p.requests,
        p.input_tokens,
        p.text_tokens,
        p.whole_document_tokens
    ))
}

/// `summary.md` before the documents: the batch's tables and counts, all
/// from the summary (so it can be written after the documents' parts).
pub fn render_summary_head(summary: &BatchSummary) -> String {
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
    if let Some(note) = offline_tiers_note(&summary.extractor) {
        let _ = writeln!(out, "> **Offline tiers.** {note}\n");
    }
    out.push_str("## Batch\n\n");
    out.push_str(
        "Each row adds up: sections = sent + skipped + noise + empty, chars total = chars sent + \
         skipped + noise + empty (every character not sent has its reason); failed counts the sent sections whose extraction failed.\n\n",
    );
    out.push_str("| document | sections | sent | skipped | noise | empty | failed (of sent) | chars total | chars sent | chars skipped | chars noise | chars empty | LLM payload cut | tokens in/out | cost | failures |\n");
    out.push_str(
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    let line = |name: &str, s: &Stats, failure: &str| {
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2}% of {} chars | {}/{} | ${:.4} | {} |\n",
            md(name),
            s.sections,
            s.sent,
            s.skipped,
            s.noise,
            s.empty,
            s.failed_sections,
            s.chars_total,
            s.chars_sent,
            s.chars_skipped,
            s.chars_noise,
            s.chars_empty,
            s.payload_cut_pct,
            s.chars_total,
            s.tokens_in,
            s.tokens_out,
            s.cost_usd,
            md(failure),
        )
    };
    let mut docs_rows = String::new();
    for d in &summary.per_document {
        let failure = match &d.error {
            Some(e) => format!("document failed: {e}"),
            None if d.stats.failed_sections > 0 => {
                format!("{} sections failed", d.stats.failed_sections)
            }
            None => String::new(),
        };
        docs_rows.push_str(&line(&d.doc_name, &d.stats, &failure));
    }
    out.push_str(&docs_rows);
    let failure = format!(
        "{} documents, {} sections failed",
        summary.failed_documents, t.failed_sections
    );
    out.push_str(&line("**batch**", t, &failure));
    out.push('\n');
    if let Some(line) = bill_line(t) {
        let _ = writeln!(out, "{line}\n");
    }
    let l = &summary.llm_limits;
    if l.answers_cut + l.stalls + l.splits + l.answers_repeated > 0 {
        let _ = writeln!(
            out,
            "Model limits this run: {} answers cut at `max_tokens`, {} stopped because they repeated themselves, {} kept as far as they closed, {} requests without progress, {} pieces split in two and asked again (never the same request; a piece at most once for a cut answer).\n",
            l.answers_cut, l.answers_repeated, l.answers_salvaged, l.stalls, l.splits
        );
    }
    let ends = &t.relation_ends;
    if ends.added + ends.relations_pruned > 0 {
        let _ = writeln!(
            out,
            "Relation ends not listed as entities: {} added as entities (named in the section's text or a party of the document), {} relations pruned for an end that was neither.\n",
            ends.added, ends.relations_pruned
        );
    }
    if !t.relations_pruned.is_empty() {
        let by: Vec<String> = t
            .relations_pruned
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        let _ = writeln!(
            out,
            "Relations pruned after extraction, by reason: {} (each with its reason in the extraction's `pruned`).\n",
            by.join(", ")
        );
    }
    let r = &t.rules_on_skipped;
    let _ = writeln!(
        out,
        "Rules on text not sent (sections skipped by prediction, noise, and the paragraphs routing by content \
         left out of a section an LLM read; free, apart from the figures above): \
         {} sections read, {} with facts, {} entities, {} relations (in the graph with `source: rules`).\n",
        r.sections, r.sections_with_facts, r.entities, r.relations
    );

    out.push_str("## Alignment\n\n");
    out.push_str(
        "Aligned sections = sections - noise - empty - failed = perfect + deviations + mismatches \
         + new + not scanned + audit-sampled. Each share is of the aligned sections. \
         Audit-sampled sections were predicted Low / Very Low and sent only by the \
         `--audit-rate` sample (`override_reason` audit in sections.csv); they are \
         kept out of perfect / deviations / mismatches so sampling never moves those \
         shares. A failed section has no actual tier, so it is not aligned.\n\n",
    );
    out.push_str("| document | aligned sections | perfect alignment | deviations | mismatches | new sections | not scanned | audit-sampled |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    let share = |n: usize, of: usize| format!("{n} of {of} ({:.1}%)", pct(n, of));
    let align = |name: &str, s: &Stats| {
        let n = s.aligned_sections;
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            md(name),
            n,
            share(s.perfect, n),
            share(s.deviations, n),
            share(s.mismatches, n),
            share(s.new_sections, n),
            share(s.not_scanned, n),
            share(s.audit_sampled, n),
        )
    };
    for d in &summary.per_document {
        out.push_str(&align(&d.doc_name, &d.stats));
    }
    out.push_str(&align("**batch**", t));
    out.push('\n');
    let _ = writeln!(
        out,
        "Overrides (`override_reason` in sections.csv): {} sections sent by `--calibrate`, \
         {} by the audit sample.\n",
        t.calibrated, t.audit_sampled
    );
    if t.chars_skipped_by_content + t.chars_sent_by_content > 0 {
        let _ = writeln!(
            out,
            "Routing by content (the clause model's paragraph scores, docs/routing.md): {} characters \
             of sections their titles send were left out, {} characters of sections their titles skip \
             were sent (`override_reason` content). Each paragraph's score and decision is in the \
             document's `docs/<doc_id>.json.gz`; `kgroute plan` lists them in paragraphs.csv with the \
             words behind each score. The offline rules read every section whole.\n",
            t.chars_skipped_by_content, t.chars_sent_by_content
        );
    }
    match t.silent_loss_pct {
        Some(p) => {
            let _ = writeln!(
                out,
                "Audit: {} skipped sections sampled, {} answered; of those {} turned out Medium or better \
                 (silent-loss rate {} of {} = {:.1}%). Against their prediction: {} perfect, \
                 {} deviations, {} mismatches.\n",
                t.audit_sampled,
                t.audited,
                t.audited_medium_plus,
                t.audited_medium_plus,
                t.audited,
                p,
                t.audit_perfect,
                t.audit_deviations,
                t.audit_mismatches
            );
        }
        None => out.push_str("Audit: no skipped section was sampled (`--audit-rate 0`).\n\n"),
    }
    render_title_mapping(&mut out, summary);
    render_indices(&mut out, summary);
    render_doc_types(&mut out, summary);
    out
}

/// One document's part of `summary.md`: its heading, failure and section
/// table (written as the document finishes).
pub fn render_document_md(doc: &super::DocumentOutcome) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## {} ({})\n", md(&doc.doc_name), md(&doc.doc_id));
    if let Some(e) = &doc.error {
        let _ = writeln!(out, "Failed: {}\n", md(e));
    }
    let views = doc.sections();
    if views.is_empty() {
        return out;
    }
    out.push_str("| Node ID | Section Heading | Chars | Entities | Relations | Actual Rating | Predicted Rating | Match Quality | Override |\n");
    out.push_str("|---|---|---:|---:|---:|---|---|---|---|\n");
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
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            s.node_id,
            md(&s.title),
            s.chars,
            ents,
            rels,
            tier_label(super::quality::actual_tier(v.extraction)),
            predicted,
            v.quality,
            override_label(s.override_reason)
        );
    }
    out.push('\n');
    out
}

/// Up to [`EXAMPLES_PER_TIER`] example relations per actual tier, taken in
/// batch order as documents finish.
#[derive(Debug, Default)]
pub struct TierExamples {
    by_tier: BTreeMap<Tier, Vec<String>>,
}

impl TierExamples {
    pub fn add(&mut self, doc: &super::DocumentOutcome) {
        for v in doc.sections() {
            let Some(tier) = super::quality::actual_tier(v.extraction) else {
                continue;
            };
            let list = self.by_tier.entry(tier).or_default();
            if list.len() >= EXAMPLES_PER_TIER {
                continue;
            }
            let e = v.extraction.expect("has an actual tier");
            if let Some(r) = e.relations.first() {
                list.push(format!(
                    "- `[{}]-({})->[{}]` ({}, {})",
                    r.source,
                    r.relation_type,
                    r.target,
                    md(&v.section.title),
                    v.doc_id
                ));
            }
        }
    }

    /// The closing section of `summary.md`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("## Example extractions by actual tier\n\n");
        for tier in Tier::ALL {
            let Some(examples) = self.by_tier.get(&tier).filter(|e| !e.is_empty()) else {
                continue;
            };
            let _ = writeln!(out, "### {tier}\n");
            for e in examples {
                out.push_str(e);
                out.push('\n');
            }
            out.push('\n');
        }
        out
    }
}

/// The document types section of `summary.md`: one count line, then each
/// document's type, confidence and tree warning.
fn render_doc_types(out: &mut String, summary: &BatchSummary) {
    out.push_str("## Document types\n\n");
    let counts: Vec<String> = summary
        .doc_types
        .iter()
        .map(|(t, n)| format!("{} {n}", md(t)))
        .collect();
    let routed: usize = summary.doc_types.values().sum();
    let _ = writeln!(
        out,
        "{routed} routed documents by type: {}. A document that fits no index is `unknown` \
         and routed with the base index only.\n",
        if counts.is_empty() {
            "none".to_string()
        } else {
            counts.join(", ")
        }
    );
    out.push_str(
        "| document | type | confidence | headings | preamble share | tree warning | index |\n",
    );
    out.push_str("|---|---|---:|---:|---:|---|---|\n");
    for d in &summary.per_document {
        let Some(h) = &d.tree_health else {
            continue;
        };
        let index = d.index.as_ref().map_or("-".to_string(), |i| {
            format!("{} (version {})", i.path.display(), i.version)
        });
        let _ = writeln!(
            out,
            "| {} | {} | {:.2} | {} | {:.1}% | {} | {} |",
            md(&d.doc_name),
            md(&d.doc_type),
            d.doc_type_confidence,
            h.headings,
            h.preamble_share * 100.0,
            md(d.tree_warning.as_deref().unwrap_or_default()),
            md(&index)
        );
    }
    out.push('\n');
}

/// The indices section of `summary.md`: every index of the batch and how
/// many documents it routed.
fn render_indices(out: &mut String, summary: &BatchSummary) {
    out.push_str("## Indices\n\n");
    out.push_str(
        "Each document is routed with the index of its type (below: the index of each \
         document).\n\n",
    );
    out.push_str("| type | index file | version | entries | documents |\n");
    out.push_str("|---|---|---|---:|---:|\n");
    for i in &summary.indices {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            md(&i.index.doc_type),
            md(&i.index.path.display().to_string()),
            md(&i.index.version),
            i.index.entries,
            i.documents
        );
    }
    out.push('\n');
}

/// The LLM title mapping section of `summary.md`: a table when any
/// document asked, else one line.
fn render_title_mapping(out: &mut String, summary: &BatchSummary) {
    out.push_str("## LLM title mapping\n\n");
    let t = &summary.totals.title_mapping;
    if t.calls + t.cache_hits + t.failed as u64 == 0 {
        out.push_str(
            "No title was sent for mapping (no LLM, `--no-llm-match`, or nothing unmatched).\n\n",
        );
        return;
    }
    out.push_str(
        "One request per document with unmatched titles (names and breadcrumbs only); \
         its tokens and cost are apart from the extraction figures above. Mapped sections \
         have method `llm` in sections.csv.\n\n",
    );
    out.push_str("| document | titles asked | sections mapped | requests | cached | tokens in/out | cost | failure |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---|\n");
    let row = |name: &str, m: &TitleMappingStats, failure: &str| {
        format!(
            "| {} | {} | {} | {} | {} | {}/{} | ${:.4} | {} |\n",
            md(name),
            m.titles_asked,
            m.sections_mapped,
            m.calls,
            m.cache_hits,
            m.tokens_in,
            m.tokens_out,
            m.cost_usd,
            md(failure)
        )
    };
    for d in &summary.per_document {
        let m = &d.stats.title_mapping;
        if m.titles_asked == 0 {
            continue;
        }
        let failure = d.title_mapping_error.as_deref().unwrap_or_default();
        out.push_str(&row(&d.doc_name, m, failure));
    }
    out.push_str(&row(
        "**batch**",
        t,
        &format!("{} documents failed", t.failed),
    ));
    out.push('\n');
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
