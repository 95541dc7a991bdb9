//! `kgroute index draft --doc-type NAME --from BATCH...`: writes a new
//! index for a family nobody wrote one for, from calibrated batches (see
//! [`crate::review::draft`]).

use super::Outcome;
use crate::index::IndexSet;
use crate::review::draft::{self, input, DraftOptions};
use anyhow::{bail, Context};
use std::path::{Component, Path, PathBuf};

const AFTER_HELP: &str = "\
Examples:
  kgroute ingest servicing/ --calibrate --out reports/servicing-1
  kgroute index draft --doc-type servicing --from reports/servicing-1 --out indices/servicing.yaml
  kgroute index draft --doc-type llc --from reports/B --family 2 --out indices/llc.yaml
  kgroute index check indices/servicing.yaml

--family N takes the documents of the batch's unknown family N (summary.md,
`Unknown families`). The draft extends the base index and is valid for
`index check`; review it like any index. An existing --out file is refused
(it may be a reviewed index): give another name, or --force to replace it,
the old file kept as FILE.bak (FILE.bak.2, .bak.3, ... when an earlier
copy is there: no draft ever overwrites a kept copy). Exit 0 drafted, 2 nothing drafted (no
entry, or refused).";

/// Arguments of `kgroute index draft`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct IndexDraftArgs {
    /// The new index's document_type.
    #[arg(long = "doc-type", value_name = "NAME")]
    pub doc_type: String,
    /// Batch folders written by `kgroute ingest --calibrate` (repeatable).
    #[arg(long = "from", value_name = "BATCH", required = true, num_args = 1..)]
    pub from: Vec<PathBuf>,
    /// Where to write the index [default: stdout].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace an existing --out file; the old one is kept as FILE.bak
    /// (FILE.bak.2, ... when an earlier copy is there).
    #[arg(long)]
    pub force: bool,
    /// An entry needs its title in at least K documents [default: 2, or a
    /// sixth of the documents when that is more].
    #[arg(long = "min-docs", value_name = "K")]
    pub min_docs: Option<usize>,
    /// Only the documents of this unknown family of the (single) batch's
    /// summary (`Unknown families` in summary.md).
    #[arg(long, value_name = "N")]
    pub family: Option<usize>,
    /// Only the documents the batch typed as this (e.g. `unknown`).
    #[arg(long = "only-type", value_name = "TYPE")]
    pub only_type: Option<String>,
    /// The base index the draft extends.
    #[arg(long, value_name = "YAML", default_value = "indices/base/common.yaml")]
    pub base: PathBuf,
    /// The other indices (a folder): detection words they use are left out.
    #[arg(long, value_name = "DIR", default_value = "indices")]
    pub against: PathBuf,
    /// Draft even when more than one section in twenty was not scanned
    /// (a batch not ingested with --calibrate): the tiers then lean on the
    /// sections titles already sent.
    #[arg(long = "allow-unscanned")]
    pub allow_unscanned: bool,
}

/// `target` as written from a file in `dir` (both made absolute).
fn relative(target: &Path, dir: &Path) -> PathBuf {
    let abs = |p: &Path| {
        p.canonicalize()
            .unwrap_or_else(|_| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
    };
    let (t, d) = (abs(target), abs(dir));
    let tc: Vec<Component> = t.components().collect();
    let dc: Vec<Component> = d.components().collect();
    let common = tc.iter().zip(&dc).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..dc.len() {
        out.push("..");
    }
    for c in &tc[common..] {
        out.push(c);
    }
    out
}

/// The regular file standard output is redirected to (`> FILE`), where
/// the system says (Linux's `/proc`); `None` for a terminal or a pipe.
fn stdout_file() -> Option<PathBuf> {
    let target = std::fs::read_link("/proc/self/fd/1").ok()?;
    target.is_file().then_some(target)
}

/// Refuses a draft that would land in the `--against` folder beside
/// another file indexing the same type (a second index of one type is
/// refused when the folder loads); re-drafting that file itself is the
/// way (`--out` it, with `--force`).
fn refuse_second_index(set: &IndexSet, args: &IndexDraftArgs) -> anyhow::Result<()> {
    let Some(existing) = set
        .indices
        .iter()
        .find(|i| i.document_type == args.doc_type)
        .and_then(|i| i.sources.last())
    else {
        return Ok(());
    };
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let lands = args.out.clone().or_else(stdout_file);
    let (folder, same_file) = match &lands {
        Some(f) => {
            let dir = f
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            (canon(dir), canon(f) == canon(existing))
        }
        None => (canon(&args.against), false),
    };
    if folder == canon(&args.against) && !same_file {
        bail!(
            "--doc-type {}: {} already indexes {} documents, and a second index of one type \
             in {} would never be chosen; re-draft that file (--out {} --force, the old one kept \
             as .bak), or name another type",
            args.doc_type,
            existing.display(),
            args.doc_type,
            args.against.display(),
            existing.display()
        );
    }
    Ok(())
}

/// Takes the review lock of `--out`'s folder (created if missing) and
/// refuses an existing file without `--force`: a draft must never replace
/// a reviewed index unasked.
fn claim_out(path: &Path, force: bool) -> anyhow::Result<crate::lock::Lock> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    let lock = crate::lock::Lock::acquire(
        &folder.join(crate::lock::REVIEW_LOCK),
        &format!("the indices in {}", folder.display()),
    )?;
    if path.exists() && !force {
        bail!(
            "--out {}: the file exists (it may be a reviewed index) and is left as it is; \
             give another --out, or add --force to replace it (the old file is kept as {}.bak, \
             or .bak.2, .bak.3, ... when earlier copies are there)",
            path.display(),
            path.display()
        );
    }
    Ok(lock)
}

/// A type name names the index and the files kept beside it: lower-case
/// letters, digits and `_`, starting with a letter.
fn is_type_name(name: &str) -> bool {
    name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

pub fn run(args: IndexDraftArgs) -> anyhow::Result<Outcome> {
    if args.doc_type.trim().is_empty() || args.doc_type == crate::index::doctype::UNKNOWN_TYPE {
        bail!(
            "--doc-type `{}`: give the new family a name of its own, e.g. --doc-type servicing",
            args.doc_type
        );
    }
    if !is_type_name(&args.doc_type) {
        bail!(
            "--doc-type `{}`: a type name is lower-case letters, digits and `_`, starting with a \
             letter (it names the index and the files beside it), e.g. --doc-type servicing",
            args.doc_type
        );
    }
    if args.family.is_some() && args.from.len() != 1 {
        bail!("--family N names a family of one batch; give one --from BATCH");
    }
    // The folder's review lock, from before the check to after the write:
    // a review or another draft of the same folder is refused meanwhile.
    let _lock = match &args.out {
        Some(path) => Some(claim_out(path, args.force)?),
        None => None,
    };
    let (docs, contrast) = read_documents(&args)?;
    let unscanned: usize = docs.iter().map(|d| d.unscanned).sum();
    let routed: usize = docs.iter().map(|d| d.sections.len()).sum::<usize>();
    if unscanned * 20 > routed && !args.allow_unscanned {
        bail!(
            "{unscanned} of the batches' {routed} sections were not scanned (not ingested with \
             --calibrate, or failed): a draft's tiers would lean on the sections titles already \
             sent. Ingest with `kgroute ingest ... --calibrate`, or add --allow-unscanned to draft anyway"
        );
    }
    let others = if args.against.is_dir() {
        let mut set = IndexSet::load(std::slice::from_ref(&args.against))
            .with_context(|| format!("loading the other indices in {}", args.against.display()))?;
        refuse_second_index(&set, &args)?;
        set.indices.retain(|i| i.document_type != args.doc_type);
        set
    } else {
        IndexSet::new(Vec::new())
    };
    // `extends:` is read relative to the draft's own file: the folder of
    // --out; printed, the folder of the file stdout is redirected to, else
    // the folder of the other indices, where a draft goes to be used.
    let out_dir = match &args.out {
        Some(o) => o.parent().map(Path::to_path_buf).unwrap_or_default(),
        None => {
            let dir = stdout_file()
                .and_then(|f| f.parent().map(Path::to_path_buf))
                .unwrap_or_else(|| args.against.clone());
            eprintln!(
                "kgroute: the draft's `extends:` is written for a file in {} (give --out FILE to write it elsewhere)",
                dir.display()
            );
            dir
        }
    };
    let out_dir = if out_dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        out_dir
    };
    if !args.base.is_file() {
        bail!("--base {}: no such index file", args.base.display());
    }
    let extends = relative(&args.base, &out_dir).display().to_string();
    let min_docs = args
        .min_docs
        .unwrap_or_else(|| docs.len().div_ceil(6).max(2));
    let base = crate::index::GraphabilityIndex::load(std::slice::from_ref(&args.base))
        .with_context(|| format!("loading the base {}", args.base.display()))?;
    let d = draft::draft(
        &docs,
        &others,
        Some(&base),
        DraftOptions {
            doc_type: args.doc_type.clone(),
            min_docs,
            extends: Some(extends),
            batches: args.from.clone(),
            contrast: contrast.clone(),
        },
    );
    if d.entries.is_empty() {
        bail!(
            "drafted no entry for `{}` from {} documents: no title is in {} documents or more; \
             give more batches with --from, or a lower --min-docs",
            args.doc_type,
            d.documents.len(),
            min_docs
        );
    }
    let yaml = d.to_yaml();
    let line = summary_line(&args.doc_type, &d, min_docs);
    match &args.out {
        Some(path) => {
            write_draft(path, &yaml, args.force, &line)?;
            say_what_it_types(
                path,
                others,
                &docs,
                &contrast,
                &args.doc_type,
                d.detect.titles.is_empty(),
            )?;
        }
        None => {
            print!("{yaml}");
            eprintln!("kgroute: {line}");
        }
    }
    Ok(Outcome::Success)
}

/// Types the family's documents and the batches' others with the written
/// draft beside the other indices, as `ingest` would, and says how many of
/// each it claims: a `detect:` block too weak to type its own family (no
/// title phrase its documents share) or one that pulls others in is named
/// now, not found in the next batch.
fn say_what_it_types(
    path: &Path,
    others: IndexSet,
    docs: &[input::DraftDoc],
    contrast: &[input::DraftDoc],
    doc_type: &str,
    no_titles: bool,
) -> anyhow::Result<()> {
    let draft = crate::index::GraphabilityIndex::load(&[path.to_path_buf()])
        .with_context(|| format!("loading the draft {}", path.display()))?;
    // A new set, so its detection counts the draft's terms too.
    let mut indices = others.indices;
    indices.push(draft);
    let set = IndexSet::new(indices);
    let typed = |d: &input::DraftDoc| -> Option<bool> {
        let source = crate::tree::SourceText::read(&d.path, true).ok()?;
        let tree = crate::tree::build_tree(&source);
        Some(set.detect(&tree, &source).name == doc_type)
    };
    let count = |ds: &[input::DraftDoc]| -> (usize, usize) {
        let read: Vec<bool> = ds.iter().filter_map(typed).collect();
        (read.iter().filter(|t| **t).count(), read.len())
    };
    let (own, own_read) = count(docs);
    let (pulled, others_read) = count(contrast);
    eprintln!(
        "kgroute: with the draft, {own} of its {own_read} documents are typed `{doc_type}`, \
         and {pulled} of the batches' {others_read} other documents"
    );
    if own == 0 && own_read > 0 {
        let why = if no_titles {
            " (a document is typed first by its title, and these documents share no title phrase)"
        } else {
            ""
        };
        eprintln!(
            "kgroute: warning: the draft types none of its own documents: its `detect:` block \
             does not reach the {} a type needs{why}. Add the family's title phrase to \
             `detect: titles:` in {}, or draft from a family whose documents share a title",
            crate::index::doctype::MIN_CONFIDENCE,
            path.display()
        );
    } else if pulled * 5 > others_read.max(1) {
        eprintln!(
            "kgroute: warning: the draft also types {pulled} of the batches' {others_read} other \
             documents `{doc_type}`: its `detect:` words are common beyond the family; narrow \
             them in {}",
            path.display()
        );
    }
    Ok(())
}

/// The calibrated documents of every `--from` batch (one family of it with
/// `--family`, one type with `--only-type`); none is an error.
/// The documents to draft from, and the batches' other documents (what
/// the family's detection must stand out from).
type DraftAndContrast = (Vec<input::DraftDoc>, Vec<input::DraftDoc>);
fn read_documents(args: &IndexDraftArgs) -> anyhow::Result<DraftAndContrast> {
    let mut docs = Vec::new();
    let mut contrast = Vec::new();
    for b in &args.from {
        let batch = input::read_batch(b)?;
        let ids = match args.family {
            Some(n) => Some(crate::report::families::family_docs(b, n)?),
            None => None,
        };
        let (mine, rest): (Vec<_>, Vec<_>) = batch.into_iter().partition(|d| {
            ids.as_ref().is_none_or(|ids| ids.contains(&d.doc_id))
                && args.only_type.as_ref().is_none_or(|t| &d.doc_type == t)
        });
        docs.extend(mine);
        contrast.extend(rest);
    }
    if docs.is_empty() {
        bail!(
            "no documents to draft from in {}",
            args.from
                .iter()
                .map(|b| b.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok((docs, contrast))
}

/// `drafted `servicing`: 23 entries (very_high 4, ...), ...`: what the draft
/// holds, for stderr.
fn summary_line(doc_type: &str, d: &draft::Draft, min_docs: usize) -> String {
    let per_tier: Vec<String> = crate::index::Tier::ALL
        .iter()
        .map(|t| {
            format!(
                "{} {}",
                t.key(),
                d.entries.iter().filter(|e| e.tier == *t).count()
            )
        })
        .collect();
    format!(
        "drafted `{}`: {} entries ({}), {} anchors, {} bespoke title groups left out, from {} documents (min {} documents per entry)",
        doc_type,
        d.entries.len(),
        per_tier.join(", "),
        d.entries.iter().filter(|e| e.anchor).count(),
        d.bespoke.len(),
        d.documents.len(),
        min_docs
    )
}

/// Writes the draft to `path` (the old file kept as a `.bak` with
/// `--force`) and checks it as `index check` would.
fn write_draft(path: &Path, yaml: &str, force: bool, line: &str) -> anyhow::Result<()> {
    if force && path.exists() {
        let bak = crate::atomic_file::keep_copy(path)
            .with_context(|| format!("{}: cannot keep a backup", path.display()))?;
        eprintln!(
            "kgroute: the old {} is kept as {}",
            path.display(),
            bak.display()
        );
    }
    crate::atomic_file::write_atomic(path, yaml.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    let problems = crate::index::check_files(&[path.to_path_buf()]);
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("error: {p}");
        }
        bail!(
            "{}: the draft does not pass `index check` (a bug in the drafter)",
            path.display()
        );
    }
    eprintln!("kgroute: {line} -> {}", path.display());
    Ok(())
}
