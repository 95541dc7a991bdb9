//! `kgroute plan <FILE|DIR>... --index <YAML>...`: the routing plan of a
//! batch, with no LLM and no network. For every section: node id,
//! breadcrumb, chars, matched entry, method and score, predicted tier and
//! route; per document and for the batch: sections by tier, new-section
//! share, chars sent/skipped, payload cut, tokens and estimated cost.
//! Writes `plan.csv` and `plan.json` under `--out`.

use super::Outcome;
use crate::index::GraphabilityIndex;
use crate::route::export::{self, BatchPlan, DocumentPlan, PlanFailure};
use crate::route::{plan_document, PlanStats, Prices, RouteOptions};
use anyhow::{bail, Context};
use std::io::Write;
use std::path::{Path, PathBuf};

/// How the plan is printed on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanFormat {
    Table,
    Json,
    Csv,
}

/// Arguments of `kgroute plan`.
#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    /// Documents or folders of documents (.md, .markdown, .txt; folders are
    /// walked recursively).
    #[arg(required = true, value_name = "FILE|DIR")]
    pub inputs: Vec<PathBuf>,
    /// Index YAML: a base, then overlays (repeat the flag; later files win).
    #[arg(long = "index", required = true, value_name = "YAML")]
    pub index: Vec<PathBuf>,
    /// Folder for plan.csv and plan.json [default: reports/plan-<timestamp>/].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = PlanFormat::Table)]
    pub format: PlanFormat,
    /// Send every section (except noise and empty ones) to measure actual tiers.
    #[arg(long)]
    pub calibrate: bool,
    /// Fraction (0..=1) of skipped sections sent anyway, picked
    /// deterministically from document and node ids.
    #[arg(long, value_name = "R", default_value_t = 0.0)]
    pub audit_rate: f64,
    /// Input price in USD per million tokens.
    #[arg(long, value_name = "USD")]
    pub price_in: Option<f64>,
    /// Output price in USD per million tokens.
    #[arg(long, value_name = "USD")]
    pub price_out: Option<f64>,
    /// Prices table YAML (`models: {name: {input_per_million, output_per_million}}`); needs --model.
    #[arg(long, value_name = "YAML", requires = "model")]
    pub prices: Option<PathBuf>,
    /// Model to price from --prices.
    #[arg(long, value_name = "NAME", requires = "prices")]
    pub model: Option<String>,
    /// Replace invalid UTF-8 instead of failing on it.
    #[arg(long)]
    pub lossy: bool,
}

/// Validated settings (no I/O yet).
struct PlanConfig {
    opts: RouteOptions,
    price_flags: Option<Prices>,
}

impl PlanConfig {
    fn from_args(a: &PlanArgs) -> anyhow::Result<Self> {
        if !(0.0..=1.0).contains(&a.audit_rate) {
            bail!(
                "--audit-rate must be between 0 and 1, got {}; e.g. --audit-rate 0.05 sends 5% of skipped sections",
                a.audit_rate
            );
        }
        for (flag, v) in [("--price-in", a.price_in), ("--price-out", a.price_out)] {
            if v.is_some_and(|p| !(p >= 0.0 && p.is_finite())) {
                bail!("{flag} must be a non-negative number of USD per million tokens, e.g. {flag} 0.15");
            }
        }
        if (a.price_in.is_some() || a.price_out.is_some()) && a.prices.is_some() {
            bail!("give either --price-in/--price-out or --prices with --model, not both");
        }
        let price_flags = match (a.price_in, a.price_out) {
            (None, None) => None,
            (i, o) => Some(Prices {
                input_per_million: i.unwrap_or(0.0),
                output_per_million: o.unwrap_or(0.0),
            }),
        };
        Ok(Self {
            opts: RouteOptions {
                calibrate: a.calibrate,
                audit_rate: a.audit_rate,
            },
            price_flags,
        })
    }
}

/// The documents named by the inputs, folders expanded and sorted.
pub fn expand_inputs(inputs: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .with_context(|| format!("{}: cannot read folder", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out)?;
            } else if matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("md" | "markdown" | "txt")
            ) {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for i in inputs {
        if i.is_dir() {
            walk(i, &mut out)?;
        } else if i.exists() {
            out.push(i.clone());
        } else {
            bail!("{}: no such file or folder", i.display());
        }
    }
    if out.is_empty() {
        bail!("no documents found (looked for .md, .markdown and .txt files)");
    }
    Ok(out)
}

/// Loads the index, plans every document (a bad one is reported and the
/// batch goes on: exit 1), writes plan.csv and plan.json, prints the plan.
pub fn run(args: PlanArgs) -> anyhow::Result<Outcome> {
    let cfg = PlanConfig::from_args(&args)?;
    let prices = match (&args.prices, &args.model) {
        (Some(p), Some(m)) => Some(crate::route::cost::prices_for_model(p, m)?),
        _ => cfg.price_flags,
    };
    let index = GraphabilityIndex::load(&args.index)?;
    let files = expand_inputs(&args.inputs)?;

    let mut documents = Vec::new();
    let mut failures = Vec::new();
    for path in files {
        match plan_document(&path, &index, &cfg.opts, args.lossy) {
            Ok((_, _, plan)) => {
                let stats = PlanStats::of(&plan, prices.as_ref());
                documents.push(DocumentPlan { path, stats, plan });
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
    let totals = PlanStats::sum(documents.iter().map(|d| &d.stats), prices.as_ref());
    let batch = BatchPlan {
        document_type: index.document_type.clone(),
        index_version: index.version.clone(),
        index_files: index.sources.clone(),
        calibrate: cfg.opts.calibrate,
        audit_rate: cfg.opts.audit_rate,
        prices,
        documents,
        failures,
        totals,
    };

    let out_dir = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("reports").join(format!(
            "plan-{}",
            chrono::Utc::now().format("%Y%m%dT%H%M%SZ")
        ))
    });
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("{}: cannot create output folder", out_dir.display()))?;
    let csv_path = out_dir.join("plan.csv");
    let file = std::fs::File::create(&csv_path)
        .with_context(|| format!("{}: cannot write", csv_path.display()))?;
    export::write_csv(std::io::BufWriter::new(file), &batch.documents)
        .with_context(|| format!("{}: cannot write", csv_path.display()))?;
    let json_path = out_dir.join("plan.json");
    std::fs::write(&json_path, serde_json::to_string_pretty(&batch)?)
        .with_context(|| format!("{}: cannot write", json_path.display()))?;

    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match args.format {
        PlanFormat::Json => writeln!(out, "{}", serde_json::to_string_pretty(&batch)?)?,
        PlanFormat::Csv => export::write_csv(&mut out, &batch.documents)?,
        PlanFormat::Table => {
            print_table(&mut out, &batch)?;
            writeln!(
                out,
                "wrote {} and {}",
                csv_path.display(),
                json_path.display()
            )?;
        }
    }
    out.flush()?;
    Ok(if batch.failures.is_empty() {
        Outcome::Success
    } else {
        Outcome::PartialFailure
    })
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
    writeln!(out)
}

fn print_table(out: &mut impl Write, b: &BatchPlan) -> std::io::Result<()> {
    for d in &b.documents {
        writeln!(out, "== {} ({})", d.plan.doc_name, d.plan.doc_id)?;
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
    print_stats(
        out,
        &format!("batch of {} document(s)", b.totals.documents),
        &b.totals,
    )?;
    for f in &b.failures {
        writeln!(out, "failed: {}: {}", f.path.display(), f.error)?;
    }
    Ok(())
}
