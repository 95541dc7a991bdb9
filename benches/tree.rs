//! Benchmark: tree building on the shared corpus. The Markdown Emerson
//! agreement (~345k chars), the plain-text Cummins agreement (~316k chars)
//! repeated 2x and 4x to show the time is linear in size, and the largest
//! wide document (amendment_no1_2022, ~570k chars) for the decoder on a real
//! file of the target size, and Cummins cut to 550k characters (the target
//! size in its short-line shape). Target: <= 2 ms per 550k-char document.
//! Prints chars/s for each input; criterion reports the same as
//! throughput in elements (characters) per second.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kgroute::tree::{build_tree, SourceText};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

fn corpus(rel: &str) -> PathBuf {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    repo.ancestors()
        .map(|a| a.join("shared").join("corpora").join(rel))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("corpus file {rel} not found above {}", repo.display()))
}

fn inputs() -> Vec<(String, SourceText)> {
    let md =
        SourceText::read(&corpus("credit_agreements/emerson_2018.md"), false).expect("emerson");
    let txt_path = corpus("credit_agreements/cummins_2020.txt");
    let txt = SourceText::read(&txt_path, false).expect("cummins");
    let mut out = vec![
        ("emerson_2018.md".to_owned(), md),
        ("cummins_2020.txt".to_owned(), txt.clone()),
    ];
    let big = SourceText::read(
        &corpus("wide/credit_agreements/amendment_no1_2022.txt"),
        false,
    )
    .expect("amendment_no1_2022");
    out.push(("amendment_no1_2022.txt".to_owned(), big));
    for k in [2, 4] {
        let text = txt.text.repeat(k);
        out.push((
            format!("cummins_2020.txt x{k}"),
            SourceText::from_text(&txt_path, &text),
        ));
    }
    // The target size itself in the short-line shape: Cummins repeated and
    // cut at the last line end within 550k characters.
    let text = txt.text.repeat(2);
    let cut = text
        .char_indices()
        .nth(TARGET_CHARS)
        .map_or(text.len(), |(i, _)| i);
    let end = text[..cut].rfind('\n').map_or(cut, |i| i + 1);
    out.push((
        "cummins_2020.txt to 550k".to_owned(),
        SourceText::from_text(&txt_path, &text[..end]),
    ));
    out
}

/// The document size the target is stated for.
const TARGET_CHARS: usize = 550_000;

fn bench_tree(c: &mut Criterion) {
    let inputs = inputs();
    // A plain timing first, so chars/s is printed whatever criterion's output mode.
    for (name, src) in &inputs {
        let chars = src.text.chars().count();
        let runs = 30;
        let start = Instant::now();
        for _ in 0..runs {
            black_box(build_tree(black_box(src)));
        }
        let per = start.elapsed().as_secs_f64() / f64::from(runs);
        println!(
            "tree {name}: {chars} chars, {:.3} ms/doc, {:.1} M chars/s, {:.3} ms per 550k chars",
            per * 1e3,
            chars as f64 / per / 1e6,
            per * 1e3 * TARGET_CHARS as f64 / chars as f64
        );
    }
    let mut group = c.benchmark_group("tree");
    group.sample_size(20);
    for (name, src) in &inputs {
        group.throughput(Throughput::Elements(src.text.chars().count() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), src, |b, s| {
            b.iter(|| build_tree(black_box(s)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_tree);
criterion_main!(benches);
