//! The front half of every document, shared by `kgroute plan` and
//! `kgroute ingest` so both read, tree and route a file the same way: safe
//! reading (regular files, size cap, binary sniffing, UTF-16), the skeleton
//! tree, and the routing plan that carries what extraction and the graph
//! need.

use crate::index::{DocTypeGuess, GraphabilityIndex, IndexSet};
use crate::route::{RouteOptions, RoutePlan};
use crate::tree::source::ReadOptions;
use crate::tree::{build_tree, DocTree, SourceText};
use std::path::{Path, PathBuf};

/// One document read and routed.
#[derive(Debug)]
pub struct Planned {
    pub source: SourceText,
    pub tree: DocTree,
    pub plan: RoutePlan,
    /// The detected (or `--doc-type` forced) document type.
    pub doc_type: DocTypeGuess,
}

/// Reads, trees and routes one document with the index of its type (a
/// document that fits no index is routed with the base index only, never as
/// some other type).
pub fn plan_one(
    path: &Path,
    read: &ReadOptions,
    set: &IndexSet,
    forced: Option<&str>,
    route: &RouteOptions,
) -> anyhow::Result<Planned> {
    let source = SourceText::read_with(path, read)?;
    let tree = build_tree(&source);
    let (index, doc_type) = set
        .choose(&tree, &source, forced)
        .map_err(anyhow::Error::msg)?;
    let plan = match index {
        Some(i) => crate::route::plan(&tree, i, route),
        None => {
            let mut empty = GraphabilityIndex::default();
            empty.document_type = doc_type.name.clone();
            crate::route::plan(&tree, &empty, route)
        }
    };
    let mut plan = plan;
    plan.doc_type_confidence = doc_type.confidence;
    crate::route::route_content(&mut plan, &source, route, index)?;
    Ok(Planned {
        source,
        tree,
        plan,
        doc_type,
    })
}

/// [`plan_one`] over every document, in order; a bad document is an `Err`
/// item and the rest go on.
pub fn plan_all<'a>(
    paths: impl IntoIterator<Item = PathBuf> + 'a,
    read: &'a ReadOptions,
    set: &'a IndexSet,
    forced: Option<&'a str>,
    route: &'a RouteOptions,
) -> impl Iterator<Item = (PathBuf, anyhow::Result<Planned>)> + 'a {
    paths.into_iter().map(move |p| {
        let r = plan_one(&p, read, set, forced, route);
        (p, r)
    })
}
