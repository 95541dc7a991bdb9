//! Structure-guided chunking: walk the routed sections, not the text. Each
//! indexable section is split strictly inside its own byte span (never
//! across sections), at line breaks when it can and at sentence or word
//! breaks inside a long line (PDF text runs whole paragraphs into one line);
//! every chunk is prefixed with the section's breadcrumb.

use super::SectionPointer;
use crate::route::{Route, RoutePlan, RoutedSection};
use crate::tree::{NodeKind, SourceText};

/// A chunk aims at this many bytes of section text (about 150 words).
pub const CHUNK_BYTES: usize = 900;

/// One chunk of one section.
#[derive(Debug, Clone)]
pub struct Chunk {
    /// Index into the section list [`section_chunks`] returns.
    pub section: usize,
    /// Half-open byte span of the chunk inside the section.
    pub start_byte: usize,
    pub end_byte: usize,
    /// Breadcrumb, a newline, then the chunk's text.
    pub text: String,
    /// What the section is, as the crumb field indexes it: its breadcrumb,
    /// the graphability entry its title matched, and for a preamble what
    /// every contract's preamble states.
    pub crumb: String,
}

/// What a contract's opening states whatever its type: the agreement's
/// name, its date and the parties. Indexed with the preamble so questions
/// about the contract itself ("the name of the contract", "who signed it")
/// find it although its text never says "name" or "signed".
pub const PREAMBLE_ABOUT: &str =
    "preamble: the name and title of the agreement or contract, its date and effective date, the parties who signed it";

/// The crumb text of a routed section (see [`Chunk::crumb`]).
pub fn section_about(s: &RoutedSection) -> String {
    let mut about = s.breadcrumb.clone();
    if let Some(entry) = s.matched.entry.as_deref() {
        if !s.title.to_lowercase().contains(&entry.to_lowercase()) {
            about.push_str(" | ");
            about.push_str(entry);
        }
    }
    if s.kind == NodeKind::Preamble {
        about.push_str(" | ");
        about.push_str(PREAMBLE_ABOUT);
    }
    about
}

/// True for sections that get chunks: noise (contents, signatures, noise
/// titles) and empty structural headings are left out; their children are
/// routed, and so indexed, on their own.
pub fn indexable(s: &RoutedSection) -> bool {
    !matches!(s.route, Route::Noise | Route::Empty) && s.end_byte > s.start_byte
}

/// The pointers of a document's indexable sections and their chunks.
pub fn section_chunks(
    plan: &RoutePlan,
    source: &SourceText,
    path: &str,
) -> (Vec<SectionPointer>, Vec<Chunk>) {
    section_chunks_sized(plan, source, path, CHUNK_BYTES)
}

/// [`section_chunks`] aiming at `target` bytes a chunk (the evaluation
/// compares sizes).
pub fn section_chunks_sized(
    plan: &RoutePlan,
    source: &SourceText,
    path: &str,
    target: usize,
) -> (Vec<SectionPointer>, Vec<Chunk>) {
    let doc_name = std::path::Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| plan.doc_name.clone());
    let sha256 = source.file_sha256_hex();
    let doc_title = crate::tree::title::document_title(&source.text);
    let mut pointers = Vec::new();
    let mut chunks = Vec::new();
    for s in plan.sections.iter().filter(|s| indexable(s)) {
        let end = s.end_byte.min(source.text.len());
        if s.start_byte >= end || !source.text.is_char_boundary(s.start_byte) {
            continue;
        }
        let text = source.byte_span_text(s.start_byte, end);
        if text.trim().is_empty() {
            continue;
        }
        let section = pointers.len();
        let crumb = section_about(s);
        pointers.push(SectionPointer {
            doc_id: plan.doc_id.clone(),
            doc_name: doc_name.clone(),
            doc_title: doc_title.clone(),
            path: path.to_string(),
            node_id: s.node_id.clone(),
            title: s.title.clone(),
            breadcrumb: s.breadcrumb.clone(),
            start_byte: s.start_byte,
            end_byte: end,
            start_line: s.start_line,
            end_line: s.end_line,
            sha256: sha256.clone(),
        });
        for (a, b) in split_span(text, target) {
            let body = text[a..b].trim();
            if body.is_empty() {
                continue;
            }
            chunks.push(Chunk {
                section,
                start_byte: s.start_byte + a,
                end_byte: s.start_byte + b,
                text: format!("[{}]\n{}", s.breadcrumb, body),
                crumb: crumb.clone(),
            });
        }
    }
    (pointers, chunks)
}

/// Splits `text` into consecutive spans of about `target` bytes that tile it:
/// a span ends at the last line break before the limit, else the last
/// sentence end, else the last space; a span never ends inside a character.
pub fn split_span(text: &str, target: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        if text.len() - start <= target + target / 2 {
            out.push((start, text.len()));
            break;
        }
        let mut limit = start + target;
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        let window = &text[start..limit];
        let min = target / 3;
        let cut = window
            .rfind('\n')
            .filter(|&i| i >= min)
            .map(|i| i + 1)
            .or_else(|| {
                window
                    .rmatch_indices(". ")
                    .map(|(i, _)| i + 2)
                    .find(|&i| i >= min)
            })
            .or_else(|| window.rfind(' ').filter(|&i| i >= min).map(|i| i + 1))
            .unwrap_or(window.len());
        out.push((start, start + cut));
        start += cut;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_tile_the_text_and_stay_near_the_target() {
        let text = "Alpha beta gamma. ".repeat(200) + "\nlast line";
        let spans = split_span(&text, 300);
        assert_eq!(spans.first().unwrap().0, 0);
        assert_eq!(spans.last().unwrap().1, text.len());
        for w in spans.windows(2) {
            assert_eq!(w[0].1, w[1].0);
        }
        for &(a, b) in &spans[..spans.len() - 1] {
            assert!(b - a <= 300 && b - a >= 100, "{a}..{b}");
            assert!(text[a..b].ends_with(". ") || text[a..b].ends_with('\n'));
        }
    }

    #[test]
    fn a_short_text_is_one_span() {
        assert_eq!(split_span("short", 300), vec![(0, 5)]);
    }

    #[test]
    fn multibyte_text_is_cut_at_character_boundaries() {
        let text = "é".repeat(1000);
        for (a, b) in split_span(&text, 301) {
            assert!(text.is_char_boundary(a) && text.is_char_boundary(b));
        }
    }
}
