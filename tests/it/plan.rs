//! `kgroute plan`: argument checks, and (once the tree stage is in) the plan
//! of the shared corpus end to end: totals add up, files are written.

use super::util::{corpus, kgroute, repo, tempdir};
use predicates::prelude::*;

fn index_arg() -> String {
    repo()
        .join("indices/credit_agreement.yaml")
        .display()
        .to_string()
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn rejects_bad_audit_rate_with_a_hint() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    kgroute()
        .args(["plan", "--audit-rate", "1.5", "--index", &index_arg()])
        .arg(corpus("credit_agreements/emerson_2018.md"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--audit-rate must be between 0 and 1, got 1.5",
        ));
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn missing_index_and_input_are_named() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = tempdir();
    let missing = dir.path().join("nope.yaml");
    kgroute()
        .args(["plan", "--index"])
        .arg(&missing)
        .arg(corpus("credit_agreements/emerson_2018.md"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(missing.display().to_string()));
    kgroute()
        .args(["plan", "--index", &index_arg()])
        .arg(dir.path().join("absent.txt"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "absent.txt: no such file or folder",
        ));
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn broken_index_stops_the_plan_with_its_problems() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = tempdir();
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "document_type: x\nhigh: [Notices]\nlow: [Notices]\n").unwrap();
    kgroute()
        .args(["plan", "--index"])
        .arg(&bad)
        .arg(corpus("credit_agreements/emerson_2018.md"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!("{}:3:", bad.display())));
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn prices_flags_and_table_are_exclusive() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    kgroute()
        .args([
            "plan",
            "--price-in",
            "1",
            "--prices",
            "p.yaml",
            "--model",
            "m",
            "--index",
            &index_arg(),
        ])
        .arg(corpus("credit_agreements/emerson_2018.md"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not both"));
}

fn run_plan(out: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    kgroute()
        .args(["plan", "--index", &index_arg(), "--format", "json", "--out"])
        .arg(out)
        .args(extra)
        .arg(super::util::corpora().join("credit_agreements"))
        .assert()
        .success();
    serde_json::from_str(&super::util::read(&out.join("plan.json"))).expect("plan.json")
}

fn num(v: &serde_json::Value, k: &str) -> u64 {
    v[k].as_u64()
        .unwrap_or_else(|| panic!("{k} missing in {v}"))
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn corpus_plan_totals_add_up_and_files_are_written() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = tempdir();
    let plan = run_plan(dir.path(), &["--price-in", "1.0", "--price-out", "4.0"]);
    let docs = plan["documents"].as_array().unwrap();
    assert_eq!(docs.len(), 5);
    let mut total_chars = 0;
    let mut rows = 0;
    for d in docs {
        let s = &d["stats"];
        let sections = d["plan"]["sections"].as_array().unwrap();
        let own: u64 = sections.iter().map(|x| num(x, "chars")).sum();
        assert_eq!(num(s, "chars_total"), own);
        assert_eq!(
            num(s, "chars_sent")
                + num(s, "chars_skipped")
                + num(s, "chars_noise")
                + num(s, "chars_empty"),
            num(s, "chars_total"),
            "{}",
            d["path"]
        );
        let sent: u64 = sections
            .iter()
            .filter(|x| x["route"] == "llm")
            .map(|x| num(x, "chars"))
            .sum();
        assert_eq!(num(s, "chars_sent"), sent);
        assert!(s["payload_cut_pct"].as_f64().unwrap() > 0.0);
        // The input estimate is the requests ingest sends: the sections'
        // text (chars / 4 here, no model named) and the prompt around it,
        // once a request.
        let b = &s["bill"];
        assert_eq!(num(s, "est_input_tokens"), num(b, "input_tokens"));
        assert!(num(b, "requests") >= 1);
        assert!(num(b, "text_tokens") >= sent.div_ceil(4), "{b}");
        assert!(num(b, "input_tokens") > num(b, "text_tokens") + num(b, "prefix_tokens"));
        assert_eq!(
            num(b, "prefix_tokens") % num(b, "requests"),
            0,
            "the same prefix a request"
        );
        // The preamble carries the parties: always sent.
        assert_eq!(sections[0]["kind"], "preamble");
        assert_eq!(sections[0]["route"], "llm");
        total_chars += own;
        rows += sections.len();
    }
    let t = &plan["totals"];
    assert_eq!(num(t, "documents"), 5);
    assert_eq!(num(t, "chars_total"), total_chars);
    assert_eq!(
        num(t, "chars_sent")
            + num(t, "chars_skipped")
            + num(t, "chars_noise")
            + num(t, "chars_empty"),
        total_chars
    );
    assert!(t["est_cost_usd"].as_f64().unwrap() > 0.0);
    let csv_text = super::util::read(&dir.path().join("plan.csv"));
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    assert!(headers.iter().any(|h| h == "predicted_tier"));
    assert_eq!(reader.records().count(), rows);
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn calibrate_and_audit_are_recorded_and_deterministic() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = tempdir();
    let cal = run_plan(&dir.path().join("cal"), &["--calibrate"]);
    assert_eq!(num(&cal["totals"], "chars_skipped"), 0);
    assert!(num(&cal["totals"], "calibrate_overrides") > 0);
    assert_eq!(cal["calibrate"], true);

    let a1 = run_plan(&dir.path().join("a1"), &["--audit-rate", "0.2"]);
    let a2 = run_plan(&dir.path().join("a2"), &["--audit-rate", "0.2"]);
    let picked = |p: &serde_json::Value| -> Vec<String> {
        p["documents"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|d| {
                d["plan"]["sections"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|s| s["override_reason"] == "audit")
                    .map(|s| format!("{}/{}", d["plan"]["doc_id"], s["node_id"]))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let p1 = picked(&a1);
    assert!(!p1.is_empty());
    assert_eq!(p1, picked(&a2));
    assert_eq!(num(&a1["totals"], "audit_overrides"), p1.len() as u64);
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn table_output_shows_sections_and_batch_totals() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = tempdir();
    kgroute()
        .args(["plan", "--index", &index_arg(), "--out"])
        .arg(dir.path())
        .arg(corpus("credit_agreements/emerson_2018.md"))
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Section 1.01 Definitions")
                .and(predicate::str::contains("LLM payload cut"))
                .and(predicate::str::contains("batch of 1 document(s)")),
        );
    assert!(dir.path().join("plan.csv").exists() && dir.path().join("plan.json").exists());
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn prices_table_gives_the_cost() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = tempdir();
    let prices = repo().join("config/prices.yaml");
    let run = |model: &str| {
        kgroute()
            .args([
                "plan",
                "--index",
                &index_arg(),
                "--format",
                "json",
                "--prices",
            ])
            .arg(&prices)
            .args(["--model", model, "--out"])
            .arg(dir.path())
            .arg(corpus("credit_agreements/coned_2020.txt"))
            .assert()
    };
    let out = run("gpt-4o-mini").success().get_output().stdout.clone();
    let plan: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let t = &plan["totals"];
    let input = t["est_input_tokens"].as_f64().unwrap();
    let output = t["est_output_tokens"].as_f64().unwrap();
    let cost = t["est_cost_usd"].as_f64().unwrap();
    assert!((cost - (input * 0.15 + output * 0.60) / 1e6).abs() < 1e-9);
    run("no-such-model")
        .code(2)
        .stderr(predicate::str::contains("known models: "));
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn a_bad_document_is_reported_and_the_batch_goes_on() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = tempdir();
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    let out = dir.path().join("out");
    kgroute()
        .args(["plan", "--index", &index_arg(), "--out"])
        .arg(&out)
        .arg(&empty)
        .arg(corpus("credit_agreements/att_capital_1995.txt"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("empty.txt"));
    let plan: serde_json::Value =
        serde_json::from_str(&super::util::read(&out.join("plan.json"))).unwrap();
    assert_eq!(plan["documents"].as_array().unwrap().len(), 1);
    assert_eq!(plan["failures"].as_array().unwrap().len(), 1);
    assert_eq!(num(&plan["totals"], "documents"), 1);
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn index_folder_types_each_document_and_a_memo_is_all_new() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = tempdir();
    kgroute()
        .current_dir(repo())
        .args(["plan", "--format", "json", "--out"])
        .arg(dir.path())
        .arg(super::util::fixture("memo.txt"))
        .arg(super::util::fixture("supply_agreement.txt"))
        .arg(corpus("credit_agreements/emerson_2018.md"))
        .assert()
        .success()
        .stderr(predicate::str::contains("memo.txt: fits no index"));
    let plan: serde_json::Value =
        serde_json::from_str(&super::util::read(&dir.path().join("plan.json"))).unwrap();
    let docs = plan["documents"].as_array().unwrap();
    let ty = |name: &str| {
        docs.iter()
            .find(|d| d["plan"]["doc_name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let memo = ty("memo.txt");
    assert_eq!(memo["doc_type"]["name"], "unknown");
    for s in memo["plan"]["sections"].as_array().unwrap() {
        assert!(s["matched"]["entry"].is_null(), "{s}");
    }
    assert_eq!(ty("supply_agreement.txt")["doc_type"]["name"], "commercial");
    assert_eq!(
        ty("emerson_2018.md")["doc_type"]["name"],
        "credit_agreement"
    );
    let csv_text = super::util::read(&dir.path().join("plan.csv"));
    let header = csv_text.lines().next().unwrap();
    for col in [
        "doc_type",
        "doc_type_confidence",
        "method",
        "score",
        "runner_up",
    ] {
        assert!(header.split(',').any(|h| h == col), "{col} in {header}");
    }
}

#[test]
fn doc_type_forces_a_type_and_an_unknown_one_is_refused() {
    let dir = tempdir();
    kgroute()
        .current_dir(repo())
        .args(["plan", "--doc-type", "lease", "--format", "json", "--out"])
        .arg(dir.path())
        .arg(super::util::fixture("memo.txt"))
        .assert()
        .success();
    let plan: serde_json::Value =
        serde_json::from_str(&super::util::read(&dir.path().join("plan.json"))).unwrap();
    assert_eq!(plan["documents"][0]["doc_type"]["name"], "lease");
    assert_eq!(plan["documents"][0]["doc_type"]["confidence"], 1.0);
    kgroute()
        .current_dir(repo())
        .args(["plan", "--doc-type", "novel"])
        .arg(super::util::fixture("memo.txt"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("--doc-type novel")
                .and(predicate::str::contains("credit_agreement")),
        );
}

/// A contract as PDF extraction leaves it: no heading the tree can find.
fn headingless_contract() -> String {
    let mut t = String::from(
        "VIDEO-ON-DEMAND CONTENT LICENSE AGREEMENT\n\nThis Content License Agreement is made on May 8, 2014 \
         between Acme Media Inc., a Delaware corporation (\"Licensor\"), and Beta Cable LLC (\"Licensee\").\n\n",
    );
    for i in 0..40 {
        t.push_str(&format!(
            "Licensor grants Licensee a non-exclusive right to exhibit the titles listed in schedule {i} on its \
             video-on-demand service in the Territory, and Licensee shall pay Licensor a fee of {i}0 percent of \
             the gross receipts of each title within thirty days after the end of each month.\n\n"
        ));
    }
    t
}

/// A contract whose first page the extraction ran into one long line,
/// then numbered sections, the last of them boilerplate.
fn one_long_line_contract() -> String {
    let mut first = String::from("SUPPLY AGREEMENT This Supply Agreement is entered into by Gamma Foods Inc. (\"Supplier\") and Delta Stores LLC (\"Customer\").");
    for i in 0..30 {
        first.push_str(&format!(
            " Supplier shall deliver lot {i} of the Products to Customer's warehouse at the prices of Exhibit A."
        ));
    }
    let mut t = first + "\n\n";
    for (n, title) in ["Products", "Prices", "Counterparts", "Severability"]
        .iter()
        .enumerate()
    {
        t.push_str(&format!("{}. {title}\n\n", n + 1));
        for _ in 0..6 {
            t.push_str(&format!(
                "The {title} provisions bind Supplier and Customer for the term of this Agreement and any renewal of it.\n"
            ));
        }
        t.push('\n');
    }
    t
}

/// Every character of a plan is sent or reported with its reason (skipped
/// by tier, noise, empty), per document and per reason; a headingless
/// contract (one `fallback` node) is never matched against the index and
/// goes to extraction whole.
#[test]
fn every_character_is_sent_or_reported_with_its_reason() {
    let dir = tempdir();
    let headingless = dir.path().join("vod_license.txt");
    let long_line = dir.path().join("supply_long_line.txt");
    std::fs::write(&headingless, headingless_contract()).unwrap();
    std::fs::write(&long_line, one_long_line_contract()).unwrap();
    let out = dir.path().join("out");
    kgroute()
        .current_dir(repo())
        .args(["plan", "--format", "json", "--out"])
        .arg(&out)
        .arg(&headingless)
        .arg(&long_line)
        .assert()
        .success();
    let plan: serde_json::Value =
        serde_json::from_str(&super::util::read(&out.join("plan.json"))).unwrap();
    for d in plan["documents"].as_array().unwrap() {
        let s = &d["stats"];
        let sections = d["plan"]["sections"].as_array().unwrap();
        let text = std::fs::read_to_string(d["path"].as_str().unwrap()).unwrap();
        let own: u64 = sections.iter().map(|x| num(x, "chars")).sum();
        assert_eq!(own, num(s, "chars_total"), "{}", d["path"]);
        assert!(
            own + 2 >= text.chars().count() as u64,
            "nodes tile the text"
        );
        for (route, key) in [
            ("llm", "chars_sent"),
            ("skip", "chars_skipped"),
            ("noise", "chars_noise"),
            ("empty", "chars_empty"),
        ] {
            let by_route: u64 = sections
                .iter()
                .filter(|x| x["route"] == route)
                .map(|x| num(x, "chars"))
                .sum();
            assert_eq!(by_route, num(s, key), "{route} in {}", d["path"]);
        }
        assert_eq!(
            num(s, "chars_sent")
                + num(s, "chars_skipped")
                + num(s, "chars_noise")
                + num(s, "chars_empty"),
            num(s, "chars_total")
        );
        for x in sections {
            if matches!(x["kind"].as_str(), Some("fallback" | "preamble")) {
                assert_eq!(x["route"], "llm", "{x}");
                if x["kind"] == "fallback" {
                    assert!(x["matched"]["entry"].is_null(), "{x}");
                }
            }
            if x["route"] == "empty" {
                assert!(num(x, "chars") < 400, "empty with text of its own: {x}");
            }
        }
    }
    let docs = plan["documents"].as_array().unwrap();
    let vod = docs
        .iter()
        .find(|d| d["plan"]["doc_name"] == "vod_license.txt")
        .unwrap();
    assert_eq!(num(&vod["stats"], "chars_skipped"), 0, "{vod}");
    assert_eq!(
        num(&vod["stats"], "chars_sent"),
        num(&vod["stats"], "chars_total")
    );
    let supply = docs
        .iter()
        .find(|d| d["plan"]["doc_name"] == "supply_long_line.txt")
        .unwrap();
    // The long first line holds the parties: sent. The boilerplate is
    // skipped by tier and counted as such.
    assert_eq!(supply["plan"]["sections"][0]["route"], "llm");
    assert!(num(&supply["stats"], "chars_skipped") > 0, "{supply}");
}

/// `--index FILE` named by the user routes every document with that file,
/// even one detection would call another type; the guess is still
/// reported and a warning says they disagree.
#[test]
fn an_index_file_named_by_the_user_routes_every_document() {
    let dir = tempdir();
    kgroute()
        .args(["plan", "--format", "json", "--out"])
        .arg(dir.path())
        .arg("--index")
        .arg(repo().join("indices/credit_agreement.yaml"))
        .arg(super::util::fixture("supply_agreement.txt"))
        .assert()
        .success()
        .stderr(
            predicate::str::contains("supply_agreement.txt")
                .and(predicate::str::contains("detected")),
        );
    let plan: serde_json::Value =
        serde_json::from_str(&super::util::read(&dir.path().join("plan.json"))).unwrap();
    let d = &plan["documents"][0];
    assert_eq!(d["doc_type"]["name"], "credit_agreement");
    assert_eq!(d["plan"]["doc_type"], "credit_agreement");
    assert!(d["doc_type"]["detected"].is_string(), "{d}");
    assert!(d["plan"]["sections"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| !s["matched"]["entry"].is_null()));
}

/// Each document's plan (its detected type, every section's route, tier and
/// match) is the same when it is planned alone, with nothing matched
/// before it, as in one batch after every other document: the heading
/// matches reused across a batch (`src/index/matcher.rs`, `MatchCache`)
/// change no routing, only its cost.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn a_document_routes_alike_alone_and_after_a_whole_batch() {
    let Some(corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let folder = corpora.join("wide");
    let indices = repo().join("indices").display().to_string();
    let dir = tempdir();
    let plan_of = |out: &std::path::Path, input: &std::path::Path| -> serde_json::Value {
        kgroute()
            .args(["plan", "--index", &indices, "--format", "json", "--out"])
            .arg(out)
            .arg(input)
            .assert()
            .success();
        serde_json::from_str(&super::util::read(&out.join("plan.json"))).expect("plan.json")
    };
    let batch = plan_of(&dir.path().join("batch"), &folder);
    let docs = batch["documents"].as_array().unwrap();
    assert!(docs.len() >= 40, "{} documents", docs.len());
    // Every fifth document (and the last), each planned alone.
    let picked: Vec<&serde_json::Value> = docs
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 5 == 0 || *i == docs.len() - 1)
        .map(|(_, d)| d)
        .collect();
    for (i, d) in picked.iter().enumerate() {
        let path = std::path::PathBuf::from(d["path"].as_str().unwrap());
        let alone = plan_of(&dir.path().join(format!("alone{i}")), &path);
        let a = &alone["documents"][0];
        assert_eq!(a["plan"], d["plan"], "{}", path.display());
        assert_eq!(a["doc_type"], d["doc_type"], "{}", path.display());
    }
}

/// Invisible characters inside a heading's words (zero-width space and
/// non-joiner, word joiner, soft hyphen: PDF and web text carry them)
/// route the heading as the same words without them.
#[test]
fn invisible_characters_in_headings_match_as_the_plain_words() {
    let dir = tempdir();
    let plain = "SUPPLY AGREEMENT\n\nThis Supply Agreement is made between Acme Corp. and Beta LLC.\n\n\
        1. Definitions\n\nTerms mean things in this agreement for all purposes of the parties.\n\n\
        2. Governing Law\n\nThis Agreement shall be governed by the laws of the State of New York.\n\n\
        3. Indemnification\n\nEach party shall indemnify the other against third party claims.\n";
    let hidden = plain
        .replace("Definitions", "Defi\u{200b}nitions")
        .replace("Governing Law", "Gover\u{200b}ning La\u{200c}w")
        .replace("Indemnification", "Indem\u{00ad}ni\u{2060}fication");
    let matched = |name: &str, text: &str| -> Vec<(String, String)> {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = kgroute()
            .arg("plan")
            .arg(&path)
            .args(["--doc-type", "commercial", "--format", "json", "--index"])
            .arg(repo().join("indices"))
            .arg("--out")
            .arg(dir.path().join(format!("{name}.plan")))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["documents"][0]["plan"]["sections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["matched"]["entry"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    s["predicted_tier"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect()
    };
    let want = matched("plain.txt", plain);
    assert!(want.iter().any(|(e, _)| e == "Governing Law"), "{want:?}");
    assert_eq!(matched("hidden.txt", &hidden), want);
}
