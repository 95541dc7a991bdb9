//! The front half of every document, shared by `kgroute plan` and
//! `kgroute ingest` so both read, tree and route a file the same way: safe
//! reading (regular files, size cap, binary sniffing, UTF-16), the skeleton
//! tree, and the routing plan that carries what extraction and the graph
//! need.

use crate::index::GraphabilityIndex;
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
}

/// Reads, trees and routes one document.
pub fn plan_one(
    path: &Path,
    read: &ReadOptions,
    index: &GraphabilityIndex,
    route: &RouteOptions,
) -> anyhow::Result<Planned> {
    let source = SourceText::read_with(path, read)?;
    let tree = build_tree(&source);
    let plan = crate::route::plan(&tree, index, route);
    Ok(Planned { source, tree, plan })
}

/// [`plan_one`] over every document, in order; a bad document is an `Err`
/// item and the rest go on.
pub fn plan_all<'a>(
    paths: impl IntoIterator<Item = PathBuf> + 'a,
    read: &'a ReadOptions,
    index: &'a GraphabilityIndex,
    route: &'a RouteOptions,
) -> impl Iterator<Item = (PathBuf, anyhow::Result<Planned>)> + 'a {
    paths.into_iter().map(move |p| {
        let r = plan_one(&p, read, index, route);
        (p, r)
    })
}
