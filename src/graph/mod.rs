//! Graph stage: merges a document's section extractions into one in-memory
//! graph (petgraph) with resolved entity identities and provenance.
//!
//! Input: the document's [`RoutePlan`](crate::route::RoutePlan), its parent
//! links and its [`SectionExtraction`](crate::extract::SectionExtraction)s.
//! Output: a [`DocGraph`] that every sink writes the same way. Relation types
//! outside the ontology never enter the graph; they are kept in
//! [`DocGraph::dropped`] with the reason.

mod build;
pub mod identity;

pub use build::{build_document_graph, parents_from_tree};
pub use resolution::OrgMerges;

mod resolution;

use crate::index::Tier;
use crate::route::Route;
use anyhow::Context;
use petgraph::graph::{DiGraph, NodeIndex};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// What the graph knows about the document itself.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct DocumentMeta {
    pub doc_id: String,
    pub name: String,
    pub doc_type: String,
    /// Hex SHA-256 of the source file's bytes.
    pub sha256: String,
    pub path: PathBuf,
}

impl DocumentMeta {
    /// Metadata of a document read into `source`: the file's SHA-256 as
    /// the source hashed it on reading (the file is not read again), or
    /// from the file when the source does not know it.
    pub fn from_source(
        path: &Path,
        doc_id: &str,
        doc_type: &str,
        source: &crate::tree::source::SourceText,
    ) -> anyhow::Result<Self> {
        match source.file_sha256_hex() {
            Some(sha256) => Ok(Self::with_hash(path, doc_id, doc_type, sha256)),
            None => Self::from_file(path, doc_id, doc_type),
        }
    }

    /// Metadata of the file at `path`: its name and the SHA-256 of its bytes.
    pub fn from_file(path: &Path, doc_id: &str, doc_type: &str) -> anyhow::Result<Self> {
        use sha2::{Digest, Sha256};
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let sha256 = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(Self::with_hash(path, doc_id, doc_type, sha256))
    }

    fn with_hash(path: &Path, doc_id: &str, doc_type: &str, sha256: String) -> Self {
        Self {
            doc_id: doc_id.to_string(),
            name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string()),
            doc_type: doc_type.to_string(),
            sha256,
            // Canonical, so every run names the same file the same way: the
            // sink finds a file's earlier versions by it.
            path: path.canonicalize().unwrap_or_else(|_| path.to_path_buf()),
        }
    }
}

/// One section of the document, skipped or not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SectionNode {
    /// `<doc_id>#<node_id>`: unique across documents.
    pub uid: String,
    pub node_id: String,
    /// The heading as written.
    pub title: String,
    /// Its numbering as written (`Section 2.12`), empty when it has none;
    /// parsed once by the tree.
    pub label: String,
    /// The title without its label (`Payments and Computations`).
    pub name: String,
    pub breadcrumb: String,
    pub start_line: usize,
    pub end_line: usize,
    pub chars: usize,
    pub predicted_tier: Option<Tier>,
    /// `None` when the section was not extracted or its extraction failed.
    pub actual_tier: Option<Tier>,
    pub route: Route,
    /// The parent section's uid, if any.
    pub parent_uid: Option<String>,
}

/// A resolved entity: one node however many times and names it was found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntityNode {
    /// Identity key, see [`identity`].
    pub key: String,
    /// The first name seen, stored literally.
    pub name: String,
    /// The entity type as extracted.
    pub entity_type: String,
    /// Neo4j label from the ontology type (sanitised); `None` when the type
    /// is not in the ontology (the node then only has the `Entity` label).
    pub label: Option<String>,
    /// `Some(doc_id)` for document-scoped entities, `None` for global ones.
    pub doc_id: Option<String>,
    /// Other names it was found under (aliases and variant spellings).
    pub aliases: BTreeSet<String>,
    /// Node ids of the sections that mention it.
    pub mentions: BTreeSet<String>,
}

/// Where a relation was found.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Provenance {
    pub doc_id: String,
    pub node_id: String,
    pub evidence: String,
    /// Which extractor found it: `rules` or `llm` (empty when read back
    /// from a store that does not keep it).
    pub source: String,
    /// How the rules read a typed fact (rule, model or both, and the
    /// model's score); none for the LLM's and for other relations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reading: Option<crate::extract::Reading>,
}

impl RelationEdge {
    /// `rules` when only the rules extractor found the relation (offline,
    /// or in a section the router did not send), else `llm`.
    pub fn source(&self) -> &str {
        if self.provenance.iter().any(|p| p.source != SOURCE_RULES) {
            "llm"
        } else {
            SOURCE_RULES
        }
    }
}

/// The [`Provenance::source`] of a fact the rules extractor found.
pub const SOURCE_RULES: &str = "rules";

/// A deduplicated relation: one edge per (source, type, target).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelationEdge {
    /// An ontology relation type, valid as a Neo4j relationship type.
    pub rel_type: String,
    /// Every place it was found, in document order, without duplicates.
    pub provenance: Vec<Provenance>,
}

/// Something left out of the graph, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dropped {
    pub node_id: String,
    /// `relation` or `entity`.
    pub item: String,
    pub what: String,
    pub reason: String,
}

/// A typed fact held back for review (see [`crate::extract::Candidate`]),
/// with the section it was read in: not an edge of the graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeldFact {
    pub node_id: String,
    pub candidate: crate::extract::Candidate,
}

/// Counts of one document's graph.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct GraphCounts {
    pub sections: usize,
    pub entities: usize,
    pub relations: usize,
    /// Distinct (entity, section) mentions.
    pub mentions: usize,
    pub dropped: usize,
}

/// One document's merged graph: its sections plus an entity graph whose
/// edges are the deduplicated relations.
#[derive(Debug, Clone)]
pub struct DocGraph {
    pub meta: DocumentMeta,
    pub sections: Vec<SectionNode>,
    pub graph: DiGraph<EntityNode, RelationEdge>,
    /// Entity key -> node.
    pub index: HashMap<String, NodeIndex>,
    pub dropped: Vec<Dropped>,
    /// Typed facts held back for review, in section order.
    pub held: Vec<HeldFact>,
    /// The definitions of the document's periods (`"Service Period"
    /// means ...`), read from its text, for a term clause that runs `for
    /// the Service Period` (see [`crate::extract::rules::term_definitions`]).
    pub term_definitions: BTreeMap<String, String>,
    /// The agreement's name as its opening states it
    /// ([`crate::tree::title::document_title`]), read from its text.
    pub doc_title: Option<String>,
}

impl DocGraph {
    /// `<doc_id>#<node_id>`.
    pub fn section_uid(doc_id: &str, node_id: &str) -> String {
        format!("{doc_id}#{node_id}")
    }

    pub fn doc_id(&self) -> &str {
        &self.meta.doc_id
    }

    /// Entities in insertion (document) order.
    pub fn entities(&self) -> impl Iterator<Item = &EntityNode> {
        self.graph.node_weights()
    }

    /// Looks an entity up by key.
    pub fn entity(&self, key: &str) -> Option<&EntityNode> {
        self.index.get(key).map(|&i| &self.graph[i])
    }

    /// Relations as (source, edge, target), in insertion order.
    pub fn relations(&self) -> impl Iterator<Item = (&EntityNode, &RelationEdge, &EntityNode)> {
        self.graph.edge_indices().map(move |e| {
            let (a, b) = self.graph.edge_endpoints(e).expect("edge of this graph");
            (&self.graph[a], &self.graph[e], &self.graph[b])
        })
    }

    /// The relations the entity `key` takes part in, as source or target,
    /// in insertion order: read from its own edges, so a document of many
    /// entities does not scan every relation once per entity.
    pub fn relations_of(&self, key: &str) -> Vec<(&EntityNode, &RelationEdge, &EntityNode)> {
        use petgraph::visit::EdgeRef;
        let Some(&n) = self.index.get(key) else {
            return Vec::new();
        };
        let mut edges: Vec<petgraph::graph::EdgeIndex> = self
            .graph
            .edges_directed(n, petgraph::Direction::Outgoing)
            .chain(self.graph.edges_directed(n, petgraph::Direction::Incoming))
            .map(|e| e.id())
            .collect();
        edges.sort_unstable();
        edges.dedup();
        edges
            .into_iter()
            .map(|e| {
                let (a, b) = self.graph.edge_endpoints(e).expect("edge of this graph");
                (&self.graph[a], &self.graph[e], &self.graph[b])
            })
            .collect()
    }

    pub fn counts(&self) -> GraphCounts {
        GraphCounts {
            sections: self.sections.len(),
            entities: self.graph.node_count(),
            relations: self.graph.edge_count(),
            mentions: self.entities().map(|e| e.mentions.len()).sum(),
            dropped: self.dropped.len(),
        }
    }
}
