//! Benchmark: tree + plan of the largest shared corpus file (target: <= 2 ms
//! per 550k characters, tree included), the plan stage alone, and the
//! document-type detection over every shipped index.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kgroute::index::{GraphabilityIndex, IndexSet};
use kgroute::route::{plan, RouteOptions};
use kgroute::tree::{build_tree, SourceText};
use std::hint::black_box;
use std::path::PathBuf;

/// The largest document of `../shared/corpora/`.
fn largest_document() -> PathBuf {
    // `shared/` sits next to the repository or next to an ancestor (a git
    // worktree is deeper than the main checkout).
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("shared/corpora"))
        .find(|p| p.is_dir())
        .expect("shared/corpora next to the repository");
    ["credit_agreements", "other"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).expect("shared corpus"))
        .map(|e| e.expect("dir entry").path())
        .max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .expect("a corpus document")
}

fn bench(c: &mut Criterion) {
    let path = largest_document();
    let index_path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("indices/credit_agreement.yaml");
    let index = GraphabilityIndex::load(&[index_path]).expect("index");
    let source = SourceText::read(&path, true).expect("document");
    let opts = RouteOptions::default();
    let mut g = c.benchmark_group("plan");
    g.throughput(Throughput::Bytes(source.text.len() as u64));
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    g.bench_function(format!("tree+plan {name}"), |b| {
        b.iter(|| {
            let tree = build_tree(black_box(&source));
            black_box(plan(&tree, &index, &opts))
        })
    });
    let tree = build_tree(&source);
    g.bench_function(format!("plan only {name}"), |b| {
        b.iter(|| black_box(plan(black_box(&tree), &index, &opts)))
    });
    let set = IndexSet::load(&[PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("indices")])
        .expect("indices");
    g.bench_function(format!("detect type {name}"), |b| {
        b.iter(|| black_box(set.detect(black_box(&tree), &source)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
