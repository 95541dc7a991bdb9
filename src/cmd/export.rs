//! `kgroute export BATCH`: the offline graph of a batch in the forms other
//! tools read, derived from its parts (the one copy a batch keeps): the
//! whole graph's JSON lines, or the neo4j-admin import files.

use super::Outcome;
use crate::sink::import_files::{self, NODES_CSV, RELATIONSHIPS_CSV};
use crate::sink::parts;
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

const AFTER_HELP: &str = "\
Examples:
  # The graph's JSON lines (a document, its sections, entities, relations)
  kgroute export reports/batch-1 | jq -c 'select(.kind == \"relation\")'

  # The neo4j-admin import files, then the bulk load
  kgroute export reports/batch-1 --import-files --out import/
  neo4j-admin database import full --nodes=import/nodes.csv \\
    --relationships=import/relationships.csv --multiline-fields=true \\
    --array-delimiter=U+001F neo4j

A batch keeps its graph once, as graph/parts/<doc_id>.jsonl.gz (one
compressed file of JSON lines per document); this derives the rest from
it. Exit code: 0 written, 2 nothing written (no such batch, no graph).";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct ExportArgs {
    /// The batch folder (made by `kgroute ingest` or `kgroute merge`
    /// without Neo4j).
    #[arg(value_name = "BATCH")]
    pub batch: PathBuf,
    /// Write nodes.csv and relationships.csv, the neo4j-admin import
    /// files, instead of the JSON lines.
    #[arg(long)]
    pub import_files: bool,
    /// Where to write: the JSON lines' file [default: stdout], or the
    /// import files' folder [default: BATCH/graph].
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
}

pub fn run(args: ExportArgs) -> anyhow::Result<Outcome> {
    let graph = args.batch.join("graph");
    if !args.batch.is_dir() {
        anyhow::bail!("{}: no such batch folder", args.batch.display());
    }
    if !parts::has_graph(&graph) {
        anyhow::bail!(
            "{}: no graph files (a batch written to Neo4j keeps its graph there)",
            graph.display()
        );
    }
    if args.import_files {
        let out = args.out.clone().unwrap_or_else(|| graph.clone());
        let n = import_files::write(&graph, &out)?;
        eprintln!(
            "kgroute: {} nodes -> {}, {} relationships -> {}",
            n.nodes,
            out.join(NODES_CSV).display(),
            n.relationships,
            out.join(RELATIONSHIPS_CSV).display()
        );
        return Ok(Outcome::Success);
    }
    match &args.out {
        Some(file) => write_lines_to_file(&graph, file)?,
        None => write_lines_to_stdout(&graph)?,
    }
    Ok(Outcome::Success)
}

/// The lines into `file`, through a temp file and a rename.
fn write_lines_to_file(graph: &Path, file: &Path) -> anyhow::Result<()> {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = file.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let result = (|| -> anyhow::Result<()> {
        let f = std::fs::File::create(&tmp)
            .with_context(|| format!("{}: cannot create", tmp.display()))?;
        let mut w = std::io::BufWriter::new(f);
        parts::each_line(graph, |line| {
            writeln!(w, "{line}").with_context(|| format!("writing {}", file.display()))
        })?;
        w.flush()
            .with_context(|| format!("writing {}", file.display()))?;
        std::fs::rename(&tmp, file).with_context(|| format!("cannot write {}", file.display()))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The lines on stdout; a reader that closes the pipe early (`| head`)
/// ends the export without an error.
fn write_lines_to_stdout(graph: &Path) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    let result =
        parts::each_line(graph, |line| Ok(writeln!(w, "{line}")?)).and_then(|_| Ok(w.flush()?));
    match result {
        Err(e) if is_closed_pipe(&e) => Ok(()),
        other => other,
    }
}

fn is_closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
