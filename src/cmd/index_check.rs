//! `kgroute index check <YAML>...`: validates index files (a base and its
//! overlays) and prints every problem with file:line:column and its fix.

use super::Outcome;
use crate::index::{check_files, GraphabilityIndex};
use std::path::PathBuf;

/// Arguments of `kgroute index check`.
const AFTER_HELP: &str = "\
Examples:
  kgroute index check indices/credit_agreement.yaml
  kgroute index check indices/credit_agreement.yaml indices/overlays/acme_bank.yaml
  kgroute index check indices/          (every index of the folder, each on its own)

Reports every problem at once, each as FILE:LINE:COLUMN with the fix.
Exit 0 when valid, 1 when any problem is found, 2 when a file named is
not there (nothing is checked).";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct IndexCheckArgs {
    /// Index files: a base first, then overlays (later files win). Bases
    /// named by `extends:` are checked too. A single folder checks every
    /// `*.yaml` in it as an index of its own (what `--index DIR` loads).
    #[arg(required = true, value_name = "YAML")]
    pub files: Vec<PathBuf>,
}

/// Prints `ok` with a summary (exit 0) or every problem (exit 1).
pub fn run(args: IndexCheckArgs) -> anyhow::Result<Outcome> {
    // A path that is not there is a mistyped argument, not a problem of an
    // index: fatal, as README's exit codes say.
    if let Some(missing) = args.files.iter().find(|f| !f.exists()) {
        anyhow::bail!(
            "{}: no such index file; nothing was checked",
            missing.display()
        );
    }
    if let [dir] = args.files.as_slice() {
        if dir.is_dir() {
            let files = crate::index::doctype::index_files(dir)?;
            if files.is_empty() {
                anyhow::bail!("{}: no index (*.yaml) in this folder", dir.display());
            }
            let mut worst = Outcome::Success;
            for f in files {
                if run_one(vec![f])? != Outcome::Success {
                    worst = Outcome::PartialFailure;
                }
            }
            return Ok(worst);
        }
    }
    run_one(args.files)
}

fn run_one(files: Vec<PathBuf>) -> anyhow::Result<Outcome> {
    let problems = check_files(&files);
    if problems.is_empty() {
        let index = GraphabilityIndex::load(&files)?;
        let mut per_tier = Vec::new();
        for t in crate::index::Tier::ALL {
            let n = index.entries().iter().filter(|e| e.tier == t).count();
            per_tier.push(format!("{} {n}", t.key()));
        }
        println!(
            "ok: {} ({}), {} entries ({}), {} anchors, {} noise titles, from {}",
            index.document_type,
            index.version,
            index.entries().len(),
            per_tier.join(", "),
            index.anchors().len(),
            index.noise().len(),
            index
                .sources
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" + ")
        );
        return Ok(Outcome::Success);
    }
    for p in &problems {
        eprintln!("error: {p}");
    }
    eprintln!("{} problem(s) found", problems.len());
    Ok(Outcome::PartialFailure)
}
