//! Command-line surface: the clap definitions of every subcommand. Each
//! subcommand's arguments and `run` live in their own file under `cmd/`.

use crate::cmd::{self, Outcome};
use clap::{Parser, Subcommand};

const AFTER_HELP: &str = "\
Examples:
  kgroute tree fixtures/supply_agreement.txt --format text
  kgroute plan fixtures/ --index indices/credit_agreement.yaml
  kgroute ingest fixtures/ --index indices/credit_agreement.yaml
  kgroute ask \"which law governs the agreement?\" --batch reports/<batch-id>
  kgroute contracts --batch reports/<batch-id> --lacks \"cap on liability\"

With no LLM configured (KGROUTE_LLM_URL / --llm-url) the offline rules
extractor runs; with no Neo4j configured (--neo4j / NEO4J_URI) the graph is
written to import files under the output folder.";

/// Route contract sections to an LLM by predicted graph value and build a
/// knowledge graph from what it extracts.
#[derive(Debug, Parser)]
#[command(name = "kgroute", version, about, long_about = None, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Runs the parsed command line's subcommand. An `Err` is fatal (exit
    /// 2).
    pub fn run(self) -> anyhow::Result<Outcome> {
        match self.command {
            Command::Tree(a) => cmd::tree::run(a),
            Command::Plan(a) => cmd::plan::run(a),
            Command::Ingest(a) => cmd::ingest::run(*a),
            Command::Merge(a) => cmd::merge::run(a),
            Command::Ask(a) => cmd::ask::run(a),
            Command::Contracts(a) => cmd::contracts::run(a),
            Command::RebuildSearch(a) => cmd::rebuild_search::run(a),
            Command::Export(a) => cmd::export::run(a),
            Command::Review(a) => cmd::review::run(a),
            Command::History(a) => cmd::history::run(a),
            Command::Index(IndexCommand::Check(a)) => cmd::index_check::run(a),
            Command::Index(IndexCommand::Draft(a)) => cmd::index_draft::run(a),
            Command::Index(IndexCommand::Learn(a)) => cmd::index_learn::run(a),
            Command::Verify(VerifyCommand::Calibrate(a)) => cmd::verify_calibrate::run(a),
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse a document's headings into a skeleton tree with line pointers.
    Tree(cmd::tree::TreeArgs),
    /// Predict each section's tier and route, with payload cut and cost; no LLM.
    Plan(cmd::plan::PlanArgs),
    /// Run the whole pipeline on a batch: tree, route, extract, graph, report.
    Ingest(Box<cmd::ingest::IngestArgs>),
    /// Join the batch folders of `ingest --shard K/N` runs into one batch.
    Merge(cmd::merge::MergeArgs),
    /// Ask the ingested batch a question: the whole sections that answer it.
    Ask(cmd::ask::AskArgs),
    /// The batch's register filtered and grouped: which contracts have, lack,
    /// bind whom, under which law, expire when.
    Contracts(cmd::contracts::ContractsArgs),
    /// Build (or rebuild) the search index of an existing batch folder
    /// (once named `index-search`, which still works).
    #[command(visible_alias = "index-search")]
    RebuildSearch(cmd::rebuild_search::RebuildSearchArgs),
    /// Write a batch's offline graph as JSON lines or as neo4j-admin import
    /// files.
    Export(cmd::export::ExportArgs),
    /// Apply a reviewer's decisions from sections.csv to an index YAML.
    Review(cmd::review::ReviewArgs),
    /// Show how the index stabilised across batches (reports/history.csv).
    History(cmd::history::HistoryArgs),
    /// Work with graphability index files.
    #[command(subcommand)]
    Index(IndexCommand),
    /// The LLM as the register's verifier (`ingest --llm-mode verify`).
    #[command(subcommand)]
    Verify(VerifyCommand),
}

#[derive(Debug, Subcommand)]
pub enum VerifyCommand {
    /// Learn which clause kinds a model's answers decide, from a verified
    /// batch and its contracts' known answers.
    Calibrate(cmd::verify_calibrate::VerifyCalibrateArgs),
}

#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Validate index YAML files (a base and its overlays), reporting every problem.
    Check(cmd::index_check::IndexCheckArgs),
    /// Draft a new index for a family from calibrated batches.
    Draft(cmd::index_draft::IndexDraftArgs),
    /// Learn a family's own paragraph model from its batches, kept beside its index.
    Learn(cmd::index_learn::IndexLearnArgs),
}
