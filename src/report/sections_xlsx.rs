//! `sections.xlsx`: the mismatch report as reviewers work on it, in Excel
//! or LibreOffice, beside the plain `sections.csv`.
//!
//! A CSV leaves a reviewer to fight the spreadsheet: `0004` shown as `4`, no
//! filters, and no list of allowed decisions (a typo such as `add:lo` only
//! shows up at `kgroute review` time). The workbook fixes that:
//!
//! - sheet 1 (named after the batch): one row per section, the same columns
//!   as the CSV, header frozen and filters on, `node_id` and every other text
//!   column stored as text, counts stored as numbers, each row coloured by
//!   its match quality, widths that fit their contents;
//! - the `decision` column has a drop-down of every valid decision:
//!   `ignore`, `add:<tier>`, `retier:<tier>` and `alias:<entry>` for each
//!   entry of the index. An inline list is limited to 255 characters by
//!   Excel, so the choices live on a hidden `choices` sheet and the
//!   validation points at that range;
//! - a `summary` sheet with the batch's counts (the numbers of summary.md);
//! - past Excel's 1,048,576 rows a sheet, the sections go on in more sheets
//!   of the same form ([`SectionsWorkbook`]), so a batch of any size has
//!   every row in the workbook as in `sections.csv`.
//!
//! `kgroute review` reads the decisions back from this file too.

use super::sections_csv::{row, unguard_cell, COLUMNS};
use super::summary::{BatchSummary, Stats};
use super::{BatchReport, MatchQuality};
use crate::index::Tier;
use anyhow::Context;
use rust_xlsxwriter::{Color, DataValidation, Format, FormatBorder, Formula, Workbook, Worksheet};
use std::path::Path;

/// Name of the hidden sheet that holds the decision choices.
pub const CHOICES_SHEET: &str = "choices";
/// Name of the summary sheet.
pub const SUMMARY_SHEET: &str = "summary";

/// Columns written as numbers (when not empty).
const NUMERIC: [&str; 10] = [
    "doc_type_confidence",
    "start_line",
    "end_line",
    "chars",
    "match_score",
    "entities",
    "relations",
    "pruned",
    "tokens_in",
    "tokens_out",
];

/// Widest a column gets, in characters (long breadcrumbs wrap off-screen).
const MAX_WIDTH: usize = 60;

/// Most characters a workbook cell holds (Excel's limit; the writer refuses
/// a longer string, which would lose the whole workbook).
pub const MAX_CELL_CHARS: usize = 32_767;

/// What ends a cell cut to [`MAX_CELL_CHARS`]: the full text is in
/// `sections.csv` and the graph.
pub const CUT_MARKER: &str = " [... cut at Excel's cell limit; full text in sections.csv]";

/// `text` as one workbook cell: unchanged when it fits, else its start and
/// [`CUT_MARKER`], at most [`MAX_CELL_CHARS`] characters in all.
pub fn cell_text(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_CELL_CHARS) {
        None => std::borrow::Cow::Borrowed(text),
        Some(_) => {
            let keep = MAX_CELL_CHARS - CUT_MARKER.chars().count();
            let end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
            std::borrow::Cow::Owned(format!("{}{CUT_MARKER}", &text[..end]))
        }
    }
}

/// Every valid decision, in the order the drop-down offers them.
pub fn decision_choices(entries: &[String]) -> Vec<String> {
    let mut out = vec!["ignore".to_string()];
    out.extend(Tier::ALL.iter().map(|t| format!("add:{}", t.key())));
    out.extend(Tier::ALL.iter().map(|t| format!("retier:{}", t.key())));
    let mut titles: Vec<&String> = entries.iter().collect();
    titles.sort();
    titles.dedup();
    out.extend(titles.into_iter().map(|e| format!("alias:{e}")));
    out
}

/// Background colour of a row by match quality.
fn quality_color(q: MatchQuality) -> Color {
    Color::RGB(match q {
        MatchQuality::Perfect => 0xC6EFCE,
        MatchQuality::Deviation => 0xFFEB9C,
        MatchQuality::Mismatch => 0xFFC7CE,
        MatchQuality::New => 0xDDEBF7,
        MatchQuality::NotScanned => 0xEDEDED,
        // A failed extraction wants attention, like a mismatch but darker.
        MatchQuality::Failed => 0xF4B084,
        MatchQuality::Noise | MatchQuality::Empty => 0xF8F8F8,
    })
}

/// A valid sheet name from a batch id (at most 31 characters, none of
/// `[]:*?/\`, not `summary` or `choices`).
fn sheet_name(batch_id: &str) -> String {
    let clean: String = super::sanitize::sanitize_title(batch_id)
        .chars()
        .map(|c| if "[]:*?/\\'".contains(c) { '_' } else { c })
        .take(31)
        .collect();
    let clean = clean.trim().to_string();
    if clean.is_empty() || clean == SUMMARY_SHEET || clean == CHOICES_SHEET {
        "sections".to_string()
    } else {
        clean
    }
}

fn xlsx_err(path: &Path) -> impl Fn(rust_xlsxwriter::XlsxError) -> anyhow::Error + '_ {
    move |e| anyhow::anyhow!("cannot write {}: {e}", path.display())
}

/// Most rows one sheet of a workbook holds, its header included (Excel's
/// limit: 1,048,576).
pub const MAX_SHEET_ROWS: u32 = 1_048_576;

/// Writes `sections.xlsx`; the batch's `index_entries` are offered as
/// `alias:<entry>`. Returns how many sections sheets it took.
pub fn write_sections_xlsx(
    path: &Path,
    batch: &BatchReport,
    summary: &BatchSummary,
) -> anyhow::Result<usize> {
    let mut wb = SectionsWorkbook::new(path, batch, MAX_SHEET_ROWS)?;
    for doc in &batch.documents {
        wb.add(doc)?;
    }
    wb.finish(summary)
}

/// `sections.xlsx` written as documents finish. Every section gets its
/// row: when a sheet reaches `max_rows` (Excel's limit in a batch, a small
/// number in tests) the rows go on in a new sheet with the same header,
/// filters and drop-down (`<batch>`, `<batch> 2`, ...), so the workbook is
/// valid at any size. Sheets are written in constant-memory mode: a row
/// goes to a temp file once the next one starts, so memory stays flat.
pub struct SectionsWorkbook {
    path: std::path::PathBuf,
    wb: Workbook,
    base_name: String,
    choices: Vec<String>,
    max_rows: u32,
    /// Each sections sheet: its index in the workbook, its data rows and
    /// its column widths.
    sheets: Vec<SheetState>,
    header: Format,
}

struct SheetState {
    index: usize,
    rows: u32,
    widths: Vec<usize>,
}

impl SectionsWorkbook {
    pub fn new(path: &Path, batch: &BatchReport, max_rows: u32) -> anyhow::Result<Self> {
        anyhow::ensure!(max_rows >= 2, "a sheet must hold a header and a row");
        let header = Format::new()
            .set_bold()
            .set_background_color(Color::RGB(0xD9D9D9))
            .set_border_bottom(FormatBorder::Thin);
        let mut w = SectionsWorkbook {
            path: path.to_path_buf(),
            wb: Workbook::new(),
            base_name: sheet_name(&batch.batch_id),
            // A choice over the cell limit cannot be a cell, nor picked.
            choices: decision_choices(&batch.index_entries)
                .into_iter()
                .filter(|c| c.chars().count() <= MAX_CELL_CHARS)
                .collect(),
            max_rows,
            sheets: Vec::new(),
            header,
        };
        w.new_sheet()?;
        Ok(w)
    }

    fn new_sheet(&mut self) -> anyhow::Result<()> {
        let err = xlsx_err(&self.path);
        let n = self.sheets.len() + 1;
        let name = if n == 1 {
            self.base_name.clone()
        } else {
            let suffix = format!(" {n}");
            let keep = 31usize.saturating_sub(suffix.len());
            let base: String = self.base_name.chars().take(keep).collect();
            format!("{}{suffix}", base.trim_end())
        };
        let index = self.sheets.len();
        let sheet = self.wb.add_worksheet_with_constant_memory();
        sheet.set_name(name).map_err(&err)?;
        for (c, col) in COLUMNS.iter().enumerate() {
            sheet
                .write_string_with_format(0, c as u16, *col, &self.header)
                .map_err(&err)?;
        }
        self.sheets.push(SheetState {
            index,
            rows: 0,
            widths: COLUMNS.iter().map(|c| c.chars().count() + 2).collect(),
        });
        Ok(())
    }

    /// Every section of `doc`, one row each.
    pub fn add(&mut self, doc: &super::DocumentOutcome) -> anyhow::Result<()> {
        let path = self.path.clone();
        let err = xlsx_err(&path);
        for view in doc.sections() {
            if self.sheets.last().expect("one sheet").rows + 1 >= self.max_rows {
                self.new_sheet()?;
            }
            let state = self.sheets.last_mut().expect("one sheet");
            state.rows += 1;
            let r = state.rows;
            let sheet = self.wb.worksheet_from_index(state.index).map_err(&err)?;
            let fill = quality_color(view.quality);
            let text = Format::new().set_background_color(fill).set_num_format("@");
            let number = Format::new().set_background_color(fill);
            for (c, cell) in row(&view).iter().enumerate() {
                // A workbook cell is never run as a formula: no `'` guard.
                let cell = cell_text(unguard_cell(cell));
                let cell = cell.as_ref();
                state.widths[c] = state.widths[c].max(cell.chars().count() + 2);
                let col = c as u16;
                match cell.parse::<f64>() {
                    Ok(x) if NUMERIC.contains(&COLUMNS[c]) => {
                        sheet
                            .write_number_with_format(r, col, x, &number)
                            .map_err(&err)?;
                    }
                    _ => {
                        sheet
                            .write_string_with_format(r, col, cell, &text)
                            .map_err(&err)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Lays out every sections sheet (filters, drop-down, widths), adds the
    /// summary and choices sheets and saves the file (temp file + rename).
    /// Returns how many sections sheets the rows took.
    pub fn finish(mut self, summary: &BatchSummary) -> anyhow::Result<usize> {
        let err = xlsx_err(&self.path);
        let path = self.path.clone();
        let sheets = std::mem::take(&mut self.sheets);
        for state in &sheets {
            let sheet = self.wb.worksheet_from_index(state.index).map_err(&err)?;
            layout_sections_sheet(sheet, state.rows, &state.widths, &self.choices).map_err(&err)?;
        }

        let sheet = self.wb.add_worksheet();
        sheet.set_name(SUMMARY_SHEET).map_err(&err)?;
        write_summary_sheet(sheet, summary, &self.header).map_err(&err)?;

        // The validation of the sections sheets names this range.
        let sheet = self.wb.add_worksheet();
        sheet.set_name(CHOICES_SHEET).map_err(&err)?;
        for (i, c) in self.choices.iter().enumerate() {
            sheet.write_string(i as u32, 0, c).map_err(&err)?;
        }
        sheet.set_hidden(true);

        let tmp = path.with_file_name(format!(
            ".{}.tmp{}",
            path.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("sections.xlsx"),
            std::process::id()
        ));
        self.wb.save(&tmp).map_err(&err)?;
        std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
        Ok(sheets.len())
    }
}

/// Header frozen, filters over the rows, the decision drop-down and the
/// column widths of one sections sheet.
fn layout_sections_sheet(
    sheet: &mut Worksheet,
    rows: u32,
    widths: &[usize],
    choices: &[String],
) -> Result<(), rust_xlsxwriter::XlsxError> {
    let decision_col = COLUMNS.len() - 1;
    let last = rows.max(1);
    sheet.set_freeze_panes(1, 0)?;
    sheet.autofilter(0, 0, last, decision_col as u16)?;
    let list = Formula::new(format!("={CHOICES_SHEET}!$A$1:$A${}", choices.len().max(1)));
    let validation = DataValidation::new()
        .allow_list_formula(list)
        .set_input_title("decision")?
        .set_input_message(
            "Pick one: add:<tier>, alias:<entry>, retier:<tier> or ignore; blank = no change",
        )?
        .set_error_title("not a decision")?
        .set_error_message(
            "Choose from the list: add:<tier>, alias:<entry>, retier:<tier>, ignore",
        )?;
    sheet.add_data_validation(
        1,
        decision_col as u16,
        last,
        decision_col as u16,
        &validation,
    )?;
    let mut widths = widths.to_vec();
    widths[decision_col] = widths[decision_col].max(
        choices
            .iter()
            .map(|c| c.chars().count() + 4)
            .max()
            .unwrap_or(0),
    );
    for (c, w) in widths.iter().enumerate() {
        sheet.set_column_width(c as u16, (*w).min(MAX_WIDTH) as f64)?;
    }
    Ok(())
}

/// The summary sheet's columns: a label and the value from [`Stats`].
type StatColumn = (&'static str, fn(&Stats) -> f64);

const SUMMARY_COLUMNS: [StatColumn; 18] = [
    ("sections", |s| s.sections as f64),
    ("sent", |s| s.sent as f64),
    ("skipped", |s| s.skipped as f64),
    ("noise", |s| s.noise as f64),
    ("empty", |s| s.empty as f64),
    ("failed (of sent)", |s| s.failed_sections as f64),
    ("aligned sections", |s| s.aligned_sections as f64),
    ("perfect", |s| s.perfect as f64),
    ("deviations", |s| s.deviations as f64),
    ("mismatches", |s| s.mismatches as f64),
    ("new sections", |s| s.new_sections as f64),
    ("not scanned", |s| s.not_scanned as f64),
    ("audit-sampled", |s| s.audit_sampled as f64),
    ("calibrated", |s| s.calibrated as f64),
    ("perfect % of aligned", |s| s.perfect_pct),
    ("new % of aligned", |s| s.new_pct),
    ("LLM payload cut % of chars", |s| s.payload_cut_pct),
    ("cost USD", |s| s.cost_usd),
];

fn write_summary_sheet(
    sheet: &mut Worksheet,
    summary: &BatchSummary,
    header: &Format,
) -> Result<(), rust_xlsxwriter::XlsxError> {
    sheet.write_string_with_format(0, 0, "document", header)?;
    for (c, (name, _)) in SUMMARY_COLUMNS.iter().enumerate() {
        sheet.write_string_with_format(0, c as u16 + 1, *name, header)?;
        sheet.set_column_width(c as u16 + 1, (name.len() + 2) as f64)?;
    }
    let rows = summary
        .per_document
        .iter()
        .map(|d| (d.doc_name.as_str(), &d.stats))
        .chain(std::iter::once(("batch", &summary.totals)));
    let mut name_width = 10;
    for (r, (name, stats)) in rows.enumerate() {
        let r = r as u32 + 1;
        let name = super::sanitize::sanitize_title(name);
        name_width = name_width.max(name.chars().count() + 2);
        sheet.write_string(r, 0, cell_text(&name))?;
        for (c, (_, value)) in SUMMARY_COLUMNS.iter().enumerate() {
            sheet.write_number(r, c as u16 + 1, (value(stats) * 100.0).round() / 100.0)?;
        }
    }
    sheet.set_column_width(0, name_width.min(MAX_WIDTH) as f64)?;
    sheet.set_freeze_panes(1, 1)?;
    if let Some(note) = super::summary::offline_tiers_note(&summary.extractor) {
        let below = summary.per_document.len() as u32 + 3;
        sheet.write_string_with_format(below, 0, "Offline tiers", header)?;
        sheet.write_string(below, 1, note)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_past_excels_limit_is_cut_with_a_marker() {
        let short = "Governing Law";
        assert_eq!(cell_text(short), short);
        let fits = "é".repeat(MAX_CELL_CHARS);
        assert_eq!(cell_text(&fits), fits.as_str());
        let long = "é".repeat(MAX_CELL_CHARS + 1);
        let cut = cell_text(&long);
        assert_eq!(cut.chars().count(), MAX_CELL_CHARS);
        assert!(cut.ends_with(CUT_MARKER) && cut.starts_with("éé"));
    }

    #[test]
    fn sheet_names_are_valid() {
        assert_eq!(sheet_name("2026-12-01/b:1"), "2026-12-01_b_1");
        assert_eq!(sheet_name("summary"), "sections");
        assert_eq!(sheet_name(&"x".repeat(40)).len(), 31);
    }
}
