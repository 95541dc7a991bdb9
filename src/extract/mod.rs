//! Extraction stage: turns each section routed to the LLM into
//! schema-checked entities, relations and an actual graphability tier.
//!
//! Two extractors emit the same [`SectionExtraction`]: an OpenAI-compatible
//! LLM client, and the deterministic offline rules extractor that runs when
//! no LLM is configured. Hands `Vec<SectionExtraction>` per document to the
//! graph stage.
//!
//! Use: build an [`ExtractorConfig`] (its `llm` from
//! [`LlmConfig::from_env_and_flags`]; `None` means the rules extractor),
//! then `Arc::new(Extractor::new(cfg, index.ontology, index.density)?)` and
//! call [`Extractor::extract_all`] per document (concurrent documents share
//! the one concurrency bound). Documents of another type go through the same
//! extractor with that type's [`ExtractionProfile`]
//! ([`Extractor::extract_gated_with`]). [`Extractor::counters`] feeds
//! progress bars.
//!
//! Layout: `config` (settings, validation), `extractor` (the one object,
//! its bounds and counters), `pack` (a document's pieces grouped into
//! requests), `requests` (asking the LLM for a pack: fitting, retries,
//! repair, cache use), `prompt` (the messages), `answer_cache` (what is
//! cached and under which key), `rules` (offline extractor), `registry` (the document's parties under
//! every name), `validate`
//! (schema check and ontology pruning), `split` (long sections), `rating`
//! (actual tier). The HTTP client, retry policy and cache store are
//! [`crate::llm`]'s.

use crate::index::Tier;
use crate::tree::Label;
use serde::{Deserialize, Serialize};

/// What the extractor is given for one section: the whole section by its
/// line pointers, with its place in the document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SectionInput {
    pub doc_id: String,
    pub doc_type: String,
    pub node_id: String,
    /// The heading as written.
    pub title: String,
    /// The heading's numbering as the tree parsed it (`Section 5.06` ->
    /// [5, 6]); `None` for an unnumbered heading. The rules read the
    /// section's own number here, never from the title.
    #[serde(default)]
    pub label: Option<Label>,
    /// The title without its label, from the tree.
    #[serde(default)]
    pub name: String,
    pub breadcrumb: String,
    pub start_line: usize,
    pub end_line: usize,
    /// The section's own text (its byte span of the source; it starts on
    /// `start_line` and ends on `end_line`).
    pub text: String,
    /// The matched index entry is an ontological anchor (pinned Very High).
    pub anchor: bool,
    /// The document's party short names (`Miltenyi`, `Bellicum`), which
    /// its sections use as subjects (`Bellicum will pay ...`).
    #[serde(default)]
    pub parties: Vec<String>,
    /// Every party of the document with every name it goes by (defined
    /// names, short names, `Party A`, `you` / `we`), built once per
    /// document before extraction ([`rules::document_registry`]).
    #[serde(default)]
    pub registry: party_registry::PartyRegistry,
}

/// A named thing found in a section.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Entity {
    pub name: String,
    /// One of the ontology's entity types.
    #[serde(rename = "type")]
    pub entity_type: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub description: String,
}

/// A typed edge between two entities of the same section.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Relation {
    pub source: String,
    /// One of the ontology's relation types (UPPER_SNAKE_CASE).
    #[serde(rename = "type")]
    pub relation_type: String,
    pub target: String,
    #[serde(default)]
    pub evidence: String,
    /// How the offline rules read a typed fact; none for other relations
    /// and for the LLM's (the graph ignores one an LLM answer carries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<Reading>,
}

/// How a typed fact was read offline, and how sure the clause model is of
/// its paragraph: what a reviewer weighs a register cell by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Reading {
    pub basis: Basis,
    /// The clause model's score of the fact's paragraph for its category,
    /// in thousandths (a whole number keeps relations hashable); none when
    /// the model does not score the category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_permille: Option<u16>,
}

impl Reading {
    pub fn new(basis: Basis, score: Option<f32>) -> Self {
        Reading {
            basis,
            score_permille: score.map(|s| (s.clamp(0.0, 1.0) * 1000.0).round() as u16),
        }
    }

    /// The model's score, 0..=1.
    pub fn score(&self) -> Option<f32> {
        self.score_permille.map(|p| f32::from(p) / 1000.0)
    }
}

/// Which reader found a typed fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Basis {
    /// A rule fired; the clause model did not score the category, or it
    /// is a value the model does not gate.
    #[serde(rename = "rule")]
    Rule,
    /// The clause model alone, sure enough of the paragraph.
    #[serde(rename = "model")]
    Model,
    /// A rule fired where the clause model agrees.
    #[serde(rename = "rule+model")]
    RuleAndModel,
    /// An LLM asked one closed question about the paragraph said yes, and
    /// its calibration lets it decide the category.
    #[serde(rename = "llm-verified")]
    Verified,
}

impl Basis {
    pub fn as_str(self) -> &'static str {
        match self {
            Basis::Rule => "rule",
            Basis::Model => "model",
            Basis::RuleAndModel => "rule+model",
            Basis::Verified => "llm-verified",
        }
    }
}

/// An item removed after extraction, with the reason, so nothing disappears
/// silently.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pruned {
    /// `entity` or `relation`.
    pub item: String,
    pub what: String,
    pub reason: String,
}

/// An entity the extractor named only as a relation end (`"source":
/// "Agreement"` with no `Agreement` among its entities), added because the
/// section's text names it or the document's party registry knows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AddedEnd {
    /// The entity as added: `Agreement [DefinedTerm]`.
    pub what: String,
    /// Where its name was found and where its type came from.
    pub reason: String,
}

/// How a section's extraction ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "state", content = "reason")]
pub enum SectionStatus {
    /// Extracted now.
    Ok,
    /// Answered from the on-disk cache: no request made.
    Cached,
    /// Gave up after retries; the reason says why. The document continues.
    Failed(String),
}

/// A typed fact one reading found and the other did not confirm: the
/// rules fired on a paragraph the clause model does not score as a clause
/// of that kind. It is not asserted (no relation in the graph, no clause
/// kind marked present); the register lists it to check, with why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub relation: Relation,
    /// The entity type of the relation's target (`Period`, `Covenant`).
    pub target_type: String,
    /// Why it was held back, for the reviewer.
    pub why: String,
}

/// Everything the extraction stage learned about one section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SectionExtraction {
    pub doc_id: String,
    pub node_id: String,
    pub entities: Vec<Entity>,
    pub relations: Vec<Relation>,
    pub pruned: Vec<Pruned>,
    /// Entities added because a relation named them as an end without
    /// listing them ([`validate::prune_in_section`]); empty for the rules.
    #[serde(default)]
    pub ends_added: Vec<AddedEnd>,
    /// Typed facts held back for review ([`Candidate`]).
    #[serde(default)]
    pub candidates: Vec<Candidate>,
    /// The model's own rating of the section, when it gave one.
    pub model_tier: Option<Tier>,
    pub model_why: Option<String>,
    /// Tier from relational density (relations per 1,000 chars).
    pub density_tier: Tier,
    /// The tier used for alignment: the model's rating checked against
    /// density and anchors.
    pub actual_tier: Tier,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// Of `tokens_in`, the prompt tokens the server read from its prefix
    /// cache (billed at its cached rate), where it says.
    #[serde(default)]
    pub tokens_cached: u64,
    /// Which extractor produced it: `rules` or `llm:<model>`.
    pub extractor: String,
    pub status: SectionStatus,
}

pub mod answer_cache;
pub mod bill;
pub mod config;
pub mod cpu_pool;
pub mod extractor;
pub mod facts_vocabulary;
pub mod pack;
pub mod party_registry;
pub mod prompt;
pub mod rating;
pub mod requests;
pub mod review_only;
pub mod rules;
pub mod spend;
pub mod split;
pub mod validate;
pub mod verify;

pub use config::{ExtractorConfig, LlmConfig, Secret, PROMPT_VERSION};
pub use extractor::{CounterSnapshot, Counters, ExtractionProfile, Extractor};
pub use spend::Spend;

impl SectionExtraction {
    /// An extraction with nothing in it (no text, or a failure).
    pub fn blank(
        doc_id: String,
        node_id: String,
        extractor: String,
        status: SectionStatus,
    ) -> SectionExtraction {
        SectionExtraction {
            doc_id,
            node_id,
            entities: vec![],
            relations: vec![],
            pruned: vec![],
            ends_added: vec![],
            candidates: vec![],
            model_tier: None,
            model_why: None,
            density_tier: Tier::VeryLow,
            actual_tier: Tier::VeryLow,
            tokens_in: 0,
            tokens_out: 0,
            tokens_cached: 0,
            extractor,
            status,
        }
    }
}
