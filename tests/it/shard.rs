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
    serde_json::json!([
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
fn three_parallel_shards_merge_into_the_unsharded_batch() {
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
    for f in ["nodes.csv", "relationships.csv", "graph.jsonl"] {
        assert_eq!(
            sorted_lines(&merged.join("graph").join(f)),
            sorted_lines(&whole.join("graph").join(f)),
            "{f}"
        );
    }
    assert!(merged.join("sections.xlsx").is_file());
    assert_eq!(read(&d.join("h-merged.csv")).lines().count(), 2, "one row");

    // A missing shard and a repeated one are refused, naming them.
    let err = kgroute()
        .arg("merge")
        .args(&shards[..2])
        .arg("--out")
        .arg(d.join("m2"))
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    assert!(
        String::from_utf8_lossy(&err).contains("2/3 missing"),
        "{}",
        String::from_utf8_lossy(&err)
    );
    let err = kgroute()
        .arg("merge")
        .args([&shards[0], &shards[1], &shards[1]])
        .arg("--out")
        .arg(d.join("m3"))
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    assert!(
        String::from_utf8_lossy(&err).contains("given twice"),
        "{}",
        String::from_utf8_lossy(&err)
    );
    // An unsharded batch is not a shard.
    let err = kgroute()
        .arg("merge")
        .arg(&whole)
        .arg("--out")
        .arg(d.join("m4"))
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&err).contains("not run with --shard"));
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
