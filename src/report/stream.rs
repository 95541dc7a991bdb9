//! The batch reports written as documents finish, so a batch of any size
//! is reported in the memory of one document (plus each document's summary
//! counters): `sections.csv` and `sections.xlsx` get a document's rows when
//! it finishes, `summary.md` its table (into a temp file, put after the
//! batch's head at the end), and the summary counters, the suggestions and
//! the example relations are folded. [`super::write_batch_reports`] is this
//! stream fed every document of a [`BatchReport`].

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
    csv: SectionsCsvWriter,
    xlsx: SectionsWorkbook,
    summary: SummaryBuilder,
    examples: TierExamples,
    suggestions: suggestions::Collector,
    families: super::families::FamilyCollector,
    /// The documents' parts of `summary.md`, in order.
    md_docs: BufWriter<std::fs::File>,
    md_docs_path: PathBuf,
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
        let md_docs = BufWriter::new(
            std::fs::File::create(&md_docs_path)
                .with_context(|| format!("cannot write {}", md_docs_path.display()))?,
        );
        Ok(ReportStream {
            out_dir: out_dir.to_path_buf(),
            csv: SectionsCsvWriter::create(&out_dir.join(SECTIONS_CSV))?,
            xlsx: SectionsWorkbook::new(&out_dir.join(SECTIONS_XLSX), batch, max_sheet_rows)?,
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

    /// One finished document, in batch order.
    pub fn add(&mut self, batch: &BatchReport, doc: &DocumentOutcome) -> anyhow::Result<()> {
        self.csv.add(doc)?;
        self.xlsx.add(doc)?;
        self.summary.add(batch, doc);
        self.examples.add(doc);
        self.suggestions.add(doc);
        self.families.add(doc);
        self.md_docs
            .write_all(summary::render_document_md(doc).as_bytes())
            .with_context(|| format!("writing {}", self.md_docs_path.display()))?;
        self.rows += doc.plan.as_ref().map_or(0, |p| p.sections.len());
        Ok(())
    }

    /// Writes the rest and puts every file in place; returns the summary.
    pub fn finish(self, batch: &BatchReport) -> anyhow::Result<BatchSummary> {
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
            rows,
            max_sheet_rows,
            llm_limits,
        } = self;
        csv.commit()?;
        let mut summary = summary.finish(batch);
        summary.llm_limits = llm_limits;
        summary.unknown_families = families.finish();
        let sheets = xlsx.finish(&summary)?;
        summary::write_summary_json(&out_dir.join(SUMMARY_JSON), &summary)?;

        // summary.md: the head (from the finished counts), the documents'
        // parts copied from the temp file, the examples.
        md_docs
            .into_inner()
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", md_docs_path.display()))?;
        let md_path = out_dir.join(SUMMARY_MD);
        let md_tmp = out_dir.join(format!(".{SUMMARY_MD}.tmp{}", std::process::id()));
        let write_md = || -> std::io::Result<()> {
            let mut out = BufWriter::new(std::fs::File::create(&md_tmp)?);
            out.write_all(summary::render_summary_head(&summary).as_bytes())?;
            if !summary.unknown_families.is_empty() {
                let dir = out_dir.display().to_string();
                out.write_all(
                    super::families::render_md(&summary.unknown_families, &dir).as_bytes(),
                )?;
            }
            out.write_all(xlsx_note(rows, sheets, max_sheet_rows).as_bytes())?;
            std::io::copy(&mut std::fs::File::open(&md_docs_path)?, &mut out)?;
            out.write_all(examples.render().as_bytes())?;
            out.flush()
        };
        write_md().with_context(|| format!("writing {}", md_tmp.display()))?;
        std::fs::rename(&md_tmp, &md_path)
            .with_context(|| format!("writing {}", md_path.display()))?;
        let _ = std::fs::remove_file(&md_docs_path);

        suggestions::write_suggestions_of(
            &out_dir.join(SUGGESTIONS_YAML),
            batch,
            suggestions.finish(),
        )?;
        Ok(summary)
    }
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
