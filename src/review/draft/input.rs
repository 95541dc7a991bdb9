//! What a draft is made from: the documents of calibrated batches, read
//! back from each batch's `docs/*.json.gz` (the plan and the extractions the
//! batch saved), reduced to what drafting needs per section: the grouping
//! key of its title, its size, the tier it actually earned and the names
//! its extraction found.

use crate::extract::SectionExtraction;
use crate::index::{normalize_heading, Tier};
use crate::route::{Route, RoutePlan};
use crate::tree::NodeKind;
use anyhow::{bail, Context};
use serde::Deserialize;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// One saved document as `docs/<doc_id>.json.gz` holds it (other fields are
/// not read).
#[derive(Deserialize)]
struct Saved {
    meta: SavedMeta,
    plan: RoutePlan,
    #[serde(default)]
    extractions: Vec<SectionExtraction>,
}

#[derive(Deserialize)]
struct SavedMeta {
    doc_id: String,
    name: String,
    #[serde(default)]
    path: PathBuf,
}

/// One section as drafting sees it.
#[derive(Debug, Clone)]
pub struct DraftSection {
    /// [`normalize_heading`] of the tree's label and name: the matcher's
    /// own normal form.
    pub key: String,
    /// The heading as the index would show it (numbering dropped).
    pub display: String,
    pub chars: usize,
    /// The tier the section's extraction earned; `None` when it was not
    /// scanned (not calibrated) or failed.
    pub actual: Option<Tier>,
    /// The names its extraction found (entities and their aliases), lower
    /// case.
    pub names: BTreeSet<String>,
    /// Role entities' names as written (`Borrower`, `Servicer`).
    pub roles: Vec<String>,
    pub entity_types: Vec<String>,
    pub relation_types: Vec<String>,
}

/// One document of a batch.
#[derive(Debug, Clone)]
pub struct DraftDoc {
    pub doc_id: String,
    pub doc_name: String,
    pub doc_type: String,
    /// The source file (for the title block `detect:` reads).
    pub path: PathBuf,
    /// Its sections in order, without noise, empty and structural ones.
    pub sections: Vec<DraftSection>,
    /// Sections that were routed (not noise or empty) but not scanned.
    pub unscanned: usize,
}

/// The saved documents (`docs/<doc_id>.json.gz`) of the batch folder
/// `dir`, in `doc_id` order: what drafting and learning read back
/// ([`crate::saved_docs::read`] gives a file's JSON).
pub fn saved_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let docs_dir = dir.join(crate::saved_docs::DOCS_DIR);
    if !docs_dir.is_dir() {
        bail!(
            "{}: not a batch folder (no docs/); give a folder `kgroute ingest --out DIR` wrote (with --calibrate it teaches most)",
            dir.display()
        );
    }
    let files = crate::saved_docs::list(dir)?
        .into_iter()
        .map(|(_, path)| path)
        .collect();
    Ok(files)
}

/// Reads every saved document of the batch folder `dir`, in file-name order.
pub fn read_batch(dir: &Path) -> anyhow::Result<Vec<DraftDoc>> {
    let files = saved_files(dir)?;
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        let text = crate::saved_docs::read(&f)?;
        let saved: Saved = serde_json::from_slice(&text)
            .with_context(|| format!("{}: not a saved document of a batch", f.display()))?;
        out.push(reduce(saved));
    }
    Ok(out)
}

fn reduce(saved: Saved) -> DraftDoc {
    let by_node: HashMap<&str, &SectionExtraction> = saved
        .extractions
        .iter()
        .map(|e| (e.node_id.as_str(), e))
        .collect();
    let mut sections = Vec::new();
    let mut unscanned = 0;
    for s in &saved.plan.sections {
        if matches!(s.route, Route::Noise | Route::Empty) || s.matched.noise {
            continue;
        }
        if matches!(
            s.kind,
            NodeKind::Structural | NodeKind::Toc | NodeKind::Signature | NodeKind::Fallback
        ) {
            continue;
        }
        let key = normalize_heading(s.label.as_ref(), &s.name);
        if key.is_empty() {
            continue;
        }
        let e = by_node.get(s.node_id.as_str()).copied();
        let actual = crate::report::quality::actual_tier(e);
        if actual.is_none() {
            unscanned += 1;
        }
        let mut names = BTreeSet::new();
        let mut roles = Vec::new();
        let mut entity_types = Vec::new();
        let mut relation_types = Vec::new();
        if let Some(e) = e {
            for ent in &e.entities {
                names.insert(ent.name.to_lowercase());
                for a in &ent.aliases {
                    names.insert(a.to_lowercase());
                }
                if ent.entity_type == "Role" {
                    roles.push(ent.name.clone());
                }
                entity_types.push(ent.entity_type.clone());
            }
            relation_types.extend(e.relations.iter().map(|r| r.relation_type.clone()));
        }
        sections.push(DraftSection {
            key,
            display: crate::report::display_heading(&s.title, s.label.as_ref(), &s.name),
            chars: s.chars,
            actual,
            names,
            roles,
            entity_types,
            relation_types,
        });
    }
    DraftDoc {
        doc_id: saved.meta.doc_id,
        doc_name: saved.meta.name,
        doc_type: saved.plan.doc_type,
        path: saved.meta.path,
        sections,
        unscanned,
    }
}
