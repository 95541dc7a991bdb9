//! The one way a question is answered, for the CLI and for callers without
//! an LLM alike: retrieve a pool of sections, have the LLM re-rank it when
//! asked, read the best whole sections by their pointers (refilling from a
//! larger pool when some documents had to be left out), and have the LLM
//! write an answer from them when one is configured.
//!
//! A failed LLM step loses nothing retrieval found: a failed re-ranking
//! keeps retrieval's order, a failed answer still hands back the sections
//! (with `answer_error` saying why).

use super::grounding::Grounding;
use super::{candidates, read_or_refill, Answer};
use crate::llm::LlmClient;
use crate::search::SearchIndex;

/// Candidates the LLM re-ranks per section asked for.
pub const RERANK_POOL: usize = 4;

/// What is asked.
pub struct Question<'a> {
    pub text: &'a str,
    /// Only this document (its id).
    pub doc: Option<&'a str>,
    /// Sections to hand back.
    pub top: usize,
    /// What the graph knows of the question's names: its sections rank
    /// higher, and it is handed back with the answer.
    pub grounding: Option<Grounding>,
}

/// What the LLM does beside retrieval.
pub struct LlmStep<'a> {
    pub client: &'a LlmClient,
    /// Re-rank `RERANK_POOL` times the sections asked for.
    pub rerank: bool,
    /// Write an answer from the sections read.
    pub write_answer: bool,
}

/// Answers `q` from the batch's search index; with `llm`, re-ranked and
/// written as it says.
pub fn answer(index: &SearchIndex, q: Question, llm: Option<LlmStep>) -> anyhow::Result<Answer> {
    let pool = match &llm {
        Some(step) if step.rerank => q.top * RERANK_POOL,
        _ => q.top,
    };
    let grounding = q.grounding.as_ref();
    let mut hits = candidates(index, q.text, q.doc, pool, grounding)?;
    let rt = match &llm {
        Some(_) => Some(
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?,
        ),
        None => None,
    };
    if let (Some(step), Some(rt)) = (&llm, &rt) {
        if step.rerank && hits.len() > 1 {
            let pool = hits.clone();
            match rt.block_on(super::llm::rerank(step.client, q.text, hits)) {
                Ok(reranked) => hits = reranked,
                Err(e) => {
                    eprintln!(
                        "kgroute: warning: re-ranking failed, sections in retrieval order: {e:#}"
                    );
                    hits = pool;
                }
            }
        }
    }
    let read = read_or_refill(hits, q.top, |more| {
        candidates(index, q.text, q.doc, more, grounding)
    })?;
    let (written, answer_error) = match (&llm, &rt) {
        (Some(step), Some(rt)) if step.write_answer && !read.sections.is_empty() => {
            match rt.block_on(super::llm::answer(step.client, q.text, &read.sections)) {
                Ok(a) => (Some(a), None),
                Err(e) => (None, Some(format!("{e:#}"))),
            }
        }
        _ => (None, None),
    };
    Ok(Answer {
        question: q.text.to_string(),
        sections: read.sections,
        grounding: q.grounding,
        answer: written,
        answer_error,
        problems: read.problems,
    })
}
