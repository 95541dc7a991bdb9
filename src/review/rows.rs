//! Which index file each reviewed row's decision goes to, by the row's
//! `doc_type`, and what is said about a row that has no index to go to.
//! One index file and a folder of indices sort rows the same way and word
//! the rows they cannot write the same way.

use super::decision::Decision;
use crate::index::doctype::UNKNOWN_TYPE;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The line for a decision that is not written, with the reason.
pub fn not_written(d: &Decision, why: &str) -> String {
    format!(
        "{}: `{}` for `{}` not written: {why}",
        d.origin, d.raw, d.title
    )
}

/// With `--doc-type NAME`: a row of a document that fit no index
/// (`unknown` or blank) becomes a row of `NAME`, so its decision goes into
/// that type's (new or drafted) index.
pub fn take_unknown_as(d: &mut Decision, as_type: Option<&str>) {
    let Some(t) = as_type else { return };
    if d.doc_type
        .as_deref()
        .is_none_or(|x| x.is_empty() || x == UNKNOWN_TYPE)
    {
        d.doc_type = Some(t.to_string());
    }
}

/// Decisions sorted by the index they go into, and a line for each one
/// that goes nowhere.
#[derive(Debug, Default)]
pub struct SortedRows {
    /// Document type -> its rows' decisions, in CSV order.
    pub by_type: BTreeMap<String, Vec<Decision>>,
    /// One line per decision with no index to go into.
    pub unwritable: Vec<String>,
}

/// Sorts `decisions` to the types of `files`. A row of a document that fits
/// no index (`unknown` or a blank cell) is never written; a row of another
/// type gets `elsewhere(decision, its type)` as its reason. Every decision
/// must carry its `doc_type` (the caller decides what a report without the
/// column means).
pub fn sort_rows(
    decisions: Vec<Decision>,
    files: &BTreeMap<String, PathBuf>,
    elsewhere: impl Fn(&Decision, &str) -> String,
) -> SortedRows {
    let mut out = SortedRows::default();
    for d in decisions {
        let ty = d.doc_type.clone().unwrap_or_default();
        if files.contains_key(&ty) {
            out.by_type.entry(ty).or_default().push(d);
        } else if ty == UNKNOWN_TYPE || ty.is_empty() {
            out.unwritable.push(not_written(
                &d,
                &format!(
                    "the document fits no index (doc_type `{UNKNOWN_TYPE}`); draft its family's index (kgroute index draft --doc-type NAME --from BATCH --out FILE) and review with --index FILE --doc-type NAME"
                ),
            ));
        } else {
            let why = elsewhere(&d, &ty);
            out.unwritable.push(not_written(&d, &why));
        }
    }
    out
}
