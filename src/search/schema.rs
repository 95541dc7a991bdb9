//! The index's one schema and one analyzer, shared by the writer, the reader
//! and the merge so every index of every batch reads the same way.

use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, STORED, STRING,
};
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, StopWordFilter, TextAnalyzer,
};
use tantivy::Index;

/// Name of the analyzer: words, lower-cased, English stop words dropped,
/// Snowball-stemmed.
pub const ANALYZER: &str = "kgroute_en";

/// The fields of one chunk document.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// Breadcrumb and chunk text (BM25; stored).
    pub text: Field,
    /// The section's breadcrumb alone (BM25, boosted: the method's
    /// structural location as its own signal).
    pub crumb: Field,
    /// Exact doc id and file name, for `--doc` and deleting a re-indexed
    /// document.
    pub doc_id: Field,
    pub doc_name: Field,
    /// The [`super::SectionPointer`] as JSON (stored only).
    pub pointer: Field,
    /// The chunk's own byte span (stored only).
    pub chunk_start: Field,
    pub chunk_end: Field,
}

/// The schema and its fields.
pub fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let analysed = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    // The text is stored too: the ask stage learns expansion terms from
    // the best chunks' words (pseudo-relevance feedback).
    let text = b.add_text_field("text", analysed.clone().set_stored());
    let crumb = b.add_text_field("crumb", analysed);
    let doc_id = b.add_text_field("doc_id", STRING);
    let doc_name = b.add_text_field("doc_name", STRING);
    let pointer = b.add_text_field("pointer", STORED);
    let chunk_start = b.add_u64_field("chunk_start", STORED);
    let chunk_end = b.add_u64_field("chunk_end", STORED);
    (
        b.build(),
        Fields {
            text,
            crumb,
            doc_id,
            doc_name,
            pointer,
            chunk_start,
            chunk_end,
        },
    )
}

/// The analyzer both indexing and queries use. Its stemmer is tantivy's
/// English Snowball stemmer with a cache of stemmed words (the same tokens,
/// see [`super::stem`]).
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(StopWordFilter::new(Language::English).expect("English stop words are built in"))
        .filter(super::stem::CachedEnglishStemmer)
        .build()
}

/// Registers [`ANALYZER`] on an opened or created index.
pub fn register(index: &Index) {
    index.tokenizers().register(ANALYZER, analyzer());
}

/// The fields of an opened index, by name; an error when it is not a
/// kgroute search index.
pub fn fields_of(index: &Index) -> anyhow::Result<Fields> {
    let s = index.schema();
    let f = |name: &str| {
        s.get_field(name)
            .map_err(|_| anyhow::anyhow!("not a kgroute search index (no field `{name}`)"))
    };
    Ok(Fields {
        text: f("text")?,
        crumb: f("crumb")?,
        doc_id: f("doc_id")?,
        doc_name: f("doc_name")?,
        pointer: f("pointer")?,
        chunk_start: f("chunk_start")?,
        chunk_end: f("chunk_end")?,
    })
}

/// Creates an index in `dir` whose stored fields (section text, names) are
/// compressed with LZ4: about a third of their size on disk (CUAD's 121
/// checking contracts: search/ 22 MB -> 7 MB), read back a block at a time
/// for the few sections an answer shows.
pub fn create_in_dir(
    dir: &std::path::Path,
    schema: tantivy::schema::Schema,
) -> tantivy::Result<Index> {
    Index::builder()
        .schema(schema)
        .settings(tantivy::IndexSettings {
            docstore_compression: tantivy::store::Compressor::Lz4,
            ..tantivy::IndexSettings::default()
        })
        .create_in_dir(dir)
}

#[cfg(test)]
mod compression_tests {
    #[test]
    fn a_new_index_stores_its_fields_compressed() {
        let dir = tempfile::tempdir().unwrap();
        super::create_in_dir(dir.path(), super::schema().0).unwrap();
        let reopened = tantivy::Index::open_in_dir(dir.path()).unwrap();
        assert_eq!(
            reopened.settings().docstore_compression,
            tantivy::store::Compressor::Lz4
        );
    }
}
