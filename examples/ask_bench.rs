//! Speed of the search index and of `ask` on a batch of 500+ contracts
//! (run by `scripts/ask-eval --bench`): the CUAD contracts, added as many
//! times as it takes (each copy its own doc id), into an on-disk index.
//! Prints the index's cost against tree + routing (the part of `ingest`
//! that reads every document; extraction and the graph come on top) and
//! the latency of a cold `ask` (open the index, retrieve, rank, read the
//! whole sections) against the one-second target.
//!
//! Usage: cargo run --example ask_bench -- CUAD_DIR [DOCS]

use kgroute::index::GraphabilityIndex;
use kgroute::route::RouteOptions;
use kgroute::search::{SearchIndex, SearchIndexWriter};
use kgroute::tree::source::ReadOptions;
use kgroute::tree::{build_tree, SourceText};
use std::path::PathBuf;
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(
        args.first()
            .map(String::as_str)
            .unwrap_or("../shared/corpora/cuad"),
    );
    let want: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(500);
    let mut files = Vec::new();
    for t in std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
    {
        if t.is_dir() {
            for f in std::fs::read_dir(&t)?
                .filter_map(|e| e.ok())
                .map(|e| e.path())
            {
                if f.extension().is_some_and(|e| e == "txt") {
                    files.push(f);
                }
            }
        }
    }
    files.sort();
    anyhow::ensure!(!files.is_empty(), "{}: no contracts", dir.display());
    let batch = tempfile::tempdir()?;
    let writer = SearchIndexWriter::open(batch.path())?;
    let (mut t_plan, mut t_index, mut docs, mut bytes) = (0.0, 0.0, 0usize, 0usize);
    let mut copy = 0;
    while docs < want {
        for f in &files {
            if docs >= want {
                break;
            }
            let source = SourceText::read_with(f, &ReadOptions::default())?;
            let t = Instant::now();
            let tree = build_tree(&source);
            let mut plan = kgroute::route::plan(
                &tree,
                &GraphabilityIndex::default(),
                &RouteOptions::default(),
            );
            t_plan += t.elapsed().as_secs_f64();
            plan.doc_id = format!("{}-{copy}", plan.doc_id);
            let t = Instant::now();
            writer.add(&plan, &source, f)?;
            t_index += t.elapsed().as_secs_f64();
            docs += 1;
            bytes += source.text.len();
        }
        copy += 1;
    }
    let t = Instant::now();
    let chunks = writer.finish()?;
    t_index += t.elapsed().as_secs_f64();
    println!(
        "{docs} contracts, {:.0} MB, {chunks} chunks: tree+route {t_plan:.2}s, index {t_index:.2}s (index / tree+route = {:.2})",
        bytes as f64 / 1e6,
        t_index / t_plan
    );
    let questions = [
        "Which state/country's law governs the interpretation of the contract?",
        "Is there a restriction on the ability of a party to compete with the counterparty?",
        "Can a party terminate this contract without cause?",
        "What is the renewal term after the initial term expires?",
        "Is there a cap on liability upon the breach of a party's obligation?",
        "Does the contract require a party to maintain insurance?",
    ];
    let mut times = Vec::new();
    for q in questions {
        let t = Instant::now();
        let index = SearchIndex::open(batch.path())?;
        let a = kgroute::ask::ask(&index, q, None, 3, None)?;
        times.push(t.elapsed().as_secs_f64());
        assert!(!a.sections.is_empty());
    }
    times.sort_by(f64::total_cmp);
    let worst = times[times.len() - 1];
    println!(
        "cold ask over {docs} contracts (open index, retrieve, rank, read 3 whole sections): median {:.1} ms, worst {:.1} ms ({:.3} of the 1 s target)",
        1000.0 * times[times.len() / 2],
        1000.0 * worst,
        worst
    );
    Ok(())
}
