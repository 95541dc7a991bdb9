//! The plan as files: `plan.csv` (one row per section) and `plan.json`
//! (documents with their sections and totals, plus batch totals). Used by
//! `kgroute plan` and available to the report stage.
//!
//! Both are written as documents are planned ([`CsvPlanWriter`],
//! [`JsonPlanWriter`]), so a batch of any size is planned in the memory of
//! one document: `plan.json` keeps the shape of [`BatchPlan`] (one JSON
//! object, `documents` then `failures` then `totals`), streamed.

use super::{Override, Route, RoutePlan, RoutedSection};
use super::{PlanStats, Prices};
use crate::index::DocTypeGuess;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// One document of a batch plan.
#[derive(Debug, Clone, Serialize)]
pub struct DocumentPlan {
    pub path: PathBuf,
    /// Detected (or `--doc-type` forced) type and its confidence.
    pub doc_type: DocTypeGuess,
    pub stats: PlanStats,
    pub plan: RoutePlan,
}

/// A document that could not be planned.
#[derive(Debug, Clone, Serialize)]
pub struct PlanFailure {
    pub path: PathBuf,
    pub error: String,
}

/// Everything `plan.json` holds.
#[derive(Debug, Clone, Serialize)]
pub struct BatchPlan {
    pub document_type: String,
    pub index_version: String,
    pub index_files: Vec<PathBuf>,
    pub calibrate: bool,
    pub audit_rate: f64,
    pub prices: Option<Prices>,
    pub documents: Vec<DocumentPlan>,
    pub failures: Vec<PlanFailure>,
    pub totals: PlanStats,
}

/// One `plan.csv` row.
#[derive(Debug, Serialize)]
struct Row<'a> {
    doc_id: &'a str,
    doc_name: &'a str,
    doc_type: &'a str,
    doc_type_confidence: String,
    node_id: &'a str,
    level: u8,
    kind: String,
    title: &'a str,
    breadcrumb: &'a str,
    start_line: usize,
    end_line: usize,
    chars: usize,
    matched_entry: &'a str,
    method: String,
    score: String,
    runner_up: &'a str,
    runner_up_score: String,
    anchor: bool,
    predicted_tier: String,
    route: &'static str,
    override_reason: &'static str,
}

/// The route's lower-case name (`llm`, `skip`, `noise`, `empty`).
pub fn route_name(r: Route) -> &'static str {
    match r {
        Route::Llm => "llm",
        Route::Skip => "skip",
        Route::Noise => "noise",
        Route::Empty => "empty",
    }
}

/// `none`, `calibrate`, `audit` or `content`.
pub fn override_name(o: Override) -> &'static str {
    match o {
        Override::None => "",
        Override::Calibrate => "calibrate",
        Override::Audit => "audit",
        Override::Content => "content",
    }
}

/// The predicted tier's key, `new` for an unknown title, empty for noise
/// and empty sections.
pub fn tier_label(s: &RoutedSection) -> String {
    match (s.predicted_tier, s.route) {
        (Some(t), _) => t.key().to_string(),
        (None, Route::Llm | Route::Skip) => "new".into(),
        (None, _) => String::new(),
    }
}

fn lower_debug(x: impl std::fmt::Debug) -> String {
    format!("{x:?}").to_lowercase()
}

/// Writes every section of every document as CSV with a header row.
pub fn write_csv<W: Write>(out: W, docs: &[DocumentPlan]) -> anyhow::Result<()> {
    let mut w = CsvPlanWriter::new(out);
    for d in docs {
        w.document(d)?;
    }
    w.finish()?;
    Ok(())
}

/// What `plan.json` holds before its documents.
#[derive(Debug, Clone, Serialize)]
pub struct PlanHeader {
    pub document_type: String,
    pub index_version: String,
    pub index_files: Vec<PathBuf>,
    pub calibrate: bool,
    pub audit_rate: f64,
    pub prices: Option<Prices>,
}

/// `plan.json` written as it goes: the header's fields, then each document
/// as it is planned, then the failures and totals. The result parses as a
/// [`BatchPlan`] would serialise.
pub struct JsonPlanWriter<W: Write> {
    w: W,
    documents: usize,
}

impl<W: Write> JsonPlanWriter<W> {
    /// Writes the header and opens the `documents` array.
    pub fn begin(mut w: W, header: &PlanHeader) -> anyhow::Result<Self> {
        let fields = serde_json::to_value(header)?;
        w.write_all(b"{\n")?;
        for (k, v) in fields.as_object().into_iter().flatten() {
            writeln!(
                w,
                "  {}: {},",
                serde_json::to_string(k)?,
                serde_json::to_string(v)?
            )?;
        }
        w.write_all(b"  \"documents\": [")?;
        Ok(JsonPlanWriter { w, documents: 0 })
    }

    pub fn document(&mut self, d: &DocumentPlan) -> anyhow::Result<()> {
        self.w
            .write_all(if self.documents == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut self.w, d)?;
        self.documents += 1;
        Ok(())
    }

    /// Closes `documents`, writes the failures and totals; hands the writer
    /// back flushed.
    pub fn finish(mut self, failures: &[PlanFailure], totals: &PlanStats) -> anyhow::Result<W> {
        write!(
            self.w,
            "\n  ],\n  \"failures\": {},\n  \"totals\": {}\n}}\n",
            serde_json::to_string(failures)?,
            serde_json::to_string(totals)?
        )?;
        self.w.flush()?;
        Ok(self.w)
    }
}

/// `plan.csv` written as it goes, one document at a time.
pub struct CsvPlanWriter<W: Write> {
    w: csv::Writer<W>,
}

impl<W: Write> CsvPlanWriter<W> {
    pub fn new(out: W) -> Self {
        CsvPlanWriter {
            w: csv::Writer::from_writer(out),
        }
    }

    pub fn finish(mut self) -> anyhow::Result<()> {
        self.w.flush()?;
        Ok(())
    }

    /// Every section of `d`, one row each.
    pub fn document(&mut self, d: &DocumentPlan) -> anyhow::Result<()> {
        let w = &mut self.w;
        for s in &d.plan.sections {
            w.serialize(Row {
                doc_id: &d.plan.doc_id,
                doc_name: &d.plan.doc_name,
                doc_type: &d.doc_type.name,
                doc_type_confidence: format!("{:.3}", d.doc_type.confidence),
                node_id: &s.node_id,
                level: s.level,
                kind: lower_debug(s.kind),
                title: &s.title,
                breadcrumb: &s.breadcrumb,
                start_line: s.start_line,
                end_line: s.end_line,
                chars: s.chars,
                matched_entry: s.matched.entry.as_deref().unwrap_or(""),
                method: lower_debug(s.matched.method),
                score: format!("{:.3}", s.matched.score),
                runner_up: s.matched.runner_up.as_deref().unwrap_or(""),
                runner_up_score: format!("{:.3}", s.matched.runner_up_score),
                anchor: s.matched.anchor,
                predicted_tier: tier_label(s),
                route: route_name(s.route),
                override_reason: override_name(s.override_reason),
            })?;
        }
        Ok(())
    }
}

/// `paragraphs.csv`: one row per paragraph routed by its content (every
/// paragraph of a section whose paragraphs went different ways), with its
/// score, the category behind it, whether it was sent and why, and the
/// words that weigh most for that category: what a reviewer reads to see
/// what routing by content left out.
pub struct ParagraphsWriter<W: Write> {
    csv: csv::Writer<W>,
}

/// One `paragraphs.csv` row.
#[derive(Debug, Serialize)]
struct ParagraphRow<'a> {
    doc_id: &'a str,
    doc_name: &'a str,
    doc_type: &'a str,
    node_id: &'a str,
    heading: &'a str,
    predicted_tier: String,
    start_line: usize,
    start_byte: usize,
    end_byte: usize,
    chars: usize,
    sent: bool,
    score: String,
    category: &'a str,
    reason: String,
    top_terms: String,
    opening: String,
    /// The paragraph's words' fingerprint: what a reviewer's decision is
    /// kept by ([`crate::index::reviewed`]).
    fingerprint: String,
    /// Blank: for the reviewer (`send` or `skip`; `kgroute review`).
    decision: &'static str,
}

impl<W: Write> ParagraphsWriter<W> {
    pub fn new(out: W) -> Self {
        ParagraphsWriter {
            csv: csv::Writer::from_writer(out),
        }
    }

    /// The routed paragraphs of one document.
    /// `index` is the one the document was routed with: its learned model,
    /// when it has one, scored the paragraphs.
    pub fn document(
        &mut self,
        plan: &RoutePlan,
        source: &crate::tree::SourceText,
        index: Option<&crate::index::GraphabilityIndex>,
    ) -> anyhow::Result<()> {
        if plan.sections.iter().all(|s| s.paragraphs.is_empty()) {
            return Ok(());
        }
        let scorer = super::content::scorer_for(&plan.doc_type, index)
            .ok()
            .flatten();
        let model = scorer.map(|s| s.model);
        let (th, by) = scorer.map_or((super::content::SHIPPED, ""), |s| {
            (s.thresholds, if s.learned { "learned " } else { "" })
        });
        for s in &plan.sections {
            for p in &s.paragraphs {
                let text = source.byte_span_text(p.start_byte, p.end_byte);
                let threshold = match s.predicted_tier {
                    Some(t) if !t.is_sent() => th.rescue,
                    _ => th.inside,
                };
                let reason = if p.reviewed {
                    format!(
                        "reviewed: {} (score {:.4})",
                        if p.sent { "send" } else { "skip" },
                        p.score
                    )
                } else if threshold.is_infinite() {
                    format!(
                        "{by}score {:.4}: no paragraph under a {} title is sent by its score",
                        p.score,
                        tier_label(s)
                    )
                } else {
                    format!(
                        "{by}score {:.4} {} {threshold} for a {} title",
                        p.score,
                        if p.sent { ">=" } else { "<" },
                        tier_label(s)
                    )
                };
                // Read while scoring; a plan read back from a batch's
                // state explains the piece's own text again.
                let explained = match &p.terms {
                    Some(t) => Some(t.clone()),
                    None => model
                        .and_then(|m| Some((m, m.category_index(&p.category)?)))
                        .map(|(m, k)| {
                            m.explain(&s.title, text, k, super::content::EXPLAINED_TERMS)
                        }),
                };
                let top_terms = explained
                    .unwrap_or_default()
                    .iter()
                    .map(|(f, w)| format!("{f} {w:+.1}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                self.csv.serialize(ParagraphRow {
                    doc_id: &plan.doc_id,
                    doc_name: &plan.doc_name,
                    doc_type: &plan.doc_type,
                    node_id: &s.node_id,
                    heading: &s.title,
                    predicted_tier: tier_label(s),
                    start_line: source.line_of_offset(p.start_byte),
                    start_byte: source.file_span(p.start_byte, p.end_byte).0,
                    end_byte: source.file_span(p.start_byte, p.end_byte).1,
                    chars: p.chars,
                    sent: p.sent,
                    score: format!("{:.4}", p.score),
                    category: &p.category,
                    reason,
                    top_terms,
                    opening: text
                        .split_whitespace()
                        .take(16)
                        .collect::<Vec<_>>()
                        .join(" "),
                    fingerprint: crate::index::reviewed::fingerprint(text),
                    decision: "",
                })?;
            }
        }
        Ok(())
    }

    pub fn finish(mut self) -> anyhow::Result<()> {
        self.csv.flush()?;
        Ok(())
    }
}
