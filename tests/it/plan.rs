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
fn rejects_bad_audit_rate_with_a_hint() {
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
fn missing_index_and_input_are_named() {
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
fn broken_index_stops_the_plan_with_its_problems() {
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
fn prices_flags_and_table_are_exclusive() {
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
