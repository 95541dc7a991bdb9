//! Runs one batch: checks every service (Neo4j, the LLM endpoint) before
//! anything is written to `--out`, processes the documents concurrently,
//! keeps the manifest current, and writes the reports.
//!
//! Exactly once: documents are keyed by canonical path, a finished document
//! is never redone or lost on `--resume` (its saved result is reported and
//! its graph part kept), a document with failed sections is redone (the
//! cache makes answered sections free), and a resume of a finished batch
//! with nothing to redo writes nothing at all.

use super::budget::Budget;
use super::document::{plan_one, Planned};
use super::manifest::{BatchIdentity, DocState, Manifest};
use super::progress::{Progress, Totals};
use crate::extract::bill::document_bill;
use crate::extract::extractor::{
    left_out_inputs, llm_section_inputs, rules_on_skipped, section_inputs, skipped_section_inputs,
    whole_document_input, DocContext,
};
use crate::extract::{
    ExtractionProfile, Extractor, ExtractorConfig, SectionExtraction, SectionInput, SectionStatus,
    Spend,
};
use crate::graph::{build_document_graph, parents_from_tree, DocumentMeta, OrgMerges};
use crate::index::llm_titles::TitleMappingUse;
use crate::index::{GraphabilityIndex, IndexSet};
use crate::register::{RegisterRow, RegisterWriter};
use crate::report::sections_xlsx::MAX_SHEET_ROWS;
use crate::report::stream::ReportStream;
use crate::report::summary::SummaryBuilder;
use crate::report::{record_history, BatchReport, BatchSummary, DocumentOutcome, IndexUsed};
use crate::route::cost::CostModel;
use crate::route::cost::RequestBill;
use crate::route::{Route, RouteOptions, RoutePlan};
use crate::sink::{open_sink, GraphSink, SinkConfig};
use crate::tree::source::ReadOptions;
use anyhow::Context;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A validated `ingest` configuration: values checked, documents found, no
/// service opened yet (`run_batch` opens and checks them).
#[derive(Debug, Clone)]
pub struct IngestConfig {
    pub documents: Vec<PathBuf>,
    /// Files the folder walk passed over (`.pdf x2`), for the summary line.
    pub skipped: super::discover::Skipped,
    /// Subfolders the walk could not list (each an error; exit code 1).
    pub unlistable: Vec<String>,
    pub index_files: Vec<PathBuf>,
    /// `--doc-type`: route every document as this type instead of detecting it.
    pub doc_type: Option<String>,
    /// LLM title mapping of each document's unmatched titles (on with an
    /// LLM unless `--no-llm-match`; ignored without one).
    pub llm_match: bool,
    /// `--shard K/N`: this batch holds only that shard of the documents.
    pub shard: Option<crate::shard::ShardSpec>,
    pub out_dir: PathBuf,
    pub batch_id: String,
    pub history_file: PathBuf,
    pub route: RouteOptions,
    pub extractor: ExtractorConfig,
    pub sink: SinkConfig,
    pub resume: bool,
    pub max_cost_usd: Option<f64>,
    /// The one cost model shared with `kgroute plan`: token counts and
    /// prices for the estimates, the `--max-cost` gate and the summary.
    pub cost: CostModel,
    pub quiet: bool,
    /// How documents are read (`--lossy`, `--max-bytes`).
    pub read: ReadOptions,
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
    /// True when a resume found nothing to do and wrote nothing.
    pub nothing_to_do: bool,
}

/// Everything saved about one document once its sections are extracted, so
/// a resumed batch can report on it without redoing it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct SavedDocument {
    meta: DocumentMeta,
    plan: RoutePlan,
    extractions: Vec<SectionExtraction>,
    /// The LLM title mapping's request and tokens (absent in older saves).
    #[serde(default)]
    title_mapping: TitleMappingUse,
    /// The rules over the sections the router did not send (absent in
    /// older saves).
    #[serde(default)]
    rules_on_skipped: Vec<SectionExtraction>,
    /// The document's register row, read from its graph (absent in older
    /// saves: such a document has no row).
    #[serde(default)]
    register: Option<RegisterRow>,
    /// Its extraction requests as counted before sending (zero offline
    /// and in older saves).
    #[serde(default)]
    planned: RequestBill,
}

impl SavedDocument {
    /// Its register row, taken out (the outcome does not carry it).
    pub(super) fn take_register(&mut self) -> Option<RegisterRow> {
        self.register.take()
    }

    fn failed_sections(&self) -> usize {
        self.extractions
            .iter()
            .filter(|e| matches!(e.status, SectionStatus::Failed(_)))
            .count()
    }
}

/// Shared state of a running batch.
struct Batch {
    cfg: IngestConfig,
    /// One index per document type (a single one when files were given).
    indices: IndexSet,
    /// The primary index: the extractor's default profile (used for
    /// documents of no known type), the report's index version, and the
    /// entries the review drop-down offers.
    index: GraphabilityIndex,
    extractor: Arc<Extractor>,
    /// Extraction profile per document type, built when a document of that
    /// type first comes, from that type's index ontology and density.
    profiles: Mutex<HashMap<String, Arc<ExtractionProfile>>>,
    sink: tokio::sync::Mutex<Box<dyn GraphSink>>,
    budget: Budget,
    manifest: Mutex<Manifest>,
    /// Content hash -> first document of the batch with that content.
    claims: Mutex<HashMap<String, PathBuf>>,
    totals: Mutex<Totals>,
    /// Organisation spellings met by the documents written in this run.
    merges: Mutex<OrgMerges>,
    progress: Mutex<Progress>,
    /// The batch's search index, fed each document as it is routed.
    search: Mutex<Option<crate::search::SearchIndexWriter>>,
    /// The first write that failed for a full disk: no document starts
    /// after it (each would fail the same way) and the batch ends
    /// with it, resumable.
    disk_full: Mutex<Option<anyhow::Error>>,
}

/// The index the extractor is built with: the forced type's, else the
/// credit-agreement index when the set has one, else the first.
pub(crate) fn primary_index(set: &IndexSet, forced: Option<&str>) -> GraphabilityIndex {
    forced
        .and_then(|t| set.get(t))
        .or_else(|| set.get("credit_agreement"))
        .or_else(|| set.indices.first())
        .cloned()
        .unwrap_or_default()
}

/// The extraction profile of a document type: its index's ontology and
/// density (built once per type), or for a document of no known type the
/// primary index's types without what that type holds for review (its
/// `review_only` kinds are that type's, not this document's).
fn profile_for(batch: &Batch, doc_type: &str) -> anyhow::Result<Arc<ExtractionProfile>> {
    let mut profiles = batch.profiles.lock().expect("profiles");
    if let Some(p) = profiles.get(doc_type) {
        return Ok(p.clone());
    }
    let Some(index) = batch.indices.get(doc_type) else {
        let primary = batch.extractor.profile();
        let p = if primary.ontology().review_only.is_empty() {
            primary
        } else {
            let mut ontology = primary.ontology().clone();
            ontology.review_only.clear();
            Arc::new(ExtractionProfile::new(ontology, *primary.density())?)
        };
        profiles.insert(doc_type.to_string(), p.clone());
        return Ok(p);
    };
    let p = Arc::new(
        ExtractionProfile::new(index.ontology.clone(), index.density).with_context(|| {
            let files: Vec<String> = index
                .sources
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            format!("index {} ({})", doc_type, files.join(", "))
        })?,
    );
    profiles.insert(doc_type.to_string(), p.clone());
    Ok(p)
}

/// The canonical path of a document: its key in the manifest, whatever path
/// was typed (a file that cannot be resolved keeps an absolute form).
pub fn document_key(path: &Path) -> PathBuf {
    path.canonicalize()
        .unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// True when `dir` exists and holds anything.
fn is_non_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some())
}

pub async fn run_batch(cfg: IngestConfig) -> anyhow::Result<BatchResult> {
    let indices = IndexSet::load(&cfg.index_files)?;
    if let Some(t) = &cfg.doc_type {
        if indices.get(t).is_none() {
            anyhow::bail!(
                "--doc-type {t}: no index of that type; loaded types: {}",
                indices.names().join(", ")
            );
        }
    }
    let index = primary_index(&indices, cfg.doc_type.as_deref());
    let extractor = Extractor::new(cfg.extractor.clone(), index.ontology.clone(), index.density)?;
    let mut identity = BatchIdentity::of(&cfg.index_files, &extractor.identity())?;
    identity.llm_match = cfg.llm_match && extractor.uses_llm();
    let keys: Vec<PathBuf> = cfg.documents.iter().map(|p| document_key(p)).collect();

    // One run per batch folder, held until this function returns: a second
    // run (two `--resume`, or two new batches given one --out) is refused
    // here, naming the holder.
    let _batch_lock = crate::lock::Lock::for_batch(&cfg.out_dir)?;
    // Temp files of a run killed mid-write (no one else writes here now).
    crate::atomic_file::clean_stale(&cfg.out_dir);
    // Every output path before the first document (the history was found
    // unwritable only after the whole batch had run).
    crate::atomic_file::check_writable(&cfg.history_file).context("--history")?;

    let mut manifest = open_manifest(&cfg, identity, &keys)?;

    // Services next, before anything is written: an unreachable Neo4j or a
    // dead LLM endpoint must fail with nothing spent and nothing made.
    let neo4j = match &cfg.sink {
        SinkConfig::Neo4j { .. } => Some(open_sink(&cfg.sink).await?),
        SinkConfig::Files { .. } => None,
    };
    extractor.preflight().await?;

    if cfg.resume && manifest.finished {
        if let Some(result) = nothing_to_redo(
            &cfg,
            (&index, &indices),
            &extractor,
            &manifest,
            neo4j.as_deref(),
        ) {
            return Ok(result);
        }
    }

    extractor.for_batch(&manifest.batch_id);

    // The manifest first: a kill right after it leaves a resumable batch,
    // never a non-empty folder without one.
    std::fs::create_dir_all(&cfg.out_dir)
        .with_context(|| format!("{}: cannot create output folder", cfg.out_dir.display()))?;
    manifest.finished = false;
    manifest.save(&cfg.out_dir)?;
    std::fs::create_dir_all(cfg.out_dir.join("docs"))
        .with_context(|| format!("{}: cannot create output folder", cfg.out_dir.display()))?;
    let sink = match neo4j {
        Some(s) => s,
        None => open_sink(&cfg.sink).await?,
    };

    let progress = Progress::new(manifest.documents.len(), cfg.quiet);
    announce(&progress, &cfg, &manifest, &extractor, sink.as_ref());

    let paths: Vec<PathBuf> = manifest.documents.iter().map(|d| d.path.clone()).collect();
    let batch = Arc::new(Batch {
        budget: Budget::new(cfg.max_cost_usd),
        index,
        indices,
        extractor: Arc::new(extractor),
        profiles: Mutex::new(HashMap::new()),
        sink: tokio::sync::Mutex::new(sink),
        manifest: Mutex::new(manifest),
        claims: Mutex::new(HashMap::new()),
        totals: Mutex::new(Totals::default()),
        merges: Mutex::new(OrgMerges::default()),
        progress: Mutex::new(progress),
        search: Mutex::new(Some(crate::search::SearchIndexWriter::open(&cfg.out_dir)?)),
        disk_full: Mutex::new(None),
        cfg,
    });

    // The reports are opened before the first document and fed each one
    // as it finishes, so nothing of a finished document stays in memory.
    let header = {
        let batch_id = batch.manifest.lock().expect("manifest").batch_id.clone();
        let sink_description = batch.sink.lock().await.describe();
        batch_report(
            &batch.cfg,
            (&batch.index, &batch.indices),
            &batch.extractor,
            &batch_id,
            sink_description,
            Vec::new(),
        )
    };
    let mut reports = ReportStream::create(&batch.cfg.out_dir, &header, MAX_SHEET_ROWS)?;
    let mut register = RegisterWriter::create(&batch.cfg.out_dir)?;
    let failed = run_documents(&batch, paths, &header, &mut reports, &mut register).await?;
    // A full disk: stop here, as a kill would, so `--resume` takes over
    // (the failed document and those not started are still to do).
    if let Some(e) = batch.disk_full.lock().expect("disk_full").take() {
        batch.progress.lock().expect("progress").finish();
        drop(reports);
        drop(register);
        crate::atomic_file::remove_own_temps(&batch.cfg.out_dir);
        return Err(e);
    }
    finish_batch(&batch, &header, reports, register, failed).await
}

/// The batch's manifest: the one in `--out` to resume (its index, model
/// and shard must be this run's), else a new one for an empty or missing
/// folder. Reads only: nothing is written yet.
fn open_manifest(
    cfg: &IngestConfig,
    identity: BatchIdentity,
    keys: &[PathBuf],
) -> anyhow::Result<Manifest> {
    // Read-only checks of --out first.
    // `--resume` on a missing or empty --out starts the batch there, so a
    // scheduler can run the same command first and on every retry.
    let resume = cfg.resume && is_non_empty_dir(&cfg.out_dir);
    Ok(if resume {
        let mut m = match Manifest::load(&cfg.out_dir) {
            Ok(m) => m,
            Err(e) => match Manifest::damaged_hint(&cfg.out_dir) {
                Some(hint) => anyhow::bail!(hint),
                None => {
                    return Err(e.context(format!(
                    "--resume: {} holds no batch to resume; leave out --resume to start one there",
                    cfg.out_dir.display()
                )))
                }
            },
        };
        m.check_identity(&cfg.out_dir, &identity)?;
        if m.shard != cfg.shard {
            let show = |s: &Option<crate::shard::ShardSpec>| {
                s.map_or("none".to_string(), |s| s.to_string())
            };
            anyhow::bail!(
                "--resume: {} holds shard {} but this run asks for shard {}; resume it with the same --shard",
                cfg.out_dir.display(),
                show(&m.shard),
                show(&cfg.shard)
            );
        }
        m.add_missing(keys);
        m
    } else {
        if is_non_empty_dir(&cfg.out_dir) {
            if let Some(hint) = Manifest::damaged_hint(&cfg.out_dir) {
                anyhow::bail!(hint);
            }
            anyhow::bail!(
                "{}: output folder is not empty; add --resume to finish the batch in it, or give a new --out",
                cfg.out_dir.display()
            );
        }
        let mut m = Manifest::new(&cfg.batch_id, &cfg.index_files, identity, keys);
        m.shard = cfg.shard;
        m
    })
}

/// The batch's opening lines: where it goes, what extracts, where the
/// graph is written, what it may cost and what discovery skipped.
fn announce(
    progress: &Progress,
    cfg: &IngestConfig,
    manifest: &Manifest,
    extractor: &Extractor,
    sink: &dyn GraphSink,
) {
    progress.note(&format!(
        "kgroute batch {} -> {}{}",
        manifest.batch_id,
        cfg.out_dir.display(),
        cfg.shard
            .map(|s| format!(" (shard {s}: {} documents)", manifest.documents.len()))
            .unwrap_or_default()
    ));
    progress.note(&format!("extractor: {}", extractor.describe()));
    progress.note(&format!("graph sink: {}", sink.describe()));
    if extractor.uses_llm() {
        progress.note(&format!("cost: {}", cfg.cost.describe()));
        progress.note(if cfg.llm_match {
            "title mapping: unmatched titles of each document go to the LLM once (--no-llm-match turns it off)"
        } else {
            "title mapping: off (--no-llm-match)"
        });
    }
    if let Some(line) = cfg.skipped.line() {
        progress.note(&line);
    }
}

/// Runs every document, `document_parallelism` at a time, feeding each
/// finished one to the reports and the register.
async fn run_documents(
    batch: &Arc<Batch>,
    paths: Vec<PathBuf>,
    header: &BatchReport,
    reports: &mut ReportStream,
    register: &mut RegisterWriter,
) -> anyhow::Result<Failures> {
    let mut failed = Failures::default();
    let ticker = spawn_ticker(Arc::clone(batch));
    let parallel = batch.cfg.document_parallelism.max(1);
    let mut finished = futures::stream::iter(paths)
        .map(|path| {
            let batch = Arc::clone(batch);
            async move { process_document(&batch, &path).await }
        })
        .buffered(parallel);
    while let Some(outcome) = finished.next().await {
        if let Some((outcome, row)) = outcome {
            if let Some(row) = row {
                register.add(&row)?;
            }
            document_finished(reports, header, &mut failed, outcome);
        }
    }
    drop(finished);
    ticker.abort();
    Ok(failed)
}

/// Writes every output of the batch, each on its own: one that fails (the
/// graph, the search index, a report, the history row) is reported with
/// the others still written, and the batch is left unfinished so
/// `--resume` writes it again. Then the manifest says it finished.
async fn finish_batch(
    batch: &Batch,
    header: &BatchReport,
    mut reports: ReportStream,
    register: RegisterWriter,
    failed: Failures,
) -> anyhow::Result<BatchResult> {
    let mut outputs = Vec::new();
    if let Err(e) = batch.sink.lock().await.finish().await {
        outputs.push(e);
    }
    if let Some(search) = batch.search.lock().expect("search").take() {
        if let Err(e) = search.finish() {
            outputs.push(e);
        }
    }
    batch.progress.lock().expect("progress").finish();
    {
        let merges = batch.merges.lock().expect("merges");
        if merges.counts().0 > 0 {
            batch
                .progress
                .lock()
                .expect("progress")
                .note(&format!("graph: {merges}"));
        }
    }

    let cfg = &batch.cfg;
    let Failures {
        documents: failed_documents,
        sections: failed_sections,
    } = failed;
    if let Err(e) = super::merge::save_report_meta(&cfg.out_dir, header) {
        outputs.push(e);
    }
    let c = batch.extractor.snapshot();
    reports.set_llm_limits(crate::report::summary::LlmLimits {
        answers_cut: c.answers_cut,
        answers_repeated: c.answers_repeated,
        answers_salvaged: c.answers_salvaged,
        stalls: c.stalls,
        splits: c.splits,
        requests: c.requests,
        retries: c.retries,
        repairs: c.repairs,
    });
    let (summary, report_failures) = reports.finish(header);
    outputs.extend(report_failures);
    if let Err(e) = register.finish() {
        outputs.push(e);
    }
    if let Err(e) = record_history(&cfg.history_file, &summary) {
        outputs.push(e);
    }
    crate::report::stream::joined(outputs)?;
    {
        let mut m = batch.manifest.lock().expect("manifest");
        m.finished = true;
        m.save(&cfg.out_dir)?;
    }
    Ok(BatchResult {
        summary,
        out_dir: cfg.out_dir.clone(),
        failed_documents,
        failed_sections,
        nothing_to_do: false,
    })
}

/// A resume of a finished batch where every document is written with no
/// failed section and no document was added: the result, computed from
/// the saved documents, with nothing written anywhere.
fn nothing_to_redo(
    cfg: &IngestConfig,
    index: (&GraphabilityIndex, &IndexSet),
    extractor: &Extractor,
    manifest: &Manifest,
    neo4j: Option<&dyn GraphSink>,
) -> Option<BatchResult> {
    let sink = match neo4j {
        Some(s) => s.describe(),
        None => format!(
            "offline files in {} (no Neo4j configured)",
            cfg.out_dir.join("graph").display()
        ),
    };
    let report = batch_report(cfg, index, extractor, &manifest.batch_id, sink, Vec::new());
    // Folded one saved document at a time, as a batch reports them.
    let mut summary = SummaryBuilder::default();
    for d in &manifest.documents {
        match d.state {
            DocState::Duplicate => continue,
            DocState::Written => {}
            _ => return None,
        }
        let doc_id = d.doc_id.as_deref()?;
        let saved = load_saved_at(&cfg.out_dir, doc_id)?;
        if saved.failed_sections() > 0 || part_missing(cfg, doc_id) {
            return None;
        }
        summary.add(&report, &outcome_from(&d.path, saved, None));
    }
    Some(BatchResult {
        summary: summary.finish(&report),
        out_dir: cfg.out_dir.clone(),
        failed_documents: 0,
        failed_sections: 0,
        nothing_to_do: true,
    })
}

/// The batch's report; `index` is the primary index (its version) and the
/// set (every type's entries are offered in the review drop-down).
fn batch_report(
    cfg: &IngestConfig,
    (index, set): (&GraphabilityIndex, &IndexSet),
    extractor: &Extractor,
    batch_id: &str,
    sink: String,
    documents: Vec<DocumentOutcome>,
) -> BatchReport {
    let prices = cfg.cost.prices();
    BatchReport {
        batch_id: batch_id.to_string(),
        index_version: index.version.clone(),
        indices: set.indices.iter().map(IndexUsed::of).collect(),
        documents,
        input_per_million: prices.map_or(0.0, |p| p.input_per_million),
        output_per_million: prices.map_or(0.0, |p| p.output_per_million),
        extractor: extractor.describe(),
        sink,
        index_entries: {
            let mut all: Vec<String> = set
                .indices
                .iter()
                .flat_map(|i| i.entries().iter().map(|e| e.title.clone()))
                .collect();
            all.sort();
            all.dedup();
            all
        },
    }
}

/// Failed documents and failed sections, counted as documents finish.
#[derive(Debug, Default)]
struct Failures {
    documents: usize,
    sections: usize,
}

/// A document is finished (written, failed, or reported from an earlier
/// run): its outcome goes into every report as it comes, then is dropped.
/// Any other per-document output of a batch belongs here too.
fn document_finished(
    reports: &mut ReportStream,
    header: &BatchReport,
    failed: &mut Failures,
    outcome: DocumentOutcome,
) {
    failed.documents += usize::from(outcome.error.is_some());
    failed.sections += outcome
        .extractions
        .iter()
        .filter(|e| matches!(e.status, SectionStatus::Failed(_)))
        .count();
    reports.add(header, &outcome);
}

/// Every few seconds, the running totals with retries and waits, so a
/// stalled run is visible (the bar's message, or a plain line).
fn spawn_ticker(batch: Arc<Batch>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut last = None;
        // Streamed tokens at the last line, for tokens per second.
        let mut mark = (0u64, std::time::Instant::now());
        loop {
            tokio::time::sleep(std::time::Duration::from_secs(2)).await;
            let c = batch.extractor.snapshot();
            let t = *batch.totals.lock().expect("totals");
            let now = (c, t.sections_done);
            if last == Some(now) && c.waiting == 0 && c.in_flight == 0 {
                continue;
            }
            last = Some(now);
            let secs = mark.1.elapsed().as_secs_f64();
            let rate = (c.streamed > 0 && secs > 0.0)
                .then(|| c.streamed.saturating_sub(mark.0) as f64 / secs);
            mark = (c.streamed, std::time::Instant::now());
            batch.progress.lock().expect("progress").tick(&t, &c, rate);
        }
    })
}

/// Runs one document through every stage. Never fails the batch: a failure
/// becomes the outcome's `error` and the manifest's `failed` state. `None`
/// for a duplicate of an earlier document.
/// One document's outcome and its register row (none when it failed).
type Finished = (DocumentOutcome, Option<RegisterRow>);

async fn process_document(batch: &Batch, key: &Path) -> Option<Finished> {
    let name = key
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| key.display().to_string());

    if batch.disk_full.lock().expect("disk_full").is_some() {
        return None;
    }
    let state = batch.manifest.lock().expect("manifest").state_of(key);
    if state == Some(DocState::Written) {
        if let Some((doc_id, mut saved)) = load_saved(batch, key) {
            claim(batch, &saved.meta.sha256, key);
            if saved.failed_sections() == 0 && !part_missing(&batch.cfg, &doc_id) {
                report_line(
                    batch,
                    &format!("{name}: already written in this batch, skipped"),
                );
                let row = saved.register.take();
                return Some((outcome_from(key, saved, None), row));
            }
        }
    }

    if let Some(line) = super::progress::large_document_line(&name, key) {
        batch.progress.lock().expect("progress").note(&line);
    }
    match run_stages(batch, key).await {
        Ok(Some(mut saved)) => {
            let sent = saved
                .plan
                .sections
                .iter()
                .filter(|s| s.route == Route::Llm)
                .count();
            let failed = saved.failed_sections();
            let relations: usize = saved.extractions.iter().map(|e| e.relations.len()).sum();
            let mut line = format!(
                "{name}: {} sections, {sent} sent, {relations} relations, written",
                saved.plan.sections.len()
            );
            if failed > 0 {
                line.push_str(&format!(" ({failed} sections failed; see sections.csv)"));
            }
            report_line(batch, &line);
            let row = saved.register.take();
            Some((outcome_from(key, saved, None), row))
        }
        Ok(None) => None,
        Err(err) if crate::atomic_file::is_disk_full(&err) => {
            // Left to do (not `failed`): the resume after space is freed
            // takes it like a document never started.
            let mut first = batch.disk_full.lock().expect("disk_full");
            if first.is_none() {
                *first = Some(err.context(format!("{}", key.display())));
            }
            None
        }
        Err(err) => {
            let msg = format!("{err:#}");
            set_state(batch, key, None, DocState::Failed, Some(msg.clone()));
            // Errors from reading a file already name it.
            let shown = key.display().to_string();
            if msg.starts_with(&shown) {
                eprintln!("kgroute: {msg}");
            } else {
                eprintln!("kgroute: {shown}: {msg}");
            }
            report_line(batch, &format!("{name}: FAILED: {msg}"));
            Some((
                DocumentOutcome {
                    doc_id: String::new(),
                    doc_name: name,
                    path: key.to_path_buf(),
                    plan: None,
                    extractions: Vec::new(),
                    rules_on_skipped: Vec::new(),
                    title_mapping: TitleMappingUse::default(),
                    error: Some(msg),
                    planned: Default::default(),
                },
                None,
            ))
        }
    }
}

/// Claims a content hash for `key`; the first document that claimed it
/// when another one had.
fn claim(batch: &Batch, sha256: &str, key: &Path) -> Option<PathBuf> {
    let mut claims = batch.claims.lock().expect("claims");
    match claims.get(sha256) {
        Some(first) if first != key => Some(first.clone()),
        Some(_) => None,
        None => {
            claims.insert(sha256.to_string(), key.to_path_buf());
            None
        }
    }
}

/// The stages of one document; `Ok(None)` when it duplicates an earlier one.
async fn run_stages(batch: &Batch, key: &Path) -> anyhow::Result<Option<SavedDocument>> {
    let cfg = &batch.cfg;
    let started = std::time::Instant::now();
    // Reading and planning run before the first await, so documents claim
    // their content in batch order.
    let Planned {
        source,
        tree,
        plan,
        doc_type,
    } = plan_one(
        key,
        &cfg.read,
        &batch.indices,
        cfg.doc_type.as_deref(),
        &cfg.route,
    )?;
    note_document(batch, key, &doc_type, &plan);
    // A large document says each stage as it ends: one of 50 MB was half
    // a minute between its first line and its last.
    let large = source.text.len() as u64 >= super::progress::LARGE_DOCUMENT_BYTES;
    let doc_name = plan.doc_name.clone();
    let stage = |what: String| {
        if large {
            batch.progress.lock().expect("progress").note(&format!(
                "{doc_name}: {what} ({:.1} s)",
                started.elapsed().as_secs_f64()
            ));
        }
    };
    stage(format!(
        "tree and routing done: {} sections, {} to extract",
        plan.sections.len(),
        plan.sections
            .iter()
            .filter(|s| s.route == Route::Llm)
            .count()
    ));
    let meta = DocumentMeta::from_source(key, &tree.doc_id, &plan.doc_type, &source)?;
    if let Some(first) = claim(batch, &meta.sha256, key) {
        let msg = format!("duplicate of {} (same content), skipped", first.display());
        set_state(
            batch,
            key,
            Some(&meta.doc_id),
            DocState::Duplicate,
            Some(msg.clone()),
        );
        let name = meta.name.clone();
        report_line(batch, &format!("{name}: {msg}"));
        return Ok(None);
    }
    set_state(batch, key, Some(&meta.doc_id), DocState::Pending, None);

    let mut plan = plan;
    let title_mapping = map_titles(batch, key, &meta.name, &mut plan).await;
    if title_mapping.mapped > 0 {
        // Mapped titles have tiers now: their paragraphs are routed again.
        let index = batch.indices.get(&plan.doc_type);
        crate::route::route_content(&mut plan, &source, &batch.cfg.route, index)?;
    }

    let profile = profile_for(batch, &plan.doc_type)?;
    let registry = crate::extract::rules::document_registry(&plan, &source);
    let doc = DocContext {
        doc_id: &meta.doc_id,
        doc_type: &meta.doc_type,
        source: &source,
        parties: &tree.party_names,
        registry: &registry,
    };
    // An LLM that extracts reads only the paragraphs routing by content
    // sent; the rules (offline, or verifying) read sections whole.
    let llm_inputs = llm_section_inputs(&plan, &doc);
    let inputs = if batch.extractor.uses_llm() && !batch.extractor.verifies() {
        llm_inputs.clone()
    } else {
        section_inputs(&plan, &doc)
    };
    // In verify mode the extraction bill is what verifying is measured
    // against; the verify bill replaces it once the rules have read.
    let mut planned = if batch.extractor.uses_llm() {
        document_bill(
            &llm_inputs,
            &whole_document_input(&doc, &plan.doc_name),
            &profile,
            &batch.extractor.bill_options(),
            &cfg.cost,
        )
    } else {
        RequestBill::default()
    };
    let mut skipped = skipped_section_inputs(&plan, &doc);
    if batch.extractor.uses_llm() && !batch.extractor.verifies() {
        // The LLM reads a section's sent paragraphs; the rules read the
        // ones routing by content left out.
        skipped.extend(left_out_inputs(&plan, &doc));
    }
    batch.totals.lock().expect("totals").sections_to_send += inputs.len() as u64;
    let parents = parents_from_tree(&tree);
    if let Some(search) = batch.search.lock().expect("search").as_ref() {
        search.add(&plan, &source, key)?;
    }
    let term_definitions = crate::extract::rules::term_definitions(&source.text);
    let doc_title = crate::tree::title::document_title(&source.text);
    drop(source);

    // Verifying reads every section's text again: the rules' readings
    // name their paragraphs only by quote.
    let verify_inputs: Option<Vec<SectionInput>> = batch
        .extractor
        .verifies()
        .then(|| inputs.iter().chain(&skipped).cloned().collect());
    stage("search index added; extracting".to_string());
    let mut extractions = extract_within_budget(batch, inputs, &profile).await;
    let mut rules_on_skipped = rules_on_skipped(skipped, &profile).await;
    let checks = match verify_inputs {
        Some(v) => {
            verify_within_budget(
                batch,
                &mut extractions,
                &mut rules_on_skipped,
                &v,
                &profile,
                &mut planned,
            )
            .await
        }
        None => None,
    };

    stage(format!(
        "extracted: {} relations; building the graph",
        extractions.iter().map(|e| e.relations.len()).sum::<usize>()
    ));
    let all: Vec<SectionExtraction> = extractions
        .iter()
        .chain(&rules_on_skipped)
        .cloned()
        .collect();
    let mut graph = build_document_graph(&meta, &plan, &parents, &all, profile.ontology());
    graph.term_definitions = term_definitions;
    graph.doc_title = doc_title;
    drop(all);
    let saved = SavedDocument {
        meta,
        plan,
        extractions,
        title_mapping,
        rules_on_skipped,
        register: Some(crate::register::RegisterRow {
            verify: checks,
            ..crate::register::row_of(&graph)
        }),
        planned,
    };
    stage("graph built; saving and writing it".to_string());
    save_document(batch, &saved)?;
    set_state(
        batch,
        key,
        Some(&saved.meta.doc_id),
        DocState::Extracted,
        None,
    );

    write_graph(batch, key, &saved.meta.doc_id, &graph).await?;
    Ok(Some(saved))
}

/// Says what a reviewer should know before the document's results: it fits
/// no index, or its headings read badly.
fn note_document(
    batch: &Batch,
    key: &Path,
    doc_type: &crate::index::doctype::DocTypeGuess,
    plan: &RoutePlan,
) {
    if doc_type.name == crate::index::doctype::UNKNOWN_TYPE {
        batch.progress.lock().expect("progress").note(&format!(
            "kgroute: {}: fits no index (best: {} at {:.2}); routed with the base index only (cross-type boilerplate skipped, the rest sent as new)",
            crate::report::sanitize_title(&key.display().to_string()),
            doc_type.runner_up.as_deref().unwrap_or("none"),
            doc_type.runner_up_confidence
        ));
    }
    if let Some(w) = plan.tree_health.warning(&plan.doc_name) {
        batch.progress.lock().expect("progress").note(&format!(
            "kgroute: warning: {}",
            crate::report::sanitize_title(&w)
        ));
    }
}

/// The document's unmatched titles mapped by the LLM onto its index's
/// entries (re-routing them), when the batch does so; a failure leaves
/// them new, with a warning.
async fn map_titles(
    batch: &Batch,
    key: &Path,
    name: &str,
    plan: &mut RoutePlan,
) -> TitleMappingUse {
    let cfg = &batch.cfg;
    let title_mapping = match batch.indices.get(&plan.doc_type) {
        Some(index) if batch.cfg.llm_match => {
            super::titles::map_plan_titles(
                &batch.extractor,
                index,
                plan,
                &cfg.route,
                &batch.budget,
                &cfg.cost,
            )
            .await
        }
        _ => TitleMappingUse::default(),
    };
    let title_mapping = record_title_mapping(batch, key, title_mapping);
    if let Some(e) = &title_mapping.error {
        batch.progress.lock().expect("progress").note(&format!(
            "kgroute: warning: {}: {}; its {} unmatched titles stay new",
            crate::report::sanitize_title(name),
            crate::report::sanitize_title(e),
            title_mapping.asked
        ));
    }
    title_mapping
}

/// The document's graph to the sink, its names to the search side, its
/// organisations to the batch's merge count; then it is written.
async fn write_graph(
    batch: &Batch,
    key: &Path,
    doc_id: &str,
    graph: &crate::graph::DocGraph,
) -> anyhow::Result<()> {
    batch
        .sink
        .lock()
        .await
        .write_document(graph)
        .await
        .with_context(|| format!("writing to {}", batch.cfg.sink_label()))?;
    if let Some(search) = batch.search.lock().expect("search").as_ref() {
        search.add_graph(graph)?;
    }
    batch.merges.lock().expect("merges").add(graph);
    set_state(batch, key, Some(doc_id), DocState::Written, None);
    Ok(())
}

/// Extracts a document's routed sections (packed into requests), each
/// request sent unless `--max-cost` would be passed, and keeps the running
/// totals. The budget is reserved just before a pack's first request takes
/// the extractor's one concurrency permit, priced on the request's own text
/// (prompt, sections and, where billed, schema) with the run's cost model.
async fn extract_within_budget(
    batch: &Batch,
    inputs: Vec<SectionInput>,
    profile: &ExtractionProfile,
) -> Vec<SectionExtraction> {
    let cfg = &batch.cfg;
    let price = |tin: u64, tout: u64| cfg.cost.prices().map_or(0.0, |p| p.cost(tin, tout));
    let reserve = |prompt: &str| reserve_for(batch, prompt);
    let settle = |reserved: f64, tin: u64, tout: u64| settle_for(batch, reserved, tin, tout);
    let spend = Spend {
        reserve: &reserve,
        settle: &settle,
    };
    let results = batch
        .extractor
        .extract_document(inputs, profile, &spend)
        .await;
    {
        let mut t = batch.totals.lock().expect("totals");
        for r in &results {
            t.sections_done += 1;
            t.tokens_in += r.tokens_in;
            t.tokens_out += r.tokens_out;
            t.cost_usd += price(r.tokens_in, r.tokens_out);
        }
        batch.progress.lock().expect("progress").update(&t);
    }
    results
}

/// Verifies one document's readings (its routed sections' and the rest's)
/// under the batch's `--max-cost`, adding what the questions cost to each
/// section asked about and to the running totals. `planned` comes in as
/// the document's extraction bill and leaves as its verify bill, counted
/// before the first question is sent.
async fn verify_within_budget(
    batch: &Batch,
    extractions: &mut Vec<SectionExtraction>,
    skipped: &mut Vec<SectionExtraction>,
    inputs: &[SectionInput],
    profile: &ExtractionProfile,
    planned: &mut RequestBill,
) -> Option<crate::extract::verify::DocumentChecks> {
    let cfg = &batch.cfg;
    let price = |tin: u64, tout: u64| cfg.cost.prices().map_or(0.0, |p| p.cost(tin, tout));
    let reserve = |prompt: &str| reserve_for(batch, prompt);
    let settle = |reserved: f64, tin: u64, tout: u64| settle_for(batch, reserved, tin, tout);
    let spend = Spend {
        reserve: &reserve,
        settle: &settle,
    };
    let routed = extractions.len();
    let mut all: Vec<SectionExtraction> = std::mem::take(extractions);
    all.append(skipped);
    let opts = batch.extractor.bill_options();
    let asked = crate::extract::verify::bill::asked(
        &all,
        inputs,
        profile,
        crate::clause_model::active().ok(),
        &opts,
        &cfg.cost,
        planned.input_tokens,
    );
    *planned = crate::extract::verify::bill::document_bill(
        &asked, inputs, profile, &opts, &cfg.cost, planned,
    );
    let before: (u64, u64) = all
        .iter()
        .fold((0, 0), |a, x| (a.0 + x.tokens_in, a.1 + x.tokens_out));
    let checks = batch
        .extractor
        .verify_document(&mut all, asked.questions, inputs, profile, &spend)
        .await;
    let after: (u64, u64) = all
        .iter()
        .fold((0, 0), |a, x| (a.0 + x.tokens_in, a.1 + x.tokens_out));
    {
        let (tin, tout) = (after.0 - before.0, after.1 - before.1);
        let mut t = batch.totals.lock().expect("totals");
        t.tokens_in += tin;
        t.tokens_out += tout;
        t.cost_usd += price(tin, tout);
        batch.progress.lock().expect("progress").update(&t);
    }
    *skipped = all.split_off(routed);
    *extractions = all;
    checks
}

/// The `--max-cost` gate's first half for a request of this batch:
/// reserve the estimate of a prompt before sending it.
fn reserve_for(batch: &Batch, prompt: &str) -> Result<f64, String> {
    let estimate = batch.cfg.cost.estimate(prompt).usd.unwrap_or(0.0);
    if batch.budget.try_reserve(estimate) {
        Ok(estimate)
    } else {
        Err(format!(
            "not sent: --max-cost ${:.2} would be passed (spent ~${:.4})",
            batch.budget.limit().unwrap_or_default(),
            batch.budget.spent()
        ))
    }
}

/// The gate's second half: each answer replaces (first) or adds to the
/// reservation at once.
fn settle_for(batch: &Batch, reserved: f64, tin: u64, tout: u64) {
    let price = batch.cfg.cost.prices().map_or(0.0, |p| p.cost(tin, tout));
    batch.budget.settle(reserved, price);
}

/// Keeps a document's title mapping in its manifest entry as soon as it is
/// done, and, when a resume redoes the document, reports it as the run that
/// sent the request did ([`super::titles::as_first_run`]). Its tokens go
/// into the running totals beside the sections'.
fn record_title_mapping(batch: &Batch, key: &Path, now: TitleMappingUse) -> TitleMappingUse {
    let used = {
        let mut m = batch.manifest.lock().expect("manifest");
        let Some(entry) = m.entry_mut(key) else {
            return now;
        };
        let used = super::titles::as_first_run(now, entry.title_mapping.as_ref());
        entry.title_mapping = Some(used.clone());
        if let Err(err) = m.record(&batch.cfg.out_dir, key) {
            eprintln!("kgroute: warning: {err:#}");
        }
        used
    };
    if used.calls > 0 {
        let price = batch.cfg.cost.prices();
        let mut t = batch.totals.lock().expect("totals");
        t.title_requests += used.calls;
        t.tokens_in += used.tokens_in;
        t.tokens_out += used.tokens_out;
        t.cost_usd += price.map_or(0.0, |p| p.cost(used.tokens_in, used.tokens_out));
        batch.progress.lock().expect("progress").update(&t);
    }
    used
}

fn report_line(batch: &Batch, line: &str) {
    batch.progress.lock().expect("progress").document_done(line);
}

fn set_state(
    batch: &Batch,
    key: &Path,
    doc_id: Option<&str>,
    state: DocState,
    error: Option<String>,
) {
    let mut m = batch.manifest.lock().expect("manifest");
    if let Some(e) = m.entry_mut(key) {
        e.state = state;
        e.error = error;
        if let Some(id) = doc_id {
            e.doc_id = Some(id.to_string());
        }
    }
    if let Err(err) = m.record(&batch.cfg.out_dir, key) {
        eprintln!("kgroute: warning: {err:#}");
    }
}

fn save_document(batch: &Batch, saved: &SavedDocument) -> anyhow::Result<()> {
    crate::saved_docs::write(&batch.cfg.out_dir, &saved.meta.doc_id, |w| {
        Ok(serde_json::to_writer(w, saved)?)
    })
}

fn load_saved(batch: &Batch, key: &Path) -> Option<(String, SavedDocument)> {
    let doc_id = batch
        .manifest
        .lock()
        .expect("manifest")
        .entry(key)?
        .doc_id
        .clone()?;
    let saved = load_saved_at(&batch.cfg.out_dir, &doc_id)?;
    Some((doc_id, saved))
}

/// Whether a written document's graph part is gone from the offline
/// sink's folder (deleted, or lost with a copied folder): such a document
/// is redone on `--resume`, never reported written without its graph.
fn part_missing(cfg: &IngestConfig, doc_id: &str) -> bool {
    match &cfg.sink {
        SinkConfig::Files { dir, .. } => crate::sink::parts::existing_part(dir, doc_id).is_none(),
        SinkConfig::Neo4j { .. } => false,
    }
}

pub(super) fn load_saved_at(out_dir: &Path, doc_id: &str) -> Option<SavedDocument> {
    let path = crate::saved_docs::existing(out_dir, doc_id)?;
    let text = crate::saved_docs::read(&path).ok()?;
    serde_json::from_slice(&text).ok()
}

pub(super) fn outcome_from(
    key: &Path,
    saved: SavedDocument,
    error: Option<String>,
) -> DocumentOutcome {
    DocumentOutcome {
        doc_id: saved.meta.doc_id,
        doc_name: saved.meta.name,
        path: key.to_path_buf(),
        plan: Some(saved.plan),
        extractions: saved.extractions,
        rules_on_skipped: saved.rules_on_skipped,
        title_mapping: saved.title_mapping,
        error,
        planned: saved.planned,
    }
}

impl IngestConfig {
    fn sink_label(&self) -> String {
        match &self.sink {
            SinkConfig::Files { dir, .. } => format!("files in {}", dir.display()),
            SinkConfig::Neo4j { uri, .. } => format!("Neo4j at {uri}"),
        }
    }
}
