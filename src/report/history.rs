//! `reports/history.csv`: one row per batch, so index owners can watch the
//! index stabilise (the article: 30% -> 23% -> 21% new sections).

use super::BatchSummary;
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One batch in the history file; the field order is the column order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryRow {
    pub batch_id: String,
    pub finished_at: String,
    pub index_version: String,
    pub documents: usize,
    pub sections: usize,
    pub perfect_pct: String,
    pub mismatch_pct: String,
    pub new_pct: String,
    pub payload_cut_pct: String,
}

/// The history header, in order.
pub const HISTORY_COLUMNS: [&str; 9] = [
    "batch_id",
    "finished_at",
    "index_version",
    "documents",
    "sections",
    "perfect_pct",
    "mismatch_pct",
    "new_pct",
    "payload_cut_pct",
];

impl HistoryRow {
    pub fn from_summary(s: &BatchSummary) -> Self {
        let t = &s.totals;
        HistoryRow {
            batch_id: s.batch_id.clone(),
            finished_at: s.finished_at.clone(),
            index_version: s.index_version.clone(),
            documents: s.documents,
            sections: t.sections,
            perfect_pct: format!("{:.1}", t.perfect_pct),
            mismatch_pct: format!("{:.1}", t.mismatch_pct),
            new_pct: format!("{:.1}", t.new_pct),
            payload_cut_pct: format!("{:.1}", t.payload_cut_pct),
        }
    }
}

/// Records the batch's row in `history_csv`, creating the file (and its
/// folder) with a header when missing. A batch already in the file (a
/// `--resume`d one) has its row replaced, so each batch counts once.
pub fn record_history(history_csv: &Path, summary: &BatchSummary) -> anyhow::Result<()> {
    if let Some(dir) = history_csv.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let exists = std::fs::metadata(history_csv).is_ok_and(|m| m.len() > 0);
    let mut rows = if exists {
        read_history(history_csv)?
    } else {
        Vec::new()
    };
    let row = HistoryRow::from_summary(summary);
    match rows.iter_mut().find(|r| r.batch_id == row.batch_id) {
        Some(old) => *old = row,
        None => rows.push(row),
    }
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    w.write_record(HISTORY_COLUMNS)?;
    for r in &rows {
        w.serialize(r)?;
    }
    let bytes = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::atomic_file::write_atomic(history_csv, &bytes)
        .with_context(|| format!("cannot write {}", history_csv.display()))
}

/// Reads every row of a history file; errors name the file and line.
pub fn read_history(history_csv: &Path) -> anyhow::Result<Vec<HistoryRow>> {
    let mut r = csv::Reader::from_path(history_csv).with_context(|| {
        format!(
            "cannot read {} (it is written by `kgroute ingest`; run a batch first)",
            history_csv.display()
        )
    })?;
    let headers = r.headers()?.clone();
    if headers.iter().ne(HISTORY_COLUMNS) {
        anyhow::bail!(
            "{}:1: unexpected header {:?}; expected {}",
            history_csv.display(),
            headers.iter().collect::<Vec<_>>(),
            HISTORY_COLUMNS.join(",")
        );
    }
    let mut rows = Vec::new();
    for rec in r.deserialize() {
        let row: HistoryRow = rec.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            anyhow::anyhow!("{}:{line}: {e}", history_csv.display())
        })?;
        rows.push(row);
    }
    Ok(rows)
}

/// Renders rows as a table with aligned columns (numbers right-aligned).
pub fn render_table(rows: &[HistoryRow]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            // Read from a file anyone can edit: text, never a terminal command.
            let text = |s: &str| super::sanitize::sanitize_title(s).into_owned();
            vec![
                text(&r.batch_id),
                text(&r.finished_at),
                text(&r.index_version),
                r.documents.to_string(),
                r.sections.to_string(),
                r.perfect_pct.clone(),
                r.mismatch_pct.clone(),
                r.new_pct.clone(),
                r.payload_cut_pct.clone(),
            ]
        })
        .collect();
    let header = [
        "batch",
        "finished",
        "index",
        "docs",
        "sections",
        "perfect%",
        "mismatch%",
        "new%",
        "cut%",
    ];
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let fmt_row = |row: &[String]| {
        row.iter()
            .enumerate()
            .map(|(i, c)| {
                if i >= 3 {
                    format!("{c:>w$}", w = widths[i])
                } else {
                    format!("{c:<w$}", w = widths[i])
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = fmt_row(&header.map(String::from));
    out.push('\n');
    for row in &cells {
        out.push_str(&fmt_row(row));
        out.push('\n');
    }
    out
}
