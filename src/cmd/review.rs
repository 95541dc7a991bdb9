//! `kgroute review <sections.csv|sections.xlsx> --index <YAML|DIR> [--write]`:
//! applies the reviewer's `decision` column to an index file, or, with a
//! folder of indices, each row's decision to the index of its `doc_type`.
//! Without `--write` it prints the change as a unified diff per file and the
//! version each would get; with `--write` it validates every edit in memory,
//! then replaces the files (keeping comments and formatting) and moves their
//! `version:`.

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

With a folder (the default `indices/`), each row's decision goes into the
index of the row's doc_type; rows of documents that fit no index (doc_type
`unknown`) are listed as not written (exit code 1) and stay in the report.
With one index file, only the rows of that index's document_type are
written; the others are listed the same way (a report without a doc_type
column gives every row to the file).

A plan's paragraphs.csv (routing by content) takes `send` or `skip` in its
`decision` column: the paragraph goes to the extractor, or is left out,
in every later plan and ingest of its document type, before its clause
score is read. The decisions are kept beside the type's index
(indices/commercial.yaml -> indices/commercial.paragraphs.tsv), each by
the fingerprint of the paragraph's words, so the same clause in another
contract of the family takes it too.

Examples:
  kgroute review reports/b1/sections.csv                      # indices/, by doc_type
  kgroute review reports/plan-1/paragraphs.csv --write        # beside indices/<type>.yaml
  kgroute review reports/b1/sections.csv --index indices/credit_agreement.yaml
  kgroute review reports/b1/sections.csv --index indices/credit_agreement.yaml --write
  kgroute review reports/b1/sections.xlsx --index indices/credit_agreement.yaml --write
  kgroute review reports/b1/sections.csv --index indices/servicing.yaml --doc-type servicing --write
                                   (rows of `unknown` documents into a new family's drafted index)";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct ReviewArgs {
    /// The reviewed `sections.csv` or `sections.xlsx` (from `kgroute
    /// ingest`; a CSV re-saved by a spreadsheet is fine), or a plan's
    /// `paragraphs.csv`.
    pub sections_csv: PathBuf,
    /// The index YAML to edit, or a folder of indices (one per document
    /// type) where each row's decision goes into its doc_type's index.
    #[arg(long, value_name = "YAML|DIR", default_value = "indices")]
    pub index: PathBuf,
    /// Edit the index in place instead of printing a diff.
    #[arg(long)]
    pub write: bool,
    /// Take the rows of documents that fit no index (`unknown`) as
    /// documents of this type: their decisions go into --index FILE, a new
    /// family's index (`kgroute index draft`) of this document_type.
    #[arg(long = "doc-type", value_name = "NAME")]
    pub doc_type: Option<String>,
}

pub fn run(args: ReviewArgs) -> anyhow::Result<Outcome> {
    // `--write` holds the folder's review lock from before the index is
    // read until it is replaced: a second reviewer is refused, naming the
    // first, instead of overwriting the first one's decisions.
    let _lock = if args.write {
        Some(crate::lock::Lock::for_indices(&args.index)?)
    } else {
        None
    };
    if review::paragraphs::is_paragraphs_csv(&args.sections_csv) {
        return run_paragraphs(&args);
    }
    warn_offline_retiers(&mut std::io::stderr().lock(), &args.sections_csv)?;
    if args.index.is_dir() {
        if let Some(t) = &args.doc_type {
            anyhow::bail!(
                "--doc-type {t} takes the unknown rows into one index file: give --index indices/{t}.yaml"
            );
        }
        return run_folder(&args);
    }
    if !args.index.exists() {
        if let Some(t) = &args.doc_type {
            anyhow::bail!(
                "{}: no such index; draft it from the batch first: kgroute index draft --doc-type {t} --from {} --out {}",
                args.index.display(),
                args.sections_csv
                    .parent()
                    .map_or(".".into(), |p| p.display().to_string()),
                args.index.display()
            );
        }
    }
    let review = review::review_as(&args.sections_csv, &args.index, args.doc_type.as_deref())?;
    let result = &review.result;
    let mut err = std::io::stderr().lock();
    for n in &result.notices {
        writeln!(err, "note: {n}")?;
    }
    for c in &result.changes {
        writeln!(err, "{c}")?;
    }
    let outcome = warn_unwritable(&mut err, &review.unwritable)?;
    if !result.changed() {
        writeln!(err, "no change to {}", args.index.display())?;
        return Ok(outcome);
    }
    let version = format!(
        "version {} -> {}",
        result.old_version.as_deref().unwrap_or("(none)"),
        result.new_version.as_deref().unwrap_or("(none)")
    );
    if args.write {
        review::write_index(&args.index, result)?;
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
    Ok(outcome)
}

/// A plan's paragraphs.csv: each row's decision goes into the decisions
/// file beside its document type's index.
fn run_paragraphs(args: &ReviewArgs) -> anyhow::Result<Outcome> {
    if let Some(t) = &args.doc_type {
        anyhow::bail!(
            "--doc-type {t} is for the rows of a sections.csv; a paragraphs.csv row goes beside its own doc_type's index"
        );
    }
    let review = review::paragraphs::review_paragraphs(&args.sections_csv, &args.index)?;
    let mut err = std::io::stderr().lock();
    for f in &review.files {
        for c in &f.changes {
            writeln!(err, "{}: {c}", f.path.display())?;
        }
        if f.changes.is_empty() {
            writeln!(
                err,
                "no change to {} ({} decision(s) already there)",
                f.path.display(),
                f.unchanged
            )?;
        } else if args.write {
            review::paragraphs::write(f)?;
            writeln!(
                err,
                "wrote {} ({} change(s), {} decision(s) in all); plans and ingests of {} documents read them",
                f.path.display(),
                f.changes.len(),
                f.decisions.len(),
                f.document_type
            )?;
        } else {
            writeln!(
                err,
                "{}: {} change(s) not written; --write writes them",
                f.path.display(),
                f.changes.len()
            )?;
        }
    }
    if review.files.is_empty() && review.unwritable.is_empty() {
        writeln!(
            err,
            "no decisions in {} (its `decision` column is blank)",
            args.sections_csv.display()
        )?;
    }
    warn_unwritable(&mut err, &review.unwritable)
}

/// The folder form: one diff (or write) per touched index file.
fn run_folder(args: &ReviewArgs) -> anyhow::Result<Outcome> {
    let review = review::folder::review_folder(&args.sections_csv, &args.index)?;
    let mut err = std::io::stderr().lock();
    for f in &review.files {
        for n in &f.result.notices {
            writeln!(err, "note: {}: {n}", f.path.display())?;
        }
        for c in &f.result.changes {
            writeln!(err, "{}: {c}", f.path.display())?;
        }
    }
    let outcome = warn_unwritable(&mut err, &review.unwritable)?;
    if !review.changed() {
        writeln!(err, "no change to the indices in {}", args.index.display())?;
        return Ok(outcome);
    }
    let version = |r: &review::ReviewResult| {
        format!(
            "version {} -> {}",
            r.old_version.as_deref().unwrap_or("(none)"),
            r.new_version.as_deref().unwrap_or("(none)")
        )
    };
    let changed: Vec<_> = review.files.iter().filter(|f| f.result.changed()).collect();
    if args.write {
        review::folder::write_folder(&review)?;
        for f in &changed {
            writeln!(
                err,
                "wrote {} ({} change(s), {}); it validates",
                f.path.display(),
                f.result.changes.len(),
                version(&f.result)
            )?;
        }
    } else {
        let mut out = std::io::stdout().lock();
        for f in &changed {
            let diff = f.result.diff(&f.path.display().to_string());
            out.write_all(diff.as_bytes())?;
            // Diffs one after another stay apart (and `patch` reads them).
            if !diff.ends_with('\n') {
                out.write_all(b"\n")?;
            }
        }
        for f in &changed {
            writeln!(
                err,
                "dry run: {} ({}); the edit validates",
                f.path.display(),
                version(&f.result)
            )?;
        }
        writeln!(err, "add --write to apply")?;
    }
    Ok(outcome)
}

/// Warns, before anything is applied, when the report comes from an
/// offline batch (summary.json beside it names the rules extractor) and
/// holds `retier:` decisions: its actual tiers are lower bounds.
fn warn_offline_retiers(err: &mut impl Write, report: &std::path::Path) -> anyhow::Result<()> {
    // Only the extractor is read: the per-document part of a large batch's
    // summary.json (a few KB per document) is skipped, never held.
    #[derive(serde::Deserialize)]
    struct SummaryExtractor {
        #[serde(default)]
        extractor: String,
    }
    let Ok(file) = std::fs::File::open(report.with_file_name("summary.json")) else {
        return Ok(());
    };
    let Ok(summary) = serde_json::from_reader::<_, SummaryExtractor>(std::io::BufReader::new(file))
    else {
        return Ok(());
    };
    let Some(note) = crate::report::summary::offline_tiers_note(&summary.extractor) else {
        return Ok(());
    };
    let (decisions, _) = review::decision::read_decisions(report)?;
    let retiers = decisions
        .iter()
        .filter(|d| matches!(d.action, review::decision::Action::Retier(_)))
        .count();
    if retiers > 0 {
        writeln!(
            err,
            "warning: {}: {retiers} retier decision(s) taken from an offline batch. {note}",
            report.display()
        )?;
    }
    Ok(())
}

/// Prints the rows no index could take; partial failure when there are any.
fn warn_unwritable(err: &mut impl Write, unwritable: &[String]) -> anyhow::Result<Outcome> {
    for u in unwritable {
        writeln!(err, "warning: {u}")?;
    }
    Ok(if unwritable.is_empty() {
        Outcome::Success
    } else {
        Outcome::PartialFailure
    })
}
