//! The mismatch report `sections.csv`: one row per section of every
//! document, in the article's terms, with an empty `decision` column the
//! reviewer fills in for `kgroute review`.
//!
//! UTF-8, one header row, RFC 4180 quoting (the `csv` crate). Tiers are
//! written as index keys (`very_high`, ...) so a reviewer can copy them into
//! decisions. `route` is `llm`, `skip`, `noise` or `empty`;
//! `override_reason` says why a skip-predicted section was sent anyway
//! (`audit`, `calibrate`, empty otherwise), so a filter on it explains the
//! summary's audit and calibration counts. `status` is `ok`, `cached`,
//! `failed: <reason>`, or `not_sent`.
//!
//! The file starts with a UTF-8 byte-order mark so that a spreadsheet opened
//! on it decodes `Agent’s Fees` as UTF-8 rather than the locale's code page;
//! every reader of the file (`kgroute review`, the `csv` crate with
//! [`strip_bom`]) skips it.
//!
//! Spreadsheet formula injection: contract headings are untrusted text, and a
//! spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (or a tab or
//! carriage return) as a formula. Every text cell starting with one of those
//! gets a leading `'` (the spreadsheet convention for "this is text");
//! [`unguard_cell`] removes it again when `kgroute review` reads the file.

use super::sanitize::sanitize_title;
use super::{BatchReport, SectionView};
use crate::extract::SectionStatus;
use crate::route::Route;
use anyhow::Context;
use std::path::Path;

/// The header, in order.
pub const COLUMNS: [&str; 29] = [
    "doc_id",
    "doc_type",
    "doc_type_confidence",
    "node_id",
    "breadcrumb",
    "heading",
    "start_line",
    "end_line",
    "chars",
    "matched_entry",
    "match_method",
    "match_score",
    "match_runner_up",
    "match_runner_up_score",
    "predicted_tier",
    "route",
    "override_reason",
    "entities",
    "relations",
    "pruned",
    "pruned_relations",
    "model_tier",
    "density_tier",
    "actual_tier",
    "match_quality",
    "tokens_in",
    "tokens_out",
    "status",
    "decision",
];

/// True when a spreadsheet would run the cell as a formula, or when the
/// cell already starts with a `'` that [`unguard_cell`] would remove.
fn needs_guard(text: &str) -> bool {
    text.starts_with(['=', '+', '-', '@', '\t', '\r'])
        || text.strip_prefix('\'').is_some_and(needs_guard)
}

/// Prefixes `'` to a text cell a spreadsheet would evaluate as a formula.
pub fn guard_cell(text: &str) -> String {
    if needs_guard(text) {
        format!("'{text}")
    } else {
        text.to_string()
    }
}

/// Undoes [`guard_cell`]: drops the `'` it added.
pub fn unguard_cell(text: &str) -> &str {
    match text.strip_prefix('\'') {
        Some(rest) if needs_guard(rest) => rest,
        _ => text,
    }
}

fn route_cell(view: &SectionView<'_>) -> &'static str {
    match view.section.route {
        Route::Llm => "llm",
        Route::Skip => "skip",
        Route::Noise => "noise",
        Route::Empty => "empty",
    }
}

/// The UTF-8 byte-order mark written first.
pub const BOM: &str = "\u{feff}";

/// Drops a leading byte-order mark (ours, or one a spreadsheet added).
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

fn status_cell(view: &SectionView<'_>) -> String {
    match view.extraction.map(|e| &e.status) {
        None => "not_sent".to_string(),
        Some(SectionStatus::Ok) => "ok".to_string(),
        Some(SectionStatus::Cached) => "cached".to_string(),
        Some(SectionStatus::Failed(reason)) => format!("failed: {reason}"),
    }
}

/// The section's pruned relations by the kind of their reason
/// (`pattern 2; evidence 1`), so a filter finds the sections a careless
/// answer poisoned.
fn pruned_relations_cell(e: &crate::extract::SectionExtraction) -> String {
    let mut by: std::collections::BTreeMap<&str, usize> = Default::default();
    for p in e.pruned.iter().filter(|p| p.item == "relation") {
        *by.entry(crate::extract::validate::reason_kind(&p.reason))
            .or_default() += 1;
    }
    by.iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The cells of one section's row, in [`COLUMNS`] order.
pub fn row(view: &SectionView<'_>) -> Vec<String> {
    let s = view.section;
    let e = view.extraction;
    let opt = |v: Option<String>| v.unwrap_or_default();
    let method = serde_json::to_value(s.matched.method)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    vec![
        guard_cell(view.doc_id),
        guard_cell(view.doc_type),
        format!("{:.2}", view.doc_type_confidence),
        s.node_id.clone(),
        guard_cell(&sanitize_title(&s.breadcrumb)),
        guard_cell(&sanitize_title(&s.title)),
        s.start_line.to_string(),
        s.end_line.to_string(),
        s.chars.to_string(),
        guard_cell(s.matched.entry.as_deref().unwrap_or("")),
        method,
        format!("{:.2}", s.matched.score),
        guard_cell(s.matched.runner_up.as_deref().unwrap_or("")),
        format!("{:.2}", s.matched.runner_up_score),
        opt(s.predicted_tier.map(|t| t.key().to_string())),
        route_cell(view).to_string(),
        super::summary::override_label(s.override_reason).to_string(),
        opt(e.map(|e| e.entities.len().to_string())),
        opt(e.map(|e| e.relations.len().to_string())),
        opt(e.map(|e| e.pruned.len().to_string())),
        opt(e.map(pruned_relations_cell)),
        opt(e.and_then(|e| e.model_tier).map(|t| t.key().to_string())),
        opt(e.map(|e| e.density_tier.key().to_string())),
        opt(super::quality::actual_tier(e).map(|t| t.key().to_string())),
        view.quality.as_str().to_string(),
        opt(e.map(|e| e.tokens_in.to_string())),
        opt(e.map(|e| e.tokens_out.to_string())),
        guard_cell(&sanitize_title(&status_cell(view))),
        String::new(),
    ]
}

/// Writes every section of every document of the batch, in batch and plan
/// order. Documents without a plan contribute no rows (they are in the
/// summary's failures).
pub fn write_sections_csv(path: &Path, batch: &BatchReport) -> anyhow::Result<()> {
    let mut w = SectionsCsvWriter::create(path)?;
    for doc in &batch.documents {
        w.add(doc)?;
    }
    w.commit()
}

/// `sections.csv` appended as documents finish: rows go to a temp file
/// beside it, renamed into place by [`SectionsCsvWriter::commit`] (a
/// reader never sees half a report).
pub struct SectionsCsvWriter {
    path: std::path::PathBuf,
    tmp: std::path::PathBuf,
    w: csv::Writer<std::io::BufWriter<std::fs::File>>,
}

impl SectionsCsvWriter {
    pub fn create(path: &Path) -> anyhow::Result<Self> {
        use std::io::Write;
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("sections.csv");
        let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(&tmp)
                .with_context(|| format!("cannot write {}", tmp.display()))?,
        );
        file.write_all(BOM.as_bytes())
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        let mut w = csv::WriterBuilder::new()
            .quote_style(csv::QuoteStyle::Necessary)
            .from_writer(file);
        w.write_record(COLUMNS)?;
        Ok(SectionsCsvWriter {
            path: path.to_path_buf(),
            tmp,
            w,
        })
    }

    /// The rows of one document.
    pub fn add(&mut self, doc: &super::DocumentOutcome) -> anyhow::Result<()> {
        for view in doc.sections() {
            self.w
                .write_record(row(&view))
                .with_context(|| format!("writing {}", self.tmp.display()))?;
        }
        Ok(())
    }

    pub fn commit(mut self) -> anyhow::Result<()> {
        self.w
            .flush()
            .with_context(|| format!("writing {}", self.tmp.display()))?;
        drop(self.w);
        std::fs::rename(&self.tmp, &self.path)
            .with_context(|| format!("writing {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_cells_are_guarded_and_unguarded() {
        for s in ["=SUM(A1)", "+1", "-cmd", "@x", "\tx"] {
            let g = guard_cell(s);
            assert_eq!(g, format!("'{s}"));
            assert_eq!(unguard_cell(&g), s);
        }
        assert_eq!(guard_cell("Definitions"), "Definitions");
        assert_eq!(unguard_cell("'quoted'"), "'quoted'");
        assert_eq!(guard_cell("'=x"), "''=x");
        assert_eq!(unguard_cell("''=x"), "'=x");
    }

    proptest::proptest! {
        #[test]
        fn guard_round_trips_and_never_starts_a_formula(s in "\\PC{0,20}") {
            let g = guard_cell(&s);
            proptest::prop_assert!(!g.starts_with(['=', '+', '-', '@', '\t', '\r']));
            proptest::prop_assert_eq!(unguard_cell(&g), s.as_str());
        }
    }
}
