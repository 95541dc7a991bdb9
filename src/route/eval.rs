//! Routing evaluation against expert ground truth (`shared/corpora/gold/`).
//!
//! The gold files rate every section of six credit agreements (tier and
//! relation estimate). To measure the router and not the tree builder, the
//! gold headings are turned into a [`DocTree`] (articles holding their
//! sections, schedules and exhibits) and routed by [`super::plan`] exactly
//! as a parsed document would be. Per document: perfect / deviation /
//! mismatch / new shares (predicted tier equal, one off, two or more off,
//! unknown title), matched-entry precision (a matched section's route is the
//! one its expert tier implies: sent iff Medium or above), Medium+ relation
//! recall, and routing cut against the oracle cut (the oracle skips exactly
//! the expert's Low / Very Low text).
//!
//! The files are split once into a tuning half (used to build the index)
//! and a checking half (reported, never tuned on): [`TUNING`], [`CHECKING`].

use super::{plan, Route, RouteOptions};
use crate::index::{GraphabilityIndex, Tier};
use crate::tree::{DocFormat, DocTree, Node, NodeKind};
use serde::Deserialize;
use std::path::Path;

/// Gold files used to build and tune the shipped index.
pub const TUNING: &[&str] = &[
    "american_tower_2020_term_loan",
    "figgie_1995",
    "loan_and_security_2023",
];
/// Gold files held out: the figures the targets are judged on.
pub const CHECKING: &[&str] = &[
    "irt_property_1995_loan",
    "real_estate_2020_loan_agreement",
    "tampa_electric_2020",
];
/// Wide credit agreements without gold, same split (vocabulary only).
pub const WIDE_TUNING: &[&str] = &[
    "altalink_2020",
    "att_capital_500m_1995",
    "epr_properties_2020_amendment",
    "jones_cable_1995",
    "ppg_2020_364day_term_loan",
    "second_amendment_2020",
];
pub const WIDE_CHECKING: &[&str] = &[
    "amendment_no1_2022",
    "elysium_energy_2020_term_loan",
    "gulfport_2020_amendment",
    "kimco_2023_amendment",
    "revolving_2023_second_amendment",
    "sixth_amendment_2022",
];

/// The other document types of the wide set (no gold): per folder, the
/// tuning files their indices were built from and the held-out ones. Where
/// an index header names its tuning files (M&A) this follows it; otherwise
/// the folder's files alternate in alphabetical order, first one tuning.
pub const WIDE_OTHER: &[(&str, &[&str], &[&str])] = &[
    (
        "leases",
        &["blucora_2019_office_lease", "pnk_2020_lease"],
        &[
            "dc_government_2020_in_lease",
            "seaport_east_2020_office_lease",
        ],
    ),
    (
        "m_and_a",
        &[
            "adams_resources_2020_asset_purchase",
            "gain_capital_2020_merger",
        ],
        &["king_kylie_2020_purchase", "pier1_2020_asset_purchase"],
    ),
    (
        "commercial",
        &[
            "azul_2017_maintenance",
            "bonton_2018_agency",
            "ceres_2012_collaboration",
            "cytodyn_2020_license",
            "fis_2009_ip_agreement",
            "loyaltypoint_2004_reseller",
            "mrs_fields_1998_franchise",
            "phasebio_2020_development",
            "summa_four_1998_software_license",
            "vericel_2019_supply",
        ],
        &[
            "bellicum_2019_supply",
            "buffalo_wild_wings_1998_franchise",
            "changepoint_2000_license_hosting",
            "dova_2018_promotion",
            "gran_tierra_2012_transportation",
            "moelis_2014_strategic_alliance",
            "ofg_2007_outsourcing",
            "reynolds_2020_service",
            "upjohn_2020_manufacturing_supply",
            "zogenix_2019_distributor",
        ],
    ),
];

#[derive(Debug, Deserialize)]
struct GoldHeading {
    line: usize,
    kind: String,
    #[serde(default)]
    label: String,
    title: String,
}

#[derive(Debug, Deserialize)]
struct GoldSection {
    line: usize,
    end_line: usize,
    title: String,
    chars: usize,
    relations_est: usize,
    tier: String,
}

#[derive(Debug, Deserialize)]
struct GoldFile {
    file: String,
    headings: Vec<GoldHeading>,
    sections: Vec<GoldSection>,
}

/// The figures of one document (or a sum of documents).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalFigures {
    pub name: String,
    pub sections: usize,
    pub perfect: usize,
    pub deviation: usize,
    pub mismatch: usize,
    pub new: usize,
    /// Matched sections whose route agrees with the expert tier.
    pub decision_right: usize,
    pub relations_medium_plus: usize,
    pub relations_kept: usize,
    pub chars_total: usize,
    pub chars_cut: usize,
    pub chars_oracle: usize,
    /// `(title, gold tier, predicted tier or new, entry)` of every section
    /// whose route disagrees with the expert, for tuning.
    /// (title, gold tier, predicted tier, matched entry, gold relations).
    pub misses: Vec<(String, Tier, Option<Tier>, String, usize)>,
    /// Every rated section's outcome, for [`hindsight`].
    pub outcomes: Vec<SectionOutcome>,
}

/// How one rated section was routed, against its expert tier.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionOutcome {
    /// The matched index entry; `None` for a new section or one the title
    /// does not decide (noise, empty lead-in, reserved).
    pub entry: Option<String>,
    pub sent: bool,
    pub gold_sent: bool,
    pub relations: usize,
    pub chars: usize,
}

impl EvalFigures {
    fn share(&self, n: usize) -> f64 {
        100.0 * n as f64 / self.sections.max(1) as f64
    }
    pub fn new_share(&self) -> f64 {
        self.share(self.new)
    }
    pub fn precision(&self) -> f64 {
        let matched = self.perfect + self.deviation + self.mismatch;
        100.0 * self.decision_right as f64 / matched.max(1) as f64
    }
    pub fn recall(&self) -> f64 {
        100.0 * self.relations_kept as f64 / self.relations_medium_plus.max(1) as f64
    }
    pub fn cut(&self) -> f64 {
        100.0 * self.chars_cut as f64 / self.chars_total.max(1) as f64
    }
    pub fn oracle(&self) -> f64 {
        100.0 * self.chars_oracle as f64 / self.chars_total.max(1) as f64
    }
    /// Routing cut as a share of the oracle cut.
    pub fn cut_of_oracle(&self) -> f64 {
        100.0 * self.chars_cut as f64 / self.chars_oracle.max(1) as f64
    }

    fn add(&mut self, o: &EvalFigures) {
        self.sections += o.sections;
        self.perfect += o.perfect;
        self.deviation += o.deviation;
        self.mismatch += o.mismatch;
        self.new += o.new;
        self.decision_right += o.decision_right;
        self.relations_medium_plus += o.relations_medium_plus;
        self.relations_kept += o.relations_kept;
        self.chars_total += o.chars_total;
        self.chars_cut += o.chars_cut;
        self.chars_oracle += o.chars_oracle;
        self.outcomes.extend(o.outcomes.iter().cloned());
    }

    /// Sum of several documents (shares then are pooled).
    pub fn sum(name: &str, docs: &[EvalFigures]) -> EvalFigures {
        let mut t = EvalFigures {
            name: name.into(),
            ..Default::default()
        };
        for d in docs {
            t.add(d);
        }
        t
    }

    /// One line of the report table.
    pub fn row(&self) -> String {
        format!(
            "{:<34} {:>4} {:>6.1} {:>6.1} {:>6.1} {:>6.1} {:>7.1} {:>7.1} {:>6.1} {:>6.1} {:>7.1}",
            self.name,
            self.sections,
            self.share(self.perfect),
            self.share(self.deviation),
            self.share(self.mismatch),
            self.new_share(),
            self.precision(),
            self.recall(),
            self.cut(),
            self.oracle(),
            self.cut_of_oracle(),
        )
    }

    pub const HEADER: &'static str = "document                           secs perf%   dev%   mis%   new%  prec%  rel+%   cut% oracle% cut/or%";
}

/// The gold headings of one file as a tree: articles hold the sections
/// that follow them; schedules and exhibits stand alone.
fn gold_tree(g: &GoldFile) -> DocTree {
    let chars_at = |line: usize| {
        g.sections
            .iter()
            .find(|s| s.line == line)
            .map_or(0, |s| s.chars)
    };
    let mut structure: Vec<Node> = Vec::new();
    let first = g.headings.first().map_or(usize::MAX, |h| h.line);
    let pre = g.sections.iter().find(|s| s.line < first);
    let mut id = 0usize;
    let mut node = |title: &str, line: usize, kind: NodeKind, level: u8, chars: usize| {
        let (label, name) = crate::tree::split_heading(title);
        let n = Node {
            title: title.to_string(),
            label,
            name,
            node_id: format!("{id:04}"),
            line_num: line,
            start_line: line,
            end_line: line,
            // A gold heading list has no text to point into.
            start_byte: 0,
            end_byte: 0,
            level,
            chars,
            breadcrumb: title.to_string(),
            kind,
            nodes: Vec::new(),
        };
        id += 1;
        n
    };
    if let Some(p) = pre {
        structure.push(node(&p.title, p.line, NodeKind::Preamble, 1, p.chars));
    }
    // Sections nest by their dotted labels (`2.1.3` under `2.1` under
    // article 2), as the tree builder nests them; an unnumbered section sits
    // under the current article.
    let mut in_article = false;
    let mut open: Vec<String> = Vec::new();
    for h in &g.headings {
        let chars = chars_at(h.line);
        match h.kind.as_str() {
            "article" => {
                structure.push(node(&h.title, h.line, NodeKind::Section, 1, chars));
                in_article = true;
                open.clear();
            }
            "section" => {
                while open
                    .last()
                    .is_some_and(|p| !h.label.starts_with(&format!("{p}.")))
                {
                    open.pop();
                }
                let level = 1 + u8::from(in_article) + open.len() as u8;
                let n = node(&h.title, h.line, NodeKind::Section, level, chars);
                let mut siblings = &mut structure;
                for _ in 0..(level - 1) {
                    siblings = &mut siblings.last_mut().expect("parent").nodes;
                }
                siblings.push(n);
                if h.label.chars().any(|c| c.is_ascii_digit()) {
                    open.push(h.label.clone());
                }
            }
            "schedule" => {
                in_article = false;
                open.clear();
                structure.push(node(&h.title, h.line, NodeKind::Schedule, 1, chars));
            }
            _ => {
                in_article = false;
                open.clear();
                structure.push(node(&h.title, h.line, NodeKind::Exhibit, 1, chars));
            }
        }
    }
    DocTree {
        doc_name: g.file.clone(),
        doc_id: g.file.clone(),
        line_count: g.sections.last().map_or(0, |s| s.end_line),
        format: DocFormat::Text,
        structure,
        health: Default::default(),
        party_names: Vec::new(),
    }
}

/// Evaluates one gold file with an index.
pub fn evaluate_file(path: &Path, index: &GraphabilityIndex) -> anyhow::Result<EvalFigures> {
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let g: GoldFile = serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{}: not a gold file: {e}", path.display()))?;
    let tree = gold_tree(&g);
    let p = plan(&tree, index, &RouteOptions::default());
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().replace("wide__credit_agreements__", ""))
        .unwrap_or_default();
    let mut f = EvalFigures {
        name,
        ..Default::default()
    };
    for s in &g.sections {
        let gold = Tier::parse(&s.tier)
            .ok_or_else(|| anyhow::anyhow!("{}: unknown tier `{}`", path.display(), s.tier))?;
        let Some(r) = p.sections.iter().find(|r| r.start_line == s.line) else {
            continue;
        };
        let sent = r.route == Route::Llm;
        f.chars_total += s.chars;
        if !sent {
            f.chars_cut += s.chars;
        }
        if !gold.is_sent() {
            f.chars_oracle += s.chars;
        } else {
            f.relations_medium_plus += s.relations_est;
            if sent {
                f.relations_kept += s.relations_est;
            }
        }
        let decided = matches!(r.route, Route::Llm | Route::Skip);
        f.outcomes.push(SectionOutcome {
            entry: r
                .matched
                .entry
                .clone()
                .filter(|_| decided && r.predicted_tier.is_some()),
            sent,
            gold_sent: gold.is_sent(),
            relations: s.relations_est,
            chars: s.chars,
        });
        if !decided {
            continue;
        }
        f.sections += 1;
        match r.predicted_tier {
            None => f.new += 1,
            Some(t) => {
                match t.rank().abs_diff(gold.rank()) {
                    0 => f.perfect += 1,
                    1 => f.deviation += 1,
                    _ => f.mismatch += 1,
                }
                if sent == gold.is_sent() {
                    f.decision_right += 1;
                }
            }
        }
        if sent != gold.is_sent() || r.predicted_tier.is_none() {
            f.misses.push((
                s.title.clone(),
                gold,
                r.predicted_tier,
                r.matched.entry.clone().unwrap_or_default(),
                s.relations_est,
            ));
        }
    }
    Ok(f)
}

/// The ceiling of title-only routing on some documents, with hindsight:
/// every matched entry routed the way the majority of *these* documents'
/// expert tiers for it says (a tie sends), everything else as routed. An
/// index fitted to the very files it is judged on can do no better with
/// the same matches, so a target above this line needs better matching or
/// evidence beyond the title, not another tier change.
pub fn hindsight(docs: &[EvalFigures]) -> Ceiling {
    routed_by_votes(docs, docs)
}

/// The documents `judged` routed the way the experts of `voters` mostly
/// rate each matched entry (a tie sends); an entry `voters` never rated
/// keeps its route. With the tuning half voting and the checking half
/// judged, this is the best a tuning-grounded index could do per entry.
pub fn routed_by_votes(voters: &[EvalFigures], judged: &[EvalFigures]) -> Ceiling {
    use std::collections::HashMap;
    let mut votes: HashMap<&str, (usize, usize)> = HashMap::new();
    for o in voters.iter().flat_map(|d| &d.outcomes) {
        if let Some(e) = &o.entry {
            let v = votes.entry(e.as_str()).or_default();
            if o.gold_sent {
                v.0 += 1;
            } else {
                v.1 += 1;
            }
        }
    }
    let all: Vec<&SectionOutcome> = judged.iter().flat_map(|d| &d.outcomes).collect();
    let mut c = Ceiling::default();
    for o in all {
        let sent = match o.entry.as_deref().and_then(|e| votes.get(e)) {
            Some((send, skip)) => send >= skip,
            None => o.sent,
        };
        if !sent {
            c.chars_cut += o.chars;
        }
        if o.gold_sent {
            c.relations_medium_plus += o.relations;
            if sent {
                c.relations_kept += o.relations;
            }
        } else {
            c.chars_oracle += o.chars;
        }
        if o.entry.is_some() {
            c.matched += 1;
            c.decision_right += usize::from(sent == o.gold_sent);
        }
    }
    c
}

/// The figures of [`hindsight`] routing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ceiling {
    pub matched: usize,
    pub decision_right: usize,
    pub relations_medium_plus: usize,
    pub relations_kept: usize,
    pub chars_cut: usize,
    pub chars_oracle: usize,
}

impl Ceiling {
    pub fn precision(&self) -> f64 {
        100.0 * self.decision_right as f64 / self.matched.max(1) as f64
    }
    pub fn recall(&self) -> f64 {
        100.0 * self.relations_kept as f64 / self.relations_medium_plus.max(1) as f64
    }
    pub fn cut_of_oracle(&self) -> f64 {
        100.0 * self.chars_cut as f64 / self.chars_oracle.max(1) as f64
    }
}

/// The largest share of the characters (percent) that routing whole
/// sections could leave out of `docs` while keeping at least `keep` (a
/// fraction) of the relations of the sections the experts rate Medium or
/// above, knowing every section's rating: the oracle's cut, plus rated
/// sections without relations, plus the longest set of rated sections
/// whose relations fit in the share that may be lost (a 0/1 knapsack). No
/// routing of whole sections, by titles or by content, cuts more at that
/// recall on these documents.
pub fn most_cut_keeping(docs: &[EvalFigures], keep: f64) -> f64 {
    let outcomes = || docs.iter().flat_map(|d| &d.outcomes);
    let total: usize = outcomes().map(|o| o.chars).sum();
    let relations: usize = outcomes()
        .filter(|o| o.gold_sent)
        .map(|o| o.relations)
        .sum();
    let free: usize = outcomes()
        .filter(|o| !o.gold_sent || o.relations == 0)
        .map(|o| o.chars)
        .sum();
    let budget = (relations as f64 * (1.0 - keep)).floor() as usize;
    // best[b]: the most characters left out losing at most b relations.
    let mut best = vec![0usize; budget + 1];
    for o in outcomes().filter(|o| o.gold_sent && o.relations > 0) {
        for b in (o.relations..=budget).rev() {
            best[b] = best[b].max(best[b - o.relations] + o.chars);
        }
    }
    100.0 * (free + best[budget]) as f64 / total.max(1) as f64
}

/// The median of some values (0 for none).
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-checked: 1,000 characters, 100 Medium+ relations; at 98% two
    /// relations may go, and the best use of them is the 300-character
    /// section with 2 (not the 100-character one with 1).
    #[test]
    fn the_most_cut_keeping_a_recall_is_the_best_set_of_sections() {
        let o = |gold_sent: bool, relations: usize, chars: usize| SectionOutcome {
            entry: None,
            sent: true,
            gold_sent,
            relations,
            chars,
        };
        let doc = EvalFigures {
            outcomes: vec![
                o(false, 3, 200), // rated Low: the oracle's
                o(true, 0, 50),   // rated Medium+ with nothing in it
                o(true, 2, 300),
                o(true, 1, 100),
                o(true, 97, 350),
            ],
            ..Default::default()
        };
        assert!((most_cut_keeping(std::slice::from_ref(&doc), 0.98) - 55.0).abs() < 1e-9);
        assert!((most_cut_keeping(std::slice::from_ref(&doc), 1.0) - 25.0).abs() < 1e-9);
        assert!((most_cut_keeping(&[doc], 0.97) - 65.0).abs() < 1e-9);
    }

    fn outcome(entry: Option<&str>, sent: bool, gold_sent: bool, rel: usize) -> SectionOutcome {
        SectionOutcome {
            entry: entry.map(str::to_string),
            sent,
            gold_sent,
            relations: rel,
            chars: 100,
        }
    }

    #[test]
    fn hindsight_routes_each_entry_by_the_experts_majority_across_documents() {
        let a = EvalFigures {
            outcomes: vec![
                // `Interest`: sent twice by the experts, skipped once; the
                // index skipped it everywhere.
                outcome(Some("Interest"), false, true, 4),
                outcome(Some("Interest"), false, false, 1),
                // `Notices`: a tie sends.
                outcome(Some("Notices"), false, true, 2),
                // A new section keeps its own route (sent).
                outcome(None, true, false, 1),
            ],
            ..Default::default()
        };
        let b = EvalFigures {
            outcomes: vec![
                outcome(Some("Interest"), false, true, 6),
                outcome(Some("Notices"), false, false, 0),
            ],
            ..Default::default()
        };
        let c = hindsight(&[a, b]);
        assert_eq!(c.matched, 5);
        // Interest and Notices both sent: right where the expert sends.
        assert_eq!(c.decision_right, 3);
        assert_eq!((c.relations_kept, c.relations_medium_plus), (12, 12));
        // Nothing skipped: no cut, though the experts would skip 300 chars.
        assert_eq!((c.chars_cut, c.chars_oracle), (0, 300));
        assert_eq!(c.recall(), 100.0);
    }

    #[test]
    fn votes_of_one_half_route_the_other_and_unrated_entries_keep_their_route() {
        let voters = EvalFigures {
            outcomes: vec![
                outcome(Some("Interest"), false, true, 4),
                outcome(Some("Taxes"), true, false, 0),
            ],
            ..Default::default()
        };
        let judged = EvalFigures {
            outcomes: vec![
                // Skipped by the index, sent by the voters: now sent, wrong here.
                outcome(Some("Interest"), false, false, 0),
                // Sent by the index, skipped by the voters: now skipped, and
                // its 5 relations are lost.
                outcome(Some("Taxes"), true, true, 5),
                // Never rated by the voters: keeps the index's skip.
                outcome(Some("Notices"), false, false, 0),
            ],
            ..Default::default()
        };
        let c = routed_by_votes(&[voters], &[judged]);
        assert_eq!((c.matched, c.decision_right), (3, 1));
        assert_eq!((c.relations_kept, c.relations_medium_plus), (0, 5));
        assert_eq!((c.chars_cut, c.chars_oracle), (200, 200));
    }
}
