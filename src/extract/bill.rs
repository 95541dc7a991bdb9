//! What a document's extraction requests will send, counted before any is
//! sent: the same pieces, packs and messages the extractor builds
//! ([`super::pack`], [`super::prompt`]), so `kgroute plan` shows the bill
//! `ingest` runs up, and a batch's summary can hold what the server billed
//! against it. Beside it, the same document sent whole in one request
//! with the same prompt: what routing is measured against.
//!
//! What the count cannot know: answers cut and asked again in halves,
//! pieces an answer left out (asked alone), repairs, and the title
//! mapping; and on a server whose tokenizer is not the cost model's, the
//! tokens are estimated (characters / 4).

use super::pack;
use super::prompt;
use super::{ExtractionProfile, SectionInput};
use crate::route::cost::{CostModel, RequestBill};

/// Tokens the chat template adds per message (role markers) and per
/// request (the answer's opening): OpenAI documents 3 and 3; ChatML
/// (Qwen) takes 4-5 a message.
pub const TOKENS_PER_MESSAGE: u64 = 4;
pub const TOKENS_PER_REQUEST: u64 = 3;

/// How requests are formed and what the server bills.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BillOptions {
    /// `--pack-tokens`.
    pub pack_tokens: u64,
    /// Sections longer than this are split first.
    pub section_budget_chars: usize,
    /// The model's context, when known: it lowers the pack budget.
    pub context_tokens: Option<u32>,
    /// The output schema is billed as prompt (hosted APIs); a llama.cpp
    /// server takes it as a grammar instead.
    pub schema_billed: bool,
    /// Requests a local server answers side by side (llama.cpp's slots):
    /// a document is spread over them ([`pack::budget_for_streams`]).
    pub streams: u32,
    /// With `--llm-mode verify`: the most a document's questions may cost,
    /// as a share of its extraction's input tokens.
    pub verify_share: f64,
}

impl Default for BillOptions {
    fn default() -> Self {
        BillOptions {
            pack_tokens: pack::DEFAULT_PACK_TOKENS,
            section_budget_chars: super::ExtractorConfig::default().section_budget_chars,
            context_tokens: None,
            schema_billed: true,
            streams: 1,
            verify_share: super::verify::bill::DEFAULT_VERIFY_SHARE,
        }
    }
}

/// The requests that extract `inputs` (one document's routed sections,
/// in order) will send, and `whole` (the whole document as one section)
/// sent instead in one request, counted with `cost`'s tokenizer.
pub fn document_bill(
    inputs: &[SectionInput],
    whole: &SectionInput,
    profile: &ExtractionProfile,
    opts: &BillOptions,
    cost: &CostModel,
) -> RequestBill {
    let system = profile.system_prompt();
    let schema = if opts.schema_billed {
        profile.wire_schema().to_string()
    } else {
        String::new()
    };
    let prefix_chars = (system.len() + schema.len()) as u64;
    let prefix_tokens = cost.tokens(system) + cost.tokens(&schema);
    let frame = 2 * TOKENS_PER_MESSAGE + TOKENS_PER_REQUEST;
    let budget = pack::budget_for_context(opts.pack_tokens, opts.context_tokens, prefix_tokens);
    let mut bill = RequestBill::default();
    let pieces = pack::pieces_of(inputs, opts.section_budget_chars);
    let budget = pack::budget_for_streams(budget, &pieces, opts.streams);
    for p in pack::packs(pieces, budget) {
        let items: Vec<(String, &SectionInput)> =
            p.iter().map(|x| (x.id.clone(), &x.input)).collect();
        let user = prompt::pack_message(&items);
        bill.requests += 1;
        bill.input_chars += prefix_chars + user.len() as u64;
        bill.input_tokens += prefix_tokens + cost.tokens(&user) + frame;
        bill.prefix_tokens += prefix_tokens;
        for x in &p {
            bill.text_chars += x.input.text.len() as u64;
            bill.text_tokens += cost.tokens(&x.input.text);
        }
    }
    let whole_user = prompt::pack_message(&[(whole.node_id.clone(), whole)]);
    bill.whole_document_chars = prefix_chars + whole_user.len() as u64;
    bill.whole_document_tokens = prefix_tokens + cost.tokens(&whole_user) + frame;
    bill
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{DensityThresholds, Ontology};

    fn profile() -> ExtractionProfile {
        let mut o = Ontology::default();
        o.entity_types
            .insert("Organization".into(), "a company".into());
        o.relation_types.insert("HAS_ROLE".into(), "a role".into());
        ExtractionProfile::new(o, DensityThresholds::default()).unwrap()
    }

    fn section(node: &str, text: &str) -> SectionInput {
        SectionInput {
            doc_type: "commercial".into(),
            node_id: node.into(),
            breadcrumb: format!("[{node}]"),
            text: text.into(),
            ..Default::default()
        }
    }

    #[test]
    fn the_bill_counts_the_requests_ingest_sends_and_the_whole_document_beside_them() {
        let inputs: Vec<SectionInput> = (0..6)
            .map(|i| {
                section(
                    &format!("{i:04}"),
                    &"The Supplier shall deliver. ".repeat(60),
                )
            })
            .collect();
        let whole = section("0000", &"The Supplier shall deliver. ".repeat(500));
        let cost = CostModel::new(Some("gpt-4o-mini"), None);
        let one_pack = document_bill(&inputs, &whole, &profile(), &BillOptions::default(), &cost);
        assert_eq!(one_pack.requests, 1);
        assert_eq!(one_pack.text_chars, 6 * 28 * 60);
        // Every request carries the prefix once; the text is counted once.
        let prefix = cost.tokens(profile().system_prompt())
            + cost.tokens(&profile().wire_schema().to_string());
        assert_eq!(one_pack.prefix_tokens, prefix);
        assert!(one_pack.input_tokens > one_pack.text_tokens + prefix);
        assert!(one_pack.input_tokens < one_pack.whole_document_tokens);
        // One section a request: six prefixes.
        let small = BillOptions {
            pack_tokens: 420,
            ..BillOptions::default()
        };
        let six = document_bill(&inputs, &whole, &profile(), &small, &cost);
        assert_eq!(six.requests, 6);
        assert_eq!(six.prefix_tokens, 6 * prefix);
        assert_eq!(six.text_tokens, one_pack.text_tokens);
        // A grammar server does not bill the schema.
        let grammar = BillOptions {
            schema_billed: false,
            ..BillOptions::default()
        };
        let g = document_bill(&inputs, &whole, &profile(), &grammar, &cost);
        assert_eq!(
            g.input_tokens + cost.tokens(&profile().wire_schema().to_string()),
            one_pack.input_tokens
        );
        // Nothing routed: no request, the whole document still counted.
        let none = document_bill(&[], &whole, &profile(), &BillOptions::default(), &cost);
        assert_eq!((none.requests, none.input_tokens), (0, 0));
        assert_eq!(none.whole_document_tokens, one_pack.whole_document_tokens);
    }
}
