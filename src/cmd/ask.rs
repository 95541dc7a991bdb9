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

Needs the batch's search index (written by `ingest`; `kgroute index-search
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

/// Candidates the LLM re-ranks per section asked for.
const RERANK_POOL: usize = 4;

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
        None => newest_indexed(Path::new("reports")).ok_or_else(|| {
            anyhow::anyhow!(
                "no batch with a search index in reports/; give one with --batch DIR (made by `kgroute ingest`)"
            )
        })?,
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
            None => ground_in_neo4j(&args, &batch, doc_id.as_deref())?,
        };
    let llm = crate::extract::LlmConfig::from_env_and_flags(args.llm_url, args.model)?;
    let mut answer = match llm {
        None => {
            if args.rerank {
                anyhow::bail!("--rerank needs an LLM: give --llm-url and --model (or KGROUTE_LLM_URL and KGROUTE_MODEL)");
            }
            crate::ask::ask(
                &index,
                &args.question,
                doc_id.as_deref(),
                args.top,
                grounding,
            )?
        }
        Some(cfg) => {
            let client = crate::llm::LlmClient::new(cfg)?;
            let pool = if args.rerank {
                args.top * RERANK_POOL
            } else {
                args.top
            };
            let mut hits = crate::ask::candidates(
                &index,
                &args.question,
                doc_id.as_deref(),
                pool,
                grounding.as_ref(),
            )?;
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            // A failed LLM step loses nothing retrieval found: a failed
            // re-ranking keeps retrieval's order, a failed answer still
            // prints the sections (and exits 1, saying why).
            if args.rerank && hits.len() > 1 {
                let pool = hits.clone();
                match rt.block_on(crate::ask::llm::rerank(&client, &args.question, hits)) {
                    Ok(reranked) => hits = reranked,
                    Err(e) => {
                        eprintln!("kgroute: warning: re-ranking failed, sections in retrieval order: {e:#}");
                        hits = pool;
                    }
                }
            }
            let read = crate::ask::read_or_refill(hits, args.top, |more| {
                crate::ask::candidates(
                    &index,
                    &args.question,
                    doc_id.as_deref(),
                    more,
                    grounding.as_ref(),
                )
            })?;
            let sections = read.sections;
            let (written, answer_error) = if args.no_answer || sections.is_empty() {
                (None, None)
            } else {
                match rt.block_on(crate::ask::llm::answer(&client, &args.question, &sections)) {
                    Ok(a) => (Some(a), None),
                    Err(e) => (None, Some(format!("{e:#}"))),
                }
            };
            crate::ask::Answer {
                question: args.question.clone(),
                sections,
                grounding,
                answer: written,
                answer_error,
                problems: read.problems,
            }
        }
    };
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
    let answer = crate::ask::contracts::contracts(batch, index, &args.question)?;
    let mut failed = incomplete;
    for p in &answer.problems {
        eprintln!("kgroute: {}", p.message);
        failed = true;
    }
    let text = match args.format {
        AskFormat::Text => crate::ask::contracts::render_text(&answer),
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

/// Grounding for a batch without graph files: from Neo4j when one is
/// configured, else nothing (with a note when the batch's graph is there).
fn ground_in_neo4j(
    args: &AskArgs,
    batch: &Path,
    doc_id: Option<&str>,
) -> anyhow::Result<Option<crate::ask::grounding::Grounding>> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let summary = read_summary(batch);
    let Some(uri) = args.neo4j.clone().or_else(|| env("NEO4J_URI")) else {
        let sink = summary
            .as_ref()
            .and_then(|s| s["sink"].as_str().map(str::to_string));
        if let Some(sink) = sink.filter(|s| s.starts_with("Neo4j")) {
            eprintln!(
                "kgroute: note: not grounded in the graph: the batch's graph is in {sink}; give --neo4j URI (or NEO4J_URI) to use it"
            );
        }
        return Ok(None);
    };
    let docs: Vec<String> = match doc_id {
        Some(d) => vec![d.to_string()],
        None => summary
            .as_ref()
            .and_then(|s| s["per_document"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|d| d["doc_id"].as_str().map(str::to_string))
            .collect(),
    };
    if docs.is_empty() {
        anyhow::bail!(
            "{}: no summary.json listing the batch's documents, so the graph in Neo4j cannot be limited to them; finish the batch (ingest --resume) first",
            batch.display()
        );
    }
    let password = crate::secret::Secret::new(env("NEO4J_PASSWORD").unwrap_or_default());
    let user = env("NEO4J_USERNAME").unwrap_or_else(|| "neo4j".into());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let db = crate::sink::neo4j::Neo4jSink::connect(
            &uri,
            &user,
            &password,
            args.neo4j_database.as_deref(),
            1,
        )
        .await?;
        crate::ask::grounding_neo4j::from_neo4j(db.graph(), &args.question, &docs)
            .await
            .map(Some)
    })
}

/// The batch's summary.json, when there is one that parses.
fn read_summary(batch: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(batch.join("summary.json")).ok()?;
    serde_json::from_str(&text).ok()
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
