//! `kgroute review` with a folder of indices: each row's decision goes into
//! the index of its `doc_type`, one diff and one version bump per touched
//! file; rows of documents that fit no index are listed, never lost.

use super::util::{kgroute, read, tempdir};
use kgroute::index::{IndexSet, Tier};
use std::path::Path;

const CREDIT: &str = "# credit agreements\ndocument_type: credit_agreement\nversion: \"1\"\nhigh:\n  - Events of Default\nlow:\n  - Notices\n";
const LEASE: &str = "# leases\ndocument_type: lease\nversion: \"1\"\nhigh:\n  - Rent\nmedium:\n  - Use of Premises\n";

/// A reviewed report: rows of a credit agreement, a lease and a memo that
/// fit no index (the `doc_type` column as `ingest` writes it).
const CSV: &str = "\
doc_id,doc_type,doc_type_confidence,node_id,heading,matched_entry,decision
ca-1,credit_agreement,0.99,0007,Section 9.09 Choice of Law,,add:low
ca-1,credit_agreement,0.99,0008,Section 9.10 Setoff,,
lease-1,lease,0.97,0004,Section 5. Holdover,,add:medium
lease-1,lease,0.97,0005,Section 3. Rent,Rent,retier:very_high
lease-1,lease,0.97,0006,Section 12. Choice of Law,,add:high
memo-1,unknown,0.35,0002,Action Items,,add:high
";

fn setup(dir: &Path) {
    std::fs::create_dir_all(dir.join("indices")).unwrap();
    std::fs::write(dir.join("indices/credit_agreement.yaml"), CREDIT).unwrap();
    std::fs::write(dir.join("indices/lease.yaml"), LEASE).unwrap();
    std::fs::write(dir.join("sections.csv"), CSV).unwrap();
}

fn review(dir: &Path) -> assert_cmd::Command {
    let mut c = kgroute();
    c.arg("review")
        .arg(dir.join("sections.csv"))
        .arg("--index")
        .arg(dir.join("indices"));
    c
}

#[test]
fn a_folder_review_writes_each_row_into_its_doc_types_index() {
    let dir = tempdir();
    let d = dir.path();
    setup(d);
    let credit = d.join("indices/credit_agreement.yaml");
    let lease = d.join("indices/lease.yaml");

    // Dry run: one diff per touched file, nothing written; the memo row
    // is reported as not writable (exit 1).
    let a = review(d).assert().code(1);
    let out = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    for f in [&credit, &lease] {
        assert!(out.contains(&format!("--- {}", f.display())), "{out}");
    }
    let (credit_diff, lease_diff) = out.split_once(&format!("--- {}", lease.display())).unwrap();
    assert!(
        credit_diff.contains("+  - title: Choice of Law") && !credit_diff.contains("Holdover"),
        "{out}"
    );
    assert!(
        lease_diff.contains("+  - title: Holdover")
            && lease_diff.contains("+  - title: Choice of Law")
            && lease_diff.contains("+very_high:"),
        "{out}"
    );
    assert!(
        err.contains("sections.csv:7 (doc memo-1, node 0002)")
            && err.contains("not written")
            && err.contains("fits no index"),
        "{err}"
    );
    assert_eq!(read(&credit), CREDIT);
    assert_eq!(read(&lease), LEASE);

    // --write: both files edited, each with its own version bump, comments kept.
    review(d).arg("--write").assert().code(1);
    let (c, l) = (read(&credit), read(&lease));
    assert!(c.starts_with("# credit agreements") && l.starts_with("# leases"));
    assert!(!c.contains("version: \"1\"") && !l.contains("version: \"1\""));
    let set = IndexSet::load(&[d.join("indices")]).unwrap();
    let (ci, li) = (
        set.get("credit_agreement").unwrap(),
        set.get("lease").unwrap(),
    );
    assert_eq!(ci.match_title("Choice of Law").tier, Some(Tier::Low));
    assert_eq!(li.match_title("Choice of Law").tier, Some(Tier::High));
    assert_eq!(li.match_title("Holdover").tier, Some(Tier::Medium));
    assert_eq!(li.match_title("Rent").tier, Some(Tier::VeryHigh));
    assert_eq!(ci.match_title("Holdover").tier, None);
    assert_eq!(ci.match_title("Action Items").tier, None);
    assert_eq!(li.match_title("Action Items").tier, None);
    kgroute()
        .args(["index", "check"])
        .arg(&credit)
        .assert()
        .success();
    kgroute()
        .args(["index", "check"])
        .arg(&lease)
        .assert()
        .success();
}

#[test]
fn a_folder_review_writes_into_the_folders_file_not_the_base_it_extends() {
    let dir = tempdir();
    let d = dir.path();
    setup(d);
    // The lease index of the folder is an overlay of a shared base kept in
    // a subfolder (subfolders are not types of their own).
    std::fs::create_dir_all(d.join("indices/base")).unwrap();
    let base = d.join("indices/base/lease_base.yaml");
    std::fs::write(&base, LEASE).unwrap();
    let overlay = "# this team's leases\nextends: base/lease_base.yaml\ndocument_type: lease\nversion: \"1\"\nlow:\n  - Brokers\n";
    let lease = d.join("indices/lease.yaml");
    std::fs::write(&lease, overlay).unwrap();
    review(d).arg("--write").assert().code(1);
    assert_eq!(read(&base), LEASE, "the shared base must stay as it was");
    let l = read(&lease);
    assert!(
        l.starts_with("# this team's leases") && l.contains("Holdover") && l.contains("Brokers"),
        "{l}"
    );
    let set = IndexSet::load(&[d.join("indices")]).unwrap();
    let li = set.get("lease").unwrap();
    assert_eq!(li.match_title("Holdover").tier, Some(Tier::Medium));
    assert_eq!(li.match_title("Use of Premises").tier, Some(Tier::Medium));
}

#[test]
fn a_folder_review_needs_the_doc_type_column_and_a_known_type() {
    let dir = tempdir();
    let d = dir.path();
    setup(d);
    // A report without doc_type cannot be sent to a folder.
    std::fs::write(
        d.join("sections.csv"),
        "doc_id,node_id,heading,matched_entry,decision\nca-1,0007,Choice of Law,,add:low\n",
    )
    .unwrap();
    review(d)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no `doc_type` column"))
        .stderr(predicates::str::contains("--index FILE"));
    // A type the folder has no index for is named, with the types it has.
    std::fs::write(
        d.join("sections.csv"),
        "doc_id,doc_type,node_id,heading,matched_entry,decision\nx-1,m_and_a,0003,Earn-Out,,add:high\n",
    )
    .unwrap();
    review(d)
        .arg("--write")
        .assert()
        .code(1)
        .stderr(predicates::str::contains("no index of type `m_and_a`"))
        .stderr(predicates::str::contains("credit_agreement, lease"));
    assert_eq!(read(&d.join("indices/credit_agreement.yaml")), CREDIT);
    assert_eq!(read(&d.join("indices/lease.yaml")), LEASE);
}

#[test]
fn a_one_file_review_writes_only_the_rows_of_that_files_type() {
    let dir = tempdir();
    let d = dir.path();
    setup(d);
    let credit = d.join("indices/credit_agreement.yaml");
    let one_file = |write: bool| {
        let mut c = kgroute();
        c.arg("review")
            .arg(d.join("sections.csv"))
            .arg("--index")
            .arg(&credit);
        if write {
            c.arg("--write");
        }
        c
    };

    // Dry run: the credit agreement's row is in the diff; the lease rows and
    // the memo row are listed as not written, as a folder review lists
    // rows it has no index for (exit 1).
    let a = one_file(false).assert().code(1);
    let out = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(out.contains("+  - title: Choice of Law"), "{out}");
    assert!(
        !out.contains("Holdover") && !out.contains("very_high") && !out.contains("Action Items"),
        "{out}"
    );
    for line in [4, 5, 6] {
        let row = format!("sections.csv:{line} (doc lease-1");
        let warning = err
            .lines()
            .find(|l| l.contains(&row))
            .unwrap_or_else(|| panic!("no warning for line {line}: {err}"));
        assert!(
            warning.starts_with("warning: ")
                && warning.contains("not written")
                && warning.contains("doc_type `lease`")
                && warning.contains("(`credit_agreement`)"),
            "{warning}"
        );
    }
    assert!(
        err.contains("sections.csv:7 (doc memo-1, node 0002)") && err.contains("fits no index"),
        "{err}"
    );
    assert_eq!(read(&credit), CREDIT);

    // --write: only the credit row lands, in the one file given.
    one_file(true).assert().code(1);
    let set = IndexSet::load(&[d.join("indices")]).unwrap();
    let ci = set.get("credit_agreement").unwrap();
    assert_eq!(ci.match_title("Choice of Law").tier, Some(Tier::Low));
    for t in ["Holdover", "Action Items"] {
        assert_eq!(ci.match_title(t).tier, None, "{t}");
    }
    assert_eq!(ci.match_title("Rent").tier, None);
    assert_eq!(read(&d.join("indices/lease.yaml")), LEASE);

    // A report without the doc_type column still gives every row to the file.
    std::fs::write(
        d.join("sections.csv"),
        "doc_id,node_id,heading,matched_entry,decision\nx-1,0003,Section 4. Holdover,,add:medium\n",
    )
    .unwrap();
    one_file(true).assert().success();
    let set = IndexSet::load(&[d.join("indices")]).unwrap();
    assert_eq!(
        set.get("credit_agreement")
            .unwrap()
            .match_title("Holdover")
            .tier,
        Some(Tier::Medium)
    );
}

/// A `retier:` decided on a report of an offline batch is warned about
/// before anything is applied (the rules under-count relations, so an
/// actual tier is a lower bound); summary.md says the same. A report with
/// no offline summary beside it gets no such warning.
#[test]
fn retier_decisions_from_an_offline_batch_are_warned_about() {
    let dir = tempdir();
    let batch = dir.path().join("batch");
    let history = dir.path().join("history.csv");
    let indices = super::util::repo().join("indices");
    super::util::ingest_offline_cmd(
        &[super::util::repo().join("fixtures")],
        &indices,
        &batch,
        &history,
    )
    .assert()
    .success();
    assert!(read(&batch.join("summary.md")).contains("Offline tiers"));

    // The reviewer retiers one matched entry in the report, in place.
    let sections = batch.join("sections.csv");
    let mut reader = csv::Reader::from_path(&sections).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let mut rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    let row = rows
        .iter_mut()
        .find(|r| !r[col("matched_entry")].is_empty() && r[col("doc_type")] != "unknown")
        .expect("a matched row");
    row[col("decision")] = "retier:very_low".into();
    let mut writer = csv::Writer::from_path(&sections).unwrap();
    writer.write_record(&headers).unwrap();
    for r in &rows {
        writer.write_record(r).unwrap();
    }
    writer.flush().unwrap();

    let copy = dir.path().join("indices");
    std::fs::create_dir_all(&copy).unwrap();
    for e in std::fs::read_dir(&indices).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, copy.join(p.file_name().unwrap())).unwrap();
        }
    }
    let run = |report: &Path| {
        let a = kgroute()
            .arg("review")
            .arg(report)
            .arg("--index")
            .arg(&copy)
            .assert();
        String::from_utf8_lossy(&a.get_output().stderr).into_owned()
    };
    let err = run(&sections);
    assert!(
        err.contains("1 retier decision(s) taken from an offline batch"),
        "{err}"
    );
    // The same rows without the batch's summary beside them: no warning.
    let elsewhere = dir.path().join("reviewed.csv");
    std::fs::copy(&sections, &elsewhere).unwrap();
    assert!(!run(&elsewhere).contains("offline batch"));
}
