//! Graphability index: the shipped YAML files, `kgroute index check` on good
//! and broken files, overlays, and matching of the shared corpus's real
//! section titles.

use super::util::{corpus, kgroute, read, repo, tempdir};
use kgroute::index::{GraphabilityIndex, MatchMethod, Tier};
use predicates::prelude::*;
use std::path::PathBuf;

fn shipped(rel: &str) -> PathBuf {
    repo().join("indices").join(rel)
}

fn credit_index() -> GraphabilityIndex {
    GraphabilityIndex::load(&[shipped("credit_agreement.yaml")]).expect("shipped index loads")
}

#[test]
fn shipped_indices_pass_index_check() {
    for f in [
        "credit_agreement.yaml",
        "lease.yaml",
        "m_and_a.yaml",
        "commercial.yaml",
        "overlays/acme_bank.yaml",
    ] {
        kgroute()
            .args(["index", "check"])
            .arg(shipped(f))
            .assert()
            .success()
            .stdout(predicate::str::starts_with("ok: "));
    }
}

/// A mistyped path is fatal (exit 2, named), not a problem found in an
/// index (exit 1), and no other file of the call is reported as checked.
#[test]
fn index_check_of_a_missing_file_is_fatal_and_names_it() {
    let dir = super::util::tempdir();
    let missing = dir.path().join("missing.yaml");
    kgroute()
        .args(["index", "check"])
        .arg(shipped("credit_agreement.yaml"))
        .arg(&missing)
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("missing.yaml: no such index file"));
}

/// `index check DIR` checks each index of the folder on its own: one line
/// per shipped index, and a broken one fails the run without hiding the
/// others.
#[test]
fn index_check_on_a_folder_checks_every_index() {
    let out = kgroute()
        .args(["index", "check"])
        .arg(repo().join("indices"))
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    for ty in ["commercial", "credit_agreement", "lease", "m_and_a"] {
        assert!(stdout.contains(&format!("ok: {ty} (")), "{stdout}");
    }
    let dir = tempdir();
    std::fs::copy(shipped("lease.yaml"), dir.path().join("lease.yaml")).unwrap();
    std::fs::create_dir(dir.path().join("base")).unwrap();
    std::fs::copy(
        shipped("base/common.yaml"),
        dir.path().join("base/common.yaml"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("bad.yaml"),
        "document_type: x\nhigh:\n  - Liens\nlow:\n  - Liens\n",
    )
    .unwrap();
    kgroute()
        .args(["index", "check"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("ok: lease ("))
        .stderr(predicate::str::contains("bad.yaml:5:5"));
    let empty = tempdir();
    kgroute()
        .args(["index", "check"])
        .arg(empty.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("no index (*.yaml) in this folder"));
}

fn schema_validator() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(&read(
        &repo().join("schemas/graphability-index.schema.json"),
    ))
    .expect("schema is JSON");
    jsonschema::validator_for(&schema).expect("schema compiles")
}

#[test]
fn shipped_indices_follow_the_json_schema() {
    let v = schema_validator();
    for f in [
        "credit_agreement.yaml",
        "lease.yaml",
        "overlays/acme_bank.yaml",
    ] {
        let doc: serde_json::Value = serde_yaml_ng::from_str(&read(&shipped(f))).unwrap();
        let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{f}: {errors:?}");
    }
    let bad: serde_json::Value = serde_yaml_ng::from_str(
        "document_type: x\nveryhigh: [Definitions]\nlow: [{aliases: [a]}]\n",
    )
    .unwrap();
    assert!(!v.is_valid(&bad));
}

#[test]
fn shipped_credit_index_has_the_article_baseline_and_ontology() {
    let idx = credit_index();
    // Tiers follow the expert gold ratings of the tuning half (the article's
    // baseline put Litigation at Very High; every gold file rates it Low).
    let baseline = [
        ("Litigation", Tier::Low),
        ("Definitions", Tier::VeryHigh),
        ("Events of Default", Tier::VeryHigh),
        ("Use of Proceeds", Tier::High),
        ("Defaulting Lenders", Tier::Medium),
        ("Swing Line Loans", Tier::Medium),
        ("Collateral", Tier::Medium),
        ("Accounting Terms", Tier::Low),
        ("Confidentiality", Tier::Low),
        ("Governing Law", Tier::VeryLow),
        ("Waiver of Jury Trial", Tier::VeryLow),
    ];
    for (title, tier) in baseline {
        assert_eq!(idx.entry(title).map(|e| e.tier), Some(tier), "{title}");
    }
    assert!(idx.anchors().iter().any(|a| a == "Subsidiaries"));
    for t in [
        "Organization",
        "DefinedTerm",
        "Facility",
        "Lien",
        "EventOfDefault",
        "SectionRef",
    ] {
        assert!(idx.ontology.entity_types.contains_key(t), "{t}");
    }
    for r in [
        "BORROWS_FROM",
        "GUARANTEES",
        "AGENT_FOR",
        "HAS_ROLE",
        "OBLIGATED_TO",
        "TRIGGERS",
    ] {
        assert!(idx.ontology.relation_types.contains_key(r), "{r}");
    }
    assert!(idx.density.very_high > idx.density.high && idx.density.medium > idx.density.low);
}

#[test]
fn broken_file_reports_every_problem_with_file_line_column_and_fix() {
    let dir = tempdir();
    let f = dir.path().join("broken.yaml");
    std::fs::write(
        &f,
        "\
document_type: credit_agreement
match:
  fuzzy_treshold: 0.8
very_high:
  - Definitions
  - title: Subsidiaries
    aliases: [Definitions]
high:
  - title:
  - Use of Proceeds
low:
  - Definitions
  - Section 2.12
Medium:
  - Collateral
",
    )
    .unwrap();
    let out = kgroute()
        .args(["index", "check"])
        .arg(&f)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    let name = f.display().to_string();
    let expect = [
        (3, "fuzzy_treshold", "fuzzy_threshold"),
        (6, "alias `Definitions`", "delete the duplicate"),
        (9, "empty `title`", "title:"),
        (12, "already in `very_high`", "one tier"),
        (13, "empty after normalisation", ""),
        (14, "`Medium`", "medium"),
    ];
    for (line, what, fix) in expect {
        let hit = err
            .lines()
            .find(|l| l.contains(&format!("{name}:{line}:")) && l.contains(what));
        let hit =
            hit.unwrap_or_else(|| panic!("no problem at line {line} about {what} in:\n{err}"));
        assert!(hit.contains("fix: ") && hit.contains(fix), "{hit}");
    }
    assert!(err.contains("6 problem(s) found"), "{err}");
}

#[test]
fn invalid_yaml_names_its_line() {
    let dir = tempdir();
    let f = dir.path().join("bad.yaml");
    std::fs::write(
        &f,
        "document_type: x\nhigh:\n  - Use of Proceeds\n - Liens\n",
    )
    .unwrap();
    kgroute()
        .args(["index", "check"])
        .arg(&f)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!("{}:4:", f.display())));
}

#[test]
fn overlay_re_tiers_adds_and_merges_aliases() {
    let base = credit_index();
    assert_eq!(base.entry("Notices").unwrap().tier, Tier::VeryLow);
    assert!(base.entry("Hedging Arrangements").is_none());

    let by_extends = GraphabilityIndex::load(&[shipped("overlays/acme_bank.yaml")]).unwrap();
    let by_flags = GraphabilityIndex::load(&[
        shipped("credit_agreement.yaml"),
        shipped("overlays/acme_bank.yaml"),
    ])
    .unwrap();
    for idx in [&by_extends, &by_flags] {
        let n = idx.entry("Notices").unwrap();
        assert_eq!(n.tier, Tier::High);
        assert!(n.source.ends_with("acme_bank.yaml"));
        assert_eq!(
            idx.entry("Notices and Lending Offices").unwrap().title,
            "Notices"
        );
        assert_eq!(idx.entry("Confidentiality").unwrap().tier, Tier::Medium);
        assert_eq!(
            idx.entry("Secured Hedge Agreements").unwrap().tier,
            Tier::High
        );
        assert_eq!(idx.entry("Governing Law").unwrap().tier, Tier::VeryLow);
        assert_eq!(idx.entries().len(), base.entries().len() + 1);
        assert_eq!(idx.document_type, "credit_agreement");
        let m = idx.match_title("Section 9.01. Notices");
        assert_eq!(m.tier, Some(Tier::High));
    }
}

#[test]
fn overlay_alias_colliding_with_another_base_entry_is_an_error() {
    let dir = tempdir();
    let f = dir.path().join("over.yaml");
    std::fs::write(
        &f,
        format!(
            "extends: {}\nhigh:\n  - title: Notices\n    aliases: [Governing Law]\n",
            shipped("credit_agreement.yaml").display()
        ),
    )
    .unwrap();
    let err = GraphabilityIndex::load(std::slice::from_ref(&f))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("over.yaml:3:") && err.contains("Governing Law"),
        "{err}"
    );
}

/// (corpus file, heading as it appears there, method, entry, tier).
type Expected = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    Option<Tier>,
);

/// Real headings of the shared corpus (each is checked to occur in its
/// file) with the entry and tier the shipped index must give them.
const REAL_TITLES: &[Expected] = &[
    (
        "credit_agreements/emerson_2018.md",
        "Section 1.01 Definitions",
        "exact",
        Some("Definitions"),
        Some(Tier::VeryHigh),
    ),
    (
        "credit_agreements/emerson_2018.md",
        "Section 4.09 Subsidiaries",
        "exact",
        Some("Subsidiaries"),
        Some(Tier::VeryHigh),
    ),
    (
        "credit_agreements/emerson_2018.md",
        "Section 5.03 Maintenance of Property; Insurance",
        // A compound takes its highest part: Insurance (Medium) over
        // Maintenance of Property (Low in every gold file).
        "exact",
        Some("Insurance"),
        Some(Tier::Medium),
    ),
    (
        "credit_agreements/emerson_2018.md",
        "Section 7.10 Agent’s Fees",
        "exact",
        Some("Agent's Fees"),
        Some(Tier::Low),
    ),
    (
        "credit_agreements/emerson_2018.md",
        "Section 9.13 Counterparts; Integration",
        "exact",
        Some("Counterparts and Integration"),
        Some(Tier::VeryLow),
    ),
    (
        "credit_agreements/emerson_2018.md",
        "Section 2.19 Facility LCs",
        "alias",
        Some("Facility Letters of Credit"),
        Some(Tier::High),
    ),
    (
        "credit_agreements/emerson_2018.md",
        "COMMITMENT SCHEDULE",
        "exact",
        Some("Commitment Schedule"),
        Some(Tier::VeryHigh),
    ),
    (
        "credit_agreements/emerson_2018.md",
        "Section 2.12 [Reserved]",
        "none",
        None,
        None,
    ),
    (
        "credit_agreements/emerson_2018.md",
        "Section 2.03 Determination of Dollar Amounts; Required Payments",
        "none",
        None,
        None,
    ),
    (
        "credit_agreements/disney_2020.txt",
        "SECTION 2.13.Payments and Computations",
        "alias",
        Some("Method of Payment"),
        Some(Tier::Low),
    ),
    (
        "credit_agreements/disney_2020.txt",
        "SECTION 8.07.Assignments and Participations",
        "alias",
        Some("Successors and Assigns"),
        Some(Tier::VeryHigh),
    ),
    (
        "credit_agreements/disney_2020.txt",
        "SECTION 9.01.The Guaranty",
        "alias",
        Some("Company Guaranty"),
        Some(Tier::VeryHigh),
    ),
    (
        "credit_agreements/coned_2020.txt",
        "Section 5.07. Consolidations, Mergers and Transfers of Assets",
        "alias",
        Some("Mergers and Sales of Assets"),
        Some(Tier::VeryHigh),
    ),
    (
        "credit_agreements/coned_2020.txt",
        "Section 9.14. No Advisory or Fiduciary Duty",
        "alias",
        Some("No Fiduciary Duty"),
        Some(Tier::VeryLow),
    ),
    (
        "credit_agreements/cummins_2020.txt",
        "Section 1.01.\u{a0}\u{a0}\u{a0}\u{a0}\u{a0} Defined Terms",
        "alias",
        Some("Definitions"),
        Some(Tier::VeryHigh),
    ),
    (
        "credit_agreements/cummins_2020.txt",
        "Section 6.02.\u{a0}\u{a0}\u{a0}\u{a0}\u{a0} Mergers, Consolidations, and Sales of Assets",
        "alias",
        Some("Mergers and Sales of Assets"),
        Some(Tier::VeryHigh),
    ),
    (
        "credit_agreements/cummins_2020.txt",
        "Section 12.16.\u{a0} Acknowledgement and Consent to Bail-in of Affected Financial",
        "fuzzy",
        Some("Acknowledgement and Consent to Bail-In of EEA Financial Institutions"),
        Some(Tier::VeryLow),
    ),
    (
        "credit_agreements/att_capital_1995.txt",
        "SECTION 7.02. Agent and Affiliates",
        "exact",
        Some("Agent and Affiliates"),
        Some(Tier::Low),
    ),
    (
        "credit_agreements/att_capital_1995.txt",
        "SECTION 5.06. Consolidations, Mergers and Sales of Assets",
        "alias",
        Some("Mergers and Sales of Assets"),
        Some(Tier::VeryHigh),
    ),
    (
        "credit_agreements/att_capital_1995.txt",
        "SECTION 1.04. Basis for Ratings",
        // The ratings that set the margin: priced like interest.
        "alias",
        Some("Interest"),
        Some(Tier::Medium),
    ),
];

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn real_corpus_titles_match_the_shipped_index() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let idx = credit_index();
    for (file, title, method, entry, tier) in REAL_TITLES {
        let text = read(&corpus(file));
        assert!(text.contains(title), "{title:?} is not a heading of {file}");
        let m = idx.match_title(title);
        let got = format!("{:?}", m.method).to_lowercase();
        assert_eq!(
            (got.as_str(), m.entry.as_deref(), m.tier),
            (*method, *entry, *tier),
            "{title}"
        );
        if m.method == MatchMethod::Fuzzy {
            assert!(
                m.score >= idx.fuzzy_threshold() && m.score <= 1.0,
                "{title}: {}",
                m.score
            );
        }
    }
    assert!(idx.match_title("Section 2.12 [Reserved]").reserved);
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn issue_title_forms_match() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let idx = credit_index();
    let cases = [
        ("SECTION 2.12. Payments and Computations", Some(Tier::Low)),
        ("1.01 Defined Terms", Some(Tier::VeryHigh)),
        ("Schedule 5.13 Subsidiaries", Some(Tier::VeryHigh)),
        ("Schedule 2.01A Commitments", Some(Tier::VeryHigh)),
        (
            "Mergers, Consolidations and Sales of Assets",
            Some(Tier::VeryHigh),
        ),
        (
            "ARTICLE 2.18. Extension of Termination Date",
            Some(Tier::Medium),
        ),
        ("Liens; Negative Pledge", Some(Tier::High)),
        ("Benchmark Replacement Setting", None),
    ];
    for (title, tier) in cases {
        assert_eq!(idx.match_title(title).tier, tier, "{title}");
    }
    assert!(idx.match_title("Schedule 5.13 Subsidiaries").anchor);
    assert!(idx.match_title("TABLE OF CONTENTS").noise);
    let lease = GraphabilityIndex::load(&[shipped("lease.yaml")]).unwrap();
    assert_eq!(lease.document_type, "lease");
    let text = read(&corpus("other/exicure_2020_office_lease.txt"));
    for (title, tier) in [
        ("ARTICLE 1 Premises and Term", Tier::VeryHigh),
        ("ARTICLE 20 Assignment and Subletting", Tier::VeryHigh),
        ("ARTICLE 22 Landlord’s Remedies", Tier::High),
        ("ARTICLE 27 Notices", Tier::VeryLow),
    ] {
        assert!(text.contains(title), "{title}");
        assert_eq!(lease.match_title(title).tier, Some(tier), "{title}");
    }
}

#[test]
fn an_empty_title_is_reported_at_its_own_line() {
    let dir = tempdir();
    let f = dir.path().join("empty_title.yaml");
    std::fs::write(
        &f,
        "document_type: x\nversion: \"1\"\nvery_high:\n  - title: A\n    note: n\n\n\n  - title: \"\"\n  - title: B\n",
    )
    .unwrap();
    kgroute()
        .args(["index", "check"])
        .arg(&f)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("empty_title.yaml:8:5"));
}

/// `kgroute index check` on a file; its stderr.
fn check_stderr(name: &str, bytes: &[u8]) -> (String, String) {
    let dir = tempdir();
    let f = dir.path().join(name);
    std::fs::write(&f, bytes).unwrap();
    let out = kgroute()
        .args(["index", "check"])
        .arg(&f)
        .assert()
        .code(1)
        .get_output()
        .clone();
    (
        f.display().to_string(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn a_duplicate_key_is_reported_at_its_own_line_and_column() {
    let (name, err) = check_stderr(
        "dup.yaml",
        b"document_type: x\nhigh:\n  - Litigation\nlow:\n  - Notices\nhigh:\n  - Liens\nmatch:\n  fuzzy_threshold: 0.8\n  fuzzy_threshold: 0.9\n",
    );
    assert!(
        err.contains(&format!(
            "{name}:6:1: duplicate top-level key `high` (first at line 2, column 1)"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{name}:10:3: duplicate key of `match` `fuzzy_threshold` (first at line 9, column 3)"
        )),
        "{err}"
    );
    assert!(err.contains("fix: keep one `high:`"), "{err}");
    assert!(err.contains("2 problem(s) found"), "{err}");
}

#[test]
fn bad_values_are_quoted_as_yaml_not_rust() {
    let (name, err) = check_stderr(
        "values.yaml",
        b"document_type: x\nversion: [1, 2]\nmatch:\n  fuzzy_threshold: {a: 1}\nhigh: Litigation\n",
    );
    assert!(
        err.contains(&format!(
            "{name}:2:1: `version` must be a string, got `[1, 2]`"
        )),
        "{err}"
    );
    assert!(err.contains("got `{a: 1}`"), "{err}");
    assert!(err.contains("got `Litigation`"), "{err}");
    assert!(
        !err.contains("Sequence") && !err.contains("Mapping") && !err.contains("Number("),
        "{err}"
    );
}

#[test]
fn a_non_utf8_index_is_located_by_line() {
    // `Agent’s Fees` saved as Windows-1252: the apostrophe is byte 0x92.
    let (name, err) = check_stderr(
        "cp1252.yaml",
        b"document_type: x\nhigh:\n  - Litigation\n  - Agent\x92s Fees\n",
    );
    assert!(
        err.contains(&format!("{name}:4:10: not UTF-8: byte 0x92")),
        "{err}"
    );
    assert!(err.contains("fix: save the file as UTF-8"), "{err}");
}

#[test]
fn positions_never_come_from_a_comment() {
    // The anchor's title appears first in a comment; the problem is at the
    // list item, and the misplaced entry at its own line.
    let (name, err) = check_stderr(
        "comment.yaml",
        b"document_type: x\n# Subsidiaries: pinned, see below\nanchors:\n  # - Subsidiaries (old)\n  - Subsidiaries\nmedium:\n  # Subsidiaries used to sit here\n  - Subsidiaries\n",
    );
    assert!(
        err.contains(&format!(
            "{name}:5:5: anchor `Subsidiaries` is listed in `medium`"
        )),
        "{err}"
    );
}

#[test]
fn every_key_of_the_schema_is_accepted_by_the_loader() {
    // The schema is the one list of keys: check takes its allowed keys from
    // it, and the loader must accept each of them.
    let keys = kgroute::index::check::TOP_KEYS.clone();
    assert!(keys.len() >= 14, "{keys:?}");
    let schema = &*kgroute::index::check::SCHEMA;
    let mut yaml = String::from("document_type: x\n");
    for k in keys
        .iter()
        .filter(|k| **k != "document_type" && **k != "extends")
    {
        // A string where the schema wants one, empty (null) otherwise.
        let t = &schema["properties"][*k]["type"];
        let text = t == "string" || t.as_array().is_some_and(|a| a.contains(&"string".into()));
        yaml.push_str(&format!("{k}:{}\n", if text { " \"1\"" } else { "" }));
    }
    let dir = tempdir();
    let f = dir.path().join("all_keys.yaml");
    std::fs::write(&f, &yaml).unwrap();
    let problems = kgroute::index::check_files(std::slice::from_ref(&f));
    assert!(problems.is_empty(), "{yaml}\n{problems:#?}");
    let schema: serde_json::Value = serde_json::from_str(&read(
        &repo().join("schemas/graphability-index.schema.json"),
    ))
    .unwrap();
    let mut in_file: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    in_file.sort_unstable();
    assert_eq!(in_file, keys, "check reads its keys from the schema file");
}
