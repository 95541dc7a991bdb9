//! Routing stage: decides, per section, whether its text goes to the LLM,
//! from the predicted tier of its title. No LLM and no network.
//!
//! Takes a [`crate::tree::DocTree`] and a [`crate::index::GraphabilityIndex`];
//! hands a [`RoutePlan`] to the extraction stage.

use crate::index::{Tier, TitleMatch};
use crate::tree::NodeKind;
use serde::{Deserialize, Serialize};

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
}

/// One section of the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoutedSection {
    pub node_id: String,
    pub title: String,
    pub breadcrumb: String,
    pub kind: NodeKind,
    pub level: u8,
    pub start_line: usize,
    pub end_line: usize,
    pub chars: usize,
    pub matched: TitleMatch,
    /// Tier from the index; `None` for a new (unknown) section.
    pub predicted_tier: Option<Tier>,
    pub route: Route,
    pub override_reason: Override,
}

/// The routing decisions for one document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoutePlan {
    pub doc_id: String,
    pub doc_name: String,
    pub doc_type: String,
    pub sections: Vec<RoutedSection>,
}

/// Options that change what is sent.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RouteOptions {
    pub calibrate: bool,
    /// Fraction (0..=1) of skipped sections sent anyway, chosen
    /// deterministically from doc id and node id.
    pub audit_rate: f64,
}
