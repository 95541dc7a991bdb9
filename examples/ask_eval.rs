//! Retrieval evaluation of `kgroute ask` on CUAD (run by `scripts/ask-eval`).
//!
//! For each contract and each labelled category, asks the category's
//! question within that contract; a hit is a returned unit (a section for
//! kgroute, a 512-token window for the flat baseline) overlapping a span the
//! lawyers labelled. Prints hit@1, hit@3 and MRR overall and per category for
//! the tuning half (even positions of each type folder sorted by name) and
//! the checking half (odd positions), then a corpus-wide check: which
//! contracts have a clause of a category, from the index alone, as
//! precision/recall against the labels.
//!
//! `--variants` first prints hit@1/hit@3 on the tuning half for a grid of
//! retrieval options (how the defaults of `RetrieveOptions` were chosen).
//!
//! `--chunk-sizes` does the same for sections cut into other chunk sizes.
//!
//! `--structure` prints both halves for the title words learned from the
//! corpus and the tree-shaped reorderings of `ask::structure`.
//!
//! `--rerank` prints both halves for a question's repeated words, the
//! chunk re-weightings of `ask::rerank` and a section's second chunk.
//!
//! Usage: cargo run --example ask_eval -- CUAD_DIR [--per-category] [--variants] [--chunk-sizes] [--structure] [--rerank]

use kgroute::ask::eval::{add_flat_windows, find_collapsed, RankScores};
use kgroute::ask::expand::{query, query_terms, Query};
use kgroute::ask::{rank_sections_with, retrieve_query, retrieve_terms, RetrieveOptions};
use kgroute::index::GraphabilityIndex;
use kgroute::route::RouteOptions;
use kgroute::search::reader::WeightedTerm;
use kgroute::search::{SearchIndex, SearchIndexWriter};
use kgroute::tree::source::ReadOptions;
use kgroute::tree::{build_tree, SourceText};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::time::Instant;

/// Tokens per flat baseline chunk (the seed articles' baseline).
const FLAT_TOKENS: usize = 512;
/// Ranks looked at for MRR.
const DEPTH: usize = 10;

struct Contract {
    key: String,
    doc_id: String,
    dev: bool,
    /// Category -> labelled byte spans found in the text.
    spans: BTreeMap<String, Vec<(usize, usize)>>,
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(
        args.iter()
            .find(|a| !a.starts_with("--"))
            .map(String::as_str)
            .unwrap_or("../shared/corpora/cuad"),
    );
    let per_category = args.iter().any(|a| a == "--per-category");
    let variants = args.iter().any(|a| a == "--variants");
    let description_only = args.iter().any(|a| a == "--description-only");
    let labels: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("labels.json"))?)?;
    let cats: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("categories.json"))?)?;
    // labels.json spells some categories differently from categories.json
    // (`Cap On Liability`, `Rofr/Rofo/Rofn`): each label name takes the
    // category whose words it shares most.
    let label_names: std::collections::BTreeSet<String> = labels
        .as_object()
        .into_iter()
        .flat_map(|m| m.values())
        .filter_map(|e| e["clauses"].as_object())
        .flat_map(|c| c.keys().cloned())
        .collect();
    let mut questions: HashMap<String, String> = HashMap::new();
    for name in &label_names {
        let best = cats
            .iter()
            .map(|c| {
                (
                    name_overlap(name, c["category"].as_str().unwrap_or_default()),
                    c,
                )
            })
            .max_by(|a, b| a.0.total_cmp(&b.0));
        match best {
            Some((score, c)) if score > 0.0 => {
                let q = c["description"].as_str().unwrap_or_default();
                // The question as a user asks it: the category's name and its
                // description (`--description-only`: the description alone).
                let q = if description_only {
                    q.to_string()
                } else {
                    format!("{}: {q}", c["category"].as_str().unwrap_or_default())
                };
                questions.insert(name.clone(), q);
            }
            _ => eprintln!(
                "ask-eval: label category `{name}` has no question in categories.json; left out"
            ),
        }
    }

    // The split: within each type folder, files sorted by name, even = dev.
    let mut files: Vec<(String, bool)> = Vec::new();
    let mut types: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    types.sort();
    for t in types {
        let mut names: Vec<String> = std::fs::read_dir(&t)?
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter(|n| n.ends_with(".txt"))
            .collect();
        names.sort();
        let tname = t.file_name().unwrap().to_string_lossy().into_owned();
        for (i, n) in names.into_iter().enumerate() {
            files.push((format!("{tname}/{n}"), i % 2 == 0));
        }
    }

    let indices = kgroute::index::IndexSet::load(&[PathBuf::from("indices")])?;
    let misses_of = std::env::var("KGROUTE_ASK_MISSES").ok();
    let sections = SearchIndexWriter::in_ram()?;
    // --variants: the same sections cut into smaller and larger chunks.
    let sized: Vec<(usize, SearchIndexWriter)> = if args.iter().any(|a| a == "--chunk-sizes") {
        [450, 1800]
            .into_iter()
            .map(|b| Ok((b, SearchIndexWriter::in_ram()?)))
            .collect::<anyhow::Result<_>>()?
    } else {
        Vec::new()
    };
    let flat = SearchIndexWriter::in_ram()?;
    let (mut t_tree, mut t_sections, mut t_flat) = (0.0, 0.0, 0.0);
    let mut contracts = Vec::new();
    let (mut labelled, mut located) = (0usize, 0usize);
    for (key, dev) in &files {
        let Some(entry) = labels.get(key) else {
            continue;
        };
        let path = dir.join(key);
        let source = SourceText::read_with(&path, &ReadOptions::default())?;
        let t = Instant::now();
        let tree = build_tree(&source);
        // Routed as `ingest` routes it: the type detected from indices/.
        let (index, _) = indices
            .choose(&tree, &source, None)
            .map_err(anyhow::Error::msg)?;
        let empty = GraphabilityIndex::default();
        let plan = kgroute::route::plan(&tree, index.unwrap_or(&empty), &RouteOptions::default());
        t_tree += t.elapsed().as_secs_f64();
        let t = Instant::now();
        sections.add(&plan, &source, &path)?;
        for (bytes, w) in &sized {
            let (p, c) = kgroute::search::chunk::section_chunks_sized(
                &plan,
                &source,
                &path.display().to_string(),
                *bytes,
            );
            w.add_chunks(&p, &c)?;
        }
        t_sections += t.elapsed().as_secs_f64();
        let t = Instant::now();
        add_flat_windows(&flat, &tree.doc_id, &path, &source.text, FLAT_TOKENS)?;
        t_flat += t.elapsed().as_secs_f64();

        let mut spans = BTreeMap::new();
        if let Some(clauses) = entry["clauses"].as_object() {
            for (cat, list) in clauses {
                let found: Vec<(usize, usize)> = list
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.as_str())
                    .inspect(|_| labelled += 1)
                    .filter_map(|s| find_collapsed(&source.text, s))
                    .collect();
                located += found.len();
                if !found.is_empty() && questions.contains_key(cat) {
                    spans.insert(cat.clone(), found);
                }
            }
        }
        contracts.push(Contract {
            key: key.clone(),
            doc_id: tree.doc_id.clone(),
            dev: *dev,
            spans,
        });
    }
    let t = Instant::now();
    let sections = sections.into_index()?;
    let flat = flat.into_index()?;
    let t_commit = t.elapsed().as_secs_f64();
    println!(
        "CUAD {}: {} contracts ({} tuning, {} checking); {located} of {labelled} labelled spans found in the text",
        dir.display(),
        contracts.len(),
        contracts.iter().filter(|c| c.dev).count(),
        contracts.iter().filter(|c| !c.dev).count(),
    );
    println!(
        "index: {} section chunks, {} flat chunks; tree+route {:.2}s, section index {:.2}s, flat index {:.2}s, commit {:.2}s",
        sections.chunk_count(),
        flat.chunk_count(),
        t_tree,
        t_sections,
        t_flat,
        t_commit
    );
    println!("hit: a returned unit overlaps a labelled span; MRR over the first {DEPTH}\n");
    if variants {
        tune(&sections, &contracts, &questions, true)?;
    }
    if args.iter().any(|a| a == "--structure") {
        structure_grid(&sections, &contracts, &questions)?;
    }
    if args.iter().any(|a| a == "--rerank") {
        rerank_grid(&sections, &contracts, &questions)?;
    }
    {
        for (bytes, w) in sized {
            let index = w.into_index()?;
            println!(
                "-- chunks of about {bytes} bytes instead of {}",
                kgroute::search::chunk::CHUNK_BYTES
            );
            tune(&index, &contracts, &questions, false)?;
        }
    }
    let opts = RetrieveOptions::default();
    let plain = RetrieveOptions::plain();
    // One query per question (the same for every contract): made once.
    let mut ours_q: HashMap<&str, Query> = HashMap::new();
    let mut base_q: HashMap<&str, Vec<WeightedTerm>> = HashMap::new();
    let t = Instant::now();
    for q in questions.values() {
        ours_q.insert(q, query(&sections, q, &opts)?);
        base_q.insert(q, query_terms(&flat, q, &plain)?);
    }
    let expand_ms = 1000.0 * t.elapsed().as_secs_f64() / questions.len().max(1) as f64;

    let mut ask_time = 0.0;
    let mut asked = 0usize;
    for (label, dev) in [("tuning half", true), ("checking half", false)] {
        let mut ours: BTreeMap<String, RankScores> = BTreeMap::new();
        let mut base: BTreeMap<String, RankScores> = BTreeMap::new();
        let (mut all_ours, mut all_base) = (RankScores::default(), RankScores::default());
        let (mut ours_bytes, mut base_bytes) = (0usize, 0usize);
        for c in contracts.iter().filter(|c| c.dev == dev) {
            for (cat, spans) in &c.spans {
                let q = &questions[cat];
                let t = Instant::now();
                let hits = retrieve_query(
                    &sections,
                    &ours_q[q.as_str()],
                    Some(&c.doc_id),
                    DEPTH,
                    &opts,
                )?;
                ask_time += t.elapsed().as_secs_f64();
                asked += 1;
                let r = first_hit(
                    hits.iter()
                        .map(|h| (h.pointer.start_byte, h.pointer.end_byte)),
                    spans,
                );
                ours_bytes += top3_bytes(
                    hits.iter()
                        .map(|h| (h.pointer.start_byte, h.pointer.end_byte)),
                );
                if dev
                    && misses_of
                        .as_deref()
                        .is_some_and(|m| m.split(',').any(|m| m == cat || m == "*"))
                    && r.is_none_or(|r| r > 3)
                {
                    let got: Vec<String> = hits
                        .iter()
                        .take(3)
                        .map(|h| {
                            format!(
                                "{} [{}..{}]",
                                h.pointer.breadcrumb, h.pointer.start_byte, h.pointer.end_byte
                            )
                        })
                        .collect();
                    let all = retrieve_query(
                        &sections,
                        &ours_q[q.as_str()],
                        Some(&c.doc_id),
                        10_000,
                        &opts,
                    )?;
                    let labelled = all
                        .iter()
                        .enumerate()
                        .find(|(_, h)| {
                            let (a, b) = (h.pointer.start_byte, h.pointer.end_byte);
                            spans.iter().any(|(s, e)| a < *e && *s < b)
                        })
                        .map(|(i, h)| format!("#{} {}", i + 1, h.pointer.breadcrumb))
                        .unwrap_or_else(|| "no indexed section matches".into());
                    println!(
                        "MISS {cat} {} span {:?}: got {}; labelled: {labelled}",
                        c.key,
                        spans[0],
                        got.join(" | ")
                    );
                }
                ours.entry(cat.clone()).or_default().add(r);
                all_ours.add(r);
                let hits =
                    retrieve_terms(&flat, &base_q[q.as_str()], Some(&c.doc_id), DEPTH, &plain)?;
                let r = first_hit(
                    hits.iter()
                        .map(|h| (h.pointer.start_byte, h.pointer.end_byte)),
                    spans,
                );
                base_bytes += top3_bytes(
                    hits.iter()
                        .map(|h| (h.pointer.start_byte, h.pointer.end_byte)),
                );
                base.entry(cat.clone()).or_default().add(r);
                all_base.add(r);
            }
        }
        println!("== {label}: {} questions", all_ours.questions);
        println!(
            "{:<34} {:>5} | {:>6} {:>6} {:>5} | {:>6} {:>6} {:>5}",
            "category", "n", "hit@1", "hit@3", "MRR", "flat@1", "flat@3", "fMRR"
        );
        row("ALL", &all_ours, &all_base);
        if per_category {
            for (cat, s) in &ours {
                row(cat, s, &base[cat]);
            }
        }
        println!(
            "section hit@3 {:.1}% vs flat {:.1}%: {:+.1} points; text returned in the top 3: {} bytes per question vs {} flat",
            all_ours.hit3(),
            all_base.hit3(),
            all_ours.hit3() - all_base.hit3(),
            ours_bytes / all_ours.questions.max(1),
            base_bytes / all_base.questions.max(1),
        );
        println!();
    }
    println!(
        "ask: {asked} questions, {:.2} ms each (retrieve and rank, in memory) after {expand_ms:.2} ms per question to make its query\n",
        1000.0 * ask_time / asked.max(1) as f64
    );
    corpus_wide(&sections, &contracts, &questions)?;
    Ok(())
}

/// Hit@1/hit@3 on the tuning half for a grid of retrieval options.
fn tune(
    index: &SearchIndex,
    contracts: &[Contract],
    questions: &HashMap<String, String>,
    full: bool,
) -> anyhow::Result<()> {
    let d = RetrieveOptions::default();
    let mut grid: Vec<(String, RetrieveOptions)> = vec![
        ("plain BM25".into(), RetrieveOptions::plain()),
        ("default".into(), d),
        (
            "default, no feedback".into(),
            RetrieveOptions {
                feedback_chunks: 0,
                ..d
            },
        ),
        (
            "default, frame words and document nouns out".into(),
            RetrieveOptions {
                frame_words: kgroute::ask::expand::FRAME_WORDS,
                ..d
            },
        ),
    ];
    grid.push((
        "default, crumb 0.75".into(),
        RetrieveOptions {
            crumb_boost: 0.75,
            ..d
        },
    ));
    grid.push((
        "default, one feedback chunk per document".into(),
        RetrieveOptions {
            feedback_one_per_doc: true,
            ..d
        },
    ));
    grid.push((
        "default, one per document, 30 chunks".into(),
        RetrieveOptions {
            feedback_one_per_doc: true,
            feedback_chunks: 30,
            ..d
        },
    ));
    for (n, k, w) in [
        (20, 20, 0.7),
        (20, 30, 1.0),
        (20, 20, 1.0),
        (30, 20, 0.7),
        (10, 20, 0.7),
        (40, 20, 1.0),
        (30, 30, 1.0),
        (50, 30, 1.0),
        (60, 30, 1.0),
        (50, 40, 1.0),
        (80, 30, 1.0),
        (60, 40, 1.0),
    ] {
        grid.push((
            format!("feedback {n} chunks, {k} terms, weight {w}"),
            RetrieveOptions {
                feedback_chunks: n,
                feedback_terms: k,
                feedback_weight: w,
                ..d
            },
        ));
    }
    grid.push((
        "feedback 20/20/0.7, crumb 0.75".into(),
        RetrieveOptions {
            feedback_terms: 20,
            crumb_boost: 0.75,
            ..d
        },
    ));
    if !full {
        grid.retain(|(n, _)| {
            n == "default" || n == "plain BM25" || n.starts_with("extra 0, crumb 2")
        });
    }
    println!("== variants, tuning half");
    for (name, o) in grid {
        let [s, _] = score_variant(index, contracts, questions, &o, true)?;
        println!(
            "{name:<44} hit@1 {:5.1}% hit@3 {:5.1}% MRR {:.3}",
            s.hit1(),
            s.hit3(),
            s.mrr()
        );
    }
    println!();
    Ok(())
}

/// Hit@1/hit@3/MRR on both halves for the title words learned from the
/// corpus (`RetrieveOptions::title_terms`), for reshaping the ranking with
/// the tree (`ask::structure`) and for adding a section's further chunks:
/// chosen on the tuning half, the checking half shows whether it holds.
fn structure_grid(
    index: &SearchIndex,
    contracts: &[Contract],
    questions: &HashMap<String, String>,
) -> anyhow::Result<()> {
    use kgroute::ask::structure::ShapeOptions;
    let d = RetrieveOptions::default();
    let shape = |short_bytes, short_factor, sibling_factor| RetrieveOptions {
        shape: ShapeOptions {
            short_bytes,
            short_factor,
            sibling_factor,
        },
        ..d
    };
    let mut grid: Vec<(String, RetrieveOptions)> = vec![
        ("default".into(), d),
        (
            "no title words".into(),
            RetrieveOptions {
                title_terms: 0,
                ..d
            },
        ),
    ];
    for (n, w) in [(5, 0.5), (10, 0.5), (10, 1.0), (40, 0.5)] {
        grid.push((
            format!("title words {n} at {w}"),
            RetrieveOptions {
                title_terms: n,
                title_weight: w,
                ..d
            },
        ));
    }
    for (c, w) in [(0.5, 0.5), (1.0, 0.5), (0.75, 0.35), (0.75, 0.75)] {
        grid.push((
            format!("crumb {c}, title words 20 at {w}"),
            RetrieveOptions {
                crumb_boost: c,
                title_weight: w,
                ..d
            },
        ));
    }
    grid.push((
        "further chunks 0.1".into(),
        RetrieveOptions {
            extra_chunk_weight: 0.1,
            ..d
        },
    ));
    for f in [0.9, 0.7, 1.1] {
        grid.push((format!("siblings {f}"), shape(0, 1.0, f)));
    }
    for (b, f) in [(200, 0.5), (300, 0.7)] {
        grid.push((format!("short {b} bytes from {f}"), shape(b, f, 1.0)));
    }
    print_both_halves("ranking variants", 32, &grid, index, contracts, questions)
}

/// Hit@1/hit@3/MRR on both halves for re-weighting the retrieved chunks
/// by coverage of the question and its word pairs (`ask::rerank`), for a
/// question's repeated words and for a section's second-best chunk.
fn rerank_grid(
    index: &SearchIndex,
    contracts: &[Contract],
    questions: &HashMap<String, String>,
) -> anyhow::Result<()> {
    use kgroute::ask::rerank::RerankOptions;
    let d = RetrieveOptions::default();
    let rr = |coverage, proximity, window| RetrieveOptions {
        rerank: RerankOptions {
            coverage,
            proximity,
            window,
        },
        ..d
    };
    let mut grid: Vec<(String, RetrieveOptions)> = vec![
        ("default".into(), d),
        (
            "each word once (before)".into(),
            RetrieveOptions {
                repeat_weight: 0.0,
                ..d
            },
        ),
    ];
    for w in [0.25, 0.4, 0.5, 0.75, 1.0] {
        grid.push((
            format!("repeated words +{w}"),
            RetrieveOptions {
                repeat_weight: w,
                ..d
            },
        ));
    }
    for w in [0.05, 0.1, 0.3] {
        grid.push((
            format!("second chunk {w}"),
            RetrieveOptions {
                second_chunk_weight: w,
                ..d
            },
        ));
    }
    for c in [0.25, 0.5] {
        grid.push((format!("coverage {c}"), rr(c, 0.0, 3)));
    }
    for (p, w) in [
        (0.1, 3),
        (0.25, 3),
        (0.5, 3),
        (1.0, 3),
        (0.25, 1),
        (0.25, 6),
    ] {
        grid.push((format!("proximity {p} within {w}"), rr(0.0, p, w)));
    }
    grid.push(("coverage 0.25, proximity 0.25".into(), rr(0.25, 0.25, 3)));
    for (r, c, t, f) in [
        (0.6, 0.5, 0.5, 1.0),
        (0.6, 0.9, 0.5, 1.0),
        (0.6, 1.0, 0.5, 1.0),
        (0.6, 1.25, 0.5, 1.0),
        (0.6, 0.75, 0.35, 1.0),
        (0.6, 0.75, 0.75, 1.0),
        (0.6, 1.0, 0.75, 1.0),
        (0.6, 0.75, 0.5, 0.75),
        (0.0, 1.0, 0.5, 1.0),
        (0.4, 1.0, 0.5, 1.0),
        (0.5, 1.0, 0.5, 1.0),
        (0.75, 1.0, 0.5, 1.0),
    ] {
        grid.push((
            format!("repeated +{r}, crumb {c}, titles {t}, learned {f}"),
            RetrieveOptions {
                repeat_weight: r,
                crumb_boost: c,
                title_weight: t,
                feedback_weight: f,
                ..d
            },
        ));
    }
    print_both_halves(
        "re-weighting variants",
        48,
        &grid,
        index,
        contracts,
        questions,
    )
}

/// One line per variant: hit@1, hit@3 and MRR on the tuning half, then on
/// the checking half.
fn print_both_halves(
    title: &str,
    width: usize,
    grid: &[(String, RetrieveOptions)],
    index: &SearchIndex,
    contracts: &[Contract],
    questions: &HashMap<String, String>,
) -> anyhow::Result<()> {
    println!("== {title}: hit@1 hit@3 MRR tuning half | checking half");
    for (name, o) in grid {
        let s = score_variant(index, contracts, questions, o, false)?;
        println!(
            "{name:<width$} {:5.1} {:5.1} {:.3} | {:5.1} {:5.1} {:.3}",
            s[0].hit1(),
            s[0].hit3(),
            s[0].mrr(),
            s[1].hit1(),
            s[1].hit3(),
            s[1].mrr()
        );
    }
    println!();
    Ok(())
}

/// Hit@1/hit@3/MRR of one ranking variant over `contracts`: the tuning
/// half's scores first, the checking half's second (left empty when
/// `tuning_only`). Each category's question is made into a query once.
fn score_variant(
    index: &SearchIndex,
    contracts: &[Contract],
    questions: &HashMap<String, String>,
    o: &RetrieveOptions,
    tuning_only: bool,
) -> anyhow::Result<[RankScores; 2]> {
    let mut qs: HashMap<&str, Query> = HashMap::new();
    for q in questions.values() {
        qs.insert(q, query(index, q, o)?);
    }
    let mut s = [RankScores::default(), RankScores::default()];
    for c in contracts.iter().filter(|c| c.dev || !tuning_only) {
        for (cat, spans) in &c.spans {
            let hits = retrieve_query(
                index,
                &qs[questions[cat].as_str()],
                Some(&c.doc_id),
                DEPTH,
                o,
            )?;
            s[usize::from(!c.dev)].add(first_hit(
                hits.iter()
                    .map(|h| (h.pointer.start_byte, h.pointer.end_byte)),
                spans,
            ));
        }
    }
    Ok(s)
}

/// Shared words over all words of two category names (lower case, a
/// plural's `s` dropped).
fn name_overlap(a: &str, b: &str) -> f64 {
    let words = |s: &str| -> HashSet<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| {
                let w = w.to_lowercase();
                w.strip_suffix('s').map(str::to_string).unwrap_or(w)
            })
            .collect()
    };
    let (a, b) = (words(a), words(b));
    let shared = a.intersection(&b).count() as f64;
    shared / a.union(&b).count().max(1) as f64
}

/// Bytes of the first three units: what a reader (or a model) gets.
fn top3_bytes(units: impl Iterator<Item = (usize, usize)>) -> usize {
    units.take(3).map(|(a, b)| b - a).sum()
}

/// 1-based rank of the first unit overlapping a span.
fn first_hit(
    units: impl Iterator<Item = (usize, usize)>,
    spans: &[(usize, usize)],
) -> Option<usize> {
    units
        .enumerate()
        .find(|(_, (a, b))| spans.iter().any(|(s, e)| a < e && s < b))
        .map(|(i, _)| i + 1)
}

fn row(name: &str, o: &RankScores, b: &RankScores) {
    println!(
        "{:<34} {:>5} | {:>5.1}% {:>5.1}% {:>5.2} | {:>5.1}% {:>5.1}% {:>5.2}",
        name,
        o.questions,
        o.hit1(),
        o.hit3(),
        o.mrr(),
        b.hit1(),
        b.hit3(),
        b.mrr()
    );
}

/// "Which contracts have a <category>?" over the whole index: a contract
/// answers when one of its sections scores at least `share` of the best
/// section's score. The share is chosen on the tuning half.
fn corpus_wide(
    index: &SearchIndex,
    contracts: &[Contract],
    questions: &HashMap<String, String>,
) -> anyhow::Result<()> {
    const CATEGORIES: [&str; 4] = [
        "Non-Compete",
        "Exclusivity",
        "Change Of Control",
        "Most Favored Nation",
    ];
    const SHARES: [f32; 10] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95];
    let by_id: HashMap<&str, &Contract> =
        contracts.iter().map(|c| (c.doc_id.as_str(), c)).collect();
    println!("== corpus-wide: which contracts have a clause (index only)");
    let score = |cat: &str, dev: bool, share: f32| -> anyhow::Result<(f64, f64, usize)> {
        let opts = RetrieveOptions::default();
        let terms = query_terms(index, &questions[cat], &opts)?;
        let hits = index.search_terms(&terms, opts.crumb_boost, None, 20_000)?;
        let ranked = rank_sections_with(hits, opts.extra_chunk_weight);
        let best = ranked
            .iter()
            .filter(|h| {
                by_id
                    .get(h.pointer.doc_id.as_str())
                    .is_some_and(|c| c.dev == dev)
            })
            .map(|h| h.score)
            .fold(0.0f32, f32::max);
        let said: HashSet<&str> = ranked
            .iter()
            .filter(|h| h.score >= share * best)
            .filter_map(|h| by_id.get(h.pointer.doc_id.as_str()))
            .filter(|c| c.dev == dev)
            .map(|c| c.key.as_str())
            .collect();
        let truth: HashSet<&str> = contracts
            .iter()
            .filter(|c| c.dev == dev && c.spans.contains_key(cat))
            .map(|c| c.key.as_str())
            .collect();
        let tp = said.intersection(&truth).count() as f64;
        let p = if said.is_empty() {
            0.0
        } else {
            tp / said.len() as f64
        };
        let r = if truth.is_empty() {
            0.0
        } else {
            tp / truth.len() as f64
        };
        Ok((p, r, truth.len()))
    };
    for cat in CATEGORIES {
        if !questions.contains_key(cat) {
            continue;
        }
        let mut best = (0.0, SHARES[0]);
        for s in SHARES {
            let (p, r, _) = score(cat, true, s)?;
            let f = if p + r > 0.0 {
                2.0 * p * r / (p + r)
            } else {
                0.0
            };
            if f > best.0 {
                best = (f, s);
            }
        }
        let (dp, dr, dn) = score(cat, true, best.1)?;
        let (cp, cr, cn) = score(cat, false, best.1)?;
        println!(
            "{cat:<22} share {:.1}: tuning P {:.0}% R {:.0}% (of {dn}), checking P {:.0}% R {:.0}% (of {cn})",
            best.1,
            100.0 * dp,
            100.0 * dr,
            100.0 * cp,
            100.0 * cr
        );
    }
    Ok(())
}
