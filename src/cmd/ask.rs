//! `kgroute ask "question"`: the sections of an ingested batch that answer a
//! question, each printed whole (document, breadcrumb, lines, text read by
//! its pointer from the source file).

use super::Outcome;
use std::path::{Path, PathBuf};

const AFTER_HELP: &str = "\
Examples:
  kgroute ingest fixtures/ --out reports/fixtures
  kgroute ask \"which law governs the agreement?\" --batch reports/fixtures
  kgroute ask \"termination for convenience\" --doc supply_agreement.txt --top 1 --format json

Needs the batch's search index (written by `ingest`; `kgroute index-search
BATCH` builds it for an older batch). Works offline.";

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
}

/// Candidates the LLM re-ranks per section asked for.
const RERANK_POOL: usize = 4;

pub fn run(args: AskArgs) -> anyhow::Result<Outcome> {
    if args.top == 0 {
        anyhow::bail!("--top must be at least 1, e.g. --top 3");
    }
    let batch = match args.batch {
        Some(b) => b,
        None => newest_indexed(Path::new("reports")).ok_or_else(|| {
            anyhow::anyhow!(
                "no batch with a search index in reports/; give one with --batch DIR (made by `kgroute ingest`)"
            )
        })?,
    };
    let index = crate::search::SearchIndex::open(&batch)?;
    let doc_id = match &args.doc {
        None => None,
        Some(d) => Some(index.resolve_doc(d)?.ok_or_else(|| {
            anyhow::anyhow!(
                "{d}: no such document in {}; give its file name or doc id as ingested",
                batch.display()
            )
        })?),
    };
    let grounding = crate::ask::grounding::from_files(&batch, &args.question, doc_id.as_deref())?;
    let llm = crate::extract::LlmConfig::from_env_and_flags(args.llm_url, args.model)?;
    let answer = match llm {
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
            if args.rerank && hits.len() > 1 {
                hits = rt.block_on(crate::ask::llm::rerank(&client, &args.question, hits))?;
            }
            hits.truncate(args.top);
            let sections = crate::ask::read_sections(&hits)?;
            let written = if args.no_answer || sections.is_empty() {
                None
            } else {
                Some(rt.block_on(crate::ask::llm::answer(&client, &args.question, &sections))?)
            };
            crate::ask::Answer {
                question: args.question.clone(),
                sections,
                grounding,
                answer: written,
            }
        }
    };
    match args.format {
        AskFormat::Text => print!("{}", crate::ask::render::text(&answer)),
        AskFormat::Json => println!("{}", crate::ask::render::json(&answer)?),
    }
    Ok(Outcome::Success)
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
