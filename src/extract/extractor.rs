//! The [`Extractor`]: one object per run that turns [`SectionInput`]s into
//! [`SectionExtraction`]s, through the LLM when one is configured or the
//! rules extractor otherwise. It owns the single semaphore that bounds LLM
//! requests in flight (shared by every document extracted with it), the
//! cache, the circuit breaker, and the counters that progress bars read.
//! Share it with `Arc`. The requests themselves (packs, retries, repair,
//! splitting) are [`super::requests`]'.

use super::answer_cache::{ontology_hash, payer};
use super::config::{ExtractorConfig, PROMPT_VERSION};
use super::spend::Spend;
use super::{prompt, rating, review_only, rules, validate};
use super::{SectionExtraction, SectionInput, SectionStatus};
use crate::index::{DensityThresholds, Ontology};
use crate::llm::cache::Cache;
use crate::llm::server::{self, ServerInfo};
use crate::llm::{CallError, LlmClient};
use crate::route::{Route, RoutePlan};
use crate::tree::{NodeKind, SourceText};
use anyhow::Result;
use futures::StreamExt;
use serde_json::Value;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use tokio::sync::Semaphore;

/// Fewest answer tokens a request is given (the context allowing): a dense
/// one-sentence piece (parties, roles, a defined term, an amount) needs
/// about 400 tokens of JSON, and a piece that small cannot be split when
/// its answer is cut (Qwen2.5 1.5B failed three sections at 264).
pub const ANSWER_FLOOR: u64 = 512;

/// Running totals, readable at any time (e.g. by a progress bar).
#[derive(Debug, Default)]
pub struct Counters {
    /// HTTP requests sent for sections (every attempt counts).
    pub requests: AtomicU64,
    /// Title-mapping requests sent (apart from the sections' `requests`).
    pub title_requests: AtomicU64,
    /// Retries after a retryable failure.
    pub retries: AtomicU64,
    /// Section pieces answered from the cache.
    pub cache_hits: AtomicU64,
    pub tokens_in: AtomicU64,
    pub tokens_out: AtomicU64,
    /// Sections finished (any status).
    pub sections_done: AtomicU64,
    /// Sections that ended `Failed`.
    pub sections_failed: AtomicU64,
    /// Requests being sent or awaited right now.
    pub in_flight: AtomicU64,
    /// Section pieces backing off before a retry right now.
    pub waiting: AtomicU64,
    /// Answers cut at `max_tokens` (`finish_reason: length`).
    pub answers_cut: AtomicU64,
    /// Answers stopped while streaming because they repeated themselves
    /// ([`crate::llm::repetition`]).
    pub answers_repeated: AtomicU64,
    /// Cut or stopped answers of which what closed was kept.
    pub answers_salvaged: AtomicU64,
    /// Pieces split in two after a cut answer, a stall, or a prompt over
    /// the model's context.
    pub splits: AtomicU64,
    /// Requests that made no progress within the idle timeout.
    pub stalls: AtomicU64,
    /// Answers sent back once for repair after failing the schema check.
    pub repairs: AtomicU64,
    /// Prompt tokens the server read from its prefix cache, where it says
    /// (part of `tokens_in`).
    pub tokens_cached: AtomicU64,
    /// Pieces a pack's answer left out (or answered wrongly), asked again
    /// alone.
    pub pieces_reasked: AtomicU64,
}

/// A plain copy of [`Counters`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CounterSnapshot {
    pub requests: u64,
    pub title_requests: u64,
    pub retries: u64,
    pub cache_hits: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub sections_done: u64,
    pub sections_failed: u64,
    pub in_flight: u64,
    pub waiting: u64,
    pub answers_cut: u64,
    pub answers_repeated: u64,
    pub answers_salvaged: u64,
    pub splits: u64,
    pub stalls: u64,
    pub repairs: u64,
    pub tokens_cached: u64,
    pub pieces_reasked: u64,
    /// Streamed tokens so far (the heartbeat's tokens per second).
    pub streamed: u64,
}

impl Counters {
    /// Adds what an answer cost to the running token counts.
    pub fn count_answer(&self, a: &crate::llm::ChatAnswer) {
        self.tokens_in.fetch_add(a.tokens_in, Ordering::Relaxed);
        self.tokens_out.fetch_add(a.tokens_out, Ordering::Relaxed);
        self.tokens_cached
            .fetch_add(a.tokens_cached, Ordering::Relaxed);
    }

    /// The current values.
    pub fn snapshot(&self) -> CounterSnapshot {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        CounterSnapshot {
            requests: g(&self.requests),
            title_requests: g(&self.title_requests),
            retries: g(&self.retries),
            cache_hits: g(&self.cache_hits),
            tokens_in: g(&self.tokens_in),
            tokens_out: g(&self.tokens_out),
            sections_done: g(&self.sections_done),
            sections_failed: g(&self.sections_failed),
            in_flight: g(&self.in_flight),
            waiting: g(&self.waiting),
            answers_cut: g(&self.answers_cut),
            answers_repeated: g(&self.answers_repeated),
            answers_salvaged: g(&self.answers_salvaged),
            splits: g(&self.splits),
            stalls: g(&self.stalls),
            repairs: g(&self.repairs),
            tokens_cached: g(&self.tokens_cached),
            pieces_reasked: g(&self.pieces_reasked),
            streamed: 0,
        }
    }
}

/// What extraction needs from one document type's index: its ontology
/// (prompt, pruning, cache key) and density thresholds. A batch of several
/// types extracts each document with its type's profile, through the one
/// extractor (one concurrency bound, breaker, cache and counters).
#[derive(Debug)]
pub struct ExtractionProfile {
    ontology: Arc<Ontology>,
    ontology_hash: String,
    density: DensityThresholds,
    /// The system message of every request of this type, the schema on
    /// the wire ([`prompt::system_message`]).
    system_prompt: String,
    /// The same with the schema in it, for a server that refuses it on the
    /// wire.
    system_prompt_with_schema: String,
    /// The system prompt's token count, once counted.
    pub(super) system_tokens: OnceLock<u64>,
    /// A pack answer's schema as sent to the server: this ontology's types
    /// as enums, strings bounded ([`prompt::pack_wire_schema`]).
    wire_schema: Value,
}

impl ExtractionProfile {
    /// Checks that the ontology has entity and relation types.
    pub fn new(ontology: Ontology, density: DensityThresholds) -> Result<ExtractionProfile> {
        if ontology.entity_types.is_empty() || ontology.relation_types.is_empty() {
            anyhow::bail!(
                "the ontology has no {} types; add an `ontology:` block with entity_types and relation_types to the index YAML",
                if ontology.entity_types.is_empty() { "entity" } else { "relation" }
            );
        }
        let wire_schema = prompt::pack_wire_schema(&ontology);
        Ok(ExtractionProfile {
            ontology_hash: ontology_hash(&ontology),
            system_prompt: prompt::system_message(&ontology, None),
            system_prompt_with_schema: prompt::system_message(&ontology, Some(&wire_schema)),
            system_tokens: OnceLock::new(),
            wire_schema,
            ontology: Arc::new(ontology),
            density,
        })
    }

    pub fn ontology(&self) -> &Ontology {
        &self.ontology
    }

    pub fn density(&self) -> &DensityThresholds {
        &self.density
    }

    pub fn ontology_hash(&self) -> &str {
        &self.ontology_hash
    }

    /// The system message of every request of this type (the schema sent
    /// as `response_format`).
    pub fn system_prompt(&self) -> &str {
        &self.system_prompt
    }

    /// The system message with the output schema in it.
    pub fn system_prompt_with_schema(&self) -> &str {
        &self.system_prompt_with_schema
    }

    /// The output schema as sent to a server that is not a grammar server.
    pub fn wire_schema(&self) -> &Value {
        &self.wire_schema
    }
}

/// Extracts sections; see the module comment.
#[derive(Debug)]
pub struct Extractor {
    pub(super) cfg: ExtractorConfig,
    /// The profile of [`Self::extract`] (the batch's primary index).
    profile: Arc<ExtractionProfile>,
    pub(super) client: Option<LlmClient>,
    pub(super) cache: Option<Cache>,
    pub(super) semaphore: Semaphore,
    /// Sections the rules read at once: one per core. The rules are CPU
    /// work, and every thread that runs them grows its own regex caches
    /// (a document's sections all at once took one blocking thread each,
    /// and peak memory grew with the batch); they run on the process's
    /// fixed rules threads ([`super::cpu_pool`]).
    rules_permits: Semaphore,
    pub(super) counters: Counters,
    /// Transport failures in a row (any answer resets it).
    transport_failures: AtomicU32,
    /// Set once the circuit breaker opened: the last transport failure.
    pub(super) breaker: OnceLock<String>,
    /// What the server said about its limits at preflight.
    server: OnceLock<ServerInfo>,
    /// The batch this extractor answers for ([`Self::for_batch`]): cached
    /// answers it paid for itself keep their tokens on a resume.
    batch_id: OnceLock<String>,
}

/// The run-header line of the offline rules extractor (summary.json's
/// `extractor`), by which reports and `review` know a batch was offline.
pub const OFFLINE_EXTRACTOR: &str = "offline rules extractor (no LLM configured)";

/// What every section of one document is given beside its own text.
pub struct DocContext<'a> {
    pub doc_id: &'a str,
    pub doc_type: &'a str,
    pub source: &'a SourceText,
    /// The short names the opening gives the parties (`("Miltenyi")`,
    /// from the tree): a section's duties are written with them.
    pub parties: &'a [String],
    /// The document's party registry (see [`super::party_registry`]).
    pub registry: &'a super::party_registry::PartyRegistry,
}

/// The inputs of the extraction stage for a planned document: one per
/// section routed to the LLM, with its whole text by its byte span.
pub fn section_inputs(plan: &RoutePlan, doc: &DocContext) -> Vec<SectionInput> {
    inputs_where(plan, doc, |s| s.route == Route::Llm)
}

/// [`section_inputs`] as an LLM reads them: a section whose paragraphs
/// were routed by content holds only its sent paragraphs, in order, a
/// line `[...]` where text was left out (the offline rules, which cost
/// nothing, read sections whole).
pub fn llm_section_inputs(plan: &RoutePlan, doc: &DocContext) -> Vec<SectionInput> {
    let mut inputs = section_inputs(plan, doc);
    // The inputs are the sent sections, in plan order.
    let sent = plan.sections.iter().filter(|s| s.route == Route::Llm);
    for (input, s) in inputs.iter_mut().zip(sent) {
        debug_assert_eq!(input.node_id, s.node_id);
        if !s.paragraphs.is_empty() {
            input.text = pieces_text(s, doc.source, true);
        }
    }
    inputs
}

/// The paragraphs routing by content left out of the sections it sent in
/// part, one input per such section, runs apart marked `[...]`: an LLM
/// that extracts reads only the sent paragraphs ([`llm_section_inputs`]),
/// and the rules, which cost nothing, read the rest, so that no paragraph
/// of a sent section goes unread.
pub fn left_out_inputs(plan: &RoutePlan, doc: &DocContext) -> Vec<SectionInput> {
    let partial = |s: &crate::route::RoutedSection| {
        s.route == Route::Llm && s.paragraphs.iter().any(|p| !p.sent)
    };
    let mut inputs = inputs_where(plan, doc, partial);
    for (input, s) in inputs
        .iter_mut()
        .zip(plan.sections.iter().filter(|s| partial(s)))
    {
        debug_assert_eq!(input.node_id, s.node_id);
        input.text = pieces_text(s, doc.source, false);
    }
    inputs
}

/// The paragraphs of a section routed by content that were sent (`sent`)
/// or left out (`!sent`), with `[...]` for each run of the others.
fn pieces_text(
    s: &crate::route::RoutedSection,
    source: &crate::tree::SourceText,
    sent: bool,
) -> String {
    let mut out = String::new();
    let mut gap = false;
    for p in &s.paragraphs {
        if p.sent != sent {
            gap = true;
            continue;
        }
        if gap && !out.is_empty() {
            out.push_str("\n[...]\n\n");
        }
        gap = false;
        out.push_str(source.byte_span_text(p.start_byte, p.end_byte));
    }
    out
}

/// The whole document as one section: what sending it whole, in one
/// request, would send (the bill's measure of routing).
pub fn whole_document_input(doc: &DocContext, name: &str) -> SectionInput {
    SectionInput {
        doc_id: doc.doc_id.to_string(),
        doc_type: doc.doc_type.to_string(),
        node_id: "0000".to_string(),
        title: name.to_string(),
        name: name.to_string(),
        breadcrumb: format!("[{name}]"),
        start_line: 1,
        end_line: doc.source.text.lines().count().max(1),
        text: doc.source.text.clone(),
        parties: doc.parties.to_vec(),
        registry: doc.registry.clone(),
        ..Default::default()
    }
}

/// The sections the router did not send that the rules still read, free:
/// skipped by prediction and noise (signature pages name the parties), but
/// not contents pages nor sections without text of their own.
pub fn skipped_section_inputs(plan: &RoutePlan, doc: &DocContext) -> Vec<SectionInput> {
    inputs_where(plan, doc, |s| {
        matches!(s.route, Route::Skip | Route::Noise) && s.kind != NodeKind::Toc
    })
}

fn inputs_where(
    plan: &RoutePlan,
    doc: &DocContext,
    keep: impl Fn(&crate::route::RoutedSection) -> bool,
) -> Vec<SectionInput> {
    plan.sections
        .iter()
        .filter(|s| keep(s))
        .map(|s| SectionInput {
            doc_id: doc.doc_id.to_string(),
            doc_type: doc.doc_type.to_string(),
            node_id: s.node_id.clone(),
            title: s.title.clone(),
            label: s.label.clone(),
            name: s.name.clone(),
            breadcrumb: s.breadcrumb.clone(),
            start_line: s.start_line,
            end_line: s.end_line,
            text: doc
                .source
                .byte_span_text(s.start_byte, s.end_byte)
                .to_string(),
            anchor: s.matched.anchor,
            parties: doc.parties.to_vec(),
            registry: doc.registry.clone(),
        })
        .collect()
}

/// The rules extractor over sections the router did not send, with
/// `profile`'s ontology: no request, no counters, no budget. A panic in
/// the rules leaves these sections without facts.
pub async fn rules_on_skipped(
    inputs: Vec<SectionInput>,
    profile: &ExtractionProfile,
) -> Vec<SectionExtraction> {
    if inputs.is_empty() {
        return Vec::new();
    }
    let (onto, density) = (profile.ontology.clone(), profile.density);
    super::cpu_pool::CpuPool::global()
        .run(move || {
            inputs
                .iter()
                .map(|i| rules_extraction(&onto, &density, i))
                .collect()
        })
        .await
        .unwrap_or_default()
}

/// Whether a request that is not a section's was sent, and how it ended
/// (see [`Extractor::side_request`]).
#[derive(Debug, Clone, PartialEq)]
pub enum SideCall {
    /// Nothing was sent (answered from the cache).
    NotSent,
    Answered,
    Failed(CallError),
}

impl Extractor {
    /// Checks the configuration and builds the HTTP client (no request is
    /// made).
    pub fn new(
        cfg: ExtractorConfig,
        ontology: Ontology,
        density: DensityThresholds,
    ) -> Result<Extractor> {
        cfg.validate()?;
        let profile = Arc::new(ExtractionProfile::new(ontology, density)?);
        let client = cfg.llm.clone().map(LlmClient::new).transpose()?;
        let cache = match (&cfg.cache_dir, cfg.use_cache, &cfg.llm) {
            (Some(d), true, Some(_)) => Some(Cache::new(d)),
            _ => None,
        };
        Ok(Extractor {
            semaphore: Semaphore::new(cfg.concurrency),
            rules_permits: Semaphore::new(
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            ),
            profile,
            cfg,
            client,
            cache,
            counters: Counters::default(),
            transport_failures: AtomicU32::new(0),
            breaker: OnceLock::new(),
            server: OnceLock::new(),
            batch_id: OnceLock::new(),
        })
    }

    /// Names the batch the answers are paid by (set once, when the batch's
    /// manifest is known). Without it every cache hit costs nothing.
    pub fn for_batch(&self, batch_id: &str) {
        let _ = self.batch_id.set(batch_id.to_string());
    }

    pub(super) fn payer(&self, doc_id: &str) -> Option<String> {
        self.batch_id.get().map(|b| payer(b, doc_id))
    }

    /// What a batch records to refuse a resume with another extractor:
    /// `rules`, or `llm:<model>` with the prompt version.
    pub fn identity(&self) -> String {
        match &self.cfg.llm {
            None => "rules".to_string(),
            Some(l) if self.cfg.mode == super::verify::LlmMode::Verify => format!(
                "llm:{} (verify prompt {})",
                l.model,
                super::verify::VERIFY_PROMPT_VERSION
            ),
            Some(l) => format!("llm:{} (prompt {})", l.model, self.prompt_version()),
        }
    }

    pub(super) fn prompt_version(&self) -> &str {
        if self.cfg.prompt_version.is_empty() {
            PROMPT_VERSION
        } else {
            &self.cfg.prompt_version
        }
    }

    /// Checks the LLM endpoint before any document (no-op offline); see
    /// [`LlmClient::preflight`].
    ///
    /// Then reads the server's limits where it states them (llama.cpp
    /// `GET /props`): its context per slot bounds every prompt and answer,
    /// and requests beyond its parallel slots would wait in its queue
    /// making no progress, so `--concurrency` is lowered to the slots.
    pub async fn preflight(&self) -> Result<()> {
        let Some(c) = &self.client else {
            return Ok(());
        };
        c.preflight().await?;
        if let Some(info) = server::probe(c).await {
            c.set_llama_cpp();
            if let Some(slots) = info.slots {
                let extra = self.cfg.concurrency.saturating_sub(slots as usize);
                if extra > 0 {
                    self.semaphore.forget_permits(extra);
                }
            }
            let _ = self.server.set(info);
        }
        Ok(())
    }

    /// The server's limits read at preflight (llama.cpp), if any.
    pub fn server_info(&self) -> Option<ServerInfo> {
        self.server.get().copied()
    }

    /// The model's context in tokens: `--context-tokens`, else what the
    /// server said.
    pub(super) fn context_tokens(&self, client: &LlmClient) -> Option<u32> {
        client
            .config()
            .context_tokens
            .or_else(|| self.server.get().and_then(|i| i.context_tokens))
    }

    /// Tokens of `text` by the model's tokenizer where the server offers
    /// one, else by the run's estimate (chars / 4).
    pub(super) async fn count_tokens(&self, client: &LlmClient, text: &str) -> u64 {
        if self.server.get().is_some() {
            if let Some(n) = server::count_tokens(client, text).await {
                return n;
            }
        }
        crate::route::cost::estimate_tokens(text.chars().count())
    }

    /// How this run forms and bills its requests, for
    /// [`super::bill::document_bill`]: the pack budget, the context the
    /// server said, whether the schema is billed as prompt (not on a
    /// llama.cpp server, which takes it as a grammar) and the slots a
    /// document is spread over.
    pub fn bill_options(&self) -> super::bill::BillOptions {
        let client = self.client.as_ref();
        super::bill::BillOptions {
            pack_tokens: self.cfg.pack_tokens,
            section_budget_chars: self.cfg.section_budget_chars,
            context_tokens: client.and_then(|c| self.context_tokens(c)),
            schema_billed: client.is_none_or(|c| !c.is_llama_cpp() || c.json_object_only()),
            streams: self.parallel_streams(),
            verify_share: self.cfg.verify_share,
        }
    }

    /// The reason the circuit breaker opened, once it has.
    pub fn breaker_reason(&self) -> Option<&str> {
        self.breaker.get().map(String::as_str)
    }

    /// One line for the run header, e.g. `offline rules extractor (no LLM
    /// configured)` or `LLM gpt-4o-mini at http://127.0.0.1:8000/v1 ...`.
    pub fn describe(&self) -> String {
        match &self.cfg.llm {
            None => OFFLINE_EXTRACTOR.to_string(),
            Some(l) => format!(
                "{}LLM {} at {} (concurrency {}, cache {})",
                match (self.cfg.mode, &self.cfg.calibration) {
                    (super::verify::LlmMode::Extract, _) => String::new(),
                    (super::verify::LlmMode::Verify, None) => "offline rules, verified (answers recorded, no calibration: they decide no cell) by ".to_string(),
                    (super::verify::LlmMode::Verify, Some(c)) => format!(
                        "offline rules, verified (the calibration trusts it with {} clause kinds) by ",
                        c.trusted().count()
                    ),
                },
                l.model,
                crate::secret::redact_urls(&l.base_url),
                self.cfg.concurrency,
                match &self.cache {
                    Some(c) => c.dir().display().to_string(),
                    None => "off".to_string(),
                }
            ),
        }
    }

    /// True when an LLM is configured.
    pub fn uses_llm(&self) -> bool {
        self.client.is_some()
    }

    /// True when an LLM is configured to extract the routed sections (not
    /// only to verify the rules' readings).
    pub fn extracts_with_llm(&self) -> bool {
        self.uses_llm() && self.cfg.mode == super::verify::LlmMode::Extract
    }

    /// True when an LLM is configured to verify the rules' clause kinds.
    pub fn verifies(&self) -> bool {
        self.uses_llm() && self.cfg.mode == super::verify::LlmMode::Verify
    }

    /// The profile [`Self::extract`] uses (the index it was built with).
    pub fn profile(&self) -> Arc<ExtractionProfile> {
        self.profile.clone()
    }

    /// The LLM client, for the one other kind of request a batch makes (the
    /// title mapping); send through [`Self::side_request`].
    pub fn llm_client(&self) -> Option<&LlmClient> {
        self.client.as_ref()
    }

    /// The answer cache folder, when the cache is on.
    pub fn cache_dir(&self) -> Option<&std::path::Path> {
        self.cache.as_ref().map(|c| c.dir())
    }

    /// Runs `call`, a request that is not a section's (the title mapping),
    /// as a section request is run: under a permit of the one concurrency
    /// bound (so `--concurrency` holds for every request of the run),
    /// counted in flight and in `title_requests` when it sent one, and its
    /// failure moves the circuit breaker as a section request's does.
    /// Refused, with the reason, once the breaker is open.
    pub async fn side_request<T>(
        &self,
        call: impl std::future::Future<Output = (T, SideCall)>,
    ) -> Result<T, String> {
        if let Some(r) = self.breaker.get() {
            return Err(format!("endpoint unavailable: {r}"));
        }
        let _permit = self
            .semaphore
            .acquire()
            .await
            .map_err(|e| format!("extractor closed: {e}"))?;
        self.counters.in_flight.fetch_add(1, Ordering::Relaxed);
        let (out, sent) = call.await;
        self.counters.in_flight.fetch_sub(1, Ordering::Relaxed);
        match &sent {
            SideCall::NotSent => {}
            SideCall::Answered => self.note_result(Ok(())),
            SideCall::Failed(e) => self.note_result(Err(e)),
        }
        if !matches!(sent, SideCall::NotSent) {
            self.counters.title_requests.fetch_add(1, Ordering::Relaxed);
        }
        Ok(out)
    }

    /// What one request's result does to the circuit breaker, for a
    /// section's and a title mapping's alike: an answer or any other failure
    /// ends a run of transport failures; `--breaker-after` transport
    /// failures in a row open it, and so does a rejected key.
    pub(super) fn note_result(&self, res: Result<(), &CallError>) {
        match res {
            Err(CallError::FormatUnsupported(_)) => {}
            Err(CallError::Transport(reason)) | Err(CallError::Stalled(reason)) => {
                let n = self.transport_failures.fetch_add(1, Ordering::Relaxed) + 1;
                let after = self
                    .client
                    .as_ref()
                    .map_or(1, |c| c.config().breaker_after)
                    .max(1);
                if n >= after {
                    let _ = self.breaker.set(format!(
                        "{n} transport failures in a row, the last: {reason}"
                    ));
                }
            }
            Err(CallError::Fatal(reason)) => {
                self.transport_failures.store(0, Ordering::Relaxed);
                // A rejected key is rejected for every request: stop
                // sending (a server without `/models` passed preflight).
                if reason.starts_with("HTTP 401") || reason.starts_with("HTTP 403") {
                    let _ = self.breaker.set(reason.clone());
                }
            }
            Ok(()) | Err(CallError::Retryable { .. }) | Err(CallError::TooLong(_)) => {
                self.transport_failures.store(0, Ordering::Relaxed);
            }
        }
    }

    /// Running totals (requests, cache hits, tokens, sections).
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// [`Self::counters`] with the streamed tokens.
    pub fn snapshot(&self) -> CounterSnapshot {
        let mut s = self.counters.snapshot();
        s.streamed = self.client.as_ref().map_or(0, |c| c.streamed());
        s
    }

    /// Cost in USD of the tokens spent so far, at the configured prices.
    pub fn cost_usd(&self) -> f64 {
        let s = self.counters.snapshot();
        self.cfg
            .llm
            .as_ref()
            .map_or(0.0, |l| l.cost(s.tokens_in, s.tokens_out))
    }

    /// Cost in USD of one section's tokens at the configured prices.
    pub fn section_cost_usd(&self, x: &SectionExtraction) -> f64 {
        self.cfg
            .llm
            .as_ref()
            .map_or(0.0, |l| l.cost(x.tokens_in, x.tokens_out))
    }

    /// Extracts one section with the primary profile, its pieces in one
    /// request where they fit. Never panics on bad answers or network
    /// trouble: those end as [`SectionStatus::Failed`] with the reason.
    pub async fn extract(&self, input: SectionInput) -> SectionExtraction {
        let profile = self.profile.clone();
        self.extract_document(vec![input], &profile, &Spend::UNLIMITED)
            .await
            .pop()
            .expect("one extraction per input")
    }

    /// Extracts many sections concurrently, each in requests of its own
    /// (requests bounded by the extractor's one semaphore), results in
    /// input order. A document's sections go together through
    /// [`Self::extract_document`].
    pub async fn extract_all(&self, inputs: Vec<SectionInput>) -> Vec<SectionExtraction> {
        futures::future::join_all(inputs.into_iter().map(|i| self.extract(i))).await
    }

    /// Extracts one document's routed sections with `profile`, one
    /// extraction per input, in input order. Through the LLM the sections
    /// are packed into requests ([`super::pack`], [`super::requests`]);
    /// `spend` is asked before each pack's first request, and a refusal
    /// fails that pack's sections with its reason, nothing sent. The rules
    /// read each section apart.
    pub async fn extract_document(
        &self,
        inputs: Vec<SectionInput>,
        profile: &ExtractionProfile,
        spend: &Spend<'_>,
    ) -> Vec<SectionExtraction> {
        let llm = self
            .client
            .as_ref()
            .filter(|_| self.cfg.mode == super::verify::LlmMode::Extract);
        let out = match llm {
            // A bounded window of sections in flight: a document of 100k
            // headings must not hold 100k futures. In verify mode the
            // rules read every section and the LLM only checks them.
            // Each section counted as it is read, so the heartbeat shows a
            // large document's progress.
            None => {
                futures::stream::iter(inputs)
                    .map(|i| async {
                        let x = self.rules_section(i, profile).await;
                        self.counters.sections_done.fetch_add(1, Ordering::Relaxed);
                        x
                    })
                    .buffered(64)
                    .collect()
                    .await
            }
            Some(client) => {
                let out = self
                    .extract_llm_document(client, &inputs, profile, spend)
                    .await;
                self.counters
                    .sections_done
                    .fetch_add(out.len() as u64, Ordering::Relaxed);
                out
            }
        };
        for x in &out {
            if matches!(x.status, SectionStatus::Failed(_)) {
                self.counters
                    .sections_failed
                    .fetch_add(1, Ordering::Relaxed);
            }
        }
        out
    }

    /// The rules over one section: CPU work off the async threads; a panic
    /// in the rules becomes a failed section, not a failed run.
    async fn rules_section(
        &self,
        input: SectionInput,
        profile: &ExtractionProfile,
    ) -> SectionExtraction {
        let (onto, density) = (profile.ontology.clone(), profile.density);
        let (doc_id, node_id) = (input.doc_id.clone(), input.node_id.clone());
        let _permit = self.rules_permits.acquire().await;
        match super::cpu_pool::CpuPool::global()
            .run(move || rules_extraction(&onto, &density, &input))
            .await
        {
            Ok(x) => x,
            Err(e) => SectionExtraction::blank(
                doc_id,
                node_id,
                rules::EXTRACTOR.to_string(),
                SectionStatus::Failed(format!("the rules extractor stopped: {e}")),
            ),
        }
    }
}

/// The rules' reading of one section with `profile`'s ontology, as ingest
/// makes it offline and in `--llm-mode verify` (what `plan` counts the
/// questions of).
pub fn rules_reading(profile: &ExtractionProfile, input: &SectionInput) -> SectionExtraction {
    rules_extraction(&profile.ontology, &profile.density, input)
}

/// The rules extractor over one section, pruned to the ontology, with its
/// density tier (and the anchor pin) as the actual tier.
fn rules_extraction(
    ontology: &Ontology,
    density: &DensityThresholds,
    input: &SectionInput,
) -> SectionExtraction {
    let raw = rules::extract_for(input, ontology);
    let mut p = validate::prune(raw.entities, raw.relations, ontology);
    let mut candidates = raw.candidates;
    candidates.extend(review_only::hold(
        ontology,
        &input.doc_type,
        &mut p.entities,
        &mut p.relations,
    ));
    let density_tier = rating::density_tier(density, p.relations.len(), input.text.chars().count());
    SectionExtraction {
        doc_id: input.doc_id.clone(),
        node_id: input.node_id.clone(),
        entities: p.entities,
        relations: p.relations,
        pruned: p.pruned,
        ends_added: p.ends_added,
        candidates,
        model_tier: None,
        model_why: None,
        density_tier,
        actual_tier: rating::actual_tier(None, density_tier, input.anchor),
        tokens_in: 0,
        tokens_out: 0,
        tokens_cached: 0,
        extractor: rules::EXTRACTOR.to_string(),
        status: SectionStatus::Ok,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn onto() -> Ontology {
        let mut o = Ontology::default();
        o.entity_types.insert("Role".into(), String::new());
        o.relation_types.insert("HAS_ROLE".into(), String::new());
        o
    }

    #[test]
    fn shareable_across_tasks() {
        fn send_sync<T: Send + Sync>(_: &T) {}
        fn send<T: Send>(_: T) {}
        let ex = Arc::new(
            Extractor::new(
                ExtractorConfig::default(),
                onto(),
                DensityThresholds::default(),
            )
            .unwrap(),
        );
        send_sync(&ex);
        // The futures can be spawned (a document per task).
        let e2 = ex.clone();
        send(async move { e2.extract_all(vec![]).await });
    }

    fn index_ontology(file: &str) -> Ontology {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        crate::index::GraphabilityIndex::load(&[path])
            .expect("the shipped index loads")
            .ontology
    }

    /// The same words are an exclusive appointment in a distribution
    /// agreement and the agent's authority among lenders in a credit
    /// agreement: the credit agreement's index holds the reading for
    /// review, the commercial one asserts it.
    #[test]
    fn a_clause_kind_the_document_type_holds_for_review_is_a_candidate_not_a_fact() {
        let text = "(a) The Company hereby appoints the Distributor as its sole and exclusive distributor of the Products in the Territory, and the Distributor accepts such appointment.";
        let section = |doc_type: &str| SectionInput {
            doc_type: doc_type.into(),
            node_id: "0001".into(),
            title: "2. Appointment".into(),
            breadcrumb: "[2. Appointment]".into(),
            text: text.into(),
            ..Default::default()
        };
        let exclusivity = |r: &crate::extract::Relation| r.relation_type == "EXCLUSIVITY";
        let density = DensityThresholds::default();
        let commercial = rules_extraction(
            &index_ontology("indices/commercial.yaml"),
            &density,
            &section("commercial"),
        );
        assert!(
            commercial.relations.iter().any(exclusivity),
            "{commercial:?}"
        );
        let credit = rules_extraction(
            &index_ontology("indices/credit_agreement.yaml"),
            &density,
            &section("credit_agreement"),
        );
        assert!(!credit.relations.iter().any(exclusivity), "{credit:?}");
        let held = credit
            .candidates
            .iter()
            .find(|c| exclusivity(&c.relation))
            .expect("the reading is kept to check");
        assert!(held.why.contains("credit agreement"), "{}", held.why);
        assert!(held.relation.evidence.contains("exclusive distributor"));
    }

    #[test]
    fn describe_names_the_model_and_url() {
        let mut llm =
            crate::extract::LlmConfig::new("http://127.0.0.1:8000/v1", "gpt-4o-mini").unwrap();
        llm.api_key = Some(crate::extract::Secret::new("sk-zzz"));
        let cfg = ExtractorConfig {
            llm: Some(llm),
            ..Default::default()
        };
        let ex = Extractor::new(cfg, onto(), DensityThresholds::default()).unwrap();
        assert_eq!(
            ex.describe(),
            "LLM gpt-4o-mini at http://127.0.0.1:8000/v1 (concurrency 8, cache off)"
        );
        assert!(ex.uses_llm());
    }
}
