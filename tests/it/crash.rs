//! The crash test: the real binary is killed with SIGKILL at seeded random
//! points of a batch, then resumed; the result must equal an uninterrupted
//! run's, with no duplicate rows and (with an LLM) no request re-sent for a
//! section answered before the kill. Three batches: offline over the shared
//! credit agreements, against the loopback LLM, and into the real Neo4j.
//!
//! Kill points are drawn from a fixed seed as a stage of the batch (how many
//! documents are pending, extracted, written, read from its manifest) plus a
//! short delay, so they land inside the batch at every stage whatever the
//! machine's speed, and the test's time stays bounded.

use super::graph_neo4j::{connect, db_counts, neo4j_env};
use super::util::{corpus, fixture, repo, tempdir};
use crate::fake_server::{FakeServer, Reply};
use rand::{Rng, SeedableRng};
use serde_json::json;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SEED: u64 = 0x006b_6772_6f75_7465;

pub(super) fn index_file() -> PathBuf {
    repo().join("indices").join("credit_agreement.yaml")
}

/// `kgroute ingest` of `docs` into `out`, offline unless the caller adds
/// an LLM or Neo4j.
pub(super) fn ingest(docs: &[PathBuf], out: &Path, work: &Path) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("kgroute"));
    c.arg("ingest")
        .args(docs)
        .arg("--index")
        .arg(index_file())
        .arg("--out")
        .arg(out)
        .arg("--history")
        .arg(work.join("history.csv"))
        .arg("--quiet")
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("KGROUTE_MODEL")
        .env_remove("NEO4J_URI")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

/// Runs to the end; panics with stderr unless it exits 0.
pub(super) fn run_ok(mut c: Command) -> Duration {
    let start = Instant::now();
    let out = c.output().expect("run kgroute");
    assert!(
        out.status.success(),
        "kgroute failed ({:?}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    start.elapsed()
}

/// How far a batch has come, from its manifest: per document 1 once it is
/// pending, 2 once extracted, 3 once written (0 before the manifest).
fn progress(out: &Path) -> usize {
    let Some(m) = super::util::manifest_json(out) else {
        return 0;
    };
    m["documents"]
        .as_array()
        .map(|docs| {
            docs.iter()
                .map(|d| match d["state"].as_str() {
                    Some("extracted") => 2,
                    Some("written") => 3,
                    _ => 1,
                })
                .sum()
        })
        .unwrap_or(0)
}

/// A kill point: the batch's progress to wait for, then a delay.
#[derive(Debug, Clone, Copy)]
struct KillPoint {
    progress: usize,
    delay: Duration,
}

/// `n` kill points from the fixed seed: a progress between the manifest's
/// first save and the last document written, then up to `max_delay` more,
/// so the kills land at every stage whatever the machine's speed.
fn kill_points(n: usize, documents: usize, max_delay: Duration, salt: u64) -> Vec<KillPoint> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(SEED ^ salt);
    (0..n)
        .map(|_| KillPoint {
            progress: rng.random_range(1..3 * documents),
            delay: max_delay.mul_f64(rng.random_range(0.0..1.0)),
        })
        .collect()
}

/// Starts `c`, waits for the kill point's progress in `out`, then its delay,
/// and SIGKILLs it (unless it ended first); when it was killed inside the
/// batch, the moment of the kill.
fn kill_at(mut c: Command, out: &Path, point: KillPoint) -> Option<Instant> {
    let mut child = c.stderr(Stdio::null()).spawn().expect("spawn kgroute");
    let give_up = Instant::now() + Duration::from_secs(300);
    while progress(out) < point.progress {
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        assert!(Instant::now() < give_up, "the batch never got to {point:?}");
        std::thread::sleep(Duration::from_millis(1));
    }
    let deadline = Instant::now() + point.delay;
    while Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let alive = child.try_wait().unwrap().is_none();
    let at = Instant::now();
    child.kill().ok(); // SIGKILL
    child.wait().unwrap();
    alive.then_some(at)
}

/// The records of a CSV file (header first), each a list of fields.
fn records(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    r.records()
        .map(|x| x.unwrap().iter().map(String::from).collect())
        .collect()
}

/// Header plus sorted rows, with `drop` columns removed.
fn sorted_without(path: &Path, drop: &[&str]) -> Vec<Vec<String>> {
    let mut rows = records(path);
    let header = rows.remove(0);
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !drop.contains(&header[i].as_str()))
        .collect();
    let pick = |r: &Vec<String>| keep.iter().map(|&i| r[i].clone()).collect::<Vec<_>>();
    let mut body: Vec<Vec<String>> = rows.iter().map(pick).collect();
    body.sort();
    let mut out = vec![pick(&header)];
    out.extend(body);
    out
}

/// No node id twice, no relationship row twice, no section row twice.
pub(super) fn assert_no_duplicates(out: &Path) {
    super::util::import_files(out);
    let nodes = records(&out.join("graph/nodes.csv"));
    let mut ids = HashSet::new();
    for n in &nodes[1..] {
        assert!(ids.insert(n[0].clone()), "node {} twice", n[0]);
    }
    let rels = records(&out.join("graph/relationships.csv"));
    let mut seen = HashSet::new();
    for r in &rels[1..] {
        assert!(seen.insert(r.clone()), "relationship row twice: {r:?}");
    }
    let sections = records(&out.join("sections.csv"));
    let col = |name: &str| sections[0].iter().position(|h| h == name).unwrap();
    let (doc, node) = (col("doc_id"), col("node_id"));
    let mut keys = HashSet::new();
    for s in &sections[1..] {
        assert!(
            keys.insert((s[doc].clone(), s[node].clone())),
            "section {s:?} twice"
        );
    }
}

/// What must match between a resumed and an uninterrupted batch: the sorted
/// graph files and sections.csv (without the columns named in `drop`).
pub(super) fn outputs(out: &Path, drop: &[&str]) -> BTreeMap<&'static str, Vec<Vec<String>>> {
    let mut m = BTreeMap::new();
    super::util::import_files(out);
    m.insert(
        "nodes.csv",
        sorted_without(&out.join("graph/nodes.csv"), &[]),
    );
    m.insert(
        "relationships.csv",
        sorted_without(&out.join("graph/relationships.csv"), &[]),
    );
    m.insert(
        "sections.csv",
        sorted_without(&out.join("sections.csv"), drop),
    );
    let mut jsonl: Vec<Vec<String>> = super::util::graph_jsonl(out)
        .lines()
        .map(|l| vec![l.to_string()])
        .collect();
    jsonl.sort();
    m.insert("graph.jsonl", jsonl);
    m
}

fn credit_agreements() -> Vec<PathBuf> {
    [
        "att_capital_1995.txt",
        "coned_2020.txt",
        "cummins_2020.txt",
        "disney_2020.txt",
        "emerson_2018.md",
    ]
    .iter()
    .map(|f| corpus(&format!("credit_agreements/{f}")))
    .collect()
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn offline_batch_killed_at_random_points_resumes_to_the_uninterrupted_result() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let work = tempdir();
    let docs = credit_agreements();
    let reference = work.path().join("reference");
    run_ok(ingest(&docs, &reference, work.path()));
    let expected = outputs(&reference, &[]);
    assert_no_duplicates(&reference);
    assert!(
        expected["nodes.csv"].len() > 1000,
        "the corpus yields a graph"
    );

    let mut interrupted = 0;
    let points = kill_points(12, docs.len(), Duration::from_millis(100), 1);
    for (i, at) in points.into_iter().enumerate() {
        let out = work.path().join(format!("killed-{i}"));
        interrupted += usize::from(kill_at(ingest(&docs, &out, work.path()), &out, at).is_some());
        let mut resume = ingest(&docs, &out, work.path());
        resume.arg("--resume");
        if out.join("manifest.json").exists() {
            run_ok(resume);
        } else {
            // Killed before the batch began: a new batch in the same place.
            run_ok(ingest(&docs, &out, work.path()));
        }
        assert_no_duplicates(&out);
        let got = outputs(&out, &[]);
        for (file, rows) in &expected {
            assert!(
                &got[file] == rows,
                "kill {i} at {at:?}: {file} differs from the uninterrupted run ({} vs {} rows)",
                got[file].len(),
                rows.len()
            );
        }
    }
    assert!(
        interrupted >= 6,
        "only {interrupted} of 12 kills landed inside a batch; the test proves little"
    );
}

/// A loopback LLM that answers every section piece with its own clause
/// entity (named by the piece's id and heading).
pub(super) fn clause_server(rt: &tokio::runtime::Runtime, latency: Duration) -> FakeServer {
    rt.block_on(FakeServer::start(latency, |req| {
        Reply::per_piece(req, |id, heading, _| {
            clause_answer(&format!("Clause {id} {heading}"))
        })
    }))
    .unwrap()
}

/// One piece's answer: Acme must maintain `clause`.
pub(super) fn clause_answer(clause: &str) -> serde_json::Value {
    json!({
            "entities": [
                {"name": "Acme Holdings, Inc.", "type": "Organization", "aliases": [], "description": "party"},
                {"name": clause, "type": "Covenant", "aliases": [], "description": "clause"}
            ],
            "relations": [
                {"source": "Acme Holdings, Inc.", "type": "MUST_MAINTAIN", "target": clause, "evidence": "shall"}
            ],
            "graphability": {"tier": "medium", "why": "test server"}
    })
}

#[test]
fn llm_batch_killed_at_random_points_resumes_without_resending_answered_sections() {
    const LATENCY: Duration = Duration::from_millis(60);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = clause_server(&rt, LATENCY);
    let work = tempdir();
    let docs = vec![
        fixture("credit_agreement.md"),
        fixture("supply_agreement.txt"),
    ];
    let with_llm = |out: &Path, cache: &Path| {
        let mut c = ingest(&docs, out, work.path());
        c.env("KGROUTE_LLM_URL", server.base_url())
            .env("KGROUTE_MODEL", "test-model")
            .arg("--cache-dir")
            .arg(cache)
            .args(["--concurrency", "2", "--documents-in-flight", "1"])
            // About a section a request: many points to be killed between.
            .args(["--pack-tokens", "100"]);
        c
    };
    let reference = work.path().join("reference");
    run_ok(with_llm(&reference, &work.path().join("cache-ref")));
    // A cache hit is reported as such (`cached`): the one honest difference
    // between a resumed and an uninterrupted run. Its tokens are not: the
    // killed run paid them, so the resumed batch counts them.
    let volatile = ["status"];
    let expected = outputs(&reference, &volatile);
    let expected_tokens = token_totals(&reference);
    assert!(server.requests() > 20, "the fixtures send many requests");

    let mut resent_total = 0;
    let mut interrupted = 0;
    let points = kill_points(10, docs.len(), LATENCY * 6, 2);
    for (i, at) in points.into_iter().enumerate() {
        let out = work.path().join(format!("killed-{i}"));
        let cache = work.path().join(format!("cache-{i}"));
        let before = server.requests();
        let killed = kill_at(with_llm(&out, &cache), &out, at);
        // A run that ended by itself answered everything it was sent.
        let killed_at = killed.unwrap_or_else(Instant::now);
        let run1: Vec<_> = server.received().into_iter().skip(before).collect();
        interrupted += usize::from(killed.is_some());
        // Pieces whose answer had surely reached the client before the kill.
        let answered: HashSet<(String, String)> = run1
            .iter()
            .filter(|r| r.at + LATENCY + Duration::from_millis(150) < killed_at)
            .flat_map(|r| r.pack_pieces())
            .map(|(_, heading, text)| (heading, text))
            .collect();
        let mid = server.requests();
        let mut resume = with_llm(&out, &cache);
        if out.join("manifest.json").exists() {
            resume.arg("--resume");
        }
        run_ok(resume);
        let resent: Vec<String> = server
            .received()
            .into_iter()
            .skip(mid)
            .flat_map(|r| r.pack_pieces())
            .map(|(_, heading, text)| (heading, text))
            .filter(|piece| answered.contains(piece))
            .map(|(heading, _)| heading)
            .collect();
        resent_total += resent.len();
        assert!(
            resent.is_empty(),
            "kill {i}: sections answered before the kill were sent again: {resent:?}"
        );
        assert_no_duplicates(&out);
        assert_eq!(
            token_totals(&out),
            expected_tokens,
            "kill {i} at {at:?}: summary.json token totals differ from the uninterrupted run"
        );
        let got = outputs(&out, &volatile);
        for (file, rows) in &expected {
            assert!(
                &got[file] == rows,
                "kill {i} at {at:?}: {file} differs from the uninterrupted run"
            );
        }
    }
    assert_eq!(resent_total, 0);
    assert!(
        interrupted >= 5,
        "only {interrupted} of 10 kills landed inside a batch"
    );
}

/// summary.json's batch token totals: extraction in and out, title
/// mapping in and out.
fn token_totals(out: &Path) -> [u64; 4] {
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let t = &s["totals"];
    let n = |v: &serde_json::Value| {
        v.as_u64()
            .unwrap_or_else(|| panic!("no token count in {t}"))
    };
    [
        n(&t["tokens_in"]),
        n(&t["tokens_out"]),
        n(&t["title_mapping"]["tokens_in"]),
        n(&t["title_mapping"]["tokens_out"]),
    ]
}

/// Copies `src` into `dir` under a stem unique to this run, so each batch
/// has doc_ids of its own in the shared database.
pub(super) fn unique_copy(src: &Path, dir: &Path, stem: &str) -> PathBuf {
    let ext = src.extension().unwrap().to_str().unwrap();
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dst = dir.join(format!("{stem}_{}_{nonce}.{ext}", std::process::id()));
    std::fs::copy(src, &dst).unwrap();
    dst
}

/// Counts and a checksum of the sorted ids (section uids, entity keys,
/// relations) the database holds for the batch's documents, with each
/// doc_id replaced by its position so two batches of the same files compare.
pub(super) async fn neo4j_state(doc_ids: &[String]) -> (Vec<kgroute::graph::GraphCounts>, String) {
    use sha2::{Digest, Sha256};
    let sink = connect().await;
    let g = sink.graph();
    let mut counts = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    for (i, id) in doc_ids.iter().enumerate() {
        counts.push(db_counts(g, id).await);
        let q = "MATCH (s:Section {doc_id: $doc_id}) RETURN 's:' + s.uid AS id \
                 UNION MATCH (e:Entity)-[:MENTIONED_IN]->(:Section {doc_id: $doc_id}) RETURN 'e:' + e.key AS id \
                 UNION MATCH (a:Entity)-[r]->(b:Entity) WHERE r.doc_id = $doc_id \
                 RETURN 'r:' + a.key + '|' + type(r) + '|' + b.key AS id";
        let mut rows = g
            .execute(neo4rs::query(q).param("doc_id", id.as_str()))
            .await
            .unwrap();
        while let Some(row) = rows.next().await.unwrap() {
            let s: String = row.get("id").unwrap();
            ids.push(s.replace(id.as_str(), &format!("DOC{i}")));
        }
    }
    ids.sort();
    let mut h = Sha256::new();
    for s in &ids {
        h.update(s.as_bytes());
        h.update(b"\n");
    }
    let sum = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    (counts, sum)
}

pub(super) fn manifest_doc_ids(out: &Path) -> Vec<String> {
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    m["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["doc_id"].as_str().expect("doc_id recorded").to_string())
        .collect()
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn neo4j_batch_killed_at_random_points_resumes_to_the_uninterrupted_graph() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (uri, user, _) = neo4j_env();
    let work = tempdir();
    let sources = [
        fixture("credit_agreement.md"),
        fixture("supply_agreement.txt"),
        corpus("credit_agreements/att_capital_1995.txt"),
    ];
    let batch = |tag: &str| -> Vec<PathBuf> {
        let dir = work.path().join(tag);
        std::fs::create_dir_all(&dir).unwrap();
        sources
            .iter()
            .enumerate()
            .map(|(i, s)| unique_copy(s, &dir, &format!("crash{i}")))
            .collect()
    };
    let into_neo4j = |docs: &[PathBuf], out: &Path| {
        let mut c = ingest(docs, out, work.path());
        c.arg("--neo4j")
            .arg(&uri)
            .env("NEO4J_USERNAME", &user)
            .args(["--documents-in-flight", "1"]);
        c
    };
    let ref_docs = batch("ref");
    let reference = work.path().join("reference");
    run_ok(into_neo4j(&ref_docs, &reference));
    let expected = rt.block_on(neo4j_state(&manifest_doc_ids(&reference)));
    assert!(
        expected.0.iter().all(|c| c.sections > 5),
        "{:?}",
        expected.0
    );

    let mut interrupted = 0;
    let points = kill_points(10, sources.len(), Duration::from_millis(150), 3);
    for (i, at) in points.into_iter().enumerate() {
        let docs = batch(&format!("k{i}"));
        let out = work.path().join(format!("killed-{i}"));
        interrupted += usize::from(kill_at(into_neo4j(&docs, &out), &out, at).is_some());
        let mut resume = into_neo4j(&docs, &out);
        if out.join("manifest.json").exists() {
            resume.arg("--resume");
        }
        run_ok(resume);
        let got = rt.block_on(neo4j_state(&manifest_doc_ids(&out)));
        assert_eq!(
            got, expected,
            "kill {i} at {at:?}: the graph in Neo4j differs"
        );
    }
    assert!(
        interrupted >= 5,
        "only {interrupted} of 10 kills landed inside a batch"
    );
}
