//! Graphability index: the per-document-type YAML that predicts a section's
//! graph value from its title, and the matcher that looks titles up in it.
//!
//! Owns the YAML format (tiers, anchors, noise, match settings, ontology,
//! density thresholds), its validation (`kgroute index check`) and title
//! matching. Hands a [`TitleMatch`] per section to the routing stage.

pub mod normalize;

pub use normalize::normalize_title;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The five graphability tiers, highest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    VeryHigh,
    High,
    Medium,
    Low,
    VeryLow,
}

impl Tier {
    pub const ALL: [Tier; 5] = [
        Tier::VeryHigh,
        Tier::High,
        Tier::Medium,
        Tier::Low,
        Tier::VeryLow,
    ];

    /// 4 for Very High down to 0 for Very Low; tier distance is the
    /// difference of ranks.
    pub fn rank(self) -> u8 {
        match self {
            Tier::VeryHigh => 4,
            Tier::High => 3,
            Tier::Medium => 2,
            Tier::Low => 1,
            Tier::VeryLow => 0,
        }
    }

    /// Very High, High and Medium sections are worth an LLM call.
    pub fn is_sent(self) -> bool {
        self.rank() >= 2
    }

    /// The YAML key: `very_high`, `high`, ...
    pub fn key(self) -> &'static str {
        match self {
            Tier::VeryHigh => "very_high",
            Tier::High => "high",
            Tier::Medium => "medium",
            Tier::Low => "low",
            Tier::VeryLow => "very_low",
        }
    }

    /// Parses a YAML key or a human label (`very high`, `Very High`, `very-high`).
    pub fn parse(s: &str) -> Option<Tier> {
        let k: String = s
            .trim()
            .to_ascii_lowercase()
            .chars()
            .map(|c| if c == ' ' || c == '-' { '_' } else { c })
            .collect();
        Tier::ALL.into_iter().find(|t| t.key() == k)
    }
}

impl std::fmt::Display for Tier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Tier::VeryHigh => "Very High",
            Tier::High => "High",
            Tier::Medium => "Medium",
            Tier::Low => "Low",
            Tier::VeryLow => "Very Low",
        })
    }
}

/// Allowed entity and relation types, each with a one-line meaning. Lives in
/// the index YAML (`ontology:` block) so each document type has its own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ontology {
    pub entity_types: BTreeMap<String, String>,
    pub relation_types: BTreeMap<String, String>,
}

/// Relations per 1,000 characters at or above which a section earns a tier
/// (the actual tier from relational density).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DensityThresholds {
    pub very_high: f64,
    pub high: f64,
    pub medium: f64,
    pub low: f64,
}

impl Default for DensityThresholds {
    fn default() -> Self {
        Self {
            very_high: 4.0,
            high: 2.0,
            medium: 1.0,
            low: 0.3,
        }
    }
}

impl DensityThresholds {
    pub fn tier_for(&self, relations: usize, chars: usize) -> Tier {
        let density = relations as f64 * 1000.0 / chars.max(1) as f64;
        if density >= self.very_high {
            Tier::VeryHigh
        } else if density >= self.high {
            Tier::High
        } else if density >= self.medium {
            Tier::Medium
        } else if density >= self.low {
            Tier::Low
        } else {
            Tier::VeryLow
        }
    }
}

/// How a title was matched to an index entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchMethod {
    Exact,
    Alias,
    Fuzzy,
    None,
}

/// The result of looking a section title up in the index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TitleMatch {
    /// Canonical title of the matched entry.
    pub entry: Option<String>,
    pub method: MatchMethod,
    /// 1.0 for exact and alias matches; token similarity for fuzzy ones.
    pub score: f64,
    pub tier: Option<Tier>,
    /// Pinned Very High as an ontological anchor.
    pub anchor: bool,
    /// A noise title (table of contents, signature page, ...).
    pub noise: bool,
    /// `[Reserved]`: an empty section that routes nowhere.
    pub reserved: bool,
}

/// A loaded, validated index (base plus overlays, later files win).
#[derive(Debug, Clone)]
pub struct GraphabilityIndex {
    pub document_type: String,
    pub version: String,
    pub description: String,
    pub ontology: Ontology,
    pub density: DensityThresholds,
    /// The files it was loaded from, base first.
    pub sources: Vec<PathBuf>,
}
