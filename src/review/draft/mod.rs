//! `kgroute index draft`: a new graphability index written from calibrated
//! batches, for a contract family nobody wrote one for.
//!
//! The method's loop (route, calibrate, review, next batch) needs an index
//! to start from; without one every section of an `unknown` document is
//! new and sent. A batch ingested with `--calibrate` has every section
//! scanned and rated, which is what a reviewer would start from: the
//! titles the family shares, how much graph each one actually carries, and
//! which sections name what the rest of the document uses. The draft is
//! that evidence written as an index (`extends:` the base, valid for
//! `index check`), each entry with a comment a reviewer can judge it by:
//!
//! - titles grouped by meaning with the matcher's own normal form
//!   (`group`), variants kept as aliases;
//! - an entry only for a group found in at least `min_docs` documents;
//!   bespoke titles are listed in a comment, not entered;
//! - each entry's tier from its sections' actual tiers; ontological anchors
//!   (sections whose names the later sections use) pinned Very High;
//! - `detect:` words checked against the other indices (`detect`);
//! - the ontology the extractions used.

pub mod detect;
pub mod group;
pub mod input;
pub mod render;

use crate::index::{GraphabilityIndex, IndexSet, MatchMethod, Tier};
use group::TitleGroup;
use input::DraftDoc;
use std::path::PathBuf;

/// What to draft.
#[derive(Debug, Clone)]
pub struct DraftOptions {
    /// The new index's `document_type`.
    pub doc_type: String,
    /// An entry needs its group in at least this many documents.
    pub min_docs: usize,
    /// The base the draft `extends:`, as written into the file.
    pub extends: Option<String>,
    /// The batches read, for the header comment.
    pub batches: Vec<PathBuf>,
    /// The batches' other documents (not of this family): a detection
    /// phrase or role common among them says nothing of this family
    /// ([`detect`]).
    pub contrast: Vec<input::DraftDoc>,
}

/// One drafted entry.
#[derive(Debug, Clone)]
pub struct DraftEntry {
    pub title: String,
    pub aliases: Vec<String>,
    pub tier: Tier,
    pub anchor: bool,
    pub group: TitleGroup,
}

/// A drafted index, ready to render.
#[derive(Debug, Clone)]
pub struct Draft {
    pub options: DraftOptions,
    pub documents: Vec<String>,
    pub sections: usize,
    pub unscanned: usize,
    pub entries: Vec<DraftEntry>,
    /// Groups in fewer than `min_docs` documents: (title, documents).
    pub bespoke: Vec<(String, usize)>,
    /// Groups in enough documents but never scanned (not calibrated).
    pub unrated: Vec<String>,
    pub detect: detect::DetectDraft,
    /// Entity and relation types the extractions used, with counts.
    pub entity_types: Vec<(String, usize)>,
    pub relation_types: Vec<(String, usize)>,
}

impl Draft {
    /// The drafted index as YAML with its evidence comments.
    pub fn to_yaml(&self) -> String {
        render::render(self)
    }
}

fn counted(items: impl Iterator<Item = String>) -> Vec<(String, usize)> {
    let mut m = std::collections::BTreeMap::<String, usize>::new();
    for i in items {
        *m.entry(i).or_default() += 1;
    }
    let mut v: Vec<_> = m.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// The base entry a title already is (its title, an alias or the same
/// concept): the draft re-tiers that entry instead of adding the title
/// again, which `index check` would refuse.
fn in_base(base: Option<&GraphabilityIndex>, title: &str) -> Option<String> {
    let m = base?.match_title(title);
    match m.method {
        MatchMethod::Exact | MatchMethod::Alias | MatchMethod::Concept => m.entry,
        _ => None,
    }
}

/// Drafts an index from `docs` (one family's documents of calibrated
/// batches); `others` are the indices whose detection it must not steal;
/// `base` is the index the draft extends (its entries are re-tiered, never
/// repeated).
pub fn draft(
    docs: &[DraftDoc],
    others: &IndexSet,
    base: Option<&GraphabilityIndex>,
    options: DraftOptions,
) -> Draft {
    let mut retiered = std::collections::BTreeSet::new();
    // Normal forms already written (titles and aliases): a second group
    // reaching one (`Exhibit F` and a group re-tiering `Exhibit` both read
    // `exhibit`) would be a duplicate `index check` refuses.
    let mut used = std::collections::BTreeSet::new();
    let groups = group::group(docs);
    let k = options.min_docs.max(1);
    let mut entries = Vec::new();
    let mut bespoke = Vec::new();
    let mut unrated = Vec::new();
    for g in groups {
        let title = g.title();
        if g.docs.len() < k {
            bespoke.push((title, g.docs.len()));
            continue;
        }
        let Some(actual) = g.actual_tier() else {
            unrated.push(title);
            continue;
        };
        let anchor = g.is_anchor();
        let tier = if anchor { Tier::VeryHigh } else { actual };
        // A group that is a base entry re-tiers it under the entry's own
        // title (once: the group in most documents decides).
        let title = match in_base(base, &title) {
            Some(entry) if !retiered.insert(entry.clone()) => continue,
            Some(entry) => entry,
            None => title,
        };
        let own = crate::index::normalize_title(&title);
        if !used.insert(own.clone()) {
            continue;
        }
        let mut aliases: Vec<String> = Vec::new();
        let mut seen = std::collections::BTreeSet::from([own]);
        // Variants whose normal form differs from the title's: the same
        // normal form is matched already.
        let mut variants: Vec<(&String, &usize)> = g.displays.iter().collect();
        variants.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        for (d, _) in variants {
            let n = crate::index::normalize_title(d);
            if !n.is_empty()
                && in_base(base, d).is_none()
                && !used.contains(&n)
                && seen.insert(n.clone())
            {
                used.insert(n);
                aliases.push(d.clone());
            }
        }
        entries.push(DraftEntry {
            title,
            aliases,
            tier,
            anchor,
            group: g,
        });
    }
    let all = || docs.iter().flat_map(|d| d.sections.iter());
    Draft {
        documents: docs.iter().map(|d| d.doc_id.clone()).collect(),
        sections: all().count(),
        unscanned: docs.iter().map(|d| d.unscanned).sum(),
        entries,
        bespoke,
        unrated,
        detect: detect::draft_detect(docs, &options.contrast, others),
        entity_types: counted(all().flat_map(|s| s.entity_types.iter().cloned())),
        relation_types: counted(all().flat_map(|s| s.relation_types.iter().cloned())),
        options,
    }
}
