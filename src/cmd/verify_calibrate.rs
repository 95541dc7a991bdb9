//! `kgroute verify calibrate`: learns which clause kinds a model's answers
//! may decide, from a batch ingested with `--llm-mode verify` and the known
//! answers of its contracts (CUAD's `answers.json` form).

use super::Outcome;
use crate::extract::facts_vocabulary::{category_relation_type, is_clause_kind};
use crate::extract::verify::Calibration;
use crate::register::RegisterRow;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const AFTER_HELP: &str = "\
Examples:
  kgroute ingest tune/ --llm-mode verify --out reports/tune-verify
  kgroute verify calibrate --batch reports/tune-verify --truth cuad/answers.json
  kgroute ingest new/ --llm-mode verify      (reads indices/verify/<model>.tsv)

The truth file maps each contract's file name (or a path ending in it) to
its categories' answers: {\"supply/acme.txt\": {\"Non-Compete\": \"Yes\",
\"Audit Rights\": \"No\", ...}}; only Yes and No answers of clause kinds
count. A kind is trusted when, over these contracts, the model's reading
finds at least as many of its clauses as the offline reading, marks no more
wrongly, is strictly better in one of the two, finds at least one, and says
no rightly at least once (a model that says yes to everything has shown
nothing). Calibrate on contracts you will not judge the register on.

Exit 0 when written, 2 when the batch was not verified or nothing matched.";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct VerifyCalibrateArgs {
    /// A batch folder written by `ingest --llm-mode verify`.
    #[arg(long, value_name = "DIR")]
    pub batch: PathBuf,
    /// The contracts' known answers (CUAD answers.json form).
    #[arg(long, value_name = "JSON")]
    pub truth: PathBuf,
    /// Where to write the calibration [default: indices/verify/<model>.tsv].
    #[arg(long, value_name = "TSV")]
    pub out: Option<PathBuf>,
    /// Replace an existing calibration file (the old one is kept as .bak).
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: VerifyCalibrateArgs) -> Result<Outcome> {
    let rows = read_rows(&a.batch)?;
    let truth = read_truth(&a.truth)?;
    let mut model = None;
    let mut contracts = Vec::new();
    let mut unmatched = 0usize;
    for row in &rows {
        let Some(v) = &row.verify else {
            continue;
        };
        if model.get_or_insert_with(|| v.model.clone()) != &v.model {
            bail!(
                "{}: contracts verified by two models ({} and {}): calibrate one model's batch",
                a.batch.display(),
                model.unwrap_or_default(),
                v.model
            );
        }
        match truth_of(&truth, &row.path) {
            Some(t) => contracts.push((v.kinds.clone(), t)),
            None => unmatched += 1,
        }
    }
    let Some(model) = model else {
        bail!(
            "{}: no contract of this batch was verified: ingest it with --llm-mode verify (and an LLM)",
            a.batch.display()
        );
    };
    if contracts.is_empty() {
        bail!(
            "{}: none of the batch's {} verified contracts is in {}",
            a.batch.display(),
            unmatched,
            a.truth.display()
        );
    }
    let source = format!(
        "{} contracts of {} with answers in {}",
        contracts.len(),
        a.batch.display(),
        a.truth.display()
    );
    let c = Calibration::learn(&model, &source, &contracts);
    let out = a.out.clone().unwrap_or_else(|| {
        Path::new("indices")
            .join("verify")
            .join(Calibration::file_name(&model))
    });
    if out.exists() {
        if !a.force {
            bail!(
                "{}: a calibration is already there; --force replaces it (keeping it as .bak, or .bak.2, ... beside earlier copies)",
                out.display()
            );
        }
        let bak = crate::atomic_file::keep_copy(&out)
            .with_context(|| format!("{}: cannot keep a copy", out.display()))?;
        eprintln!(
            "kgroute: the old {} is kept as {}",
            out.display(),
            bak.display()
        );
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    crate::atomic_file::write_atomic(&out, c.to_text().as_bytes())?;
    println!(
        "{:<36} {:>8}  {:>17}  {:>17}",
        "clause kind", "decides", "offline tp/fp/fn", "model tp/fp/fn"
    );
    for (ty, k) in &c.kinds {
        println!(
            "{ty:<36} {:>8}  {:>17}  {:>17}",
            if k.trusted { "model" } else { "offline" },
            format!("{}/{}/{}", k.offline.tp, k.offline.fp, k.offline.fn_),
            format!("{}/{}/{}", k.model.tp, k.model.fp, k.model.fn_)
        );
    }
    println!(
        "{}: {} of {} clause kinds decided by {model} ({} contracts{})",
        out.display(),
        c.trusted().count(),
        c.kinds.len(),
        contracts.len(),
        if unmatched > 0 {
            format!("; {unmatched} verified contracts had no answers and were not counted")
        } else {
            String::new()
        }
    );
    Ok(Outcome::Success)
}

fn read_rows(batch: &Path) -> Result<Vec<RegisterRow>> {
    let path = batch.join("register.jsonl");
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "{}: cannot read the register (is it a batch folder?)",
            path.display()
        )
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            serde_json::from_str(l)
                .with_context(|| format!("{}:{}: not a register row", path.display(), n + 1))
        })
        .collect()
}

type Truth = BTreeMap<String, BTreeMap<String, serde_json::Value>>;

fn read_truth(path: &Path) -> Result<Truth> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: expected {{\"<file>\": {{\"<Category>\": \"Yes\"|\"No\", ...}}, ...}}",
            path.display()
        )
    })
}

/// A contract's clause-kind answers, by the file name its path ends in.
fn truth_of(truth: &Truth, path: &str) -> Option<BTreeMap<String, bool>> {
    let name = Path::new(path).file_name()?.to_string_lossy().into_owned();
    let (_, answers) = truth.iter().find(|(k, _)| {
        Path::new(k)
            .file_name()
            .is_some_and(|f| f.to_string_lossy() == name)
    })?;
    Some(
        answers
            .iter()
            .filter_map(|(cat, v)| {
                let ty = category_relation_type(cat);
                let yes = match v.as_str()?.trim().to_ascii_lowercase().as_str() {
                    "yes" => true,
                    "no" => false,
                    _ => return None,
                };
                is_clause_kind(&ty).then_some((ty, yes))
            })
            .collect(),
    )
}
