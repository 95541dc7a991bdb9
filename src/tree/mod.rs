//! Tree stage: turns a document's heading structure into a skeleton tree of
//! sections with exact line pointers, without any LLM.
//!
//! Hands a [`DocTree`] to the routing stage. The text of a section is never
//! copied into the tree: consumers follow its byte span `start_byte..end_byte`
//! back into the [`SourceText`] ([`SourceText::byte_span_text`]); the line
//! numbers are for provenance and reports.

mod assemble;
mod capitals;
pub mod contents;
mod decode;
mod doc_id;
pub mod eval;
pub mod health;
pub mod label;
mod lines;
mod markdown;
#[cfg(test)]
mod markdown_tests;
mod md_signature;
pub mod paragraphs;
pub mod party_names;
mod plain_signature;
mod plaintext;
mod recitals;
pub mod source;
#[cfg(test)]
mod tests;
pub mod title;

pub use contents::EntryStatus;
pub use doc_id::doc_id;
pub use health::TreeHealth;
pub use label::{split_heading, Label, LabelKind};

pub use source::{InputError, SourceText};

use serde::{Deserialize, Serialize};

/// How the document's headings were recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DocFormat {
    Markdown,
    Text,
}

/// What a node is, so later stages can treat tables of contents, empty
/// structural headings and annexes differently from ordinary sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Section,
    Preamble,
    Toc,
    Structural,
    Schedule,
    Exhibit,
    Signature,
    Fallback,
}

/// One heading and the span of text it owns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// The heading as written (whitespace collapsed).
    pub title: String,
    /// The heading's numbering, parsed once here (`ARTICLE VII` -> [7]).
    #[serde(default)]
    pub label: Option<Label>,
    /// The title without its label and separators (`Payments and
    /// Computations`); what matching, reports and the graph read.
    #[serde(default)]
    pub name: String,
    /// 4-digit zero-padded pre-order id; `0000` is the preamble.
    pub node_id: String,
    /// 1-based line of the heading (PageIndex/Proxy-Pointer field).
    pub line_num: usize,
    /// 1-based, inclusive: from the heading line to the line before the next
    /// heading of any level, or to the line the next heading stands inside.
    /// Children are not part of this span.
    pub start_line: usize,
    pub end_line: usize,
    /// The node's own text as a half-open byte span of the source: the
    /// nodes tile the text exactly. A line-start node starts at its line's
    /// first byte; a heading the extraction ran into the middle of a line
    /// starts its node there, so that line is both the previous node's
    /// `end_line` and this node's `start_line`. Read it with
    /// [`SourceText::byte_span_text`]; a tree saved before byte spans
    /// loads with `0..0`.
    #[serde(default)]
    pub start_byte: usize,
    #[serde(default)]
    pub end_byte: usize,
    pub level: u8,
    /// Size of the node's own span in characters (not bytes).
    pub chars: usize,
    /// Ancestor titles and own title joined with ` > `.
    pub breadcrumb: String,
    pub kind: NodeKind,
    pub nodes: Vec<Node>,
}

/// The skeleton tree of one document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocTree {
    pub doc_name: String,
    /// Stable id: file stem plus a content-hash prefix.
    pub doc_id: String,
    pub line_count: usize,
    pub format: DocFormat,
    pub structure: Vec<Node>,
    /// Whether the tree looks right (preamble share, numbering, contents).
    #[serde(default)]
    pub health: TreeHealth,
    /// The parties' short names the opening defines (`("Miltenyi")`):
    /// matching reads headings without them.
    #[serde(default)]
    pub party_names: Vec<String>,
}

impl DocTree {
    /// The tree with its byte spans as bytes of the file `source` was read
    /// from, for a reader slicing the file (a CRLF file's offsets run
    /// ahead of the text's; see [`SourceText::file_byte`]).
    pub fn with_file_bytes(&self, source: &SourceText) -> DocTree {
        fn map(nodes: &mut [Node], source: &SourceText) {
            for n in nodes {
                (n.start_byte, n.end_byte) = source.file_span(n.start_byte, n.end_byte);
                map(&mut n.nodes, source);
            }
        }
        let mut tree = self.clone();
        map(&mut tree.structure, source);
        tree
    }

    /// Every node in pre-order (document order).
    pub fn iter(&self) -> impl Iterator<Item = &Node> {
        let mut stack: Vec<&Node> = self.structure.iter().rev().collect();
        std::iter::from_fn(move || {
            let node = stack.pop()?;
            stack.extend(node.nodes.iter().rev());
            Some(node)
        })
    }

    /// Every node in pre-order with its parent's node id.
    pub fn iter_with_parent(&self) -> Vec<(&Node, Option<&str>)> {
        fn walk<'a>(
            nodes: &'a [Node],
            parent: Option<&'a str>,
            out: &mut Vec<(&'a Node, Option<&'a str>)>,
        ) {
            for n in nodes {
                out.push((n, parent));
                walk(&n.nodes, Some(&n.node_id), out);
            }
        }
        let mut out = Vec::new();
        walk(&self.structure, None, &mut out);
        out
    }

    pub fn find(&self, node_id: &str) -> Option<&Node> {
        self.iter().find(|n| n.node_id == node_id)
    }
}

impl Node {
    /// The span of this node and all its descendants (first..=last line).
    pub fn subtree_span(&self) -> (usize, usize) {
        let mut end = self.end_line;
        let mut cur = self;
        while let Some(last) = cur.nodes.last() {
            end = end.max(last.end_line);
            cur = last;
        }
        (self.start_line, end)
    }
}

/// With this many Markdown headings a document is Markdown, whatever its
/// plain-text headings: a wrapper has only a handful.
const MARKDOWN_CERTAIN: usize = 20;

/// Builds the tree of a document. Never fails: a document without headings
/// becomes one `fallback` node.
///
/// Markdown is recognised by its ATX headings; a document that uses `#` only
/// for a few wrapper lines around plain text (fewer than 20 Markdown
/// headings and fewer than half as many as its plain-text headings) is read
/// as plain text.
pub fn build_tree(source: &SourceText) -> DocTree {
    // The content hash of the id and the heading parse are independent; on a
    // long document the hash runs on a second thread meanwhile (it is about
    // a sixth of the work), on a short one inline.
    let id = || doc_id::doc_id_of_digest(&source.path, source.text_sha256());
    if source.text.len() >= PARALLEL_HASH_BYTES {
        std::thread::scope(|s| {
            let hash = s.spawn(id);
            let mut t = headings_tree(source);
            t.party_names = party_names::party_names(source, &t.structure);
            t.doc_id = hash.join().expect("hashing does not panic");
            t
        })
    } else {
        let mut t = headings_tree(source);
        t.party_names = party_names::party_names(source, &t.structure);
        t.doc_id = id();
        t
    }
}

/// Texts at least this long hash their id on a second thread.
const PARALLEL_HASH_BYTES: usize = 128 * 1024;

/// The tree without its id.
fn headings_tree(source: &SourceText) -> DocTree {
    if source.line_count() == 0 {
        return assemble::assemble(source, DocFormat::Text, Vec::new(), &[]);
    }
    if markdown::has_atx_heading(&source.text) {
        let mut md = markdown::headings(source);
        if md.len() >= MARKDOWN_CERTAIN {
            markdown::extra_nodes(source, &mut md);
            return assemble::assemble(source, DocFormat::Markdown, md, &[]);
        }
        let (plain, toc) = plaintext::headings(source);
        if !md.is_empty() && plain.len() <= 2 * md.len() {
            markdown::extra_nodes(source, &mut md);
            return assemble::assemble(source, DocFormat::Markdown, md, &[]);
        }
        return plain_tree(source, plain, &toc);
    }
    let (plain, toc) = plaintext::headings(source);
    plain_tree(source, plain, &toc)
}

/// Whether a section's name (its title without its label) names the
/// signature pages. The tree keeps a section so named as a `section` only
/// when its text opens with a clause (a counterparts provision titled
/// `Signatures`), so the router does not read that title as noise.
pub fn names_signature_pages(name: &str) -> bool {
    assemble::names_signature_pages(name)
}

/// A plain-text tree: the decoder's headings plus a node for the content
/// after each signature page's last block.
fn plain_tree(
    source: &SourceText,
    mut plain: Vec<assemble::Heading>,
    toc: &[(String, EntryStatus)],
) -> DocTree {
    capitals::add_capitals_headings(source, &mut plain);
    plain_signature::split_after_signatures(source, &mut plain);
    recitals::add_recitals(source, &mut plain);
    assemble::assemble(source, DocFormat::Text, plain, toc)
}
