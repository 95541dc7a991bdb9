//! The summaries of a batch routed with a folder of indices name every
//! index of the batch (type, file, version, entries, documents routed) and,
//! per document, the index it was routed with; `report-meta.json` keeps the
//! list for `kgroute merge`. The primary index's `index_version` stays for
//! older readers.

use super::util::{corpus, fixture, ingest_offline_cmd, read, repo, tempdir};
use kgroute::index::IndexSet;
use serde_json::Value;

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn summaries_list_every_index_of_a_folder_and_each_documents_index() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = tempdir();
    let out = dir.path().join("b");
    let inputs = [
        fixture("credit_agreement.md"),
        fixture("memo.txt"),
        corpus("wide/leases/pnk_2020_lease.txt"),
    ];
    ingest_offline_cmd(
        &inputs,
        &repo().join("indices"),
        &out,
        &dir.path().join("h.csv"),
    )
    .assert()
    .success();
    let set = IndexSet::load(&[repo().join("indices")]).unwrap();
    let j: Value = serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    let docs = j["per_document"].as_array().unwrap();

    let listed = j["indices"].as_array().unwrap();
    assert_eq!(listed.len(), set.indices.len(), "{listed:?}");
    for idx in &set.indices {
        let l = listed
            .iter()
            .find(|l| l["doc_type"] == idx.document_type.as_str())
            .unwrap_or_else(|| panic!("{} not listed: {listed:?}", idx.document_type));
        let path = idx.sources.last().unwrap();
        assert_eq!(l["path"], path.display().to_string());
        assert_eq!(l["version"], idx.version.as_str());
        assert_eq!(l["entries"], idx.entries().len());
        let routed = docs
            .iter()
            .filter(|d| d["doc_type"] == idx.document_type.as_str())
            .count();
        assert_eq!(l["documents"], routed, "{}", idx.document_type);
    }
    let used = listed.iter().filter(|l| l["documents"] != 0).count();
    assert!(
        used >= 2,
        "the batch routes with two indices at least: {listed:?}"
    );

    // Each document names the index of its type; the memo fits none.
    for d in docs {
        match set.get(d["doc_type"].as_str().unwrap()) {
            Some(idx) => {
                assert_eq!(
                    d["index"]["path"],
                    idx.sources.last().unwrap().display().to_string()
                );
                assert_eq!(d["index"]["version"], idx.version.as_str());
            }
            None => assert!(d["index"].is_null(), "{d}"),
        }
    }
    assert!(docs.iter().any(|d| d["index"].is_null()), "the memo");
    // The old field still names the primary (credit agreement) index.
    assert_eq!(
        j["index_version"],
        set.get("credit_agreement").unwrap().version.as_str()
    );

    // summary.md: one row per index, and each document's index.
    let md = read(&out.join("summary.md"));
    let start = md.find("## Indices").expect("an indices section");
    let rows: Vec<&str> = md[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .collect();
    assert_eq!(rows.len(), set.indices.len(), "{md}");
    for l in listed {
        let row = format!(
            "| {} | {} | {} | {} | {} |",
            l["doc_type"].as_str().unwrap(),
            l["path"].as_str().unwrap(),
            l["version"].as_str().unwrap(),
            l["entries"],
            l["documents"]
        );
        assert!(rows.contains(&row.as_str()), "{row} not in {rows:?}");
    }
    let lease = set.get("lease").unwrap();
    assert!(
        md.contains(&format!(
            "| {} (version {}) |",
            lease.sources.last().unwrap().display(),
            lease.version
        )),
        "{md}"
    );

    // report-meta.json keeps the list, for a merge to recompute the same.
    let meta: Value = serde_json::from_str(&read(&out.join("report-meta.json"))).unwrap();
    let without_counts: Vec<Value> = listed
        .iter()
        .map(|l| {
            let mut l = l.clone();
            l.as_object_mut().unwrap().remove("documents");
            l
        })
        .collect();
    assert_eq!(meta["indices"], Value::Array(without_counts));
}
