//! Document questions over a whole corpus (issue 35 item 1), run by
//! `scripts/ask-eval --docs`.
//!
//! The question set is generated from the documents of `../shared/corpora`
//! (CUAD's 260 contracts, `wide/`, `credit_agreements/`, `other/`), with a
//! fixed seed: for each document, questions that name its own terms (a
//! defined term, a party's short name among them, that it says at least 3
//! times and at most 2 documents of the corpus say) together with a generic
//! clause topic the document mentions ("termination", "governing law"...),
//! the shape where another contract's generic clause title beat the words
//! that identify the document. Each is asked over the whole corpus; a hit
//! at k is the right document among the documents of the first k units
//! (sections for kgroute, 512-token windows for the flat baseline).
//!
//! Split as everywhere: in each folder, files sorted by name, even positions
//! tune, odd check. The grid of document-ranking options is printed for both
//! halves; the defaults were chosen on the tuning half.
//!
//! Usage: cargo run --example ask_docs -- CORPORA_DIR [--print-questions] [--grid]

use kgroute::ask::docrank::DocRankOptions;
use kgroute::ask::eval::add_flat_windows;
use kgroute::index::GraphabilityIndex;
use kgroute::route::RouteOptions;
use kgroute::search::SearchIndexWriter;
use kgroute::tree::source::ReadOptions;
use kgroute::tree::{build_tree, SourceText};
use regex::Regex;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

const SEED: &str = "kgroute-ask-docs-v1";
const FLAT_TOKENS: usize = 512;
/// Questions per document (at most).
const PER_DOC: usize = 2;

/// Generic clause topics: (a word the document must say, the question's
/// wording). None of them names a document.
const TOPICS: &[(&str, &str)] = &[
    ("terminat", "When can the agreement be terminated"),
    ("governed by", "Which law governs the agreement"),
    ("confidential", "What are the confidentiality obligations"),
    ("indemnif", "Who must indemnify whom"),
    ("assign", "Can the agreement be assigned"),
    ("notice", "How must notices be given"),
    ("insurance", "What insurance must be maintained"),
    ("warrant", "What warranties are given"),
    ("payment", "What are the payment terms"),
    (
        "intellectual property",
        "Who owns the intellectual property",
    ),
    ("conditions precedent", "What are the conditions precedent"),
    ("audit", "What audit rights are there"),
    ("force majeure", "What does the force majeure clause say"),
    ("liabilit", "How is liability limited"),
];

struct Doc {
    key: String,
    doc_id: String,
    tune: bool,
    text: String,
}

struct Question {
    doc: usize,
    text: String,
}

fn pick(key: &str, i: usize, n: usize) -> usize {
    let h = Sha256::digest(format!("{SEED}|{key}|{i}").as_bytes());
    (u64::from_le_bytes(h[..8].try_into().unwrap()) % n.max(1) as u64) as usize
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = PathBuf::from(
        args.iter()
            .find(|a| !a.starts_with("--"))
            .map(String::as_str)
            .unwrap_or("../shared/corpora"),
    );
    let print = args.iter().any(|a| a == "--print-questions");
    let grid = args.iter().any(|a| a == "--grid");

    // Every document, split per folder.
    let mut folders: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for sub in ["cuad", "wide", "credit_agreements", "other"] {
        walk(&root.join(sub), &mut folders)?;
    }
    let indices = kgroute::index::IndexSet::load(&[PathBuf::from("indices")])?;
    let sections = SearchIndexWriter::in_ram()?;
    let flat = SearchIndexWriter::in_ram()?;
    let mut docs: Vec<Doc> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for files in folders.values() {
        for (i, path) in files.iter().enumerate() {
            let source = SourceText::read_with(path, &ReadOptions::default())?;
            let tree = build_tree(&source);
            if !seen.insert(tree.doc_id.clone()) {
                continue; // the same text under two folders
            }
            let (index, _) = indices
                .choose(&tree, &source, None)
                .map_err(anyhow::Error::msg)?;
            let empty = GraphabilityIndex::default();
            let plan =
                kgroute::route::plan(&tree, index.unwrap_or(&empty), &RouteOptions::default());
            sections.add(&plan, &source, path)?;
            add_flat_windows(&flat, &tree.doc_id, path, &source.text, FLAT_TOKENS)?;
            docs.push(Doc {
                key: path
                    .strip_prefix(&root)
                    .unwrap_or(path)
                    .display()
                    .to_string(),
                doc_id: tree.doc_id.clone(),
                tune: i % 2 == 0,
                text: source.text.clone(),
            });
        }
    }
    let sections = sections.into_index()?;
    let flat = flat.into_index()?;
    let questions = make_questions(&docs);
    let tune = questions.iter().filter(|q| docs[q.doc].tune).count();
    println!(
        "{} documents, {} questions ({} tuning, {} checking), seed {SEED}",
        docs.len(),
        questions.len(),
        tune,
        questions.len() - tune
    );
    if print {
        for q in &questions {
            println!("  {} | {}", docs[q.doc].key, q.text);
        }
    }

    // Flat baseline: the documents of the first 5 windows.
    let mut flat_ranks = Vec::new();
    for q in &questions {
        let hits = flat.search(&q.text, None, 5)?;
        flat_ranks.push(
            hits.iter()
                .position(|h| h.pointer.doc_id == docs[q.doc].doc_id)
                .map(|r| r + 1),
        );
    }
    report("flat 512-token chunks", &questions, &docs, &flat_ranks);

    let mut variants: Vec<(String, DocRankOptions)> = vec![
        ("sections alone (before)".into(), DocRankOptions::NONE),
        (
            "sections + documents (before issue 43)".into(),
            DocRankOptions::default(),
        ),
    ];
    if grid {
        // The last grid run (the earlier ones are in docs/ask.md).
        for (rare, chunk_max) in [(0.3f32, false), (1.0, false), (1.0, true)] {
            for weight in [1.0f32, 4.0, 1000.0] {
                let o = DocRankOptions {
                    rare_share: rare,
                    weight,
                    docs_searched: 5,
                    sections_per_doc: 5,
                    chunk_max,
                };
                variants.push((
                    format!("rare {rare} chunk-max {chunk_max} weight {weight}"),
                    o,
                ));
            }
        }
    }

    for (v, (name, o)) in variants.iter().enumerate() {
        let mut ranks = Vec::new();
        for q in &questions {
            // The grid's variants are run on the tuning half only.
            if v >= 2 && !docs[q.doc].tune {
                ranks.push(None);
                continue;
            }
            let hits = kgroute::ask::candidates_with(&sections, &q.text, None, 5, None, o)?;
            ranks.push(
                hits.iter()
                    .position(|h| h.pointer.doc_id == docs[q.doc].doc_id)
                    .map(|r| r + 1),
            );
        }
        report(name, &questions, &docs, &ranks);
        if v == 1 {
            // The default of `ask`: the flat-chunk ranking fused in.
            let o = kgroute::ask::AskOptions::default();
            let mut ranks = Vec::new();
            for q in &questions {
                let hits = kgroute::ask::candidates_by(&sections, &q.text, None, 5, None, &o)?;
                ranks.push(
                    hits.iter()
                        .position(|h| h.pointer.doc_id == docs[q.doc].doc_id)
                        .map(|r| r + 1),
                );
            }
            report(
                "default: fused with flat chunks (issue 43)",
                &questions,
                &docs,
                &ranks,
            );
        }
    }
    Ok(())
}

fn report(name: &str, questions: &[Question], docs: &[Doc], ranks: &[Option<usize>]) {
    let mut line = format!("{name:48}");
    for tune in [true, false] {
        let (mut n, mut h1, mut h5) = (0usize, 0usize, 0usize);
        for (q, r) in questions.iter().zip(ranks) {
            if docs[q.doc].tune != tune {
                continue;
            }
            n += 1;
            h1 += usize::from(*r == Some(1));
            h5 += usize::from(r.is_some_and(|r| r <= 5));
        }
        if !tune && name.starts_with("rare ") {
            break;
        }
        let pct = |a: usize| 100.0 * a as f64 / n.max(1) as f64;
        line += &format!(
            "  {}: doc hit@1 {:5.1}% hit@5 {:5.1}%",
            if tune { "tune" } else { "check" },
            pct(h1),
            pct(h5)
        );
    }
    println!("{line}");
}

/// For each document, up to [`PER_DOC`] questions naming its own rare
/// terms with a generic topic it mentions.
fn make_questions(docs: &[Doc]) -> Vec<Question> {
    let defined = Regex::new(
        r#"\(\s*(?:the\s+|hereinafter\s+(?:referred\s+to\s+as\s+)?(?:the\s+)?)?["“]([A-Z][A-Za-z0-9&.\- ]{2,50})["”]\s*\)"#,
    )
    .unwrap();
    let lower: Vec<String> = docs.iter().map(|d| d.text.to_lowercase()).collect();
    let mut out = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        // Defined terms the document repeats and few documents say.
        let mut terms: Vec<String> = Vec::new();
        for c in defined.captures_iter(&d.text) {
            let t = c[1].trim().to_string();
            if terms.contains(&t) || kgroute::search::reader::analysed(&t).is_empty() {
                continue;
            }
            if d.text.matches(t.as_str()).count() < 3 {
                continue;
            }
            let lt = t.to_lowercase();
            let users = lower.iter().filter(|l| l.contains(&lt)).count();
            if users <= 2 {
                terms.push(t);
            }
        }
        if terms.is_empty() {
            continue;
        }
        let topics: Vec<&(&str, &str)> = TOPICS
            .iter()
            .filter(|(w, _)| lower[i].contains(w))
            .collect();
        if topics.is_empty() {
            continue;
        }
        let mut used: HashSet<usize> = HashSet::new();
        for k in 0..PER_DOC.min(terms.len()) {
            let mut t = pick(&d.key, 2 * k, terms.len());
            while !used.insert(t) {
                t = (t + 1) % terms.len();
            }
            let topic = topics[pick(&d.key, 2 * k + 1, topics.len())];
            out.push(Question {
                doc: i,
                text: format!("{} concerning the {}?", topic.1, terms[t]),
            });
        }
    }
    out
}

fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<PathBuf>>) -> anyhow::Result<()> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("txt") | Some("md")
        ) && !p.to_string_lossy().contains("/labels/")
        {
            out.entry(dir.to_path_buf()).or_default().push(p);
        }
    }
    Ok(())
}
