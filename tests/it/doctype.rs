//! Document-type detection on the real corpus: every wide document gets
//! its folder's type; a memo fits no index; `--doc-type` forces one.

use super::util::{fixture, repo, shared};
use kgroute::index::doctype::UNKNOWN_TYPE;
use kgroute::index::IndexSet;
use kgroute::tree::{build_tree, SourceText};

fn set() -> IndexSet {
    IndexSet::load(&[repo().join("indices")]).expect("shipped indices load")
}

fn guess(set: &IndexSet, path: &std::path::Path) -> kgroute::index::DocTypeGuess {
    let src = SourceText::read(path, true).expect("readable");
    let tree = build_tree(&src);
    set.detect(&tree, &src)
}

#[test]
fn every_wide_document_gets_its_folders_type() {
    let set = set();
    let mut wrong = Vec::new();
    for (dir, ty) in [
        ("credit_agreements", "credit_agreement"),
        ("leases", "lease"),
        ("m_and_a", "m_and_a"),
        ("commercial", "commercial"),
    ] {
        let d = shared().join("corpora/wide").join(dir);
        let mut files: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{}", d.display());
        for f in files {
            let g = guess(&set, &f);
            if g.name != ty {
                wrong.push(format!("{}: {} ({:?})", f.display(), g.name, g));
            }
            assert!((0.0..=1.0).contains(&g.confidence));
        }
    }
    assert!(wrong.is_empty(), "wrong types:\n{}", wrong.join("\n"));
}

#[test]
fn a_memo_fits_no_index_and_a_forced_type_wins() {
    let set = set();
    let memo = fixture("memo.txt");
    let g = guess(&set, &memo);
    assert_eq!(g.name, UNKNOWN_TYPE, "{g:?}");
    let src = SourceText::read(&memo, true).unwrap();
    let tree = build_tree(&src);
    let (idx, g) = set.choose(&tree, &src, Some("lease")).unwrap();
    assert_eq!(
        (idx.unwrap().document_type.as_str(), g.confidence),
        ("lease", 1.0)
    );
    let err = set.choose(&tree, &src, Some("novel")).unwrap_err();
    assert!(
        err.contains("novel") && err.contains("credit_agreement"),
        "{err}"
    );
}
