//! Graphability index: the per-document-type YAML that predicts a section's
//! graph value from its title, and the matcher that looks titles up in it.
//!
//! Owns the YAML format (tiers, anchors, noise, match settings, ontology,
//! density thresholds), its validation (`kgroute index check`) and title
//! matching. Hands a [`TitleMatch`] per section to the routing stage.

pub mod check;
pub mod concepts;
pub mod doctype;
pub mod llm_titles;
pub mod load;
pub mod matcher;
mod memo;
pub mod normalize;
pub mod patterns;
pub mod reviewed;
pub mod tokens;
pub mod yaml_guard;

pub use check::Problem;
pub use doctype::{DocTypeGuess, IndexSet};
pub use load::{check_files, IndexError};
pub use matcher::MatchContext;
pub use normalize::{normalize_heading, normalize_name, normalize_title};

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
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
    /// Relation type -> the entity types it may start and end at
    /// (`Organization|Person -> Role`; see [`patterns`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub relation_patterns: BTreeMap<String, String>,
    /// Relation types this document type reads but never asserts: a fact
    /// of one is held for a reviewer ([`crate::extract::Candidate`]).
    /// CUAD's clause kinds are those of commercial contracts; in a credit
    /// agreement `exclusive` names an agent's authority and `a minimum of`
    /// a loan's size, so a reading of such a kind is a question, not an
    /// answer.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub review_only: BTreeSet<String>,
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
    /// The same stems after spelling, stemming and the concept table.
    Concept,
    /// Settled by the parent heading's words (`Waivers` under a guaranty).
    Context,
    Fuzzy,
    /// Mapped by the optional LLM title call (no similarity score).
    Llm,
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
    /// The next-best entry and its score, so a reviewer sees how close the
    /// choice was (for an unmatched title: the best entry below threshold).
    #[serde(default)]
    pub runner_up: Option<String>,
    #[serde(default)]
    pub runner_up_score: f64,
}

/// One title of the index in its tier, after overlays were applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexEntry {
    /// Canonical title as written in the YAML.
    pub title: String,
    pub aliases: Vec<String>,
    /// Why the entry sits in its tier.
    pub note: Option<String>,
    pub tier: Tier,
    /// The file that last placed the entry in its tier, and the 1-based line
    /// of its title there (for `kgroute review --write`).
    pub source: PathBuf,
    pub line: usize,
}

/// Default `match.fuzzy_threshold` when a file does not set one (IDF-weighted
/// Dice similarity of stems).
pub const DEFAULT_FUZZY_THRESHOLD: f64 = 0.75;

impl TitleMatch {
    /// No entry matched (a new section until the index learns its title).
    pub fn unmatched() -> TitleMatch {
        TitleMatch {
            entry: None,
            method: MatchMethod::None,
            score: 0.0,
            tier: None,
            anchor: false,
            noise: false,
            reserved: false,
            runner_up: None,
            runner_up_score: 0.0,
        }
    }
}

/// A loaded, validated index (base plus overlays, later files win).
///
/// Build it with [`GraphabilityIndex::load`] (files) or
/// [`GraphabilityIndex::from_yaml_str`] (tests); look titles up with
/// [`GraphabilityIndex::match_title`].
#[derive(Debug, Clone)]
pub struct GraphabilityIndex {
    pub document_type: String,
    pub version: String,
    pub description: String,
    pub ontology: Ontology,
    pub density: DensityThresholds,
    /// The files it was loaded from, base first.
    pub sources: Vec<PathBuf>,
    /// Entries in file order, grouped by nothing; each knows its tier.
    entries: Vec<IndexEntry>,
    /// Ontological anchors, pinned Very High.
    anchors: Vec<String>,
    /// Titles never sent and kept out of alignment statistics.
    noise: Vec<String>,
    fuzzy_threshold: f64,
    /// How documents of this type are recognised.
    pub detect: doctype::DetectSpec,
    matcher: matcher::Matcher,
    /// Reviewers' decisions on single paragraphs, read from beside the
    /// last file ([`reviewed::path_beside`]).
    pub reviewed: reviewed::ReviewedParagraphs,
    /// The family's own paragraph model, learned from its batches and read
    /// from beside the last file ([`crate::clause_model::learned`]); routing
    /// by content reads it in place of the shipped model.
    pub learned: Option<std::sync::Arc<crate::clause_model::LearnedModel>>,
}

impl Default for GraphabilityIndex {
    /// An empty index: every title is a new section (sent to the LLM).
    fn default() -> Self {
        Self::from_parts(
            String::new(),
            String::new(),
            String::new(),
            Ontology::default(),
            DensityThresholds::default(),
            Vec::new(),
            load::Parts::default(),
        )
    }
}

impl GraphabilityIndex {
    fn from_parts(
        document_type: String,
        version: String,
        description: String,
        ontology: Ontology,
        density: DensityThresholds,
        sources: Vec<PathBuf>,
        parts: load::Parts,
    ) -> Self {
        let matcher = matcher::Matcher::new(
            &parts.entries,
            &parts.anchors,
            &parts.noise,
            &parts.concepts,
        );
        Self {
            document_type,
            version,
            description,
            ontology,
            density,
            sources,
            entries: parts.entries,
            anchors: parts.anchors,
            noise: parts.noise,
            fuzzy_threshold: parts.fuzzy_threshold.unwrap_or(DEFAULT_FUZZY_THRESHOLD),
            detect: parts.detect,
            matcher,
            reviewed: reviewed::ReviewedParagraphs::default(),
            learned: None,
        }
    }

    /// Loads a base index and its overlays (later files win). A file with an
    /// `extends:` key loads its base first. Every problem of every file is
    /// reported in the error, each with file:line:column.
    pub fn load(paths: &[PathBuf]) -> Result<Self, IndexError> {
        let mut index = load::load_files(paths)?;
        if let Some(own) = paths.last() {
            index.reviewed = reviewed::ReviewedParagraphs::load_beside(own)?;
            index.learned = load_learned(own)?;
        }
        Ok(index)
    }

    /// Parses one index from text (no `extends:`); `name` is used in errors.
    pub fn from_yaml_str(name: &str, text: &str) -> Result<Self, IndexError> {
        load::load_str(std::path::Path::new(name), text)
    }

    /// Looks a section title (numbering included) up with no context; see
    /// [`GraphabilityIndex::match_heading`].
    pub fn match_title(&self, title: &str) -> TitleMatch {
        self.matcher.match_title(title, self.fuzzy_threshold)
    }

    /// Looks a heading's name up in its context: exact, alias, concept,
    /// context (parent names), compound parts (highest tier), then fuzzy
    /// similarity with a head-concept guard (see [`matcher`]).
    pub fn match_heading(&self, name: &str, ctx: &MatchContext) -> TitleMatch {
        self.matcher.match_heading(name, ctx, self.fuzzy_threshold)
    }

    /// All entries with their final tier.
    pub fn entries(&self) -> &[IndexEntry] {
        &self.entries
    }

    /// The entry whose canonical title or alias normalises like `title`.
    pub fn entry(&self, title: &str) -> Option<&IndexEntry> {
        self.matcher
            .exact(&normalize_title(title))
            .map(|(i, _)| &self.entries[i])
    }

    pub fn anchors(&self) -> &[String] {
        &self.anchors
    }

    pub fn noise(&self) -> &[String] {
        &self.noise
    }

    pub fn fuzzy_threshold(&self) -> f64 {
        self.fuzzy_threshold
    }
}

/// The learned model beside the index file `own`, its problems reported
/// as an index's are (file and line).
fn load_learned(
    own: &std::path::Path,
) -> Result<Option<std::sync::Arc<crate::clause_model::LearnedModel>>, IndexError> {
    use crate::clause_model::learned::{LearnedModel, LoadProblem};
    match LearnedModel::load_beside(own) {
        Ok(m) => Ok(m.map(std::sync::Arc::new)),
        Err((path, LoadProblem::Io(source))) => Err(IndexError::Io { path, source }),
        Err((path, LoadProblem::Parse(e))) => Err(IndexError::Invalid {
            problems: vec![check::Problem {
                file: path,
                line: e.line,
                col: 0,
                message: e.what,
                fix: "learn it again (`kgroute index learn --write`), or remove the file to \
                      route the family by the shipped model"
                    .into(),
            }],
        }),
    }
}
