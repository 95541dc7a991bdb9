//! The recitals before the first heading: a node of their own, not part
//! of the preamble.
//!
//! A contract's opening names the parties, then recites why they contract
//! (`WHEREAS, the Licensor owns ...`, under `RECITALS`, `BACKGROUND` or
//! `W I T N E S S E T H`), then agrees `as follows` before its first
//! heading. Without a node of their own the recitals are loose preamble
//! text with no title for the index to route by; a page of recitals is
//! often a fifth of a short contract. They start at a recitals title or at
//! the first `WHEREAS` that opens a sentence (at a line start, or inside a
//! line the PDF extraction ran together, after a sentence end), and run to
//! the first heading. Nothing is split when no heading follows: in a
//! headingless document the text after the recitals is the agreement.
//! Untitled recitals are titled by their opening word as written
//! (`WHEREAS`), which the indices list with the parties.

use super::assemble::Heading;
use super::{NodeKind, SourceText};

/// Titles of a recitals block, upper-cased, letters only (`W I T N E S S
/// E T H:` reads `WITNESSETH`).
const TITLES: &[&str] = &[
    "RECITALS",
    "RECITAL",
    "BACKGROUND",
    "WITNESSETH",
    "PRELIMINARYSTATEMENT",
    "PRELIMINARYSTATEMENTS",
];

/// Adds a `Recitals` heading before the first heading when the text
/// before it (the preamble, or the preamble after the contents) holds
/// recitals. `headings` is sorted by position.
pub(crate) fn add_recitals(source: &SourceText, headings: &mut Vec<Heading>) {
    let at = |h: &Heading| source.line_start(h.line) + h.offset;
    let Some(first) = headings
        .iter()
        .position(|h| !matches!(h.kind, NodeKind::Preamble | NodeKind::Toc))
    else {
        return;
    };
    // The loose text: from the preamble heading before the first section
    // (the recitals after a contents page) or the document's start.
    let from = match first.checked_sub(1).map(|i| &headings[i]) {
        None => 0,
        Some(h) if h.kind == NodeKind::Preamble => at(h),
        Some(_) => return,
    };
    let to = at(&headings[first]);
    if to <= from {
        return;
    }
    let Some((pos, title)) = recitals_start(&source.text[from..to]) else {
        return;
    };
    let pos = from + pos;
    let line = source.line_of_offset(pos);
    let line_at = source.line_start(line);
    let offset = if source.text[line_at..pos].trim().is_empty() {
        0
    } else {
        pos - line_at
    };
    // A recitals title already taken as a heading starts at the same place.
    if headings
        .iter()
        .any(|h| h.line == line && h.offset == offset)
    {
        return;
    }
    let mut h = Heading::new(line, headings[first].level, title, NodeKind::Section);
    h.offset = offset;
    headings.insert(first, h);
}

/// Where the recitals start in `text` (the loose text before the first
/// heading) and their title: a recitals title standing as a line of its
/// own or after a sentence end, else the first `WHEREAS` that opens a
/// sentence (titled by that word as written).
fn recitals_start(text: &str) -> Option<(usize, String)> {
    let mut whereas: Option<usize> = None;
    for (p, w) in words(text) {
        let before = text[..p].trim_end_matches([' ', '\t']);
        let line_start = before.is_empty() || before.ends_with('\n');
        let after_sentence = before
            .trim_end()
            .ends_with(['.', ':', ';', ')', '"', '\u{201d}']);
        if !(line_start || after_sentence) {
            continue;
        }
        let bare = w.trim_end_matches([',', ':', ';']);
        if whereas.is_none() && (bare == "WHEREAS" || line_start && bare == "Whereas") {
            whereas = Some(p);
        }
        if let Some((title, end)) = recitals_title(text, p, line_start) {
            // Its title ends the line, or its body opens after it.
            let rest = &text[end..];
            let closed =
                text[..end].ends_with([':', '.']) || !title.chars().any(char::is_lowercase);
            let alone = rest
                .trim_start_matches([' ', '\t'])
                .starts_with(['\n', '\r'])
                || rest.trim().is_empty()
                || closed && rest.trim_start().starts_with(char::is_uppercase);
            if alone && whereas.is_none_or(|w| p <= w) {
                return Some((p, title));
            }
        }
    }
    // Untitled: the opening word as written titles them (`WHEREAS`), so
    // a node that starts inside a line starts with its title.
    whereas.map(|p| {
        let w = text[p..]
            .split_ascii_whitespace()
            .next()
            .unwrap_or("WHEREAS");
        (p, w.trim_end_matches([',', ':', ';']).to_owned())
    })
}

/// The recitals title starting at byte `p` of `text` (a word start) and
/// where it ends: `RECITALS`, `Background:`, `W I T N E S S E T H :`.
/// Inside a line only in capitals (`... the "parties." RECITALS
/// WHEREAS`); at a line start any case, alone on its line.
fn recitals_title(text: &str, p: usize, line_start: bool) -> Option<(String, usize)> {
    let line_end = text[p..].find('\n').map_or(text.len(), |e| p + e);
    let mut letters = String::new();
    let mut end = p;
    for (i, c) in text[p..line_end].char_indices() {
        if c.is_alphabetic() {
            letters.push(c.to_ascii_uppercase());
            end = p + i + c.len_utf8();
            if letters.len() > 22 {
                return None;
            }
        } else if !(c == ' ' || c == ':' || c == '.' || c == '-') {
            break;
        }
        if TITLES.contains(&letters.as_str()) {
            let next = text[end..].chars().next();
            // A whole word: `BACKGROUND` and not `BACKGROUNDS`.
            if next.is_some_and(char::is_alphabetic) {
                continue;
            }
            let written = &text[p..end];
            let capitals = !written.chars().any(char::is_lowercase);
            if !(capitals || line_start) {
                return None;
            }
            let end = end + text[end..].len() - text[end..].trim_start_matches([':', '.']).len();
            return Some((written.to_owned(), end));
        }
    }
    None
}

/// Each whitespace-separated word of `text` with its byte offset.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_ascii_whitespace()
        .map(move |w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recitals_start_at_their_title_or_first_whereas() {
        let t = "MASTER AGREEMENT\n\nThis Agreement is made by A and B.\n\nRECITALS\n\nWHEREAS, A owns;\n";
        let (p, title) = recitals_start(t).unwrap();
        assert_eq!(&t[p..p + 8], "RECITALS");
        assert_eq!(title, "RECITALS");
        // Run together: after the parties' sentence, inside one line.
        let t = "This Agreement is between A and B (the \"parties.\") WHEREAS, A owns a mark; WHEREAS, B wants it.";
        let (p, title) = recitals_start(t).unwrap();
        assert!(t[p..].starts_with("WHEREAS, A owns"));
        assert_eq!(title, "WHEREAS");
        let t = "By and between A and B. W I T N E S S E T H: WHEREAS, A owns;";
        let (p, title) = recitals_start(t).unwrap();
        assert!(t[p..].starts_with("W I T N E S S E T H"));
        assert_eq!(title, "W I T N E S S E T H");
    }

    #[test]
    fn a_whereas_inside_a_sentence_or_a_lower_case_word_is_no_start() {
        assert!(
            recitals_start("The parties, whereas A owns the mark, agree as follows:").is_none()
        );
        assert!(recitals_start("A and B agree, WHEREAS noted, as follows.").is_none());
        // `Background` inside a line in title case is a word of the text.
        assert!(recitals_start("A and B. Background checks are run by A.").is_none());
        assert!(recitals_start("A and B.\nBackground Property means the IP.").is_none());
        assert!(recitals_start("A and B.\nBackground: The Company makes widgets.").is_some());
    }
}
