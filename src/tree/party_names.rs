//! The short names a document's opening gives its parties, in quotes inside
//! parentheses after the party's full name: `Miltenyi Biotec GmbH, a German
//! corporation having an address at ... (hereinafter referred to as
//! "Miltenyi")`, `Dova Pharmaceuticals, Inc., a Delaware corporation
//! ("Dova")`, `Reynolds Consumer Products Inc. (the "Company" or "RCP")`.
//!
//! Contracts name their parties this way before the first numbered heading,
//! then use the short names in headings (`Indemnification by Miltenyi`,
//! `Dova Trademarks`). Matching reads such a heading without the party's
//! name (see `index::matcher`), so a company name stops diluting the words
//! the index knows. A quoted name counts only when it abbreviates a name
//! written just before it: a defined term of the opening (`a unique system
//! ("System")`, `as of June 1 (the "Effective Date")`) is not a party's
//! short name.

use super::{Node, NodeKind, SourceText};

/// How much of the opening is read: parties are defined in its first
/// paragraphs, and a long preamble (a cover page, a summary of terms) must
/// not cost the tree its speed.
const OPENING_BYTES: usize = 16 * 1024;

/// Longest quoted name kept; longer quotes are sentences, not names.
const NAME_CHARS: usize = 40;

/// How far before an aside the party's full name may start: an address
/// often sits between the name and the aside.
const LOOKBACK: usize = 300;

/// The parties' short names defined before the document's first numbered
/// heading (at most [`OPENING_BYTES`] of text), in order of first
/// appearance, without repeats.
pub fn party_names(source: &SourceText, structure: &[Node]) -> Vec<String> {
    let end_line = first_numbered_line(structure).unwrap_or(source.line_count() + 1);
    if end_line <= 1 || source.line_count() == 0 {
        return Vec::new();
    }
    let opening = source.span_text(1, (end_line - 1).min(source.line_count()));
    let mut cut = opening.len().min(OPENING_BYTES);
    while !opening.is_char_boundary(cut) {
        cut -= 1;
    }
    names_in(&opening[..cut])
}

/// The line of the first heading with a numbering label, if any.
fn first_numbered_line(nodes: &[Node]) -> Option<usize> {
    for n in nodes {
        if n.label.is_some() && n.kind == NodeKind::Section {
            return Some(n.start_line);
        }
        if let Some(l) = first_numbered_line(&n.nodes) {
            return Some(l);
        }
    }
    None
}

/// Quoted names inside parenthesised asides that abbreviate a name
/// written before them.
fn names_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pos = 0;
    while let Some(open) = memchr::memchr(b'(', &text.as_bytes()[pos..]).map(|o| pos + o) {
        let after = &text[open + 1..];
        // An aside ends at its `)`; one that runs on for lines is not a
        // definition (a stray parenthesis).
        let close = memchr::memchr(b')', after.as_bytes()).filter(|&c| c <= 200);
        let Some(close) = close else {
            pos = open + 1;
            continue;
        };
        let before = tail_before(text, open);
        for name in quoted(&after[..close]) {
            if named_before(name, before) && !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        }
        pos = open + 1 + close + 1;
    }
    out
}

/// The text before byte `open`: at most [`LOOKBACK`] bytes, and nothing
/// before the previous aside's `)`.
fn tail_before(text: &str, open: usize) -> &str {
    let mut from = open.saturating_sub(LOOKBACK);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let tail = &text[from..open];
    tail.rfind(')').map_or(tail, |i| &tail[i + 1..])
}

/// Whether a quoted name abbreviates a name written, capitalised, just
/// before it: every word of it appears there starting with a capital
/// (`Dova Pharmaceuticals, Inc.` -> `Dova`; `ZOGENIX, INC.` -> `Zogenix`),
/// or it is an acronym of consecutive capitalised words there (`Reynolds
/// Consumer Products Inc.` -> `RCP`; a person: `Kristen M. Jenner` ->
/// `KMJ`).
fn named_before(name: &str, before: &str) -> bool {
    let capitalised: Vec<&str> = before
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .collect();
    let each_word = name.split_whitespace().all(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        !w.is_empty() && capitalised.iter().any(|c| c.eq_ignore_ascii_case(w))
    });
    each_word || is_acronym_of(name, &capitalised)
}

/// `RCP` over `... Reynolds Consumer Products Inc.`: the letters are the
/// initials of consecutive capitalised words.
fn is_acronym_of(name: &str, capitalised: &[&str]) -> bool {
    let letters: Vec<char> = name.chars().collect();
    if !(2..=6).contains(&letters.len()) || !letters.iter().all(char::is_ascii_uppercase) {
        return false;
    }
    capitalised
        .windows(letters.len())
        .any(|run| run.iter().zip(&letters).all(|(w, l)| w.starts_with(*l)))
}

/// The strings in straight or curly double quotes of an aside that start
/// with a capital or a digit (`"Miltenyi"`, `“Pier 1”`).
fn quoted(aside: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = aside;
    while let Some(start) = rest.find(['"', '“']) {
        let q = rest[start..].chars().next().map_or(1, char::len_utf8);
        let body = &rest[start + q..];
        let Some(end) = body.find(['"', '”']) else {
            break;
        };
        let name = body[..end].trim();
        let starts_well = name
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
        if starts_well && name.chars().count() <= NAME_CHARS {
            out.push(name);
        }
        let q_end = body[end..].chars().next().map_or(1, char::len_utf8);
        rest = &body[end + q_end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_counts_when_it_abbreviates_the_party_written_before_it() {
        let text = "This Supply Agreement (the \u{201c}Agreement\u{201d}) is made as of \
                    June 1, 2019 (the \"Effective Date\") between Miltenyi Biotec GmbH, a \
                    German corporation having an address at Friedrich-Ebert-Str. 68, 51429 \
                    Bergisch Gladbach, Germany (hereinafter referred to as \u{201c}Miltenyi\u{201d}) \
                    and ZOGENIX, INC., having a place of business at 5959 Horton Street, \
                    Emeryville, California 94608( \"Zogenix\"), and Reynolds Consumer \
                    Products Inc., a Delaware corporation, (the \"Company\" or \"RCP\").";
        // The agreement's own short name abbreviates `Supply Agreement`
        // too; the matcher drops only words its index does not know.
        assert_eq!(
            names_in(text),
            vec!["Agreement", "Miltenyi", "Zogenix", "RCP"]
        );
    }

    #[test]
    fn defined_terms_are_not_party_names() {
        let text = "Our parent company has developed a unique system (\"System\"), and \
                    the buyer agrees (the \"Purchase\"). The kit of Acme Corp. (as defined \
                    in the \"quality agreement\").";
        assert!(names_in(text).is_empty(), "{:?}", names_in(text));
    }

    #[test]
    fn a_stray_parenthesis_or_a_quoted_sentence_is_not_a_name() {
        let long = format!("Aaaa (the \"{}\")", "A".repeat(NAME_CHARS + 1));
        assert!(names_in(&long).is_empty());
        let stray = format!("see (a) below {} Dova Inc. (\"Dova\")", "x ".repeat(150));
        assert_eq!(names_in(&stray), vec!["Dova"]);
    }

    #[test]
    fn only_the_opening_before_the_first_numbered_heading_is_read() {
        let text = "SUPPLY AGREEMENT\nbetween Acme Corp. (\"Acme\") and Beta LLC (\"Beta\").\n\
                    1. Definitions\nGamma Inc. (\"Gamma\") is named later.\n";
        let source = SourceText::from_text("s.txt", text);
        let tree = crate::tree::build_tree(&source);
        assert_eq!(tree.party_names, vec!["Acme", "Beta"]);
    }
}
