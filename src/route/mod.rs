//! Routing stage: decides, per section, whether its text goes to the LLM,
//! from the predicted tier of its title. No LLM and no network.
//!
//! Takes a [`crate::tree::DocTree`] and a [`crate::index::GraphabilityIndex`];
//! hands a [`RoutePlan`] to the extraction stage.

pub mod content;
pub mod cost;
pub mod eval;
pub mod export;
pub mod stats;

pub use cost::Prices;
pub use stats::PlanStats;

use crate::index::{GraphabilityIndex, MatchContext, MatchMethod, Tier, TitleMatch};
use crate::tree::{build_tree, DocTree, Node, NodeKind, SourceText};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;

/// Where a section goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Route {
    /// Sent to the extractor.
    Llm,
    /// Predicted Low or Very Low: not sent.
    Skip,
    /// A noise title (table of contents, signatures): never sent, kept out of
    /// alignment statistics.
    Noise,
    /// No text of its own (structural heading, `[Reserved]`): no call; its
    /// children are routed.
    Empty,
}

/// Why a section was sent even though its prediction says skip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Override {
    None,
    /// `--calibrate`: everything is sent to measure actual tiers.
    Calibrate,
    /// Picked by the deterministic `--audit-rate` sample of skipped sections.
    Audit,
    /// Its paragraphs' clause scores decided against its title: a skipped
    /// title with a paragraph sent, or a sent title with none
    /// ([`content::route_by_content`]).
    Content,
}

/// One section of the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoutedSection {
    pub node_id: String,
    pub title: String,
    /// The heading's numbering, from the tree (`Section 2.12` -> [2, 12]).
    #[serde(default)]
    pub label: Option<crate::tree::Label>,
    /// The title without its label, from the tree.
    #[serde(default)]
    pub name: String,
    pub breadcrumb: String,
    pub kind: NodeKind,
    pub level: u8,
    pub start_line: usize,
    pub end_line: usize,
    /// The section's byte span in the source, from the tree: what its text
    /// is read by ([`crate::tree::SourceText::byte_span_text`]).
    #[serde(default)]
    pub start_byte: usize,
    #[serde(default)]
    pub end_byte: usize,
    pub chars: usize,
    pub matched: TitleMatch,
    /// Tier from the index; `None` for a new (unknown) section.
    pub predicted_tier: Option<Tier>,
    pub route: Route,
    pub override_reason: Override,
    /// The section's paragraphs with what their content decided, when
    /// routing by content split them (empty: the section goes whole, or
    /// not at all, as `route` says).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paragraphs: Vec<content::ParagraphRoute>,
}

/// The routing decisions for one document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoutePlan {
    pub doc_id: String,
    pub doc_name: String,
    pub doc_type: String,
    /// 0..1 confidence of the detected type (1.0 when forced with
    /// `--doc-type`; 0.0 when a lone index without `detect:` was given).
    #[serde(default)]
    pub doc_type_confidence: f64,
    pub sections: Vec<RoutedSection>,
    /// The tree's structure health, copied so plan.json carries it.
    #[serde(default)]
    pub tree_health: crate::tree::TreeHealth,
}

impl RoutePlan {
    /// The plan with its sections' and paragraphs' byte spans as bytes of
    /// the file `source` was read from, for output (the plan's own spans
    /// index the decoded text every stage reads).
    pub fn with_file_bytes(&self, source: &crate::tree::SourceText) -> RoutePlan {
        let mut plan = self.clone();
        for s in &mut plan.sections {
            (s.start_byte, s.end_byte) = source.file_span(s.start_byte, s.end_byte);
            for p in &mut s.paragraphs {
                (p.start_byte, p.end_byte) = source.file_span(p.start_byte, p.end_byte);
            }
        }
        plan
    }
}

/// Options that change what is sent.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RouteOptions {
    pub calibrate: bool,
    /// Fraction (0..=1) of skipped sections sent anyway, chosen
    /// deterministically from doc id and node id.
    pub audit_rate: f64,
    /// Route the paragraphs of documents of the clause model's types by
    /// their content where the title leaves room ([`content`]).
    pub content: bool,
}

/// Deterministic audit sampling: true when the section is in the
/// `audit_rate` fraction picked by a hash of doc id and node id.
pub fn audit_pick(doc_id: &str, node_id: &str, audit_rate: f64) -> bool {
    if audit_rate <= 0.0 {
        return false;
    }
    if audit_rate >= 1.0 {
        return true;
    }
    let digest = Sha256::new()
        .chain_update(doc_id.as_bytes())
        .chain_update([0u8])
        .chain_update(node_id.as_bytes())
        .finalize();
    let mut b = [0u8; 8];
    b.copy_from_slice(&digest[..8]);
    let x = u64::from_be_bytes(b) as f64 / u64::MAX as f64;
    x < audit_rate
}

/// Which index word a node kind falls back to when its own title is unknown:
/// an exhibit is an `Exhibit`, a preamble holds the `Parties`.
fn kind_fallback(kind: NodeKind) -> Option<&'static [&'static str]> {
    match kind {
        NodeKind::Exhibit => Some(&["Exhibit", "Exhibits"]),
        NodeKind::Preamble => Some(&["Preamble", "Parties"]),
        _ => None,
    }
}

/// The heading's name: its title without the numbering label, as the tree
/// stage parsed it once (`Node.name`).
pub fn heading_name(node: &Node) -> String {
    // The tree parsed the label off once; a heading that is only a label
    // (`ARTICLE IV`) has no name and matches nothing by name.
    node.name.clone()
}

/// Matches a node's name in the context of its ancestors' names, falling
/// back to its kind for exhibits (and unknown headings inside an exhibit)
/// and the preamble.
fn match_node(p: &Placed<'_>, own_names: &[String], index: &GraphabilityIndex) -> TitleMatch {
    let (node, parents, in_exhibit) = (p.node, p.parents.as_slice(), p.in_exhibit);
    let is_form = p.in_form || is_form_name(&heading_name(node));
    let m = index.match_heading(&heading_name(node), &MatchContext { parents, own_names });
    if m.method != MatchMethod::None
        || m.reserved
        || (p.opens_document && !is_form_name(&heading_name(node)))
    {
        return m;
    }
    // An unknown heading inside an exhibit is part of that form, and a
    // `Form of ...` heading is a form wherever it sits (`SCHEDULE 4 FORM OF
    // ISSUE NOTICE`).
    let kind = if in_exhibit || is_form_name(&heading_name(node)) {
        NodeKind::Exhibit
    } else {
        node.kind
    };
    if is_filing_exhibit_number(&node.title) {
        // `EXHIBIT 10.1` / `EXHIBIT 99.2`: the SEC filing's number for the
        // agreement itself, not an attached form; its text is unknown.
        return m;
    }
    if kind == NodeKind::Exhibit && !in_exhibit && names_agreement(&heading_name(node)) {
        // `EXHIBIT A OWNER AGREEMENT`, `EXHIBIT C ADDENDUM TO LEASE`: an
        // agreement in its own right, with its own parties and clauses,
        // not a blank form; its text is unknown like any new section.
        return m;
    }
    // A blank form (`Form of ...`, or an unknown heading inside one)
    // takes the index's `Forms` entry when it has one: a type whose
    // exhibits carry the deal (commercial schedules of products and
    // prices) sends its `Exhibit` entry but still skips blank forms.
    let form_first: &[&str] = if is_form { &["Forms"] } else { &[] };
    if let Some(words) = kind_fallback(kind) {
        for w in form_first.iter().chain(words) {
            let k = index.match_title(w);
            if k.method != MatchMethod::None {
                return TitleMatch {
                    method: MatchMethod::Alias,
                    ..k
                };
            }
        }
    }
    m
}

/// The preamble's match: the index's `Preamble` / `Parties` entry (the
/// parties live there), never its title.
fn preamble_match(index: &GraphabilityIndex) -> TitleMatch {
    for w in kind_fallback(NodeKind::Preamble).unwrap_or(&[]) {
        let k = index.match_title(w);
        if k.method != MatchMethod::None {
            return TitleMatch {
                method: MatchMethod::Alias,
                ..k
            };
        }
    }
    TitleMatch::unmatched()
}

/// A node in pre-order with its ancestors' names (outermost first) and
/// whether an ancestor is an exhibit.
struct Placed<'a> {
    node: &'a Node,
    parents: Vec<String>,
    in_exhibit: bool,
    /// Whether an ancestor is a blank form (`Form of ...`).
    in_form: bool,
    /// An exhibit or schedule heading that opens the document (nothing but
    /// a preamble or contents before it): the filing's own exhibit label
    /// over the agreement (`EXHIBIT D JOINT FILING AGREEMENT`), not an
    /// attachment to it.
    opens_document: bool,
}

/// `EXHIBIT 10.1`, `Exhibit 99.2 ...`: an SEC exhibit number (a dotted
/// number), which names the filed agreement, not an attachment to it.
fn is_filing_exhibit_number(title: &str) -> bool {
    let mut w = title.split_whitespace();
    let first = w.next().unwrap_or("").to_ascii_lowercase();
    let num = w.next().unwrap_or("").trim_end_matches(['.', ':']);
    first == "exhibit"
        && num.split_once('.').is_some_and(|(a, b)| {
            !a.is_empty()
                && !b.is_empty()
                && a.chars().all(|c| c.is_ascii_digit())
                && b.chars().all(|c| c.is_ascii_alphanumeric())
                && b.chars().next().is_some_and(|c| c.is_ascii_digit())
        })
}

/// `OWNER AGREEMENT`, `ADDENDUM TO LEASE`, `TRUST AGREEMENT - FULL
/// LIABILITY`: a name whose head (before a ` - ` subtitle) names an
/// agreement of its own (agreement, contract, addendum, amendment), not a
/// reference to the main one (`TO AGREEMENT BETWEEN ...`) nor a blank form
/// (`FORM OF GUARANTY AGREEMENT`).
pub fn names_agreement(name: &str) -> bool {
    if is_form_name(name) {
        return false;
    }
    let lower = name.to_lowercase();
    let head = lower.split(" - ").next().unwrap_or("");
    let words: Vec<&str> = head
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().enumerate().any(|(i, w)| {
        matches!(*w, "agreement" | "contract" | "addendum" | "amendment")
            && (i == 0 || !matches!(words[i - 1], "to" | "of" | "under" | "this" | "the"))
    })
}

/// `Form of Note`, `[Form of] Tax Compliance Certificate`: a blank form.
fn is_form_name(name: &str) -> bool {
    let l = name.trim_start_matches(['[', '(', ' ']).to_lowercase();
    l.starts_with("form of ") || l.starts_with("form of]")
}

/// Every node in pre-order, placed.
fn placed_nodes(tree: &DocTree) -> Vec<Placed<'_>> {
    fn walk<'a>(
        nodes: &'a [Node],
        parents: &mut Vec<String>,
        (in_exhibit, in_form): (bool, bool),
        out: &mut Vec<Placed<'a>>,
    ) {
        let mut opening = parents.is_empty();
        for n in nodes {
            let opens_document =
                opening && matches!(n.kind, NodeKind::Exhibit | NodeKind::Schedule);
            opening &= matches!(n.kind, NodeKind::Preamble | NodeKind::Toc);
            out.push(Placed {
                node: n,
                parents: parents.clone(),
                in_exhibit,
                in_form,
                opens_document,
            });
            let name = heading_name(n);
            let attached = n.kind == NodeKind::Exhibit
                && !opens_document
                && !is_filing_exhibit_number(&n.title)
                && !names_agreement(&name);
            let form = in_form
                || (matches!(n.kind, NodeKind::Exhibit | NodeKind::Schedule)
                    && is_form_name(&name));
            parents.push(name);
            walk(&n.nodes, parents, (in_exhibit || attached, form), out);
            parents.pop();
        }
    }
    let mut out = Vec::new();
    walk(&tree.structure, &mut Vec::new(), (false, false), &mut out);
    out
}

/// A heading with children whose own span is at most this long is only
/// their lead-in, when the tree has no text to look at (a gold heading
/// list). With text, the tree decides: a heading with children and no text
/// of its own, or only the lead-in line that introduces its clauses, is
/// `structural`; one with a clause of its own (run onto its line or below)
/// is routed by its title like any section. Either way the children are
/// routed by their own titles, with this heading in their breadcrumb
/// (Proxy-Pointer's near-empty structural rule).
pub const LEAD_IN_CHARS: usize = 400;

/// Whether a section read from a text holds more than its title, line
/// breaks and a page number: `[Reserved]` followed by the next clause that
/// ran into it (`17. [RESERVED.] 18. Assignment: The license ...`).
fn has_own_text(node: &crate::tree::Node) -> bool {
    node.end_byte > 0 && node.chars > node.title.chars().count() + 100
}

/// Routes every node of a tree. No LLM, no network.
///
/// Structural headings, lead-ins of headings with children and `[Reserved]`
/// sections route nowhere ([`Route::Empty`]); the preamble always goes to
/// the LLM (the parties live there); tables of contents, signature pages and noise titles
/// are [`Route::Noise`]; Very High/High/Medium and unknown titles go to the
/// LLM; Low/Very Low are skipped unless `--calibrate` or the audit sample
/// sends them (recorded in `override_reason`). Noise and empty sections are
/// never sent, even when calibrating.
pub fn plan(tree: &DocTree, index: &GraphabilityIndex, opts: &RouteOptions) -> RoutePlan {
    let sections = placed_nodes(tree)
        .into_iter()
        .map(|p| {
            let node = p.node;
            // A preamble or fallback node has no heading of its own: its
            // title (`Document`, the agreement's name) says nothing about
            // its text, so it is never matched and always sent.
            let matched = match node.kind {
                NodeKind::Preamble => preamble_match(index),
                NodeKind::Fallback => TitleMatch::unmatched(),
                _ => match_node(&p, &tree.party_names, index),
            };
            let heading_only =
                !node.nodes.is_empty() && node.end_byte == 0 && node.chars <= LEAD_IN_CHARS;
            let (mut route, predicted_tier) = match node.kind {
                NodeKind::Structural => (Route::Empty, None),
                NodeKind::Preamble => (Route::Llm, matched.tier),
                NodeKind::Fallback => (Route::Llm, None),
                _ if heading_only => (Route::Empty, None),
                NodeKind::Toc | NodeKind::Signature => (Route::Noise, None),
                // `[Reserved]` with text after it: the next clause ran into
                // it, so it is read as a new section.
                _ if matched.reserved && !has_own_text(node) => (Route::Empty, None),
                _ if matched.reserved => (Route::Llm, None),
                // A section the tree kept as a clause although it is named
                // as the signature pages (`12.9. Signatures. This Agreement
                // may be signed in counterparts ...`): its title is no reason
                // to drop it.
                _ if matched.noise
                    && !(node.kind == NodeKind::Section
                        && crate::tree::names_signature_pages(&node.name)) =>
                {
                    (Route::Noise, None)
                }
                _ => match matched.tier {
                    Some(t) if t.is_sent() => (Route::Llm, Some(t)),
                    Some(t) => (Route::Skip, Some(t)),
                    None => (Route::Llm, None),
                },
            };
            let mut override_reason = Override::None;
            if route == Route::Skip {
                if opts.calibrate {
                    route = Route::Llm;
                    override_reason = Override::Calibrate;
                } else if audit_pick(&tree.doc_id, &node.node_id, opts.audit_rate) {
                    route = Route::Llm;
                    override_reason = Override::Audit;
                }
            }
            RoutedSection {
                node_id: node.node_id.clone(),
                title: node.title.clone(),
                label: node.label.clone(),
                name: node.name.clone(),
                breadcrumb: node.breadcrumb.clone(),
                kind: node.kind,
                level: node.level,
                start_line: node.start_line,
                end_line: node.end_line,
                start_byte: node.start_byte,
                end_byte: node.end_byte,
                chars: node.chars,
                matched,
                predicted_tier,
                route,
                override_reason,
                paragraphs: Vec::new(),
            }
        })
        .collect();
    RoutePlan {
        doc_id: tree.doc_id.clone(),
        doc_name: tree.doc_name.clone(),
        doc_type: index.document_type.clone(),
        doc_type_confidence: 1.0,
        sections,
        tree_health: tree.health.clone(),
    }
}

/// The name a section is asked about in the LLM title mapping: the tree's
/// name (the title without its label); `None` for a label-only heading.
pub fn mapping_name(s: &RoutedSection) -> Option<String> {
    let name = s.name.trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// The still-unmatched titles of a plan that the LLM title mapping may
/// resolve: routed sections with no entry (not the preamble, not noise or
/// reserved), each once.
/// Linear: names seen are kept in a set (a scan of `out` per title took
/// 77 s on a document of 100,000 headings).
pub fn unmatched_titles(plan: &RoutePlan) -> Vec<crate::index::llm_titles::TitleQuery> {
    let mut out: Vec<crate::index::llm_titles::TitleQuery> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for s in &plan.sections {
        if s.kind == NodeKind::Preamble
            || s.route != Route::Llm
            || s.predicted_tier.is_some()
            || s.matched.method != MatchMethod::None
        {
            continue;
        }
        let Some(name) = mapping_name(s) else {
            continue;
        };
        if seen.insert(name.clone()) {
            out.push(crate::index::llm_titles::TitleQuery {
                name,
                breadcrumb: s.breadcrumb.clone(),
            });
        }
    }
    out
}

/// Applies an LLM title mapping to a plan: each mapped section takes its
/// entry's tier (method `llm`) and is routed by it, with the same
/// calibrate and audit overrides as [`plan`]. Returns how many changed.
pub fn apply_title_mapping(
    plan: &mut RoutePlan,
    index: &GraphabilityIndex,
    mapping: &crate::index::llm_titles::TitleMapping,
    opts: &RouteOptions,
) -> usize {
    let mut changed = 0;
    for s in &mut plan.sections {
        if matches!(s.kind, NodeKind::Preamble | NodeKind::Fallback)
            || s.route != Route::Llm
            || s.predicted_tier.is_some()
            || s.matched.method != MatchMethod::None
        {
            continue;
        }
        let Some(entry) = mapping_name(s).and_then(|n| mapping.get(&n)) else {
            continue;
        };
        let m = index.match_title(entry);
        let Some(tier) = m.tier else { continue };
        s.matched = TitleMatch {
            method: MatchMethod::Llm,
            score: 0.0,
            runner_up: None,
            runner_up_score: 0.0,
            ..m
        };
        s.predicted_tier = Some(tier);
        if !tier.is_sent() {
            if opts.calibrate {
                s.override_reason = Override::Calibrate;
            } else if audit_pick(&plan.doc_id, &s.node_id, opts.audit_rate) {
                s.override_reason = Override::Audit;
            } else {
                s.route = Route::Skip;
            }
        }
        changed += 1;
    }
    changed
}

/// Reads a document, builds its tree, picks its document type from `set`
/// (`forced` is `--doc-type`) and routes it with that type's index. A
/// document that fits no index is routed with an empty one: every section
/// new (sent), its type `unknown`, never silently another type.
pub fn plan_document_in(
    path: &Path,
    set: &crate::index::IndexSet,
    forced: Option<&str>,
    opts: &RouteOptions,
    lossy: bool,
) -> anyhow::Result<(SourceText, DocTree, RoutePlan, crate::index::DocTypeGuess)> {
    let source = SourceText::read(path, lossy)?;
    let tree = build_tree(&source);
    let (index, guess) = set
        .choose(&tree, &source, forced)
        .map_err(anyhow::Error::msg)?;
    let mut plan = match index {
        Some(i) => plan(&tree, i, opts),
        None => {
            let mut empty = GraphabilityIndex::default();
            empty.document_type = guess.name.clone();
            plan(&tree, &empty, opts)
        }
    };
    route_content(&mut plan, &source, opts, index)?;
    Ok((source, tree, plan, guess))
}

/// Routes `plan`'s paragraphs by content when `opts` asks and a model
/// knows the document's type (the family's learned model beside `index`,
/// else the shipped one), reviewers' decisions first; a plan routed
/// before (a title mapped since) is routed again from its titles.
pub fn route_content(
    plan: &mut RoutePlan,
    source: &SourceText,
    opts: &RouteOptions,
    index: Option<&GraphabilityIndex>,
) -> anyhow::Result<()> {
    // A calibrated batch measures every section's actual tier on the whole
    // section, as `--calibrate` says: a section cut to its scored pieces
    // would be measured, and learned from, on part of its text.
    if !opts.content || opts.calibrate {
        return Ok(());
    }
    if let Some(scorer) = content::scorer_for(&plan.doc_type, index)? {
        let none = crate::index::reviewed::ReviewedParagraphs::default();
        content::route_by_content(
            plan,
            source,
            scorer.model,
            &scorer.thresholds,
            index.map_or(&none, |i| &i.reviewed),
        );
    }
    Ok(())
}

/// Reads a document, builds its tree and routes it: the whole no-LLM front
/// half of the pipeline for one file (used by `plan` and `ingest`).
pub fn plan_document(
    path: &Path,
    index: &GraphabilityIndex,
    opts: &RouteOptions,
    lossy: bool,
) -> anyhow::Result<(SourceText, DocTree, RoutePlan)> {
    let source = SourceText::read(path, lossy)?;
    let tree = build_tree(&source);
    let plan = plan(&tree, index, opts);
    Ok((source, tree, plan))
}

#[cfg(test)]
mod tests;
