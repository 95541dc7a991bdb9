//! `kgroute ask` over a whole batch: a question
//! naming one contract's own defined term finds that contract among many;
//! `ask --contracts` lists the contracts whose typed facts hold the
//! category the question names, each with its facts and whole sections.

use super::util::{cuad_documents, fixture, kgroute, repo, tempdir};
use std::path::{Path, PathBuf};

fn ingest(inputs: &[PathBuf], out: &Path) {
    let mut c = super::util::ingest_offline_cmd(
        inputs,
        &repo().join("indices"),
        out,
        &out.with_extension("csv"),
    );
    c.current_dir(repo()).arg("--quiet").assert().success();
}

fn ask_json(batch: &Path, args: &[&str]) -> serde_json::Value {
    let out = kgroute()
        .arg("ask")
        .args(args)
        .arg("--batch")
        .arg(batch)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Words compared lower-cased, runs of other characters as one space.
fn words(s: &str) -> String {
    s.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn contracts_mode_lists_the_fixture_with_its_governing_law_fact_and_section() {
    let tmp = tempdir();
    let batch = tmp.path().join("batch");
    ingest(&[fixture("")], &batch);
    let a = ask_json(
        &batch,
        &[
            "--contracts",
            "Which contracts have a governing law clause?",
        ],
    );
    assert_eq!(a["categories"], serde_json::json!(["Governing Law"]));
    let list = a["contracts"].as_array().unwrap();
    let supply = list
        .iter()
        .find(|c| c["doc_name"] == "supply_agreement.txt")
        .unwrap_or_else(|| panic!("{a:#}"));
    // A batch with a register answers from it (the facts it was built from).
    assert_eq!(supply["found_by"], "register");
    let fact = &supply["facts"][0];
    assert_eq!(fact["rel_type"], "GOVERNING_LAW");
    // The section printed is the one the fact's evidence comes from.
    let sec = &supply["sections"][0];
    assert_eq!(sec["node_id"], fact["node_id"]);
    assert!(
        words(sec["text"].as_str().unwrap()).contains(&words(fact["evidence"].as_str().unwrap()))
    );
    // The memo has no governing law: not listed.
    assert!(!list.iter().any(|c| c["doc_name"] == "memo.txt"), "{a:#}");
}

/// Twelve CUAD contracts of the tuning half, two per type of the first six
/// types.
fn cuad_sample() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut per_type: std::collections::BTreeMap<String, usize> = Default::default();
    for (p, check) in cuad_documents() {
        let t = p.parent().unwrap().display().to_string();
        if check || (per_type.len() >= 6 && !per_type.contains_key(&t)) {
            continue;
        }
        let n = per_type.entry(t).or_default();
        if *n < 2 {
            *n += 1;
            out.push(p);
        }
    }
    out
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn cuad_batch_answers_which_contracts_and_finds_a_contract_by_its_own_term() {
    let Some(_c) = super::util::corpora_or_skip() else {
        return;
    };
    let tmp = tempdir();
    let batch = tmp.path().join("batch");
    let docs = cuad_sample();
    ingest(&docs, &batch);
    let labels: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(super::util::corpus("cuad/labels.json")).unwrap(),
    )
    .unwrap();
    let key = |p: &Path| {
        let t = p.parent().unwrap().file_name().unwrap().to_string_lossy();
        format!("{t}/{}", p.file_name().unwrap().to_string_lossy())
    };

    // "Which contracts": every listed contract by graph shows a fact of the
    // category and the section its evidence is in; most labelled ones are
    // listed, and the labelled ones listed are the majority.
    let a = ask_json(
        &batch,
        &[
            "--contracts",
            "Which contracts restrict assignment (anti-assignment)?",
        ],
    );
    assert_eq!(a["categories"], serde_json::json!(["Anti-Assignment"]));
    let listed: Vec<&str> = a["contracts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["doc_name"].as_str().unwrap())
        .collect();
    for c in a["contracts"].as_array().unwrap() {
        assert_eq!(c["found_by"], "register");
        assert_eq!(c["facts"][0]["rel_type"], "ANTI_ASSIGNMENT");
        assert!(!c["sections"].as_array().unwrap().is_empty(), "{c:#}");
    }
    let labelled: Vec<String> = docs
        .iter()
        .filter(|p| {
            labels[key(p)]["clauses"]["Anti-Assignment"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
        })
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let found = labelled
        .iter()
        .filter(|n| listed.contains(&n.as_str()))
        .count();
    assert!(
        labelled.len() >= 3 && found * 3 >= labelled.len() * 2,
        "labelled {labelled:?}, listed {listed:?}"
    );
    assert!(found * 3 >= listed.len() * 2, "listed {listed:?}");

    // A question naming a contract's own defined term (said 3+ times in it,
    // one of its words in no other contract of the batch: documents are
    // told apart by words, the index keeps no phrases) with a generic topic
    // finds one of its sections among the first two. (First place against
    // another contract's generic clause title is what `scripts/ask-eval`'s
    // hit@1 measures over whole question sets; here it held only while a
    // misread governing-law fact tied the contract's name to a section.)
    let texts: Vec<String> = docs
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let defined =
        regex::Regex::new(r#"\(\s*(?:the\s+)?["“]([A-Z][A-Za-z ]{3,40})["”]\s*\)"#).unwrap();
    let mut asked = 0;
    for (i, t) in texts.iter().enumerate() {
        let Some(term) = defined
            .captures_iter(t)
            .map(|c| c[1].to_string())
            .find(|d| {
                // The index stems words (`Clients` and `client` are one
                // term), so a word is the contract's own when no other
                // contract uses it in any form but its ending.
                let stem = |x: &str| x.trim_end_matches('s').to_string();
                let own_word = d.split(' ').any(|w| {
                    let w = stem(&w.to_lowercase());
                    w.len() >= 4
                        && texts.iter().enumerate().all(|(j, o)| {
                            j == i
                                || !o
                                    .to_lowercase()
                                    .split(|c: char| !c.is_alphanumeric())
                                    .any(|x| stem(x) == w)
                        })
                });
                t.matches(d.as_str()).count() >= 3 && own_word
            })
        else {
            continue;
        };
        let q = format!("When can the agreement be terminated concerning the {term}?");
        let a = ask_json(&batch, &[q.as_str(), "--top", "3"]);
        let want = docs[i].file_name().unwrap().to_string_lossy().to_string();
        let firsts: Vec<&str> = (0..2)
            .filter_map(|k| a["sections"][k]["doc_name"].as_str())
            .collect();
        assert!(firsts.contains(&want.as_str()), "{q}: {firsts:?}");
        asked += 1;
        if asked == 3 {
            break;
        }
    }
    assert!(asked >= 2, "too few contracts with a term of their own");
}
