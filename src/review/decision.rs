//! Reading the reviewer's decisions from the `decision` column of
//! `sections.csv` or `sections.xlsx`. Every bad row is collected; errors name the file and the
//! CSV line, and list the valid choices.

use crate::index::{normalize_title, Tier};
use crate::report::display_title;
use crate::report::sections_csv::{strip_bom, unguard_cell};
use anyhow::{Context, Result};
use std::collections::HashMap;
use std::path::Path;

/// What a reviewer decided for one section.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// `add:<tier>`: the (new) heading becomes an entry of that tier.
    Add(Tier),
    /// `alias:<entry>`: the heading becomes an alias of that entry.
    Alias(String),
    /// `retier:<tier>`: the matched entry moves to that tier.
    Retier(Tier),
    /// `ignore`: bespoke; leave the index alone.
    Ignore,
}

/// One decided row.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// `sections.csv:<line>` with the row's doc and node, for messages.
    pub origin: String,
    pub doc_id: String,
    pub node_id: String,
    /// The heading as written in the CSV.
    pub heading: String,
    /// Numbering stripped: what goes into the index.
    pub title: String,
    pub matched_entry: Option<String>,
    /// The row's `doc_type` (`None` in reports without the column): the
    /// index a folder review writes the decision into.
    pub doc_type: Option<String>,
    pub action: Action,
    /// The cell as typed.
    pub raw: String,
}

/// Longest title (in characters) a decision writes into an index. A real
/// heading is a line; past this it is a paragraph the tree took for one,
/// and an index entry that long would be in every report's drop-down.
pub const MAX_TITLE_CHARS: usize = 500;

pub const VALID_DECISIONS: &str = "add:<tier>, alias:<entry>, retier:<tier>, ignore";

fn valid_tiers() -> String {
    Tier::ALL.map(|t| t.key()).join(", ")
}

/// Parses one `decision` cell; `Ok(None)` for a blank one.
pub fn parse_action(cell: &str) -> Result<Option<Action>, String> {
    let cell = cell.trim();
    if cell.is_empty() {
        return Ok(None);
    }
    let (verb, arg) = match cell.split_once(':') {
        Some((v, a)) => (v.trim().to_ascii_lowercase(), Some(a.trim())),
        None => (cell.to_ascii_lowercase(), None),
    };
    let tier = |arg: Option<&str>| -> Result<Tier, String> {
        let a = arg.unwrap_or("");
        Tier::parse(a).ok_or_else(|| {
            format!(
                "unknown tier `{a}` in `{cell}`; valid tiers: {} (e.g. `{verb}:medium`)",
                valid_tiers()
            )
        })
    };
    match (verb.as_str(), arg) {
        ("add", a) => tier(a).map(|t| Some(Action::Add(t))),
        ("retier", a) => tier(a).map(|t| Some(Action::Retier(t))),
        ("alias", Some(a)) if !a.is_empty() => Ok(Some(Action::Alias(a.to_string()))),
        ("alias", _) => Err(format!(
            "`{cell}` names no entry; write `alias:<existing entry title>`, e.g. `alias:Definitions`"
        )),
        ("ignore", None) => Ok(Some(Action::Ignore)),
        _ => Err(format!(
            "unknown decision `{cell}`; valid decisions: {VALID_DECISIONS}"
        )),
    }
}

/// Node ids are zero-padded to four digits (`0004`); a spreadsheet that
/// re-saves the CSV reads them as numbers and writes `4`. Pads them back.
pub fn restore_node_id(cell: &str) -> String {
    let t = cell.trim();
    if !t.is_empty() && t.len() < 4 && t.bytes().all(|b| b.is_ascii_digit()) {
        format!("{t:0>4}")
    } else {
        t.to_string()
    }
}

/// The columns review needs.
const NEEDED: [&str; 5] = ["doc_id", "node_id", "heading", "matched_entry", "decision"];

/// A sheet of rows as strings: the header and each data row with the line
/// (CSV) or row number (xlsx) a reviewer sees it at.
pub(super) struct Table {
    pub(super) headers: Vec<String>,
    pub(super) rows: Vec<(usize, Vec<String>)>,
}

/// Reads a `sections.csv` as it was saved: UTF-8 with or without a BOM,
/// UTF-16 with a BOM, else Windows-1252 (a spreadsheet's "CSV" on a Western
/// Windows); separated by `,`, `;` (Excel where the decimal mark is a comma)
/// or tabs, whichever makes the header hold the columns review needs.
/// Unreadable records go to `errors` with the line a text editor shows.
pub(super) fn read_csv(csv_path: &Path, errors: &mut Vec<String>) -> Result<Table> {
    let file = csv_path.display().to_string();
    let bytes = std::fs::read(csv_path).with_context(|| format!("cannot read {file}"))?;
    // CRLF as LF: the reader's line numbers then match an editor's (a
    // spreadsheet's CRLF file was reported one line too low).
    let text = decode_csv(&bytes)
        .map_err(|e| anyhow::anyhow!("{file}:{e}"))?
        .replace("\r\n", "\n");
    let delimiter = sniff_delimiter(&text);
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .delimiter(delimiter)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .with_context(|| format!("{file}:1: cannot read the header"))?
        .iter()
        .map(|h| strip_bom(h).to_string())
        .collect();
    let mut rows = Vec::new();
    for rec in reader.records() {
        match rec {
            Ok(r) => {
                let line = r.position().map_or(0, |p| p.line() as usize);
                // Only the CSV guards formula-looking cells.
                rows.push((
                    line,
                    r.iter().map(|c| unguard_cell(c).to_string()).collect(),
                ));
            }
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                errors.push(format!("{file}:{line}: {e}"));
            }
        }
    }
    Ok(Table { headers, rows })
}

/// The text of a CSV file in the encoding it was saved in (see
/// [`read_csv`]). Bytes that are not UTF-8 are read as Windows-1252, also
/// after a UTF-8 BOM (a tool that wrote the BOM and then the spreadsheet's
/// own bytes): decoding those as UTF-8 put U+FFFD into the index (issue
/// 37). A file that mixes both (UTF-8 accents and bytes that are not) has
/// no one right reading and is refused, as is malformed UTF-16; the error
/// names the line of the first bad byte.
pub fn decode_csv(bytes: &[u8]) -> Result<String, String> {
    if let Some((enc, bom)) = encoding_rs::Encoding::for_bom(bytes) {
        if enc != encoding_rs::UTF_8 {
            let (text, had_errors) = enc.decode_without_bom_handling(&bytes[bom..]);
            if had_errors {
                let at = text.find('\u{fffd}').unwrap_or(0);
                return Err(format!(
                    "line {}: malformed {} text; save the sheet again as \"CSV UTF-8\"",
                    text[..at].matches('\n').count() + 1,
                    enc.name()
                ));
            }
            return Ok(text.into_owned());
        }
        return utf8_or_cp1252(&bytes[bom..]);
    }
    utf8_or_cp1252(bytes)
}

/// UTF-8 when it is; Windows-1252 when no character of it is UTF-8 beyond
/// ASCII; an error at the first byte that is not UTF-8 when both occur.
fn utf8_or_cp1252(bytes: &[u8]) -> Result<String, String> {
    if let Ok(t) = std::str::from_utf8(bytes) {
        return Ok(t.to_string());
    }
    let mut utf8_beyond_ascii = false;
    let mut first_bad = None;
    let mut offset = 0;
    for chunk in bytes.utf8_chunks() {
        utf8_beyond_ascii |= !chunk.valid().is_ascii();
        offset += chunk.valid().len();
        if !chunk.invalid().is_empty() && first_bad.is_none() {
            first_bad = Some(offset);
        }
        offset += chunk.invalid().len();
    }
    if utf8_beyond_ascii {
        let at = first_bad.unwrap_or(0);
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        return Err(format!(
            "line {line}: mixes UTF-8 characters with bytes that are not UTF-8 (byte 0x{:02X}), \
             so no one encoding reads it; save the sheet again as \"CSV UTF-8\"",
            bytes[at]
        ));
    }
    Ok(encoding_rs::WINDOWS_1252
        .decode_without_bom_handling(bytes)
        .0
        .into_owned())
}

/// The separator of the header line: of `,`, `;` and tab, the one that
/// splits it into the most of the columns review needs (then into the most
/// fields); `,` when none does.
pub fn sniff_delimiter(text: &str) -> u8 {
    let header = text.lines().next().unwrap_or("");
    let score = |d: u8| -> (usize, usize) {
        let mut r = csv::ReaderBuilder::new()
            .has_headers(false)
            .delimiter(d)
            .from_reader(header.as_bytes());
        let Some(Ok(rec)) = r.records().next() else {
            return (0, 0);
        };
        let needed = rec
            .iter()
            .filter(|h| NEEDED.contains(&strip_bom(h).trim()))
            .count();
        (needed, rec.len())
    };
    // On a tie the earlier candidate wins (`,` first).
    [b',', b';', b'\t']
        .into_iter()
        .enumerate()
        .map(|(i, d)| (score(d), std::cmp::Reverse(i), d))
        .max()
        .filter(|(s, _, _)| s.1 > 1)
        .map_or(b',', |(_, _, d)| d)
}

/// The text of a workbook cell as the CSV would hold it (`12` for a whole
/// number a spreadsheet stored as `12.0`).
fn cell_text(d: &calamine::Data) -> String {
    use calamine::Data;
    match d {
        Data::Empty => String::new(),
        Data::String(s) | Data::DateTimeIso(s) | Data::DurationIso(s) => s.clone(),
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
        Data::Float(f) => f.to_string(),
        Data::Int(i) => i.to_string(),
        Data::Bool(b) => b.to_string(),
        Data::DateTime(t) => t.to_string(),
        Data::Error(e) => e.to_string(),
    }
}

/// Reads the sections sheets of a `sections.xlsx`: every sheet whose header
/// has the columns review needs (a large batch's rows go on over several
/// sheets of one header), rows in sheet order.
fn read_xlsx(path: &Path) -> Result<Table> {
    use calamine::Reader;
    let file = path.display().to_string();
    let mut wb =
        calamine::open_workbook_auto(path).with_context(|| format!("cannot read {file}"))?;
    let mut table: Option<Table> = None;
    for name in wb.sheet_names() {
        let range = wb
            .worksheet_range(&name)
            .with_context(|| format!("{file}: cannot read sheet `{name}`"))?;
        let (top, _) = range.start().unwrap_or((0, 0));
        let mut rows = range.rows();
        let Some(header) = rows.next() else { continue };
        let headers: Vec<String> = header.iter().map(cell_text).collect();
        if !NEEDED.iter().all(|n| headers.iter().any(|h| h == n)) {
            continue;
        }
        let t = table.get_or_insert_with(|| Table {
            headers: headers.clone(),
            rows: Vec::new(),
        });
        if t.headers != headers {
            continue;
        }
        t.rows.extend(
            rows.enumerate()
                .map(|(i, r)| (top as usize + i + 2, r.iter().map(cell_text).collect())),
        );
    }
    table.ok_or_else(|| {
        anyhow::anyhow!(
            "{file}: no sheet with the columns {}; expected the sections.xlsx written by `kgroute ingest`",
            NEEDED.join(", ")
        )
    })
}

/// Whether a path names a workbook rather than a CSV.
pub fn is_workbook(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        matches!(
            e.to_ascii_lowercase().as_str(),
            "xlsx" | "xlsm" | "xls" | "ods"
        )
    })
}

/// Reads every non-blank decision of a `sections.csv` or `sections.xlsx`.
/// Returns the valid decisions and every problem found (each naming the
/// file and line, or row for a workbook); an `Err` only when the file cannot
/// be read as a sections report at all.
pub fn read_decisions(path: &Path) -> Result<(Vec<Decision>, Vec<String>)> {
    let file = path.display().to_string();
    let mut errors = Vec::new();
    let table = if is_workbook(path) {
        read_xlsx(path)?
    } else {
        read_csv(path, &mut errors)?
    };
    let mut col = HashMap::new();
    for name in NEEDED {
        let Some(i) = table.headers.iter().position(|h| h == name) else {
            anyhow::bail!(
                "{file}:1: no `{name}` column; expected the sections.csv written by `kgroute ingest`"
            );
        };
        col.insert(name, i);
    }
    let type_col = table.headers.iter().position(|h| h == "doc_type");
    let mut decisions = Vec::new();
    for (line, rec) in &table.rows {
        // Every cell is echoed in messages: control characters out first.
        let cell = |name: &str| {
            let raw = crate::report::sanitize_title(rec.get(col[name]).map_or("", String::as_str));
            let raw = raw.as_ref();
            if name == "node_id" {
                restore_node_id(raw)
            } else {
                raw.to_string()
            }
        };
        let origin = format!(
            "{file}:{line} (doc {}, node {})",
            cell("doc_id"),
            cell("node_id")
        );
        match parse_action(&cell("decision")) {
            Ok(None) => {}
            Ok(Some(action)) => {
                let heading = cell("heading");
                let matched = cell("matched_entry");
                let title = display_title(&heading);
                let chars = title.chars().count();
                if chars > MAX_TITLE_CHARS && matches!(action, Action::Add(_) | Action::Alias(_)) {
                    errors.push(format!(
                        "{origin}: the heading is {chars} characters, more than the {MAX_TITLE_CHARS} \
                         an index title may have; it is a paragraph, not a title: decide `ignore` or \
                         leave the row blank"
                    ));
                    continue;
                }
                decisions.push(Decision {
                    origin,
                    doc_id: cell("doc_id"),
                    node_id: cell("node_id"),
                    title,
                    heading,
                    matched_entry: (!matched.trim().is_empty()).then_some(matched),
                    doc_type: type_col.map(|i| {
                        crate::report::sanitize_title(rec.get(i).map_or("", String::as_str))
                            .trim()
                            .to_string()
                    }),
                    action,
                    raw: cell("decision").trim().to_string(),
                });
            }
            Err(msg) => errors.push(format!("{origin}: {msg}")),
        }
    }
    Ok((decisions, errors))
}

/// Which index name a decision is about: the row's document type, then the
/// heading for add/alias/ignore or the matched entry for retier (the same
/// title in two types' indices is two subjects).
fn subject(d: &Decision) -> (Option<String>, bool, String) {
    let ty = d.doc_type.clone();
    match d.action {
        Action::Retier(_) => (
            ty,
            true,
            normalize_title(d.matched_entry.as_deref().unwrap_or("")),
        ),
        _ => (ty, false, normalize_title(&d.title)),
    }
}

/// Collapses identical decisions about the same title (the same heading
/// occurs in many documents); conflicting ones go to `errors` and are
/// dropped.
pub fn dedupe(decisions: Vec<Decision>, errors: &mut Vec<String>) -> Vec<Decision> {
    let mut first: HashMap<(Option<String>, bool, String), Decision> = HashMap::new();
    let mut out = Vec::new();
    for d in decisions {
        let key = subject(&d);
        match first.get(&key) {
            Some(f) if f.action == d.action => {}
            Some(f) => errors.push(format!(
                "{}: `{}` for `{}` conflicts with `{}` at {}",
                d.origin, d.raw, d.title, f.raw, f.origin
            )),
            None => {
                first.insert(key, d.clone());
                out.push(d);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_choice_the_workbook_offers_parses_as_a_decision() {
        let c = crate::report::sections_xlsx::decision_choices(&[
            "Definitions".into(),
            "Agent’s Fees".into(),
            "Definitions".into(),
        ]);
        assert_eq!(c[0], "ignore");
        assert!(c.contains(&"add:very_low".to_string()));
        assert!(c.contains(&"retier:medium".to_string()));
        assert_eq!(c.iter().filter(|x| *x == "alias:Definitions").count(), 1);
        assert!(c.contains(&"alias:Agent’s Fees".to_string()));
        for choice in &c {
            assert!(parse_action(choice).is_ok(), "{choice} must parse");
        }
    }

    fn table_of(bytes: &[u8]) -> (Table, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sections.csv");
        std::fs::write(&p, bytes).unwrap();
        let mut errors = Vec::new();
        let t = read_csv(&p, &mut errors).unwrap();
        (t, errors)
    }

    #[test]
    fn excel_dialects_read_like_the_original() {
        let header = "doc_id,node_id,heading,matched_entry,decision\n";
        let row = "d1,0002,\"Gesch\u{e4}ft, Caf\u{e9}\",,add:high\n";
        let original = format!("{header}{row}");
        // Excel in a comma-decimal locale: `;`, Windows-1252, CRLF.
        let semi = original
            .replace(",\"", ";\"")
            .replace("\",", "\";")
            .replace(
                "doc_id,node_id,heading,matched_entry,decision",
                "doc_id;node_id;heading;matched_entry;decision",
            )
            .replace("d1,0002", "d1;0002")
            .replace(",add", ";add")
            .replace('\n', "\r\n");
        let (cp1252, _, _) = encoding_rs::WINDOWS_1252.encode(&semi);
        let mut bom_utf8 = b"\xEF\xBB\xBF".to_vec();
        bom_utf8.extend_from_slice(original.as_bytes());
        let tabs = original
            .replace(",\"", "\t\"")
            .replace("\",", "\"\t")
            .replace("d1,0002", "d1\t0002")
            .replace(",add", "\tadd")
            .replace(
                "doc_id,node_id,heading,matched_entry,decision",
                "doc_id\tnode_id\theading\tmatched_entry\tdecision",
            );
        for bytes in [
            original.as_bytes().to_vec(),
            cp1252.into_owned(),
            semi.into_bytes(),
            bom_utf8,
            tabs.into_bytes(),
        ] {
            let (t, errors) = table_of(&bytes);
            assert!(errors.is_empty(), "{errors:?}");
            assert_eq!(
                t.headers,
                NEEDED.map(String::from).to_vec(),
                "{:?}",
                String::from_utf8_lossy(&bytes)
            );
            assert_eq!(t.rows.len(), 1);
            assert_eq!(t.rows[0].1[2], "Gesch\u{e4}ft, Caf\u{e9}");
            assert_eq!(t.rows[0].1[4], "add:high");
        }
    }

    #[test]
    fn row_and_error_lines_are_the_lines_an_editor_shows() {
        let text = "doc_id,node_id,heading,matched_entry,decision\n\
                    d1,0001,A,,\n\
                    d1,0002,\"two\nlines\",,\n\
                    d1,0003,C,,ignore\n\
                    d1,0004,D\n";
        let (t, errors) = table_of(text.as_bytes());
        let lines: Vec<usize> = t.rows.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, vec![2, 3, 5]);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("sections.csv:6:"), "{errors:?}");
    }

    #[test]
    fn parses_every_decision_form() {
        assert_eq!(parse_action("  "), Ok(None));
        assert_eq!(parse_action("add:low"), Ok(Some(Action::Add(Tier::Low))));
        assert_eq!(
            parse_action("Add: Very High"),
            Ok(Some(Action::Add(Tier::VeryHigh)))
        );
        assert_eq!(
            parse_action("retier:medium"),
            Ok(Some(Action::Retier(Tier::Medium)))
        );
        assert_eq!(
            parse_action("alias:Definitions"),
            Ok(Some(Action::Alias("Definitions".into())))
        );
        assert_eq!(parse_action("IGNORE"), Ok(Some(Action::Ignore)));
    }

    #[test]
    fn node_ids_get_their_leading_zeros_back() {
        assert_eq!(restore_node_id("4"), "0004");
        assert_eq!(restore_node_id("0120"), "0120");
        assert_eq!(restore_node_id("12345"), "12345");
        assert_eq!(restore_node_id(""), "");
    }

    #[test]
    fn bad_decisions_say_what_is_valid() {
        let e = parse_action("add:mid").unwrap_err();
        assert!(
            e.contains("unknown tier `mid`") && e.contains("very_high, high"),
            "{e}"
        );
        let e = parse_action("remove").unwrap_err();
        assert!(e.contains(VALID_DECISIONS), "{e}");
        assert!(parse_action("alias:").is_err());
        assert!(parse_action("ignore:x").is_err());
    }

    #[test]
    fn a_utf8_bom_over_cp1252_bytes_reads_as_cp1252_and_a_mix_is_refused() {
        // Issue 37: `Caf\xe9` after a UTF-8 BOM became `Caf\u{fffd}`.
        let mut bytes = b"\xEF\xBB\xBFdoc_id,node_id,heading,matched_entry,decision\n".to_vec();
        bytes.extend_from_slice(b"d1,0002,Caf\xe9 Terms,,add:high\n");
        let text = decode_csv(&bytes).unwrap();
        assert!(text.contains("Caf\u{e9} Terms"), "{text}");
        assert!(!text.contains('\u{fffd}'));
        let (t, errors) = table_of(&bytes);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(t.rows[0].1[2], "Caf\u{e9} Terms");
        // UTF-8 on line 2, a Windows-1252 byte on line 3: refused there.
        let mixed = "doc_id,node_id,heading,matched_entry,decision\nd1,1,Gesch\u{e4}ft,,\n"
            .as_bytes()
            .iter()
            .chain(b"d1,2,Cl\xe9ture,,add:low\n")
            .copied()
            .collect::<Vec<u8>>();
        for b in [mixed.clone(), [b"\xEF\xBB\xBF".as_slice(), &mixed].concat()] {
            let e = decode_csv(&b).unwrap_err();
            assert!(e.starts_with("line 3:"), "{e}");
            assert!(e.contains("0xE9"), "{e}");
        }
        // Malformed UTF-16 is refused, not patched with U+FFFD.
        let e = decode_csv(b"\xFF\xFEa\x00\n\x00\x00\xDC").unwrap_err();
        assert!(e.contains("UTF-16"), "{e}");
    }
}
