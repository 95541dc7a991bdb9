//! Writes a batch's register as documents finish: `register.jsonl` (every
//! fact, for machines), `register.csv` and `register.xlsx` (one row per
//! contract, one column per fact type, for people). Streamed, so a batch of
//! any size is written in the memory of one row.

use super::{write_jsonl, RegisterRow, REGISTER_JSONL};
use crate::extract::facts_vocabulary::{category_relation_type, CATEGORIES, RICHER};
use crate::report::sections_csv::{guard_cell, BOM};
use anyhow::Context;
use rust_xlsxwriter::{Color, Format, FormatBorder, Workbook};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub const REGISTER_CSV: &str = "register.csv";
pub const REGISTER_XLSX: &str = "register.xlsx";

/// Most characters a spreadsheet cell holds (Excel's limit).
pub const MAX_CELL_CHARS: usize = 32_767;

/// What ends a cell cut to [`MAX_CELL_CHARS`].
pub const CUT_MARKER: &str = " [cut: see register.jsonl]";

/// The columns before the fact types.
const LEAD: &[&str] = &["file", "doc_type", "title", "parties"];

/// (header, relation type) of every fact column, in the vocabulary's order.
pub fn fact_columns() -> Vec<(String, String)> {
    CATEGORIES
        .iter()
        .map(|c| (c.to_string(), category_relation_type(c)))
        .chain(RICHER.iter().map(|r| (title_case(r), r.to_string())))
        .collect()
}

fn title_case(ty: &str) -> String {
    ty.split('_')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_string() + &c.as_str().to_ascii_lowercase(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every header of the csv and the sheet.
pub fn header() -> Vec<String> {
    LEAD.iter()
        .map(|s| s.to_string())
        .chain(fact_columns().into_iter().map(|(h, _)| h))
        .collect()
}

/// `Name (Role, Role); Other (Role)`.
fn parties_cell(row: &RegisterRow) -> String {
    row.parties
        .iter()
        .map(|p| {
            if p.roles.is_empty() {
                p.name.clone()
            } else {
                format!("{} ({})", p.name, p.roles.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// One fact type's cell: the chosen value for a value type (its normal
/// form when it has one), else where each clause is (`§3.2 lines 40-52`,
/// distinct, in section order); `to check: ` and where, when only clauses
/// without a value were found; empty when the contract has none.
pub fn fact_cell(row: &RegisterRow, rel_type: &str) -> String {
    let Some(facts) = row.facts.get(rel_type).filter(|f| !f.is_empty()) else {
        return match row.to_check.get(rel_type).and_then(|f| f.first()) {
            Some(f) => format!("to check: {}", f.pointer()),
            None => String::new(),
        };
    };
    let first = &facts[0];
    if first.is_value() {
        let value = first
            .normalized
            .clone()
            .unwrap_or_else(|| first.value.clone());
        // `1 year (option)`: whether anyone must act for it to renew.
        return match row
            .renewal
            .as_deref()
            .filter(|_| rel_type == "RENEWAL_TERM")
        {
            Some(kind) => format!("{value} ({kind})"),
            None => value,
        };
    }
    let mut seen: Vec<String> = Vec::new();
    for f in facts {
        let p = f.pointer();
        if !seen.contains(&p) {
            seen.push(p);
        }
    }
    seen.join("; ")
}

/// The cells of one row, each within [`MAX_CELL_CHARS`].
pub fn cells(row: &RegisterRow) -> Vec<String> {
    [
        row.path.clone(),
        row.doc_type.clone(),
        row.title.clone(),
        parties_cell(row),
    ]
    .into_iter()
    .chain(fact_columns().iter().map(|(_, ty)| fact_cell(row, ty)))
    .map(|c| fit_cell(&c))
    .collect()
}

/// Cuts a cell to [`MAX_CELL_CHARS`] characters, ending with [`CUT_MARKER`].
pub fn fit_cell(text: &str) -> String {
    if text.chars().count() <= MAX_CELL_CHARS {
        return text.to_string();
    }
    let keep = MAX_CELL_CHARS - CUT_MARKER.chars().count();
    let mut out: String = text.chars().take(keep).collect();
    out.push_str(CUT_MARKER);
    out
}

/// The three register files of a batch, open while documents finish.
pub struct RegisterWriter {
    dir: PathBuf,
    jsonl: BufWriter<std::fs::File>,
    csv: csv::Writer<BufWriter<std::fs::File>>,
    wb: Workbook,
    rows: u32,
    widths: Vec<usize>,
}

fn tmp_of(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!(".{name}.tmp{}", std::process::id()))
}

fn xlsx_err(path: &Path) -> impl Fn(rust_xlsxwriter::XlsxError) -> anyhow::Error + '_ {
    move |e| anyhow::anyhow!("cannot write {}: {e}", path.display())
}

/// Rows of one sheet after its header (Excel's limit less one).
const MAX_ROWS: u32 = 1_048_575;

impl RegisterWriter {
    /// Opens the register files in `dir` (written to temp files, put in
    /// place by [`Self::finish`]).
    pub fn create(dir: &Path) -> anyhow::Result<Self> {
        let open = |name: &str| -> anyhow::Result<BufWriter<std::fs::File>> {
            let p = tmp_of(dir, name);
            Ok(BufWriter::new(std::fs::File::create(&p).with_context(
                || format!("cannot write {}", p.display()),
            )?))
        };
        let jsonl = open(REGISTER_JSONL)?;
        let mut file = open(REGISTER_CSV)?;
        file.write_all(BOM.as_bytes())
            .with_context(|| format!("cannot write {}", tmp_of(dir, REGISTER_CSV).display()))?;
        let mut csv = csv::WriterBuilder::new()
            .quote_style(csv::QuoteStyle::Necessary)
            .from_writer(file);
        let head = header();
        csv.write_record(&head)?;

        let xlsx = dir.join(REGISTER_XLSX);
        let err = xlsx_err(&xlsx);
        let mut wb = Workbook::new();
        let bold = Format::new()
            .set_bold()
            .set_background_color(Color::RGB(0xD9D9D9))
            .set_border_bottom(FormatBorder::Thin);
        let sheet = wb.add_worksheet_with_constant_memory();
        sheet.set_name("register").map_err(&err)?;
        for (c, h) in head.iter().enumerate() {
            sheet
                .write_string_with_format(0, c as u16, h, &bold)
                .map_err(&err)?;
        }
        Ok(RegisterWriter {
            dir: dir.to_path_buf(),
            jsonl,
            csv,
            wb,
            rows: 0,
            widths: head.iter().map(|h| h.chars().count() + 2).collect(),
        })
    }

    /// One contract, in batch order.
    pub fn add(&mut self, row: &RegisterRow) -> anyhow::Result<()> {
        let jsonl = tmp_of(&self.dir, REGISTER_JSONL);
        write_jsonl(std::slice::from_ref(row), &mut self.jsonl)
            .with_context(|| format!("writing {}", jsonl.display()))?;
        let cells = cells(row);
        let guarded: Vec<String> = cells.iter().map(|c| guard_cell(c)).collect();
        self.csv
            .write_record(&guarded)
            .with_context(|| format!("writing {}", tmp_of(&self.dir, REGISTER_CSV).display()))?;
        if self.rows >= MAX_ROWS {
            return Ok(());
        }
        self.rows += 1;
        let xlsx = self.dir.join(REGISTER_XLSX);
        let err = xlsx_err(&xlsx);
        let sheet = self.wb.worksheet_from_index(0).map_err(&err)?;
        for (c, cell) in cells.iter().enumerate() {
            self.widths[c] = self.widths[c].max(cell.chars().count().min(60) + 2);
            // A workbook cell is never run as a formula: no `'` guard.
            sheet
                .write_string(self.rows, c as u16, cell)
                .map_err(&err)?;
        }
        Ok(())
    }

    /// Puts the three files in place.
    pub fn finish(mut self) -> anyhow::Result<()> {
        let put = |name: &str| -> anyhow::Result<()> {
            let to = self.dir.join(name);
            std::fs::rename(tmp_of(&self.dir, name), &to)
                .with_context(|| format!("writing {}", to.display()))
        };
        self.jsonl
            .flush()
            .with_context(|| format!("writing {}", tmp_of(&self.dir, REGISTER_JSONL).display()))?;
        drop(self.jsonl);
        put(REGISTER_JSONL)?;
        self.csv
            .flush()
            .with_context(|| format!("writing {}", tmp_of(&self.dir, REGISTER_CSV).display()))?;
        drop(self.csv);
        put(REGISTER_CSV)?;

        let xlsx = self.dir.join(REGISTER_XLSX);
        let err = xlsx_err(&xlsx);
        let sheet = self.wb.worksheet_from_index(0).map_err(&err)?;
        let last_col = (self.widths.len() - 1) as u16;
        sheet.set_freeze_panes(1, 1).map_err(&err)?;
        sheet
            .autofilter(0, 0, self.rows.max(1), last_col)
            .map_err(&err)?;
        for (c, w) in self.widths.iter().enumerate() {
            sheet.set_column_width(c as u16, *w as f64).map_err(&err)?;
        }
        let tmp = tmp_of(&self.dir, REGISTER_XLSX);
        self.wb.save(&tmp).map_err(&err)?;
        std::fs::rename(&tmp, &xlsx).with_context(|| format!("writing {}", xlsx.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::register::RegisterFact;

    #[test]
    fn a_field_found_without_a_value_is_a_cell_to_check_not_a_value() {
        let clause = RegisterFact {
            value: "This Agreement shall remain in effect for the Term.".into(),
            node_id: "0012".into(),
            start_line: 40,
            end_line: 52,
            ..Default::default()
        };
        let mut row = RegisterRow::default();
        row.to_check
            .insert("EXPIRATION_DATE".into(), vec![clause.clone()]);
        let cell = fact_cell(&row, "EXPIRATION_DATE");
        assert!(cell.starts_with("to check: "), "{cell}");
        assert!(cell.contains(&clause.pointer()), "{cell}");
        assert!(!cell.contains("remain in effect"), "{cell}");
        assert_eq!(fact_cell(&row, "GOVERNING_LAW"), "");
    }

    #[test]
    fn the_renewal_cell_says_whether_anyone_must_act() {
        let renewal = RegisterFact {
            value: "one (1) year".into(),
            normalized: Some("1 year".into()),
            ..Default::default()
        };
        let mut row = RegisterRow::default();
        row.facts.insert("RENEWAL_TERM".into(), vec![renewal]);
        assert_eq!(fact_cell(&row, "RENEWAL_TERM"), "1 year");
        row.renewal = Some("option".into());
        assert_eq!(fact_cell(&row, "RENEWAL_TERM"), "1 year (option)");
    }

    #[test]
    fn a_long_cell_is_cut_with_a_marker_within_the_limit() {
        let long = "é".repeat(MAX_CELL_CHARS + 10);
        let cut = fit_cell(&long);
        assert_eq!(cut.chars().count(), MAX_CELL_CHARS);
        assert!(cut.ends_with(CUT_MARKER));
        assert_eq!(fit_cell("short"), "short");
    }
}
