//! `kgroute tree`: prints a document's skeleton tree, as JSON for programs
//! or as an indented outline for people.

use super::Outcome;
use crate::tree::{build_tree, DocTree, Node, SourceText};
use anyhow::Context;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Examples:
  kgroute tree fixtures/supply_agreement.txt --format text
  kgroute tree fixtures/credit_agreement.md > tree.json

JSON is the default when stdout is not a terminal; the outline otherwise.";

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
    /// Markdown or plain-text document.
    pub file: PathBuf,
    /// Output format [default: json when piped, text on a terminal].
    #[arg(long, value_enum)]
    pub format: Option<TreeFormat>,
    /// Replace invalid UTF-8 instead of failing.
    #[arg(long)]
    pub lossy: bool,
}

/// Reads the file, builds its tree and prints it in the chosen format.
pub fn run(args: TreeArgs) -> anyhow::Result<Outcome> {
    let source = SourceText::read(&args.file, args.lossy)?;
    let tree = build_tree(&source);
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
                n.title,
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
