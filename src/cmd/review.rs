//! `kgroute review <sections.csv|sections.xlsx> --index <YAML> [--write]`:
//! applies the reviewer's `decision` column to an index. Without `--write` it prints the
//! change as a unified diff and the version it would get; with `--write`
//! it validates the edit in memory, then replaces the file (keeping comments
//! and formatting) and moves its `version:`.

use super::Outcome;
use crate::review;
use std::io::Write;
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Decisions (the `decision` column of sections.csv or the drop-down of
sections.xlsx; blank = no change):
  add:<tier>       the section's heading becomes a new entry of <tier>
  alias:<entry>    the heading becomes an alias of the existing <entry>
  retier:<tier>    the section's matched entry moves to <tier>
  ignore           bespoke section; leave the index alone
Tiers: very_high, high, medium, low, very_low (or `Very High`, ...).

Examples:
  kgroute review reports/b1/sections.csv --index indices/credit_agreement.yaml
  kgroute review reports/b1/sections.csv --index indices/credit_agreement.yaml --write
  kgroute review reports/b1/sections.xlsx --index indices/credit_agreement.yaml --write";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct ReviewArgs {
    /// The reviewed `sections.csv` or `sections.xlsx` (from `kgroute
    /// ingest`; a CSV re-saved by a spreadsheet is fine).
    pub sections_csv: PathBuf,
    /// The index YAML to edit.
    #[arg(long, value_name = "YAML")]
    pub index: PathBuf,
    /// Edit the index in place instead of printing a diff.
    #[arg(long)]
    pub write: bool,
}

pub fn run(args: ReviewArgs) -> anyhow::Result<Outcome> {
    let result = review::review(&args.sections_csv, &args.index)?;
    let mut err = std::io::stderr().lock();
    for n in &result.notices {
        writeln!(err, "note: {n}")?;
    }
    for c in &result.changes {
        writeln!(err, "{c}")?;
    }
    if !result.changed() {
        writeln!(err, "no change to {}", args.index.display())?;
        return Ok(Outcome::Success);
    }
    let version = format!(
        "version {} -> {}",
        result.old_version.as_deref().unwrap_or("(none)"),
        result.new_version.as_deref().unwrap_or("(none)")
    );
    if args.write {
        review::write_index(&args.index, &result)?;
        writeln!(
            err,
            "wrote {} ({} change(s), {version}); it validates",
            args.index.display(),
            result.changes.len()
        )?;
    } else {
        let name = args.index.display().to_string();
        std::io::stdout()
            .lock()
            .write_all(result.diff(&name).as_bytes())?;
        writeln!(
            err,
            "dry run ({version}); the edit validates; add --write to apply"
        )?;
    }
    Ok(Outcome::Success)
}
