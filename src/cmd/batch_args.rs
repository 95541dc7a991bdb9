//! Flags `plan` and `ingest` share, flattened into both so the two read a
//! batch the same way: which documents and how they are read
//! ([`DocumentArgs`]), how sections are routed ([`RoutingArgs`]) and how
//! large an extraction request is ([`RequestArgs`]).

use crate::tree::source::DEFAULT_MAX_BYTES;
use std::path::PathBuf;

#[derive(Debug, Clone, clap::Args)]
pub struct DocumentArgs {
    /// Documents or folders of documents (.md, .markdown, .txt, .text;
    /// folders are walked recursively, other files skipped and counted).
    #[arg(required = true, value_name = "FILE|DIR")]
    pub inputs: Vec<PathBuf>,
    /// Index YAML: a base, then overlays (repeat the flag; later files win);
    /// or one folder of indices, one per document type, each document
    /// routed with the index of its detected type.
    #[arg(long = "index", value_name = "YAML|DIR", default_value = "indices")]
    pub index: Vec<PathBuf>,
    /// Route every document as this type (an index's document_type)
    /// instead of detecting it.
    #[arg(long = "doc-type", value_name = "NAME")]
    pub doc_type: Option<String>,
    /// Take only shard K of N (0-based) of the documents, by content hash:
    /// every worker gets the same inputs and `--shard K/N`. `--shard /N`
    /// takes K from KGROUTE_SHARD or JOB_COMPLETION_INDEX (Kubernetes
    /// Indexed Job). Join the shards' folders with `kgroute merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Follow symlinks that lead outside the input folders (skipped with a
    /// warning without it: a link could pull any readable file into the
    /// batch and make it searchable).
    #[arg(long)]
    pub follow_outside: bool,
    /// Replace invalid UTF-8 instead of failing the document.
    #[arg(long)]
    pub lossy: bool,
    /// Largest document read, in bytes (checked before reading).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    pub max_bytes: u64,
}

#[derive(Debug, Clone, clap::Args)]
pub struct RoutingArgs {
    /// Send every section (except noise and empty ones) to measure actual tiers.
    #[arg(long)]
    pub calibrate: bool,
    /// Fraction (0..=1) of skipped sections sent anyway, picked
    /// deterministically from document and node ids, to measure silent
    /// losses.
    #[arg(long, value_name = "R", default_value_t = 0.0)]
    pub audit_rate: f64,
    /// Route by titles only. By default, in commercial contracts (the type
    /// the shipped clause model knows) and in any family with a model of
    /// its own beside its index (`kgroute index learn`), the paragraphs of
    /// a section whose title is Medium or unknown go only when the model
    /// scores them high enough, and a paragraph that scores high goes even
    /// from a section whose title is Low or Very Low (every decision in the
    /// plan's paragraphs.csv).
    #[arg(long)]
    pub titles_only: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub struct RequestArgs {
    /// Text of one extraction request, in tokens (chars / 4): a document's
    /// routed sections are packed into requests up to it, each under its
    /// own id and answered apart, so the prompt around them is paid once
    /// per request, not per section. Lowered to what the model's context
    /// holds with room for the answer.
    #[arg(long, value_name = "N", default_value_t = crate::extract::pack::DEFAULT_PACK_TOKENS)]
    pub pack_tokens: u64,
    /// The model's context in tokens [default: what the server says
    /// (llama.cpp `/props`), else unbounded]; pieces whose prompt and answer
    /// would not fit are split.
    #[arg(long, value_name = "N")]
    pub context_tokens: Option<u32>,
    /// With --llm-mode verify: the most a document's questions may cost,
    /// in percent of the input tokens --llm-mode extract would send for
    /// it. When they would cost more, a rule's assertions are asked first,
    /// then the readings it held, then the clause model's suggestions; the
    /// rest are counted as left out by the plan and the summary. 0 asks
    /// nothing; a large share (e.g. 1000) asks every question.
    #[arg(long, value_name = "PERCENT", default_value_t = 100.0 * crate::extract::verify::bill::DEFAULT_VERIFY_SHARE)]
    pub verify_share: f64,
}
