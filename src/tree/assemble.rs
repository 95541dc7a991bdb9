//! Turns a flat, ordered list of detected headings into the nested
//! [`DocTree`]: stack nesting by level, pre-order ids, byte spans that tile
//! the document (and the lines they touch), breadcrumbs, sizes and node
//! kinds.

use super::contents::EntryStatus;
use super::health::{self, TreeHealth};
use super::label::split_heading;
use super::plain_signature::opens_with_clause;
use super::{DocFormat, DocTree, Node, NodeKind, SourceText};

/// A heading found by one of the detectors, before nesting.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Heading {
    /// 1-based line of the heading.
    pub line: usize,
    /// Byte offset of the heading inside its line: 0 at the line start;
    /// more for a heading the extraction ran into the middle of a line
    /// (its node starts there).
    pub offset: usize,
    pub level: u8,
    pub title: String,
    /// `Section` unless the detector knows better; structural and signature
    /// kinds are also derived here from the title and the span.
    pub kind: NodeKind,
    /// Last line taken by the heading itself (a title on the next line).
    pub title_end: usize,
    /// A node the heading detector added (a Markdown contents listing):
    /// it does not take a pre-order number, so the real headings keep the
    /// reference ids; its id is the previous id plus `-` and its kind.
    pub extra: bool,
}

impl Heading {
    pub fn new(line: usize, level: u8, title: String, kind: NodeKind) -> Self {
        Self {
            line,
            offset: 0,
            level,
            title,
            kind,
            title_end: line,
            extra: false,
        }
    }
}

/// A heading with children is `structural` (routed `empty`: no text of its
/// own) when, beyond its title, it holds no more than this many non-blank
/// characters (a page number, `[***]`, a running header) ...
const STRUCTURAL_MAX_CHARS: usize = 30;
/// ... or only the lead-in that introduces its clauses, at most this many
/// words and ending in a colon (`The Borrower covenants that:`). A first
/// clause run onto the heading's line (`5. Compliance. Neither party shall
/// ...`) or a longer lead-in is text of its own.
const LEAD_IN_MAX_WORDS: usize = 30;

/// Whether a heading's own text is only a lead-in to its clauses: it ends
/// in a colon or a dash, or announces them (`... agrees as follows.`).
fn is_lead_in(own: &str) -> bool {
    let bare = own.trim_end_matches(['.', ' ']).to_ascii_lowercase();
    own.ends_with(':')
        || own.ends_with('-')
        || own.ends_with('\u{2014}')
        || bare.ends_with("as follows")
        || bare.ends_with("the following")
}

/// `s` after its first `n` non-blank characters.
fn after_non_blank(s: &str, n: usize) -> &str {
    let mut seen = 0;
    for (i, c) in s.char_indices() {
        if seen == n {
            return &s[i..];
        }
        seen += usize::from(!c.is_whitespace());
    }
    ""
}
/// Text before the first heading becomes a preamble when it holds at least
/// this many letters and digits.
const PREAMBLE_MIN_ALNUM: usize = 20;

/// Builds the tree. `headings` must be sorted by position (line, then
/// offset) with distinct positions;
/// `toc` is the table of contents' entries and what became of each (for
/// the health figures).
pub(crate) fn assemble(
    source: &SourceText,
    format: DocFormat,
    headings: Vec<Heading>,
    toc: &[(String, EntryStatus)],
) -> DocTree {
    let line_count = source.line_count();
    // Each heading with the byte its node starts at.
    let mut flat: Vec<(Heading, usize)> = Vec::with_capacity(headings.len() + 1);
    if line_count == 0 {
        // Only reachable through `from_text("")`: nothing to tile.
    } else if headings.is_empty() {
        let h = Heading::new(1, 1, "Document".to_owned(), NodeKind::Fallback);
        flat.push((h, 0));
    } else {
        let at = |h: &Heading| source.line_start(h.line) + h.offset;
        let first = at(&headings[0]);
        let pre = &source.text[..first];
        let alnum = pre.chars().filter(|c| c.is_alphanumeric());
        if alnum.take(PREAMBLE_MIN_ALNUM).count() >= PREAMBLE_MIN_ALNUM {
            let h = Heading::new(1, 1, "Preamble".to_owned(), NodeKind::Preamble);
            flat.push((h, 0));
        }
        // Without a preamble the first node starts at the first byte.
        let from_start = flat.is_empty();
        for (i, h) in headings.into_iter().enumerate() {
            let start = if i == 0 && from_start { 0 } else { at(&h) };
            flat.push((h, start));
        }
    }
    // Each node ends where the next starts; the last at the end.
    let ends: Vec<usize> = flat
        .iter()
        .skip(1)
        .map(|f| f.1)
        .chain([source.text.len()])
        .collect();
    debug_assert!(flat.iter().zip(&ends).all(|(f, &e)| f.1 < e));

    let has_preamble = flat.first().is_some_and(|f| f.0.kind == NodeKind::Preamble);
    let first_id = usize::from(!has_preamble);
    let mut next_id = first_id;
    // Arena of nodes plus child lists, nested with a stack of (level, index).
    let mut nodes: Vec<Node> = Vec::with_capacity(flat.len());
    let mut children: Vec<Vec<usize>> = Vec::with_capacity(flat.len());
    let mut bodiless: Vec<bool> = Vec::with_capacity(flat.len());
    let mut roots: Vec<usize> = Vec::new();
    let mut stack: Vec<(u8, usize)> = Vec::new();
    for ((h, start_byte), end_byte) in flat.into_iter().zip(ends) {
        let level = h.level.max(1);
        while stack.last().is_some_and(|&(l, _)| l >= level) {
            stack.pop();
        }
        let parent = stack.last().map(|&(_, i)| i);
        let title = clean_title(&h.title, format == DocFormat::Markdown);
        let breadcrumb = match parent {
            Some(p) => format!("{} > {}", nodes[p].breadcrumb, title),
            None => title.clone(),
        };
        // The span's text, including the newline that ends its last line.
        let text = &source.text[start_byte..end_byte];
        let chars = count_chars(text);
        let start = source.line_of_offset(start_byte);
        let end = source.line_of_offset(end_byte - 1);
        // Its own body: the span less its title, so a body that runs on
        // the heading's own line (`2. Services. eGain will provide ...`)
        // counts as much as one on the next line.
        let no_own_text = h.kind == NodeKind::Section && {
            let in_title = count_non_blank(&h.title, usize::MAX);
            let own = after_non_blank(text, in_title).trim();
            count_non_blank(own, STRUCTURAL_MAX_CHARS + 1) <= STRUCTURAL_MAX_CHARS
                || (own.split_whitespace().nth(LEAD_IN_MAX_WORDS).is_none() && is_lead_in(own))
        };
        let mut kind = refine_kind(h.kind, &title);
        let (label, name) = match kind {
            NodeKind::Preamble | NodeKind::Toc | NodeKind::Signature | NodeKind::Fallback => {
                (None, clean_title(&title, false))
            }
            _ => split_heading(&title),
        };
        // A heading named as the signature pages (`Signatures`, `12.9.
        // Signatures`) is them unless its text opens with a clause (`This
        // Agreement may be signed in two counterparts ...`): then it is a
        // provision of the agreement, routed by its title like any section
        // (`route::plan` does not read its noise title as noise).
        if h.kind == NodeKind::Section && names_signature_pages(&name) {
            let in_title = count_non_blank(&h.title, usize::MAX);
            kind = if opens_with_clause(after_non_blank(text, in_title)) {
                NodeKind::Section
            } else {
                NodeKind::Signature
            };
        }
        let idx = nodes.len();
        let node_id = if h.extra {
            let kind_name = serde_json::to_value(kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            format!("{:04}-{kind_name}", next_id.saturating_sub(1))
        } else {
            next_id += 1;
            format!("{:04}", next_id - 1)
        };
        nodes.push(Node {
            title,
            label,
            name,
            node_id,
            line_num: h.line,
            start_line: start,
            end_line: end,
            start_byte,
            end_byte,
            level,
            chars,
            breadcrumb,
            kind,
            nodes: Vec::new(),
        });
        children.push(Vec::new());
        bodiless.push(kind == NodeKind::Section && no_own_text);
        match parent {
            Some(p) => children[p].push(idx),
            None => roots.push(idx),
        }
        // A preamble is text before a heading, never a parent.
        if kind != NodeKind::Preamble {
            stack.push((level, idx));
        }
    }

    let mut built: Vec<Option<Node>> = nodes.into_iter().map(Some).collect();
    // Children always have larger indices than their parent: build bottom-up.
    for i in (0..built.len()).rev() {
        let kids: Vec<Node> = children[i]
            .iter()
            .map(|&c| built[c].take().expect("child built once"))
            .collect();
        let node = built[i].as_mut().expect("node present");
        if bodiless[i] && !kids.is_empty() {
            node.kind = NodeKind::Structural;
        }
        node.nodes = kids;
    }
    let structure = roots
        .into_iter()
        .map(|r| built[r].take().expect("root built once"))
        .collect();

    let mut tree = DocTree {
        doc_name: source
            .path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        // Filled in by `build_tree`, which hashes the text beside the parse.
        doc_id: String::new(),
        line_count,
        format,
        structure,
        health: TreeHealth::default(),
        // Filled in by `build_tree` from the opening's text.
        party_names: Vec::new(),
    };
    tree.health = health::measure(&tree, toc);
    tree.health.noise_running_text = health::noise_running_text(&tree, source);
    tree
}

/// Characters (not bytes) of a string, counted without decoding.
pub(crate) fn count_chars(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    // Bytes that are not UTF-8 continuation bytes, summed in u8 chunks so
    // the loop vectorises.
    s.as_bytes()
        .chunks(255)
        .map(|c| usize::from(c.iter().fold(0u8, |n, &b| n + u8::from((b as i8) >= -0x40))))
        .sum()
}

/// Non-whitespace characters of `s`, counting no further than `limit`.
/// ASCII bytes are tested as they stand; only other characters are decoded.
fn count_non_blank(s: &str, limit: usize) -> usize {
    let b = s.as_bytes();
    let (mut n, mut i) = (0, 0);
    while n < limit && i < b.len() {
        if b[i].is_ascii() {
            // `char::is_whitespace` on ASCII: tab to carriage return, space.
            n += usize::from(!matches!(b[i], b'\t'..=b'\r' | b' '));
            i += 1;
        } else {
            let c = s[i..].chars().next().expect("a char starts here");
            n += usize::from(!c.is_whitespace());
            i += c.len_utf8();
        }
    }
    n
}

/// Collapses whitespace and drops Markdown emphasis markers; plain-text
/// titles also lose a trailing colon, comma or semicolon. Markdown titles
/// keep theirs (the reference algorithm's titles are the heading text).
pub(crate) fn clean_title(raw: &str, keep_trailing: bool) -> String {
    let mut out = String::with_capacity(raw.len());
    for word in raw.split(|c: char| c.is_whitespace()) {
        let w = word.trim_matches(|c| c == '*' || c == '_');
        if w.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    while !keep_trailing && (out.ends_with(':') || out.ends_with(',') || out.ends_with(';')) {
        out.pop();
    }
    if out.is_empty() {
        out.push_str("Untitled");
    }
    out
}

/// Kinds that follow from the title alone: annexes, tables of contents and
/// signature pages found by Markdown headings.
pub(crate) fn refine_kind(kind: NodeKind, title: &str) -> NodeKind {
    if kind != NodeKind::Section {
        return kind;
    }
    // ASCII case is enough: no letter of these words has a non-ASCII
    // upper case (the Kelvin sign is the only one that lower-cases to
    // ASCII, and there is no `k` here), so no lower-cased copy is made.
    let is = |s: &str, words: &[&str]| words.iter().any(|w| s.eq_ignore_ascii_case(w));
    let first = title.split(' ').next().unwrap_or("");
    let has_id = title.contains(' ');
    let signature_page = title
        .as_bytes()
        .get(..14)
        .is_some_and(|h| h.eq_ignore_ascii_case(b"signature page"));
    if has_id && is(first, &["schedule", "annex", "appendix"]) {
        NodeKind::Schedule
    } else if has_id && is(first, &["exhibit"]) {
        NodeKind::Exhibit
    } else if is(
        title,
        &[
            "table of contents",
            "contents",
            "index",
            "summary of contents",
        ],
    ) {
        NodeKind::Toc
    } else if signature_page || is(title, &["signatures"]) {
        NodeKind::Signature
    } else {
        kind
    }
}

/// Whether a heading's name (its title without its label) names the
/// signature pages (`Signatures`, `Signature Page`).
pub(crate) fn names_signature_pages(name: &str) -> bool {
    refine_kind(NodeKind::Section, name.trim()) == NodeKind::Signature
}

/// Adds headings found after the decoder (content after signature pages),
/// marked `extra`, in line order; a line that already starts a heading
/// keeps it.
pub(super) fn insert_extra(headings: &mut Vec<Heading>, extra: Vec<Heading>) {
    for mut h in extra {
        h.extra = true;
        let at = headings.partition_point(|x| x.line < h.line);
        if headings.get(at).is_some_and(|x| x.line == h.line) {
            continue;
        }
        headings.insert(at, h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_are_what_char_is_whitespace_says_and_counting_stops_at_the_limit() {
        // No-break and em spaces, a vertical tab: blank; `é` is not.
        let s = "a\u{a0}b\u{2003}c\x0b d\té\r\n";
        let by_chars = s.chars().filter(|c| !c.is_whitespace()).count();
        assert_eq!(count_non_blank(s, 100), by_chars);
        assert_eq!(by_chars, 5);
        assert_eq!(count_non_blank(s, 3), 3);
    }
}
