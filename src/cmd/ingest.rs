//! `kgroute ingest <FILE|DIR>... --index <YAML>...`: the whole pipeline on a
//! batch (tree, route, extract, graph, sink, report).
//!
//! Arguments become a validated [`IngestConfig`] here in two steps: what
//! was typed is checked without I/O (`check_values`), then the documents,
//! index files and batch folder are located; the pipeline then checks the
//! sink and the LLM endpoint before anything is written or spent.

use super::batch_args::{DocumentArgs, RequestArgs, RoutingArgs};
use super::prices::PriceArgs;
use super::Outcome;
use crate::extract::{ExtractorConfig, LlmConfig};
use crate::pipeline::{discover_with, run_batch, DiscoverOptions, IngestConfig};
use crate::route::cost::{prices_for_model, CostModel};
use crate::route::{Prices, RouteOptions};
use crate::shard::ShardSpec;
use crate::sink::{Secret, SinkConfig, DEFAULT_BATCH_SIZE};
use crate::tree::source::ReadOptions;
use anyhow::{bail, Context};
use std::path::{Path, PathBuf};

const AFTER_HELP: &str = "\
Examples:
  # Offline: rules extractor, graph written to files under reports/<batch>/graph/
  kgroute ingest fixtures/ --index indices/credit_agreement.yaml

  # The same, with the neo4j-admin import files for a bulk load
  kgroute ingest fixtures/ --index indices/credit_agreement.yaml --import-files

  # An OpenAI-compatible LLM and a Neo4j server
  KGROUTE_LLM_URL=http://127.0.0.1:8000/v1 KGROUTE_MODEL=qwen2.5-7b-instruct \\
    kgroute ingest contracts/ --index indices/credit_agreement.yaml --neo4j bolt://127.0.0.1:7687

  # Finish an interrupted batch
  kgroute ingest contracts/ --index indices/credit_agreement.yaml --out reports/batch-1 --resume

Outputs in --out: sections.csv and sections.xlsx (the mismatch report, with
an empty `decision` column for `kgroute review`), summary.md, summary.json,
report-meta.json, suggestions.yaml, register.csv, register.xlsx and
register.jsonl (one row per contract: `kgroute contracts`), manifest.json
(what --resume reads), docs/ (per-document results), search/ (what `kgroute
ask` searches) and graph/ (the offline sink: parts/, one compressed file of
graph lines per document; nodes.csv and relationships.csv with
--import-files). `kgroute export` prints the graph's lines or writes the
import files from a batch later. The batch's line goes to reports/history.csv (--history).
Exit code: 0 all done, 1 finished but some documents or sections failed,
2 nothing done (configuration error or unreachable service).";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct IngestArgs {
    #[command(flatten)]
    pub docs: DocumentArgs,
    #[command(flatten)]
    pub routing: RoutingArgs,
    #[command(flatten)]
    pub request: RequestArgs,
    /// Output folder [default: reports/<batch-id>/].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Batch history file that gets one row per batch.
    #[arg(long, value_name = "CSV", default_value = "reports/history.csv")]
    pub history: PathBuf,
    /// Most LLM requests in flight at once, across all documents.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub concurrency: usize,
    /// Documents processed at once (their sections share --concurrency).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub documents_in_flight: usize,
    /// OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 [env: KGROUTE_LLM_URL].
    /// Without it the offline rules extractor runs. The key comes from OPENAI_API_KEY.
    #[arg(long, value_name = "URL")]
    pub llm_url: Option<String>,
    /// Model name [env: KGROUTE_MODEL].
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// What the LLM does. `extract`: it reads the routed sections whole
    /// (the rules read the rest). `verify`: the offline rules read every
    /// section and the LLM answers one closed question per candidate clause
    /// kind (a few hundred tokens each); its answers decide the kinds its
    /// calibration trusts it with and are recorded in register.jsonl
    /// (`verify`) either way.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = crate::extract::verify::LlmMode::Extract)]
    pub llm_mode: crate::extract::verify::LlmMode,
    /// With --llm-mode verify: the model's calibration, the clause kinds its
    /// answers decide (written by `kgroute verify calibrate`) [default:
    /// <index folder>/verify/<model>.tsv when it exists; without one the
    /// answers decide nothing].
    #[arg(long, value_name = "TSV")]
    pub verify_calibration: Option<PathBuf>,
    /// Longest wait without progress in one LLM request, in seconds: for
    /// the reply, the prompt's reading, the first token and between tokens
    /// (answers are streamed). Not a bound on the whole answer, so a slow
    /// CPU server that keeps producing is never cut off.
    #[arg(long, value_name = "SECS", default_value_t = crate::llm::config::DEFAULT_IDLE_SECS)]
    pub timeout: u64,
    /// `max_tokens` of every extraction request [default: from the
    /// section's size, the model's context and --output-cap]. An answer cut
    /// there is never re-sent: its piece is split in two and both asked.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// Bound on the time for one section piece, attempts and waits together:
    /// no new attempt starts past it (an answer in progress is bounded by
    /// --timeout and --max-tokens).
    #[arg(long, value_name = "SECS", default_value_t = 180)]
    pub section_timeout: u64,
    /// Stop sending after this many transport failures in a row (timeouts,
    /// refused or reset connections); the rest fail as `endpoint unavailable`
    /// and a later --resume sends them.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub breaker_after: u32,
    /// Neo4j Bolt URI, e.g. bolt://127.0.0.1:7687 [env: NEO4J_URI]. Without
    /// it the graph goes to import files. User and password come from
    /// NEO4J_USERNAME and NEO4J_PASSWORD.
    #[arg(long = "neo4j", value_name = "URI")]
    pub neo4j: Option<String>,
    /// Offline: also write graph/nodes.csv and graph/relationships.csv,
    /// the neo4j-admin import files, at the end (`kgroute export BATCH
    /// --import-files` writes them later). Once a batch has them, a resume
    /// keeps them current.
    #[arg(long)]
    pub import_files: bool,
    /// Neo4j database name [default: the server's default].
    #[arg(long, value_name = "NAME")]
    pub neo4j_database: Option<String>,
    /// Rows per UNWIND statement when writing to Neo4j.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BATCH_SIZE)]
    pub batch_size: usize,
    /// Finish an interrupted batch in --out (or the newest batch in reports/):
    /// written documents are not redone, failed sections are sent again,
    /// cached sections cost nothing. Refused when the index, the model or
    /// --no-llm-match differs from the batch's.
    #[arg(long)]
    pub resume: bool,
    /// Only plan: print what would be sent and what it would cost (= `kgroute plan`).
    #[arg(long)]
    pub dry_run: bool,
    /// Stop sending new sections when the estimated spend would pass this
    /// many US dollars (needs a price: --price-in/--price-out, --prices, or
    /// the model in config/prices.yaml).
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
    #[command(flatten)]
    pub price: PriceArgs,
    /// LLM answer cache folder.
    #[arg(long, value_name = "DIR", default_value = "reports/cache")]
    pub cache_dir: PathBuf,
    /// Do not read or write the LLM answer cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Do not ask the LLM to map the titles the offline matcher left
    /// unmatched. With an LLM configured, each document's unmatched titles
    /// (names and breadcrumbs, never section text) go to it in one request
    /// (cached under --cache-dir/titles/) and are routed by the entry it
    /// names (method `llm` in sections.csv); a failed or garbage answer
    /// leaves them new. Its calls and tokens are counted apart in the summary.
    #[arg(long)]
    pub no_llm_match: bool,
    /// No progress output (errors and the final summary line still print).
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(args: IngestArgs) -> anyhow::Result<Outcome> {
    if args.dry_run {
        return super::plan::run(super::plan::PlanArgs {
            docs: args.docs,
            routing: args.routing,
            request: args.request,
            out: args.out,
            format: super::plan::PlanFormat::Table,
            price: args.price,
            model: args.model,
            llama_cpp: false,
            slots: 1,
            llm_mode: args.llm_mode,
        });
    }
    crate::clause_model::active().map_err(|e| anyhow::anyhow!("{e}"))?;
    let cfg = ingest_config(args)?;
    let unlistable = cfg.unlistable.clone();
    let cost_unknown = cfg.extractor.llm.is_some() && cfg.cost.prices().is_none();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let out_dir = cfg.out_dir.clone();
    let started = std::time::SystemTime::now();
    let result = match runtime.block_on(run_batch(cfg)) {
        Ok(r) => r,
        // Documents were written before the failure (a full disk while
        // writing the reports): the batch is resumable and partly done,
        // which is exit code 1, not the 2 of a run that made nothing.
        // A run refused by another run's lock did nothing, whatever that
        // run has written meanwhile: exit 2 with the lock's own hint.
        // A full disk stops the batch at its first failed write: exit 2,
        // and the way on once space is freed.
        Err(e) if crate::atomic_file::is_disk_full(&e) => {
            crate::atomic_file::remove_own_temps(&out_dir);
            return Err(e.context(format!(
                "the disk is full; the batch stopped at its first failed write; free space, \
                 then finish it with the same command and --resume (documents written so far \
                 are kept) in {}",
                out_dir.display()
            )));
        }
        Err(e)
            if !crate::lock::is_held(&e)
                && crate::atomic_file::written_since(&out_dir.join("docs"), started) =>
        {
            eprintln!("kgroute: {e:#}");
            eprintln!(
                "kgroute: the batch in {} is partly written; fix the cause and finish it with --resume",
                out_dir.display()
            );
            return Ok(Outcome::PartialFailure);
        }
        Err(e) => return Err(e),
    };
    if result.nothing_to_do {
        crate::stdout::line(format_args!(
            "batch {}: already finished, nothing to redo; no file changed",
            result.summary.batch_id
        ));
    }
    let headline = result.summary.headline();
    match headline.rsplit_once(", $") {
        // An LLM without a price: the spend is unknown, not $0.
        Some((head, _)) if cost_unknown => {
            crate::stdout::line(format_args!("{head}, cost unknown"))
        }
        _ => crate::stdout::line(&headline),
    }
    if let Some(bill) = crate::report::summary::bill_line(&result.summary.totals) {
        crate::stdout::line(&bill);
    }
    crate::stdout::line(format_args!("reports: {}", result.out_dir.display()));
    for f in &result.summary.unknown_families {
        eprintln!(
            "kgroute: {}",
            crate::report::sanitize_title(&f.line(&result.out_dir.display().to_string()))
        );
    }
    for e in &unlistable {
        eprintln!("kgroute: error: {e}; its documents are not in this batch");
    }
    Ok(
        if result.failed_documents + result.failed_sections > 0 || !unlistable.is_empty() {
            Outcome::PartialFailure
        } else {
            Outcome::Success
        },
    )
}

/// Step one: checks what was typed, without I/O or the environment. Every
/// problem is returned, not only the first.
fn check_values(a: &IngestArgs) -> Vec<String> {
    let mut problems: Vec<String> = Vec::new();
    if !(0.0..=1.0).contains(&a.routing.audit_rate) {
        problems.push(format!(
            "--audit-rate must be between 0 and 1, e.g. --audit-rate 0.05; got {}",
            a.routing.audit_rate
        ));
    }
    if a.concurrency == 0 {
        problems.push("--concurrency must be at least 1, e.g. --concurrency 8".into());
    }
    if a.documents_in_flight == 0 {
        problems
            .push("--documents-in-flight must be at least 1, e.g. --documents-in-flight 4".into());
    }
    if a.batch_size == 0 {
        problems.push("--batch-size must be at least 1, e.g. --batch-size 2000".into());
    }
    if a.timeout == 0 {
        problems.push("--timeout must be at least 1 second, e.g. --timeout 120".into());
    }
    if a.max_tokens == Some(0) {
        problems.push("--max-tokens must be at least 1, e.g. --max-tokens 2048".into());
    }
    if a.request.context_tokens.is_some_and(|c| c < 512) {
        problems.push("--context-tokens must be at least 512, e.g. --context-tokens 8192".into());
    }
    if a.max_cost.is_some_and(|c| !(c >= 0.0 && c.is_finite())) {
        problems.push("--max-cost must be a non-negative number of USD, e.g. --max-cost 5".into());
    }
    if a.section_timeout == 0 {
        problems
            .push("--section-timeout must be at least 1 second, e.g. --section-timeout 180".into());
    }
    if a.docs.max_bytes == 0 {
        problems.push("--max-bytes must be at least 1, e.g. --max-bytes 67108864".into());
    }
    problems
}

/// Step two: the environment and the file system (the documents, the index
/// files, the batch folder), on top of step one's problems; every problem
/// is reported at once.
fn ingest_config(a: IngestArgs) -> anyhow::Result<IngestConfig> {
    let mut problems = check_values(&a);
    let llm = match LlmConfig::from_env_and_flags(a.llm_url.clone(), a.model.clone()) {
        Ok(l) => l,
        Err(e) => {
            problems.push(format!("{e:#}"));
            None
        }
    };
    check_cache(&a, llm.is_some(), &mut problems);
    let model = llm.as_ref().map(|l| l.model.clone()).or(a.model.clone());
    let prices = match a.price.resolve(model.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            problems.push(format!("{e:#}"));
            None
        }
    };
    let shard = match ShardSpec::resolve(a.docs.shard.as_deref(), |k| std::env::var(k).ok()) {
        Ok(s) => s,
        Err(e) => {
            problems.push(e);
            None
        }
    };
    let out_dir = out_dir_of(&a, &mut problems);
    // Then what needs the file system: the documents (never the batch's
    // own folder, when --out lies inside an input folder), the index files.
    let opts = DiscoverOptions {
        follow_outside: a.docs.follow_outside,
        exclude: out_dir.clone(),
    };
    let discovery = match discover_with(&a.docs.inputs, &opts) {
        Ok(d) => d,
        Err(e) => {
            problems.push(format!("{e:#}"));
            Default::default()
        }
    };
    for idx in &a.docs.index {
        if !idx.is_file() && !idx.is_dir() {
            problems.push(format!(
                "{}: index file or folder not found (e.g. --index indices/credit_agreement.yaml)",
                idx.display()
            ));
        }
    }
    if !problems.is_empty() {
        bail!("invalid configuration:\n  - {}", problems.join("\n  - "));
    }
    let out_dir = out_dir.expect("checked above");

    let calibration = match verify_calibration(&a, llm.as_ref()) {
        Ok(c) => c,
        Err(e) => bail!("invalid configuration:\n  - {e:#}"),
    };
    let mut llm = llm;
    let prices = settle_prices(&mut llm, prices);
    if let (Some(limit), Some(l), None) = (a.max_cost, &llm, prices) {
        bail!(
            "invalid configuration:\n  - --max-cost {limit} needs a price for model `{}`: add --price-in/--price-out, or --prices config/prices.yaml with a row for the model",
            l.model
        );
    }
    if let Some(l) = llm.as_mut() {
        l.timeout = std::time::Duration::from_secs(a.timeout);
        l.max_tokens = a.max_tokens;
        l.context_tokens = a.request.context_tokens;
        l.section_timeout = std::time::Duration::from_secs(a.section_timeout);
        l.breaker_after = a.breaker_after;
    }
    for note in &discovery.notes {
        eprintln!("kgroute: note: {note}");
    }
    for w in &discovery.warnings {
        eprintln!("kgroute: warning: {w}");
    }
    let cost = CostModel::new(llm.as_ref().map(|l| l.model.as_str()), prices);
    let sink = sink_config(&a, &out_dir);
    let batch_id = out_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(new_batch_id);
    Ok(IngestConfig {
        documents: match &shard {
            Some(s) => crate::shard::documents_of(s, discovery.documents),
            None => discovery.documents,
        },
        shard,
        skipped: discovery.skipped,
        unlistable: discovery.unlistable,
        index_files: a.docs.index,
        doc_type: a.docs.doc_type,
        // Verifying reads every section offline: routing spends nothing,
        // so titles are not worth a request.
        llm_match: !a.no_llm_match && a.llm_mode == crate::extract::verify::LlmMode::Extract,
        batch_id,
        history_file: a.history,
        route: RouteOptions {
            calibrate: a.routing.calibrate,
            audit_rate: a.routing.audit_rate,
            content: !a.routing.titles_only,
        },
        extractor: ExtractorConfig {
            llm,
            concurrency: a.concurrency,
            cache_dir: Some(a.cache_dir),
            use_cache: !a.no_cache,
            pack_tokens: a.request.pack_tokens,
            verify_share: a.request.verify_share / 100.0,
            mode: a.llm_mode,
            calibration,
            ..ExtractorConfig::default()
        },
        sink,
        resume: a.resume,
        max_cost_usd: a.max_cost,
        cost,
        quiet: a.quiet,
        read: ReadOptions {
            lossy: a.docs.lossy,
            max_bytes: a.docs.max_bytes,
        },
        document_parallelism: a.documents_in_flight,
        out_dir,
    })
}

/// The calibration verify mode applies: `--verify-calibration`, else the
/// model's file in the index folder's `verify/`, else none. A file learned
/// for another model is refused: its trust says nothing of this one.
fn verify_calibration(
    a: &IngestArgs,
    llm: Option<&LlmConfig>,
) -> anyhow::Result<Option<crate::extract::verify::Calibration>> {
    use crate::extract::verify::{Calibration, LlmMode};
    if a.llm_mode != LlmMode::Verify {
        if let Some(p) = &a.verify_calibration {
            bail!(
                "--verify-calibration {} needs --llm-mode verify",
                p.display()
            );
        }
        return Ok(None);
    }
    let Some(llm) = llm else {
        bail!("--llm-mode verify needs an LLM: --llm-url URL (or KGROUTE_LLM_URL) and --model NAME (or KGROUTE_MODEL)");
    };
    let path = match &a.verify_calibration {
        Some(p) => p.clone(),
        None => {
            let dir = a.docs.index.iter().find(|p| p.is_dir());
            match dir.map(|d| d.join("verify").join(Calibration::file_name(&llm.model))) {
                Some(p) if p.is_file() => p,
                _ => return Ok(None),
            }
        }
    };
    let c = Calibration::load(&path)?;
    if c.model != llm.model {
        bail!(
            "{}: a calibration of model `{}`, not of `{}`: run `kgroute verify calibrate` for this model, or give its own file with --verify-calibration",
            path.display(),
            c.model,
            llm.model
        );
    }
    Ok(Some(c))
}

/// The batch folder: `--out`, else a new one under reports/, else (with
/// `--resume`) the newest batch there.
fn out_dir_of(a: &IngestArgs, problems: &mut Vec<String>) -> Option<PathBuf> {
    match (&a.out, a.resume) {
        (Some(o), _) => Some(o.clone()),
        (None, false) => Some(PathBuf::from("reports").join(new_batch_id())),
        (None, true) => match newest_batch(Path::new("reports")) {
            Some(d) => Some(d),
            None => {
                problems.push("--resume found no batch under reports/ to resume; give the batch folder with --out".into());
                None
            }
        },
    }
}

/// With an LLM, the answer cache must be writable (unless `--no-cache`):
/// a cache that cannot be written makes every re-run pay again.
fn check_cache(a: &IngestArgs, uses_llm: bool, problems: &mut Vec<String>) {
    if uses_llm && !a.no_cache {
        if let Err(e) = crate::llm::cache::Cache::new(&a.cache_dir).check_writable() {
            problems.push(format!(
                "--cache-dir {}: the LLM answer cache cannot be written ({e:#}); fix its \
                 permissions or give another --cache-dir, or add --no-cache to run without one \
                 (every re-run then pays for every section again)",
                a.cache_dir.display()
            ));
        }
    }
}

/// One price for the LLM client and the budget: flags or a prices table
/// win over KGROUTE_PRICE_IN/OUT, which win over the model's row in
/// config/prices.yaml. `None`: unknown.
fn settle_prices(llm: &mut Option<LlmConfig>, prices: Option<Prices>) -> Option<Prices> {
    match (llm, prices) {
        (Some(l), Some(p)) => {
            l.price_in_per_mtok = p.input_per_million;
            l.price_out_per_mtok = p.output_per_million;
            Some(p)
        }
        (Some(l), None) if l.price_in_per_mtok > 0.0 || l.price_out_per_mtok > 0.0 => {
            Some(Prices {
                input_per_million: l.price_in_per_mtok,
                output_per_million: l.price_out_per_mtok,
            })
        }
        (Some(l), None) => {
            let table = Path::new(DEFAULT_PRICES);
            let p = table
                .is_file()
                .then(|| prices_for_model(table, &l.model).ok())
                .flatten();
            if let Some(p) = p {
                l.price_in_per_mtok = p.input_per_million;
                l.price_out_per_mtok = p.output_per_million;
            }
            p
        }
        (None, p) => p,
    }
}

/// Neo4j when `--neo4j` or NEO4J_URI names one (credentials from the
/// environment only), else graph files in the batch folder.
fn sink_config(a: &IngestArgs, out_dir: &Path) -> SinkConfig {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    match a.neo4j.clone().or_else(|| env("NEO4J_URI")) {
        Some(uri) => SinkConfig::Neo4j {
            uri,
            user: env("NEO4J_USERNAME").unwrap_or_else(|| "neo4j".into()),
            password: Secret::new(env("NEO4J_PASSWORD").unwrap_or_default()),
            database: a.neo4j_database.clone(),
            batch_size: a.batch_size,
        },
        None => SinkConfig::Files {
            dir: out_dir.join("graph"),
            import_files: a.import_files,
        },
    }
}

/// The prices table read when no price is given.
const DEFAULT_PRICES: &str = "config/prices.yaml";

/// `batch-20261201T224000Z-4242`: the start time (so names sort by age)
/// and the process id, so two ingests started in the same second on one
/// machine get two folders (they shared one before).
fn new_batch_id() -> String {
    format!(
        "batch-{}-{}",
        chrono::Utc::now().format("%Y%m%dT%H%M%SZ"),
        std::process::id()
    )
}

/// The most recently modified batch folder (one with a manifest) under `dir`.
fn newest_batch(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.path()
                .join(crate::pipeline::manifest::MANIFEST_FILE)
                .is_file()
        })
        .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok())
        .map(|e| e.path())
}
