//! Natural questions about one filing each, asked over a batch of long
//! filings (issue 43), run by `scripts/ask-eval --ud`.
//!
//! The batch: the 47 filings of `ud_legal/docs` and the shared credit
//! agreements (`credit_agreements/`, `wide/credit_agreements/`) as
//! distractors, ingested offline into one index as `ingest` would (tree,
//! routing, section chunks), and the same texts cut into flat 512-token
//! windows for the baseline. Each question of `ud_legal/questions.json` is
//! asked over the whole batch; its rank is the place of the first unit
//! (section, or window for the baseline) of the filing it is about. Doc
//! hit@1 / hit@5 and MRR (over the first 10 units) are printed for the
//! tuning half (filings sorted by name, even positions) and the checking
//! half (odd positions): ranking options are chosen on the first and
//! judged on the second.
//!
//! With `--misses`, each tuning-half question whose filing's first unit is
//! at rank 2-5 under the default ranking is printed with the winner and the
//! right filing's best unit, and where each stands in the rankings the
//! fusion combines (never the checking half's questions one by one).
//!
//! Usage: cargo run --release --example ask_ud -- CORPORA_DIR [--grid] [--doc-k] [--repeat] [--titles] [--misses]

use kgroute::ask::docrank::DocRankOptions;
use kgroute::ask::eval::add_flat_windows;
use kgroute::ask::fuse::{self, FuseOptions};
use kgroute::ask::{docrank, expand};
use kgroute::ask::{rerank::RerankOptions, AskOptions, RetrieveOptions, SectionHit};
use kgroute::index::GraphabilityIndex;
use kgroute::route::RouteOptions;
use kgroute::search::SearchIndex;
use kgroute::search::{SearchIndexWriter, SectionPointer};
use kgroute::tree::source::ReadOptions;
use kgroute::tree::{build_tree, SourceText};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

const FLAT_TOKENS: usize = 512;
/// Units looked at per question (MRR's depth).
const DEPTH: usize = 10;

struct Question {
    text: String,
    doc_id: String,
    tune: bool,
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = PathBuf::from(
        args.iter()
            .find(|a| !a.starts_with("--"))
            .map(String::as_str)
            .unwrap_or("../shared/corpora"),
    );
    let grid = args.iter().any(|a| a == "--grid");
    let ud = root.join("ud_legal");
    let qpath = ud.join("questions.json");
    let raw: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(&qpath)
            .map_err(|e| anyhow::anyhow!("{}: {e}", qpath.display()))?,
    )?;

    let mut filings = files(&ud.join("docs"))?;
    filings.sort();
    let mut distractors = files(&root.join("credit_agreements"))?;
    distractors.extend(files(&root.join("wide/credit_agreements"))?);
    distractors.sort();

    let t = Instant::now();
    let indices = kgroute::index::IndexSet::load(&[PathBuf::from("indices")])?;
    let sections = SearchIndexWriter::in_ram()?;
    let flat = SearchIndexWriter::in_ram()?;
    let mut seen: HashSet<String> = HashSet::new();
    let mut titled: Vec<String> = Vec::new();
    // File name -> (doc id, tuning half?) for the questioned filings.
    let mut of: HashMap<String, (String, bool)> = HashMap::new();
    // Doc id -> what `--misses` says of a document.
    let mut about: HashMap<String, DocInfo> = HashMap::new();
    for (i, path) in filings.iter().chain(&distractors).enumerate() {
        let source = SourceText::read_with(path, &ReadOptions::default())?;
        let tree = build_tree(&source);
        if !seen.insert(tree.doc_id.clone()) {
            continue;
        }
        let (index, _) = indices
            .choose(&tree, &source, None)
            .map_err(anyhow::Error::msg)?;
        let empty = GraphabilityIndex::default();
        let plan = kgroute::route::plan(&tree, index.unwrap_or(&empty), &RouteOptions::default());
        sections.add(&plan, &source, path)?;
        add_flat_windows(&flat, &tree.doc_id, path, &source.text, FLAT_TOKENS)?;
        let title = kgroute::tree::title::document_title(&source.text);
        about.insert(
            tree.doc_id.clone(),
            DocInfo {
                name: path.file_name().unwrap().to_string_lossy().into_owned(),
                title: title.clone(),
                bytes: source.text.len(),
                distractor: i >= filings.len(),
            },
        );
        if let Some(t) = title {
            titled.push(t);
        }
        if i < filings.len() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            of.insert(name, (tree.doc_id.clone(), i % 2 == 0));
        }
    }
    let sections = sections.into_index()?;
    let flat = flat.into_index()?;
    let mut questions = Vec::new();
    for q in &raw {
        let (Some(text), Some(doc)) = (q["question"].as_str(), q["doc"].as_str()) else {
            anyhow::bail!(
                "{}: a question without `question` or `doc`",
                qpath.display()
            );
        };
        let Some((doc_id, tune)) = of.get(doc) else {
            anyhow::bail!("{}: question about {doc}, not in docs/", qpath.display());
        };
        questions.push(Question {
            text: text.to_string(),
            doc_id: doc_id.clone(),
            tune: *tune,
        });
    }
    let tune = questions.iter().filter(|q| q.tune).count();
    if args.iter().any(|a| a == "--misses") {
        return misses(&sections, &questions, &about);
    }
    println!(
        "ud_legal: {} filings + {} distractors ({} distinct), {} questions ({} tuning, {} checking); {} section chunks, {} flat windows; indexed in {:.1}s",
        filings.len(),
        distractors.len(),
        seen.len(),
        questions.len(),
        tune,
        questions.len() - tune,
        sections.chunk_count(),
        flat.chunk_count(),
        t.elapsed().as_secs_f64()
    );
    println!(
        "titles (search::title): {} of {} documents, e.g. {}",
        titled.len(),
        seen.len(),
        titled
            .iter()
            .take(4)
            .map(|t| format!("\"{t}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if args.iter().any(|a| a == "--titles") {
        for t in &titled {
            println!("  title: {t}");
        }
    }
    println!("rank: the first unit of the right filing among the first {DEPTH} (sections; flat: 512-token windows)\n");
    header();

    let ranks: Vec<Option<usize>> = questions
        .iter()
        .map(|q| {
            let hits = flat.search(&q.text, None, DEPTH)?;
            Ok(rank_of(hits.iter().map(|h| &h.pointer), &q.doc_id))
        })
        .collect::<anyhow::Result<_>>()?;
    report("flat 512-token chunks", &questions, &ranks);

    let before = AskOptions {
        fuse: FuseOptions::NONE,
        ..AskOptions::default()
    };
    let mut variants: Vec<(String, AskOptions)> = vec![
        (
            "sections alone (before issue 35)".into(),
            AskOptions {
                docs: DocRankOptions::NONE,
                ..before
            },
        ),
        ("sections + documents (before)".into(), before),
        (
            "default: fused with flat chunks and documents".into(),
            AskOptions::default(),
        ),
    ];
    if grid {
        variants.extend(grid_variants(before));
    }
    if args.iter().any(|a| a == "--doc-k") {
        // The document ranking's own constant, the rest as the default.
        for dk in [5.0, 10.0, 20.0, 30.0] {
            for dw in [1.0, 2.0] {
                let d = AskOptions::default();
                variants.push((
                    format!("default, document ranking k {dk} x{dw}"),
                    AskOptions {
                        fuse: FuseOptions {
                            doc_k: dk,
                            doc_weight: dw,
                            ..d.fuse
                        },
                        ..d
                    },
                ));
            }
        }
    }
    if args.iter().any(|a| a == "--repeat") {
        // How much each further section of a filing above counts against it.
        for disc in [0.8, 0.7, 0.5, 0.3] {
            let d = AskOptions::default();
            variants.push((
                format!("default, same-filing discount x{disc}"),
                AskOptions {
                    fuse: FuseOptions {
                        repeat_discount: disc,
                        ..d.fuse
                    },
                    ..d
                },
            ));
        }
    }
    for (name, o) in &variants {
        let ranks: Vec<Option<usize>> = questions
            .iter()
            .map(|q| {
                let hits = kgroute::ask::candidates_by(&sections, &q.text, None, DEPTH, None, o)?;
                Ok(rank_of(hits.iter().map(|h| &h.pointer), &q.doc_id))
            })
            .collect::<anyhow::Result<_>>()?;
        report(name, &questions, &ranks);
    }
    if grid {
        let ranks: Vec<Option<usize>> = questions
            .iter()
            .map(|q| {
                let hits: Vec<SectionHit> = fuse::chunk_ranking(&sections, &q.text, None, DEPTH)?;
                Ok(rank_of(hits.iter().map(|h| &h.pointer), &q.doc_id))
            })
            .collect::<anyhow::Result<_>>()?;
        report(
            "flat-chunk ranking of the sections' chunks",
            &questions,
            &ranks,
        );
    }
    Ok(())
}

/// Every variant measured (docs/ask-retrieval.md has their figures).
fn grid_variants(before: AskOptions) -> Vec<(String, AskOptions)> {
    let mut out = Vec::new();
    let r = RetrieveOptions::default();
    let fo = |k: f32, w: f32, dw: f32, dc: usize| FuseOptions {
        k,
        chunk_weight: w,
        depth: 50,
        doc_weight: dw,
        doc_chunks: dc,
        doc_k: k,
        repeat_discount: 1.0,
    };
    let with = |docs: DocRankOptions, f: FuseOptions, across: Option<RetrieveOptions>| AskOptions {
        retrieve: r,
        across,
        docs,
        fuse: f,
    };
    for (k, w) in [(60.0, 1.0), (60.0, 2.0), (10.0, 1.0), (10.0, 2.0)] {
        out.push((
            format!("fused k {k} chunks x{w}, + documents"),
            with(before.docs, fo(k, w, 0.0, 0), None),
        ));
    }
    out.push((
        "fused k 60 chunks x1, sections alone".into(),
        with(DocRankOptions::NONE, fo(60.0, 1.0, 0.0, 0), None),
    ));
    for (w, dw, dc) in [
        (1.0, 1.0, 3),
        (1.0, 2.0, 3),
        (1.0, 1.0, 1),
        (1.0, 1.0, 10),
        (2.0, 2.0, 3),
    ] {
        for docs in [before.docs, DocRankOptions::NONE] {
            out.push((
                format!(
                    "fused k 60 chunks x{w} docs(top {dc}) x{dw}, {}",
                    if docs == DocRankOptions::NONE {
                        "sections alone"
                    } else {
                        "+ documents"
                    }
                ),
                with(docs, fo(60.0, w, dw, dc), None),
            ));
        }
    }
    for (w, dw, disc) in [
        (1.0, 2.0, 0.9),
        (1.0, 2.0, 0.7),
        (2.0, 2.0, 0.9),
        (1.0, 3.0, 1.0),
        (2.0, 3.0, 1.0),
    ] {
        out.push((
            format!("fused k 60 chunks x{w} docs(top 3) x{dw} repeat x{disc}, + documents"),
            with(
                before.docs,
                FuseOptions {
                    repeat_discount: disc,
                    ..fo(60.0, w, dw, 3)
                },
                None,
            ),
        ));
    }
    let no_feedback = RetrieveOptions {
        feedback_terms: 0,
        title_terms: 0,
        ..r
    };
    let no_titles = RetrieveOptions {
        title_terms: 0,
        ..r
    };
    let proximity = RetrieveOptions {
        rerank: RerankOptions {
            proximity: 0.5,
            ..RerankOptions::NONE
        },
        ..r
    };
    for (name, rr) in [
        ("no expansion, no title words", no_feedback),
        ("no title words", no_titles),
        ("proximity 0.5", proximity),
    ] {
        out.push((
            format!("across: {name}, + documents"),
            with(before.docs, FuseOptions::NONE, Some(rr)),
        ));
        out.push((
            format!("across: {name}, fused k 60 chunks x1, + documents"),
            with(before.docs, fo(60.0, 1.0, 0.0, 0), Some(rr)),
        ));
        out.push((
            format!("across: {name}, fused k 60 chunks x1 docs(top 3) x1, + documents"),
            with(before.docs, fo(60.0, 1.0, 1.0, 3), Some(rr)),
        ));
        out.push((
            format!("across: {name}, fused k 60 chunks x1 docs(top 3) x2, + documents"),
            with(before.docs, fo(60.0, 1.0, 2.0, 3), Some(rr)),
        ));
    }
    out
}

/// A document of the batch, as `--misses` names it.
struct DocInfo {
    name: String,
    title: Option<String>,
    bytes: usize,
    distractor: bool,
}

/// The rankings the default fusion combines for one question.
struct Parts {
    /// Section ranking before documents count (expanded query, breadcrumbs).
    raw: Vec<SectionHit>,
    /// The same after `docrank` (rare-word document BM25, best documents'
    /// sections pooled): the section ranking the fusion reads.
    sections: Vec<SectionHit>,
    /// Rare-word document BM25 (`docrank::doc_scores`), best first.
    bm25: Vec<(String, f32)>,
    /// Flat-chunk ranking (plain words, body only), by section.
    chunks: Vec<SectionHit>,
    /// Documents by their best 3 plain chunk scores.
    docs: Vec<String>,
    /// The fused ranking (as `candidates_by`, untruncated).
    fused: Vec<SectionHit>,
}

fn parts(index: &SearchIndex, question: &str) -> anyhow::Result<Parts> {
    let o = AskOptions::default();
    let depth = DEPTH.max(o.fuse.depth);
    let query = expand::query(index, question, &o.retrieve)?;
    let raw = kgroute::ask::retrieve_query(index, &query, None, depth, &o.retrieve)?;
    let bm25 = docrank::doc_scores(index, question, &o.docs)?;
    let mut sections = raw.clone();
    docrank::fuse(&mut sections, &bm25, &o.docs, |d, n| {
        kgroute::ask::retrieve_query(index, &query, Some(d), n, &o.retrieve)
    })?;
    let plain = fuse::plain_chunks(index, question, None, depth)?;
    let docs = fuse::doc_ranking(&plain, o.fuse.doc_chunks.max(1));
    let chunks = fuse::chunk_ranking(index, question, None, depth)?;
    let fused = fuse::fuse(index, question, sections.clone(), depth, &o.fuse)?;
    Ok(Parts {
        raw,
        sections,
        bm25,
        chunks,
        docs,
        fused,
    })
}

fn same(a: &SectionPointer, b: &SectionPointer) -> bool {
    a.doc_id == b.doc_id && a.node_id == b.node_id
}

/// 1-based place of `p`'s section in `list`, "-" when absent.
fn place_of(list: &[SectionHit], p: &SectionPointer) -> String {
    list.iter()
        .position(|h| same(&h.pointer, p))
        .map_or("-".into(), |r| (r + 1).to_string())
}

/// 1-based place of `doc`'s best section in `list`, "-" when absent.
fn doc_place(list: &[SectionHit], doc: &str) -> String {
    list.iter()
        .position(|h| h.pointer.doc_id == doc)
        .map_or("-".into(), |r| (r + 1).to_string())
}

fn in_docs<'a>(docs: impl Iterator<Item = &'a str>, doc: &str) -> String {
    docs.into_iter()
        .position(|d| d == doc)
        .map_or("-".into(), |r| (r + 1).to_string())
}

/// The tuning-half questions whose filing comes 2nd to 5th, with the
/// rankings behind the first place.
fn misses(
    index: &SearchIndex,
    questions: &[Question],
    about: &HashMap<String, DocInfo>,
) -> anyhow::Result<()> {
    let name = |doc: &str| match about.get(doc) {
        Some(d) => format!(
            "{}{} ({} KB) \"{}\"",
            if d.distractor { "[distractor] " } else { "" },
            d.name,
            d.bytes / 1024,
            d.title.as_deref().unwrap_or("(no title)")
        ),
        None => doc.to_string(),
    };
    let (mut n, mut shown) = (0usize, 0usize);
    for q in questions.iter().filter(|q| q.tune) {
        n += 1;
        let hits =
            kgroute::ask::candidates_by(index, &q.text, None, DEPTH, None, &AskOptions::default())?;
        let Some(rank) = rank_of(hits.iter().map(|h| &h.pointer), &q.doc_id) else {
            continue;
        };
        if !(2..=5).contains(&rank) {
            continue;
        }
        shown += 1;
        let p = parts(index, &q.text)?;
        let agrees = p
            .fused
            .iter()
            .zip(&hits)
            .all(|(a, b)| same(&a.pointer, &b.pointer));
        let query = expand::query(index, &q.text, &RetrieveOptions::default())?;
        println!(
            "=== miss {shown}: rank {rank}{}",
            if agrees {
                ""
            } else {
                " (parts disagree with candidates_by!)"
            }
        );
        println!("Q: {}", q.text);
        println!(
            "  question words: {}",
            query.terms[..query.asked]
                .iter()
                .zip(&query.rarity)
                .map(|((t, _), r)| format!("{t}({r:.1})"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        println!(
            "  expansion: {} | titles: {}",
            query.terms[query.asked..]
                .iter()
                .take(10)
                .map(|(t, w)| format!("{t}:{w:.2}"))
                .collect::<Vec<_>>()
                .join(" "),
            query
                .titles
                .iter()
                .take(8)
                .map(|(t, w)| format!("{t}:{w:.2}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        println!(
            "  rare-word doc BM25 (top 5): {}",
            p.bm25
                .iter()
                .take(5)
                .map(|(d, s)| format!(
                    "{}{}:{s:.1}",
                    if *d == q.doc_id { "*" } else { "" },
                    about.get(d).map_or(d.as_str(), |i| &i.name[..8])
                ))
                .collect::<Vec<_>>()
                .join(" ")
        );
        let words = index.terms(&q.text);
        let stats = index.doc_term_stats(&words)?;
        let at = |doc: &str| stats.docs.iter().position(|d| d == doc);
        let (w, r) = (at(&p.fused[0].pointer.doc_id), at(&q.doc_id));
        let tf = |counts: &[(usize, u32)], d: Option<usize>| {
            d.and_then(|d| counts.iter().find(|c| c.0 == d))
                .map_or(0, |c| c.1)
        };
        println!(
            "  words (documents using it of {}; uses in winner / right): {}",
            stats.docs.len(),
            words
                .iter()
                .zip(&stats.counts)
                .map(|(t, c)| format!("{t}({} {}/{})", c.len(), tf(c, w), tf(c, r)))
                .collect::<Vec<_>>()
                .join(" ")
        );
        println!("  top {rank}:");
        for (i, h) in p.fused.iter().take(rank).enumerate() {
            println!(
                "    {}. {:.4} {}{} | {}",
                i + 1,
                h.score,
                if h.pointer.doc_id == q.doc_id {
                    "* "
                } else {
                    ""
                },
                &about.get(&h.pointer.doc_id).map_or("?", |d| &d.name[..8]),
                h.pointer.breadcrumb
            );
        }
        let winner = &p.fused[0];
        let right = &p.fused[rank - 1];
        for (label, h) in [("winner", winner), ("right ", right)] {
            let d = &h.pointer.doc_id;
            println!("  {label}: {}", name(d));
            println!(
                "    unit: fused #{} score {:.4}; title \"{}\"; crumb \"{}\"",
                place_of(&p.fused, &h.pointer),
                h.score,
                h.pointer.title,
                h.pointer.breadcrumb
            );
            println!(
                "    unit ranks: sections raw {} / +docrank {}; flat chunks {}; doc(chunk-sum) {}; doc(rare BM25) {}",
                place_of(&p.raw, &h.pointer),
                place_of(&p.sections, &h.pointer),
                place_of(&p.chunks, &h.pointer),
                in_docs(p.docs.iter().map(String::as_str), d),
                in_docs(p.bm25.iter().map(|(d, _)| d.as_str()), d),
            );
            println!(
                "    filing's best: sections raw {} / +docrank {}; flat chunks {}",
                doc_place(&p.raw, d),
                doc_place(&p.sections, d),
                doc_place(&p.chunks, d),
            );
        }
    }
    println!("\n{shown} of {n} tuning questions with the filing at rank 2-5");
    Ok(())
}

fn rank_of<'a>(units: impl Iterator<Item = &'a SectionPointer>, doc_id: &str) -> Option<usize> {
    units
        .take(DEPTH)
        .position(|p| p.doc_id == doc_id)
        .map(|r| r + 1)
}

fn header() {
    println!(
        "{:52} | {:^26} | {:^26}",
        "variant", "tuning: hit@1 hit@5 MRR", "checking: hit@1 hit@5 MRR"
    );
}

fn report(name: &str, questions: &[Question], ranks: &[Option<usize>]) {
    let mut line = format!("{name:52}");
    for tune in [true, false] {
        let (mut n, mut h1, mut h5, mut rr) = (0usize, 0usize, 0usize, 0.0f64);
        for (q, r) in questions.iter().zip(ranks) {
            if q.tune != tune {
                continue;
            }
            n += 1;
            h1 += usize::from(*r == Some(1));
            h5 += usize::from(r.is_some_and(|r| r <= 5));
            rr += r.map_or(0.0, |r| 1.0 / r as f64);
        }
        let pct = |a: usize| 100.0 * a as f64 / n.max(1) as f64;
        line += &format!(
            " | {:6.1}% {:6.1}% {:5.3}  ",
            pct(h1),
            pct(h5),
            rr / n.max(1) as f64
        );
    }
    println!("{line}");
}

fn files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    Ok(rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("txt") | Some("md")
            )
        })
        .collect())
}
