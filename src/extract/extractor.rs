//! The [`Extractor`]: one object per run that turns [`SectionInput`]s into
//! [`SectionExtraction`]s, through the LLM when one is configured or the
//! rules extractor otherwise. It owns the single semaphore that bounds LLM
//! requests in flight (shared by every document extracted with it), the
//! retry loop, the repair retry, the cache, and the counters that progress
//! bars read. Share it with `Arc`.

use super::answer_cache::{cache_key, ontology_hash, payer, CachedAnswer, CutAnswer};
use super::config::{ExtractorConfig, PROMPT_VERSION};
use super::prompt;
use super::validate::{self, ModelOutput};
use super::{rating, rules, split};
use super::{SectionExtraction, SectionInput, SectionStatus};
use crate::index::{DensityThresholds, Ontology, Tier};
use crate::llm::cache::Cache;
use crate::llm::server::{self, ServerInfo};
use crate::llm::{CallError, ChatAnswer, LlmClient, RetryPolicy};
use crate::route::{Route, RoutePlan};
use crate::tree::{NodeKind, SourceText};
use anyhow::Result;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use tokio::sync::Semaphore;

/// Fewest answer tokens a piece is given (the context allowing): a dense
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
    /// Pieces split in two after a cut answer, a stall, or a prompt over
    /// the model's context.
    pub splits: AtomicU64,
    /// Requests that made no progress within the idle timeout.
    pub stalls: AtomicU64,
    /// Answers sent back once for repair after failing the schema check.
    pub repairs: AtomicU64,
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
    pub splits: u64,
    pub stalls: u64,
    pub repairs: u64,
    /// Streamed tokens so far (the heartbeat's tokens per second).
    pub streamed: u64,
}

impl Counters {
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
            splits: g(&self.splits),
            stalls: g(&self.stalls),
            repairs: g(&self.repairs),
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
    system_prompt: String,
    /// The system prompt's token count, once counted.
    system_tokens: OnceLock<u64>,
    /// The output schema as sent to the server: this ontology's types as
    /// enums, strings bounded ([`prompt::wire_schema`]).
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
        Ok(ExtractionProfile {
            ontology_hash: ontology_hash(&ontology),
            system_prompt: prompt::system_message(&ontology),
            system_tokens: OnceLock::new(),
            wire_schema: prompt::wire_schema(&ontology),
            ontology: Arc::new(ontology),
            density,
        })
    }

    pub fn ontology(&self) -> &Ontology {
        &self.ontology
    }
}

/// Extracts sections; see the module comment.
#[derive(Debug)]
pub struct Extractor {
    cfg: ExtractorConfig,
    /// The profile of [`Self::extract`] (the batch's primary index).
    profile: Arc<ExtractionProfile>,
    client: Option<LlmClient>,
    cache: Option<Cache>,
    semaphore: Semaphore,
    /// Sections the rules read at once: one per core. The rules are CPU
    /// work, and every thread that runs them grows its own regex caches
    /// (a document's sections all at once took one blocking thread each,
    /// and peak memory grew with the batch); they run on the process's
    /// fixed rules threads ([`super::cpu_pool`]).
    rules_permits: Semaphore,
    counters: Counters,
    /// Transport failures in a row (any answer resets it).
    transport_failures: AtomicU32,
    /// Set once the circuit breaker opened: the last transport failure.
    breaker: OnceLock<String>,
    /// What the server said about its limits at preflight.
    server: OnceLock<ServerInfo>,
    /// The batch this extractor answers for ([`Self::for_batch`]): cached
    /// answers it paid for itself keep their tokens on a resume.
    batch_id: OnceLock<String>,
}

/// Called once per section just before its first request is sent (never
/// for cache hits): the `--max-cost` reservation; and after each answer,
/// with the permit still held, so the next section's reservation already
/// sees what this one cost. Shared by the section's pieces, so a split
/// section reserves once.
pub struct Gate<'a> {
    check: &'a (dyn Fn() -> Result<(), String> + Sync),
    answered: &'a (dyn Fn(u64, u64, bool) + Sync),
    state: Mutex<(Option<Result<(), String>>, bool)>,
}

impl<'a> Gate<'a> {
    /// `check` reserves; `answered(tokens_in, tokens_out, first)` settles
    /// (`first` for the section's first answer).
    pub fn new(
        check: &'a (dyn Fn() -> Result<(), String> + Sync),
        answered: &'a (dyn Fn(u64, u64, bool) + Sync),
    ) -> Self {
        Gate {
            check,
            answered,
            state: Mutex::new((None, false)),
        }
    }

    fn pass(&self) -> Result<(), String> {
        let mut s = self.state.lock().expect("gate lock");
        s.0.get_or_insert_with(|| (self.check)()).clone()
    }

    fn answer(&self, tokens_in: u64, tokens_out: u64) {
        let mut s = self.state.lock().expect("gate lock");
        let first = !s.1;
        s.1 = true;
        (self.answered)(tokens_in, tokens_out, first);
    }

    /// True when the check passed but no answer came (the reservation is
    /// still open).
    pub fn reserved_unanswered(&self) -> bool {
        let s = self.state.lock().expect("gate lock");
        matches!(s.0, Some(Ok(()))) && !s.1
    }
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
    /// The document's party registry (see [`super::registry`]).
    pub registry: &'a super::registry::PartyRegistry,
}

/// The inputs of the extraction stage for a planned document: one per
/// section routed to the LLM, with its whole text by its byte span.
pub fn section_inputs(plan: &RoutePlan, doc: &DocContext) -> Vec<SectionInput> {
    inputs_where(plan, doc, |s| s.route == Route::Llm)
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

/// The answer to one piece of a section.
struct PieceResult {
    output: Option<ModelOutput>,
    tokens_in: u64,
    tokens_out: u64,
    status: SectionStatus,
}

impl PieceResult {
    fn failed(reason: String) -> PieceResult {
        PieceResult {
            output: None,
            tokens_in: 0,
            tokens_out: 0,
            status: SectionStatus::Failed(reason),
        }
    }
}

/// How asking for one piece ended.
enum PieceOutcome {
    /// An answer (or a failure that splitting would not help).
    Done(PieceResult),
    /// The answer was cut at `max_tokens`; what it cost.
    Cut(PieceResult),
    /// The server made no progress within the idle timeout.
    Stalled(String),
    /// The prompt does not fit the server's context.
    TooLong(String),
}

/// Why the retry loop stopped without an answer.
enum Ended {
    Stalled(String),
    TooLong(String),
    Failed(String),
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

    fn payer(&self, doc_id: &str) -> Option<String> {
        self.batch_id.get().map(|b| payer(b, doc_id))
    }

    /// What a batch records to refuse a resume with another extractor:
    /// `rules`, or `llm:<model>` with the prompt version.
    pub fn identity(&self) -> String {
        match &self.cfg.llm {
            None => "rules".to_string(),
            Some(l) => format!("llm:{} (prompt {})", l.model, self.prompt_version()),
        }
    }

    fn prompt_version(&self) -> &str {
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
    fn context_tokens(&self, client: &LlmClient) -> Option<u32> {
        client
            .config()
            .context_tokens
            .or_else(|| self.server.get().and_then(|i| i.context_tokens))
    }

    /// Tokens of `text` by the model's tokenizer where the server offers
    /// one, else by the run's estimate (chars / 4).
    async fn count_tokens(&self, client: &LlmClient, text: &str) -> u64 {
        if self.server.get().is_some() {
            if let Some(n) = server::count_tokens(client, text).await {
                return n;
            }
        }
        crate::route::cost::estimate_tokens(text.chars().count())
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
                "LLM {} at {} (concurrency {}, cache {})",
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
    fn note_result(&self, res: Result<(), &CallError>) {
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

    /// Extracts one section. Never panics on bad answers or network
    /// trouble: those end as [`SectionStatus::Failed`] with the reason.
    pub async fn extract(&self, input: SectionInput) -> SectionExtraction {
        let always = || Ok(());
        let ignore = |_, _, _| {};
        self.extract_gated(input, &Gate::new(&always, &ignore))
            .await
    }

    /// [`Self::extract`], asking `gate` just before the section's first
    /// request (with a concurrency permit held); a refusal fails the section
    /// with the gate's reason and nothing is sent.
    pub async fn extract_gated(&self, input: SectionInput, gate: &Gate<'_>) -> SectionExtraction {
        let profile = self.profile.clone();
        self.extract_gated_with(input, gate, &profile).await
    }

    /// [`Self::extract_gated`] with another document type's profile.
    pub async fn extract_gated_with(
        &self,
        input: SectionInput,
        gate: &Gate<'_>,
        profile: &ExtractionProfile,
    ) -> SectionExtraction {
        let out = match &self.client {
            None => {
                // CPU work off the async threads; a panic in the rules
                // becomes a failed section, not a failed run.
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
            Some(client) => self.extract_llm(client, &input, gate, profile).await,
        };
        self.counters.sections_done.fetch_add(1, Ordering::Relaxed);
        if matches!(out.status, SectionStatus::Failed(_)) {
            self.counters
                .sections_failed
                .fetch_add(1, Ordering::Relaxed);
        }
        out
    }

    /// Extracts many sections concurrently (requests bounded by the
    /// extractor's one semaphore), results in input order.
    pub async fn extract_all(&self, inputs: Vec<SectionInput>) -> Vec<SectionExtraction> {
        futures::future::join_all(inputs.into_iter().map(|i| self.extract(i))).await
    }

    async fn extract_llm(
        &self,
        client: &LlmClient,
        input: &SectionInput,
        gate: &Gate<'_>,
        profile: &ExtractionProfile,
    ) -> SectionExtraction {
        let pieces = split::split_section(input, self.cfg.section_budget_chars);
        let results = futures::future::join_all(
            pieces
                .into_iter()
                .map(|p| self.extract_fitting(client, p, gate, profile)),
        )
        .await;
        let mut parts = Vec::with_capacity(results.len());
        for r in results.into_iter().flatten() {
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
                        &profile.ontology,
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
                model_tier: tier,
                model_why: why,
                density_tier: Tier::VeryLow,
                actual_tier: Tier::VeryLow,
                tokens_in: r.tokens_in,
                tokens_out: r.tokens_out,
                extractor: format!("llm:{}", client.config().model),
                status: r.status,
            });
        }
        let mut out = split::merge(parts).unwrap_or_else(|| {
            // A section with no text at all: nothing to ask.
            SectionExtraction::blank(
                input.doc_id.clone(),
                input.node_id.clone(),
                format!("llm:{}", client.config().model),
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
        out.density_tier = rating::density_tier(
            &profile.density,
            out.relations.len(),
            input.text.chars().count(),
        );
        out.actual_tier = rating::actual_tier(out.model_tier, out.density_tier, input.anchor);
        out
    }

    /// One piece, made to fit: split in two (by structure, then sentences)
    /// when its prompt leaves the model's context no room for an answer,
    /// when its answer was cut at `max_tokens`, or when the server stalled
    /// on it; a stalled piece that cannot be split is retried once. The
    /// same request is never sent again after a cut. Results of every leaf
    /// piece, in order.
    fn extract_fitting<'s>(
        &'s self,
        client: &'s LlmClient,
        piece: SectionInput,
        gate: &'s Gate<'s>,
        profile: &'s ExtractionProfile,
    ) -> futures::future::BoxFuture<'s, Vec<PieceResult>> {
        Box::pin(async move {
            let key = self.piece_key(client, &piece, profile);
            let cut_key = crate::llm::cache::key(&[&key, "cut"]);
            if let Some(cache) = &self.cache {
                // An answer cut before: go straight to the halves.
                if let Some(cut) = cache.get::<CutAnswer>(&cut_key).await {
                    if let Some((a, b)) = split::halve(&piece) {
                        let mut out = self.both(client, a, b, gate, profile).await;
                        if cut.paid_by.is_some() && cut.paid_by == self.payer(&piece.doc_id) {
                            if let Some(first) = out.first_mut() {
                                first.tokens_in += cut.tokens_in;
                                first.tokens_out += cut.tokens_out;
                            }
                        }
                        return out;
                    }
                }
            }
            let max_tokens = match self.answer_budget(client, &piece, profile).await {
                Ok(m) => m,
                Err(why) => {
                    return match split::halve(&piece) {
                        Some((a, b)) => {
                            self.counters.splits.fetch_add(1, Ordering::Relaxed);
                            self.both(client, a, b, gate, profile).await
                        }
                        None => vec![PieceResult::failed(why)],
                    };
                }
            };
            let mut stalled_once = false;
            loop {
                match self
                    .extract_piece(client, &piece, &key, gate, profile, max_tokens)
                    .await
                {
                    PieceOutcome::Done(r) => return vec![r],
                    PieceOutcome::Cut(spent) => {
                        self.counters.answers_cut.fetch_add(1, Ordering::Relaxed);
                        if let Some(cache) = &self.cache {
                            let cut = CutAnswer {
                                max_tokens: max_tokens.unwrap_or(0),
                                tokens_in: spent.tokens_in,
                                tokens_out: spent.tokens_out,
                                paid_by: self.payer(&piece.doc_id),
                            };
                            let _ = cache.put(&cut_key, &cut).await;
                        }
                        let Some((a, b)) = split::halve(&piece) else {
                            return vec![PieceResult {
                                status: SectionStatus::Failed(format!(
                                    "the answer was cut at max_tokens {} and the piece (lines {}-{}) is one sentence, too small to split; raise --max-tokens",
                                    max_tokens.map_or("(server default)".to_string(), |m| m.to_string()),
                                    piece.start_line,
                                    piece.end_line
                                )),
                                ..spent
                            }];
                        };
                        self.counters.splits.fetch_add(1, Ordering::Relaxed);
                        let mut out = self.both(client, a, b, gate, profile).await;
                        if let Some(first) = out.first_mut() {
                            first.tokens_in += spent.tokens_in;
                            first.tokens_out += spent.tokens_out;
                        }
                        return out;
                    }
                    PieceOutcome::TooLong(why) => {
                        return match split::halve(&piece) {
                            Some((a, b)) => {
                                self.counters.splits.fetch_add(1, Ordering::Relaxed);
                                self.both(client, a, b, gate, profile).await
                            }
                            None => vec![PieceResult::failed(why)],
                        };
                    }
                    PieceOutcome::Stalled(why) => {
                        self.counters.stalls.fetch_add(1, Ordering::Relaxed);
                        if stalled_once {
                            return vec![PieceResult::failed(format!("{why} (twice; gave up)"))];
                        }
                        stalled_once = true;
                        if let Some((a, b)) = split::halve(&piece) {
                            self.counters.splits.fetch_add(1, Ordering::Relaxed);
                            return self.both(client, a, b, gate, profile).await;
                        }
                        // Too small to split: retried once.
                    }
                }
            }
        })
    }

    async fn both(
        &self,
        client: &LlmClient,
        a: SectionInput,
        b: SectionInput,
        gate: &Gate<'_>,
        profile: &ExtractionProfile,
    ) -> Vec<PieceResult> {
        let (mut x, y) = futures::future::join(
            self.extract_fitting(client, a, gate, profile),
            self.extract_fitting(client, b, gate, profile),
        )
        .await;
        x.extend(y);
        x
    }

    /// The piece's `max_tokens`: `--max-tokens` when given, else room for
    /// at least [`ANSWER_FLOOR`] tokens and
    /// an answer about twice the piece's size (a dense section's JSON is
    /// larger than its text) within the model's output cap and what the
    /// context leaves after the prompt. An error when the context leaves
    /// no room for a useful answer (the piece must be split).
    async fn answer_budget(
        &self,
        client: &LlmClient,
        piece: &SectionInput,
        profile: &ExtractionProfile,
    ) -> Result<Option<u32>, String> {
        let cfg = client.config();
        let ctx = self.context_tokens(client);
        if ctx.is_none() && cfg.max_tokens.is_some() {
            return Ok(cfg.max_tokens);
        }
        let system = match profile.system_tokens.get() {
            Some(&n) => n,
            None => {
                let n = self.count_tokens(client, &profile.system_prompt).await;
                let _ = profile.system_tokens.set(n);
                n
            }
        };
        let text_tokens = self.count_tokens(client, &piece.text).await;
        // The user message's frame (fences, breadcrumb, heading) and the
        // chat template's tokens.
        let frame = self
            .count_tokens(
                client,
                &prompt::user_message(&SectionInput {
                    text: String::new(),
                    ..piece.clone()
                }),
            )
            .await
            + 32;
        let prompt_tokens = system + frame + text_tokens;
        let want = (256 + 2 * text_tokens).max(ANSWER_FLOOR);
        let cap = u64::from(cfg.max_tokens.unwrap_or(cfg.output_cap));
        let mut m = want.min(cap);
        if cfg.max_tokens.is_some() {
            m = cap;
        }
        if let Some(ctx) = ctx {
            let room = u64::from(ctx).saturating_sub(prompt_tokens);
            // Too little room: a smaller piece gets a complete answer.
            let least = (128 + text_tokens / 2).min(m);
            if room < least {
                return Err(format!(
                    "the piece (lines {}-{}, {} tokens) with the prompt ({} tokens) leaves the model's context of {ctx} tokens no room for an answer",
                    piece.start_line, piece.end_line, text_tokens, prompt_tokens
                ));
            }
            m = m.min(room);
        }
        Ok(Some(m.clamp(1, u64::from(u32::MAX)) as u32))
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
            &profile.ontology_hash,
            &piece.text,
            &piece.breadcrumb,
            &piece.doc_type,
        )
    }

    async fn extract_piece(
        &self,
        client: &LlmClient,
        piece: &SectionInput,
        key: &str,
        gate: &Gate<'_>,
        profile: &ExtractionProfile,
        max_tokens: Option<u32>,
    ) -> PieceOutcome {
        if let Some(cache) = &self.cache {
            if let Some(hit) = cache.get::<CachedAnswer>(key).await {
                self.counters.cache_hits.fetch_add(1, Ordering::Relaxed);
                // Tokens this batch already paid for this document (a run
                // killed before the document was saved) still count.
                let ours = hit.paid_by.is_some() && hit.paid_by == self.payer(&piece.doc_id);
                let (tokens_in, tokens_out) = if ours {
                    (hit.tokens_in, hit.tokens_out)
                } else {
                    (0, 0)
                };
                return PieceOutcome::Done(PieceResult {
                    output: Some(hit.output),
                    tokens_in,
                    tokens_out,
                    status: SectionStatus::Cached,
                });
            }
        }
        let mut messages: Vec<Value> = vec![
            json!({"role": "system", "content": profile.system_prompt}),
            json!({"role": "user", "content": prompt::user_message(piece)}),
        ];
        let (mut tin, mut tout) = (0u64, 0u64);
        let mut repaired = false;
        // The piece's time bound starts with its first request.
        let mut deadline = None;
        loop {
            let answer = match self
                .call_with_retries(
                    client,
                    &messages,
                    &profile.wire_schema,
                    gate,
                    &mut deadline,
                    max_tokens,
                )
                .await
            {
                Ok(a) => a,
                Err(Ended::Stalled(why)) => return PieceOutcome::Stalled(why),
                Err(Ended::TooLong(why)) => return PieceOutcome::TooLong(why),
                Err(Ended::Failed(reason)) => {
                    return PieceOutcome::Done(PieceResult {
                        output: None,
                        tokens_in: tin,
                        tokens_out: tout,
                        status: SectionStatus::Failed(reason),
                    })
                }
            };
            tin += answer.tokens_in;
            tout += answer.tokens_out;
            self.counters
                .tokens_in
                .fetch_add(answer.tokens_in, Ordering::Relaxed);
            self.counters
                .tokens_out
                .fetch_add(answer.tokens_out, Ordering::Relaxed);
            if answer.cut() {
                // Incomplete JSON: never parsed, never re-sent as is.
                return PieceOutcome::Cut(PieceResult {
                    output: None,
                    tokens_in: tin,
                    tokens_out: tout,
                    status: SectionStatus::Ok,
                });
            }
            match validate::parse_and_validate(&answer.content) {
                Ok(output) => {
                    if let Some(cache) = &self.cache {
                        let entry = CachedAnswer {
                            output: output.clone(),
                            tokens_in: tin,
                            tokens_out: tout,
                            paid_by: self.payer(&piece.doc_id),
                        };
                        // A cache that cannot be written only costs a re-run.
                        let _ = cache.put(key, &entry).await;
                    }
                    return PieceOutcome::Done(PieceResult {
                        output: Some(output),
                        tokens_in: tin,
                        tokens_out: tout,
                        status: SectionStatus::Ok,
                    });
                }
                Err(e) if !repaired => {
                    repaired = true;
                    self.counters.repairs.fetch_add(1, Ordering::Relaxed);
                    messages.push(json!({"role": "assistant", "content": answer.content}));
                    messages.push(json!({"role": "user", "content": prompt::repair_message(&e)}));
                }
                Err(e) => {
                    return PieceOutcome::Done(PieceResult {
                        output: None,
                        tokens_in: tin,
                        tokens_out: tout,
                        status: SectionStatus::Failed(format!(
                            "invalid answer after one repair retry: {e}"
                        )),
                    })
                }
            }
        }
    }

    /// Sends until an answer arrives, a non-retryable error, the retry
    /// budget or the piece's time bound is spent, or the circuit breaker is
    /// open. Holds a semaphore permit only while a request is in flight,
    /// never while backing off.
    async fn call_with_retries(
        &self,
        client: &LlmClient,
        messages: &[Value],
        schema: &Value,
        gate: &Gate<'_>,
        deadline: &mut Option<Instant>,
        max_tokens: Option<u32>,
    ) -> Result<ChatAnswer, Ended> {
        let cfg = client.config();
        let policy = RetryPolicy {
            max_retries: cfg.max_retries,
            base: cfg.backoff_base,
            max: cfg.backoff_max,
        };
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
                self.counters.requests.fetch_add(1, Ordering::Relaxed);
                self.counters.in_flight.fetch_add(1, Ordering::Relaxed);
                let res = client
                    .chat_structured(messages, prompt::SCHEMA_NAME, schema, max_tokens)
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
                    // resend at once; this is not a retry.
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

/// The rules extractor over one section, pruned to the ontology, with its
/// density tier (and the anchor pin) as the actual tier.
fn rules_extraction(
    ontology: &Ontology,
    density: &DensityThresholds,
    input: &SectionInput,
) -> SectionExtraction {
    let raw = rules::extract_for(input, ontology);
    let p = validate::prune(raw.entities, raw.relations, ontology);
    let density_tier = rating::density_tier(density, p.relations.len(), input.text.chars().count());
    SectionExtraction {
        doc_id: input.doc_id.clone(),
        node_id: input.node_id.clone(),
        entities: p.entities,
        relations: p.relations,
        pruned: p.pruned,
        ends_added: p.ends_added,
        model_tier: None,
        model_why: None,
        density_tier,
        actual_tier: rating::actual_tier(None, density_tier, input.anchor),
        tokens_in: 0,
        tokens_out: 0,
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
