//! Heading names are parsed once, in the tree stage: matching keys and
//! display forms built from a node's `label` / `name` equal those built
//! from its title through the one label parser, on every real document.

use super::util::{corpora, corpus_documents};
use kgroute::index::{normalize_heading, normalize_title};
use kgroute::report::{display_heading, display_title};
use kgroute::tree::{build_tree, split_heading, NodeKind, SourceText};
use std::path::PathBuf;

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn node_names_and_title_strings_agree_on_every_document() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let mut checked = 0;
    let mut labelled = 0;
    for path in documents() {
        let src = SourceText::read(&path, true).unwrap();
        let tree = build_tree(&src);
        for n in tree.iter() {
            // Nodes the tree named itself carry no label by design.
            if matches!(
                n.kind,
                NodeKind::Preamble | NodeKind::Toc | NodeKind::Signature | NodeKind::Fallback
            ) {
                continue;
            }
            let (label, name) = split_heading(&n.title);
            assert_eq!(
                (&label, &name),
                (&n.label, &n.name),
                "{}: {} {:?}",
                tree.doc_name,
                n.node_id,
                n.title
            );
            assert_eq!(
                normalize_heading(n.label.as_ref(), &n.name),
                normalize_title(&n.title),
                "{}: {:?}",
                tree.doc_name,
                n.title
            );
            assert_eq!(
                display_heading(&n.title, n.label.as_ref(), &n.name),
                display_title(&n.title),
                "{}: {:?}",
                tree.doc_name,
                n.title
            );
            checked += 1;
            labelled += usize::from(n.label.is_some());
        }
    }
    // Most headings of real contracts are numbered: the label did the work.
    assert!(checked > 3000, "{checked} headings");
    assert!(labelled * 2 > checked, "{labelled} of {checked} labelled");
}

/// The shared documents and the wide set's.
fn documents() -> Vec<PathBuf> {
    let mut out = corpus_documents();
    let wide = corpora().join("wide");
    for kind in std::fs::read_dir(&wide).unwrap() {
        let dir = kind.unwrap().path();
        if dir.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "txt" || e == "md"))
                .collect();
            files.sort();
            out.extend(files);
        }
    }
    out
}
