//! `kgroute contracts` (issue 42): the batch's register filtered and
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
