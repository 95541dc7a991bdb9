//! Runs one batch: opens the sink and the extractor (failing before any LLM
//! spend when a service is unreachable), processes the documents
//! concurrently, keeps the manifest current, and writes the reports.

use super::budget::Budget;
use super::manifest::{DocState, Manifest};
use super::progress::{Progress, Totals};
use crate::atomic_file::write_atomic;
use crate::extract::{Extractor, ExtractorConfig, SectionExtraction, SectionInput, SectionStatus};
use crate::graph::{build_document_graph, DocumentMeta};
use crate::index::GraphabilityIndex;
use crate::report::{
    record_history, write_batch_reports, BatchReport, BatchSummary, DocumentOutcome,
};
use crate::route::cost::{estimate_tokens, OUTPUT_PER_INPUT};
use crate::route::{plan_document, Prices, Route, RouteOptions, RoutePlan};
use crate::sink::{open_sink, GraphSink, SinkConfig};
use anyhow::Context;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A validated `ingest` configuration (built from the command line without
/// I/O; `run_batch` does the I/O).
#[derive(Debug, Clone)]
pub struct IngestConfig {
    pub documents: Vec<PathBuf>,
    pub index_files: Vec<PathBuf>,
    pub out_dir: PathBuf,
    pub batch_id: String,
    pub history_file: PathBuf,
    pub route: RouteOptions,
    pub extractor: ExtractorConfig,
    pub sink: SinkConfig,
    pub resume: bool,
    pub max_cost_usd: Option<f64>,
    /// Prices for the cost figures and the `--max-cost` gate (zero when
    /// unknown).
    pub prices: Prices,
    pub quiet: bool,
    pub lossy: bool,
    /// Documents in flight at once (their sections share the extractor's bound).
    pub document_parallelism: usize,
}

/// What a finished batch hands back to the command.
#[derive(Debug)]
pub struct BatchResult {
    pub summary: BatchSummary,
    pub out_dir: PathBuf,
    pub failed_documents: usize,
    pub failed_sections: usize,
}

/// Everything saved about one document once its sections are extracted, so
/// a resumed batch can report on it without redoing it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SavedDocument {
    meta: DocumentMeta,
    plan: RoutePlan,
    extractions: Vec<SectionExtraction>,
}

/// Shared state of a running batch.
struct Batch {
    cfg: IngestConfig,
    index: GraphabilityIndex,
    extractor: Arc<Extractor>,
    sink: tokio::sync::Mutex<Box<dyn GraphSink>>,
    budget: Budget,
    /// One slot per request in flight: a section reserves its estimated
    /// cost only once it is about to be sent, so `--max-cost` sees the
    /// actual cost of the answers before it.
    send_slots: tokio::sync::Semaphore,
    manifest: Mutex<Manifest>,
    totals: Mutex<Totals>,
    progress: Mutex<Progress>,
}

pub async fn run_batch(cfg: IngestConfig) -> anyhow::Result<BatchResult> {
    let index = GraphabilityIndex::load(&cfg.index_files)?;
    std::fs::create_dir_all(cfg.out_dir.join("docs"))
        .with_context(|| format!("{}: cannot create output folder", cfg.out_dir.display()))?;

    let manifest = if cfg.resume {
        let mut m = Manifest::load(&cfg.out_dir)?;
        m.add_missing(&cfg.documents);
        m
    } else {
        Manifest::new(&cfg.batch_id, &cfg.index_files, &cfg.documents)
    };
    manifest.save(&cfg.out_dir)?;

    // Services first: an unreachable Neo4j or a bad LLM configuration must
    // fail before anything is spent.
    let sink = open_sink(&cfg.sink).await?;
    let extractor = Arc::new(Extractor::new(
        cfg.extractor.clone(),
        index.ontology.clone(),
        index.density,
    )?);

    let progress = Progress::new(manifest.documents.len(), cfg.quiet);
    progress.note(&format!(
        "kgroute batch {} -> {}",
        manifest.batch_id,
        cfg.out_dir.display()
    ));
    progress.note(&format!("extractor: {}", extractor.describe()));
    progress.note(&format!("graph sink: {}", sink.describe()));
    if cfg.max_cost_usd.is_some() && cfg.prices.cost(1_000_000, 1_000_000) == 0.0 {
        progress.note("note: --max-cost has no effect without --price-in/--price-out");
    }

    let paths: Vec<PathBuf> = manifest.documents.iter().map(|d| d.path.clone()).collect();
    let batch = Arc::new(Batch {
        budget: Budget::new(cfg.max_cost_usd),
        send_slots: tokio::sync::Semaphore::new(cfg.extractor.concurrency.max(1)),
        index,
        extractor,
        sink: tokio::sync::Mutex::new(sink),
        manifest: Mutex::new(manifest),
        totals: Mutex::new(Totals::default()),
        progress: Mutex::new(progress),
        cfg,
    });

    let parallel = batch.cfg.document_parallelism.max(1);
    let outcomes: Vec<DocumentOutcome> = futures::stream::iter(paths)
        .map(|path| {
            let batch = Arc::clone(&batch);
            async move { process_document(&batch, &path).await }
        })
        .buffered(parallel)
        .collect()
        .await;

    batch.sink.lock().await.finish().await?;
    batch.progress.lock().expect("progress").finish();

    let cfg = &batch.cfg;
    let failed_documents = outcomes.iter().filter(|o| o.error.is_some()).count();
    let failed_sections = outcomes
        .iter()
        .flat_map(|o| &o.extractions)
        .filter(|e| matches!(e.status, SectionStatus::Failed(_)))
        .count();
    let batch_id = batch.manifest.lock().expect("manifest").batch_id.clone();
    let sink_description = batch.sink.lock().await.describe();
    let report = BatchReport {
        batch_id,
        index_version: batch.index.version.clone(),
        documents: outcomes,
        input_per_million: cfg.prices.input_per_million,
        output_per_million: cfg.prices.output_per_million,
        extractor: batch.extractor.describe(),
        sink: sink_description,
        index_entries: batch
            .index
            .entries()
            .iter()
            .map(|e| e.title.clone())
            .collect(),
    };
    let summary = write_batch_reports(&cfg.out_dir, &report)?;
    record_history(&cfg.history_file, &summary)?;
    Ok(BatchResult {
        summary,
        out_dir: cfg.out_dir.clone(),
        failed_documents,
        failed_sections,
    })
}

/// Runs one document through every stage. Never fails the batch: a failure
/// becomes the outcome's `error` and the manifest's `failed` state.
async fn process_document(batch: &Batch, path: &Path) -> DocumentOutcome {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());

    if batch.manifest.lock().expect("manifest").state_of(path) == Some(DocState::Written) {
        if let Some(saved) = load_saved(batch, path) {
            report_line(
                batch,
                &format!("{name}: already written in this batch, skipped"),
            );
            return outcome_from(path, saved, None);
        }
    }

    match run_stages(batch, path).await {
        Ok(saved) => {
            let sent = saved
                .plan
                .sections
                .iter()
                .filter(|s| s.route == Route::Llm)
                .count();
            let failed = saved
                .extractions
                .iter()
                .filter(|e| matches!(e.status, SectionStatus::Failed(_)))
                .count();
            let relations: usize = saved.extractions.iter().map(|e| e.relations.len()).sum();
            let mut line = format!(
                "{name}: {} sections, {sent} sent, {relations} relations, written",
                saved.plan.sections.len()
            );
            if failed > 0 {
                line.push_str(&format!(" ({failed} sections failed; see sections.csv)"));
            }
            report_line(batch, &line);
            outcome_from(path, saved, None)
        }
        Err(err) => {
            let msg = format!("{err:#}");
            set_state(batch, path, None, DocState::Failed, Some(msg.clone()));
            // Errors from reading a file already name it.
            let shown = path.display().to_string();
            if msg.starts_with(&shown) {
                eprintln!("kgroute: {msg}");
            } else {
                eprintln!("kgroute: {shown}: {msg}");
            }
            report_line(batch, &format!("{name}: FAILED: {msg}"));
            DocumentOutcome {
                doc_id: String::new(),
                doc_name: name,
                path: path.to_path_buf(),
                plan: None,
                extractions: Vec::new(),
                error: Some(msg),
            }
        }
    }
}

async fn run_stages(batch: &Batch, path: &Path) -> anyhow::Result<SavedDocument> {
    let cfg = &batch.cfg;
    let (source, tree, plan) = plan_document(path, &batch.index, &cfg.route, cfg.lossy)?;
    let meta = DocumentMeta::from_file(path, &tree.doc_id, &batch.index.document_type)?;
    set_state(batch, path, Some(&meta.doc_id), DocState::Pending, None);

    let inputs: Vec<SectionInput> = plan
        .sections
        .iter()
        .filter(|s| s.route == Route::Llm)
        .map(|s| SectionInput {
            doc_id: meta.doc_id.clone(),
            doc_type: meta.doc_type.clone(),
            node_id: s.node_id.clone(),
            title: s.title.clone(),
            breadcrumb: s.breadcrumb.clone(),
            start_line: s.start_line,
            end_line: s.end_line,
            text: source.span_text(s.start_line, s.end_line).to_string(),
            anchor: s.matched.anchor,
        })
        .collect();
    batch.totals.lock().expect("totals").sections_to_send += inputs.len() as u64;
    drop(source);

    let extractions: Vec<SectionExtraction> = futures::future::join_all(
        inputs
            .into_iter()
            .map(|input| extract_within_budget(batch, input)),
    )
    .await;

    let saved = SavedDocument {
        meta,
        plan,
        extractions,
    };
    save_document(batch, &saved)?;
    set_state(
        batch,
        path,
        Some(&saved.meta.doc_id),
        DocState::Extracted,
        None,
    );

    let parents: HashMap<String, String> = tree
        .iter_with_parent()
        .into_iter()
        .filter_map(|(n, p)| p.map(|p| (n.node_id.clone(), p.to_string())))
        .collect();
    let graph = build_document_graph(
        &saved.meta,
        &saved.plan,
        &parents,
        &saved.extractions,
        &batch.index.ontology,
    );
    batch
        .sink
        .lock()
        .await
        .write_document(&graph)
        .await
        .with_context(|| format!("writing to {}", batch.cfg.sink_label()))?;
    set_state(
        batch,
        path,
        Some(&saved.meta.doc_id),
        DocState::Written,
        None,
    );
    Ok(saved)
}

/// Sends one section unless `--max-cost` would be passed, and keeps the
/// running totals.
async fn extract_within_budget(batch: &Batch, input: SectionInput) -> SectionExtraction {
    let cfg = &batch.cfg;
    let _slot = batch
        .send_slots
        .acquire()
        .await
        .expect("send slots never close");
    let estimate = estimate_cost(input.text.chars().count(), cfg);
    if !batch.budget.try_reserve(estimate) {
        return not_sent(
            &input,
            format!(
                "not sent: --max-cost ${:.2} would be passed (spent ~${:.4})",
                batch.budget.limit().unwrap_or_default(),
                batch.budget.spent()
            ),
        );
    }
    let result = batch.extractor.extract(input).await;
    let actual = cfg.prices.cost(result.tokens_in, result.tokens_out);
    batch.budget.settle(estimate, actual);
    {
        let mut t = batch.totals.lock().expect("totals");
        t.sections_done += 1;
        t.tokens_in += result.tokens_in;
        t.tokens_out += result.tokens_out;
        t.cost_usd += actual;
        batch.progress.lock().expect("progress").update(&t);
    }
    result
}

/// Rough price of a section before sending it: the plan's token estimate
/// plus the prompt around the section.
fn estimate_cost(chars: usize, cfg: &IngestConfig) -> f64 {
    const PROMPT_TOKENS: u64 = 600;
    let tokens_in = estimate_tokens(chars) + PROMPT_TOKENS;
    let tokens_out = (tokens_in as f64 * OUTPUT_PER_INPUT) as u64;
    cfg.prices.cost(tokens_in, tokens_out)
}

fn report_line(batch: &Batch, line: &str) {
    batch.progress.lock().expect("progress").document_done(line);
}

fn set_state(
    batch: &Batch,
    path: &Path,
    doc_id: Option<&str>,
    state: DocState,
    error: Option<String>,
) {
    let mut m = batch.manifest.lock().expect("manifest");
    if let Some(e) = m.entry_mut(path) {
        e.state = state;
        e.error = error;
        if let Some(id) = doc_id {
            e.doc_id = Some(id.to_string());
        }
    }
    if let Err(err) = m.save(&batch.cfg.out_dir) {
        eprintln!("kgroute: warning: {err:#}");
    }
}

fn saved_path(batch: &Batch, doc_id: &str) -> PathBuf {
    batch
        .cfg
        .out_dir
        .join("docs")
        .join(format!("{doc_id}.json"))
}

fn save_document(batch: &Batch, saved: &SavedDocument) -> anyhow::Result<()> {
    let json = serde_json::to_vec(saved)?;
    write_atomic(&saved_path(batch, &saved.meta.doc_id), &json)
}

fn load_saved(batch: &Batch, path: &Path) -> Option<SavedDocument> {
    let doc_id = batch
        .manifest
        .lock()
        .expect("manifest")
        .documents
        .iter()
        .find(|d| d.path == path)?
        .doc_id
        .clone()?;
    let text = std::fs::read(saved_path(batch, &doc_id)).ok()?;
    serde_json::from_slice(&text).ok()
}

fn outcome_from(path: &Path, saved: SavedDocument, error: Option<String>) -> DocumentOutcome {
    DocumentOutcome {
        doc_id: saved.meta.doc_id,
        doc_name: saved.meta.name,
        path: path.to_path_buf(),
        plan: Some(saved.plan),
        extractions: saved.extractions,
        error,
    }
}

/// The record of a section that `--max-cost` kept from being sent: failed,
/// with the reason, so the report shows it and a later run can send it.
fn not_sent(input: &SectionInput, reason: String) -> SectionExtraction {
    SectionExtraction::blank(
        input.doc_id.clone(),
        input.node_id.clone(),
        "none".to_string(),
        SectionStatus::Failed(reason),
    )
}

impl IngestConfig {
    fn sink_label(&self) -> String {
        match &self.sink {
            SinkConfig::Files { dir } => format!("files in {}", dir.display()),
            SinkConfig::Neo4j { uri, .. } => format!("Neo4j at {uri}"),
        }
    }
}
