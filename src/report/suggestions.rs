//! `suggestions.yaml`: the batch's new sections (titles not in the index)
//! grouped by normalised title, most frequent first, as candidate index
//! entries with the tier their extractions actually earned.

use super::{display_heading, BatchReport, MatchQuality};
use crate::index::{normalize_heading, Tier};
use anyhow::Context;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// How many distinct example headings a suggestion keeps.
const EXAMPLES: usize = 3;

/// How many documents a suggestion names (the first in batch order); the
/// rest are counted, so a title new in every one of 50,000 documents does
/// not write 50,000 ids.
const EXAMPLE_DOCUMENTS: usize = 10;

/// One candidate index entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggestion {
    /// Display form of the heading (numbering stripped), as it would be
    /// written in the index.
    pub title: String,
    /// The grouping key ([`crate::index::normalize_heading`] of the
    /// section's label and name).
    pub normalized: String,
    /// Occurrences across the batch.
    pub count: usize,
    /// The most common actual tier (ties go to the higher tier, so nothing
    /// is under-rated); `None` when no occurrence was extracted.
    pub suggested_tier: Option<String>,
    /// Actual tier key -> occurrences, highest tier first.
    pub actual_tiers: serde_yaml_ng::Mapping,
    /// Distinct documents it occurred in.
    pub documents: usize,
    /// The first [`EXAMPLE_DOCUMENTS`] of them, in batch order.
    pub example_documents: Vec<String>,
    pub example_headings: Vec<String>,
}

#[derive(Serialize)]
struct SuggestionsFile<'a> {
    batch_id: &'a str,
    index_version: &'a str,
    suggestions: Vec<Suggestion>,
}

#[derive(Default)]
struct Group {
    count: usize,
    /// Display title -> occurrences (distinct titles, not every occurrence).
    titles: BTreeMap<String, usize>,
    tiers: BTreeMap<Tier, usize>,
    documents: usize,
    /// The last document counted: a document's sections come together.
    last_document: Option<String>,
    example_documents: Vec<String>,
    headings: Vec<String>,
}

/// Groups the batch's `new` sections by normalised title.
pub fn collect(batch: &BatchReport) -> Vec<Suggestion> {
    let mut c = Collector::default();
    for doc in &batch.documents {
        c.add(doc);
    }
    c.finish()
}

/// The `new` sections grouped as documents finish: memory grows with the
/// distinct titles, not with the documents.
#[derive(Default)]
pub struct Collector {
    groups: HashMap<String, Group>,
}

impl Collector {
    pub fn add(&mut self, doc: &super::DocumentOutcome) {
        let groups = &mut self.groups;
        for v in doc.sections() {
            if v.quality != MatchQuality::New {
                continue;
            }
            let s = &v.section;
            let key = normalize_heading(s.label.as_ref(), &s.name);
            if key.is_empty() {
                continue;
            }
            let g = groups.entry(key).or_default();
            g.count += 1;
            *g.titles
                .entry(display_heading(&s.title, s.label.as_ref(), &s.name))
                .or_default() += 1;
            if let Some(t) = super::quality::actual_tier(v.extraction) {
                *g.tiers.entry(t).or_default() += 1;
            }
            if g.last_document.as_deref() != Some(doc.doc_id.as_str()) {
                g.documents += 1;
                g.last_document = Some(doc.doc_id.clone());
                if g.example_documents.len() < EXAMPLE_DOCUMENTS {
                    g.example_documents.push(doc.doc_id.clone());
                }
            }
            let heading = super::sanitize::sanitize_title(&v.section.title).into_owned();
            if g.headings.len() < EXAMPLES && !g.headings.contains(&heading) {
                g.headings.push(heading);
            }
        }
    }

    pub fn finish(self) -> Vec<Suggestion> {
        let groups = self.groups;
        let mut out: Vec<Suggestion> = groups
            .into_iter()
            .map(|(normalized, g)| {
                // Tier's Ord puts Very High first, so `min_by_key` on
                // (-count, tier) picks the most common, higher tier on ties.
                let suggested = g
                    .tiers
                    .iter()
                    .min_by_key(|(t, n)| (std::cmp::Reverse(**n), **t))
                    .map(|(t, _)| t.key().to_string());
                let mut actual = serde_yaml_ng::Mapping::new();
                for (t, n) in &g.tiers {
                    actual.insert(t.key().into(), (*n as u64).into());
                }
                Suggestion {
                    title: most_common(&g.titles),
                    normalized,
                    count: g.count,
                    suggested_tier: suggested,
                    actual_tiers: actual,
                    documents: g.documents,
                    example_documents: g.example_documents,
                    example_headings: g.headings,
                }
            })
            .collect();
        out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.title.cmp(&b.title)));
        out
    }
}

/// The most frequent title (ties go to the first in order).
fn most_common(counts: &BTreeMap<String, usize>) -> String {
    counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
        .map(|(t, _)| t.to_string())
        .unwrap_or_default()
}

const HEADER: &str = "\
# kgroute suggestions: sections whose titles are not in the graphability
# index, grouped by normalised title across this batch, most frequent first.
#
# Each entry is a candidate index entry: `title` is the heading without its
# numbering, `suggested_tier` the most common tier its extractions actually
# earned (`actual_tiers` counts them), `documents` in how many documents it
# occurred and `example_documents` the first ten of them.
#
# How to use it: frequent, generic titles belong in the index; bespoke ones
# (occurring once, deal-specific) are better left out. Put the decision in
# the `decision` column of sections.csv on one of the title's rows
# (`add:<tier>`, `alias:<existing entry>` or `ignore`), then run
#   kgroute review sections.csv --index <index.yaml>          # shows the diff
#   kgroute review sections.csv --index <index.yaml> --write  # applies it
";

/// Writes `suggestions.yaml` with its comment header.
pub fn write_suggestions(path: &Path, batch: &BatchReport) -> anyhow::Result<()> {
    write_suggestions_of(path, batch, collect(batch))
}

/// Writes `suggestions.yaml` for `batch` (its id and index version) with
/// suggestions already collected.
pub fn write_suggestions_of(
    path: &Path,
    batch: &BatchReport,
    suggestions: Vec<Suggestion>,
) -> anyhow::Result<()> {
    let file = SuggestionsFile {
        batch_id: &batch.batch_id,
        index_version: &batch.index_version,
        suggestions,
    };
    let body = serde_yaml_ng::to_string(&file)?;
    let text = format!("{HEADER}\n{body}");
    crate::atomic_file::write_atomic(path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}
