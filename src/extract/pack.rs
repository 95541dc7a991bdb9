//! Packs: the routed sections of one document grouped into requests.
//!
//! A request's fixed part (the system message and the output schema, a few
//! thousand characters) used to travel with every section, and a routed
//! section is often a few hundred characters: the scaffolding, not the
//! contract, was the bill. So the pieces of one document (its routed
//! sections, long ones split by [`super::split`]) go together, in document
//! order, up to a text budget; each keeps its own id, breadcrumb and
//! answer. `kgroute plan` and `ingest` form packs with this one function,
//! so the plan counts the requests ingest sends.
//!
//! The budget is in estimated tokens (characters / 4) so that packing is
//! the same whatever tokenizer counts the bill; the extractor lowers it to
//! what a model's context holds with room for the answer.

use super::split::split_section;
use super::SectionInput;

/// Text budget of one request, in estimated tokens (chars / 4), unless
/// `--pack-tokens` says otherwise. Every request repeats the prompt (about
/// 5,000 characters with the schema), so the budget decides what routing
/// costs: on 20 CUAD contracts through a loopback server, 6,000 sent 1.02x
/// what the same contracts cost sent whole, 8,000 0.95x, 10,000 0.93x
/// (docs/billing.md). A hosted model's answer to 10,000 tokens of dense
/// text fits its output cap (16,384); a cut answer splits the pack.
pub const DEFAULT_PACK_TOKENS: u64 = 10_000;

/// Most pieces in one request: every piece is an item of the answer, and
/// an answer of very many items is cut more often.
pub const MAX_PIECES: usize = 48;

/// Characters per estimated token for packing.
const CHARS_PER_TOKEN: u64 = 4;

/// One piece of a routed section as a pack holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct PackPiece {
    /// The piece's id in the request and its answer: the section's node
    /// id, with `#k` for the k-th piece of a split section.
    pub id: String,
    /// Index of the section among the document's routed sections.
    pub section: usize,
    pub input: SectionInput,
}

/// The pieces of a document's routed sections, in order: each section
/// whole, or split at `section_budget_chars` ([`split_section`]).
pub fn pieces_of(inputs: &[SectionInput], section_budget_chars: usize) -> Vec<PackPiece> {
    let mut out = Vec::new();
    for (section, input) in inputs.iter().enumerate() {
        let parts = split_section(input, section_budget_chars);
        let split = parts.len() > 1;
        for (k, p) in parts.into_iter().enumerate() {
            let id = if split {
                format!("{}#{}", input.node_id, k + 1)
            } else {
                input.node_id.clone()
            };
            out.push(PackPiece {
                id,
                section,
                input: p,
            });
        }
    }
    out
}

/// Estimated tokens of a piece's text for packing.
pub fn estimated_tokens(p: &PackPiece) -> u64 {
    (p.input.text.chars().count() as u64).div_ceil(CHARS_PER_TOKEN)
}

/// Groups `pieces` (one document's, in order) into packs of at most
/// `budget_tokens` estimated tokens of text and [`MAX_PIECES`] pieces; a
/// piece over the budget alone makes a pack (the extractor splits it if
/// the model's context needs that). No piece is dropped or reordered.
pub fn packs(pieces: Vec<PackPiece>, budget_tokens: u64) -> Vec<Vec<PackPiece>> {
    let budget = budget_tokens.max(1);
    let mut out: Vec<Vec<PackPiece>> = Vec::new();
    let mut cur: Vec<PackPiece> = Vec::new();
    let mut size = 0u64;
    for p in pieces {
        let t = estimated_tokens(&p);
        if !cur.is_empty() && (size + t > budget || cur.len() >= MAX_PIECES) {
            out.push(std::mem::take(&mut cur));
            size = 0;
        }
        size += t;
        cur.push(p);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The text budget of one request for a model with `context` tokens of
/// context (`None`: unbounded) whose fixed prompt is `system_tokens`: the
/// configured budget, or less, so that the text and an answer of about
/// twice its size fit with the prompt.
pub fn budget_for_context(configured: u64, context: Option<u32>, system_tokens: u64) -> u64 {
    match context {
        None => configured,
        Some(ctx) => {
            let room = u64::from(ctx).saturating_sub(system_tokens + 256) / 3;
            configured.min(room).max(1)
        }
    }
}

/// The budget that spreads one document's `pieces` over `streams`
/// requests answered side by side: `budget`, or less, so that the
/// document makes at least `streams` packs where it has the pieces.
///
/// For a local server that answers `streams` requests at once (llama.cpp's
/// slots): its prompt costs time, not money, and the system message is
/// read once per slot from its prompt cache, so an extra pack costs only
/// its frame; but one pack's answer is written one token after another,
/// so a document in one pack keeps one slot busy and leaves the others
/// idle (both fixtures through Qwen2.5 0.5B on two slots: 809 s in one
/// pack a document, 325 s a section a request). With 1 stream (a hosted
/// API, whose repeated prompt is billed) the budget stands.
pub fn budget_for_streams(budget: u64, pieces: &[PackPiece], streams: u32) -> u64 {
    if streams <= 1 {
        return budget;
    }
    let total: u64 = pieces.iter().map(estimated_tokens).sum();
    budget.min(total.div_ceil(u64::from(streams)).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(node: &str, chars: usize) -> SectionInput {
        SectionInput {
            node_id: node.into(),
            text: "word ".repeat(chars / 5),
            start_line: 1,
            end_line: 1,
            ..Default::default()
        }
    }

    #[test]
    fn pieces_keep_order_and_split_sections_get_numbered_ids() {
        let mut long = section("0002", 0);
        long.text = "A sentence of text here.\n\n".repeat(100);
        long.end_line = 200;
        let inputs = vec![section("0001", 100), long, section("0003", 100)];
        let p = pieces_of(&inputs, 1_000);
        let ids: Vec<&str> = p.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids[0], "0001");
        assert_eq!(ids[1], "0002#1");
        assert_eq!(*ids.last().unwrap(), "0003");
        assert!(ids.len() > 4);
        assert!(p
            .iter()
            .filter(|x| x.section == 1)
            .all(|x| x.id.starts_with("0002#")));
    }

    #[test]
    fn packs_fill_up_to_the_budget_in_order_and_lose_nothing() {
        let inputs: Vec<SectionInput> = (0..10)
            .map(|i| section(&format!("{i:04}"), 400)) // 100 tokens each
            .collect();
        let packed = packs(pieces_of(&inputs, 12_000), 250);
        let sizes: Vec<usize> = packed.iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![2, 2, 2, 2, 2]);
        let ids: Vec<String> = packed.iter().flatten().map(|p| p.id.clone()).collect();
        let want: Vec<String> = (0..10).map(|i| format!("{i:04}")).collect();
        assert_eq!(ids, want);
        // One piece over the budget makes a pack of its own.
        let mut big = inputs.clone();
        big[3] = section("0003", 4_000);
        let packed = packs(pieces_of(&big, 12_000), 250);
        assert!(packed.iter().any(|p| p.len() == 1 && p[0].id == "0003"));
        // The piece count is bounded too.
        let many: Vec<SectionInput> = (0..100).map(|i| section(&format!("{i:04}"), 5)).collect();
        let packed = packs(pieces_of(&many, 12_000), 1_000_000);
        assert!(packed.iter().all(|p| p.len() <= MAX_PIECES));
        assert_eq!(packed.iter().map(Vec::len).sum::<usize>(), 100);
    }

    #[test]
    fn the_context_lowers_the_budget_so_text_and_answer_fit() {
        assert_eq!(budget_for_context(6_000, None, 1_500), 6_000);
        // 8,192 a slot, 1,500 of prompt: (8192 - 1756) / 3.
        assert_eq!(budget_for_context(6_000, Some(8_192), 1_500), 2_145);
        assert_eq!(budget_for_context(1_000, Some(128_000), 1_500), 1_000);
        assert_eq!(budget_for_context(6_000, Some(1_000), 1_500), 1);
    }

    #[test]
    fn a_document_is_spread_over_the_streams_that_answer_side_by_side() {
        let inputs: Vec<SectionInput> = (0..10)
            .map(|i| section(&format!("{i:04}"), 400)) // 100 tokens each
            .collect();
        let pieces = pieces_of(&inputs, 12_000);
        assert_eq!(budget_for_streams(10_000, &pieces, 1), 10_000);
        for streams in [2, 3, 4] {
            let packed = packs(pieces.clone(), budget_for_streams(10_000, &pieces, streams));
            assert!(
                packed.len() >= streams as usize,
                "{streams}: {}",
                packed.len()
            );
            assert!(
                packed.len() <= streams as usize + 1,
                "{streams}: {}",
                packed.len()
            );
            assert_eq!(packed.iter().map(Vec::len).sum::<usize>(), 10);
        }
        // The context's bound still holds; more streams than pieces make a
        // pack a piece.
        assert_eq!(budget_for_streams(150, &pieces, 2), 150);
        assert_eq!(
            packs(pieces.clone(), budget_for_streams(10_000, &pieces, 16)).len(),
            10
        );
    }
}
