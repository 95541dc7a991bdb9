//! `kgroute contracts`: the batch's register filtered and
//! grouped from the command line; each filter against the rows it reads,
//! and on the shared CUAD contracts against `cuad/answers.json`.

use super::util::{kgroute, tempdir};
use std::path::Path;

/// `kgroute contracts --batch B ARGS`: (exit code, stdout, stderr).
fn contracts(batch: &Path, args: &[&str]) -> (i32, String, String) {
    let out = kgroute()
        .arg("contracts")
        .arg("--batch")
        .arg(batch)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_batch_without_a_register_is_named_with_how_to_make_one() {
    let tmp = tempdir();
    let batch = tmp.path().join("old-batch");
    std::fs::create_dir(&batch).unwrap();
    let (code, out, err) = contracts(&batch, &["--has", "non-compete"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains(&batch.display().to_string()), "{err}");
    assert!(
        err.contains("register.jsonl") && err.contains("--resume"),
        "{err}"
    );
}

#[test]
fn a_category_nobody_has_says_what_was_meant() {
    let tmp = tempdir();
    let (code, _, err) = contracts(tmp.path(), &["--lacks", "non-compte"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean \"Non-Compete\""), "{err}");
    let (code, _, err) = contracts(tmp.path(), &["--expires-before", "31/12/2020"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--expires-before") && err.contains("2020-06-30"),
        "{err}"
    );
}

/// Values that name nothing or no real day are refused, naming the flag,
/// before any register is read; a type no contract of the register has is
/// refused listing the types it holds. Before, each said "0 contracts"
/// with exit 0, as if the register had answered.
#[test]
fn filters_that_name_nothing_are_refused_not_answered_with_zero() {
    let tmp = tempdir();
    for (args, flag) in [
        (&["--law", ""][..], "--law"),
        (&["--party", "  "][..], "--party"),
        (&["--expires-before", "2024-02-30"][..], "--expires-before"),
        (&["--expires-after", "2023-02-29"][..], "--expires-after"),
    ] {
        let (code, out, err) = contracts(tmp.path(), args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(flag), "{args:?}: {err}");
    }
    // A leap day is a day.
    let (_, _, err) = contracts(tmp.path(), &["--expires-before", "2024-02-29"]);
    assert!(!err.contains("--expires-before"), "{err}");

    let batch = tmp.path().join("b");
    ingest_fixtures(&batch);
    let (code, out, err) = contracts(&batch, &["--type", "nope"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("--type nope") && err.contains("commercial ("),
        "{err}"
    );
    let all = json(&batch, &[]);
    // A register with every line twice counts each contract once.
    let register = batch.join("register.jsonl");
    let lines = std::fs::read_to_string(&register).unwrap();
    std::fs::write(&register, format!("{lines}{lines}")).unwrap();
    assert_eq!(json(&batch, &[]), all, "duplicated lines count once");
    let commercial = json(&batch, &["--type", "Commercial"]);
    assert!(!commercial.as_array().unwrap().is_empty());
    assert!(commercial.as_array().unwrap().len() <= all.as_array().unwrap().len());
}

fn ingest_fixtures(out: &Path) {
    let mut c = super::util::ingest_offline_cmd(
        &[super::util::fixture("")],
        &super::util::repo().join("indices"),
        out,
        &out.with_extension("csv"),
    );
    c.current_dir(super::util::repo())
        .arg("--quiet")
        .assert()
        .success();
}

fn json(batch: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let (code, out, err) = contracts(batch, &all);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn paths(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            c["path"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn on_the_fixtures_has_and_lacks_split_the_batch_and_each_format_says_where() {
    let tmp = tempdir();
    let batch = tmp.path().join("batch");
    ingest_fixtures(&batch);
    let rows = kgroute::register::read_jsonl(&batch.join("register.jsonl")).unwrap();
    let with_law = json(&batch, &["--has", "governing law"]);
    let without = json(&batch, &["--lacks", "Governing-Law"]);
    let (w, wo) = (paths(&with_law), paths(&without));
    assert!(w.contains(&"supply_agreement.txt".to_string()), "{w:?}");
    assert!(wo.contains(&"memo.txt".to_string()), "{wo:?}");
    assert_eq!(w.len() + wo.len(), rows.len());
    assert!(w.iter().all(|p| !wo.contains(p)));
    // Each contract with the fact shows it and where it is.
    for c in with_law.as_array().unwrap() {
        let f = &c["facts"][0];
        assert_eq!(f["category"], "Governing Law");
        let ptr = f["pointer"].as_str().unwrap();
        assert!(ptr.starts_with('§') && ptr.contains(" lines "), "{ptr}");
    }
    // The law as the register gives it filters to the same contracts.
    let law = with_law[0]["facts"][0]["normalized"]
        .as_str()
        .or(with_law[0]["facts"][0]["value"].as_str())
        .unwrap()
        .to_string();
    let by_law = json(&batch, &["--law", &law]);
    assert!(paths(&by_law).contains(&w[0]), "{law}: {by_law:#}");
    // Counts add up to the batch; csv and table name the same contracts.
    let by_type = json(&batch, &["--count-by", "type"]);
    let total: u64 = by_type
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["contracts"].as_u64().unwrap())
        .sum();
    assert_eq!(total as usize, rows.len(), "{by_type:#}");
    let (_, csv, _) = contracts(&batch, &["--has", "governing law", "--format", "csv"]);
    assert!(
        csv.starts_with("contract,type,party,category,value,where"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 1 + w.len(), "{csv}");
    let (_, table, _) = contracts(&batch, &["--has", "governing law"]);
    assert!(
        table.contains("supply_agreement.txt") && !table.contains("memo.txt"),
        "{table}"
    );
}

#[test]
fn ask_contracts_reads_no_and_says_when_no_contract_has_the_category() {
    let tmp = tempdir();
    let batch = tmp.path().join("batch");
    ingest_fixtures(&batch);
    let ask = |q: &str| -> serde_json::Value {
        let out = kgroute()
            .args(["ask", "--contracts", q, "--format", "json", "--batch"])
            .arg(&batch)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let a = ask("Which contracts have no governing law clause?");
    assert_eq!(a["lacks"], serde_json::json!(["Governing Law"]), "{a:#}");
    let listed: Vec<&str> = a["contracts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["doc_name"].as_str().unwrap())
        .collect();
    assert!(listed.contains(&"memo.txt"), "{a:#}");
    assert!(!listed.contains(&"supply_agreement.txt"), "{a:#}");
    assert!(
        a["notes"][0]
            .as_str()
            .unwrap()
            .contains("no Governing Law fact"),
        "{a:#}"
    );

    // A category no contract of the batch holds (the fixtures hold some
    // non-competes): the answer says so first and lists sections only.
    let rows = kgroute::register::read_jsonl(&batch.join("register.jsonl")).unwrap();
    let absent = kgroute::extract::facts_vocabulary::CATEGORIES
        .iter()
        .find(|c| {
            let t = kgroute::extract::facts_vocabulary::category_relation_type(c);
            rows.iter().all(|r| !r.has(&t))
        })
        .expect("a category the fixtures do not hold");
    let a = ask(&format!("Which contracts have a {absent}?"));
    assert!(
        a["notes"][0]
            .as_str()
            .unwrap()
            .starts_with(&format!("No contract in this batch has a {absent} fact")),
        "{a:#}"
    );
    assert!(a["contracts"].as_array().unwrap().is_empty(), "{a:#}");
    assert!(
        !a["nearest_sections"].as_array().unwrap().is_empty(),
        "{a:#}"
    );
}

/// Three short supply agreements, each with a clause a naive reading gets
/// wrong, and what `contracts` must answer from the chosen cells.
const NAIVE: &[(&str, &str)] = &[
    (
        "option_to_renew.txt",
        "SUPPLY AGREEMENT\n\nThis Supply Agreement is made and entered into as of March 1, 2020 by and between Acme Components, Inc. (\"Supplier\") and Beta Tools LLC (\"Buyer\").\n\n1. Term\n\nThe term of this Agreement shall commence on the Effective Date and continue until February 28, 2023.\n\n2. Renewal\n\nBuyer shall have the option to renew this Agreement for one additional term of two (2) years by giving Supplier written notice of its election to renew at least ninety (90) days before the end of the term.\n\n3. Governing Law\n\nThis Agreement shall be governed by the laws of the State of Delaware, without regard to its conflict of laws principles.\n",
    ),
    (
        "automatic_renewal.txt",
        "SUPPLY AGREEMENT\n\nThis Supply Agreement is made and entered into as of June 1, 2021 by and between Gamma Metals Corp. (\"Supplier\") and Delta Works Inc. (\"Buyer\").\n\n1. Term\n\nThe term of this Agreement shall commence on the Effective Date and continue until May 31, 2024.\n\n2. Renewal\n\nThis Agreement shall automatically renew for successive one (1) year periods unless either party gives the other written notice of non-renewal at least sixty (60) days prior to the end of the then-current term.\n\n3. Governing Law\n\nThis Agreement shall be governed by the laws of the State of Delaware, without regard to its conflict of laws principles.\n",
    ),
    (
        "usury_and_year.txt",
        "SUPPLY AGREEMENT\n\nThis Supply Agreement is made and entered into as of January 15, 2019 by and between Epsilon Foods Inc. (\"Supplier\") and Zeta Stores LLC (\"Buyer\").\n\n1. Definitions\n\n\"Contract Year\" means each period of twelve months during the term of this Agreement, the first of which shall expire on December 31, 1999.\n\n2. Term\n\nThe term of this Agreement shall commence on the Effective Date and continue until January 14, 2026.\n\n3. Governing Law\n\nThis Agreement shall be governed by the laws of the State of New York, without regard to its conflict of laws principles.\n\n4. Interest\n\nNotwithstanding anything herein, the usury laws of the State of Texas shall govern the maximum rate of interest that may be charged under this Agreement, and any interest in excess of that rate shall be refunded to Buyer.\n",
    ),
];

/// `--renews`, `--law` and `--expires-before` answer from the register's
/// chosen cells: an option to renew is no automatic renewal, a usury
/// clause naming a law is no governing law (the register may read it, but
/// the contract's cell is the governing-law clause's), and a definition of
/// a "Contract Year" dates no expiry.
#[test]
fn contracts_answer_from_the_chosen_cells_where_a_naive_reading_is_wrong() {
    let tmp = tempdir();
    let docs = tmp.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    for (name, text) in NAIVE {
        std::fs::write(docs.join(name), text).unwrap();
    }
    let batch = tmp.path().join("batch");
    let mut c = super::util::ingest_offline_cmd(
        &[docs],
        &super::util::repo().join("indices"),
        &batch,
        &tmp.path().join("history.csv"),
    );
    c.current_dir(super::util::repo())
        .arg("--quiet")
        .assert()
        .success();
    let names = |args: &[&str]| {
        let mut p = paths(&json(&batch, args));
        p.sort();
        p
    };
    assert_eq!(names(&["--renews"]), ["automatic_renewal.txt"]);
    assert_eq!(names(&["--law", "Texas"]), Vec::<String>::new());
    assert_eq!(names(&["--law", "New York"]), ["usury_and_year.txt"]);
    assert_eq!(
        names(&["--law", "Delaware"]),
        ["automatic_renewal.txt", "option_to_renew.txt"]
    );
    assert_eq!(
        names(&["--expires-before", "2001-01-01"]),
        Vec::<String>::new()
    );
    assert_eq!(
        names(&["--expires-before", "2025-01-01"]),
        ["automatic_renewal.txt", "option_to_renew.txt"]
    );
    assert_eq!(
        names(&["--expires-before", "2027-01-01"]),
        [
            "automatic_renewal.txt",
            "option_to_renew.txt",
            "usury_and_year.txt"
        ]
    );
}

/// A source edited or removed since the batch read it: `contracts` still
/// lists what the batch read, and says on stderr which sources changed,
/// so nobody takes an old value for the file's.
#[test]
fn a_source_changed_since_the_batch_is_named_beside_its_old_values() {
    let tmp = tempdir();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for f in ["supply_agreement.txt", "short_license.txt"] {
        std::fs::copy(super::util::fixture(f), docs.join(f)).unwrap();
    }
    let batch = tmp.path().join("b");
    super::util::ingest_offline_cmd(
        std::slice::from_ref(&docs),
        &super::util::repo().join("indices"),
        &batch,
        &tmp.path().join("h.csv"),
    )
    .assert()
    .success();
    let (code, out, err) = contracts(&batch, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("changed"), "{err}");
    let mut text = std::fs::read_to_string(docs.join("supply_agreement.txt")).unwrap();
    text.push_str("\nAMENDMENT. The parties amend this agreement.\n");
    std::fs::write(docs.join("supply_agreement.txt"), text).unwrap();
    std::fs::remove_file(docs.join("short_license.txt")).unwrap();
    let (code, again, err) = contracts(&batch, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(again, out, "the register's rows, as the batch read them");
    assert!(
        err.contains("2 listed source(s) changed")
            && err.contains("supply_agreement.txt (changed)")
            && err.contains("short_license.txt (cannot be read)"),
        "{err}"
    );
}
