//! `kgroute tree`: prints a document's skeleton tree, as JSON for programs
//! or as an indented outline for people; `--check` prints structure health
//! per document of a file or directory; `--score` compares trees with
//! hand-checked heading lists.

use super::Outcome;
use crate::tree::eval::{self, heading_lines, Score, Truth};
use crate::tree::health::USABLE_MIN_CHARS;
use crate::tree::{build_tree, DocTree, Node, SourceText};
use anyhow::Context;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

const AFTER_HELP: &str = "\
Examples:
  kgroute tree fixtures/supply_agreement.txt --format text
  kgroute tree fixtures/credit_agreement.md > tree.json

  kgroute tree --check ../shared/corpora/wide
  kgroute tree --score tests/truth --corpora ../shared/corpora

JSON is the default when stdout is not a terminal; the outline otherwise.
--check exits 1 when some document's tree looks wrong; --score exits 1
when the overall F1 is below 0.97.";

/// Output format of `kgroute tree`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TreeFormat {
    /// The skeleton tree as JSON (PageIndex/Proxy-Pointer shape plus spans).
    Json,
    /// An indented outline with node ids, line spans and sizes.
    Text,
}

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct TreeArgs {
    /// Markdown or plain-text document (a directory with --check; a truth
    /// file or directory of them with --score).
    pub file: PathBuf,
    /// Print structure health (preamble share, biggest node, numbering,
    /// contents entries found) for the file or every file under the
    /// directory, instead of the tree.
    #[arg(long, conflicts_with = "score")]
    pub check: bool,
    /// Score trees against heading lists (JSON with `file` and `headings`),
    /// printing precision / recall / F1 per file and overall.
    #[arg(long)]
    pub score: bool,
    /// Directory the truth files' `file` paths are relative to [default:
    /// shared/corpora next to the current directory or above].
    #[arg(long)]
    pub corpora: Option<PathBuf>,
    /// Output format [default: json when piped, text on a terminal].
    #[arg(long, value_enum)]
    pub format: Option<TreeFormat>,
    /// Replace invalid UTF-8 instead of failing.
    #[arg(long)]
    pub lossy: bool,
}

/// Reads the file, builds its tree and prints it in the chosen format.
pub fn run(args: TreeArgs) -> anyhow::Result<Outcome> {
    if args.check {
        return check(&args.file, args.lossy);
    }
    if args.score {
        return score(&args.file, args.corpora.as_deref(), args.lossy);
    }
    let source = SourceText::read(&args.file, args.lossy)?;
    // Shown with the file's bytes: what a reader slicing the file needs.
    let tree = build_tree(&source).with_file_bytes(&source);
    let format = args.format.unwrap_or(if std::io::stdout().is_terminal() {
        TreeFormat::Text
    } else {
        TreeFormat::Json
    });
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match format {
        TreeFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &tree).context("writing JSON")?;
            writeln!(out)?;
        }
        TreeFormat::Text => write_outline(&mut out, &tree)?,
    }
    out.flush()?;
    Ok(Outcome::Success)
}

/// The human outline: one line per node, indented by depth.
pub fn write_outline(out: &mut impl Write, tree: &DocTree) -> std::io::Result<()> {
    writeln!(
        out,
        "{} ({}, {}, {} lines, {} nodes)",
        tree.doc_name,
        tree.doc_id,
        match tree.format {
            crate::tree::DocFormat::Markdown => "markdown",
            crate::tree::DocFormat::Text => "text",
        },
        tree.line_count,
        tree.iter().count()
    )?;
    fn walk(out: &mut impl Write, nodes: &[Node], depth: usize) -> std::io::Result<()> {
        for n in nodes {
            let kind = serde_json::to_value(n.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            writeln!(
                out,
                "{:indent$}{} {}  [{}-{}, {} chars, {}]",
                "",
                n.node_id,
                crate::report::sanitize_title(&n.title),
                n.start_line,
                n.end_line,
                n.chars,
                kind,
                indent = depth * 2
            )?;
            walk(out, &n.nodes, depth + 1)?;
        }
        Ok(())
    }
    walk(out, &tree.structure, 0)
}

/// Files under `path` (itself when a file), sorted, hidden files skipped.
fn files_under(path: &Path, ext: Option<&str>) -> anyhow::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_owned()]);
    }
    let mut out = Vec::new();
    let mut stack = vec![path.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))? {
            let p = e?.path();
            let hidden = p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if hidden {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if ext.is_none_or(|x| p.extension().is_some_and(|e| e == x)) {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// `--check`: one line of health figures per document.
fn check(path: &Path, lossy: bool) -> anyhow::Result<Outcome> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(
        out,
        "{:<48} {:>6} {:>8} {:>8} {:>5} {:>5} {:>9}",
        "document", "heads", "preamb%", "biggest%", "gaps", "order", "toc found"
    )?;
    let mut bad = 0;
    // The documents `ingest` would read from this path, no other files.
    let found = crate::pipeline::discover(&[path.to_owned()])?;
    if let Some(line) = found.skipped.line() {
        eprintln!("kgroute tree --check: {line}");
    }
    let halves = halves(&found.documents);
    let mut usable = Usable::default();
    for (file, half) in found.documents.iter().zip(halves) {
        let file = file.clone();
        // One unreadable file is reported and the rest still checked.
        let source = match SourceText::read(&file, lossy) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("kgroute tree --check: {e:#}");
                bad += 1;
                continue;
            }
        };
        let tree = build_tree(&source);
        let h = &tree.health;
        let name = file
            .strip_prefix(path)
            .ok()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(&file)
            .display()
            .to_string();
        writeln!(
            out,
            "{:<48} {:>6} {:>7.1}% {:>7.1}% {:>5} {:>5} {:>4}/{:<4}",
            name,
            h.headings,
            h.preamble_share * 100.0,
            h.biggest_share * 100.0,
            h.numbering_gaps,
            h.out_of_order,
            h.toc_found(),
            h.toc_in_body()
        )?;
        usable.add(h, half);
        if h.chars >= USABLE_MIN_CHARS && !h.usable() {
            writeln!(
                out,
                "    not usable: preamble {:.1}%, contents {:.1}%, biggest {:.1}% ({})",
                h.preamble_share * 100.0,
                h.contents_share * 100.0,
                h.biggest_share * 100.0,
                crate::report::sanitize_title(&h.biggest_title)
            )?;
        }
        for (title, why) in &h.noise_running_text {
            writeln!(out, "    warning: {why} node `{title}` holds running text")?;
        }
        for m in &h.toc_missing {
            writeln!(out, "    contents entry not found: {m}")?;
        }
        for m in &h.toc_inline {
            writeln!(
                out,
                "    contents entry inside a run-together line, not placed: {m}"
            )?;
        }
        for m in &h.toc_not_in_filing {
            writeln!(out, "    listed in contents, not in the filing: {m}")?;
        }
        if let Some(w) = h.warning(&tree.doc_name) {
            writeln!(out, "    warning: {w}")?;
            bad += 1;
        }
    }
    usable.write(&mut out)?;
    out.flush()?;
    Ok(if bad > 0 {
        Outcome::PartialFailure
    } else {
        Outcome::Success
    })
}

/// Which half each document is in: within its folder, files sorted by
/// name, even positions (0, 2, ..) tune, odd ones check (the split every
/// corpus figure of the project uses).
fn halves(docs: &[PathBuf]) -> Vec<bool> {
    let mut by_dir: std::collections::BTreeMap<&Path, Vec<&Path>> = Default::default();
    for d in docs {
        by_dir
            .entry(d.parent().unwrap_or(Path::new("")))
            .or_default()
            .push(d);
    }
    for v in by_dir.values_mut() {
        v.sort();
    }
    docs.iter()
        .map(|d| {
            let v = &by_dir[d.parent().unwrap_or(Path::new(""))];
            v.iter().position(|x| *x == d.as_path()).unwrap_or(0) % 2 == 1
        })
        .collect()
}

/// Counts of documents of [`USABLE_MIN_CHARS`]+ characters with a usable
/// tree, per half (`[tuning, checking]`).
#[derive(Default)]
struct Usable {
    usable: [usize; 2],
    long: [usize; 2],
}

impl Usable {
    fn add(&mut self, h: &crate::tree::TreeHealth, checking: bool) {
        if h.chars < USABLE_MIN_CHARS {
            return;
        }
        let i = usize::from(checking);
        self.long[i] += 1;
        self.usable[i] += usize::from(h.usable());
    }

    fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        let (u, l) = (self.usable[0] + self.usable[1], self.long[0] + self.long[1]);
        writeln!(
            out,
            "usable trees ({USABLE_MIN_CHARS}+ chars): {u}/{l} ({:.1}%); tuning half {}/{} ({:.1}%), checking half {}/{} ({:.1}%)",
            pct(u, l),
            self.usable[0],
            self.long[0],
            pct(self.usable[0], self.long[0]),
            self.usable[1],
            self.long[1],
            pct(self.usable[1], self.long[1]),
        )
    }
}

/// The F1 `--score` expects overall.
const F1_TARGET: f64 = 0.97;

/// `--score`: precision / recall / F1 by heading line per truth file.
fn score(path: &Path, corpora: Option<&Path>, lossy: bool) -> anyhow::Result<Outcome> {
    let corpora = match corpora {
        Some(c) => c.to_owned(),
        None => std::env::current_dir()?
            .ancestors()
            .map(|a| a.join("shared").join("corpora"))
            .find(|p| p.is_dir())
            .context("shared/corpora not found above the current directory: pass --corpora")?,
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut total = Score::default();
    let mut halves: std::collections::BTreeMap<String, Score> = Default::default();
    for file in files_under(path, Some("json"))? {
        let truth = Truth::load(&file)?;
        let doc = truth.document(&corpora);
        let source = SourceText::read(&doc, lossy)?;
        let tree = build_tree(&source);
        let lines: Vec<usize> = truth.headings.iter().map(|h| h.line).collect();
        let (s, extra, missed) = eval::score(&heading_lines(&tree), &lines);
        total.add(s);
        if let Some(part) = &truth.part {
            halves.entry(part.clone()).or_default().add(s);
        }
        writeln!(
            out,
            "{:<64} P {:.3}  R {:.3}  F1 {:.3}",
            file.file_name().unwrap_or_default().to_string_lossy(),
            s.precision(),
            s.recall(),
            s.f1()
        )?;
        if !extra.is_empty() {
            writeln!(out, "    extra lines: {extra:?}")?;
        }
        if !missed.is_empty() {
            writeln!(out, "    missed lines: {missed:?}")?;
        }
    }
    for (part, h) in &halves {
        writeln!(
            out,
            "{part} half: P {:.3}  R {:.3}  F1 {:.3}",
            h.precision(),
            h.recall(),
            h.f1()
        )?;
    }
    writeln!(
        out,
        "overall: P {:.3}  R {:.3}  F1 {:.3}",
        total.precision(),
        total.recall(),
        total.f1()
    )?;
    out.flush()?;
    Ok(if total.f1() >= F1_TARGET {
        Outcome::Success
    } else {
        Outcome::PartialFailure
    })
}
