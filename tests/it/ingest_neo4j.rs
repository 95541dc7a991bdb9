//! Integration tests: `kgroute ingest` into the real Neo4j (started by
//! `scripts/neo4j start`), with the rules extractor and with the loopback
//! OpenAI-compatible test server, including a SIGKILL and `--resume`.

use super::graph_neo4j::{connect, db_counts, neo4j_env};
use super::util::{corpus, fixture, read, repo, tempdir};
use crate::fake_server::{FakeServer, Reply};
use kgroute::graph::{build_document_graph, DocumentMeta, GraphCounts};
use kgroute::index::GraphabilityIndex;
use kgroute::route::RoutePlan;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn index_file() -> PathBuf {
    repo().join("indices").join("credit_agreement.yaml")
}

/// A copy of `src` under a name unique to this test run, so parallel tests
/// and earlier runs never share a doc_id in the one database.
fn unique_copy(src: &Path, dir: &Path, stem: &str) -> PathBuf {
    let ext = src.extension().unwrap().to_str().unwrap();
    let nonce = format!(
        "{}_{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let dst = dir.join(format!("{stem}_{nonce}.{ext}"));
    std::fs::copy(src, &dst).unwrap();
    dst
}

/// `kgroute ingest` into Neo4j; `extra` adds flags and environment.
fn ingest_cmd(docs: &[PathBuf], out: &Path, dir: &Path) -> Command {
    let (uri, user, _) = neo4j_env();
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("kgroute"));
    c.arg("ingest")
        .args(docs)
        .arg("--index")
        .arg(index_file())
        .arg("--out")
        .arg(out)
        .arg("--history")
        .arg(dir.join("history.csv"))
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .arg("--neo4j")
        .arg(&uri)
        .env("NEO4J_USERNAME", user)
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("KGROUTE_MODEL")
        .stdin(Stdio::null());
    c
}

fn run_ok(mut c: Command) -> String {
    let out = c.output().expect("run kgroute");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "kgroute failed ({:?})\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn manifest(out: &Path) -> serde_json::Value {
    super::util::manifest_json(out).expect("manifest.json")
}

fn doc_ids(out: &Path) -> Vec<String> {
    manifest(out)["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["doc_id"].as_str().expect("doc_id recorded").to_string())
        .collect()
}

async fn counts_of(ids: &[String]) -> Vec<GraphCounts> {
    let sink = connect().await;
    let mut out = Vec::new();
    for id in ids {
        out.push(db_counts(sink.graph(), id).await);
    }
    out
}

/// The in-memory graph the batch saved for one document (`docs/<id>.json.gz`).
fn saved_graph_counts(out: &Path, doc_id: &str, path: &Path) -> GraphCounts {
    let file = kgroute::saved_docs::existing(out, doc_id).expect("the document's saved state");
    let v: serde_json::Value =
        serde_json::from_slice(&kgroute::saved_docs::read(&file).unwrap()).unwrap();
    let plan: RoutePlan = serde_json::from_value(v["plan"].clone()).unwrap();
    // The sent sections, then the rules over the ones not sent.
    let mut extractions: Vec<kgroute::extract::SectionExtraction> =
        serde_json::from_value(v["extractions"].clone()).unwrap();
    extractions.extend(
        serde_json::from_value::<Vec<kgroute::extract::SectionExtraction>>(
            v["rules_on_skipped"].clone(),
        )
        .unwrap(),
    );
    let index = GraphabilityIndex::load(&[index_file()]).unwrap();
    let tree = kgroute::tree::build_tree(&kgroute::tree::SourceText::read(path, false).unwrap());
    let meta = DocumentMeta::from_file(path, doc_id, &index.document_type).unwrap();
    let g = build_document_graph(
        &meta,
        &plan,
        &kgroute::graph::parents_from_tree(&tree),
        &extractions,
        &index.ontology,
    );
    GraphCounts {
        dropped: 0,
        ..g.counts()
    }
}

/// Issue 5's end-to-end check: the shared Emerson agreement with the rules
/// extractor; the database holds what the in-memory graph holds, and a
/// second ingest changes nothing.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn emerson_with_rules_extractor_matches_in_memory_graph_and_is_idempotent() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = tempdir();
    let doc = unique_copy(
        &corpus("credit_agreements/emerson_2018.md"),
        dir.path(),
        "emerson",
    );
    let out1 = dir.path().join("b1");
    let stdout = run_ok(ingest_cmd(std::slice::from_ref(&doc), &out1, dir.path()));
    assert!(stdout.contains("graph sink: Neo4j at bolt://"), "{stdout}");
    let ids = doc_ids(&out1);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let first = rt.block_on(counts_of(&ids));
    let expected = saved_graph_counts(&out1, &ids[0], &doc);
    assert_eq!(first[0], expected, "database vs in-memory graph");
    assert!(
        expected.entities > 300 && expected.relations > 0,
        "{expected:?}"
    );
    // Sections carry the heading's label and name as properties.
    let (label, name) = rt.block_on(async {
        let sink = connect().await;
        let mut rows = sink
            .graph()
            .execute(
                neo4rs::query(
                    "MATCH (s:Section {doc_id: $doc_id, node_id: '0002'}) RETURN s.label AS label, s.name AS name",
                )
                .param("doc_id", ids[0].as_str()),
            )
            .await
            .unwrap();
        let r = rows.next().await.unwrap().expect("section 0002 stored");
        (r.get::<String>("label").unwrap(), r.get::<String>("name").unwrap())
    });
    assert_eq!(
        (label.as_str(), name.as_str()),
        ("Section 1.01", "Definitions")
    );

    run_ok(ingest_cmd(
        std::slice::from_ref(&doc),
        &dir.path().join("b2"),
        dir.path(),
    ));
    assert_eq!(
        rt.block_on(counts_of(&ids)),
        first,
        "re-ingest is idempotent"
    );
}

/// Issue 6: two documents done, the process killed (SIGKILL) in the middle
/// of the third, `--resume`: the final graph equals an uninterrupted run's,
/// and no section answered before the kill is requested again.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn killed_batch_resumes_to_the_same_graph_without_repeating_answered_requests() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    const LATENCY: Duration = Duration::from_millis(150);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(FakeServer::start(LATENCY, |req| {
            // Each piece gets its own clause entity, so documents differ.
            Reply::per_piece(req, |id, heading, _| {
                super::crash::clause_answer(&format!("Clause {id} {heading}"))
            })
        }))
        .unwrap();

    let dir = tempdir();
    let docs = vec![
        unique_copy(&fixture("credit_agreement.md"), dir.path(), "resume_a"),
        unique_copy(&fixture("supply_agreement.txt"), dir.path(), "resume_b"),
        unique_copy(
            &corpus("credit_agreements/att_capital_1995.txt"),
            dir.path(),
            "resume_c",
        ),
    ];
    let with_llm = |out: &Path| {
        let mut c = ingest_cmd(&docs, out, dir.path());
        c.env("KGROUTE_LLM_URL", server.base_url())
            .env("KGROUTE_MODEL", "test-model")
            .args([
                "--documents-in-flight",
                "1",
                "--concurrency",
                "2",
                "--quiet",
                // About a section a request: the kill lands between answers.
                "--pack-tokens",
                "100",
            ]);
        c
    };

    // Run 1: killed once two documents are written and the third has begun.
    let out = dir.path().join("batch");
    let mut child = with_llm(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "two documents never got written");
        assert!(
            child.try_wait().unwrap().is_none(),
            "run 1 ended before it could be killed"
        );
        let written = super::util::manifest_json(&out)
            .map(|m| {
                m["documents"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|d| d["state"] == "written")
                    .count()
            })
            .unwrap_or(0);
        if written >= 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // Let the third document get a few answers, then kill it mid-way.
    std::thread::sleep(LATENCY * 3);
    let killed_at = Instant::now();
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let run1 = server.received();
    let m = manifest(&out);
    let states: Vec<&str> = m["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["state"].as_str().unwrap())
        .collect();
    assert_eq!(&states[..2], ["written", "written"]);
    assert_ne!(
        states[2], "written",
        "the kill landed after the third document: {states:?}"
    );
    // Pieces whose answer had surely been sent before the kill.
    let answered: HashSet<(String, String)> = run1
        .iter()
        .filter(|r| r.at + LATENCY + Duration::from_millis(100) < killed_at)
        .flat_map(|r| r.pack_pieces())
        .map(|(_, heading, text)| (heading, text))
        .collect();
    assert!(!answered.is_empty());

    // Run 2: resume.
    run_ok({
        let mut c = with_llm(&out);
        c.arg("--resume");
        c
    });
    let run2: Vec<_> = server.received().into_iter().skip(run1.len()).collect();
    let repeated: Vec<String> = run2
        .iter()
        .flat_map(|r| r.pack_pieces())
        .map(|(_, heading, text)| (heading, text))
        .filter(|piece| answered.contains(piece))
        .map(|(heading, _)| heading)
        .collect();
    assert!(
        repeated.is_empty(),
        "answered sections requested again: {repeated:?}"
    );
    assert!(
        !run2.is_empty(),
        "the third document's remaining sections were sent"
    );
    assert!(manifest(&out)["documents"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["state"] == "written"));
    let ids = doc_ids(&out);
    let resumed = rt.block_on(counts_of(&ids));

    // An uninterrupted run of the same batch (answers from the cache) must
    // leave exactly the same graph.
    let before = server.requests();
    run_ok(with_llm(&dir.path().join("uninterrupted")));
    assert_eq!(
        server.requests(),
        before,
        "a re-run answers every section from the cache"
    );
    let fresh = rt.block_on(counts_of(&ids));
    assert_eq!(resumed, fresh);
    let expected: Vec<GraphCounts> = ids
        .iter()
        .zip(&docs)
        .map(|(id, p)| saved_graph_counts(&out, id, p))
        .collect();
    assert_eq!(resumed, expected, "database vs the saved in-memory graphs");
    assert!(resumed.iter().all(|c| c.relations > 5), "{resumed:?}");
}

/// Names of the entities mentioned in a document's sections.
async fn entity_names(doc_id: &str) -> Vec<String> {
    let sink = connect().await;
    let mut rows = sink
        .graph()
        .execute(
            neo4rs::query(
                "MATCH (e:Entity)-[:MENTIONED_IN]->(:Section {doc_id: $doc_id}) RETURN DISTINCT e.name AS name",
            )
            .param("doc_id", doc_id),
        )
        .await
        .unwrap();
    let mut out = Vec::new();
    while let Some(r) = rows.next().await.unwrap() {
        out.push(r.get::<String>("name").unwrap());
    }
    out
}

/// Editing a file changes its doc_id (the id carries a content hash); a
/// re-ingest must still replace the earlier version's facts, not add to them.
#[test]
fn reingesting_an_edited_file_leaves_no_stale_facts() {
    let dir = tempdir();
    let doc = unique_copy(&fixture("credit_agreement.md"), dir.path(), "edited");
    run_ok(ingest_cmd(
        std::slice::from_ref(&doc),
        &dir.path().join("v1"),
        dir.path(),
    ));
    let old_id = doc_ids(&dir.path().join("v1")).remove(0);
    let rt = tokio::runtime::Runtime::new().unwrap();
    assert!(rt
        .block_on(entity_names(&old_id))
        .iter()
        .any(|n| n == "Applicable Margin"));

    let text = read(&doc).replace("\"Applicable Margin\" means", "\"Applicable Spread\" means");
    std::fs::write(&doc, text).unwrap();
    run_ok(ingest_cmd(
        std::slice::from_ref(&doc),
        &dir.path().join("v2"),
        dir.path(),
    ));
    let new_id = doc_ids(&dir.path().join("v2")).remove(0);
    assert_ne!(old_id, new_id);

    let old = rt.block_on(counts_of(std::slice::from_ref(&old_id)));
    assert_eq!(
        old[0],
        GraphCounts::default(),
        "the earlier version is gone"
    );
    let names = rt.block_on(entity_names(&new_id));
    assert!(names.iter().any(|n| n == "Applicable Spread"), "{names:?}");
    assert!(!names.iter().any(|n| n == "Applicable Margin"), "{names:?}");
    let now = rt.block_on(counts_of(std::slice::from_ref(&new_id)));
    assert_eq!(
        now[0],
        saved_graph_counts(&dir.path().join("v2"), &new_id, &doc)
    );
}
