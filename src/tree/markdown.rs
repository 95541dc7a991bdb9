//! Markdown headings (ATX and setext) via pulldown-cmark, with byte offsets
//! mapped back to 1-based lines. Headings inside code blocks are ignored by
//! the parser itself. On plain ATX Markdown the real headings are the
//! Proxy-Pointer reference's (stack nesting by `#` count, same ids and
//! titles); the extra nodes (contents, signature pages, the attachment
//! after them; ids `NNNN-kind`) and the lifting of schedules and exhibits
//! after the signature pages to the top level (`md_signature`) come on top.

use super::assemble::Heading;
use super::{NodeKind, SourceText};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// Whether the text has at least one ATX heading line (`#`..`######` and a
/// space); only then is it worth parsing as Markdown.
pub(crate) fn has_atx_heading(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices('#').any(|(i, _)| {
        // At most three spaces between the line start and the `#`: only
        // the four bytes before it are looked at (finding the line start
        // of every `#` in a megabyte line was quadratic).
        let spaces = bytes[..i]
            .iter()
            .rev()
            .take(4)
            .take_while(|&&b| b == b' ')
            .count();
        if spaces > 3 || (i > spaces && bytes[i - spaces - 1] != b'\n') {
            return false;
        }
        let hashes = bytes[i..].iter().take_while(|&&b| b == b'#').count();
        (1..=6).contains(&hashes)
            && bytes
                .get(i + hashes)
                .is_none_or(|&b| b == b' ' || b == b'\t' || b == b'\n')
    })
}

/// Every Markdown heading, in document order.
pub(crate) fn headings(source: &SourceText) -> Vec<Heading> {
    let mut out: Vec<Heading> = Vec::new();
    let mut current: Option<(usize, u8, String)> = None;
    for (event, range) in Parser::new_ext(&source.text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                current = Some((
                    source.line_of_offset(range.start),
                    level_num(level),
                    String::new(),
                ));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((line, level, title)) = current.take() {
                    // Two headings cannot share a line; keep the first.
                    if out.last().is_none_or(|h| h.line < line) {
                        out.push(Heading::new(line, level, title, NodeKind::Section));
                    }
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, title)) = current.as_mut() {
                    title.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, _, title)) = current.as_mut() {
                    title.push(' ');
                }
            }
            _ => {}
        }
    }
    out
}

fn level_num(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The nodes the converter left as plain lines: the contents listing and
/// recitals before the first heading, the signature pages and the
/// attachments after them. All are extra nodes (ids `NNNN-kind`).
pub(crate) fn extra_nodes(source: &SourceText, headings: &mut Vec<Heading>) {
    front_matter(source, headings);
    super::md_signature::signature_pages(source, headings);
}

/// A contents listing before the first Markdown heading (the extractor
/// left it as plain lines) becomes a `toc` node, and running text after it
/// a preamble of its own, so the listing is not sent as preamble text.
/// Both are extra nodes: the real headings keep the reference ids.
fn front_matter(source: &SourceText, headings: &mut Vec<Heading>) {
    let Some(first) = headings.first().map(|h| h.line) else {
        return;
    };
    let lines: Vec<&str> = source.lines().take(first - 1).map(str::trim).collect();
    let Some(r) = super::plaintext::toc_regions(&lines).into_iter().next() else {
        return;
    };
    let mut extra = vec![Heading::new(
        r.start + 1,
        1,
        "Table of Contents".to_owned(),
        NodeKind::Toc,
    )];
    // The listing goes on through page furniture and tables of exhibits
    // up to the first running text.
    let after = (r.last + 1..lines.len()).find(|&k| super::lines::is_prose(lines[k]));
    if let Some(a) = after {
        {
            extra.push(Heading::new(
                a + 1,
                1,
                "Preamble (after table of contents)".to_owned(),
                NodeKind::Preamble,
            ));
        }
    }
    for h in &mut extra {
        h.extra = true;
    }
    extra.append(headings);
    *headings = extra;
}

#[cfg(test)]
mod atx_tests {
    /// Looking at the four bytes before each `#` finds what finding its
    /// line start found, at every offset of lines with and without
    /// headings.
    #[test]
    fn atx_headings_found_as_by_their_line_start() {
        let by_line_start = |text: &str| {
            let bytes = text.as_bytes();
            text.match_indices('#').any(|(i, _)| {
                let line_start = bytes[..i]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |p| p + 1);
                if i - line_start > 3 || bytes[line_start..i].iter().any(|&b| b != b' ') {
                    return false;
                }
                let hashes = bytes[i..].iter().take_while(|&&b| b == b'#').count();
                (1..=6).contains(&hashes)
                    && bytes
                        .get(i + hashes)
                        .is_none_or(|&b| b == b' ' || b == b'\t' || b == b'\n')
            })
        };
        let text = "x #1\n   # A\n    # B\n  ## C\nab# D\n####### E\n# \n\t# F\n#\n";
        let mut found = 0;
        for (at, _) in text.char_indices() {
            for end in [at + 1, text.len()] {
                let t = &text[at..end.min(text.len())];
                assert_eq!(super::has_atx_heading(t), by_line_start(t), "{t:?}");
                found += usize::from(by_line_start(t));
            }
        }
        assert!(found > 10);
    }
}
