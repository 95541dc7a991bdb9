//! `--shard K/N` and `kgroute merge`: three shards run as parallel processes
//! over the same inputs and merged give the batch one process gives (same
//! sorted sections.csv rows, summary figures and graph files); a set with a
//! missing or repeated shard is refused, naming it.

use super::util::{corpus, fixture, kgroute, read, repo, tempdir};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn inputs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = [
        "credit_agreements/att_capital_1995.txt",
        "credit_agreements/coned_2020.txt",
        "credit_agreements/emerson_2018.md",
        "wide/leases/pnk_2020_lease.txt",
        "wide/m_and_a/pier1_2020_asset_purchase.txt",
    ]
    .iter()
    .map(|f| corpus(f))
    .collect();
    v.push(fixture("supply_agreement.txt"));
    v.push(fixture("memo.txt"));
    v
}

fn ingest(out: &Path, history: &Path, shard: Option<&str>) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kgroute"));
    c.current_dir(repo())
        .arg("ingest")
        .args(inputs())
        .arg("--index")
        .arg(repo().join("indices"))
        .arg("--out")
        .arg(out)
        .arg("--history")
        .arg(history)
        .arg("--quiet")
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("NEO4J_URI")
        .env_remove("KGROUTE_SHARD")
        .env_remove("JOB_COMPLETION_INDEX")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(s) = shard {
        c.arg("--shard").arg(s);
    }
    c
}

fn sorted_lines(p: &Path) -> Vec<String> {
    let mut v: Vec<String> = read(p).lines().map(String::from).collect();
    v.sort();
    v
}

fn totals(dir: &Path) -> serde_json::Value {
    let j: serde_json::Value = serde_json::from_str(&read(&dir.join("summary.json"))).unwrap();
    let t = &j["totals"];
    // Each document's type and tree health (the names of copies differ).
    let mut docs: Vec<serde_json::Value> = j["per_document"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            serde_json::json!([
                d["doc_type"],
                d["doc_type_confidence"],
                d["tree_health"],
                d["index"]
            ])
        })
        .collect();
    docs.sort_by_key(|d| d.to_string());
    serde_json::json!([
        docs,
        j["doc_types"],
        j["indices"],
        t["title_mapping"],
        t["sections"],
        t["sent"],
        t["skipped"],
        t["chars_total"],
        t["chars_sent"],
        t["new_sections"],
        t["perfect"],
        t["payload_cut_pct"],
        j["documents"],
    ])
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn three_parallel_shards_merge_into_the_unsharded_batch() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = tempdir();
    let d = dir.path();
    let whole = d.join("whole");
    let status = ingest(&whole, &d.join("h-whole.csv"), None)
        .status()
        .unwrap();
    assert!(status.success());

    let shards: Vec<PathBuf> = (0..3).map(|k| d.join(format!("shard-{k}"))).collect();
    // K from the flag for two workers, from JOB_COMPLETION_INDEX for one.
    let mut children = Vec::new();
    for (k, out) in shards.iter().enumerate() {
        let mut c = if k == 2 {
            let mut c = ingest(out, &d.join(format!("h-{k}.csv")), Some("/3"));
            c.env("JOB_COMPLETION_INDEX", "2");
            c
        } else {
            ingest(out, &d.join(format!("h-{k}.csv")), Some(&format!("{k}/3")))
        };
        children.push(c.spawn().unwrap());
    }
    let mut shard_docs = 0;
    for (k, c) in children.into_iter().enumerate() {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "shard {k}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let m: serde_json::Value =
            serde_json::from_str(&read(&shards[k].join("manifest.json"))).unwrap();
        assert_eq!(m["shard"]["index"], k as u64);
        shard_docs += m["documents"].as_array().unwrap().len();
    }
    assert_eq!(
        shard_docs,
        inputs().len(),
        "every document in exactly one shard"
    );

    let merged = d.join("merged");
    kgroute()
        .arg("merge")
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .arg("--history")
        .arg(d.join("h-merged.csv"))
        .assert()
        .success();

    assert_eq!(
        sorted_lines(&merged.join("sections.csv")),
        sorted_lines(&whole.join("sections.csv"))
    );
    assert_eq!(totals(&merged), totals(&whole));
    let sorted = |s: String| {
        let mut v: Vec<String> = s.lines().map(String::from).collect();
        v.sort();
        v
    };
    assert_eq!(
        sorted(super::util::graph_jsonl(&merged)),
        sorted(super::util::graph_jsonl(&whole)),
        "the graph's lines"
    );
    for batch in [&merged, &whole] {
        super::util::import_files(batch);
    }
    for f in ["nodes.csv", "relationships.csv"] {
        assert_eq!(
            sorted_lines(&merged.join("graph").join(f)),
            sorted_lines(&whole.join("graph").join(f)),
            "{f}"
        );
    }
    assert!(merged.join("sections.xlsx").is_file());
    assert_eq!(read(&d.join("h-merged.csv")).lines().count(), 2, "one row");

    // A missing shard, a repeated one and an unsharded batch are refused,
    // each naming what is wrong.
    let refused = |dirs: &[&PathBuf], out: &str| -> String {
        let o = kgroute()
            .arg("merge")
            .args(dirs)
            .arg("--out")
            .arg(d.join(out))
            .assert()
            .failure()
            .get_output()
            .stderr
            .clone();
        String::from_utf8_lossy(&o).into_owned()
    };
    let err = refused(&[&shards[0], &shards[1]], "m2");
    assert!(err.contains("2/3 missing"), "{err}");
    let err = refused(&[&shards[0], &shards[1], &shards[1]], "m3");
    assert!(err.contains("given twice"), "{err}");
    let err = refused(&[&whole], "m4");
    assert!(err.contains("not run with --shard"), "{err}");
}

#[test]
fn a_bad_shard_spec_is_a_configuration_error_that_teaches() {
    let dir = tempdir();
    let out = kgroute()
        .args(["plan", "--shard", "3/3"])
        .arg(fixture("memo.txt"))
        .arg("--out")
        .arg(dir.path().join("p"))
        .env_remove("KGROUTE_SHARD")
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("0 to 2"));
}

/// Sorted rows of a sections.csv without its doc_id column (the shard runs
/// read copies of the same files under other names).
fn rows_without_doc_id(p: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(p).unwrap();
    let headers = r.headers().unwrap().clone();
    let doc = headers.iter().position(|h| h == "doc_id").unwrap();
    let mut rows: Vec<Vec<String>> = r
        .records()
        .map(|rec| {
            rec.unwrap()
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != doc)
                .map(|(_, c)| c.to_string())
                .collect()
        })
        .collect();
    rows.sort();
    rows
}

/// doc_ids ordered by their content-hash suffix, so two runs over copies
/// of the same files line up.
fn by_content(mut ids: Vec<String>) -> Vec<String> {
    ids.sort_by(|a, b| a.rsplit('-').next().cmp(&b.rsplit('-').next()));
    ids
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn three_shards_into_neo4j_with_the_loopback_llm_equal_one_run() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    use super::crash::{
        clause_server, ingest as ingest_cmd, manifest_doc_ids, neo4j_state, run_ok, unique_copy,
    };
    use super::graph_neo4j::neo4j_env;
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = clause_server(&rt, std::time::Duration::from_millis(5));
    let (uri, user, _) = neo4j_env();
    let work = tempdir();
    let sources = [
        fixture("credit_agreement.md"),
        fixture("supply_agreement.txt"),
        corpus("credit_agreements/att_capital_1995.txt"),
        corpus("wide/leases/pnk_2020_lease.txt"),
    ];
    let copies = |tag: &str| -> Vec<PathBuf> {
        let dir = work.path().join(tag);
        std::fs::create_dir_all(&dir).unwrap();
        sources
            .iter()
            .enumerate()
            .map(|(i, s)| unique_copy(s, &dir, &format!("shard{i}")))
            .collect()
    };
    let run = |docs: &[PathBuf], out: &Path, cache: &Path| {
        let mut c = ingest_cmd(docs, out, work.path());
        c.arg("--neo4j")
            .arg(&uri)
            .env("NEO4J_USERNAME", &user)
            .env("KGROUTE_LLM_URL", server.base_url())
            .env("KGROUTE_MODEL", "test-model")
            .arg("--cache-dir")
            .arg(cache)
            .env_remove("KGROUTE_SHARD")
            .env_remove("JOB_COMPLETION_INDEX");
        c
    };

    let reference = work.path().join("reference");
    run_ok(run(
        &copies("ref"),
        &reference,
        &work.path().join("cache-ref"),
    ));
    let expected_ids = by_content(manifest_doc_ids(&reference));
    let expected = rt.block_on(neo4j_state(&expected_ids));
    let sent_once = server.pieces_received();
    assert!(sent_once > 10);

    // Three workers at once, into the same database, on copies of the files.
    let docs = copies("sharded");
    let shards: Vec<PathBuf> = (0..3)
        .map(|k| work.path().join(format!("shard-{k}")))
        .collect();
    let children: Vec<_> = shards
        .iter()
        .enumerate()
        .map(|(k, out)| {
            let mut c = run(&docs, out, &work.path().join("cache-shards"));
            c.arg("--shard").arg(format!("{k}/3"));
            c.spawn().unwrap()
        })
        .collect();
    for (k, c) in children.into_iter().enumerate() {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "shard {k}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Every section was sent once more in all, by exactly one shard.
    assert_eq!(server.pieces_received(), 2 * sent_once);

    let merged = work.path().join("merged");
    kgroute()
        .arg("merge")
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .arg("--history")
        .arg(work.path().join("h-merged.csv"))
        .assert()
        .success();
    assert_eq!(
        rows_without_doc_id(&merged.join("sections.csv")),
        rows_without_doc_id(&reference.join("sections.csv"))
    );
    assert_eq!(totals(&merged), totals(&reference));
    let got_ids = by_content(manifest_doc_ids(&merged));
    assert_eq!(got_ids.len(), expected_ids.len());
    let got = rt.block_on(neo4j_state(&got_ids));
    assert_eq!(got, expected, "the sharded graph in Neo4j differs");
}
