//! The batch reports written as documents finish, so a batch of any size
//! is reported in the memory of one document (plus each document's summary
//! counters): `sections.csv` and `sections.xlsx` get a document's rows when
//! it finishes, `summary.md` its table (into a temp file, put after the
//! batch's head at the end), and the summary counters, the suggestions and
//! the example relations are folded. [`super::write_batch_reports`] is this
//! stream fed every document of a [`BatchReport`].
//!
//! Each file is written on its own: one that fails (a cell a workbook
//! refuses, a file that cannot be created) is reported by [`ReportStream::finish`]
//! and the others are still written, so one bad document or one bad
//! writer never costs a batch its other reports.

use super::sections_csv::SectionsCsvWriter;
use super::sections_xlsx::SectionsWorkbook;
use super::summary::{self, BatchSummary, SummaryBuilder, TierExamples};
use super::{suggestions, BatchReport, DocumentOutcome};
use super::{SECTIONS_CSV, SECTIONS_XLSX, SUGGESTIONS_YAML, SUMMARY_JSON, SUMMARY_MD};
use anyhow::Context;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Open reports of a batch; `batch` carries what the reports say about the
/// batch (its `documents` are not read: they come through [`Self::add`]).
pub struct ReportStream {
    out_dir: PathBuf,
    /// `None` once it failed (the failure is in `failures`).
    csv: Option<SectionsCsvWriter>,
    xlsx: Option<SectionsWorkbook>,
    summary: SummaryBuilder,
    examples: TierExamples,
    suggestions: suggestions::Collector,
    families: super::families::FamilyCollector,
    /// The documents' parts of `summary.md`, in order.
    md_docs: Option<BufWriter<std::fs::File>>,
    md_docs_path: PathBuf,
    /// What could not be written, in order, each naming its file.
    failures: Vec<anyhow::Error>,
    rows: usize,
    max_sheet_rows: u32,
    llm_limits: summary::LlmLimits,
}

impl ReportStream {
    /// Opens the reports in `out_dir` (created if missing), with at most
    /// `max_sheet_rows` rows per sheet of `sections.xlsx`.
    pub fn create(
        out_dir: &Path,
        batch: &BatchReport,
        max_sheet_rows: u32,
    ) -> anyhow::Result<Self> {
        std::fs::create_dir_all(out_dir)
            .with_context(|| format!("cannot create report folder {}", out_dir.display()))?;
        let md_docs_path = out_dir.join(format!(".summary-docs.md.tmp{}", std::process::id()));
        let mut failures = Vec::new();
        fn open<T>(r: anyhow::Result<T>, failures: &mut Vec<anyhow::Error>) -> Option<T> {
            r.map_err(|e| failures.push(e)).ok()
        }
        let md_docs = open(
            std::fs::File::create(&md_docs_path)
                .map(BufWriter::new)
                .with_context(|| format!("cannot write {}", md_docs_path.display())),
            &mut failures,
        );
        let csv = open(
            SectionsCsvWriter::create(&out_dir.join(SECTIONS_CSV)),
            &mut failures,
        );
        let xlsx = open(
            SectionsWorkbook::new(&out_dir.join(SECTIONS_XLSX), batch, max_sheet_rows),
            &mut failures,
        );
        Ok(ReportStream {
            out_dir: out_dir.to_path_buf(),
            csv,
            xlsx,
            failures,
            summary: SummaryBuilder::default(),
            examples: TierExamples::default(),
            suggestions: suggestions::Collector::default(),
            families: super::families::FamilyCollector::default(),
            md_docs,
            md_docs_path,
            rows: 0,
            max_sheet_rows,
            llm_limits: summary::LlmLimits::default(),
        })
    }

    /// What the run's extractor counted of the model's limits, for the
    /// summary.
    pub fn set_llm_limits(&mut self, limits: summary::LlmLimits) {
        self.llm_limits = limits;
    }

    /// One finished document, in batch order. A writer that fails here is
    /// dropped and its failure kept for [`Self::finish`].
    pub fn add(&mut self, batch: &BatchReport, doc: &DocumentOutcome) {
        let failures = &mut self.failures;
        if let Some(Err(e)) = self.csv.as_mut().map(|w| w.add(doc)) {
            failures.push(e);
            self.csv = None;
        }
        if let Some(Err(e)) = self.xlsx.as_mut().map(|w| w.add(doc)) {
            failures.push(e);
            self.xlsx = None;
        }
        self.summary.add(batch, doc);
        self.examples.add(doc);
        self.suggestions.add(doc);
        self.families.add(doc);
        let md = summary::render_document_md(doc);
        if let Some(Err(e)) = self.md_docs.as_mut().map(|w| w.write_all(md.as_bytes())) {
            failures.push(
                anyhow::Error::new(e).context(format!("writing {}", self.md_docs_path.display())),
            );
            self.md_docs = None;
        }
        self.rows += doc.plan.as_ref().map_or(0, |p| p.sections.len());
    }

    /// Writes the rest and puts every file in place, each on its own;
    /// returns the summary and every file that could not be written.
    pub fn finish(self, batch: &BatchReport) -> (BatchSummary, Vec<anyhow::Error>) {
        let ReportStream {
            out_dir,
            csv,
            xlsx,
            summary,
            examples,
            suggestions,
            families,
            md_docs,
            md_docs_path,
            mut failures,
            rows,
            max_sheet_rows,
            llm_limits,
        } = self;
        let mut keep = |r: anyhow::Result<()>| {
            if let Err(e) = r {
                failures.push(e);
            }
        };
        if let Some(csv) = csv {
            keep(csv.commit());
        }
        let mut summary = summary.finish(batch);
        summary.llm_limits = llm_limits;
        summary.unknown_families = families.finish();
        // Without the workbook, summary.md still says where the rows are.
        let sheets = match xlsx.map(|x| x.finish(&summary)) {
            Some(Ok(sheets)) => sheets,
            Some(Err(e)) => {
                keep(Err(e));
                1
            }
            None => 1,
        };
        keep(summary::write_summary_json(
            &out_dir.join(SUMMARY_JSON),
            &summary,
        ));
        keep(write_summary_md(
            &out_dir,
            &summary,
            md_docs.map(|m| (m, md_docs_path.as_path())),
            &examples,
            xlsx_note(rows, sheets, max_sheet_rows),
        ));
        let _ = std::fs::remove_file(&md_docs_path);
        keep(suggestions::write_suggestions_of(
            &out_dir.join(SUGGESTIONS_YAML),
            batch,
            suggestions.finish(),
        ));
        (summary, failures)
    }
}

/// summary.md: the head (from the finished counts), the documents' parts
/// copied from their temp file (left out when that file failed), the
/// examples; written to a temp file and renamed.
fn write_summary_md(
    out_dir: &Path,
    summary: &BatchSummary,
    md_docs: Option<(BufWriter<std::fs::File>, &Path)>,
    examples: &TierExamples,
    note: String,
) -> anyhow::Result<()> {
    let md_docs = match md_docs {
        Some((w, path)) => {
            w.into_inner()
                .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
            Some(path)
        }
        None => None,
    };
    let md_path = out_dir.join(SUMMARY_MD);
    let md_tmp = out_dir.join(format!(".{SUMMARY_MD}.tmp{}", std::process::id()));
    let write_md = || -> std::io::Result<()> {
        let mut out = BufWriter::new(std::fs::File::create(&md_tmp)?);
        out.write_all(summary::render_summary_head(summary).as_bytes())?;
        if !summary.unknown_families.is_empty() {
            let dir = out_dir.display().to_string();
            out.write_all(super::families::render_md(&summary.unknown_families, &dir).as_bytes())?;
        }
        out.write_all(note.as_bytes())?;
        if let Some(path) = md_docs {
            std::io::copy(&mut std::fs::File::open(path)?, &mut out)?;
        }
        out.write_all(examples.render().as_bytes())?;
        out.flush()
    };
    write_md().with_context(|| format!("writing {}", md_tmp.display()))?;
    std::fs::rename(&md_tmp, &md_path).with_context(|| format!("writing {}", md_path.display()))
}

/// One error for every output of a batch that failed: `Ok` when none did;
/// the first keeps its cause (a full disk is still seen as one), the others
/// are named in its message.
pub fn joined(mut failures: Vec<anyhow::Error>) -> anyhow::Result<()> {
    if failures.is_empty() {
        return Ok(());
    }
    let first = failures.remove(0);
    if failures.is_empty() {
        return Err(first);
    }
    let others: Vec<String> = failures.iter().map(|e| format!("{e:#}")).collect();
    Err(first.context(format!(
        "{} outputs of the batch could not be written (the others were): {}",
        others.len() + 1,
        others.join("; ")
    )))
}

/// The line of `summary.md` that says where the section rows are.
fn xlsx_note(rows: usize, sheets: usize, max_sheet_rows: u32) -> String {
    if sheets <= 1 {
        format!(
            "Section rows: {rows}, all in {SECTIONS_CSV} and on one sheet of {SECTIONS_XLSX}.\n\n"
        )
    } else {
        format!(
            "Section rows: {rows}, all in {SECTIONS_CSV}; {SECTIONS_XLSX} splits them across {sheets} sheets (at most {} rows each, Excel's limit; the header repeats on each).\n\n",
            max_sheet_rows - 1
        )
    }
}
