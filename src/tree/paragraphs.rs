//! The paragraphs of a section's text as the rules read them and the
//! clause model scores them: PDF-to-Markdown tags stripped and quotes
//! straightened, contents-page lines and signature columns undone, lines
//! joined into paragraphs. Below both readers (and routing, which scores
//! paragraphs before any is read) so that all see the same units.

use super::label::collapse_spaces;
use once_cell::sync::Lazy;
use regex::Regex;

/// The paragraphs the rules read in a section's text (cleaned, contents
/// lines and page columns undone): the unit the clause model is trained
/// on and scores, so both see the same text.
pub fn paragraphs_of(section_text: &str) -> Vec<String> {
    let unfolded = unfold_columns(section_text);
    paragraphs(&without_contents_lines(&clean(
        unfolded.as_deref().unwrap_or(section_text),
    )))
}

static TAG: Lazy<Regex> = Lazy::new(|| Regex::new(r"</?[A-Za-z][A-Za-z0-9]*[^<>]*>").unwrap());

/// A list clause: `(a) ...`, `(iv) ...`.
pub static LIST_CLAUSE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\(([a-z]{1,2}|[ivx]{1,5}|\d{1,2})\)\s+").unwrap());

/// The end of a table cell (`</td>`, `</th>`) and a line break (`<br>`):
/// PDF-to-Markdown output puts each cell on its own line, so without a mark
/// a row reads as one phrase (`Dollars JPMorgan Chase Bank, N.A.`).
static CELL_END: Lazy<Regex> = Lazy::new(|| Regex::new(r"(?i)</t[dh]\s*>").unwrap());
static LINE_BREAK: Lazy<Regex> = Lazy::new(|| Regex::new(r"(?i)<br\s*/?>").unwrap());

/// A signature-block field (`By: /s/ ...`, `Name: ...`, `Title: ...`):
/// a line of its own, never the start of the next party's name.
pub static SIGNATURE_FIELD: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^(?:By|Name|Title|Its)\s*:").unwrap());

/// Strips HTML-like tags from PDF-to-Markdown output and straightens quotes.
/// Table cells end with ` |` so that no name runs from one cell into the
/// next; line breaks become spaces.
pub fn clean(text: &str) -> String {
    let t = CELL_END.replace_all(text, " |");
    let t = LINE_BREAK.replace_all(&t, " ");
    let t = TAG.replace_all(&t, "");
    t.chars()
        .map(|c| match c {
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{00AB}' | '\u{00BB}' => '"',
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{00A0}' => ' ',
            c => c,
        })
        .collect()
}

/// Paragraphs: runs of non-blank lines, joined with spaces (wrapped plain
/// text becomes one line per paragraph). In wrapped text without blank
/// lines, a line opening with a quoted term (a definition) or a list clause
/// after `;` or `:` also starts a paragraph. A signature-block field
/// (`Title: Country Head`) is a paragraph of its own.
pub fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    for l in text.lines() {
        let t = l.trim();
        let starts_new = !cur.is_empty()
            && (t.starts_with('"')
                || SIGNATURE_FIELD.is_match(t)
                || cur.last().is_some_and(|p| SIGNATURE_FIELD.is_match(p))
                || (LIST_CLAUSE.is_match(t)
                    && cur.last().is_some_and(|p| p.ends_with([';', ':']))));
        if (t.is_empty() || starts_new) && !cur.is_empty() {
            out.push(collapse_spaces(&cur.join(" ")));
            cur.clear();
        }
        if !t.is_empty() {
            cur.push(t);
        }
    }
    if !cur.is_empty() {
        out.push(collapse_spaces(&cur.join(" ")));
    }
    // A cover page sets each part of a party's line apart (`TAMPA ELECTRIC
    // COMPANY,` / `a Florida Corporation,` / `as Borrower`): a paragraph
    // that opens in lower case after one ending in a comma continues it.
    let mut merged: Vec<String> = Vec::with_capacity(out.len());
    for p in out {
        match merged.last_mut() {
            Some(prev)
                if prev.ends_with(',') && p.chars().next().is_some_and(char::is_lowercase) =>
            {
                prev.push(' ');
                prev.push_str(&p);
            }
            _ => merged.push(p),
        }
    }
    merged
}

/// One line of a contents page: a heading label, a title and a page number
/// (`Section 2.04 Swing Line Loans 26`, `Article 5. COVENANTS 50`).
static CONTENTS_LINE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i)^\s*(?:section|article|exhibit|schedule|annex|appendix)\s+[\dIVXLC]+(?:\.\d+)*[A-Z]?\.?\s+\S.{0,160}?\s(?:\d{1,3}|[ivx]{1,5})\s*$")
        .unwrap()
});

/// `text` without the lines of a contents page (see [`CONTENTS_LINE`]) and
/// without the page numbers standing alone between them; a line with a verb
/// of running text is kept whatever its shape.
pub fn without_contents_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for l in text.lines() {
        if CONTENTS_LINE.is_match(l) && !PROSE.is_match(l) {
            out.push('\n');
            continue;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// Words of running text that a contents line never holds.
pub static PROSE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:shall|means|agrees?|hereby|will|may|is|are|has|have|was|were)\b").unwrap()
});

/// A row of column labels in a signature page laid out side by side:
/// `SNAP:          SPONSOR:`, `COMPANY:     CONSULTANT:`.
static LABEL_ROW: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^\s*(?:[A-Z][A-Za-z\-]*(?:\s[A-Z][A-Za-z\-]*){0,2}\s*:)(?:\s{3,}[A-Z][A-Za-z\-]*(?:\s[A-Z][A-Za-z\-]*){0,2}\s*:?){1,3}\s*$")
        .unwrap()
});

/// Cells of a row laid out in columns: runs of text between gaps of three
/// or more spaces.
static GAP: Lazy<Regex> = Lazy::new(|| Regex::new(r"\s{3,}").unwrap());

/// Signature blocks read by column: a row of labels (`COMPANY:
/// CONSULTANT:`) over a row holding one name per column (`Acme Inc.
/// Jane Roe`) becomes one `LABEL: name` line per column, so each name is
/// read with its own label, not with its neighbour's. `None` when the text
/// has no such rows (the usual case: nothing is copied).
pub fn unfold_columns(text: &str) -> Option<String> {
    if !text.contains(":  ") {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut changed = false;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if LABEL_ROW.is_match(l) {
            let labels: Vec<&str> = GAP.split(l.trim()).collect();
            // The names' row: the next non-blank line, at most two down.
            let next = (i + 1..lines.len().min(i + 4)).find(|&k| !lines[k].trim().is_empty());
            if let Some(k) = next {
                let cells: Vec<&str> = GAP.split(lines[k].trim()).collect();
                if cells.len() == labels.len() && !cells.iter().any(|c| c.contains(':')) {
                    for (label, cell) in labels.iter().zip(&cells) {
                        let label = label.trim().trim_end_matches(':');
                        out.push(format!("{label}: {cell}"));
                        out.push(String::new());
                    }
                    changed = true;
                    i = k + 1;
                    continue;
                }
            }
        }
        out.push(l.to_string());
        i += 1;
    }
    changed.then(|| out.join("\n"))
}
