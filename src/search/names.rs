//! The graph's names, stored where a question looks them up: grounding read every entity line of `graph/graph.jsonl` per question
//! (20 MB for 239 contracts, up to three passes, 698 ms median against 42
//! ms without the graph). Here each named entity of each document is one
//! small tantivy document keyed by its name and aliases as whole lower-cased
//! words; a question becomes its word n-grams, each an exact term lookup,
//! so the cost follows the question, not the batch. The record it stores is
//! what the answer shows: the entity, the sections that mention it, and
//! the document's relations that touch it, with names resolved.
//!
//! What counts as a name, and the records a grounding answers with, are
//! defined here, below every reader of them: the names index, the graph
//! files and Neo4j are three places `ask` grounds a question in.
//!
//! Written at ingest from the in-memory graph (not from graph.jsonl, whose
//! form the files sink owns), into `search/names/`. A batch without it
//! (older, merged from shards, rebuilt by `rebuild-search`) is grounded from
//! the graph files as before.

use crate::graph::DocGraph;
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use tantivy::collector::DocSetCollector;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, Value, STORED, STRING};
use tantivy::{doc, Index, IndexWriter, TantivyDocument, Term};

/// Entity types that are names a question can use (not section references
/// or amounts).
const NAMED_TYPES: [&str; 5] = ["organization", "definedterm", "role", "person", "party"];
/// Shortest name matched in a question.
const MIN_NAME_CHARS: usize = 3;
/// Relations listed per answer.
pub const MAX_RELATIONS: usize = 20;

/// A graph entity named in the question.
#[derive(Debug, Clone, Serialize)]
pub struct NamedEntity {
    pub name: String,
    pub entity_type: String,
    pub key: String,
    /// `(doc_id, node_id)` of the sections that mention it.
    pub sections: Vec<(String, String)>,
}

/// Where a relation was found.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Provenance {
    pub doc_id: String,
    pub node_id: String,
    pub evidence: String,
}

/// A relation about a named entity.
#[derive(Debug, Clone, Serialize)]
pub struct GroundRelation {
    pub source: String,
    pub rel_type: String,
    pub target: String,
    pub provenance: Vec<Provenance>,
}

/// What the graph says about the names in a question.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Grounding {
    pub entities: Vec<NamedEntity>,
    pub relations: Vec<GroundRelation>,
    /// Where each key added by [`Grounding::add_entity`] is in `entities`.
    #[serde(skip)]
    at: HashMap<String, usize>,
    /// The sections those entities are mentioned in: every ranked section
    /// is looked up here.
    #[serde(skip)]
    mentioned: HashSet<(String, String)>,
}

impl Grounding {
    /// A grounding of these entities and relations.
    pub fn new(entities: Vec<NamedEntity>, relations: Vec<GroundRelation>) -> Self {
        let mut g = Grounding {
            relations,
            ..Grounding::default()
        };
        for e in entities {
            g.add_entity(e);
        }
        g
    }

    /// True when `(doc_id, node_id)` mentions a named entity.
    pub fn mentions(&self, doc_id: &str, node_id: &str) -> bool {
        self.mentioned
            .contains(&(doc_id.to_string(), node_id.to_string()))
    }

    /// Adds an entity found named, or its further sections when its key is
    /// already here (a global entity met in several documents).
    pub fn add_entity(&mut self, e: NamedEntity) {
        self.mentioned.extend(e.sections.iter().cloned());
        match self.at.get(&e.key) {
            Some(&i) => self.entities[i].sections.extend(e.sections),
            None => {
                self.at.insert(e.key.clone(), self.entities.len());
                self.entities.push(e);
            }
        }
    }
}

/// True for entity types that are names a question can use.
pub fn is_named_type(entity_type: &str) -> bool {
    let t = entity_type.to_lowercase().replace(['_', ' '], "");
    NAMED_TYPES.contains(&t.as_str())
}

/// True when the name or one of its aliases is whole words of the question
/// (`question_words` as made by [`question_words`]).
pub fn named_in<'a>(question_words: &str, mut names: impl Iterator<Item = &'a String>) -> bool {
    names.any(|n| long_enough(n) && question_words.contains(&words(n)))
}

/// True when a name is long enough to be matched in a question.
pub fn long_enough(name: &str) -> bool {
    name.chars().filter(|c| c.is_alphanumeric()).count() >= MIN_NAME_CHARS
}

/// The question's words as [`named_in`] reads them.
pub fn question_words(question: &str) -> String {
    words(question)
}

/// Lower-cased words of `s` joined by single spaces, padded with spaces so
/// a whole-word test is a substring test.
fn words(s: &str) -> String {
    let w: Vec<String> = s
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    format!(" {} ", w.join(" "))
}

/// Folder of the names index inside the search index's folder.
pub const NAMES_DIR: &str = "names";
/// Longest name, in words, a question is looked up for.
pub const MAX_NAME_WORDS: usize = 8;
/// Relations kept per entity and document.
const RELATIONS_PER_ENTITY: usize = MAX_RELATIONS;
/// Over a whole batch, a name used by more than this share of its
/// documents (`Agreement`, `the Company`) names none of them: it is not
/// looked up, as a word that many documents use does not rank documents
/// ([`crate::ask`]'s document ranking uses the same share)...
const GENERIC_SHARE: f64 = 0.3;
/// ... once at least this many documents use it (in a small batch every
/// name is worth showing, and cheap to read).
const GENERIC_MIN_DOCS: u64 = 20;

#[derive(Clone, Copy)]
struct NameFields {
    name: Field,
    doc_id: Field,
    record: Field,
}

fn schema() -> (Schema, NameFields) {
    let mut b = Schema::builder();
    let name = b.add_text_field("name", STRING);
    let doc_id = b.add_text_field("doc_id", STRING);
    let record = b.add_text_field("record", STORED);
    (
        b.build(),
        NameFields {
            name,
            doc_id,
            record,
        },
    )
}

fn fields_of(index: &Index) -> anyhow::Result<NameFields> {
    let s = index.schema();
    let f = |n: &str| {
        s.get_field(n)
            .map_err(|_| anyhow::anyhow!("not a kgroute names index (no field `{n}`)"))
    };
    Ok(NameFields {
        name: f("name")?,
        doc_id: f("doc_id")?,
        record: f("record")?,
    })
}

/// What one named entity of one document stores.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    doc_id: String,
    key: String,
    name: String,
    entity_type: String,
    mentions: Vec<String>,
    relations: Vec<StoredRelation>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredRelation {
    source: String,
    source_key: String,
    rel_type: String,
    target: String,
    target_key: String,
    provenance: Vec<Provenance>,
}

/// A name as it is keyed: lower-cased alphanumeric words joined by one
/// space ([`words`] without its padding).
pub fn name_key(name: &str) -> String {
    question_words(name).trim().to_string()
}

/// Writes the names of each document's graph beside the search index.
pub struct NamesWriter {
    dir: PathBuf,
    fields: NameFields,
    writer: IndexWriter<TantivyDocument>,
    fresh: bool,
}

impl NamesWriter {
    /// Opens `search/names` of `batch_dir`; `None` when the search index
    /// already had documents but no names index (a resumed older batch:
    /// names of only the resumed documents would ground wrongly, so it
    /// keeps being grounded from its graph files).
    pub fn open(batch_dir: &Path, search_was_fresh: bool) -> anyhow::Result<Option<Self>> {
        let dir = batch_dir.join(super::INDEX_DIR).join(NAMES_DIR);
        let exists = dir.join("meta.json").exists();
        if !exists && !search_was_fresh {
            return Ok(None);
        }
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("{}: cannot create the names index", dir.display()))?;
        let index = if exists {
            Index::open_in_dir(&dir)
        } else {
            super::schema::create_in_dir(&dir, schema().0)
        }
        .with_context(|| format!("{}: cannot open the names index", dir.display()))?;
        let fields = fields_of(&index)?;
        let writer = index
            .writer_with_num_threads(1, 15_000_000)
            .with_context(|| format!("{}: cannot write the names index", dir.display()))?;
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        Ok(Some(Self {
            dir,
            fields,
            writer,
            fresh: !exists,
        }))
    }

    /// Adds one document's named entities (replacing an earlier version).
    pub fn add(&self, graph: &DocGraph) -> anyhow::Result<()> {
        let f = self.fields;
        let doc_id = graph.doc_id();
        if !self.fresh {
            self.writer
                .delete_term(Term::from_field_text(f.doc_id, doc_id));
        }
        for e in graph.entities() {
            if !is_named_type(&e.entity_type) {
                continue;
            }
            let keys: Vec<String> = std::iter::once(&e.name)
                .chain(e.aliases.iter())
                .filter(|n| long_enough(n))
                .map(|n| name_key(n))
                .filter(|k| !k.is_empty())
                .collect();
            if keys.is_empty() {
                continue;
            }
            let relations: Vec<StoredRelation> = graph
                .relations_of(&e.key)
                .into_iter()
                .take(RELATIONS_PER_ENTITY)
                .map(|(s, r, t)| StoredRelation {
                    source: s.name.clone(),
                    source_key: s.key.clone(),
                    rel_type: r.rel_type.clone(),
                    target: t.name.clone(),
                    target_key: t.key.clone(),
                    provenance: r
                        .provenance
                        .iter()
                        .map(|p| Provenance {
                            doc_id: p.doc_id.clone(),
                            node_id: p.node_id.clone(),
                            evidence: p.evidence.clone(),
                        })
                        .collect(),
                })
                .collect();
            let record = Record {
                doc_id: doc_id.to_string(),
                key: e.key.clone(),
                name: e.name.clone(),
                entity_type: e.entity_type.clone(),
                mentions: e.mentions.iter().cloned().collect(),
                relations,
            };
            let mut d = doc!(
                f.doc_id => doc_id,
                f.record => serde_json::to_string(&record)?,
            );
            for k in keys {
                d.add_text(f.name, k);
            }
            self.writer.add_document(d)?;
        }
        Ok(())
    }

    /// Commits what was added.
    pub fn finish(mut self) -> anyhow::Result<()> {
        self.writer
            .commit()
            .with_context(|| format!("{}: cannot commit the names index", self.dir.display()))?;
        super::writer::merge_into_one(&mut self.writer)
            .with_context(|| format!("{}: cannot merge the names index", self.dir.display()))?;
        self.writer.wait_merging_threads()?;
        Ok(())
    }
}

/// Grounds `question` in the batch's names index; `None` when the batch
/// has none (the caller reads the graph files instead).
pub fn ground(
    batch: &Path,
    question: &str,
    doc: Option<&str>,
) -> anyhow::Result<Option<Grounding>> {
    let dir = batch.join(super::INDEX_DIR).join(NAMES_DIR);
    if !dir.join("meta.json").exists() {
        return Ok(None);
    }
    let index = Index::open_in_dir(&dir)
        .with_context(|| format!("{}: cannot open the names index", dir.display()))?;
    let f = fields_of(&index)?;
    let words: Vec<String> = name_key(question)
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    let mut grams: HashSet<String> = HashSet::new();
    for n in 1..=MAX_NAME_WORDS.min(words.len()) {
        for w in words.windows(n) {
            grams.insert(w.join(" "));
        }
    }
    let mut g = Grounding::default();
    let searcher = index.reader()?.searcher();
    if doc.is_none() {
        // Each entry is one entity of one document: a name's entries are
        // about the documents that use it.
        let documents: u64 = searcher
            .segment_readers()
            .iter()
            .map(|s| {
                s.inverted_index(f.doc_id)
                    .map(|i| i.terms().num_terms() as u64)
            })
            .sum::<tantivy::Result<u64>>()?;
        let most = (GENERIC_SHARE * documents as f64) as u64;
        grams.retain(|k| {
            let used = searcher
                .doc_freq(&Term::from_field_text(f.name, k))
                .unwrap_or(0);
            used <= most.max(GENERIC_MIN_DOCS)
        });
    }
    if grams.is_empty() {
        return Ok(Some(g));
    }
    let should: Vec<(Occur, Box<dyn Query>)> = grams
        .iter()
        .map(|k| {
            let q: Box<dyn Query> = Box::new(TermQuery::new(
                Term::from_field_text(f.name, k),
                IndexRecordOption::Basic,
            ));
            (Occur::Should, q)
        })
        .collect();
    let mut query: Box<dyn Query> = Box::new(BooleanQuery::new(should));
    if let Some(d) = doc {
        query = Box::new(BooleanQuery::new(vec![
            (Occur::Must, query),
            (
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_text(f.doc_id, d),
                    IndexRecordOption::Basic,
                )),
            ),
        ]));
    }
    let mut addrs: Vec<_> = searcher
        .search(&*query, &DocSetCollector)?
        .into_iter()
        .collect();
    addrs.sort();
    let mut records: Vec<Record> = Vec::with_capacity(addrs.len());
    for a in addrs {
        let d: TantivyDocument = searcher.doc(a)?;
        let json = d
            .get_first(f.record)
            .and_then(|v| v.as_str())
            .context("names index entry without a record")?;
        records.push(serde_json::from_str(json).context("names index record")?);
    }
    let keys: HashSet<String> = records.iter().map(|r| r.key.clone()).collect();
    let mut seen: HashSet<(String, String, String, String)> = HashSet::new();
    for r in records {
        for rel in &r.relations {
            if g.relations.len() >= MAX_RELATIONS {
                break;
            }
            if !(keys.contains(&rel.source_key) || keys.contains(&rel.target_key)) {
                continue;
            }
            let id = (
                r.doc_id.clone(),
                rel.source_key.clone(),
                rel.rel_type.clone(),
                rel.target_key.clone(),
            );
            if seen.insert(id) {
                g.relations.push(GroundRelation {
                    source: rel.source.clone(),
                    rel_type: rel.rel_type.clone(),
                    target: rel.target.clone(),
                    provenance: rel.provenance.clone(),
                });
            }
        }
        g.add_entity(NamedEntity {
            name: r.name,
            entity_type: r.entity_type,
            key: r.key,
            sections: r
                .mentions
                .into_iter()
                .map(|n| (r.doc_id.clone(), n))
                .collect(),
        });
    }
    Ok(Some(g))
}
