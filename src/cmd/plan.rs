//! `kgroute plan <FILE|DIR>... --index <YAML>...`: the routing plan of a
//! batch, with no LLM and no network. For every section: node id,
//! breadcrumb, chars, matched entry, method and score, predicted tier and
//! route; per document and for the batch: sections by tier, new-section
//! share, chars sent/skipped, payload cut, tokens and estimated cost.
//! Writes `plan.csv` and `plan.json` under `--out`.

use super::batch_args::{DocumentArgs, RequestArgs, RoutingArgs};
use super::prices::PriceArgs;
use super::Outcome;
use crate::extract::bill::{document_bill, BillOptions};
use crate::extract::extractor::{
    llm_section_inputs, rules_reading, section_inputs, skipped_section_inputs,
    whole_document_input, DocContext,
};
use crate::extract::verify::LlmMode;
use crate::extract::ExtractionProfile;
use crate::index::IndexSet;
use crate::pipeline::document::{plan_all, Planned};
use crate::report::sanitize_title;
use crate::route::cost::{CostModel, RequestBill};
use crate::route::export::{self, DocumentPlan, PlanFailure};
use crate::route::{PlanStats, RouteOptions, RoutePlan};
use crate::tree::source::ReadOptions;
use crate::tree::SourceText;
use anyhow::{bail, Context};
use std::io::Write;
use std::path::PathBuf;

/// How the plan is printed on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanFormat {
    Table,
    Json,
    Csv,
}

/// Arguments of `kgroute plan`.
const AFTER_HELP: &str = "\
Examples:
  kgroute plan fixtures/                       # indices/ folder: type detected per document
  kgroute plan lease.txt --doc-type lease
  kgroute plan fixtures/ --index indices/credit_agreement.yaml
  kgroute plan contracts/ --index indices/credit_agreement.yaml \\
      --index indices/overlays/acme_bank.yaml --prices config/prices.yaml \\
      --model gpt-4o-mini --format csv > plan.csv
  kgroute plan contract.txt --index indices/credit_agreement.yaml --audit-rate 0.05

Routes: Very High, High, Medium and unknown titles -> llm; Low, Very Low -> skip;
tables of contents and signature pages -> noise; headings without text -> empty.
Always writes plan.csv and plan.json under --out.

plan never calls an LLM, not even for title mapping: titles the offline
matcher leaves unmatched are new (sent) here. `ingest` with an LLM may map
some of them to entries (method `llm`) and skip the Low / Very Low ones, so
plan's sent chars and cost are an upper bound of what ingest sends.

The input estimate counts the requests ingest builds: a document's routed
sections packed up to --pack-tokens a request, each request the system
message (the same for every request of a type: a prompt cache bills it
once), the schema where the server bills it, and the sections with their
breadcrumbs; beside it, each document sent whole in one request with the
same prompt. Answers cut and asked again in halves, and the title mapping,
are not in it.

With --llm-mode verify, every section is read by the offline rules (as
ingest does in that mode, so the plan takes longer) and the bill is the
closed questions' requests, one per section with any, beside what
--llm-mode extract would send for the same documents.";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct PlanArgs {
    #[command(flatten)]
    pub docs: DocumentArgs,
    #[command(flatten)]
    pub routing: RoutingArgs,
    #[command(flatten)]
    pub request: RequestArgs,
    /// Folder for plan.csv and plan.json [default: reports/plan-<timestamp>/].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = PlanFormat::Table)]
    pub format: PlanFormat,
    #[command(flatten)]
    pub price: PriceArgs,
    /// Model to price from --prices; its tokenizer counts the tokens
    /// (chars / 4 for a model tiktoken does not know).
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// The server is llama.cpp (scripts/llm): it takes the output schema
    /// as a grammar, so the schema is not counted as prompt tokens.
    #[arg(long)]
    pub llama_cpp: bool,
    /// The llama.cpp server's parallel slots (scripts/llm: 2; the server
    /// says it at run time): each document's sections are spread over
    /// them, since their prompts cost time, not money. With --llama-cpp.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "llama_cpp")]
    pub slots: u32,
    /// What the LLM will be asked to do: `extract` counts the routed
    /// sections' extraction requests; `verify` reads every section with
    /// the offline rules (as ingest does in that mode) and counts the
    /// closed questions it will ask, beside what extract would send.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = LlmMode::Extract)]
    pub llm_mode: LlmMode,
}

/// Validated settings (no I/O yet).
struct PlanConfig {
    opts: RouteOptions,
}

impl PlanConfig {
    fn from_args(a: &PlanArgs) -> anyhow::Result<Self> {
        if !(0.0..=1.0).contains(&a.routing.audit_rate) {
            bail!(
                "--audit-rate must be between 0 and 1, got {}; e.g. --audit-rate 0.05 sends 5% of skipped sections",
                a.routing.audit_rate
            );
        }
        Ok(Self {
            opts: RouteOptions {
                calibrate: a.routing.calibrate,
                audit_rate: a.routing.audit_rate,
                content: !a.routing.titles_only,
            },
        })
    }
}

/// Loads the index, plans every document (a bad one is reported and the
/// batch goes on: exit 1), writes plan.csv and plan.json, prints the plan.
pub fn run(args: PlanArgs) -> anyhow::Result<Outcome> {
    let cfg = PlanConfig::from_args(&args)?;
    let prices = args.price.resolve(args.model.as_deref())?;
    let set = IndexSet::load(&args.docs.index)?;
    if let Some(t) = &args.docs.doc_type {
        if set.get(t).is_none() {
            bail!(
                "--doc-type {t}: no index of that type; loaded types: {}",
                set.names().join(", ")
            );
        }
    }
    let found = discover_documents(&args)?;
    let read = ReadOptions {
        lossy: args.docs.lossy,
        max_bytes: args.docs.max_bytes,
    };

    let cost = CostModel::new(args.model.as_deref(), prices);
    let bill_opts = bill_options(&args)?;
    let mut profiles = Profiles::new(&set, args.docs.doc_type.as_deref());
    let header = plan_header(&set, &cfg.opts, prices);

    // plan.csv, plan.json and stdout are written as each document is
    // planned: memory holds one document's plan and every document's
    // counts, whatever the batch's size.
    let out_dir = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("reports").join(format!(
            "plan-{}",
            chrono::Utc::now().format("%Y%m%dT%H%M%SZ")
        ))
    });
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("{}: cannot create output folder", out_dir.display()))?;
    let create = |name: &str| -> anyhow::Result<(PathBuf, std::io::BufWriter<std::fs::File>)> {
        let path = out_dir.join(name);
        let file = std::fs::File::create(&path)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        Ok((path, std::io::BufWriter::new(file)))
    };
    let (csv_path, csv_file) = create("plan.csv")?;
    let (json_path, json_file) = create("plan.json")?;
    let (paragraphs_path, paragraphs_file) = create("paragraphs.csv")?;
    let mut paragraphs_out = export::ParagraphsWriter::new(paragraphs_file);
    let mut csv_out = export::CsvPlanWriter::new(csv_file);
    let mut json_out = export::JsonPlanWriter::begin(json_file, &header)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut printer = match args.format {
        PlanFormat::Json => Printer::Json(export::JsonPlanWriter::begin(&mut out, &header)?),
        PlanFormat::Csv => Printer::Csv(Box::new(export::CsvPlanWriter::new(&mut out))),
        PlanFormat::Table => Printer::Table(&mut out),
    };

    let mut all_stats: Vec<PlanStats> = Vec::new();
    let mut failures = Vec::new();
    for (path, planned) in plan_all(
        found.documents,
        &read,
        &set,
        args.docs.doc_type.as_deref(),
        &cfg.opts,
    ) {
        match planned {
            Ok(Planned {
                source,
                plan,
                doc_type,
                tree,
            }) => {
                warn_document(&path, &doc_type, &plan);
                let mut stats = PlanStats::of(&plan, prices.as_ref());
                let bill = document_bill_of(
                    &plan,
                    &tree,
                    &source,
                    &mut profiles,
                    (&bill_opts, args.llm_mode),
                    &cost,
                )?;
                stats.apply_bill(bill, prices.as_ref());
                paragraphs_out
                    .document(&plan, &source, set.get(&plan.doc_type))
                    .with_context(|| format!("{}: cannot write", paragraphs_path.display()))?;
                // What is written shows the file's bytes.
                let doc = DocumentPlan {
                    path,
                    doc_type,
                    stats,
                    plan: plan.with_file_bytes(&source),
                };
                csv_out
                    .document(&doc)
                    .with_context(|| format!("{}: cannot write", csv_path.display()))?;
                json_out
                    .document(&doc)
                    .with_context(|| format!("{}: cannot write", json_path.display()))?;
                drop(source);
                printer.document(&doc)?;
                all_stats.push(doc.stats);
            }
            Err(e) => {
                eprintln!("kgroute: {}: {e:#}", path.display());
                failures.push(PlanFailure {
                    path,
                    error: format!("{e:#}"),
                });
            }
        }
    }
    let totals = PlanStats::sum(all_stats.iter(), prices.as_ref());
    drop(all_stats);
    csv_out
        .finish()
        .with_context(|| format!("{}: cannot write", csv_path.display()))?;
    paragraphs_out
        .finish()
        .with_context(|| format!("{}: cannot write", paragraphs_path.display()))?;
    json_out
        .finish(&failures, &totals)
        .with_context(|| format!("{}: cannot write", json_path.display()))?;

    finish_printer(
        printer,
        &failures,
        &totals,
        &cost,
        found.skipped.line(),
        (&csv_path, &json_path),
    )?;
    Ok(if failures.is_empty() && found.unlistable.is_empty() {
        Outcome::Success
    } else {
        Outcome::PartialFailure
    })
}

/// The documents the plan reads (this shard's, when `--shard`), with
/// discovery's notes, warnings and unlistable folders said on stderr.
fn discover_documents(args: &PlanArgs) -> anyhow::Result<crate::pipeline::Discovery> {
    let shard =
        crate::shard::ShardSpec::resolve(args.docs.shard.as_deref(), |k| std::env::var(k).ok())
            .map_err(anyhow::Error::msg)?;
    let opts = crate::pipeline::DiscoverOptions {
        follow_outside: args.docs.follow_outside,
        exclude: args.out.clone(),
    };
    let mut found = crate::pipeline::discover_with(&args.docs.inputs, &opts)?;
    for note in &found.notes {
        eprintln!("kgroute: note: {note}");
    }
    for w in &found.warnings {
        eprintln!("kgroute: warning: {w}");
    }
    for e in &found.unlistable {
        eprintln!("kgroute: error: {e}; its documents are not in this plan");
    }
    if let Some(s) = &shard {
        found.documents = crate::shard::documents_of(s, found.documents);
        eprintln!("kgroute: shard {s}: {} documents", found.documents.len());
    }
    Ok(found)
}

/// How requests are sized and billed, as ingest would send them.
fn bill_options(args: &PlanArgs) -> anyhow::Result<BillOptions> {
    if args.request.pack_tokens < 100 {
        bail!(
            "--pack-tokens must be at least 100, e.g. --pack-tokens {}; got {}",
            crate::extract::pack::DEFAULT_PACK_TOKENS,
            args.request.pack_tokens
        );
    }
    let share = args.request.verify_share;
    if !(share.is_finite() && share >= 0.0) {
        bail!(
            "--verify-share must be a percentage of 0 or more, e.g. --verify-share 15; got {share}"
        );
    }
    Ok(BillOptions {
        pack_tokens: args.request.pack_tokens,
        verify_share: share / 100.0,
        context_tokens: args.request.context_tokens,
        schema_billed: !args.llama_cpp,
        streams: args.slots.max(1),
        ..BillOptions::default()
    })
}

/// What plan.json says of the indices and settings the plan used.
fn plan_header(
    set: &IndexSet,
    opts: &RouteOptions,
    prices: Option<crate::route::Prices>,
) -> export::PlanHeader {
    export::PlanHeader {
        document_type: set.names().join(","),
        index_version: set
            .indices
            .iter()
            .map(|i| format!("{}={}", i.document_type, i.version))
            .collect::<Vec<_>>()
            .join(","),
        index_files: set.indices.iter().flat_map(|i| i.sources.clone()).collect(),
        calibrate: opts.calibrate,
        audit_rate: opts.audit_rate,
        prices,
    }
}

/// What a reviewer should know of a document before its plan: it fits no
/// index, its named type is not what it looks like, its headings read
/// badly.
fn warn_document(path: &std::path::Path, doc_type: &crate::index::DocTypeGuess, plan: &RoutePlan) {
    if doc_type.name == crate::index::doctype::UNKNOWN_TYPE {
        eprintln!(
            "kgroute: {}: fits no index (best: {} at {:.2}); routed with the base index only (cross-type boilerplate skipped, the rest sent as new)",
            sanitize_title(&path.display().to_string()),
            doc_type.runner_up.as_deref().unwrap_or("none"),
            doc_type.runner_up_confidence
        );
    }
    if let Some(d) = &doc_type.detected {
        eprintln!(
            "kgroute: warning: {}: routed with the index you named ({}), but detected as {d} (confidence {:.2})",
            sanitize_title(&path.display().to_string()),
            doc_type.name,
            doc_type.confidence
        );
    }
    if let Some(w) = plan.tree_health.warning(&plan.doc_name) {
        eprintln!("kgroute: warning: {}", sanitize_title(&w));
    }
}

/// The stdout printer's end: totals, cost, what discovery skipped and
/// where the files are (table), or the closing of the JSON or CSV.
fn finish_printer<W: Write>(
    printer: Printer<'_, W>,
    failures: &[PlanFailure],
    totals: &PlanStats,
    cost: &CostModel,
    skipped: Option<String>,
    (csv_path, json_path): (&std::path::Path, &std::path::Path),
) -> anyhow::Result<()> {
    match printer {
        Printer::Json(w) => {
            w.finish(failures, totals)?;
        }
        Printer::Csv(w) => w.finish()?,
        Printer::Table(out) => {
            print_totals(out, totals, failures)?;
            writeln!(out, "cost: {}", cost.describe())?;
            if let Some(line) = skipped {
                writeln!(out, "{line}")?;
            }
            writeln!(
                out,
                "wrote {} and {} (and paragraphs.csv beside them: the paragraphs routed by content)",
                csv_path.display(),
                json_path.display()
            )?;
            out.flush()?;
        }
    }
    Ok(())
}

/// Where stdout's copy of the plan goes, as documents are planned.
enum Printer<'a, W: Write> {
    Table(&'a mut W),
    Json(export::JsonPlanWriter<&'a mut W>),
    Csv(Box<export::CsvPlanWriter<&'a mut W>>),
}

impl<W: Write> Printer<'_, W> {
    fn document(&mut self, d: &DocumentPlan) -> anyhow::Result<()> {
        match self {
            Printer::Table(out) => print_document(*out, d)?,
            Printer::Json(w) => w.document(d)?,
            Printer::Csv(w) => w.document(d)?,
        }
        Ok(())
    }
}

/// The extraction profile of each document type, built once: its index's
/// ontology (the system message), or the primary index's for a document
/// of no known type, as ingest does.
struct Profiles<'a> {
    set: &'a IndexSet,
    forced: Option<&'a str>,
    built: std::collections::HashMap<String, ExtractionProfile>,
}

impl<'a> Profiles<'a> {
    fn new(set: &'a IndexSet, forced: Option<&'a str>) -> Self {
        Profiles {
            set,
            forced,
            built: Default::default(),
        }
    }

    fn of(&mut self, doc_type: &str) -> anyhow::Result<&ExtractionProfile> {
        if !self.built.contains_key(doc_type) {
            let index = match self.set.get(doc_type) {
                Some(i) => i.clone(),
                None => crate::pipeline::run::primary_index(self.set, self.forced),
            };
            let p = ExtractionProfile::new(index.ontology, index.density)
                .with_context(|| format!("index of type {doc_type}"))?;
            self.built.insert(doc_type.to_string(), p);
        }
        Ok(&self.built[doc_type])
    }
}

/// The requests ingest will send for one planned document (its routed
/// sections packed, with their parties), and the document sent whole; in
/// verify mode, its questions, with that extraction bill beside them.
fn document_bill_of(
    plan: &RoutePlan,
    tree: &crate::tree::DocTree,
    source: &SourceText,
    profiles: &mut Profiles,
    (opts, mode): (&BillOptions, LlmMode),
    cost: &CostModel,
) -> anyhow::Result<RequestBill> {
    let registry = crate::extract::rules::document_registry(plan, source);
    let doc = DocContext {
        doc_id: &plan.doc_id,
        doc_type: &plan.doc_type,
        source,
        parties: &tree.party_names,
        registry: &registry,
    };
    let whole = whole_document_input(&doc, &plan.doc_name);
    let profile = profiles.of(&plan.doc_type)?;
    let extract = document_bill(&llm_section_inputs(plan, &doc), &whole, profile, opts, cost);
    if mode == LlmMode::Extract {
        return Ok(extract);
    }
    // Verifying, the rules read every section whole.
    let mut read = section_inputs(plan, &doc);
    read.extend(skipped_section_inputs(plan, &doc));
    let readings: Vec<_> = read.iter().map(|i| rules_reading(profile, i)).collect();
    let asked = crate::extract::verify::bill::asked(
        &readings,
        &read,
        profile,
        crate::clause_model::active().ok(),
        opts,
        cost,
        extract.input_tokens,
    );
    Ok(crate::extract::verify::bill::document_bill(
        &asked, &read, profile, opts, cost, &extract,
    ))
}

/// Cuts a string to `n` characters, marking the cut.
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut c: String = s.chars().take(n.saturating_sub(1)).collect();
        c.push('…');
        c
    }
}

fn print_stats(out: &mut impl Write, label: &str, s: &PlanStats) -> std::io::Result<()> {
    let t = &s.by_tier;
    writeln!(
        out,
        "{label}: {} sections ({} routed: very_high {}, high {}, medium {}, low {}, very_low {}, new {} = {:.1}%; noise {}, empty {})",
        s.sections, s.routed_sections, t.very_high, t.high, t.medium, t.low, t.very_low, t.new,
        s.new_section_pct, s.noise_sections, s.empty_sections
    )?;
    write!(
        out,
        "{label}: chars total {}, sent {}, skipped {} ({:.1}%), noise {}, empty {}; LLM payload cut {:.1}%; ~{} input tokens",
        s.chars_total, s.chars_sent, s.chars_skipped, s.skipped_pct, s.chars_noise, s.chars_empty,
        s.payload_cut_pct, s.est_input_tokens
    )?;
    if let Some(c) = s.est_cost_usd {
        write!(out, ", ~${c:.4}")?;
    }
    if s.calibrate_overrides + s.audit_overrides > 0 {
        write!(
            out,
            "; overrides: calibrate {}, audit {}",
            s.calibrate_overrides, s.audit_overrides
        )?;
    }
    writeln!(out)?;
    if s.chars_skipped_by_content + s.chars_sent_by_content > 0 {
        writeln!(
            out,
            "{label}: by content (the clause model's paragraph scores): {} chars of sections titles send not sent, {} chars of sections titles skip sent (each paragraph in paragraphs.csv)",
            s.chars_skipped_by_content, s.chars_sent_by_content
        )?;
    }
    let b = &s.bill;
    if b.questions > 0 || b.extract_tokens > 0 {
        writeln!(
            out,
            "{label}: LLM verify {} request(s) for {} question(s){}, ~{} input tokens (the paragraphs asked about {}); `--llm-mode extract` would send ~{} input tokens, so verify sends {:.1}% of that",
            b.requests,
            b.questions,
            b.left_out_phrase(),
            b.input_tokens,
            b.text_tokens,
            b.extract_tokens,
            100.0 * b.vs_extract().unwrap_or(0.0)
        )?;
    } else if b.requests > 0 || b.whole_document_tokens > 0 {
        writeln!(
            out,
            "{label}: LLM {} request(s), ~{} input tokens: sections' text {}, prompt and framing {} (of which {} the prefix every request repeats: a prompt cache bills it at its cached rate); sent whole instead: ~{} tokens in {} request(s), so routing sends {:.0}% of that",
            b.requests,
            b.input_tokens,
            b.text_tokens,
            b.input_tokens - b.text_tokens,
            b.prefix_tokens,
            b.whole_document_tokens,
            s.documents,
            100.0 * b.vs_whole_documents()
        )?;
    }
    Ok(())
}

/// One document's block of the table.
fn print_document(out: &mut impl Write, d: &DocumentPlan) -> std::io::Result<()> {
    {
        writeln!(
            out,
            "== {} ({}) type {} (confidence {:.2})",
            d.plan.doc_name, d.plan.doc_id, d.doc_type.name, d.doc_type.confidence
        )?;
        writeln!(
            out,
            "{:<5} {:>8} {:<9} {:<5} {:<6} {:>5}  {:<34} BREADCRUMB",
            "NODE", "CHARS", "TIER", "ROUTE", "METHOD", "SCORE", "ENTRY"
        )?;
        for s in &d.plan.sections {
            let route = match s.override_reason {
                crate::route::Override::None => export::route_name(s.route).to_string(),
                o => format!(
                    "{}*{}",
                    export::route_name(s.route),
                    &export::override_name(o)[..1]
                ),
            };
            writeln!(
                out,
                "{:<5} {:>8} {:<9} {:<5} {:<6} {:>5.2}  {:<34} {}",
                s.node_id,
                s.chars,
                export::tier_label(s),
                route,
                format!("{:?}", s.matched.method).to_lowercase(),
                s.matched.score,
                clip(s.matched.entry.as_deref().unwrap_or("-"), 34),
                clip(&s.breadcrumb, 90)
            )?;
        }
        print_stats(out, "document", &d.stats)?;
        writeln!(out)?;
    }
    Ok(())
}

/// The table's last lines: the batch's counts and the failures.
fn print_totals(
    out: &mut impl Write,
    totals: &PlanStats,
    failures: &[PlanFailure],
) -> std::io::Result<()> {
    print_stats(
        out,
        &format!("batch of {} document(s)", totals.documents),
        totals,
    )?;
    for f in failures {
        writeln!(out, "failed: {}: {}", f.path.display(), f.error)?;
    }
    Ok(())
}
