//! The LLM path of extraction for one document: its routed sections cut
//! into pieces, the pieces not in the cache grouped into packs
//! ([`super::pack`]), each pack asked in one request and made to fit.
//!
//! What happens to a pack:
//! - its prompt and answer do not fit the model's context, or its answer
//!   was cut at `max_tokens`, or the server stalled on it: it is split in
//!   two halves by pieces, each asked again (a pack of one piece splits
//!   the piece, [`split::halve`]); the same request is never sent again
//!   after a cut;
//! - its answer is checked piece by piece: a piece whose item is missing
//!   or fails the check is asked again alone; an answer that is not JSON
//!   at all is sent back once for repair;
//! - each piece's answer is cached under the piece's own key, with its
//!   share of the request's tokens, so a re-run or a resume asks only
//!   what is missing, whatever the packs.
//!
//! Tokens are shared out over a pack's pieces: input by the share of
//! the pack's text, output by the share of the answer, so every
//! per-section figure stays per section and the shares add up to what
//! the server billed.

use super::answer_cache::{cache_key, CachedAnswer, CutAnswer};
use super::extractor::{ExtractionProfile, Extractor, ANSWER_FLOOR};
use super::pack::{self, PackPiece};
use super::validate::{self, ModelOutput, PackAnswer};
use super::{prompt, rating, review_only, split};
use super::{SectionExtraction, SectionInput, SectionStatus};
use crate::index::Tier;
use crate::llm::{CallError, ChatAnswer, LlmClient, RetryPolicy};
use futures::StreamExt;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::Instant;

use super::spend::Spend;

/// One pack's reservation, shared by the halves it may be split into, so a
/// split pack reserves once.
pub(super) struct Gate<'a> {
    spend: &'a Spend<'a>,
    prompt: String,
    state: Mutex<(Option<Result<f64, String>>, bool)>,
}

impl<'a> Gate<'a> {
    pub(super) fn new(spend: &'a Spend<'a>, prompt: String) -> Self {
        Gate {
            spend,
            prompt,
            state: Mutex::new((None, false)),
        }
    }

    pub(super) fn pass(&self) -> Result<(), String> {
        let mut s = self.state.lock().expect("gate lock");
        s.0.get_or_insert_with(|| (self.spend.reserve)(&self.prompt))
            .clone()
            .map(|_| ())
    }

    pub(super) fn answer(&self, tokens_in: u64, tokens_out: u64) {
        let mut s = self.state.lock().expect("gate lock");
        let reserved = match (&s.0, s.1) {
            (Some(Ok(r)), false) => *r,
            _ => 0.0,
        };
        s.1 = true;
        (self.spend.settle)(reserved, tokens_in, tokens_out);
    }

    /// Gives back a reservation no answer settled.
    pub(super) fn close(&self) {
        let s = self.state.lock().expect("gate lock");
        if let (Some(Ok(r)), false) = (&s.0, s.1) {
            (self.spend.settle)(*r, 0, 0);
        }
    }
}

/// The answer to one piece (or half of one).
pub(super) struct PieceResult {
    pub output: Option<ModelOutput>,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub tokens_cached: u64,
    pub status: SectionStatus,
}

impl PieceResult {
    fn failed(reason: String) -> PieceResult {
        PieceResult {
            output: None,
            tokens_in: 0,
            tokens_out: 0,
            tokens_cached: 0,
            status: SectionStatus::Failed(reason),
        }
    }

    fn add_spent(&mut self, s: &Spent) {
        self.tokens_in += s.tokens_in;
        self.tokens_out += s.tokens_out;
        self.tokens_cached += s.tokens_cached;
    }
}

/// Tokens a request (or its attempts) cost.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Spent {
    tokens_in: u64,
    tokens_out: u64,
    tokens_cached: u64,
}

impl Spent {
    fn add(&mut self, a: &ChatAnswer) {
        self.tokens_in += a.tokens_in;
        self.tokens_out += a.tokens_out;
        self.tokens_cached += a.tokens_cached;
    }
}

/// How asking for one pack ended.
enum Asked {
    /// A checked answer (some pieces may be missing from it).
    Answered { answer: PackAnswer, spent: Spent },
    /// A failure that splitting would not help.
    Failed { reason: String, spent: Spent },
    /// The answer was cut at `max_tokens`, or stopped in a loop
    /// (`repeated`): what it cost and what came before.
    Cut {
        spent: Spent,
        content: String,
        repeated: bool,
    },
    /// The server made no progress within the idle timeout.
    Stalled(String),
    /// The prompt does not fit the server's context.
    TooLong(String),
}

/// Why the retry loop stopped without an answer.
pub(super) enum Ended {
    Stalled(String),
    TooLong(String),
    Failed(String),
}

/// What one request sends: its messages (the system message is set to the
/// client's mode before each attempt), the schema and the answer bound.
pub(super) struct Outgoing<'a> {
    pub(super) messages: &'a mut [Value],
    pub(super) schema: &'a Value,
    pub(super) max_tokens: Option<u32>,
    /// The schema's name on the wire.
    pub(super) schema_name: &'a str,
    /// The first message is the caller's own system message (a verify
    /// request's), kept as it is; else it is set to the extraction prompt
    /// of the client's mode before each attempt.
    pub(super) own_system: bool,
}

/// How the pieces an answer left out are asked again.
#[derive(Clone, Copy)]
enum Rest {
    /// Each alone: the answer skipped them, or answered them wrongly.
    Alone,
    /// Together: the answer was cut before them.
    Packed,
}

/// Results by piece id.
type ByPiece = Vec<(String, Vec<PieceResult>)>;

/// `total` shared out in proportion to `weights` (largest remainders), so
/// the shares add up to `total` exactly.
fn share(total: u64, weights: &[u64]) -> Vec<u64> {
    let sum: u64 = weights.iter().sum();
    if weights.is_empty() {
        return Vec::new();
    }
    if sum == 0 {
        let mut out = vec![0; weights.len()];
        out[0] = total;
        return out;
    }
    let exact: Vec<(u64, u64)> = weights
        .iter()
        .map(|w| {
            let p = u128::from(total) * u128::from(*w);
            ((p / u128::from(sum)) as u64, (p % u128::from(sum)) as u64)
        })
        .collect();
    let mut out: Vec<u64> = exact.iter().map(|e| e.0).collect();
    let mut left = total - out.iter().sum::<u64>();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|a, b| exact[*b].1.cmp(&exact[*a].1).then(a.cmp(b)));
    for i in order {
        if left == 0 {
            break;
        }
        out[i] += 1;
        left -= 1;
    }
    out
}

impl Extractor {
    /// Extracts a document's routed sections through the LLM, in packs;
    /// one extraction per input, in input order.
    pub(super) async fn extract_llm_document(
        &self,
        client: &LlmClient,
        inputs: &[SectionInput],
        profile: &ExtractionProfile,
        spend: &Spend<'_>,
    ) -> Vec<SectionExtraction> {
        let pieces = pack::pieces_of(inputs, self.cfg.section_budget_chars);
        let budget = pack::budget_for_streams(
            self.pack_budget(client, profile).await,
            &pieces,
            self.parallel_streams(),
        );
        // Packs are formed over every piece, then the cached ones leave
        // them: a resumed batch sends exactly the packs the killed run did
        // not get answered (the plan's packs, and the same tokens).
        let mut answered: HashMap<String, Vec<PieceResult>> = HashMap::new();
        let mut todo: Vec<Vec<PackPiece>> = Vec::new();
        for p in pack::packs(pieces.clone(), budget) {
            let mut left = Vec::with_capacity(p.len());
            for piece in p {
                match self.cached(client, &piece.input, profile).await {
                    Some(r) => {
                        answered.insert(piece.id.clone(), vec![r]);
                    }
                    None => left.push(piece),
                }
            }
            if !left.is_empty() {
                todo.push(left);
            }
        }
        let window = self.cfg.concurrency.max(1).saturating_mul(2);
        let results: Vec<ByPiece> = futures::stream::iter(todo)
            .map(|p| async move {
                let prompt = self.prompt_text(client, &p, profile);
                let gate = Gate::new(spend, prompt);
                let out = self.ask_pack(client, p, &gate, profile).await;
                gate.close();
                out
            })
            .buffered(window)
            .collect()
            .await;
        for (id, r) in results.into_iter().flatten() {
            answered.entry(id).or_default().extend(r);
        }
        let mut by_section: Vec<Vec<PieceResult>> = inputs.iter().map(|_| Vec::new()).collect();
        for p in &pieces {
            match answered.remove(&p.id) {
                Some(r) => by_section[p.section].extend(r),
                // Never silent: a piece no path answered fails its section.
                None => by_section[p.section]
                    .push(PieceResult::failed(format!("piece {} got no answer", p.id))),
            }
        }
        inputs
            .iter()
            .zip(by_section)
            .map(|(input, results)| self.assemble(client, input, results, profile))
            .collect()
    }

    /// One section's extraction from its pieces' results: each pruned
    /// against the ontology and the section, merged, rated.
    fn assemble(
        &self,
        client: &LlmClient,
        input: &SectionInput,
        results: Vec<PieceResult>,
        profile: &ExtractionProfile,
    ) -> SectionExtraction {
        let extractor = format!("llm:{}", client.config().model);
        let mut parts = Vec::with_capacity(results.len());
        for r in results {
            let (entities, relations, pruned, ends_added, tier, why) = match r.output {
                Some(o) => {
                    let tier = o.tier();
                    let why = o.graphability.as_ref().map(|g| g.why.clone());
                    let ctx = validate::SectionContext {
                        text: &input.text,
                        registry: &input.registry,
                    };
                    let p = validate::prune_in_section(
                        o.entities,
                        o.relations,
                        profile.ontology(),
                        Some(ctx),
                    );
                    (p.entities, p.relations, p.pruned, p.ends_added, tier, why)
                }
                None => Default::default(),
            };
            parts.push(SectionExtraction {
                doc_id: input.doc_id.clone(),
                node_id: input.node_id.clone(),
                entities,
                relations,
                pruned,
                ends_added,
                candidates: Vec::new(),
                model_tier: tier,
                model_why: why,
                density_tier: Tier::VeryLow,
                actual_tier: Tier::VeryLow,
                tokens_in: r.tokens_in,
                tokens_out: r.tokens_out,
                tokens_cached: r.tokens_cached,
                extractor: extractor.clone(),
                status: r.status,
            });
        }
        let mut out = split::merge(parts).unwrap_or_else(|| {
            // A section with no text at all: nothing to ask.
            SectionExtraction::blank(
                input.doc_id.clone(),
                input.node_id.clone(),
                extractor.clone(),
                SectionStatus::Ok,
            )
        });
        if matches!(out.status, SectionStatus::Failed(_)) {
            // A failed section contributes nothing half-done to the graph.
            out.entities.clear();
            out.relations.clear();
            out.pruned.clear();
            out.ends_added.clear();
            out.model_tier = None;
            out.model_why = None;
        }
        let held = review_only::hold(
            profile.ontology(),
            &input.doc_type,
            &mut out.entities,
            &mut out.relations,
        );
        out.candidates.extend(held);
        out.density_tier = rating::density_tier(
            profile.density(),
            out.relations.len(),
            input.text.chars().count(),
        );
        out.actual_tier = rating::actual_tier(out.model_tier, out.density_tier, input.anchor);
        out
    }

    /// The text budget of one pack for this model: `--pack-tokens`, lowered
    /// to what the context holds with the prompt and the answer.
    async fn pack_budget(&self, client: &LlmClient, profile: &ExtractionProfile) -> u64 {
        let ctx = self.context_tokens(client);
        let system = match ctx {
            Some(_) => self.system_tokens(client, profile).await,
            None => 0,
        };
        pack::budget_for_context(self.cfg.pack_tokens, ctx, system)
    }

    /// Requests a local server answers side by side, at no price for
    /// their prompts: llama.cpp's slots, within `--concurrency`. One for a
    /// hosted API, whose repeated prompt is billed.
    pub(super) fn parallel_streams(&self) -> u32 {
        match self.server_info().and_then(|i| i.slots) {
            Some(slots) => slots
                .min(self.cfg.concurrency.try_into().unwrap_or(u32::MAX))
                .max(1),
            None => 1,
        }
    }

    /// The system message in use: the schema in it only once the server
    /// has refused it as `response_format`.
    fn system_prompt<'p>(&self, client: &LlmClient, profile: &'p ExtractionProfile) -> &'p str {
        if client.json_object_only() {
            profile.system_prompt_with_schema()
        } else {
            profile.system_prompt()
        }
    }

    async fn system_tokens(&self, client: &LlmClient, profile: &ExtractionProfile) -> u64 {
        if client.json_object_only() {
            return self
                .count_tokens(client, profile.system_prompt_with_schema())
                .await;
        }
        match profile.system_tokens.get() {
            Some(&n) => n,
            None => {
                let n = self.count_tokens(client, profile.system_prompt()).await;
                let _ = profile.system_tokens.set(n);
                n
            }
        }
    }

    /// The text a pack's reservation is priced on: its messages and, where
    /// the server bills it as prompt, the schema.
    fn prompt_text(
        &self,
        client: &LlmClient,
        pack: &[PackPiece],
        profile: &ExtractionProfile,
    ) -> String {
        let items: Vec<(String, &SectionInput)> =
            pack.iter().map(|p| (p.id.clone(), &p.input)).collect();
        let mut s = self.system_prompt(client, profile).to_string();
        s.push_str(&prompt::pack_message(&items));
        if !client.json_object_only() && !client.is_llama_cpp() {
            s.push_str(&profile.wire_schema().to_string());
        }
        s
    }

    /// A cached answer for a piece, when there is one.
    async fn cached(
        &self,
        client: &LlmClient,
        piece: &SectionInput,
        profile: &ExtractionProfile,
    ) -> Option<PieceResult> {
        let cache = self.cache.as_ref()?;
        let hit = cache
            .get::<CachedAnswer>(&self.piece_key(client, piece, profile))
            .await?;
        self.counters.cache_hits.fetch_add(1, Ordering::Relaxed);
        // Tokens this batch already paid for this document (a run killed
        // before the document was saved) still count.
        let ours = hit.paid_by.is_some() && hit.paid_by == self.payer(&piece.doc_id);
        let (tokens_in, tokens_out, tokens_cached) = if ours {
            (hit.tokens_in, hit.tokens_out, hit.tokens_cached)
        } else {
            (0, 0, 0)
        };
        Some(PieceResult {
            output: Some(hit.output),
            tokens_in,
            tokens_out,
            tokens_cached,
            status: SectionStatus::Cached,
        })
    }

    fn piece_key(
        &self,
        client: &LlmClient,
        piece: &SectionInput,
        profile: &ExtractionProfile,
    ) -> String {
        cache_key(
            &client.config().model,
            self.prompt_version(),
            profile.ontology_hash(),
            &piece.text,
            &piece.breadcrumb,
            &piece.doc_type,
        )
    }

    /// The key under which a pack's cut answer is remembered: its pieces'
    /// keys in order.
    fn pack_cut_key(
        &self,
        client: &LlmClient,
        pack: &[PackPiece],
        profile: &ExtractionProfile,
    ) -> String {
        let keys: Vec<String> = pack
            .iter()
            .map(|p| self.piece_key(client, &p.input, profile))
            .collect();
        let mut parts: Vec<&str> = keys.iter().map(String::as_str).collect();
        parts.push("pack cut");
        crate::llm::cache::key(&parts)
    }

    /// Remembers that the request under `key` was cut at `max_tokens`, and
    /// what it cost, so a re-run goes straight to the halves.
    async fn remember_cut(&self, key: &str, max_tokens: Option<u32>, spent: &Spent, doc_id: &str) {
        if let Some(cache) = &self.cache {
            let cut = CutAnswer {
                max_tokens: max_tokens.unwrap_or(0),
                tokens_in: spent.tokens_in,
                tokens_out: spent.tokens_out,
                tokens_cached: spent.tokens_cached,
                paid_by: self.payer(doc_id),
            };
            // A cache that cannot be written only costs a re-run.
            let _ = cache.put(key, &cut).await;
        }
    }

    async fn put_cached(&self, key: &str, output: &ModelOutput, r: &PieceResult, doc_id: &str) {
        if let Some(cache) = &self.cache {
            let entry = CachedAnswer {
                output: output.clone(),
                tokens_in: r.tokens_in,
                tokens_out: r.tokens_out,
                tokens_cached: r.tokens_cached,
                paid_by: self.payer(doc_id),
            };
            // A cache that cannot be written only costs a re-run.
            let _ = cache.put(key, &entry).await;
        }
    }

    /// Asks one pack; results of every piece by id (a piece's halves, when
    /// it had to be split, in order).
    fn ask_pack<'s>(
        &'s self,
        client: &'s LlmClient,
        pack: Vec<PackPiece>,
        gate: &'s Gate<'s>,
        profile: &'s ExtractionProfile,
    ) -> futures::future::BoxFuture<'s, ByPiece> {
        Box::pin(async move {
            if pack.len() == 1 {
                let p = pack.into_iter().next().expect("one piece");
                let r = self
                    .extract_fitting(client, p.id.clone(), p.input, gate, profile, false)
                    .await;
                return vec![(p.id, r)];
            }
            let cut_key = self.pack_cut_key(client, &pack, profile);
            if let Some(cache) = &self.cache {
                // An answer cut before: go straight to the halves.
                if let Some(cut) = cache.get::<CutAnswer>(&cut_key).await {
                    let spent = if cut.paid_by.is_some()
                        && cut.paid_by == self.payer(&pack[0].input.doc_id)
                    {
                        Spent {
                            tokens_in: cut.tokens_in,
                            tokens_out: cut.tokens_out,
                            tokens_cached: cut.tokens_cached,
                        }
                    } else {
                        Spent::default()
                    };
                    return self.halves(client, pack, gate, profile, spent).await;
                }
            }
            let items: Vec<(String, &SectionInput)> =
                pack.iter().map(|p| (p.id.clone(), &p.input)).collect();
            let max_tokens = match self.answer_budget(client, &items, profile).await {
                Ok(m) => m,
                Err(_) => {
                    self.counters.splits.fetch_add(1, Ordering::Relaxed);
                    return self
                        .halves(client, pack, gate, profile, Spent::default())
                        .await;
                }
            };
            let asked = self
                .ask_once(client, &items, gate, profile, max_tokens)
                .await;
            drop(items);
            match asked {
                Asked::Answered { answer, spent } => {
                    self.take_answer(client, pack, answer, spent, gate, profile, Rest::Alone)
                        .await
                }
                Asked::Failed { reason, spent } => {
                    let mut out: ByPiece = pack
                        .into_iter()
                        .map(|p| (p.id, vec![PieceResult::failed(reason.clone())]))
                        .collect();
                    out[0].1[0].add_spent(&spent);
                    out
                }
                Asked::Cut {
                    spent,
                    content,
                    repeated,
                } => {
                    if !repeated {
                        self.counters.answers_cut.fetch_add(1, Ordering::Relaxed);
                    }
                    // The items that closed before the cut are answers: kept,
                    // and the rest asked again as one pack (smaller, so the
                    // loop ends). A cut inside the first item splits the pack.
                    let ids: Vec<String> = pack.iter().map(|p| p.id.clone()).collect();
                    let salvaged = validate::salvage_pack_answer(&content, &ids);
                    if !salvaged.outputs.is_empty() {
                        return self
                            .take_answer(client, pack, salvaged, spent, gate, profile, Rest::Packed)
                            .await;
                    }
                    self.counters.splits.fetch_add(1, Ordering::Relaxed);
                    self.remember_cut(&cut_key, max_tokens, &spent, &pack[0].input.doc_id)
                        .await;
                    self.halves(client, pack, gate, profile, spent).await
                }
                Asked::TooLong(_) => {
                    self.counters.splits.fetch_add(1, Ordering::Relaxed);
                    self.halves(client, pack, gate, profile, Spent::default())
                        .await
                }
                Asked::Stalled(_) => {
                    self.counters.stalls.fetch_add(1, Ordering::Relaxed);
                    self.counters.splits.fetch_add(1, Ordering::Relaxed);
                    self.halves(client, pack, gate, profile, Spent::default())
                        .await
                }
            }
        })
    }

    /// A pack of two or more pieces split in two by pieces, both asked;
    /// `spent` (what the whole pack's failed request cost) is counted on
    /// the first piece.
    async fn halves(
        &self,
        client: &LlmClient,
        mut pack: Vec<PackPiece>,
        gate: &Gate<'_>,
        profile: &ExtractionProfile,
        spent: Spent,
    ) -> ByPiece {
        let b = pack.split_off(pack.len() / 2);
        let (mut x, y) = futures::future::join(
            self.ask_pack(client, pack, gate, profile),
            self.ask_pack(client, b, gate, profile),
        )
        .await;
        x.extend(y);
        if let Some(first) = x.first_mut().and_then(|(_, r)| r.first_mut()) {
            first.add_spent(&spent);
        }
        x
    }

    /// A pack's checked answer shared out over its pieces: each answered
    /// piece gets its output and its share of the tokens (and is cached);
    /// a piece missing from the answer, or whose item failed the check, is
    /// asked again (alone, or with the others left, by `rest`), its share
    /// of this request added.
    #[allow(clippy::too_many_arguments)]
    async fn take_answer(
        &self,
        client: &LlmClient,
        pack: Vec<PackPiece>,
        mut answer: PackAnswer,
        spent: Spent,
        gate: &Gate<'_>,
        profile: &ExtractionProfile,
        rest: Rest,
    ) -> ByPiece {
        let text: Vec<u64> = pack.iter().map(|p| p.input.text.len() as u64).collect();
        let answer_size: Vec<u64> = pack
            .iter()
            .map(|p| {
                answer
                    .outputs
                    .get(&p.id)
                    .and_then(|o| serde_json::to_string(o).ok())
                    .map_or(0, |s| s.len() as u64)
            })
            .collect();
        let tin = share(spent.tokens_in, &text);
        let tcached = share(spent.tokens_cached, &text);
        let tout = share(spent.tokens_out, &answer_size);
        let mut out: ByPiece = Vec::with_capacity(pack.len());
        let mut again = Vec::new();
        for (k, p) in pack.into_iter().enumerate() {
            let mine = Spent {
                tokens_in: tin[k],
                tokens_out: tout[k],
                tokens_cached: tcached[k],
            };
            match answer.outputs.remove(&p.id) {
                Some(output) => {
                    let r = PieceResult {
                        output: Some(output),
                        tokens_in: mine.tokens_in,
                        tokens_out: mine.tokens_out,
                        tokens_cached: mine.tokens_cached,
                        status: SectionStatus::Ok,
                    };
                    if let Some(o) = &r.output {
                        let key = self.piece_key(client, &p.input, profile);
                        self.put_cached(&key, o, &r, &p.input.doc_id).await;
                    }
                    out.push((p.id, vec![r]));
                }
                None => {
                    self.counters.pieces_reasked.fetch_add(1, Ordering::Relaxed);
                    out.push((p.id.clone(), Vec::new()));
                    again.push((out.len() - 1, p, mine));
                }
            }
        }
        // The missing pieces: each alone, concurrently (an answer that
        // skipped them may skip them again), or together after a cut.
        let answers: Vec<ByPiece> = match rest {
            Rest::Alone => {
                futures::future::join_all(
                    again
                        .iter()
                        .map(|(_, p, _)| self.ask_pack(client, vec![p.clone()], gate, profile)),
                )
                .await
            }
            Rest::Packed => {
                let left: Vec<PackPiece> = again.iter().map(|(_, p, _)| p.clone()).collect();
                vec![self.ask_pack(client, left, gate, profile).await]
            }
        };
        let mut by_id: HashMap<String, Vec<PieceResult>> = HashMap::new();
        for (id, r) in answers.into_iter().flatten() {
            by_id.entry(id).or_default().extend(r);
        }
        for (k, p, mine) in again {
            let mut rs = by_id.remove(&p.id).unwrap_or_default();
            if let Some(first) = rs.first_mut() {
                first.add_spent(&mine);
            }
            out[k].1 = rs;
        }
        out
    }
}

impl Extractor {
    /// One piece alone, made to fit: split in two (by structure, then
    /// sentences) when its prompt leaves the model's context no room for an
    /// answer, when its answer was cut at `max_tokens`, or when the server
    /// stalled on it; a stalled piece that cannot be split is retried once.
    /// The same request is never sent again after a cut. A piece is split
    /// for a cut answer once: a half whose answer is cut again (`after_cut`),
    /// or an answer stopped in a loop (splitting cures no loop), keeps the
    /// entities and relations that closed before the cut
    /// ([`validate::salvage_section`]). Results of every leaf piece, in
    /// order.
    fn extract_fitting<'s>(
        &'s self,
        client: &'s LlmClient,
        id: String,
        piece: SectionInput,
        gate: &'s Gate<'s>,
        profile: &'s ExtractionProfile,
        after_cut: bool,
    ) -> futures::future::BoxFuture<'s, Vec<PieceResult>> {
        Box::pin(async move {
            if let Some(hit) = self.cached(client, &piece, profile).await {
                return vec![hit];
            }
            let key = self.piece_key(client, &piece, profile);
            let cut_key = crate::llm::cache::key(&[&key, "cut"]);
            if let Some(cache) = &self.cache {
                // An answer cut before: go straight to the halves.
                if let Some(cut) = cache.get::<CutAnswer>(&cut_key).await {
                    if let Some((a, b)) = split::halve(&piece) {
                        let mut out = self.both(client, &id, a, b, gate, profile, true).await;
                        if cut.paid_by.is_some() && cut.paid_by == self.payer(&piece.doc_id) {
                            if let Some(first) = out.first_mut() {
                                first.add_spent(&Spent {
                                    tokens_in: cut.tokens_in,
                                    tokens_out: cut.tokens_out,
                                    tokens_cached: cut.tokens_cached,
                                });
                            }
                        }
                        return out;
                    }
                }
            }
            let items = [(id.clone(), &piece)];
            let max_tokens = match self.answer_budget(client, &items, profile).await {
                Ok(m) => m,
                Err(why) => {
                    return match split::halve(&piece) {
                        Some((a, b)) => {
                            self.counters.splits.fetch_add(1, Ordering::Relaxed);
                            self.both(client, &id, a, b, gate, profile, after_cut).await
                        }
                        None => vec![PieceResult::failed(why)],
                    };
                }
            };
            let mut stalled_once = false;
            loop {
                match self
                    .ask_once(client, &items, gate, profile, max_tokens)
                    .await
                {
                    Asked::Answered { mut answer, spent } => {
                        let mut r = PieceResult::failed(String::new());
                        r.add_spent(&spent);
                        match answer.outputs.remove(&id) {
                            Some(o) => {
                                r.status = SectionStatus::Ok;
                                self.put_cached(&key, &o, &r, &piece.doc_id).await;
                                r.output = Some(o);
                            }
                            // ask_once repairs a lone piece's bad item, so
                            // this is an answer that stayed wrong.
                            None => {
                                r.status = SectionStatus::Failed(
                                    answer
                                        .invalid
                                        .pop()
                                        .map(|(_, e)| {
                                            format!("invalid answer after one repair retry: {e}")
                                        })
                                        .unwrap_or_else(|| {
                                            "the answer held no item for the section".into()
                                        }),
                                )
                            }
                        }
                        return vec![r];
                    }
                    Asked::Failed { reason, spent } => {
                        let mut r = PieceResult::failed(reason);
                        r.add_spent(&spent);
                        return vec![r];
                    }
                    Asked::Cut {
                        spent,
                        content,
                        repeated,
                    } => {
                        if !repeated {
                            self.counters.answers_cut.fetch_add(1, Ordering::Relaxed);
                        }
                        if repeated || after_cut {
                            return vec![
                                self.salvaged(&key, &piece, &content, spent, repeated).await,
                            ];
                        }
                        self.remember_cut(&cut_key, max_tokens, &spent, &piece.doc_id)
                            .await;
                        let Some((a, b)) = split::halve(&piece) else {
                            let mut r = PieceResult::failed(format!(
                                "the answer was cut at max_tokens {} and the piece (lines {}-{}) is one sentence, too small to split; raise --max-tokens",
                                max_tokens.map_or("(server default)".to_string(), |m| m.to_string()),
                                piece.start_line,
                                piece.end_line
                            ));
                            r.add_spent(&spent);
                            return vec![r];
                        };
                        self.counters.splits.fetch_add(1, Ordering::Relaxed);
                        let mut out = self.both(client, &id, a, b, gate, profile, true).await;
                        if let Some(first) = out.first_mut() {
                            first.add_spent(&spent);
                        }
                        return out;
                    }
                    Asked::TooLong(why) => {
                        return match split::halve(&piece) {
                            Some((a, b)) => {
                                self.counters.splits.fetch_add(1, Ordering::Relaxed);
                                self.both(client, &id, a, b, gate, profile, after_cut).await
                            }
                            None => vec![PieceResult::failed(why)],
                        };
                    }
                    Asked::Stalled(why) => {
                        self.counters.stalls.fetch_add(1, Ordering::Relaxed);
                        if stalled_once {
                            return vec![PieceResult::failed(format!("{why} (twice; gave up)"))];
                        }
                        stalled_once = true;
                        if let Some((a, b)) = split::halve(&piece) {
                            self.counters.splits.fetch_add(1, Ordering::Relaxed);
                            return self.both(client, &id, a, b, gate, profile, after_cut).await;
                        }
                        // Too small to split: retried once.
                    }
                }
            }
        })
    }

    /// A lone piece's answer that was cut a second time, or stopped in a
    /// loop: what closed before the cut, kept (and cached, so a re-run
    /// gets the same), else the piece fails saying why.
    async fn salvaged(
        &self,
        key: &str,
        piece: &SectionInput,
        content: &str,
        spent: Spent,
        repeated: bool,
    ) -> PieceResult {
        let why = if repeated {
            "the answer repeated itself and was stopped"
        } else {
            "the answer was cut again after the piece was split once"
        };
        let mut r = PieceResult::failed(format!(
            "{why}; nothing in it closed (lines {}-{})",
            piece.start_line, piece.end_line
        ));
        r.add_spent(&spent);
        if let Some(o) = validate::salvage_section(content) {
            self.counters
                .answers_salvaged
                .fetch_add(1, Ordering::Relaxed);
            r.status = SectionStatus::Ok;
            self.put_cached(key, &o, &r, &piece.doc_id).await;
            r.output = Some(o);
        }
        r
    }

    #[allow(clippy::too_many_arguments)]
    async fn both(
        &self,
        client: &LlmClient,
        id: &str,
        a: SectionInput,
        b: SectionInput,
        gate: &Gate<'_>,
        profile: &ExtractionProfile,
        after_cut: bool,
    ) -> Vec<PieceResult> {
        let (mut x, y) = futures::future::join(
            self.extract_fitting(client, id.to_string(), a, gate, profile, after_cut),
            self.extract_fitting(client, id.to_string(), b, gate, profile, after_cut),
        )
        .await;
        x.extend(y);
        x
    }

    /// The pack's `max_tokens`: `--max-tokens` when given, else room for
    /// at least [`ANSWER_FLOOR`] tokens and an answer about twice the
    /// pack's text (a dense section's JSON is larger than its text) plus
    /// an item's frame per piece, within the model's output cap and what
    /// the context leaves after the prompt. An error when the context
    /// leaves no room for a useful answer (the pack must be split).
    async fn answer_budget(
        &self,
        client: &LlmClient,
        items: &[(String, &SectionInput)],
        profile: &ExtractionProfile,
    ) -> Result<Option<u32>, String> {
        let cfg = client.config();
        let ctx = self.context_tokens(client);
        if ctx.is_none() && cfg.max_tokens.is_some() {
            return Ok(cfg.max_tokens);
        }
        let system = self.system_tokens(client, profile).await;
        let user = self
            .count_tokens(client, &prompt::pack_message(items))
            .await;
        // The chat template's tokens around the two messages.
        let prompt_tokens = system + user + 32;
        let mut want = (128 * items.len() as u64 + 2 * user).max(ANSWER_FLOOR);
        if client.is_llama_cpp() {
            // Room for the longest answer the pack's grammar allows, so a
            // model that fills its lists still closes them.
            want = want.max(
                grammar_items_of(items, profile)
                    .into_iter()
                    .map(prompt::grammar_answer_tokens)
                    .sum(),
            );
        }
        let cap = u64::from(cfg.max_tokens.unwrap_or(cfg.output_cap));
        let mut m = want.min(cap);
        if cfg.max_tokens.is_some() {
            m = cap;
        }
        if let Some(ctx) = ctx {
            let room = u64::from(ctx).saturating_sub(prompt_tokens);
            // Too little room: a smaller pack gets a complete answer.
            let least = (128 + user / 2).min(m);
            if room < least {
                let (first, last) = (items[0].1, items[items.len() - 1].1);
                return Err(format!(
                    "the piece (lines {}-{}, {} tokens with its frame) with the prompt ({} tokens) leaves the model's context of {ctx} tokens no room for an answer",
                    first.start_line, last.end_line, user, prompt_tokens
                ));
            }
            m = m.min(room);
        }
        Ok(Some(m.clamp(1, u64::from(u32::MAX)) as u32))
    }

    /// Sends one pack (with one repair of an answer that is not a pack
    /// answer at all, or, for a lone piece, whose item fails the check)
    /// and reads the answer item by item.
    async fn ask_once(
        &self,
        client: &LlmClient,
        items: &[(String, &SectionInput)],
        gate: &Gate<'_>,
        profile: &ExtractionProfile,
        max_tokens: Option<u32>,
    ) -> Asked {
        let ids: Vec<String> = items.iter().map(|(id, _)| id.clone()).collect();
        let mut messages: Vec<Value> = vec![
            json!({"role": "system", "content": self.system_prompt(client, profile)}),
            json!({"role": "user", "content": prompt::pack_message(items)}),
        ];
        // A grammar server takes the pack's own items (not billed as
        // prompt); elsewhere the schema is the type's, the same for every
        // request.
        let grammar_schema;
        let schema = if client.is_llama_cpp() {
            let wanted = grammar_items_of(items, profile);
            let pieces: Vec<(String, u64)> = ids
                .iter()
                .cloned()
                .zip(prompt::grammar_items_within(&wanted, max_tokens))
                .collect();
            grammar_schema = prompt::pack_grammar_schema(profile.ontology(), &pieces);
            &grammar_schema
        } else {
            profile.wire_schema()
        };
        let mut spent = Spent::default();
        let mut repaired = false;
        // The pack's time bound starts with its first request.
        let mut deadline = None;
        loop {
            let answer = match self
                .call_with_retries(
                    client,
                    Outgoing {
                        messages: &mut messages,
                        schema,
                        max_tokens,
                        schema_name: prompt::SCHEMA_NAME,
                        own_system: false,
                    },
                    profile,
                    gate,
                    &mut deadline,
                )
                .await
            {
                Ok(a) => a,
                Err(Ended::Stalled(why)) => return Asked::Stalled(why),
                Err(Ended::TooLong(why)) => return Asked::TooLong(why),
                Err(Ended::Failed(reason)) => return Asked::Failed { reason, spent },
            };
            spent.add(&answer);
            self.counters.count_answer(&answer);
            if answer.cut() || answer.repeated() {
                if answer.repeated() {
                    self.counters
                        .answers_repeated
                        .fetch_add(1, Ordering::Relaxed);
                }
                // Incomplete JSON: never parsed, never re-sent as is.
                return Asked::Cut {
                    spent,
                    repeated: answer.repeated(),
                    content: answer.content,
                };
            }
            let checked = validate::parse_pack_answer(&answer.content, &ids).and_then(|a| {
                match (ids.len(), a.outputs.is_empty(), a.invalid.first()) {
                    // A lone piece's bad item is the whole answer's error.
                    (1, true, Some((_, e))) => Err(e.clone()),
                    _ => Ok(a),
                }
            });
            match checked {
                Ok(answer) => return Asked::Answered { answer, spent },
                Err(e) if !repaired => {
                    repaired = true;
                    self.counters.repairs.fetch_add(1, Ordering::Relaxed);
                    messages.push(json!({"role": "assistant", "content": answer.content}));
                    messages.push(json!({"role": "user", "content": prompt::repair_message(&e)}));
                }
                Err(e) => {
                    return Asked::Failed {
                        reason: format!("invalid answer after one repair retry: {e}"),
                        spent,
                    }
                }
            }
        }
    }

    /// Sends until an answer arrives, a non-retryable error, the retry
    /// budget or the pack's time bound is spent, or the circuit breaker is
    /// open. Holds a semaphore permit only while a request is in flight,
    /// never while backing off.
    pub(super) async fn call_with_retries(
        &self,
        client: &LlmClient,
        out: Outgoing<'_>,
        profile: &ExtractionProfile,
        gate: &Gate<'_>,
        deadline: &mut Option<Instant>,
    ) -> Result<ChatAnswer, Ended> {
        let Outgoing {
            messages,
            schema,
            max_tokens,
            schema_name,
            own_system,
        } = out;
        let cfg = client.config();
        let policy = RetryPolicy::of(cfg);
        let unavailable = |r: &str| Ended::Failed(format!("endpoint unavailable: {r}"));
        let mut retry = 0u32;
        loop {
            if let Some(r) = self.breaker.get() {
                return Err(unavailable(r));
            }
            let (res, until) = {
                let _permit = self
                    .semaphore
                    .acquire()
                    .await
                    .map_err(|e| Ended::Failed(format!("extractor closed: {e}")))?;
                if let Some(r) = self.breaker.get() {
                    return Err(unavailable(r));
                }
                gate.pass().map_err(Ended::Failed)?;
                let until = *deadline.get_or_insert_with(|| Instant::now() + cfg.section_timeout);
                let left = until.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(Ended::Failed(format!(
                        "gave up: the section's time bound of {}s was spent",
                        cfg.section_timeout.as_secs()
                    )));
                }
                // The system message of the client's mode now: with the
                // schema in it once the server has refused it on the wire.
                if let Some(m) = messages.first_mut().filter(|_| !own_system) {
                    m["content"] = self.system_prompt(client, profile).into();
                }
                self.counters.requests.fetch_add(1, Ordering::Relaxed);
                self.counters.in_flight.fetch_add(1, Ordering::Relaxed);
                let res = client
                    .chat_structured(messages, schema_name, schema, max_tokens)
                    .await;
                self.counters.in_flight.fetch_sub(1, Ordering::Relaxed);
                if let Ok(a) = &res {
                    gate.answer(a.tokens_in, a.tokens_out);
                }
                if matches!(res, Err(CallError::FormatUnsupported(_))) {
                    // Switch before the permit goes, so the next request
                    // already uses json_object.
                    client.use_json_object();
                }
                (res, until)
            };
            self.note_result(res.as_ref().map(|_| ()));
            let (reason, retry_after) = match res {
                Ok(a) => return Ok(a),
                Err(CallError::FormatUnsupported(_)) => {
                    // Only a json_schema request gets this answer and the
                    // client now uses json_object for the rest of the run:
                    // resend at once, the schema now in the system message;
                    // this is not a retry.
                    continue;
                }
                Err(CallError::Fatal(reason)) => return Err(Ended::Failed(reason)),
                Err(CallError::TooLong(reason)) => return Err(Ended::TooLong(reason)),
                Err(CallError::Stalled(reason)) => {
                    return Err(match self.breaker.get() {
                        Some(open) => unavailable(open),
                        None => Ended::Stalled(reason),
                    })
                }
                Err(CallError::Transport(reason)) => match self.breaker.get() {
                    Some(open) => return Err(unavailable(open)),
                    None => (reason, None),
                },
                Err(CallError::Retryable {
                    reason,
                    retry_after,
                }) => (reason, retry_after),
            };
            if retry >= policy.max_retries {
                return Err(Ended::Failed(format!(
                    "{reason} (gave up after {} attempts)",
                    retry + 1
                )));
            }
            let wait = policy.backoff(retry, retry_after);
            if Instant::now() + wait >= until {
                return Err(Ended::Failed(format!(
                    "{reason} (gave up after {} attempts: the section's time bound of {}s would be passed)",
                    retry + 1,
                    cfg.section_timeout.as_secs()
                )));
            }
            self.counters.retries.fetch_add(1, Ordering::Relaxed);
            self.counters.waiting.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(wait).await;
            self.counters.waiting.fetch_sub(1, Ordering::Relaxed);
            retry += 1;
        }
    }
}

/// Each piece's list bound under a grammar, by its size and the type's
/// Very High density ([`prompt::grammar_items`]).
fn grammar_items_of(items: &[(String, &SectionInput)], profile: &ExtractionProfile) -> Vec<u64> {
    let very_high = profile.density().very_high;
    items
        .iter()
        .map(|(_, p)| prompt::grammar_items(p.text.chars().count(), very_high))
        .collect()
}
