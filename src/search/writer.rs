//! Writes the search index one document at a time, as `ingest` finishes
//! each: the chunks of a document go to tantivy's writer (which flushes
//! segments to disk by its memory budget), nothing is kept per document,
//! and [`SearchIndexWriter::finish`] commits once at the end.

use super::chunk::{section_chunks, Chunk};
use super::schema::{self, Fields};
use super::SectionPointer;
use crate::route::RoutePlan;
use crate::tree::SourceText;
use anyhow::Context;
use std::path::{Path, PathBuf};
use tantivy::{doc, Index, IndexWriter, TantivyDocument, Term};

/// Memory tantivy may buffer before it writes a segment: tantivy's least
/// (`MEMORY_BUDGET_NUM_BYTES_MIN`).
/// A batch reaches it within a few hundred documents, so a batch of 500
/// and one of 5,000 hold the same; a larger buffer (50 MB before) kept
/// filling, about 30 KB a document, until its first flush.
const WRITER_BYTES: usize = 15_000_000;

/// The buffer of an index in memory (evaluations and benches: one
/// process over a fixed corpus, kept as before so their figures compare).
const IN_RAM_WRITER_BYTES: usize = 50_000_000;

/// Adds documents' chunks to the index in a batch folder.
pub struct SearchIndexWriter {
    dir: PathBuf,
    fields: Fields,
    writer: IndexWriter<TantivyDocument>,
    chunks: std::sync::atomic::AtomicU64,
    /// True when the index was empty when opened: nothing to replace, so
    /// no delete per document (each is a query tantivy runs on every
    /// segment at the commit).
    fresh: bool,
    /// The graph's names beside the index ([`super::names`]), when written.
    names: Option<super::names::NamesWriter>,
}

impl SearchIndexWriter {
    /// Opens the index under `batch_dir` (created when absent; a resumed
    /// batch keeps what it has and replaces the documents it re-adds).
    pub fn open(batch_dir: &Path) -> anyhow::Result<Self> {
        let dir = batch_dir.join(super::INDEX_DIR);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("{}: cannot create the search index folder", dir.display()))?;
        let (index, fresh) = if dir.join("meta.json").exists() {
            let index = Index::open_in_dir(&dir)
                .with_context(|| format!("{}: cannot open the search index", dir.display()))?;
            let empty = index
                .searchable_segment_metas()
                .map(|m| m.is_empty())
                .unwrap_or(false);
            (index, empty)
        } else {
            let index = schema::create_in_dir(&dir, schema::schema().0)
                .with_context(|| format!("{}: cannot create the search index", dir.display()))?;
            (index, true)
        };
        let mut writer = Self::with_index(index, dir, fresh, WRITER_BYTES)?;
        writer.names = super::names::NamesWriter::open(batch_dir, fresh)?;
        // No background merges while a batch writes: a merge maps every
        // segment it joins, and the segments grow with the batch (5,000
        // documents against 500 took the peak RSS from about 120 to 250 MB).
        // A batch ends with a segment per WRITER_BYTES of buffered chunks
        // (about 500 documents each); BM25 reads its statistics across all
        // segments, so the scores are the same as with one.
        writer
            .writer
            .set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        Ok(writer)
    }

    /// A writer over an index in memory (evaluations, benches).
    pub fn in_ram() -> anyhow::Result<Self> {
        Self::with_index(
            Index::create_in_ram(schema::schema().0),
            PathBuf::new(),
            true,
            IN_RAM_WRITER_BYTES,
        )
    }

    fn with_index(index: Index, dir: PathBuf, fresh: bool, bytes: usize) -> anyhow::Result<Self> {
        schema::register(&index);
        let fields = schema::fields_of(&index)?;
        let writer = index
            .writer_with_num_threads(1, bytes)
            .with_context(|| format!("{}: cannot write the search index", dir.display()))?;
        Ok(Self {
            dir,
            fields,
            writer,
            chunks: Default::default(),
            fresh,
            names: None,
        })
    }

    /// Adds one document's sections (replacing any earlier version of the
    /// same doc id in an index that had documents when opened; a run adds
    /// a document once). `path` is the source file as ingested.
    pub fn add(&self, plan: &RoutePlan, source: &SourceText, path: &Path) -> anyhow::Result<()> {
        if !self.fresh {
            self.writer
                .delete_term(Term::from_field_text(self.fields.doc_id, &plan.doc_id));
        }
        let (pointers, chunks) = section_chunks(plan, source, &path.display().to_string());
        self.add_chunks(&pointers, &chunks)
    }

    /// Adds the named entities of a document's graph to the names index
    /// beside the search index (nothing when there is none).
    pub fn add_graph(&self, graph: &crate::graph::DocGraph) -> anyhow::Result<()> {
        match &self.names {
            Some(n) => n.add(graph),
            None => Ok(()),
        }
    }

    /// Adds chunks as they are (the flat baseline of the evaluation makes
    /// its own); `chunks[i].section` indexes `pointers`.
    pub fn add_chunks(&self, pointers: &[SectionPointer], chunks: &[Chunk]) -> anyhow::Result<()> {
        let f = self.fields;
        let json: Vec<String> = pointers
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<_, _>>()?;
        for c in chunks {
            let p = &pointers[c.section];
            self.writer.add_document(doc!(
                f.text => c.text.as_str(),
                f.crumb => c.crumb.as_str(),
                f.doc_id => p.doc_id.as_str(),
                f.doc_name => p.doc_name.as_str(),
                f.pointer => json[c.section].as_str(),
                f.chunk_start => c.start_byte as u64,
                f.chunk_end => c.end_byte as u64,
            ))?;
        }
        self.chunks
            .fetch_add(chunks.len() as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// Commits everything added and returns how many chunks that was.
    pub fn finish(mut self) -> anyhow::Result<u64> {
        if let Some(names) = self.names.take() {
            names.finish()?;
        }
        self.writer
            .commit()
            .with_context(|| format!("{}: cannot commit the search index", self.dir.display()))?;
        merge_into_one(&mut self.writer)
            .with_context(|| format!("{}: cannot merge the search index", self.dir.display()))?;
        let n = self.chunks.load(std::sync::atomic::Ordering::Relaxed);
        self.writer.wait_merging_threads()?;
        Ok(n)
    }

    /// Commits and hands back the index to search (in-memory use).
    pub fn into_index(mut self) -> anyhow::Result<super::SearchIndex> {
        self.writer.commit()?;
        let index = self.writer.index().clone();
        self.writer.wait_merging_threads()?;
        super::SearchIndex::from_index(index)
    }
}

/// Merges the committed segments into one. A batch writes a segment per
/// `WRITER_BYTES` of chunks (32 for 2,000 contracts), and every question
/// then runs once per segment: term lookups, postings and a top-k of its
/// own in each, so a cold ask over 2,000 contracts cost 3.5 times one
/// over 200. Merged once at the end, not while the batch writes (see
/// [`SearchIndexWriter::open`]).
pub(super) fn merge_into_one<D: tantivy::Document>(
    writer: &mut IndexWriter<D>,
) -> anyhow::Result<()> {
    let ids = writer.index().searchable_segment_ids()?;
    if ids.len() > 1 {
        writer.merge(&ids).wait()?;
        writer.garbage_collect_files().wait()?;
    }
    Ok(())
}
