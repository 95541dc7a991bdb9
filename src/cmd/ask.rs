//! `kgroute ask "question"`: the sections of an ingested batch that answer a
//! question, each printed whole (document, breadcrumb, lines, text read by
//! its pointer from the source file).

use super::Outcome;
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

const AFTER_HELP: &str = "\
Examples:
  kgroute ingest fixtures/ --out reports/fixtures
  kgroute ask \"which law governs the agreement?\" --batch reports/fixtures
  kgroute ask \"termination for convenience\" --doc supply_agreement.txt --top 1 --format json
  kgroute ask --contracts \"which contracts have a non-compete?\" --batch reports/fixtures

Needs the batch's search index (written by `ingest`; `kgroute rebuild-search
BATCH` builds it for an older batch). Works offline.

Grounding: names in the question that the batch's graph knows (parties,
defined terms, roles) raise the sections that mention them, and their
relations are listed with where they were found. The graph is read from the
batch's graph/graph.jsonl, or, for a batch written to Neo4j, from the
database (--neo4j or NEO4J_URI, NEO4J_USERNAME, NEO4J_PASSWORD).";

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AskFormat {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct AskArgs {
    /// The question, in plain words.
    pub question: String,
    /// Batch folder to ask [default: the newest batch in reports/ with a
    /// search index].
    #[arg(long, value_name = "DIR")]
    pub batch: Option<PathBuf>,
    /// Only this document: its file (path or name) or doc id.
    #[arg(long, value_name = "FILE|ID")]
    pub doc: Option<String>,
    /// How many sections to return.
    #[arg(long, default_value_t = 3, value_name = "K")]
    pub top: usize,
    #[arg(long, value_enum, default_value_t = AskFormat::Text)]
    pub format: AskFormat,
    /// OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 [env:
    /// KGROUTE_LLM_URL]. With it, the LLM answers from the sections found,
    /// citing them. The key comes from OPENAI_API_KEY.
    #[arg(long, value_name = "URL")]
    pub llm_url: Option<String>,
    /// Model name [env: KGROUTE_MODEL].
    #[arg(long)]
    pub model: Option<String>,
    /// With an LLM: let it re-rank the candidate sections by breadcrumb
    /// before the top ones are read.
    #[arg(long)]
    pub rerank: bool,
    /// With an LLM: only retrieve (and re-rank); no written answer.
    #[arg(long)]
    pub no_answer: bool,
    /// With an LLM: the longest each step (the re-ranking, the answer) may
    /// take, in seconds, attempts and retries together. A server that
    /// accepts and never answers fails the step after this long; the
    /// sections found are printed either way.
    #[arg(long, value_name = "SECS", default_value_t = crate::llm::config::DEFAULT_IDLE_SECS)]
    pub timeout: u64,
    /// Neo4j Bolt URI to ground the question in, for a batch whose graph was
    /// written there [env: NEO4J_URI]. Credentials from NEO4J_USERNAME and
    /// NEO4J_PASSWORD.
    #[arg(long, value_name = "URI")]
    pub neo4j: Option<String>,
    /// Neo4j database name [default: the server's default].
    #[arg(long, value_name = "NAME")]
    pub neo4j_database: Option<String>,
    /// "Which contracts ...?": list the contracts of the batch that answer,
    /// each with its typed facts (the CUAD categories the question names)
    /// and the whole sections that show them; by retrieval where the graph
    /// has no fact of those categories.
    #[arg(long, conflicts_with_all = ["doc", "llm_url", "rerank", "no_answer"])]
    pub contracts: bool,
}

pub fn run(args: AskArgs) -> anyhow::Result<Outcome> {
    if args.top == 0 || args.top > crate::ask::MAX_TOP {
        anyhow::bail!(
            "--top {}: give from 1 to {} sections, e.g. --top 3",
            args.top,
            crate::ask::MAX_TOP
        );
    }
    if crate::search::reader::analysed(&args.question).is_empty() {
        anyhow::bail!(
            "the question {:?} has no word to search for (empty, or only words such as \"the\" and \"is\"); ask in plain words, e.g. kgroute ask \"which law governs the agreement?\"",
            args.question
        );
    }
    let batch = match args.batch.clone() {
        Some(b) => b,
        None => {
            let b = newest_indexed(Path::new("reports")).ok_or_else(|| {
                anyhow::anyhow!(
                    "no batch with a search index in reports/; give one with --batch DIR (made by `kgroute ingest`)"
                )
            })?;
            // Chosen for the user: said, so an answer is never read as
            // another batch's.
            eprintln!(
                "kgroute: asking {} (the newest batch in reports/; --batch DIR asks another)",
                b.display()
            );
            b
        }
    };
    crate::search::batch::check_exists(&batch)?;
    let incomplete = crate::ask::batch::incomplete(&batch);
    if let Some(why) = &incomplete {
        eprintln!("kgroute: warning: {why}");
    }
    let index = crate::search::SearchIndex::open(&batch)?;
    if args.contracts {
        return contracts(&args, &batch, &index, incomplete.is_some());
    }
    let doc_id = match &args.doc {
        None => None,
        Some(d) => Some(crate::ask::batch::resolve_doc(&index, &batch, d)?),
    };
    let grounding =
        match crate::ask::grounding::from_batch(&batch, &args.question, doc_id.as_deref())? {
            Some(g) => Some(g),
            None => crate::ask::grounding::neo4j::from_configured(
                args.neo4j.as_deref(),
                args.neo4j_database.as_deref(),
                &batch,
                &args.question,
                doc_id.as_deref(),
            )?,
        };
    if args.timeout == 0 {
        anyhow::bail!("--timeout must be at least 1 second, e.g. --timeout 60");
    }
    let llm =
        crate::extract::LlmConfig::from_env_and_flags(args.llm_url, args.model)?.map(|mut c| {
            c.timeout = std::time::Duration::from_secs(args.timeout);
            c
        });
    if llm.is_none() && args.rerank {
        anyhow::bail!("--rerank needs an LLM: give --llm-url and --model (or KGROUTE_LLM_URL and KGROUTE_MODEL)");
    }
    let client = llm.map(crate::llm::LlmClient::new).transpose()?;
    let question = crate::ask::conductor::Question {
        text: &args.question,
        doc: doc_id.as_deref(),
        top: args.top,
        grounding,
    };
    let step = client
        .as_ref()
        .map(|client| crate::ask::conductor::LlmStep {
            client,
            rerank: args.rerank,
            write_answer: !args.no_answer,
        });
    let mut answer = crate::ask::conductor::answer(&index, question, step)?;
    crate::ask::batch::name_by_relative_path(&index, &mut answer)?;
    let mut failed = incomplete.is_some();
    if let Some(e) = &answer.answer_error {
        eprintln!("kgroute: the LLM's answer failed (the sections found are printed): {e}");
        failed = true;
    }
    for p in &answer.problems {
        eprintln!("kgroute: {}", p.message);
        failed = true;
    }
    let text = match args.format {
        AskFormat::Text => crate::ask::render::text(&answer),
        AskFormat::Json => crate::ask::render::json(&answer)? + "\n",
    };
    // A closed pipe (`ask ... | head -1`) comes back as an error that main
    // treats as success; print! would panic.
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("writing the answer")?;
    Ok(if failed {
        Outcome::PartialFailure
    } else {
        Outcome::Success
    })
}

/// `ask --contracts`: the contracts that answer, with their facts.
fn contracts(
    args: &AskArgs,
    batch: &Path,
    index: &crate::search::SearchIndex,
    incomplete: bool,
) -> anyhow::Result<Outcome> {
    let answer = crate::ask::which_contracts::contracts(batch, index, &args.question)?;
    // A question naming what the batch does not hold is not answered.
    let mut failed = incomplete || !answer.unknown.is_empty();
    for p in &answer.problems {
        eprintln!("kgroute: {}", p.message);
        failed = true;
    }
    let text = match args.format {
        AskFormat::Text => crate::ask::which_contracts::render_text(&answer),
        AskFormat::Json => serde_json::to_string_pretty(&answer)? + "\n",
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("writing the answer")?;
    Ok(if failed {
        Outcome::PartialFailure
    } else {
        Outcome::Success
    })
}

/// The most recently modified batch folder under `dir` that has an index.
fn newest_indexed(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join(crate::search::INDEX_DIR).join("meta.json").exists())
        .max_by_key(|p| {
            std::fs::metadata(p.join(crate::search::INDEX_DIR).join("meta.json"))
                .and_then(|m| m.modified())
                .ok()
        })
}
