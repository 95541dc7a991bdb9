//! `--llm-mode verify` against a loopback server: whatever a verifier
//! answers (yes to everything, no to everything, garbage), a calibration
//! learned on contracts with known answers leaves the register as the
//! offline reading made it; a verifier that answers right raises the
//! precision and recall of the clause kinds marked present.

use crate::fake_server::{FakeRequest, FakeServer, Reply};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

const MODEL: &str = "fake-verifier";

const CONTRACTS: [&str; 2] = ["services_agreement.txt", "reseller_agreement.txt"];

fn contract(name: &str) -> PathBuf {
    super::util::repo().join("tests/verify").join(name)
}

fn truth_file() -> PathBuf {
    super::util::repo().join("tests/verify/truth.json")
}

/// A contract's clause kinds the truth answers, as relation types: Yes or
/// No.
fn truth(name: &str) -> BTreeMap<String, bool> {
    let v: Value = serde_json::from_str(&super::util::read(&truth_file())).unwrap();
    v[name]
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(cat, a)| {
            let ty = kgroute::extract::facts_vocabulary::category_relation_type(cat);
            let yes = match a.as_str()? {
                "Yes" => true,
                "No" => false,
                _ => return None,
            };
            kgroute::extract::facts_vocabulary::is_clause_kind(&ty).then_some((ty, yes))
        })
        .collect()
}

/// The batch's register rows, by file name.
fn rows(batch: &Path) -> BTreeMap<String, Value> {
    super::util::read(&batch.join("register.jsonl"))
        .lines()
        .map(|l| {
            let row: Value = serde_json::from_str(l).unwrap();
            let name = Path::new(row["path"].as_str().unwrap())
                .file_name()
                .unwrap();
            (name.to_string_lossy().into_owned(), row)
        })
        .collect()
}

/// What the row says a lawyer relies on: its facts and what it holds to
/// check, each as (type, node, quote).
fn cells(row: &Value) -> (BTreeSet<String>, BTreeSet<String>) {
    let list = |key: &str| -> BTreeSet<String> {
        row[key]
            .as_object()
            .map(|m| {
                m.iter()
                    .flat_map(|(ty, fs)| {
                        fs.as_array()
                            .unwrap()
                            .iter()
                            .map(move |f| format!("{ty} {} {}", f["node_id"], f["quote"]))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    (list("facts"), list("to_check"))
}

/// Precision and recall, pooled over the contracts, of the clause kinds
/// the rows mark present, over the kinds the truth answers.
fn scores(rows: &BTreeMap<String, Value>) -> (f64, f64) {
    let (mut tp, mut marked, mut yes) = (0.0, 0.0, 0.0);
    for (name, row) in rows {
        let truth = truth(name);
        for k in row["facts"].as_object().unwrap().keys() {
            if let Some(&y) = truth.get(k) {
                marked += 1.0;
                tp += f64::from(u8::from(y));
            }
        }
        yes += truth.values().filter(|y| **y).count() as f64;
    }
    (tp / f64::max(marked, 1.0), tp / yes)
}

fn all_cells(rows: &BTreeMap<String, Value>) -> Vec<(BTreeSet<String>, BTreeSet<String>)> {
    rows.values().map(cells).collect()
}

/// Ingests the contract into `out`; a verifier's answers are cached under
/// `cache` (one folder per verifier: the cache keys know no server).
fn ingest(url: Option<&str>, out: &Path, cache: &Path, extra: &[&str]) {
    let mut c = super::util::kgroute();
    c.arg("ingest")
        .args(CONTRACTS.map(contract))
        .arg("--out")
        .arg(out)
        .arg("--history")
        .arg(out.with_extension("csv"))
        .arg("--cache-dir")
        .arg(cache)
        .arg("-q")
        .args(extra)
        .env_remove("NEO4J_URI")
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("KGROUTE_MODEL")
        .current_dir(super::util::repo())
        .timeout(Duration::from_secs(120));
    if let Some(url) = url {
        c.args(["--llm-url", url, "--model", MODEL, "--llm-mode", "verify"]);
        // These short contracts' questions cost more than the default
        // share of their extraction: every one is asked unless a test
        // says otherwise.
        if !extra.contains(&"--verify-share") {
            c.args(["--verify-share", "1000"]);
        }
    }
    c.assert().success();
}

/// A question as asked: its id, its paragraph's id and the kind's name.
type Question = (String, String, String);

/// A server's handler.
type Handler = Box<dyn Fn(&FakeRequest) -> Reply + Send + Sync>;

/// A request's excerpts (`[e1] ...`) and questions (`q1 [e1] Kind`).
fn asked(req: &FakeRequest) -> (BTreeMap<String, String>, Vec<Question>) {
    let m = req.last_user_message();
    let mut paragraphs = BTreeMap::new();
    let mut questions = Vec::new();
    for line in m.lines() {
        if let Some(rest) = line.strip_prefix("[e") {
            if let Some((n, text)) = rest.split_once("] ") {
                paragraphs.insert(format!("e{n}"), text.to_string());
            }
        } else if line.starts_with('q') {
            let mut parts = line.splitn(3, ' ');
            let (id, p, kind) = (
                parts.next().unwrap(),
                parts.next().unwrap(),
                parts.next().unwrap(),
            );
            let kind = kind.split(':').next().unwrap();
            questions.push((
                id.to_string(),
                p.trim_matches(['[', ']']).to_string(),
                kind.to_string(),
            ));
        }
    }
    (paragraphs, questions)
}

/// A verifier answering each question by `say(contract, kind)`, where
/// the contract is the fixture holding the paragraph, quoting the
/// paragraph's first words.
fn verifier(say: fn(&str, &str) -> bool) -> impl Fn(&FakeRequest) -> Reply + Send + Sync + 'static {
    let texts: Vec<(&str, String)> = CONTRACTS
        .iter()
        .map(|c| (*c, words(&super::util::read(&contract(c)))))
        .collect();
    move |req| {
        if req.path.ends_with("/models") {
            return Reply::models(&[MODEL]);
        }
        if !req.path.ends_with("/chat/completions") {
            return Reply::status(404, "{}");
        }
        let (paragraphs, questions) = asked(req);
        let answers: Vec<Value> = questions
            .iter()
            .map(|(id, p, kind)| {
                let quote: Vec<&str> = paragraphs[p].split_whitespace().take(8).collect();
                let quote = quote.join(" ");
                let holder = texts
                    .iter()
                    .find(|(_, text)| text.contains(&words(&quote)))
                    .map_or("", |(name, _)| *name);
                json!({"id": id, "present": say(holder, kind), "quote": quote, "party": ""})
            })
            .collect();
        Reply::json(&json!({ "answers": answers }))
    }
}

/// Text with its runs of white space as one space, to find a quote in.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Right about every kind of the contract a paragraph comes from: a
/// verifier that knows the truth of the fixtures.
fn right(contract: &str, kind: &str) -> bool {
    let ty = kgroute::extract::facts_vocabulary::category_relation_type(kind);
    truth(contract).get(&ty).copied().unwrap_or(false)
}

#[test]
fn a_calibrated_verifier_can_only_help() {
    let dir = super::util::tempdir();
    let offline = dir.path().join("offline");
    ingest(None, &offline, &dir.path().join("cache"), &[]);
    let offline_rows = rows(&offline);
    let (p0, r0) = scores(&offline_rows);
    // A batch nobody verified teaches nothing: refused, saying why.
    let refused = super::util::kgroute()
        .args(["verify", "calibrate", "--batch"])
        .arg(&offline)
        .arg("--truth")
        .arg(truth_file())
        .arg("--out")
        .arg(dir.path().join("offline.tsv"))
        .assert()
        .code(2);
    let said = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(said.contains("--llm-mode verify"), "{said}");
    assert!(!dir.path().join("offline.tsv").exists());

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let garbage = |req: &FakeRequest| {
        if req.path.ends_with("/models") {
            Reply::models(&[MODEL])
        } else {
            Reply::content("Sure! Every clause looks fine to me.")
        }
    };
    let cases: Vec<(&str, Handler)> = vec![
        ("yes", Box::new(verifier(|_, _| true))),
        ("no", Box::new(verifier(|_, _| false))),
        ("garbage", Box::new(garbage)),
        ("right", Box::new(verifier(right))),
    ];
    for (name, handler) in cases {
        let server = rt
            .block_on(FakeServer::start(Duration::ZERO, handler))
            .unwrap();
        let url = server.base_url();
        let first = dir.path().join(format!("{name}-first"));
        let cache = dir.path().join(format!("{name}-cache"));
        ingest(Some(&url), &first, &cache, &[]);
        let seen = rows(&first);
        assert!(server.requests() > 0, "{name}: the verifier was asked");
        // Without a calibration the answers decide nothing, and are kept.
        assert_eq!(
            all_cells(&seen),
            all_cells(&offline_rows),
            "{name}: uncalibrated"
        );
        for row in seen.values() {
            assert_eq!(row["verify"]["model"], MODEL, "{name}: {}", row["verify"]);
            let checks = row["verify"]["kinds"].as_object().unwrap();
            assert!(
                checks.values().all(|c| c["decided_by"] == "offline"),
                "{name}: {checks:?}"
            );
        }

        let cal = dir.path().join(format!("{name}.tsv"));
        super::util::kgroute()
            .args(["verify", "calibrate", "--batch"])
            .arg(&first)
            .arg("--truth")
            .arg(truth_file())
            .arg("--out")
            .arg(&cal)
            .assert()
            .success();
        let calibrated = dir.path().join(format!("{name}-calibrated"));
        ingest(
            Some(&url),
            &calibrated,
            &cache,
            &["--verify-calibration", cal.to_str().unwrap()],
        );
        let after = rows(&calibrated);
        if name == "right" {
            let (p, r) = scores(&after);
            let learned = super::util::read(&cal);
            assert!(
                p >= p0 && r >= r0 && (p > p0 || r > r0),
                "right: P {p0} -> {p}, R {r0} -> {r}\n{learned}"
            );
            if p0 < 1.0 {
                assert!(
                    p > p0,
                    "right: an offline wrong kind is removed: P {p0} -> {p}"
                );
            }
            if r0 < 1.0 {
                assert!(
                    r > r0,
                    "right: an offline missed kind is found: R {r0} -> {r}"
                );
            }
        } else {
            assert_eq!(
                all_cells(&after),
                all_cells(&offline_rows),
                "{name}: calibrated"
            );
        }
    }
}

/// The plan's verify bill of the fixtures at a `--verify-share` (percent).
fn plan_bill(dir: &Path, share: &str) -> Value {
    let out = super::util::kgroute()
        .arg("plan")
        .args(CONTRACTS.map(contract))
        .args(["--llm-mode", "verify", "--verify-share", share])
        .args(["--format", "json", "--out"])
        .arg(dir.join(format!("plan-{share}")))
        .current_dir(super::util::repo())
        .assert()
        .success();
    let plan: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    plan["totals"]["bill"].clone()
}

/// The plan counts the questions before any call, beside what extraction
/// would send, and keeps each document within its share of that: the
/// questions left out are counted, never dropped silently, and a rule's
/// assertions are the last to go. The batch's summary holds what was
/// billed against the plan.
#[test]
fn the_plan_states_what_verifying_sends_before_the_run() {
    let dir = super::util::tempdir();
    let n = |b: &Value, k: &str| b[k].as_u64().unwrap();
    let every = plan_bill(dir.path(), "1000");
    let found = n(&every, "questions");
    assert!(
        found >= 3,
        "the fixtures' candidates are asked about: {every}"
    );
    assert_eq!(n(&every, "questions_left_out"), 0, "{every}");
    assert!(
        n(&every, "input_tokens") > 0 && n(&every, "input_tokens") < n(&every, "extract_tokens"),
        "verify sends less than extract: {every}"
    );
    // At the default share these short contracts' questions do not all
    // fit: some are left out, counted, and the rest stay within it.
    let bill = plan_bill(dir.path(), "15");
    let (asked, sent, extract) = (
        n(&bill, "questions"),
        n(&bill, "input_tokens"),
        n(&bill, "extract_tokens"),
    );
    assert_eq!(extract, n(&every, "extract_tokens"), "{bill}");
    assert!(sent as f64 <= 0.15 * extract as f64, "{bill}");
    assert!(n(&bill, "questions_left_out") > 0, "{bill}");
    assert_eq!(asked + n(&bill, "questions_left_out"), found, "{bill}");
    let none = plan_bill(dir.path(), "0");
    assert_eq!(
        (n(&none, "questions"), n(&none, "input_tokens")),
        (0, 0),
        "{none}"
    );

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(FakeServer::start(Duration::ZERO, verifier(|_, _| false)))
        .unwrap();
    let batch = dir.path().join("batch");
    ingest(
        Some(&server.base_url()),
        &batch,
        &dir.path().join("cache"),
        &["--verify-share", "15"],
    );
    let summary = super::util::read(&batch.join("summary.md"));
    assert!(
        summary.contains(&format!(
            "planned before sending: {} request(s) for {asked} question(s), {} more left out to stay within --verify-share",
            bill["requests"], bill["questions_left_out"]
        )),
        "{summary}"
    );
    let chats = server
        .received()
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .count();
    assert_eq!(chats as u64, n(&bill, "requests"), "the planned requests");
    assert!(
        summary.contains("`--llm-mode extract` would send"),
        "{summary}"
    );
}
