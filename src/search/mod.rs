//! Search index of section chunks (Proxy-Pointer retrieval: the index
//! finds chunks, the answer is the whole section they point to): every section that is not noise becomes structure-guided chunks, each
//! prefixed with its breadcrumb and carrying a pointer back to its section
//! (doc id, node id, byte span, lines). `kgroute ask` searches the chunks
//! with BM25 (tantivy) and follows the pointers to the whole sections.
//!
//! The index lives in the batch folder under [`INDEX_DIR`]; `ingest` writes
//! it one document at a time ([`SearchIndexWriter`]), `kgroute rebuild-search`
//! rebuilds it for an existing batch, `kgroute merge` joins the shards'.

pub mod batch;
pub mod chunk;
pub mod merge;
pub mod names;
pub mod reader;
pub mod schema;
pub mod stem;
pub mod writer;

pub use chunk::{section_chunks, Chunk};
pub use reader::{ChunkHit, SearchIndex};
pub use writer::SearchIndexWriter;

use serde::{Deserialize, Serialize};

/// Folder of the search index inside a batch folder.
pub const INDEX_DIR: &str = "search";

/// Where a chunk's section is: what `ask` follows to read the whole section
/// from its source file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionPointer {
    pub doc_id: String,
    /// The source file's name (what `--doc` also accepts).
    pub doc_name: String,
    /// The document's title, the agreement's name its opening states
    /// ([`crate::tree::title::document_title`]; absent when it states none, and in
    /// indexes written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_title: Option<String>,
    /// The source file as ingested.
    pub path: String,
    pub node_id: String,
    pub title: String,
    pub breadcrumb: String,
    /// Half-open byte span of the section's own text in the source.
    pub start_byte: usize,
    pub end_byte: usize,
    /// 1-based inclusive lines.
    pub start_line: usize,
    pub end_line: usize,
    /// Hex SHA-256 of the source file's bytes when it was indexed: `ask`
    /// returns a section only while the file still hashes the same (absent
    /// in indexes written before it was kept: their spans are only checked
    /// to fit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}
