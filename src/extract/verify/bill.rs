//! What a document's verify requests will send, counted before any is
//! sent: the same questions, in the same batches, and the same messages and
//! schemas [`super::run`] sends, so `kgroute plan --llm-mode verify` and
//! a batch's summary state the bill before the first call. Beside it,
//! what `--llm-mode extract` would send for the same documents, which is
//! what verifying is measured against, and which bounds it: a document's
//! questions may cost at most `--verify-share` of that ([`asked`]).

use super::ask;
use super::questions::{batches, questions, Origin, Question};
use crate::clause_model::ClauseModel;
use crate::extract::bill::{BillOptions, TOKENS_PER_MESSAGE, TOKENS_PER_REQUEST};
use crate::extract::{ExtractionProfile, SectionExtraction, SectionInput};
use crate::route::cost::{CostModel, RequestBill};
use std::collections::BTreeSet;

/// The share of extract's input tokens a document's questions may cost
/// by default: verifying is worth it only far below extracting, and a
/// short contract's questions (each kind defined, each excerpt shown)
/// would otherwise cost a fifth of its extraction.
pub const DEFAULT_VERIFY_SHARE: f64 = 0.15;

/// The questions verify asks of one document, and how many it found but
/// leaves out to stay within its share.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Asked {
    pub questions: Vec<Question>,
    pub left_out: u64,
}

/// The questions of a document whose sections `inputs` the offline
/// reading read as `extractions` (one to one), within `opts.verify_share`
/// of `extract_tokens` (extract's input tokens for the same document).
/// When they would cost more, the ones likeliest to change a cell are
/// kept: a rule's assertion first (a no clears a wrong cell, and a wrong
/// cell costs more than an empty one), then readings the rules held, then
/// the clause model's suggestions, each in document order; the kept ones
/// keep their document order and are numbered again.
#[allow(clippy::too_many_arguments)]
pub fn asked(
    extractions: &[SectionExtraction],
    inputs: &[SectionInput],
    profile: &ExtractionProfile,
    model: Option<&ClauseModel>,
    opts: &BillOptions,
    cost: &CostModel,
    extract_tokens: u64,
) -> Asked {
    let all = questions(extractions, inputs, profile.ontology(), model);
    let allowance = (opts.verify_share * extract_tokens as f64).floor() as u64;
    let doc_type = inputs.first().map_or("", |i| i.doc_type.as_str());
    keep_within(all, allowance, |qs| {
        count(qs, doc_type, profile, opts, cost).input_tokens
    })
}

/// The most of `all` that `tokens` counts within `allowance`, by
/// [`rank`], in document order and numbered again.
fn keep_within(all: Vec<Question>, allowance: u64, tokens: impl Fn(&[Question]) -> u64) -> Asked {
    if tokens(&all) <= allowance {
        return Asked {
            questions: all,
            left_out: 0,
        };
    }
    let mut by_priority: Vec<usize> = (0..all.len()).collect();
    by_priority.sort_by_key(|&i| (rank(&all[i].origins), i));
    let first = |k: usize| -> Vec<Question> {
        let mut keep: Vec<usize> = by_priority[..k].to_vec();
        keep.sort_unstable();
        keep.iter()
            .enumerate()
            .map(|(n, &i)| Question {
                id: format!("q{}", n + 1),
                ..all[i].clone()
            })
            .collect()
    };
    // The cost grows with the questions kept (a batch's definitions are
    // shared, so not strictly): the most that fit, found by halving, then
    // stepped down until they do.
    let (mut lo, mut hi) = (0usize, all.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if tokens(&first(mid)) <= allowance {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let mut k = lo;
    while k > 0 && tokens(&first(k)) > allowance {
        k -= 1;
    }
    Asked {
        questions: first(k),
        left_out: (all.len() - k) as u64,
    }
}

/// The order questions are kept in when not all fit: asserted, held,
/// suggested.
fn rank(origins: &[Origin]) -> u8 {
    if origins.iter().any(|o| matches!(o, Origin::Asserted(_))) {
        0
    } else if origins.iter().all(|o| matches!(o, Origin::Held(_))) {
        1
    } else {
        2
    }
}

/// The verify requests of one document: `asked`'s questions about
/// sections `inputs`. `extract` is the same document's bill in
/// `--llm-mode extract`; its input tokens go in the result's
/// `extract_tokens`, its whole-document count is kept.
pub fn document_bill(
    asked: &Asked,
    inputs: &[SectionInput],
    profile: &ExtractionProfile,
    opts: &BillOptions,
    cost: &CostModel,
    extract: &RequestBill,
) -> RequestBill {
    let doc_type = inputs.first().map_or("", |i| i.doc_type.as_str());
    RequestBill {
        whole_document_chars: extract.whole_document_chars,
        whole_document_tokens: extract.whole_document_tokens,
        extract_tokens: extract.input_tokens,
        questions_left_out: asked.left_out,
        ..count(&asked.questions, doc_type, profile, opts, cost)
    }
}

/// What asking `qs` sends, batch by batch, as [`super::run`] sends it.
fn count(
    qs: &[Question],
    doc_type: &str,
    profile: &ExtractionProfile,
    opts: &BillOptions,
    cost: &CostModel,
) -> RequestBill {
    let system_tokens = cost.tokens(ask::SYSTEM);
    let frame = 2 * TOKENS_PER_MESSAGE + TOKENS_PER_REQUEST;
    let mut bill = RequestBill::default();
    for idx in batches(qs) {
        let refs: Vec<_> = idx.iter().map(|&i| &qs[i]).collect();
        let user = ask::message(doc_type, &refs, profile.ontology());
        let schema = if opts.schema_billed {
            ask::schema(&refs).to_string()
        } else {
            String::new()
        };
        bill.requests += 1;
        bill.questions += refs.len() as u64;
        bill.input_chars += (ask::SYSTEM.len() + user.len() + schema.len()) as u64;
        bill.input_tokens += system_tokens + cost.tokens(&user) + cost.tokens(&schema) + frame;
        bill.prefix_tokens += system_tokens;
        let excerpts: BTreeSet<&str> = refs.iter().map(|q| q.excerpt.as_str()).collect();
        for p in excerpts {
            bill.text_chars += p.len() as u64;
            bill.text_tokens += cost.tokens(p);
        }
    }
    bill
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(n: usize, origin: Origin) -> Question {
        Question {
            id: format!("q{n}"),
            section: n,
            relation_type: "NON_COMPETE".into(),
            breadcrumb: String::new(),
            excerpt: format!("paragraph {n}"),
            origins: vec![origin],
        }
    }

    #[test]
    fn within_the_share_assertions_stay_first_in_document_order() {
        let all = vec![
            question(1, Origin::Suggested(0.9)),
            question(2, Origin::Asserted(0)),
            question(3, Origin::Held(0)),
            question(4, Origin::Asserted(1)),
            question(5, Origin::Held(1)),
        ];
        // A request costs 100 tokens and each question 50 more.
        let tokens = |qs: &[Question]| {
            if qs.is_empty() {
                0
            } else {
                100 + 50 * qs.len() as u64
            }
        };
        let kept = |allowance| {
            let a = keep_within(all.clone(), allowance, tokens);
            let sections: Vec<usize> = a.questions.iter().map(|q| q.section).collect();
            let ids: Vec<String> = a.questions.iter().map(|q| q.id.clone()).collect();
            (sections, ids, a.left_out)
        };
        assert_eq!(kept(1000).0, [1, 2, 3, 4, 5]);
        assert_eq!(kept(1000).2, 0);
        assert_eq!(kept(200), (vec![2, 4], vec!["q1".into(), "q2".into()], 3));
        assert_eq!(kept(300).0, [2, 3, 4, 5]);
        assert_eq!(kept(350).0, [1, 2, 3, 4, 5]);
        assert_eq!(kept(149), (vec![], vec![], 5));
    }
}
