//! Benchmark: LLM extraction concurrency. 200 sections against the loopback
//! test server with 200 ms injected latency per call, at concurrency 1, 8
//! and 32: wall time, speed-up over concurrency 1, and the ratio to the
//! ideal speed-up (target >= 90%). About 50 s in total.
//!
//! `cargo bench --bench llm_concurrency`. Without `--bench` (e.g. under
//! `cargo test --benches`) it runs a small smoke version. Override with
//! `KGROUTE_BENCH_SECTIONS` and `KGROUTE_BENCH_LATENCY_MS`.

#[path = "../tests/support/fake_server.rs"]
#[allow(dead_code)]
mod fake_server;

use fake_server::{good_extraction, FakeServer, Reply};
use kgroute::extract::{Extractor, ExtractorConfig, LlmConfig, SectionInput, SectionStatus};
use kgroute::index::{DensityThresholds, Ontology};
use std::time::{Duration, Instant};

fn ontology() -> Ontology {
    let mut o = Ontology::default();
    for t in [
        "Organization",
        "Role",
        "DefinedTerm",
        "Obligation",
        "SectionRef",
    ] {
        o.entity_types.insert(t.into(), String::new());
    }
    for r in ["HAS_ROLE", "OBLIGATED_TO", "REFERENCES"] {
        o.relation_types.insert(r.into(), String::new());
    }
    o
}

fn sections(n: usize) -> Vec<SectionInput> {
    (0..n)
        .map(|i| {
            let title = format!("Section {i}");
            let (label, name) = kgroute::tree::split_heading(&title);
            SectionInput {
                doc_id: "bench".into(),
                doc_type: "credit_agreement".into(),
                node_id: format!("{i:04}"),
                title,
                label,
                name,
                breadcrumb: format!("[Article 1 > Section {i}]"),
                start_line: i * 10 + 1,
                end_line: i * 10 + 9,
                text: format!(
                    "Acme Corp (the \"Borrower\") shall repay the Loans under Section {i}.01."
                ),
                anchor: false,
                parties: Vec::new(),
                registry: Default::default(),
            }
        })
        .collect()
}

fn env_num(k: &str, default: u64) -> u64 {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let n = env_num("KGROUTE_BENCH_SECTIONS", if full { 200 } else { 24 }) as usize;
    let latency = Duration::from_millis(env_num(
        "KGROUTE_BENCH_LATENCY_MS",
        if full { 200 } else { 20 },
    ));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let server = FakeServer::start(latency, |_| Reply::json(&good_extraction()))
            .await
            .unwrap();
        println!(
            "llm_concurrency: {n} sections, {} ms latency per call",
            latency.as_millis()
        );
        println!(
            "{:>11} {:>10} {:>10} {:>9} {:>13} {:>8}",
            "concurrency", "wall (s)", "ideal (s)", "speed-up", "ideal speed-up", "ratio"
        );
        let mut base: Option<f64> = None;
        let mut worst: f64 = 1.0;
        for c in [1usize, 8, 32] {
            let mut llm = LlmConfig::new(&server.base_url(), "bench-model").unwrap();
            llm.timeout = Duration::from_secs(30);
            let cfg = ExtractorConfig {
                llm: Some(llm),
                concurrency: c,
                use_cache: false,
                ..Default::default()
            };
            let ex = Extractor::new(cfg, ontology(), DensityThresholds::default()).unwrap();
            let t = Instant::now();
            let out = ex.extract_all(sections(n)).await;
            let wall = t.elapsed().as_secs_f64();
            assert!(
                out.iter().all(|x| x.status == SectionStatus::Ok),
                "every section extracted"
            );
            let rounds = n.div_ceil(c) as f64;
            let ideal = rounds * latency.as_secs_f64();
            let t1 = *base.get_or_insert(wall);
            let speedup = t1 / wall;
            let ideal_speedup = n as f64 / rounds;
            let ratio = speedup / ideal_speedup;
            if c > 1 {
                worst = worst.min(ratio);
            }
            println!(
                "{c:>11} {wall:>10.2} {ideal:>10.2} {speedup:>9.2} {ideal_speedup:>13.2} {:>7.1}%",
                ratio * 100.0
            );
        }
        if full {
            let verdict = if worst >= 0.9 { "met" } else { "NOT met" };
            println!("worst ratio to ideal speed-up: {:.1}% (target >= 90%): {verdict}", worst * 100.0);
        } else {
            println!("smoke run (no --bench): too small to judge; `cargo bench --bench llm_concurrency` measures");
        }
    });
}
