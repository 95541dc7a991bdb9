//! Integration tests: a real model in the loop, by default. `kgroute
//! ingest` of a short bundled licence (three sections routed to the model)
//! through a real OpenAI-compatible server (CI: Qwen2.5 0.5B Instruct on
//! xllamacpp, started by `scripts/llm start`), then the same document again
//! from the cache; and `kgroute ask` re-ranking and answering through it.
//!
//! The server is found from `KGROUTE_TEST_LLM_URL` / `KGROUTE_TEST_MODEL`,
//! else `KGROUTE_LLM_URL` / `KGROUTE_MODEL`, else from `scripts/llm status`
//! (the state file of the running server, on its default port): nothing to
//! set after `scripts/llm start`. When no server runs (a fresh clone, or
//! `scripts/llm start --or-skip` could not install one) the tests say so
//! and skip, as the corpus tests do: `build.rs` looks for the server the
//! same way when the tests are compiled, and without one they are reported
//! as `ignored` with the reason (a server started later needs `touch
//! build.rs`; one that stops after the build is still skipped at run
//! time). `KGROUTE_TEST_REAL_MODEL=0` skips them even with a server running.

use super::ingest::csv_rows;
use super::util;
use kgroute::extract::rating::actual_tier;
use kgroute::index::Tier;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// The bundled contract the real model reads: short enough for a 0.5B
/// model on 2 shared cores, three sections routed (grant, royalties,
/// termination), two skipped (confidentiality, governing law).
const CONTRACT: &str = "short_license.txt";

/// The real server's URL and model, or why there is none.
fn real_server() -> Result<(String, String), String> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    if env("KGROUTE_TEST_REAL_MODEL").as_deref() == Some("0") {
        return Err("KGROUTE_TEST_REAL_MODEL=0".into());
    }
    let found = [
        ("KGROUTE_TEST_LLM_URL", "KGROUTE_TEST_MODEL"),
        ("KGROUTE_LLM_URL", "KGROUTE_MODEL"),
    ]
    .iter()
    .find_map(|(u, m)| Some((env(u)?, env(m)?)));
    let (url, model) = match found {
        Some(s) => s,
        None => from_script()?,
    };
    reachable(&url)?;
    Ok((url, model))
}

/// The real server, or `None` after saying on stderr why `test` skips.
fn server_or_skip(test: &str) -> Option<(String, String)> {
    real_server()
        .map_err(|why| {
            eprintln!(
                "SKIPPED {test}: no local model server ({why}); run `scripts/llm start` to include it"
            )
        })
        .ok()
}

/// What `scripts/llm status` says is running.
fn from_script() -> Result<(String, String), String> {
    let out = std::process::Command::new("bash")
        .arg(util::repo().join("scripts").join("llm"))
        .arg("status")
        .output()
        .map_err(|e| format!("could not run scripts/llm status: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let get = |k: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(k))
            .map(|v| v.trim().to_string())
    };
    match (
        out.status.success(),
        get("KGROUTE_LLM_URL="),
        get("KGROUTE_MODEL="),
    ) {
        (true, Some(u), Some(m)) => Ok((u, m)),
        _ => Err(format!(
            "KGROUTE_LLM_URL / KGROUTE_MODEL are unset and scripts/llm status says: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

/// The server's port accepts a connection within 5 seconds.
fn reachable(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("{url} is not a URL: {e}"))?;
    let addrs = parsed
        .socket_addrs(|| None)
        .map_err(|e| format!("{url}: {e}"))?;
    let why = match addrs.first() {
        Some(a) => match std::net::TcpStream::connect_timeout(a, Duration::from_secs(5)) {
            Ok(_) => return Ok(()),
            Err(e) => e.to_string(),
        },
        None => "no address".to_string(),
    };
    Err(format!("{url} does not answer ({why})"))
}

fn ingest(url: &str, model: &str, out: &Path, cache: &Path) -> assert_cmd::assert::Assert {
    util::kgroute()
        .arg("ingest")
        .arg(util::fixture(CONTRACT))
        .arg("--out")
        .arg(out)
        .arg("--history")
        .arg(out.with_extension("history.csv"))
        .arg("--cache-dir")
        .arg(cache)
        .args(["--llm-url", url, "--model", model, "--quiet"])
        .env_remove("OPENAI_API_KEY")
        .env_remove("NEO4J_URI")
        .timeout(Duration::from_secs(1500))
        .assert()
}

fn summary(dir: &Path) -> Value {
    serde_json::from_str(&util::read(&dir.join("summary.json"))).expect("summary.json parses")
}

fn tier(cell: &str) -> Option<Tier> {
    Tier::parse(cell.trim())
}

#[test]
#[cfg_attr(
    kgroute_no_model,
    ignore = "needs a model server: scripts/llm start, then touch build.rs"
)]
fn a_short_licence_through_a_real_model_every_section_answered_then_cached() {
    let Some((url, model)) = server_or_skip("real_model") else {
        return;
    };
    let dir = util::tempdir();
    let cache = dir.path().join("cache");
    let first = dir.path().join("first");
    let started = std::time::Instant::now();
    let a = ingest(&url, &model, &first, &cache);
    let took = started.elapsed();
    let out = a.get_output();
    assert!(
        out.status.success(),
        "ingest through {url} ({model}) exited {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = csv_rows(&first.join("sections.csv"));
    let sent: Vec<_> = rows
        .iter()
        .filter(|r| r["route"].starts_with("llm"))
        .collect();
    let titles: Vec<&str> = sent.iter().map(|r| r["heading"].as_str()).collect();
    assert_eq!(sent.len(), 3, "sections routed to the model: {titles:?}");
    for r in &sent {
        // Answered: schema-valid (the answer passed the check), never cut.
        assert_eq!(r["status"], "ok", "section {:?} not answered", r["heading"]);
        // Tokens from the server's usage, each section's share of its
        // request (the sections go in one pack).
        let (tin, tout): (u64, u64) = (
            r["tokens_in"].parse().unwrap(),
            r["tokens_out"].parse().unwrap(),
        );
        assert!(
            tin > 50 && tout > 10,
            "{:?}: {tin} in / {tout} out",
            r["heading"]
        );
        // The actual tier comes from the model's own rating, checked
        // against density as the rating rules say.
        let m = tier(&r["model_tier"])
            .unwrap_or_else(|| panic!("{:?}: no model rating in {r:?}", r["heading"]));
        let d = tier(&r["density_tier"]).expect("density tier");
        let actual = tier(&r["actual_tier"]).expect("actual tier");
        // An anchor entry (the grant) is pinned Very High whatever the rating.
        assert!(
            actual == actual_tier(Some(m), d, false) || actual == Tier::VeryHigh,
            "{:?}: actual {actual:?} from model {m:?} and density {d:?}",
            r["heading"]
        );
    }
    let s = summary(&first);
    let t = &s["totals"];
    assert_eq!(t["failed_sections"], 0, "{t}");
    let limits = &s["llm_limits"];
    // No schema repair needed (the schema is the server's grammar, the
    // pack's ids an enum in it), and an answer cut at max_tokens is split
    // or its closed items kept and the rest asked, never lost: no failed
    // section above. The three sections go in the requests the plan
    // counted, spread over the server's slots (more only after a cut).
    assert_eq!(limits["repairs"], Value::from(0), "{limits}");
    assert!(limits["requests"].as_u64().unwrap() >= 1, "{limits}");
    // A request is sent again only after a cut, a stall (a busy server:
    // the slots shared with another client) or a retry.
    let sent_again = ["answers_cut", "stalls", "retries", "splits"]
        .iter()
        .any(|k| limits[*k].as_u64() > Some(0));
    assert!(
        sent_again || limits["requests"] == t["planned"]["requests"],
        "answers not sent again are the planned requests: {limits} {}",
        t["planned"]
    );
    // The server's own figures: billed against the plan, the system
    // message from the slot's prompt cache after the first request.
    let planned = t["planned"]["input_tokens"].as_u64().unwrap();
    let billed = t["tokens_in"].as_u64().unwrap();
    assert!(planned > 0 && billed > 0, "{t}");
    let (tin, tout) = (
        t["tokens_in"].as_u64().unwrap(),
        t["tokens_out"].as_u64().unwrap(),
    );
    assert_eq!(t["sent"].as_u64().unwrap() as usize, sent.len());
    eprintln!(
        "real_model: {} sections through {model} in {:.0}s ({:.1} s/section), {tin} tokens in, {tout} out, model tiers {:?}",
        sent.len(),
        took.as_secs_f64(),
        took.as_secs_f64() / sent.len() as f64,
        sent.iter().map(|r| r["model_tier"].as_str()).collect::<Vec<_>>()
    );

    // The same document again: every answer from the cache, no request.
    let second = dir.path().join("second");
    ingest(&url, &model, &second, &cache).success();
    let rows = csv_rows(&second.join("sections.csv"));
    assert!(rows
        .iter()
        .filter(|r| r["route"].starts_with("llm"))
        .all(|r| r["status"] == "cached"));
    let s2 = summary(&second);
    let t2 = &s2["totals"];
    assert_eq!(
        (t2["tokens_in"].as_u64(), t2["failed_sections"].as_u64()),
        (Some(0), Some(0)),
        "{t2}"
    );
    assert_eq!(s2["llm_limits"]["requests"], 0, "{}", s2["llm_limits"]);
}

/// `kgroute ask` through the real model: it re-ranks the candidates and
/// writes an answer from the whole sections; every citation in it either
/// names a section it was given or is reported as unknown.
#[test]
#[cfg_attr(
    kgroute_no_model,
    ignore = "needs a model server: scripts/llm start, then touch build.rs"
)]
fn ask_through_a_real_model_answers_from_whole_sections() {
    let Some((url, model)) = server_or_skip("real_model ask") else {
        return;
    };
    let dir = util::tempdir();
    let batch = dir.path().join("batch");
    // The batch itself is ingested offline: only the question meets the model.
    util::kgroute()
        .arg("ingest")
        .arg(util::fixture(CONTRACT))
        .arg("--out")
        .arg(&batch)
        .arg("--history")
        .arg(dir.path().join("history.csv"))
        .args(["--quiet"])
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("KGROUTE_MODEL")
        .env_remove("NEO4J_URI")
        .assert()
        .success();
    let out = util::kgroute()
        .args(["ask", "What royalty does the Licensee pay?", "--top", "2"])
        .args(["--rerank", "--format", "json", "--batch"])
        .arg(&batch)
        .args(["--llm-url", &url, "--model", &model])
        .env_remove("OPENAI_API_KEY")
        .timeout(Duration::from_secs(900))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "ask through {url} ({model}): {stderr}"
    );
    let a: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sections = a["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 2, "{a}");
    let src = util::read(&util::fixture(CONTRACT));
    let mut given = Vec::new();
    for s in sections {
        let (from, to) = (
            s["start_byte"].as_u64().unwrap() as usize,
            s["end_byte"].as_u64().unwrap() as usize,
        );
        assert_eq!(s["text"].as_str().unwrap(), &src[from..to], "whole section");
        given.push(format!(
            "[{} §{} lines {}-{}]",
            s["doc_name"].as_str().unwrap(),
            s["node_id"].as_str().unwrap(),
            s["start_line"],
            s["end_line"]
        ));
    }
    let text = a["answer"]["text"].as_str().unwrap_or_default();
    assert!(!text.trim().is_empty(), "{a}");
    let unknown: Vec<String> = a["answer"]["unknown_citations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    for c in kgroute::ask::llm::cited(text) {
        assert!(
            given.contains(&c) || unknown.contains(&c),
            "citation {c} neither given nor reported: {a}"
        );
    }
    eprintln!("real_model ask: {text}");
}
