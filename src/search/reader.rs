//! Reads the search index: a question becomes a BM25 query over the chunks'
//! text and breadcrumbs (optionally within one document), and each hit
//! comes back with its section pointer. A query is a list of weighted
//! analysed terms, so the ask stage can drop a question's frame words and
//! add terms learned from the corpus (see `ask::expand`).

use super::schema::{self, Fields};
use super::SectionPointer;
use anyhow::Context;
use std::path::Path;
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::query::{BooleanQuery, BoostQuery, ConstScoreQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::tokenizer::TokenStream;
use tantivy::{Index, IndexReader, TantivyDocument, Term};

/// How much a breadcrumb word counts against a body word.
pub const CRUMB_BOOST: f32 = 1.0;

/// An opened search index.
pub struct SearchIndex {
    reader: IndexReader,
    fields: Fields,
}

/// One chunk found, with its section.
#[derive(Debug, Clone)]
pub struct ChunkHit {
    pub score: f32,
    pub pointer: SectionPointer,
    pub chunk_start: usize,
    pub chunk_end: usize,
    /// The chunk's indexed text (breadcrumb line and body); empty for an
    /// index written before the text was stored.
    pub text: String,
}

/// An analysed query term and how much it counts.
pub type WeightedTerm = (String, f32);

impl SearchIndex {
    /// Opens the index of a batch folder.
    pub fn open(batch_dir: &Path) -> anyhow::Result<Self> {
        let dir = batch_dir.join(super::INDEX_DIR);
        if !dir.join("meta.json").exists() {
            anyhow::bail!(
                "{}: no search index; build it with `kgroute rebuild-search {}`",
                dir.display(),
                batch_dir.display()
            );
        }
        let index = Index::open_in_dir(&dir)
            .with_context(|| format!("{}: cannot open the search index", dir.display()))?;
        Self::from_index(index).with_context(|| dir.display().to_string())
    }

    pub(crate) fn from_index(index: Index) -> anyhow::Result<Self> {
        schema::register(&index);
        let fields = schema::fields_of(&index)?;
        let reader = index.reader()?;
        Ok(Self { reader, fields })
    }

    /// Number of chunks in the index.
    pub fn chunk_count(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// The distinct analysed terms of `text` (stemmed, stop words out).
    pub fn terms(&self, text: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in analysed(text) {
            if !out.contains(&t) {
                out.push(t);
            }
        }
        out
    }

    /// In how many chunks the analysed `term` occurs in the body text.
    pub fn doc_freq(&self, term: &str) -> u64 {
        self.reader
            .searcher()
            .doc_freq(&Term::from_field_text(self.fields.text, term))
            .unwrap_or(0)
    }

    /// The best `limit` chunks for `question`, optionally only of the
    /// document whose id or file name is `doc`.
    pub fn search(
        &self,
        question: &str,
        doc: Option<&str>,
        limit: usize,
    ) -> anyhow::Result<Vec<ChunkHit>> {
        let terms: Vec<WeightedTerm> = self.terms(question).into_iter().map(|t| (t, 1.0)).collect();
        self.search_terms(&terms, CRUMB_BOOST, doc, limit)
    }

    /// The best `limit` chunks for weighted analysed terms, each matched in
    /// the body and, times `crumb_boost`, in the breadcrumb field.
    pub fn search_terms(
        &self,
        terms: &[WeightedTerm],
        crumb_boost: f32,
        doc: Option<&str>,
        limit: usize,
    ) -> anyhow::Result<Vec<ChunkHit>> {
        let crumb: Vec<WeightedTerm> = if crumb_boost > 0.0 {
            terms
                .iter()
                .map(|(t, w)| (t.clone(), crumb_boost * w))
                .collect()
        } else {
            Vec::new()
        };
        self.search_fields(terms, &crumb, doc, limit)
    }

    /// The best `limit` chunks for weighted terms matched in the body and
    /// other weighted terms matched in the breadcrumb field.
    pub fn search_fields(
        &self,
        body: &[WeightedTerm],
        crumb: &[WeightedTerm],
        doc: Option<&str>,
        limit: usize,
    ) -> anyhow::Result<Vec<ChunkHit>> {
        let f = self.fields;
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let fields = body
            .iter()
            .map(|t| (f.text, t))
            .chain(crumb.iter().map(|t| (f.crumb, t)));
        for (field, (t, w)) in fields {
            if *w <= 0.0 {
                continue;
            }
            should.push((
                Occur::Should,
                Box::new(BoostQuery::new(
                    Box::new(TermQuery::new(
                        Term::from_field_text(field, t),
                        IndexRecordOption::WithFreqs,
                    )),
                    *w,
                )),
            ));
        }
        if should.is_empty() {
            return Ok(Vec::new());
        }
        let words: Box<dyn Query> = Box::new(BooleanQuery::new(should));
        let query: Box<dyn Query> = match doc {
            None => words,
            Some(d) => {
                let name = Path::new(d)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| d.to_string());
                let filter = BooleanQuery::new(vec![
                    (Occur::Should, term_query(f.doc_id, d)),
                    (Occur::Should, term_query(f.doc_name, d)),
                    (Occur::Should, term_query(f.doc_name, &name)),
                ]);
                Box::new(BooleanQuery::new(vec![
                    (Occur::Must, words),
                    (
                        Occur::Must,
                        Box::new(ConstScoreQuery::new(Box::new(filter), 0.0)),
                    ),
                ]))
            }
        };
        let searcher = self.reader.searcher();
        let top = searcher.search(&*query, &TopDocs::with_limit(limit.max(1)))?;
        let mut out = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let d: TantivyDocument = searcher.doc(addr)?;
            let json = d
                .get_first(f.pointer)
                .and_then(|v| v.as_str())
                .context("search index chunk without a pointer")?;
            let pointer: SectionPointer =
                serde_json::from_str(json).context("search index pointer")?;
            let num = |field| {
                d.get_first(field)
                    .and_then(|v| v.as_u64())
                    .unwrap_or_default() as usize
            };
            let text = d
                .get_first(f.text)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string();
            out.push(ChunkHit {
                score,
                pointer,
                chunk_start: num(f.chunk_start),
                chunk_end: num(f.chunk_end),
                text,
            });
        }
        Ok(out)
    }

    /// One pointer (of its first chunk) per document whose doc id or file
    /// name is `key`, in index order: what `--doc` and the naming of
    /// same-named files look up.
    pub fn documents(&self, key: &str) -> anyhow::Result<Vec<SectionPointer>> {
        let f = self.fields;
        let q = BooleanQuery::new(vec![
            (Occur::Should, term_query(f.doc_id, key)),
            (Occur::Should, term_query(f.doc_name, key)),
        ]);
        let searcher = self.reader.searcher();
        let mut addrs: Vec<_> = searcher.search(&q, &DocSetCollector)?.into_iter().collect();
        addrs.sort();
        let mut out: Vec<SectionPointer> = Vec::new();
        for addr in addrs {
            let d: TantivyDocument = searcher.doc(addr)?;
            let json = d
                .get_first(f.pointer)
                .and_then(|v| v.as_str())
                .context("search index chunk without a pointer")?;
            let p: SectionPointer = serde_json::from_str(json).context("search index pointer")?;
            if !out.iter().any(|o| o.doc_id == p.doc_id) {
                out.push(p);
            }
        }
        Ok(out)
    }
}

/// How the documents of an index use some terms: what ranks documents
/// (not chunks) for a question ([`crate::ask::docrank`]).
#[derive(Debug, Clone, Default)]
pub struct DocTermStats {
    /// Doc ids, in the order the other fields index them.
    pub docs: Vec<String>,
    /// Chunks per document (its length).
    pub chunks: Vec<u32>,
    /// Per term asked for: (document, occurrences in its chunks' text).
    pub counts: Vec<Vec<(usize, u32)>>,
}

impl SearchIndex {
    /// For each of `terms` (analysed), how often each document's chunks
    /// say it in the body text. Reads the postings of the doc-id field
    /// once (which chunk is whose) and the postings of each term: the
    /// work follows the terms' frequency, no stored chunk is read.
    pub fn doc_term_stats(&self, terms: &[String]) -> anyhow::Result<DocTermStats> {
        use tantivy::postings::Postings;
        use tantivy::DocSet;
        let f = self.fields;
        let searcher = self.reader.searcher();
        let mut out = DocTermStats {
            counts: vec![Vec::new(); terms.len()],
            ..Default::default()
        };
        let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut per_term: Vec<std::collections::HashMap<usize, u32>> =
            vec![std::collections::HashMap::new(); terms.len()];
        for seg in searcher.segment_readers() {
            let alive = seg.alive_bitset();
            let live = |d: u32| alive.is_none_or(|a| a.is_alive(d));
            let ids = seg.inverted_index(f.doc_id)?;
            let mut owner: Vec<usize> = vec![usize::MAX; seg.max_doc() as usize];
            let mut stream = ids.terms().stream()?;
            while let Some((key, info)) = stream.next() {
                let id = String::from_utf8_lossy(key).into_owned();
                let next = at.len();
                let k = *at.entry(id.clone()).or_insert(next);
                if k == out.docs.len() {
                    out.docs.push(id);
                    out.chunks.push(0);
                }
                let mut p = ids.read_postings_from_terminfo(info, IndexRecordOption::Basic)?;
                let mut d = p.doc();
                while d != tantivy::TERMINATED {
                    if live(d) {
                        owner[d as usize] = k;
                        out.chunks[k] += 1;
                    }
                    d = p.advance();
                }
            }
            let text = seg.inverted_index(f.text)?;
            for (i, t) in terms.iter().enumerate() {
                let term = Term::from_field_text(f.text, t);
                let Some(mut p) = text.read_postings(&term, IndexRecordOption::WithFreqs)? else {
                    continue;
                };
                let mut d = p.doc();
                while d != tantivy::TERMINATED {
                    let k = owner[d as usize];
                    if k != usize::MAX && live(d) {
                        *per_term[i].entry(k).or_default() += p.term_freq();
                    }
                    d = p.advance();
                }
            }
        }
        for (i, m) in per_term.into_iter().enumerate() {
            let mut v: Vec<(usize, u32)> = m.into_iter().collect();
            v.sort_unstable();
            out.counts[i] = v;
        }
        Ok(out)
    }
}

/// Every analysed term of `text` in order, repeats kept (term counts).
pub fn analysed(text: &str) -> Vec<String> {
    let mut a = schema::analyzer();
    let mut stream = a.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

fn term_query(field: tantivy::schema::Field, value: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, value),
        IndexRecordOption::Basic,
    ))
}
