//! What a document's verify requests will send, counted before any is
//! sent: the same questions, in the same batches, and the same messages and
//! schemas [`super::run`] sends, so `kgroute plan --llm-mode verify` and
//! a batch's summary state the bill before the first call. Beside it,
//! what `--llm-mode extract` would send for the same documents, which is
//! what verifying is measured against.

use super::ask;
use super::questions::{batches, questions};
use crate::clause_model::ClauseModel;
use crate::extract::bill::{BillOptions, TOKENS_PER_MESSAGE, TOKENS_PER_REQUEST};
use crate::extract::{ExtractionProfile, SectionExtraction, SectionInput};
use crate::route::cost::{CostModel, RequestBill};
use std::collections::BTreeSet;

/// The verify requests of one document whose sections `inputs` the
/// offline reading read as `extractions` (one to one). `extract` is the
/// same document's bill in `--llm-mode extract`; its input tokens go in
/// the result's `extract_tokens`, its whole-document count is kept.
pub fn document_bill(
    extractions: &[SectionExtraction],
    inputs: &[SectionInput],
    profile: &ExtractionProfile,
    model: Option<&ClauseModel>,
    opts: &BillOptions,
    cost: &CostModel,
    extract: &RequestBill,
) -> RequestBill {
    let qs = questions(extractions, inputs, profile.ontology(), model);
    let system_tokens = cost.tokens(ask::SYSTEM);
    let frame = 2 * TOKENS_PER_MESSAGE + TOKENS_PER_REQUEST;
    let mut bill = RequestBill {
        whole_document_chars: extract.whole_document_chars,
        whole_document_tokens: extract.whole_document_tokens,
        extract_tokens: extract.input_tokens,
        ..RequestBill::default()
    };
    let doc_type = inputs.first().map_or("", |i| i.doc_type.as_str());
    for idx in batches(&qs) {
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
