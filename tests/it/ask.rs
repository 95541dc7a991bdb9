//! `kgroute ask`: the fixtures batch answers offline with whole sections
//! read by their pointers, deduped by section, as text and JSON;
//! `rebuild-search` rebuilds an index; `merge` joins shards' indexes.

use super::util::{fixture, kgroute, read, repo, tempdir};
use std::path::Path;

fn ingest_fixtures(out: &Path, history: &Path, shard: Option<&str>) {
    let mut c =
        super::util::ingest_offline_cmd(&[fixture("")], &repo().join("indices"), out, history);
    c.current_dir(repo()).arg("--quiet");
    if let Some(s) = shard {
        c.arg("--shard").arg(s).env_remove("KGROUTE_SHARD");
    }
    c.assert().success();
}

fn ask_json(batch: &Path, question: &str, extra: &[&str]) -> serde_json::Value {
    let out = kgroute()
        .arg("ask")
        .arg(question)
        .arg("--batch")
        .arg(batch)
        .args(["--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every returned section's text is exactly its byte span of the source.
fn assert_whole_sections(answer: &serde_json::Value) {
    for s in answer["sections"].as_array().unwrap() {
        let path = s["path"].as_str().unwrap();
        let src = std::fs::read_to_string(path).unwrap();
        let (a, b) = (
            s["start_byte"].as_u64().unwrap() as usize,
            s["end_byte"].as_u64().unwrap() as usize,
        );
        assert_eq!(s["text"].as_str().unwrap(), &src[a..b], "{path} {a}..{b}");
    }
}

#[test]
fn ask_the_fixtures_batch_offline_for_whole_sections() {
    let tmp = tempdir();
    let batch = tmp.path().join("batch");
    ingest_fixtures(&batch, &tmp.path().join("history.csv"), None);
    assert!(batch.join("search").join("meta.json").exists());

    let a = ask_json(&batch, "Which law governs the agreement?", &["--top", "5"]);
    let secs = a["sections"].as_array().unwrap();
    assert!(!secs.is_empty());
    assert!(
        secs[0]["title"].as_str().unwrap().contains("Governing Law"),
        "{}",
        secs[0]["title"]
    );
    assert_whole_sections(&a);
    // Deduped: each section at most once, however many chunks matched.
    let mut keys: Vec<(String, String)> = secs
        .iter()
        .map(|s| {
            (
                s["doc_id"].as_str().unwrap().to_string(),
                s["node_id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), n);

    // Within one document (by file name), only its sections.
    let a = ask_json(
        &batch,
        "governing law",
        &["--doc", "supply_agreement.txt", "--top", "3"],
    );
    let secs = a["sections"].as_array().unwrap();
    assert!(!secs.is_empty());
    assert!(secs.iter().all(|s| s["doc_name"] == "supply_agreement.txt"));
    assert!(secs[0]["text"]
        .as_str()
        .unwrap()
        .contains("governed by the laws of"));
    assert_whole_sections(&a);

    // The text format names document, node and lines, then the section.
    let out = kgroute()
        .args(["ask", "governing law", "--top", "1", "--batch"])
        .arg(&batch)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("#1 "), "{text}");
    assert!(text.contains(" lines "), "{text}");
    assert!(text.contains("Governing Law"), "{text}");
}

#[test]
fn rebuild_search_rebuilds_a_batch_index_and_an_unknown_doc_is_refused() {
    let tmp = tempdir();
    let batch = tmp.path().join("batch");
    ingest_fixtures(&batch, &tmp.path().join("history.csv"), None);
    let before = ask_json(&batch, "interest rate margin", &["--top", "3"]);
    std::fs::remove_dir_all(batch.join("search")).unwrap();
    kgroute()
        .args(["ask", "interest", "--batch"])
        .arg(&batch)
        .assert()
        .failure()
        .stderr(predicates::str::contains("kgroute rebuild-search"));
    kgroute()
        .arg("rebuild-search")
        .arg(&batch)
        .assert()
        .success();
    // Its former name still runs it.
    kgroute().arg("index-search").arg(&batch).assert().success();
    let after = ask_json(&batch, "interest rate margin", &["--top", "3"]);
    assert_eq!(before["sections"], after["sections"]);
    kgroute()
        .args(["ask", "interest", "--doc", "nope.txt", "--batch"])
        .arg(&batch)
        .assert()
        .failure()
        .stderr(predicates::str::contains("nope.txt: no such document"));
}

#[test]
fn merge_joins_the_shards_search_indexes() {
    let tmp = tempdir();
    let history = tmp.path().join("history.csv");
    let whole = tmp.path().join("whole");
    ingest_fixtures(&whole, &history, None);
    let shards: Vec<_> = (0..2).map(|k| tmp.path().join(format!("s{k}"))).collect();
    for (k, s) in shards.iter().enumerate() {
        ingest_fixtures(s, &history, Some(&format!("{k}/2")));
    }
    let merged = tmp.path().join("merged");
    kgroute()
        .arg("merge")
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .arg("--history")
        .arg(&history)
        .assert()
        .success()
        .stdout(predicates::str::contains("search index:"));
    for q in ["governing law", "events of default", "delivery of products"] {
        let a = ask_json(&whole, q, &["--top", "3"]);
        let b = ask_json(&merged, q, &["--top", "3"]);
        let ids = |v: &serde_json::Value| -> Vec<(String, String)> {
            v["sections"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| (s["doc_id"].to_string(), s["node_id"].to_string()))
                .collect()
        };
        assert_eq!(ids(&a), ids(&b), "{q}");
    }
}

/// With an LLM (the loopback server): the candidates are re-ranked by
/// breadcrumb, the answer is written from the whole sections it was given,
/// and a citation of a section it was not given is reported, not trusted.
/// A connection dropped under the answer's first attempt is retried.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_with_an_llm_reranks_answers_from_whole_sections_and_flags_unknown_citations() {
    use crate::fake_server::{FakeServer, Reply};
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let tmp = tempdir();
    let batch = tmp.path().join("batch");
    ingest_fixtures(&batch, &tmp.path().join("history.csv"), None);
    let offline = ask_json(&batch, "Which law governs the agreement?", &["--top", "2"]);
    let offline = offline["sections"].as_array().unwrap().clone();
    assert_eq!(offline.len(), 2);

    let answers_asked = AtomicUsize::new(0);
    let server = FakeServer::start(std::time::Duration::ZERO, move |r| {
        if r.path.ends_with("/models") {
            return Reply::models(&["test-model"]);
        }
        let user = r.last_user_message();
        if user.contains("Candidates:") {
            // The model puts the second candidate first.
            return Reply::json(&json!({"order": [1, 0]}));
        }
        if answers_asked.fetch_add(1, Ordering::SeqCst) == 0 {
            return Reply::Drop;
        }
        // Cite the first section label given, and one that was not given.
        let given = user
            .lines()
            .find(|l| l.starts_with('[') && l.contains(" §"))
            .and_then(|l| l.split(']').next())
            .map(|l| format!("{l}]"))
            .unwrap_or_default();
        Reply::json(&json!({
            "answer": format!("The law of New York {given}; also [nowhere.txt §9999 lines 1-2].")
        }))
    })
    .await
    .unwrap();

    let out = kgroute()
        .args([
            "ask",
            "Which law governs the agreement?",
            "--top",
            "2",
            "--rerank",
        ])
        .args(["--format", "json", "--batch"])
        .arg(&batch)
        .args(["--llm-url", &server.base_url(), "--model", "test-model"])
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("KGROUTE_MODEL")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let a: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_whole_sections(&a);
    let secs = a["sections"].as_array().unwrap();
    assert_eq!(secs.len(), 2);
    // Re-ranked: the model's order over the retrieval pool, so the first
    // section is no longer retrieval's first.
    assert_ne!(secs[0]["node_id"], offline[0]["node_id"], "{secs:?}");
    let answer = &a["answer"];
    let text = answer["text"].as_str().unwrap();
    assert!(text.contains("New York"), "{text}");
    assert!(
        text.contains(&format!("§{}", secs[0]["node_id"].as_str().unwrap())),
        "{text}"
    );
    assert_eq!(
        answer["unknown_citations"],
        json!(["[nowhere.txt §9999 lines 1-2]"])
    );
    // The answer request carried every section whole, not chunks; the
    // dropped first attempt was sent again.
    let answer_requests: Vec<String> = server
        .received()
        .into_iter()
        .map(|r| r.last_user_message())
        .filter(|m| m.contains("Sections:"))
        .collect();
    assert_eq!(answer_requests.len(), 2, "one drop, one retry");
    let asked = &answer_requests[1];
    for s in secs {
        assert!(asked.contains(s["text"].as_str().unwrap().trim()));
    }
}

/// A model that answers garbage loses nothing retrieval found: the failed
/// re-ranking keeps retrieval's order, the failed answer still prints the
/// whole sections and says why (exit 1), and the key is never echoed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_keeps_the_sections_when_the_llm_fails() {
    use crate::fake_server::{FakeServer, Reply};
    let tmp = tempdir();
    let batch = tmp.path().join("batch");
    ingest_fixtures(&batch, &tmp.path().join("history.csv"), None);
    let q = "Which law governs the agreement?";
    let offline = ask_json(&batch, q, &["--top", "2"]);
    let server = FakeServer::start(std::time::Duration::ZERO, |r| {
        if r.path.ends_with("/models") {
            return Reply::models(&["test-model"]);
        }
        Reply::content("I am not JSON")
    })
    .await
    .unwrap();
    let key = "sk-kgroute-test-secret-4711";
    let out = kgroute()
        .args([
            "ask", q, "--top", "2", "--rerank", "--format", "json", "--batch",
        ])
        .arg(&batch)
        .args(["--llm-url", &server.base_url(), "--model", "test-model"])
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("KGROUTE_MODEL")
        .env("OPENAI_API_KEY", key)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("re-ranking failed"), "{stderr}");
    assert!(stderr.contains("the LLM's answer failed"), "{stderr}");
    let a: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_whole_sections(&a);
    let ids = |v: &serde_json::Value| -> Vec<String> {
        v["sections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["node_id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(&a), ids(&offline), "retrieval's order is kept");
    assert!(a.get("answer").is_none(), "{a}");
    assert!(
        a["answer_error"].as_str().unwrap().contains("not JSON"),
        "{a}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains(key) && !stderr.contains(key));
}

/// A server that accepts and never answers holds each LLM step for
/// `--timeout`, not for every retry of it: the re-ranking and the answer
/// fail naming the bound, and retrieval's sections are printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_is_given_up_after_the_timeout() {
    use crate::fake_server::{FakeServer, Reply};
    let tmp = tempdir();
    let batch = tmp.path().join("batch");
    ingest_fixtures(&batch, &tmp.path().join("history.csv"), None);
    let q = "Which law governs the agreement?";
    let offline = ask_json(&batch, q, &["--top", "2"]);
    let server = FakeServer::start(std::time::Duration::ZERO, |_| Reply::Hang)
        .await
        .unwrap();
    let out = kgroute()
        .args([
            "ask",
            q,
            "--top",
            "2",
            "--rerank",
            "--timeout",
            "2",
            "--format",
            "json",
            "--batch",
        ])
        .arg(&batch)
        .args(["--llm-url", &server.base_url(), "--model", "test-model"])
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("KGROUTE_MODEL")
        // A guard against a hang, not a measure of speed.
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("re-ranking failed") && stderr.contains("--timeout"),
        "{stderr}"
    );
    let a: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_whole_sections(&a);
    assert_eq!(
        a["sections"], offline["sections"],
        "retrieval's sections, in its order"
    );
    let why = a["answer_error"].as_str().unwrap();
    assert!(why.contains("--timeout") && why.contains("2 s"), "{why}");
    assert_eq!(
        server.received().len(),
        2,
        "one attempt per step: the re-ranking and the answer"
    );
}

/// `(name, type)` of the grounding's entities and `(source, type, target,
/// node ids)` of its relations, sorted, for comparing two groundings.
fn grounding_view(a: &serde_json::Value) -> (Vec<String>, Vec<String>) {
    let g = &a["grounding"];
    let mut entities: Vec<String> = g["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let mut secs: Vec<String> = e["sections"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s[1].as_str().unwrap().to_string())
                .collect();
            secs.sort();
            format!("{} {} {:?}", e["entity_type"], e["name"], secs)
        })
        .collect();
    entities.sort();
    let mut relations: Vec<String> = g["relations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut at: Vec<&str> = r["provenance"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["node_id"].as_str().unwrap())
                .collect();
            at.sort();
            format!(
                "{} -{}-> {} {at:?}",
                r["source"], r["rel_type"], r["target"]
            )
        })
        .collect();
    relations.sort();
    (entities, relations)
}

/// A batch written to Neo4j is grounded like the files batch of the same
/// document, with or without a connection to the server.
#[test]
fn ask_a_neo4j_batch_is_grounded_like_its_files() {
    let (uri, user, _) = super::graph_neo4j::neo4j_env();
    let tmp = tempdir();
    let doc = super::crash::unique_copy(&fixture("supply_agreement.txt"), tmp.path(), "ask_neo4j");
    let files = tmp.path().join("files");
    let neo = tmp.path().join("neo4j");
    let index = repo().join("indices");
    super::util::ingest_offline_cmd(
        std::slice::from_ref(&doc),
        &index,
        &files,
        &tmp.path().join("h1.csv"),
    )
    .arg("--quiet")
    .assert()
    .success();
    super::util::ingest_offline_cmd(&[doc], &index, &neo, &tmp.path().join("h2.csv"))
        .args(["--quiet", "--neo4j", &uri])
        .env("NEO4J_USERNAME", &user)
        .assert()
        .success();
    assert!(!neo.join("graph").exists(), "the graph went to Neo4j");

    let q = "What must Northwind Industries, Inc. pay the Supplier?";
    let from_files = ask_json(&files, q, &[]);
    let without = kgroute()
        .args(["ask", q, "--format", "json", "--batch"])
        .arg(&neo)
        .env_remove("NEO4J_URI")
        .output()
        .unwrap();
    assert!(without.status.success());
    // The names the graph knows are indexed at ingest beside the search
    // index (`search/names`), whatever the sink: a batch written to Neo4j
    // is grounded without a connection, as its files batch is.
    let stderr = String::from_utf8_lossy(&without.stderr);
    assert!(!stderr.contains("not grounded"), "{stderr}");
    let without: serde_json::Value = serde_json::from_slice(&without.stdout).unwrap();
    assert_eq!(grounding_view(&without).0, grounding_view(&from_files).0);
    let from_neo4j = ask_json(&neo, q, &["--neo4j", &uri]);

    let (files_entities, files_relations) = grounding_view(&from_files);
    let (neo_entities, neo_relations) = grounding_view(&from_neo4j);
    assert!(
        files_entities
            .iter()
            .any(|e| e.contains("Northwind Industries"))
            && files_entities.iter().any(|e| e.contains("Supplier")),
        "{files_entities:?}"
    );
    assert_eq!(neo_entities, files_entities);
    assert!(!files_relations.is_empty());
    if files_relations.len() < kgroute::ask::grounding::MAX_RELATIONS {
        assert_eq!(neo_relations, files_relations);
    } else {
        // Both stop at the cap, each at its own first relations.
        assert_eq!(neo_relations.len(), kgroute::ask::grounding::MAX_RELATIONS);
    }
    // The same sections come back, raised by the same names.
    let nodes = |a: &serde_json::Value| -> Vec<String> {
        a["sections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["node_id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(nodes(&from_neo4j), nodes(&from_files));
}

/// The fixtures routed as `ingest` routes them, in an in-memory index.
fn fixtures_index() -> kgroute::search::SearchIndex {
    use kgroute::tree::source::ReadOptions;
    let indices = kgroute::index::IndexSet::load(&[repo().join("indices")]).unwrap();
    let w = kgroute::search::SearchIndexWriter::in_ram().unwrap();
    for name in ["credit_agreement.md", "supply_agreement.txt", "memo.txt"] {
        let path = fixture(name);
        let source = kgroute::tree::SourceText::read_with(&path, &ReadOptions::default()).unwrap();
        let tree = kgroute::tree::build_tree(&source);
        let (index, _) = indices.choose(&tree, &source, None).unwrap();
        let empty = kgroute::index::GraphabilityIndex::default();
        let plan = kgroute::route::plan(
            &tree,
            index.unwrap_or(&empty),
            &kgroute::route::RouteOptions::default(),
        );
        w.add(&plan, &source, &path).unwrap();
    }
    w.into_index().unwrap()
}

#[test]
fn a_question_is_expanded_with_the_words_of_its_best_chunks_across_the_corpus() {
    use kgroute::ask::{expand::query_terms, RetrieveOptions};
    let index = fixtures_index();
    let q = "Which law governs the agreement?";
    let plain = query_terms(&index, q, &RetrieveOptions::plain()).unwrap();
    assert!(plain.iter().all(|(_, w)| *w == 1.0), "{plain:?}");
    let terms = query_terms(&index, q, &RetrieveOptions::default()).unwrap();
    // The question's own words at full weight, then words learned from the
    // corpus's best chunks for it at less.
    assert_eq!(&terms[..plain.len()], &plain[..]);
    let added: Vec<&str> = terms[plain.len()..]
        .iter()
        .inspect(|(_, w)| assert!(*w > 0.0 && *w <= 1.0, "{terms:?}"))
        .map(|(t, _)| t.as_str())
        .collect();
    // Both governing-law clauses name a State (Illinois, New York); the
    // question does not.
    assert!(added.contains(&"state"), "{added:?}");
    // The chunks the expansion read carry their stored text.
    let hits = index.search(q, None, 3).unwrap();
    assert!(hits.iter().all(|h| h.text.starts_with('[')), "{hits:?}");
    // And the expanded query still finds the clause first in each contract.
    governing_law_ranks_first(&index, q);
}

/// `q` asked within each fixture contract finds its Governing Law clause
/// first.
fn governing_law_ranks_first(index: &kgroute::search::SearchIndex, q: &str) {
    for doc in ["credit_agreement.md", "supply_agreement.txt"] {
        let top = kgroute::ask::retrieve(index, q, Some(doc), 1).unwrap();
        assert!(
            top[0].pointer.title.contains("Governing Law"),
            "{doc}: {:?}",
            top[0].pointer
        );
    }
}

#[test]
fn question_frame_words_are_left_out_when_asked() {
    use kgroute::ask::{expand, RetrieveOptions};
    let index = fixtures_index();
    let opts = RetrieveOptions {
        frame_words: expand::QUESTION_WORDS,
        feedback_chunks: 0,
        ..RetrieveOptions::default()
    };
    let q = "Which law governs the agreement?";
    let all: Vec<String> = index.terms(q);
    assert!(all.iter().any(|t| t == "which"), "{all:?}");
    let terms = expand::query_terms(&index, q, &opts).unwrap();
    assert!(terms.iter().all(|(t, _)| t != "which"), "{terms:?}");
    assert!(terms.iter().any(|(t, _)| t == "law"), "{terms:?}");
    // A question of frame words only keeps them rather than asking nothing.
    let only = expand::query_terms(&index, "Which?", &opts).unwrap();
    assert_eq!(only, vec![("which".to_string(), 1.0)]);
}

#[test]
fn a_question_learns_the_titles_the_corpus_gives_its_clauses() {
    use kgroute::ask::{expand, RetrieveOptions};
    let index = fixtures_index();
    // The question never says "governing"; the contracts title the clause
    // that answers it "Governing Law".
    let q = "Which state's laws apply to disputes?";
    let query = expand::query(&index, q, &RetrieveOptions::default()).unwrap();
    let titles: Vec<&str> = query.titles.iter().map(|(t, _)| t.as_str()).collect();
    assert!(titles.contains(&"govern"), "{titles:?}");
    assert_eq!(query.titles[0].1, 1.0, "{:?}", query.titles);
    assert!(query.titles.iter().all(|(_, w)| *w > 0.0 && *w <= 1.0));
    // The question's own words come first among the body terms.
    assert_eq!(
        query.asked,
        expand::question_terms(&index, q, &RetrieveOptions::default()).len()
    );
    // Off: no title words.
    let off = RetrieveOptions {
        title_terms: 0,
        ..RetrieveOptions::default()
    };
    assert!(expand::query(&index, q, &off).unwrap().titles.is_empty());
    governing_law_ranks_first(&index, q);
}

#[test]
fn a_word_the_question_says_again_counts_more() {
    use kgroute::ask::{expand, RetrieveOptions, REPEAT_WEIGHT};
    let index = fixtures_index();
    let opts = RetrieveOptions {
        feedback_chunks: 0,
        ..RetrieveOptions::default()
    };
    let q = "Governing Law: which state's law governs the agreement?";
    let terms = expand::query_terms(&index, q, &opts).unwrap();
    let weight = |w: &str| terms.iter().find(|(t, _)| t == w).map(|t| t.1);
    // "governing"/"governs" and "law" twice, "state" once.
    assert_eq!(weight("govern"), Some(1.0 + REPEAT_WEIGHT), "{terms:?}");
    assert_eq!(weight("law"), Some(1.0 + REPEAT_WEIGHT), "{terms:?}");
    assert_eq!(weight("state"), Some(1.0), "{terms:?}");
    // Off: each word once.
    let once = RetrieveOptions {
        repeat_weight: 0.0,
        ..opts
    };
    let terms = expand::query_terms(&index, q, &once).unwrap();
    assert!(terms.iter().all(|(_, w)| *w == 1.0), "{terms:?}");
    governing_law_ranks_first(&index, q);
}

/// The fixtures copied into `tmp/in` (so a test may edit or move them) and
/// ingested into `tmp/batch`.
fn ingest_a_copy(tmp: &Path, layout: &[(&str, &str)]) -> (std::path::PathBuf, std::path::PathBuf) {
    let input = tmp.join("in");
    for (from, to) in layout {
        let to = input.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(fixture(from), &to).unwrap();
    }
    let batch = tmp.join("batch");
    super::util::ingest_offline_cmd(
        std::slice::from_ref(&input),
        &repo().join("indices"),
        &batch,
        &tmp.join("history.csv"),
    )
    .current_dir(repo())
    .arg("--quiet")
    .assert()
    .success();
    (input, batch)
}

const THREE: &[(&str, &str)] = &[
    ("supply_agreement.txt", "supply_agreement.txt"),
    ("credit_agreement.md", "credit_agreement.md"),
    ("memo.txt", "memo.txt"),
];

/// Runs `ask` and hands back (exit code, stdout, stderr).
fn ask_run(batch: &Path, question: &str, extra: &[&str]) -> (i32, String, String) {
    let out = kgroute()
        .arg("ask")
        .arg(question)
        .arg("--batch")
        .arg(batch)
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn doc_names(json: &str) -> Vec<String> {
    let a: serde_json::Value = serde_json::from_str(json).unwrap();
    a["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["doc_name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_edited_source_is_reported_and_its_shifted_text_never_returned() {
    let tmp = tempdir();
    let (input, batch) = ingest_a_copy(tmp.path(), THREE);
    let q = "governing law interest payment";
    let before = ask_json(&batch, q, &["--top", "8"]);
    let names: Vec<&str> = before["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["doc_name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"supply_agreement.txt") && names.contains(&"credit_agreement.md"));

    // One line inserted at the top: every span after it moves.
    let path = input.join("supply_agreement.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("DRAFT - added after ingest\n{text}")).unwrap();
    let (code, stdout, stderr) = ask_run(&batch, q, &["--top", "8", "--format", "json"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("supply_agreement.txt: its content changed since it was ingested")
            && stderr.contains("kgroute ingest"),
        "{stderr}"
    );
    let a: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(a["problems"][0]["kind"], "changed");
    let names = doc_names(&stdout);
    assert!(
        !names.contains(&"supply_agreement.txt".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"credit_agreement.md".to_string()),
        "{names:?}"
    );
    assert_whole_sections(&a);

    // Asked of that document alone: nothing returned, still exit 1.
    let (code, _, stderr) = ask_run(&batch, q, &["--doc", "supply_agreement.txt"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("changed since it was ingested"), "{stderr}");
}

#[test]
fn a_moved_source_fails_its_own_sections_and_the_rest_are_returned() {
    let tmp = tempdir();
    let (input, batch) = ingest_a_copy(tmp.path(), THREE);
    std::fs::rename(
        input.join("credit_agreement.md"),
        tmp.path().join("elsewhere.md"),
    )
    .unwrap();
    let (code, stdout, stderr) = ask_run(
        &batch,
        "governing law interest payment",
        &["--top", "8", "--format", "json"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("credit_agreement.md: cannot read the source"),
        "{stderr}"
    );
    let a: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(a["problems"][0]["kind"], "unreadable");
    let names = doc_names(&stdout);
    assert!(!names.is_empty() && names.iter().all(|n| n != "credit_agreement.md"));
    assert_whole_sections(&a);
}

#[test]
fn an_empty_or_stop_word_question_is_a_usage_error() {
    let tmp = tempdir();
    let batch = tmp.path().join("batch");
    ingest_fixtures(&batch, &tmp.path().join("history.csv"), None);
    for q in ["", "   ", "Is it in the, or not?"] {
        let (code, stdout, stderr) = ask_run(&batch, q, &[]);
        assert_eq!(code, 2, "{q:?}: {stderr}");
        assert!(stderr.contains("has no word to search for"), "{stderr}");
        assert!(stdout.is_empty());
    }
}

#[test]
fn top_is_bounded_and_a_closed_pipe_ends_quietly() {
    let tmp = tempdir();
    let batch = tmp.path().join("batch");
    ingest_fixtures(&batch, &tmp.path().join("history.csv"), None);
    let (code, _, stderr) = ask_run(&batch, "governing law", &["--top", "1000000000"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--top 1000000000: give from 1 to 1000"),
        "{stderr}"
    );

    // `ask ... --top 50 | head -1`: the reader is gone before ask writes.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kgroute"))
        .args([
            "ask",
            "governing law interest payment",
            "--top",
            "50",
            "--batch",
        ])
        .arg(&batch)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn same_named_files_are_named_by_their_paths_and_doc_must_be_unambiguous() {
    let tmp = tempdir();
    let (_, batch) = ingest_a_copy(
        tmp.path(),
        &[
            ("supply_agreement.txt", "2019/contract.txt"),
            ("credit_agreement.md", "2020/contract.txt"),
        ],
    );
    let (code, stdout, stderr) = ask_run(
        &batch,
        "governing law interest payment",
        &["--top", "8", "--format", "json"],
    );
    assert_eq!(code, 0, "{stderr}");
    let mut names = doc_names(&stdout);
    names.sort();
    names.dedup();
    assert_eq!(names, ["2019/contract.txt", "2020/contract.txt"]);

    let (code, _, stderr) = ask_run(&batch, "governing law", &["--doc", "contract.txt"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("2 documents of the batch have that name")
            && stderr.contains("2019/contract.txt")
            && stderr.contains("2020/contract.txt"),
        "{stderr}"
    );
    let (code, stdout, stderr) = ask_run(
        &batch,
        "governing law",
        &["--doc", "2020/contract.txt", "--format", "json"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(doc_names(&stdout).iter().all(|n| n == "2020/contract.txt"));
}

#[test]
fn an_incomplete_or_missing_batch_says_so() {
    let tmp = tempdir();
    let batch = tmp.path().join("batch");
    ingest_fixtures(&batch, &tmp.path().join("history.csv"), None);
    // What a killed (or still running) ingest leaves: finished is false.
    let manifest = batch.join("manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    m["finished"] = false.into();
    std::fs::write(&manifest, m.to_string()).unwrap();
    let (code, _, stderr) = ask_run(&batch, "governing law", &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("the batch is incomplete"), "{stderr}");
    assert!(stderr.contains("--resume"), "{stderr}");

    let missing = tmp.path().join("no-such-batch");
    let (code, _, stderr) = ask_run(&missing, "governing law", &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no such batch folder"), "{stderr}");
    assert!(!stderr.contains("rebuild-search"), "{stderr}");
}

/// The names index written at ingest grounds a question as the graph files
/// do (entities, their sections, relations), and a batch without it falls
/// back to the files.
#[test]
fn the_names_index_grounds_like_the_graph_files() {
    let tmp = tempdir();
    let batch = tmp.path().join("batch");
    ingest_fixtures(&batch, &tmp.path().join("history.csv"), None);
    let names = batch.join("search").join("names");
    assert!(names.join("meta.json").exists());
    for (q, doc) in [
        (
            "What must Northwind Industries, Inc. pay the Supplier?",
            None,
        ),
        ("What does the Borrower owe the Lenders?", None),
        (
            "What must the Supplier deliver?",
            Some("supply_agreement.txt"),
        ),
    ] {
        let extra: Vec<&str> = doc.map(|d| vec!["--doc", d]).unwrap_or_default();
        let indexed = ask_json(&batch, q, &extra);
        std::fs::rename(&names, tmp.path().join("names.off")).unwrap();
        let files = ask_json(&batch, q, &extra);
        std::fs::rename(tmp.path().join("names.off"), &names).unwrap();
        let (ie, ir) = grounding_view(&indexed);
        let (fe, fr) = grounding_view(&files);
        assert!(!fe.is_empty(), "{q}: the graph knows a name of it");
        assert_eq!(ie, fe, "{q}");
        if fr.len() < kgroute::ask::grounding::MAX_RELATIONS {
            assert_eq!(ir, fr, "{q}");
        } else {
            assert_eq!(ir.len(), fr.len(), "{q}");
        }
        assert_eq!(indexed["sections"], files["sections"], "{q}");
    }
}

/// Over a whole batch, a name most of its contracts use (`the Company`,
/// the one provider all of them have) grounds nothing, while a party only
/// one contract names is still found with its sections; within one
/// contract every name grounds. The batch's search and names indices are
/// one segment each, whatever the writer flushed.
#[test]
fn names_most_contracts_share_do_not_ground_a_question_across_the_batch() {
    let tmp = tempdir();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for i in 0..25 {
        std::fs::write(
            docs.join(format!("services_{i:02}.txt")),
            format!(
                "SERVICES AGREEMENT\n\nThis Services Agreement is made between Zeta{i} Holdings Corp., \
                 a Delaware corporation (the \"Company\"), and Omega Provider LLC, a New York limited \
                 liability company (the \"Provider\").\n\n1. Fees. The Company shall pay the Provider \
                 ${i},000 per month.\n\n2. Governing Law. This Agreement is governed by the laws of the \
                 State of New York.\n"
            ),
        )
        .unwrap();
    }
    let batch = tmp.path().join("batch");
    super::util::ingest_offline_cmd(
        &[docs],
        &repo().join("indices"),
        &batch,
        &tmp.path().join("h.csv"),
    )
    .arg("--quiet")
    .assert()
    .success();
    for index in ["search", "search/names"] {
        let meta: serde_json::Value =
            serde_json::from_str(&read(&batch.join(index).join("meta.json"))).unwrap();
        assert_eq!(meta["segments"].as_array().unwrap().len(), 1, "{index}");
    }
    let names = |a: &serde_json::Value| -> Vec<String> {
        a["grounding"]["entities"]
            .as_array()
            .map(|es| {
                es.iter()
                    .map(|e| e["name"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let q = "What must the Company pay Omega Provider LLC under its agreement with Zeta7 Holdings Corp.?";
    let across = names(&ask_json(&batch, q, &[]));
    assert!(across.iter().any(|n| n.contains("Zeta7")), "{across:?}");
    assert!(
        !across.iter().any(|n| n == "Company" || n.contains("Omega")),
        "{across:?}"
    );
    let within = names(&ask_json(&batch, q, &["--doc", "services_07.txt"]));
    assert!(within.iter().any(|n| n.contains("Omega")), "{within:?}");
}

/// A contract saved with a BOM and CRLF line ends: the byte spans `tree`,
/// `plan` and `ask` print are the file's, so slicing the file at a
/// section's span gives that section (its line ends as the file has
/// them), never the text a few lines before it.
#[test]
fn pointers_into_a_crlf_file_with_a_bom_are_the_files_bytes() {
    let dir = tempdir();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let lf = std::fs::read_to_string(fixture("supply_agreement.txt")).unwrap();
    let crlf = format!("\u{feff}{}", lf.replace('\n', "\r\n"));
    let path = docs.join("supply_crlf.txt");
    std::fs::write(&path, &crlf).unwrap();
    let in_file = |a: u64, b: u64| crlf[a as usize..b as usize].replace("\r\n", "\n");

    // tree: node by node, the CRLF file's span holds what the LF file's
    // span of the same node holds.
    let lf_path = docs.join("supply_lf.txt.orig");
    std::fs::write(&lf_path, &lf).unwrap();
    let tree_of = |p: &Path| -> Vec<(u64, u64)> {
        let out = kgroute()
            .arg("tree")
            .arg(p)
            .args(["--format", "json"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let tree: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut spans = Vec::new();
        let mut stack: Vec<serde_json::Value> = tree["structure"].as_array().unwrap().clone();
        stack.reverse();
        while let Some(n) = stack.pop() {
            spans.push((
                n["start_byte"].as_u64().unwrap(),
                n["end_byte"].as_u64().unwrap(),
            ));
            let mut kids = n["nodes"].as_array().unwrap().clone();
            kids.reverse();
            stack.extend(kids);
        }
        spans
    };
    let (with_crlf, with_lf) = (tree_of(&path), tree_of(&lf_path));
    std::fs::remove_file(&lf_path).unwrap();
    assert_eq!(with_crlf.len(), with_lf.len());
    assert!(with_crlf.len() > 3);
    assert_ne!(with_crlf, with_lf, "the CRLF file's offsets run ahead");
    for (&(a, b), &(c, d)) in with_crlf.iter().zip(&with_lf) {
        assert_eq!(in_file(a, b), lf[c as usize..d as usize], "{a}..{b}");
    }

    // ask: each section's text is its span of the file, line ends aside.
    let batch = dir.path().join("b");
    super::util::ingest_offline_cmd(
        &[docs],
        &repo().join("indices"),
        &batch,
        &dir.path().join("h.csv"),
    )
    .assert()
    .success();
    let answer = ask_json(&batch, "which law governs the agreement?", &[]);
    let sections = answer["sections"].as_array().unwrap();
    assert!(!sections.is_empty());
    for s in sections {
        let (a, b) = (
            s["start_byte"].as_u64().unwrap(),
            s["end_byte"].as_u64().unwrap(),
        );
        assert_eq!(in_file(a, b), s["text"].as_str().unwrap(), "{a}..{b}");
    }
}

/// `ask` without `--batch` asks the newest batch in reports/ and says
/// which, so an answer is never taken for another batch's.
#[test]
fn ask_without_a_batch_names_the_one_it_chose() {
    let dir = tempdir();
    let reports = dir.path().join("reports");
    super::util::ingest_offline_cmd(
        &[fixture("supply_agreement.txt")],
        &repo().join("indices"),
        &reports.join("tour"),
        &dir.path().join("h.csv"),
    )
    .assert()
    .success();
    let out = kgroute()
        .args(["ask", "which law governs the agreement?", "--top", "1"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("asking reports/tour (the newest batch in reports/"),
        "{err}"
    );
}

/// `ask --contracts` reads a negated law or party as one, and a party or
/// a clause kind the batch does not hold is named with exit 1 and no list
/// (never every contract "by retrieval"). Read on the fixtures: the credit
/// agreement is the New York one and the only one with Acme Bank.
#[test]
fn ask_contracts_reads_negation_and_names_what_the_batch_does_not_hold() {
    let dir = tempdir();
    let batch = dir.path().join("b");
    ingest_fixtures(&batch, &dir.path().join("h.csv"), None);
    let answer = |q: &str| -> (i32, serde_json::Value) {
        let (code, out, err) = ask_run(&batch, q, &["--contracts", "--format", "json"]);
        assert!(code == 0 || code == 1, "{q}: {err}");
        (code, serde_json::from_str(&out).unwrap())
    };
    let names = |a: &serde_json::Value| -> Vec<String> {
        a["contracts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["doc_name"].as_str().unwrap().to_string())
            .collect()
    };
    let (code, ny) = answer("Which contracts are governed by New York law?");
    assert_eq!(
        (code, names(&ny)),
        (0, vec!["credit_agreement.md".to_string()])
    );
    let (code, not_ny) = answer("Which contracts are not governed by New York law?");
    assert_eq!(code, 0);
    assert_eq!(not_ny["not_law"], true);
    let listed = names(&not_ny);
    assert!(
        listed.contains(&"supply_agreement.txt".to_string()),
        "{listed:?}"
    );
    assert!(
        !listed.contains(&"credit_agreement.md".to_string()),
        "{listed:?}"
    );

    let (code, not_acme) = answer("Which contracts are not with Acme Bank?");
    assert_eq!(code, 0);
    let listed = names(&not_acme);
    assert_eq!(listed.len(), 3, "{listed:?}");
    assert!(
        !listed.contains(&"credit_agreement.md".to_string()),
        "{listed:?}"
    );

    for (q, unknown) in [
        (
            "Which contracts is Zebulon Widgets a party to?",
            "Zebulon Widgets",
        ),
        ("Which contracts have a unicorn clause?", "a unicorn clause"),
    ] {
        let (code, a) = answer(q);
        assert_eq!(code, 1, "{q}: {a}");
        assert!(names(&a).is_empty(), "{q}: nothing listed: {a}");
        assert_eq!(a["unknown"][0], unknown, "{a}");
        assert!(a["notes"][0].as_str().unwrap().contains(unknown), "{a}");
    }
}
