//! LLM title mapping against the loopback server: one call per document,
//! a good answer maps titles (method `llm`), a garbage answer maps none,
//! the cache answers the second time; and `kgroute ingest` wiring it in
//! (routing by the mapped entry, cache on a re-run, `--no-llm-match`, the
//! resume check, the summary's counts).

use super::ingest::csv_rows;
use super::util::{read, tempdir};
use crate::fake_server::{good_extraction, FakeServer, Reply};
use kgroute::extract::LlmConfig;
use kgroute::index::llm_titles::{map_titles, TitleQuery};
use kgroute::index::{GraphabilityIndex, MatchMethod, Tier};
use kgroute::llm::LlmClient;
use kgroute::route::{apply_title_mapping, plan, unmatched_titles, Route, RouteOptions};
use kgroute::tree::{build_tree, SourceText};
use serde_json::json;
use std::time::Duration;

const INDEX: &str = "document_type: credit_agreement\nversion: \"t\"\nhigh:\n  - Events of Default\nlow:\n  - Increased Costs\n";

const DOC: &str = "CREDIT AGREEMENT\n\nThe parties agree.\n\nSection 1.01 Yield Protection Matters\n\nIf any Change in Law shall impose on any Lender any reserve, the Borrower pays. This text is long enough to be a section of its own, with more words here.\n\nSection 1.02 Benchmark Fallback Mechanics\n\nIf the Benchmark is unavailable the Administrative Agent may replace it. This text is long enough to be a section of its own, with more words here.\n";

fn client(base: &str) -> LlmClient {
    LlmClient::new(LlmConfig::new(base, "m").unwrap()).unwrap()
}

fn setup() -> (GraphabilityIndex, kgroute::route::RoutePlan) {
    let idx = GraphabilityIndex::from_yaml_str("t.yaml", INDEX).unwrap();
    let src = SourceText::from_text("d.txt", DOC);
    let tree = build_tree(&src);
    let p = plan(&tree, &idx, &RouteOptions::default());
    (idx, p)
}

#[tokio::test]
async fn a_good_answer_maps_titles_and_is_cached() {
    let (idx, mut p) = setup();
    let asked = unmatched_titles(&p);
    let names: Vec<&str> = asked.iter().map(|q| q.name.as_str()).collect();
    assert!(names.contains(&"Yield Protection Matters"), "{names:?}");
    let server = FakeServer::start(Duration::ZERO, |r| {
        // Only titles and breadcrumbs travel, never the section text.
        assert!(!r.last_user_message().contains("reserve, the Borrower pays"));
        Reply::json(&json!({"mappings": [
            {"title": "Yield Protection Matters", "entry": "Increased Costs"},
            {"title": "Benchmark Fallback Mechanics", "entry": "none"}
        ]}))
    })
    .await
    .unwrap();
    let cache = tempdir();
    let c = client(&server.base_url());
    let a = map_titles(&c, Some(cache.path()), &idx, &asked)
        .await
        .unwrap();
    assert!(!a.cached);
    assert_eq!((a.tokens_in, a.tokens_out), (10, 5));
    let m = a.mapping;
    assert_eq!(
        m.get("Yield Protection Matters").map(String::as_str),
        Some("Increased Costs")
    );
    assert!(!m.contains_key("Benchmark Fallback Mechanics"));
    let changed = apply_title_mapping(&mut p, &idx, &m, &RouteOptions::default());
    assert_eq!(changed, 1);
    let s = p
        .sections
        .iter()
        .find(|s| s.title.contains("Yield Protection"))
        .unwrap();
    assert_eq!(
        (s.matched.method, s.predicted_tier, s.route),
        (MatchMethod::Llm, Some(Tier::Low), Route::Skip)
    );
    // Same titles again: answered from the cache, no second request.
    let again = map_titles(&c, Some(cache.path()), &idx, &asked)
        .await
        .unwrap();
    assert!(again.cached);
    assert_eq!(again.mapping, m);
    assert_eq!((again.tokens_in, again.tokens_out), (0, 0));
    assert_eq!(server.title_requests(), 1);
    assert_eq!(server.requests(), 0, "title requests are counted apart");
}

#[tokio::test]
async fn a_garbage_answer_maps_nothing() {
    let (idx, mut p) = setup();
    let asked = unmatched_titles(&p);
    for bad in [
        "this is not json",
        r#"{"mappings": [{"title": "Yield Protection Matters", "entry": "Invented Entry"}]}"#,
        r#"{"mappings": [{"title": "Not Asked", "entry": "Increased Costs"}]}"#,
        r#"{"something": 1}"#,
    ] {
        let server = FakeServer::start(Duration::ZERO, move |_| Reply::content(bad))
            .await
            .unwrap();
        let m = map_titles(&client(&server.base_url()), None, &idx, &asked)
            .await
            .unwrap()
            .mapping;
        assert!(m.is_empty(), "{bad}: {m:?}");
        assert_eq!(
            apply_title_mapping(&mut p, &idx, &m, &RouteOptions::default()),
            0
        );
    }
    assert!(map_titles(
        &client("http://127.0.0.1:9/v1"),
        None,
        &idx,
        &[TitleQuery {
            name: "x".into(),
            breadcrumb: "x".into()
        }]
    )
    .await
    .is_err());
}

// ---- `kgroute ingest` with the title mapping, against the loopback server ----

/// A small index of its own (the shipped ones change), with an ontology so
/// the extractor can be built.
const CLI_INDEX: &str = "document_type: credit_agreement
version: \"t1\"
ontology:
  entity_types:
    Organization: a company
    Role: a role
  relation_types:
    HAS_ROLE: org -> role
high:
  - Events of Default
low:
  - Increased Costs
";

/// The two unmatched sections hold more text than the question costs, so
/// the mapping is asked.
const CLI_DOC: &str = "CREDIT AGREEMENT\n\nThe parties agree.\n\nSection 1.01 Yield Protection Matters\n\nIf any Change in Law shall impose on any Lender any reserve, the Borrower pays. This text is long enough to be a section of its own, with more words here. The Borrower shall pay to each Lender such additional amounts as will compensate it for the increased cost or reduced amount received, within ten days of a written demand, and a certificate of the Lender setting forth the amounts shall be conclusive absent manifest error. Failure or delay on the part of any Lender to demand compensation shall not waive its right to demand it.\n\nSection 1.02 Benchmark Fallback Mechanics\n\nIf the Benchmark is unavailable the Administrative Agent may replace it. This text is long enough to be a section of its own, with more words here. The Administrative Agent will promptly notify the Borrower and the Lenders of the implementation of any Benchmark Replacement and of any conforming changes, and any determination made by it shall be conclusive and binding absent manifest error, without consent from any other party.\n\nSection 1.03 Events of Default\n\nIf the Borrower fails to pay any amount when due, the Lenders may accelerate. This text is long enough to be a section of its own, with more words here.\n";

/// The same headings over a line each: the question would cost more than
/// the text its answer could route away.
const SHORT_DOC: &str = "CREDIT AGREEMENT\n\nThe parties agree.\n\nSection 1.01 Yield Protection Matters\n\nThe Borrower pays increased costs.\n\nSection 1.02 Benchmark Fallback Mechanics\n\nThe Agent may replace the Benchmark.\n\nSection 1.03 Events of Default\n\nIf the Borrower fails to pay any amount when due, the Lenders may accelerate.\n";

struct Work {
    dir: tempfile::TempDir,
}

impl Work {
    fn new() -> Work {
        let dir = tempdir();
        std::fs::write(dir.path().join("index.yaml"), CLI_INDEX).unwrap();
        std::fs::write(dir.path().join("credit.txt"), CLI_DOC).unwrap();
        Work { dir }
    }

    fn path(&self, rel: &str) -> std::path::PathBuf {
        self.dir.path().join(rel)
    }

    /// `kgroute ingest credit.txt --index index.yaml --out <out>` with the LLM at `url`.
    fn ingest(&self, url: &str, out: &str) -> assert_cmd::Command {
        let mut c = assert_cmd::Command::from_std(self.command(
            url,
            out,
            &self.path("credit.txt"),
            "cache",
        ));
        c.timeout(Duration::from_secs(120));
        c
    }

    /// The process of `kgroute ingest <input> --index index.yaml --out <out>
    /// --cache-dir <cache>` with the LLM at `url`.
    fn command(
        &self,
        url: &str,
        out: &str,
        input: &std::path::Path,
        cache: &str,
    ) -> std::process::Command {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("kgroute"));
        c.arg("ingest")
            .arg(input)
            .arg("--index")
            .arg(self.path("index.yaml"))
            .arg("--out")
            .arg(self.path(out))
            .arg("--history")
            .arg(self.path("h.csv"))
            .arg("--cache-dir")
            .arg(self.path(cache))
            .env("KGROUTE_LLM_URL", url)
            .env("KGROUTE_MODEL", "m")
            .env_remove("NEO4J_URI");
        c
    }

    /// sections.csv rows of `out` by heading name.
    fn row(&self, out: &str, heading: &str) -> std::collections::HashMap<String, String> {
        csv_rows(&self.path(out).join("sections.csv"))
            .into_iter()
            .find(|r| r["heading"].contains(heading))
            .unwrap_or_else(|| panic!("no row for {heading}"))
    }

    fn title_mapping(&self, out: &str) -> serde_json::Value {
        let s: serde_json::Value =
            serde_json::from_str(&read(&self.path(out).join("summary.json"))).unwrap();
        s["totals"]["title_mapping"].clone()
    }
}

fn is_title_request(r: &crate::fake_server::FakeRequest) -> bool {
    r.messages()[0]["content"]
        .as_str()
        .is_some_and(|c| c.starts_with(kgroute::index::llm_titles::SYSTEM_INTRO))
}

/// A server answering title requests with `titles` and sections with a
/// valid extraction.
fn server_with(rt: &tokio::runtime::Runtime, titles: Reply) -> FakeServer {
    server_answering(rt, Duration::ZERO, move || titles.clone())
}

/// [`server_with`], each title request answered by calling `titles`, after
/// `latency`.
fn server_answering(
    rt: &tokio::runtime::Runtime,
    latency: Duration,
    titles: impl Fn() -> Reply + Send + Sync + 'static,
) -> FakeServer {
    rt.block_on(FakeServer::start(latency, move |r| {
        if r.path.ends_with("/models") {
            Reply::models(&["m"])
        } else if is_title_request(r) {
            titles()
        } else {
            Reply::json(&good_extraction())
        }
    }))
    .unwrap()
}

/// The answer mapping `Yield Protection Matters` to `Increased Costs`.
fn yield_protection_mapped() -> Reply {
    Reply::json(&json!({"mappings": [
        {"title": "Yield Protection Matters", "entry": "Increased Costs"}
    ]}))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn ingest_maps_unmatched_titles_once_routes_them_by_the_entry_and_reuses_the_answer() {
    let rt = runtime();
    let server = server_with(
        &rt,
        Reply::json(&json!({"mappings": [
            {"title": "Yield Protection Matters", "entry": "Increased Costs"},
            {"title": "Benchmark Fallback Mechanics", "entry": "none"}
        ]})),
    );
    let w = Work::new();
    w.ingest(&server.base_url(), "b1").assert().success();
    assert_eq!(server.title_requests(), 1, "one request for the document");
    let asked = server.title_received()[0].last_user_message();
    assert!(asked.contains("Yield Protection Matters") && asked.contains("Benchmark"));
    assert!(
        !asked.contains("Events of Default\"}") && !asked.contains("reserve, the Borrower"),
        "only unmatched titles, never section text: {asked}"
    );

    let y = w.row("b1", "Yield Protection");
    assert_eq!(
        (
            y["match_method"].as_str(),
            y["matched_entry"].as_str(),
            y["predicted_tier"].as_str(),
            y["route"].as_str()
        ),
        ("llm", "Increased Costs", "low", "skip"),
        "{y:?}"
    );
    let b = w.row("b1", "Benchmark");
    assert_eq!(
        (b["match_method"].as_str(), &b["route"][..3]),
        ("none", "llm")
    );
    // The skipped section was never sent for extraction.
    assert!(server
        .received()
        .iter()
        .all(|r| !r.section_message().contains("Yield Protection")));

    let m = w.title_mapping("b1");
    assert_eq!(
        (
            m["calls"].as_u64(),
            m["cache_hits"].as_u64(),
            m["titles_asked"].as_u64()
        ),
        (Some(1), Some(0), Some(2))
    );
    assert_eq!(m["sections_mapped"], 1);
    assert_eq!(
        (m["tokens_in"].as_u64(), m["tokens_out"].as_u64()),
        (Some(10), Some(5))
    );
    let md = read(&w.path("b1").join("summary.md"));
    assert!(md.contains("## LLM title mapping"), "{md}");

    // The same batch again (same cache): the answer comes from the cache,
    // the routing is the same, no title request is sent.
    w.ingest(&server.base_url(), "b2").assert().success();
    assert_eq!(server.title_requests(), 1);
    assert_eq!(w.row("b2", "Yield Protection")["route"], "skip");
    assert_eq!(w.title_mapping("b2")["cache_hits"], 1);
    assert_eq!(w.title_mapping("b2")["calls"], 0);

    // A resume must keep the setting the batch had.
    w.ingest(&server.base_url(), "b1")
        .args(["--resume", "--no-llm-match"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("LLM title mapping differs"));
}

#[test]
fn a_garbage_or_failed_title_answer_leaves_titles_new_and_the_document_written() {
    let rt = runtime();
    let w = Work::new();
    for (i, reply) in [
        Reply::content("mappings: Yield Protection Matters -> Increased Costs"),
        Reply::json(&json!({"mappings": [
            {"title": "Yield Protection Matters", "entry": "Invented Entry"}
        ]})),
        Reply::status(400, "{\"error\": \"bad request\"}"),
    ]
    .into_iter()
    .enumerate()
    {
        let server = server_with(&rt, reply);
        let out = format!("g{i}");
        let a = w
            .ingest(&server.base_url(), &out)
            .arg("--no-cache")
            .assert()
            .success();
        assert_eq!(server.title_requests(), 1, "reply {i}");
        for t in ["Yield Protection", "Benchmark"] {
            let r = w.row(&out, t);
            assert_eq!(
                (r["match_method"].as_str(), r["status"].as_str()),
                ("none", "ok"),
                "reply {i}: {r:?}"
            );
            assert!(r["route"].starts_with("llm"), "{r:?}");
        }
        let m = w.title_mapping(&out);
        assert_eq!(m["sections_mapped"], 0);
        if i == 2 {
            assert_eq!(m["failed"], 1);
            // The warning is a progress line, like the other warnings.
            let stdout = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
            assert!(
                stdout.contains("credit.txt: LLM title mapping failed: HTTP 400")
                    && stdout.contains("2 unmatched titles stay new"),
                "{stdout}"
            );
        } else {
            assert_eq!(m["failed"], 0);
        }
    }
}

#[test]
fn a_question_that_costs_more_than_it_can_save_is_not_asked() {
    let rt = runtime();
    let server = server_with(&rt, yield_protection_mapped());
    let w = Work::new();
    std::fs::write(w.path("short.txt"), SHORT_DOC).unwrap();
    let status = w
        .command(&server.base_url(), "s", &w.path("short.txt"), "cache")
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(server.title_requests(), 0, "not worth asking");
    let m = w.title_mapping("s");
    assert_eq!(
        (m["not_asked"].as_u64(), m["calls"].as_u64()),
        (Some(1), Some(0)),
        "{m}"
    );
    assert_eq!(m["titles_asked"], 2, "{m}");
    let y = w.row("s", "Yield Protection");
    assert_eq!(
        &y["route"][..3],
        "llm",
        "an unasked title stays new, so sent"
    );
}

#[test]
fn no_llm_match_sends_no_title_request() {
    let rt = runtime();
    let server = server_with(&rt, yield_protection_mapped());
    let w = Work::new();
    w.ingest(&server.base_url(), "n")
        .arg("--no-llm-match")
        .assert()
        .success();
    assert_eq!(server.title_requests(), 0);
    assert!(server.pieces_received() >= 3, "the sections were sent");
    let y = w.row("n", "Yield Protection");
    assert_eq!(
        (y["match_method"].as_str(), &y["route"][..3]),
        ("none", "llm")
    );
    assert_eq!(w.title_mapping("n")["calls"], 0);
}

#[test]
fn a_resumed_batch_maps_titles_from_the_cached_answer() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let rt = runtime();
    let down = Arc::new(AtomicBool::new(true));
    let d = down.clone();
    let server = rt
        .block_on(FakeServer::start(Duration::ZERO, move |r| {
            if r.path.ends_with("/models") {
                Reply::models(&["m"])
            } else if is_title_request(r) {
                yield_protection_mapped()
            } else if d.load(Ordering::SeqCst) {
                Reply::status(400, "{\"error\": \"not now\"}")
            } else {
                Reply::json(&good_extraction())
            }
        }))
        .unwrap();
    let w = Work::new();
    // The sections fail: the document is redone on --resume.
    w.ingest(&server.base_url(), "r").assert().code(1);
    assert_eq!(server.title_requests(), 1);
    let failed = server.requests();
    down.store(false, Ordering::SeqCst);
    w.ingest(&server.base_url(), "r")
        .arg("--resume")
        .assert()
        .success();
    assert_eq!(server.title_requests(), 1, "the cached answer is reused");
    assert_eq!(
        server.requests() - failed,
        failed,
        "the same sections are sent again"
    );
    let y = w.row("r", "Yield Protection");
    assert_eq!(
        (y["match_method"].as_str(), y["route"].as_str()),
        ("llm", "skip")
    );
    assert_eq!(w.row("r", "Benchmark")["status"], "ok");
}

/// A title request the server is too busy for (503 with `Retry-After`) is
/// retried like a section request, and the retry's answer maps the titles.
#[test]
fn a_busy_server_s_title_request_is_retried() {
    let rt = runtime();
    let title_calls = std::sync::atomic::AtomicUsize::new(0);
    let server = server_answering(&rt, Duration::ZERO, move || {
        if title_calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
            Reply::Status {
                status: 503,
                retry_after: Some("0".into()),
                body: "{\"error\": \"busy\"}".into(),
            }
        } else {
            yield_protection_mapped()
        }
    });
    let w = Work::new();
    w.ingest(&server.base_url(), "r").assert().success();
    assert_eq!(server.title_requests(), 2, "the 503 and its retry");
    assert_eq!(w.row("r", "Yield Protection")["match_method"], "llm");
    let m = w.title_mapping("r");
    assert_eq!(
        (
            m["calls"].as_u64(),
            m["failed"].as_u64(),
            m["sections_mapped"].as_u64()
        ),
        (Some(2), Some(0), Some(1)),
        "{m}"
    );
}

#[test]
fn a_title_request_that_times_out_counts_toward_the_circuit_breaker() {
    let rt = runtime();
    // Title requests hang; sections would be answered.
    let server = server_with(&rt, Reply::Hang);
    let w = Work::new();
    w.ingest(&server.base_url(), "t")
        .args(["--timeout", "1", "--breaker-after", "1"])
        .assert()
        .code(1);
    assert_eq!(server.title_requests(), 1);
    // One transport failure in a row opens the breaker, as a section's
    // would: no section is sent after it.
    assert_eq!(server.requests(), 0, "sections sent past an open breaker");
    let rows = csv_rows(&w.path("t").join("sections.csv"));
    let sent: Vec<_> = rows
        .iter()
        .filter(|r| r["route"].starts_with("llm"))
        .collect();
    assert!(!sent.is_empty());
    assert!(
        sent.iter()
            .all(|r| r["status"].starts_with("failed: endpoint unavailable")),
        "{sent:?}"
    );
    let m = w.title_mapping("t");
    assert_eq!(
        (m["calls"].as_u64(), m["failed"].as_u64()),
        (Some(1), Some(1))
    );
}

/// A hung endpoint holds title mapping for `--section-timeout` at most, over
/// every attempt and wait (it held it for six request timeouts, 303 s), and
/// the document's sections are then sent as if nothing had been mapped.
#[test]
fn a_hung_title_request_is_bounded_by_the_section_timeout() {
    let rt = runtime();
    let server = server_with(&rt, Reply::Hang);
    let w = Work::new();
    let a = w
        .ingest(&server.base_url(), "h")
        .args(["--timeout", "60", "--section-timeout", "2"])
        .args(["--breaker-after", "100", "--no-cache"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(
        stdout.contains("LLM title mapping failed")
            && stdout.contains("time bound of 2 s (--section-timeout)"),
        "{stdout}"
    );
    assert_eq!(
        server.title_requests(),
        1,
        "the bound stops the retries too"
    );
    let m = w.title_mapping("h");
    assert_eq!(
        (m["failed"].as_u64(), m["sections_mapped"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(w.row("h", "Events of Default")["status"], "ok");
    assert_eq!(w.row("h", "Yield Protection")["match_method"], "none");
}

/// A credit agreement of its own per `tag`: one title the answer maps
/// (skipped), one the index knows, and four unmatched titles of its own,
/// so each document asks its own titles and sends five sections.
fn tagged_doc(tag: &str) -> String {
    let body = "The Borrower and the Lenders agree to what this section says. This text is long enough to be a section of its own, with more words here.";
    let mut doc = format!("CREDIT AGREEMENT {tag}\n\nThe parties agree.\n\n");
    for (i, title) in [
        "Yield Protection Matters".to_string(),
        format!("Benchmark Fallback {tag}"),
        "Events of Default".to_string(),
        format!("Agency Matters {tag}"),
        format!("Collateral Release {tag}"),
        format!("Waiver Mechanics {tag}"),
    ]
    .iter()
    .enumerate()
    {
        doc.push_str(&format!(
            "Section 1.0{} {title}\n\n{body} ({tag} {i})\n\n",
            i + 1
        ));
    }
    doc
}

/// The documents of a manifest: (written, title mapping recorded).
fn manifest_states(out: &std::path::Path) -> Vec<(bool, bool)> {
    let Some(m) = super::util::manifest_json(out) else {
        return Vec::new();
    };
    m["documents"]
        .as_array()
        .map(|docs| {
            docs.iter()
                .map(|d| (d["state"] == "written", !d["title_mapping"].is_null()))
                .collect()
        })
        .unwrap_or_default()
}

/// Each document's title mapping figures and the batch's, from summary.json.
fn title_figures(out: &std::path::Path) -> serde_json::Value {
    let s: serde_json::Value = serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    let mut docs: Vec<serde_json::Value> = s["per_document"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            json!([
                d["doc_name"],
                d["stats"]["title_mapping"],
                d["title_mapping_error"]
            ])
        })
        .collect();
    docs.sort_by_key(|d| d.to_string());
    json!([docs, s["totals"]["title_mapping"]])
}

#[test]
fn a_batch_killed_after_a_title_mapping_resumes_without_asking_again_and_reports_as_one_run() {
    const LATENCY: Duration = Duration::from_millis(60);
    let rt = runtime();
    let server = server_answering(&rt, LATENCY, yield_protection_mapped);
    let w = Work::new();
    let tags = ["Alpha", "Beta", "Gamma", "Delta"];
    let docs = w.path("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for t in tags {
        std::fs::write(docs.join(format!("{t}.txt")), tagged_doc(t)).unwrap();
    }
    let run = |out: &str, cache: &str| {
        let mut c = w.command(&server.base_url(), out, &docs, cache);
        c.args([
            "--concurrency",
            "1",
            "--documents-in-flight",
            "1",
            "--quiet",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
        c
    };
    let reference = w.path("reference");
    assert!(run("reference", "cache-ref").status().unwrap().success());
    assert_eq!(
        server.title_requests(),
        tags.len(),
        "one request per document"
    );
    let titles_ref = server.title_requests();

    // Killed once a document is written and the next one has its titles
    // mapped (the manifest records the mapping) but is not written yet.
    let killed = w.path("killed");
    let mut child = run("killed", "cache-killed").spawn().unwrap();
    let give_up = std::time::Instant::now() + Duration::from_secs(120);
    let at_kill = loop {
        let states = manifest_states(&killed);
        if states.iter().any(|s| s.0) && states.iter().any(|&(written, mapped)| mapped && !written)
        {
            break states;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the batch ended before the kill point"
        );
        assert!(std::time::Instant::now() < give_up, "no kill point reached");
        std::thread::sleep(Duration::from_millis(1));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let mapped_before_kill = at_kill.iter().filter(|s| s.1).count();
    let titles_run1 = server.title_requests() - titles_ref;
    assert!(titles_run1 >= mapped_before_kill);

    let mut resume = run("killed", "cache-killed");
    resume.arg("--resume");
    assert!(resume.status().unwrap().success());
    // The titles mapped before the kill are not asked again: the resume
    // asks only for the documents that had none.
    let titles_resume = server.title_requests() - titles_ref - titles_run1;
    assert_eq!(titles_resume, tags.len() - mapped_before_kill);
    assert_eq!(titles_run1 + titles_resume, tags.len());

    // The reports equal the uninterrupted run's: routing, graph, and the
    // title mapping's requests and tokens per document (the redone
    // document reports the request its first run made, not a free cache
    // hit). Sections answered from the cache say so (status, no tokens).
    let volatile = ["status", "tokens_in", "tokens_out"];
    let expected = super::crash::outputs(&reference, &volatile);
    let got = super::crash::outputs(&killed, &volatile);
    for (file, rows) in &expected {
        assert!(
            &got[file] == rows,
            "{file} differs from the uninterrupted run"
        );
    }
    super::crash::assert_no_duplicates(&killed);
    assert_eq!(title_figures(&killed), title_figures(&reference));
    let y = csv_rows(&killed.join("sections.csv"))
        .into_iter()
        .filter(|r| r["heading"].contains("Yield Protection"))
        .map(|r| r["route"].clone())
        .collect::<Vec<_>>();
    assert_eq!(y, vec!["skip"; tags.len()], "every document's title mapped");
}
