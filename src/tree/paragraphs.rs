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

/// A piece of a section's text holding one paragraph of [`paragraphs_of`]
/// (or more, when one could not be placed on its own): `start..end` are
/// byte offsets into the section's text, and the pieces of a section tile
/// it, so every byte of it lies in exactly one piece.
#[derive(Debug, Clone, PartialEq)]
pub struct ParagraphPiece {
    pub start: usize,
    pub end: usize,
    pub paragraphs: Vec<String>,
}

/// Characters of a paragraph's start searched for in the text to place it
/// (then fewer, when a page break or a cleaned tag sits inside them).
const ANCHORS: [usize; 2] = [40, 12];

/// The paragraphs of [`paragraphs_of`] placed back in `section_text`: each
/// is found by its opening characters (whitespace runs as one space,
/// quotes straight, as cleaning leaves them), searching forward from the
/// previous one; a piece runs from its paragraph's start to the next
/// piece's start, the first from the text's start. A paragraph that
/// cannot be placed (cleaning changed its opening) joins the piece
/// before it. Text with no paragraph is one piece.
pub fn paragraph_pieces(section_text: &str) -> Vec<ParagraphPiece> {
    let paragraphs = paragraphs_of(section_text);
    let (flat, origins) = collapse(section_text);
    let mut pieces: Vec<ParagraphPiece> = Vec::new();
    let mut cursor = 0usize;
    for p in paragraphs {
        // A paragraph is already cleaned: single spaces, straight quotes,
        // no tags; it is its own needle.
        let needle = p.trim_start();
        let found = ANCHORS.iter().find_map(|&n| {
            let anchor = prefix(needle, n);
            if anchor.is_empty() {
                return None;
            }
            flat[cursor..]
                .find(anchor)
                .map(|j| (cursor + j, anchor.len()))
        });
        match found {
            Some((j, len)) if pieces.last().is_none_or(|last| origins.of(j) > last.start) => {
                cursor = if flat[j..].starts_with(needle) {
                    j + needle.len()
                } else {
                    j + len
                };
                let start = if pieces.is_empty() { 0 } else { origins.of(j) };
                pieces.push(ParagraphPiece {
                    start,
                    end: 0,
                    paragraphs: vec![p],
                });
            }
            _ => match pieces.last_mut() {
                Some(last) => last.paragraphs.push(p),
                None => pieces.push(ParagraphPiece {
                    start: 0,
                    end: 0,
                    paragraphs: vec![p],
                }),
            },
        }
    }
    if pieces.is_empty() {
        pieces.push(ParagraphPiece {
            start: 0,
            end: 0,
            paragraphs: Vec::new(),
        });
    }
    let ends: Vec<usize> = pieces
        .iter()
        .skip(1)
        .map(|p| p.start)
        .chain([section_text.len()])
        .collect();
    for (p, end) in pieces.iter_mut().zip(ends) {
        p.end = end;
    }
    pieces
}

/// The text with every whitespace run as one space (none leading), curly
/// quotes straight and HTML-like tags left out (as [`clean`] leaves a
/// paragraph), and where each of its characters came from in `text`.
fn collapse(text: &str) -> (String, Origins) {
    let mut out = String::with_capacity(text.len());
    let mut origins = Origins::default();
    let mut space = false;
    let mut tag_end = 0usize;
    for (i, c) in text.char_indices() {
        if i < tag_end {
            continue;
        }
        if c == '<' {
            if let Some(end) = tag_at(text, i) {
                tag_end = end;
                continue;
            }
        }
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        let c = match c {
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{00AB}' | '\u{00BB}' => '"',
            '\u{2018}' | '\u{2019}' => '\'',
            c => c,
        };
        if space {
            out.push(' ');
            space = false;
        }
        origins.note(out.len(), i);
        out.push(c);
    }
    (out, origins)
}

/// Where the characters of collapsed text came from: the text moves by a
/// constant shift between the places collapsing changed it (a whitespace
/// run longer than one space, a tag, a quote of another width), so only
/// those places are kept, as (collapsed byte, source byte) pairs.
#[derive(Debug, Default)]
struct Origins(Vec<(usize, usize)>);

impl Origins {
    /// The character at collapsed byte `at` came from source byte `from`.
    fn note(&mut self, at: usize, from: usize) {
        let shifted = self.0.last().is_none_or(|&(a, f)| from - f != at - a);
        if shifted {
            self.0.push((at, from));
        }
    }

    /// The source byte of the character at collapsed byte `at` (a
    /// character's first byte, not a space collapsing put in).
    fn of(&self, at: usize) -> usize {
        let k = self.0.partition_point(|&(a, _)| a <= at);
        match k.checked_sub(1).map(|k| self.0[k]) {
            Some((a, f)) => f + (at - a),
            None => at,
        }
    }
}

/// The end of the HTML-like tag [`clean`] strips that starts at byte `at`,
/// if one does: looked for within a short reach, so text full of `<` stays
/// linear.
fn tag_at(text: &str, at: usize) -> Option<usize> {
    const REACH: usize = 200;
    let rest = &text[at..];
    let close = rest
        .as_bytes()
        .iter()
        .take(REACH)
        .position(|&b| b == b'>')?;
    let candidate = &rest[..=close];
    TAG.find(candidate)
        .filter(|m| m.start() == 0 && m.end() == candidate.len())
        .map(|_| at + close + 1)
}

/// At most `n` bytes of `s`, cut at a character boundary.
fn prefix(s: &str, n: usize) -> &str {
    let mut end = n.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_tile_the_text_and_start_at_their_paragraphs() {
        let text = "  1. Term.  This Agreement runs for five (5) years.\n\n\
                    2. Fees. Licensee shall pay a royalty of 5% on \u{201C}Net Sales\u{201D}\n\
                    as defined below.\n\n<b>3.</b> Notices. All notices in writing.\n";
        let pieces = paragraph_pieces(text);
        assert_eq!(pieces.len(), 3, "{pieces:?}");
        assert_eq!(pieces[0].start, 0);
        for w in pieces.windows(2) {
            assert_eq!(w[0].end, w[1].start, "tiles");
        }
        assert_eq!(pieces.last().unwrap().end, text.len());
        assert!(text[pieces[1].start..].starts_with("2. Fees."));
        assert!(pieces[1].paragraphs[0].contains("\"Net Sales\""));
        // The tag is cleaned from the paragraph; the piece still holds it.
        assert!(text[pieces[2].start..pieces[2].end].contains("Notices"));
    }

    /// Every character of the collapsed text leads back to the source
    /// character it came from, past runs of spaces, tags and quotes.
    #[test]
    fn collapsed_characters_lead_back_to_their_source() {
        let text = "  A  <b>bold</b>\n\n\u{201C}quoted\u{201D} \t end\u{2019}s  ";
        let (flat, origins) = collapse(text);
        assert_eq!(flat, "A bold \"quoted\" end's");
        for (at, c) in flat.char_indices().filter(|(_, c)| *c != ' ') {
            let from = origins.of(at);
            let source = text[from..].chars().next().unwrap();
            let straight = match source {
                '\u{201C}' | '\u{201D}' => '"',
                '\u{2019}' => '\'',
                s => s,
            };
            assert_eq!(straight, c, "byte {at} of {flat:?} from byte {from}");
        }
    }

    #[test]
    fn text_without_paragraphs_is_one_piece() {
        let pieces = paragraph_pieces("   \n\n ");
        assert_eq!(pieces.len(), 1);
        assert_eq!((pieces[0].start, pieces[0].end), (0, 6));
        assert!(pieces[0].paragraphs.is_empty());
    }
}
