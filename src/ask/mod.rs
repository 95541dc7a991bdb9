//! Query stage (`kgroute ask`): retrieve chunks from the search index,
//! dedupe them by section, rank the sections, and hand back each section
//! whole, read by its pointer from the source file (Proxy-Pointer: the
//! consumer never gets the chunk, it gets the contiguous section).

pub mod batch;
pub mod conductor;
pub mod docrank;
pub mod eval;
pub mod expand;
pub mod fuse;
pub mod grounding;
pub mod llm;
pub mod read;
pub mod render;
pub mod rerank;
pub mod structure;
pub mod which_contracts;

use crate::search::reader::WeightedTerm;
use crate::search::{ChunkHit, SearchIndex, SectionPointer};
use serde::Serialize;
use std::collections::HashMap;

/// Chunks retrieved per section asked for, before dedupe.
pub const CHUNKS_PER_SECTION: usize = 10;
/// Fewest chunks retrieved, however few sections are asked for.
pub const MIN_CHUNKS: usize = 50;
/// Weight of a section's further matching chunks against its best one.
pub const EXTRA_CHUNK_WEIGHT: f32 = 0.1;

/// A section found for a question, ranked.
#[derive(Debug, Clone, Serialize)]
pub struct SectionHit {
    pub score: f32,
    pub pointer: SectionPointer,
    /// Byte spans of the section's chunks that matched, best first.
    pub chunks: Vec<(usize, usize)>,
}

/// A ranked section with its whole text, as printed.
#[derive(Debug, Clone, Serialize)]
pub struct FoundSection {
    pub rank: usize,
    pub score: f32,
    #[serde(flatten)]
    pub pointer: SectionPointer,
    /// The whole section, read by its byte span from the source file.
    pub text: String,
}

/// The answer to one question.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    pub question: String,
    pub sections: Vec<FoundSection>,
    /// What the graph knows about the names in the question (absent when
    /// the batch has no graph to read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grounding: Option<grounding::Grounding>,
    /// The LLM's answer from the sections, when one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<llm::LlmAnswer>,
    /// Why the LLM's answer is missing when one was asked for and failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_error: Option<String>,
    /// Documents whose matching sections were left out (changed or
    /// unreadable sources): `ask` exits 1 when there are any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<DocProblem>,
}

/// Title words learned per question and the weight of the strongest in
/// the breadcrumb field (tuned on the CUAD tuning half).
pub const TITLE_TERMS: usize = 20;
pub const TITLE_WEIGHT: f32 = 0.5;

/// How much more a word counts for each time the question says it again
/// (the category's name and its description both saying "exclusive"),
/// tuned on the CUAD tuning half (`scripts/ask-eval --rerank`).
pub const REPEAT_WEIGHT: f32 = 0.6;

/// How much a section that mentions a name of the question gains.
pub const GROUNDED_BOOST: f32 = 0.5;

/// How a question becomes ranked sections (the figures in README were
/// tuned on the CUAD tuning half with `scripts/ask-eval --variants`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetrieveOptions {
    /// Weight of a breadcrumb match against a body match.
    pub crumb_boost: f32,
    /// Weight of a section's further matching chunks against its best one.
    pub extra_chunk_weight: f32,
    /// Words left out of the question: they frame it rather than say what
    /// it is about ([`expand::FRAME_WORDS`]; empty: none).
    pub frame_words: &'static [&'static str],
    /// Pseudo-relevance feedback: how many of the best chunks of the whole
    /// corpus are read for expansion terms (0: none), how many terms are
    /// added, and the weight of the strongest against a question word.
    pub feedback_chunks: usize,
    pub feedback_terms: usize,
    pub feedback_weight: f32,
    /// Read at most one feedback chunk per document, so the words learned
    /// are what many contracts share rather than one long contract's.
    pub feedback_one_per_doc: bool,
    /// How the tree's shape reorders the ranked sections
    /// ([`structure`]: short sections discounted, parents spread).
    pub shape: structure::ShapeOptions,
    /// Title words learned from the feedback chunks' section titles (0:
    /// none), matched in the breadcrumb field at up to `title_weight`.
    pub title_terms: usize,
    pub title_weight: f32,
    /// A word the question says again counts `repeat_weight` more for
    /// each repeat (0: each word once).
    pub repeat_weight: f32,
    /// How coverage of the question and its word pairs re-weight the
    /// retrieved chunks ([`rerank`]).
    pub rerank: rerank::RerankOptions,
    /// Weight of a section's second-best chunk (on top of its best).
    pub second_chunk_weight: f32,
}

impl Default for RetrieveOptions {
    fn default() -> Self {
        Self {
            crumb_boost: 0.75,
            extra_chunk_weight: 0.0,
            frame_words: &[],
            feedback_chunks: 50,
            feedback_terms: 40,
            feedback_weight: 1.0,
            feedback_one_per_doc: true,
            shape: structure::ShapeOptions::NONE,
            title_terms: TITLE_TERMS,
            title_weight: TITLE_WEIGHT,
            repeat_weight: REPEAT_WEIGHT,
            rerank: rerank::RerankOptions::NONE,
            second_chunk_weight: 0.0,
        }
    }
}

impl RetrieveOptions {
    /// The question's words as they are, BM25 alone (the baseline's way).
    pub fn plain() -> Self {
        Self {
            crumb_boost: crate::search::reader::CRUMB_BOOST,
            extra_chunk_weight: EXTRA_CHUNK_WEIGHT,
            frame_words: &[],
            feedback_chunks: 0,
            feedback_terms: 0,
            feedback_weight: 0.0,
            feedback_one_per_doc: false,
            shape: structure::ShapeOptions::NONE,
            title_terms: 0,
            title_weight: 0.0,
            repeat_weight: 0.0,
            rerank: rerank::RerankOptions::NONE,
            second_chunk_weight: 0.0,
        }
    }
}

/// Groups chunk hits by section (a section scores its best chunk plus a
/// little for each further one), best section first.
pub fn rank_sections(hits: Vec<ChunkHit>) -> Vec<SectionHit> {
    rank_sections_with(hits, EXTRA_CHUNK_WEIGHT)
}

/// [`rank_sections`] with a section's further chunks weighted `extra`.
pub fn rank_sections_with(hits: Vec<ChunkHit>, extra: f32) -> Vec<SectionHit> {
    rank_sections_by(hits, extra, 0.0)
}

/// [`rank_sections_with`], a section's second-best chunk adding `second`
/// times its score on top (before `extra` for each further one).
pub fn rank_sections_by(hits: Vec<ChunkHit>, extra: f32, second: f32) -> Vec<SectionHit> {
    let mut order: Vec<SectionHit> = Vec::new();
    let mut at: HashMap<(String, String), usize> = HashMap::new();
    for h in hits {
        let key = (h.pointer.doc_id.clone(), h.pointer.node_id.clone());
        match at.get(&key) {
            Some(&i) => {
                let w = if order[i].chunks.len() == 1 {
                    second + extra
                } else {
                    extra
                };
                order[i].score += w * h.score;
                order[i].chunks.push((h.chunk_start, h.chunk_end));
            }
            None => {
                at.insert(key, order.len());
                order.push(SectionHit {
                    score: h.score,
                    chunks: vec![(h.chunk_start, h.chunk_end)],
                    pointer: h.pointer,
                });
            }
        }
    }
    order.sort_by(|a, b| b.score.total_cmp(&a.score));
    order
}

/// The `top` best sections for `question` (within `doc` when given).
pub fn retrieve(
    index: &SearchIndex,
    question: &str,
    doc: Option<&str>,
    top: usize,
) -> anyhow::Result<Vec<SectionHit>> {
    let opts = RetrieveOptions::default();
    let query = expand::query(index, question, &opts)?;
    retrieve_query(index, &query, doc, top, &opts)
}

/// The `top` best sections for a query already made by
/// [`expand::query_terms`].
pub fn retrieve_terms(
    index: &SearchIndex,
    terms: &[WeightedTerm],
    doc: Option<&str>,
    top: usize,
    opts: &RetrieveOptions,
) -> anyhow::Result<Vec<SectionHit>> {
    let hits = index.search_terms(
        terms,
        opts.crumb_boost,
        doc,
        (top * CHUNKS_PER_SECTION).max(MIN_CHUNKS),
    )?;
    Ok(shape(hits, top, opts))
}

/// The `top` best sections for a [`expand::Query`]: its terms matched in
/// the body and (times `crumb_boost`) the breadcrumb, its title words
/// (times `title_weight`) in the breadcrumb only.
pub fn retrieve_query(
    index: &SearchIndex,
    query: &expand::Query,
    doc: Option<&str>,
    top: usize,
    opts: &RetrieveOptions,
) -> anyhow::Result<Vec<SectionHit>> {
    let mut crumb: Vec<WeightedTerm> = query
        .terms
        .iter()
        .map(|(t, w)| (t.clone(), opts.crumb_boost * w))
        .collect();
    for (t, w) in &query.titles {
        let w = opts.title_weight * w;
        match crumb.iter_mut().find(|(c, _)| c == t) {
            Some(c) => c.1 += w,
            None => crumb.push((t.clone(), w)),
        }
    }
    let mut hits = index.search_fields(
        &query.terms,
        &crumb,
        doc,
        (top * CHUNKS_PER_SECTION).max(MIN_CHUNKS),
    )?;
    rerank::rescore(&mut hits, query, &opts.rerank);
    Ok(shape(hits, top, opts))
}

/// Chunk hits to the `top` ranked sections.
fn shape(hits: Vec<ChunkHit>, top: usize, opts: &RetrieveOptions) -> Vec<SectionHit> {
    let mut ranked = rank_sections_by(hits, opts.extra_chunk_weight, opts.second_chunk_weight);
    structure::discount_short(&mut ranked, &opts.shape);
    let mut ranked = structure::spread_parents(ranked, top, opts.shape.sibling_factor);
    ranked.truncate(top);
    ranked
}

pub use read::{read_sections, DocProblem, ReadSections};

/// Most sections one question may ask for (`--top`): more is never read,
/// and an unbounded count became an unbounded allocation.
pub const MAX_TOP: usize = 1000;

/// Retrieves `top` sections more than asked when some documents had to be
/// left out, so the others fill their places.
fn refill(top: usize) -> usize {
    (top * 4).max(top + 20)
}

/// The `pool` best sections for `question`, sections that mention a name
/// the graph knows from the question raised, and (over the whole batch)
/// sections of the documents the question's identifying words point to
/// ([`docrank`]).
pub fn candidates(
    index: &SearchIndex,
    question: &str,
    doc: Option<&str>,
    pool: usize,
    grounding: Option<&grounding::Grounding>,
) -> anyhow::Result<Vec<SectionHit>> {
    candidates_by(
        index,
        question,
        doc,
        pool,
        grounding,
        &AskOptions::default(),
    )
}

/// [`candidates`] with documents ranked by `docs` (`DocRankOptions::NONE`:
/// sections by their own match alone), no flat-chunk
/// ranking fused.
pub fn candidates_with(
    index: &SearchIndex,
    question: &str,
    doc: Option<&str>,
    pool: usize,
    grounding: Option<&grounding::Grounding>,
    docs: &docrank::DocRankOptions,
) -> anyhow::Result<Vec<SectionHit>> {
    let opts = AskOptions {
        docs: *docs,
        fuse: fuse::FuseOptions::NONE,
        ..AskOptions::default()
    };
    candidates_by(index, question, doc, pool, grounding, &opts)
}

/// Everything that decides how `ask` ranks sections (the default: every
/// part at its own default, the flat-chunk ranking fused in).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AskOptions {
    pub retrieve: RetrieveOptions,
    /// How the section ranking retrieves over the whole batch, when not
    /// as within one document.
    pub across: Option<RetrieveOptions>,
    /// Documents ranked beside sections (over the whole batch only).
    pub docs: docrank::DocRankOptions,
    /// The flat-chunk ranking fused in (over the whole batch only).
    pub fuse: fuse::FuseOptions,
}

/// [`candidates`] with every ranking option given.
pub fn candidates_by(
    index: &SearchIndex,
    question: &str,
    doc: Option<&str>,
    pool: usize,
    grounding: Option<&grounding::Grounding>,
    o: &AskOptions,
) -> anyhow::Result<Vec<SectionHit>> {
    let grounded = grounding.filter(|g| !g.entities.is_empty());
    let want = if grounded.is_some() { pool * 3 } else { pool };
    let opts = match (doc, o.across) {
        (None, Some(a)) => a,
        _ => o.retrieve,
    };
    let docs = &o.docs;
    let fusing = doc.is_none() && !o.fuse.is_off();
    let depth = if fusing { want.max(o.fuse.depth) } else { want };
    let query = expand::query(index, question, &opts)?;
    let mut hits = retrieve_query(index, &query, doc, depth, &opts)?;
    if doc.is_none() {
        let ranked = docrank::doc_scores(index, question, docs)?;
        docrank::fuse(&mut hits, &ranked, docs, |d, n| {
            retrieve_query(index, &query, Some(d), n, &opts)
        })?;
    }
    if fusing {
        hits = fuse::fuse(index, question, hits, depth, &o.fuse)?;
    }
    if let Some(g) = grounded {
        for h in &mut hits {
            if g.mentions(&h.pointer.doc_id, &h.pointer.node_id) {
                h.score *= 1.0 + GROUNDED_BOOST;
            }
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    }
    hits.truncate(pool);
    Ok(hits)
}

/// Retrieves, ranks and reads: the whole offline `ask` without printing.
pub fn ask(
    index: &SearchIndex,
    question: &str,
    doc: Option<&str>,
    top: usize,
    grounding: Option<grounding::Grounding>,
) -> anyhow::Result<Answer> {
    conductor::answer(
        index,
        conductor::Question {
            text: question,
            doc,
            top,
            grounding,
        },
        None,
    )
}

/// Reads the `top` first sections of `hits`; when documents had to be left
/// out, asks `more` for a larger pool and reads again, so the sections of
/// the documents that are fine fill the places.
pub fn read_or_refill(
    hits: Vec<SectionHit>,
    top: usize,
    more: impl FnOnce(usize) -> anyhow::Result<Vec<SectionHit>>,
) -> anyhow::Result<ReadSections> {
    let first = read_sections(&hits, top);
    if first.problems.is_empty() || first.sections.len() >= top {
        return Ok(first);
    }
    let mut pool = more(refill(top))?;
    // Keep the first pool's order ahead of the larger pool's new sections.
    let seen: std::collections::HashSet<(String, String)> = hits
        .iter()
        .map(|h| (h.pointer.doc_id.clone(), h.pointer.node_id.clone()))
        .collect();
    pool.retain(|h| !seen.contains(&(h.pointer.doc_id.clone(), h.pointer.node_id.clone())));
    let mut all = hits;
    all.extend(pool);
    Ok(read_sections(&all, top))
}
