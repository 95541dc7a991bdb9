//! Benchmark: a real model server (`scripts/llm start`: llama.cpp serving
//! Gemma 3 270M). Sends paragraphs of the bundled supply agreement as
//! extraction requests, two at a time (the server's slots), and prints
//! sections per second, tokens per second, and the client's overhead: the
//! time kgroute saw per request minus the server's own prompt + generation
//! time (llama.cpp `timings`), in ms and as a share.
//!
//! `scripts/llm start && cargo bench --bench llm_real`. The server comes
//! from `KGROUTE_TEST_LLM_URL` / `KGROUTE_TEST_MODEL`, else
//! `KGROUTE_LLM_URL` / `KGROUTE_MODEL`, else from
//! `scripts/llm status`; without one the bench says so and exits.
//! `KGROUTE_BENCH_SECTIONS` (default 6), `KGROUTE_BENCH_MAX_TOKENS` (256).

use kgroute::extract::{prompt, SectionInput};
use kgroute::index::Ontology;
use kgroute::llm::{LlmClient, LlmConfig};
use serde_json::json;
use std::time::{Duration, Instant};

fn server() -> Option<(String, String)> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    for (u, m) in [
        ("KGROUTE_TEST_LLM_URL", "KGROUTE_TEST_MODEL"),
        ("KGROUTE_LLM_URL", "KGROUTE_MODEL"),
    ] {
        if let (Some(u), Some(m)) = (env(u), env(m)) {
            return Some((u, m));
        }
    }
    let out = std::process::Command::new("bash")
        .args(["scripts/llm", "status"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let get = |k: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(k))
            .map(str::to_string)
    };
    Some((get("KGROUTE_LLM_URL=")?, get("KGROUTE_MODEL=")?))
}

fn ontology() -> Ontology {
    let mut o = Ontology::default();
    for t in [
        "Organization",
        "Role",
        "DefinedTerm",
        "Obligation",
        "Product",
    ] {
        o.entity_types.insert(t.into(), String::new());
    }
    for r in ["HAS_ROLE", "OBLIGATED_TO", "SUPPLIES", "DEFINES"] {
        o.relation_types.insert(r.into(), String::new());
    }
    o
}

fn main() {
    let Some((url, model)) = server() else {
        println!("llm_real: no model server (run `scripts/llm start`); nothing measured");
        return;
    };
    let n: usize = std::env::var("KGROUTE_BENCH_SECTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6);
    let max_tokens: u32 = std::env::var("KGROUTE_BENCH_MAX_TOKENS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let text = std::fs::read_to_string("fixtures/supply_agreement.txt").expect("fixture");
    let paragraphs: Vec<&str> = text
        .split("\n\n")
        .map(str::trim)
        .filter(|p| p.len() > 200)
        .take(n)
        .collect();
    let system = prompt::system_message(&ontology(), None);
    let schema = prompt::pack_wire_schema(&ontology());
    let mut cfg = LlmConfig::new(&url, &model).expect("url and model");
    cfg.timeout = Duration::from_secs(300);
    let client = LlmClient::new(cfg).expect("client");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let started = Instant::now();
    let answers = rt.block_on(async {
        let sem = tokio::sync::Semaphore::new(2);
        let reqs = paragraphs.iter().enumerate().map(|(i, p)| {
            let input = SectionInput {
                doc_id: "bench".into(),
                doc_type: "commercial".into(),
                node_id: format!("{i}"),
                title: format!("Paragraph {i}"),
                label: None,
                name: format!("Paragraph {i}"),
                breadcrumb: format!("[Paragraph {i}]"),
                start_line: 1,
                end_line: 1,
                text: p.to_string(),
                anchor: false,
                parties: Vec::new(),
                registry: Default::default(),
            };
            let messages = vec![
                json!({"role": "system", "content": system}),
                json!({"role": "user", "content": prompt::pack_message(&[(input.node_id.clone(), &input)])}),
            ];
            let (client, schema, sem) = (&client, &schema, &sem);
            async move {
                let _p = sem.acquire().await.expect("permit");
                client
                    .chat_structured(&messages, prompt::SCHEMA_NAME, schema, Some(max_tokens))
                    .await
            }
        });
        futures::future::join_all(reqs).await
    });
    let wall = started.elapsed().as_secs_f64();
    let ok: Vec<_> = answers.into_iter().filter_map(Result::ok).collect();
    let tokens_out: u64 = ok.iter().map(|a| a.tokens_out).sum();
    let client_s: f64 = ok.iter().map(|a| a.elapsed.as_secs_f64()).sum();
    let server_s: f64 = ok
        .iter()
        .filter_map(|a| a.server_time)
        .map(|d| d.as_secs_f64())
        .sum();
    println!(
        "llm_real: {} of {} sections answered in {wall:.1}s: {:.3} sections/s, {:.1} tokens/s out, {} cut at max_tokens {max_tokens}",
        ok.len(),
        paragraphs.len(),
        ok.len() as f64 / wall,
        tokens_out as f64 / wall,
        ok.iter().filter(|a| a.cut()).count()
    );
    if server_s > 0.0 {
        println!(
            "llm_real: client overhead {:.1} ms per request ({:.2}% of the {:.2}s the server reports per request)",
            (client_s - server_s) * 1000.0 / ok.len() as f64,
            (client_s - server_s) / server_s * 100.0,
            server_s / ok.len() as f64
        );
    }
}
