//! Checks what an extractor returned before anything reaches the graph:
//! the JSON shape against `schemas/extraction.schema.json`, then the
//! ontology (types must be allowed, relation ends must be extracted
//! entities). Removed items are recorded as [`Pruned`] with their reason so
//! nothing disappears silently.
//!
//! A model's relation often names an end it did not list as an entity
//! (`"source": "Agreement"`; Qwen2.5 0.5B does it on most relations).
//! [`prune_in_section`] keeps such a relation when the end is the
//! document's party under any name (the registry) or a name the section's
//! own text holds: the end becomes an entity, recorded as [`AddedEnd`].
//! An end found in neither (a name the model made up) still prunes it.

use super::party_registry::PartyRegistry;
use super::{AddedEnd, Entity, Pruned, Relation};
use crate::index::{Ontology, Tier};
use once_cell::sync::Lazy;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// The output schema, as shipped in `schemas/extraction.schema.json`.
pub const SCHEMA_JSON: &str = include_str!("../../schemas/extraction.schema.json");

static SCHEMA: Lazy<Value> = Lazy::new(|| {
    serde_json::from_str(SCHEMA_JSON).expect("schemas/extraction.schema.json is valid JSON")
});

static VALIDATOR: Lazy<jsonschema::Validator> = Lazy::new(|| {
    jsonschema::validator_for(&SCHEMA)
        .expect("schemas/extraction.schema.json is a valid JSON Schema")
});

/// The output schema as a JSON value (sent to the LLM as `response_format`).
pub fn schema() -> &'static Value {
    &SCHEMA
}

/// The model's own rating of a section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Graphability {
    pub tier: String,
    pub why: String,
}

/// One answer in the shape of the schema.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelOutput {
    pub entities: Vec<Entity>,
    pub relations: Vec<Relation>,
    pub graphability: Option<Graphability>,
}

impl ModelOutput {
    /// The model's tier, when it gave a valid one.
    pub fn tier(&self) -> Option<Tier> {
        self.graphability
            .as_ref()
            .and_then(|g| Tier::parse(&g.tier))
    }
}

/// Parses an answer and checks it against the schema. The error lists every
/// schema violation (up to eight) with its JSON path, in words a model can
/// act on in a repair retry.
pub fn parse_and_validate(content: &str) -> Result<ModelOutput, String> {
    check_section(parse_json(content)?)
}

fn parse_json(content: &str) -> Result<Value, String> {
    let body = strip_code_fence(content);
    serde_json::from_str(body).map_err(|e| {
        format!("the answer is not valid JSON ({e}); answer with one JSON object only, no prose")
    })
}

/// One section's answer checked against the schema.
fn check_section(value: Value) -> Result<ModelOutput, String> {
    let errors: Vec<String> = VALIDATOR
        .iter_errors(&value)
        .take(8)
        .map(|e| {
            let path = e.instance_path.to_string();
            let path = if path.is_empty() {
                "/".to_string()
            } else {
                path
            };
            format!("at {path}: {e}")
        })
        .collect();
    if !errors.is_empty() {
        return Err(format!(
            "the answer does not match the output schema: {}",
            errors.join("; ")
        ));
    }
    serde_json::from_value(value)
        .map_err(|e| format!("the answer does not match the output schema: {e}"))
}

/// A pack's answer ([`super::pack`]), item by item.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackAnswer {
    /// Each answered piece's output, by its id.
    pub outputs: BTreeMap<String, ModelOutput>,
    /// Items of a piece of the pack that failed the section check: the id
    /// and why. The piece is asked again alone.
    pub invalid: Vec<(String, String)>,
    /// Ids the answer gave that the pack does not hold (dropped), and
    /// repeated items of one id after the first.
    pub unknown: Vec<String>,
}

/// Parses a pack's answer, `{"sections": [{"id": .., <section answer>}]}`,
/// checking each item against the section schema apart, so one bad item
/// costs its piece, not the pack. A pack of one piece also takes a bare
/// section answer (what a server that ignores the schema may give). An
/// error (not JSON, no `sections` list) is the whole answer's: repair it.
pub fn parse_pack_answer(content: &str, ids: &[String]) -> Result<PackAnswer, String> {
    let mut value = parse_json(content)?;
    let mut out = PackAnswer::default();
    let items = match value.get_mut("sections").map(Value::take) {
        Some(Value::Array(items)) => items,
        Some(_) => return Err("`sections` is not a list of the sections' answers".into()),
        None if ids.len() == 1 => {
            out.outputs.insert(ids[0].clone(), check_section(value)?);
            return Ok(out);
        }
        None => {
            return Err(
                "the answer has no `sections` list (one item per section, each with its id)".into(),
            )
        }
    };
    read_items(items, ids, &mut out);
    Ok(out)
}

/// The complete items of a pack answer cut at `max_tokens`: every item of
/// the `sections` list whose JSON object closed before the cut, checked as
/// [`parse_pack_answer`] checks them. The items after the first one cut
/// are not there; an answer cut inside its first item gives none.
pub fn salvage_pack_answer(content: &str, ids: &[String]) -> PackAnswer {
    let mut out = PackAnswer::default();
    let items = complete_items(strip_code_fence(content), "sections");
    read_items(items, ids, &mut out);
    out
}

/// What one section's answer held before it was cut or stopped: the
/// entities and relations whose objects closed, each checked against the
/// schema on its own, and no rating (the answer never reached it). `None`
/// when nothing closed.
pub fn salvage_section(content: &str) -> Option<ModelOutput> {
    let body = strip_code_fence(content);
    let rating = serde_json::json!({"tier": "medium", "why": "-"});
    let valid = |list: &str, item: Value| -> bool {
        let mut probe =
            serde_json::json!({"entities": [], "relations": [], "graphability": rating});
        probe[list] = Value::Array(vec![item]);
        VALIDATOR.is_valid(&probe)
    };
    let entities: Vec<Entity> = complete_items(body, "entities")
        .into_iter()
        .filter(|v| valid("entities", v.clone()))
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect();
    let relations: Vec<Relation> = complete_items(body, "relations")
        .into_iter()
        .filter(|v| valid("relations", v.clone()))
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect();
    (!entities.is_empty() || !relations.is_empty()).then_some(ModelOutput {
        entities,
        relations,
        graphability: None,
    })
}

/// The JSON values of the first list under `key` in `body` that closed
/// before the text ends (an answer cut mid-list keeps its first items).
pub fn complete_items(body: &str, key: &str) -> Vec<Value> {
    let Some(list) = body
        .find(&format!("\"{key}\""))
        .and_then(|k| body[k..].find('[').map(|b| k + b + 1))
    else {
        return Vec::new();
    };
    let mut items = Vec::new();
    let (mut depth, mut in_string, mut escaped, mut start) = (0usize, false, false, 0usize);
    for (i, c) in body[list..].char_indices() {
        let at = list + i;
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => {
                if depth == 0 {
                    start = at;
                }
                depth += 1;
            }
            '}' | ']' if depth == 0 => break,
            '}' | ']' => {
                depth -= 1;
                if depth == 0 {
                    if let Ok(v) = serde_json::from_str::<Value>(&body[start..=at]) {
                        items.push(v);
                    }
                }
            }
            _ => {}
        }
    }
    items
}

/// Each item by its id into `out` (see [`parse_pack_answer`]).
fn read_items(items: Vec<Value>, ids: &[String], out: &mut PackAnswer) {
    for mut item in items {
        let id = match item.as_object_mut().and_then(|o| o.remove("id")) {
            Some(Value::String(s)) => s.trim().to_string(),
            Some(Value::Number(n)) => n.to_string(),
            _ if ids.len() == 1 => ids[0].clone(),
            _ => {
                out.unknown.push("(an item without an id)".into());
                continue;
            }
        };
        let Some(id) = ids.iter().find(|i| **i == id).cloned() else {
            out.unknown.push(id);
            continue;
        };
        if out.outputs.contains_key(&id) || out.invalid.iter().any(|(i, _)| *i == id) {
            out.unknown.push(id);
            continue;
        }
        match check_section(item) {
            Ok(o) => {
                out.outputs.insert(id, o);
            }
            Err(e) => out.invalid.push((id, e)),
        }
    }
}

/// Models sometimes wrap JSON in a Markdown code fence; accept that.
fn strip_code_fence(s: &str) -> &str {
    let t = s.trim();
    if let Some(rest) = t.strip_prefix("```") {
        let rest = rest.strip_prefix("json").unwrap_or(rest);
        if let Some(inner) = rest.trim_end().strip_suffix("```") {
            return inner.trim();
        }
    }
    t
}

/// Common alternative names for the ontology's types, so an extractor that
/// says `Party` still lands on `Organization` when that is what the index
/// calls it.
const SYNONYMS: &[(&str, &[&str])] = &[
    ("organization", &["party", "company", "org"]),
    ("party", &["organization", "company"]),
    (
        "sectionref",
        &[
            "section",
            "sectionreference",
            "documentref",
            "reference",
            "documentsectionreference",
        ],
    ),
    ("asset", &["collateral"]),
    ("collateral", &["asset"]),
    ("loan", &["advance"]),
    ("advance", &["loan"]),
    ("period", &["date", "dateperiod"]),
    ("date", &["period"]),
];

fn squash(s: &str) -> String {
    squashed(s).collect()
}

/// The characters of [`squash`]`(s)`, without allocating.
fn squashed(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(|c| c.to_lowercase())
}

/// Finds the ontology's spelling of a type name: exact, case/spacing
/// insensitive, or through a known synonym.
pub fn ontology_name(types: &BTreeMap<String, String>, name: &str) -> Option<String> {
    if types.contains_key(name) {
        return Some(name.to_string());
    }
    let want = squash(name);
    // The last key (in key order) of that squashed spelling, compared
    // without building a map or a string per key: this runs for every
    // relation type the rules may emit, per section.
    let key_squashing_to = |w: &str| {
        types
            .keys()
            .rev()
            .find(|k| squashed(k).eq(w.chars()))
            .cloned()
    };
    if let Some(k) = key_squashing_to(&want) {
        return Some(k);
    }
    SYNONYMS
        .iter()
        .filter(|(n, _)| *n == want)
        .flat_map(|(_, alts)| alts.iter())
        .find_map(|alt| key_squashing_to(alt))
}

/// The result of pruning: what stays, and what went with why.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PruneResult {
    pub entities: Vec<Entity>,
    pub relations: Vec<Relation>,
    pub pruned: Vec<Pruned>,
    /// Entities added for relation ends ([`prune_in_section`]).
    pub ends_added: Vec<AddedEnd>,
}

/// The end of a pruned relation's reason when an end is not an entity
/// (the summary counts these).
pub const NOT_AN_ENTITY: &str = "is not an extracted entity";

/// The kind of a pruned relation's reason, for counting: the word before
/// the reason's first colon (`pattern`, `evidence`, `verifier`), else the
/// kind of the older plain reasons.
pub fn reason_kind(reason: &str) -> &'static str {
    const KINDS: [&str; 4] = [PATTERN, EVIDENCE, VERIFIER, REPEATED];
    if let Some(k) = reason
        .split_once(':')
        .and_then(|(head, _)| KINDS.iter().find(|k| **k == head))
    {
        return k;
    }
    if reason.ends_with(NOT_AN_ENTITY) {
        "end not an entity"
    } else if reason.ends_with("is not in the ontology") {
        "type not in the ontology"
    } else if reason.ends_with("to itself") {
        "self-loop"
    } else {
        "other"
    }
}

/// The start of the reason of a model's relation pruned for its evidence.
pub const EVIDENCE: &str = "evidence";
/// The start of the reason of a fact the verifier answered no to.
pub const VERIFIER: &str = "verifier";
/// The start of the reason of an item dropped from an answer that repeated
/// itself.
pub const REPEATED: &str = "repeated";

/// What a section offers to resolve a relation end its answer did not
/// list as an entity: its text and the document's parties.
#[derive(Debug, Clone, Copy)]
pub struct SectionContext<'a> {
    pub text: &'a str,
    pub registry: &'a PartyRegistry,
}

/// Types tried, in order, for an end whose relation's ontology entry does
/// not say its type: the most generic types an ontology of ours has.
const GENERIC_TYPES: &[&str] = &["DefinedTerm", "Concept", "Term", "Entity", "Thing"];

/// Longest name accepted as an added end (a sentence is not an entity).
const MAX_END_CHARS: usize = 100;
const MAX_END_WORDS: usize = 10;

fn norm_key(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A looser key: no leading article, letters and digits only
/// (`the Licensor` = `Licensor`, `ORCHARD LANE FOODS, INC.` =
/// `Orchard Lane Foods Inc`).
fn loose_key(name: &str) -> String {
    let t = name.trim();
    let lower = t.to_lowercase();
    let t = ["the ", "this ", "each "]
        .iter()
        .find_map(|a| lower.strip_prefix(a).map(|_| &t[a.len()..]))
        .unwrap_or(t);
    squash(t)
}

/// Keeps only items the ontology allows. Entity and relation types are
/// mapped to the ontology's spelling; duplicate entities (same name and
/// type) are merged; a relation must connect two extracted entities (by
/// name or alias).
pub fn prune(entities: Vec<Entity>, relations: Vec<Relation>, ontology: &Ontology) -> PruneResult {
    prune_in_section(entities, relations, ontology, None)
}

/// [`prune`], and with the section's context a relation end that is not an
/// extracted entity is resolved before the relation is dropped: an entity
/// under a looser spelling (`the Licensor`), a party of the registry under
/// any of its names (added as that party, type from the registry), or a
/// name the section's text holds (added with the type the relation's
/// ontology entry gives that end, `Agreement -> Jurisdiction`, else a
/// defined term when the text defines it in quotes, else the ontology's
/// most generic type). Each added entity is recorded in `ends_added`.
pub fn prune_in_section(
    entities: Vec<Entity>,
    relations: Vec<Relation>,
    ontology: &Ontology,
    ctx: Option<SectionContext<'_>>,
) -> PruneResult {
    let mut out = PruneResult::default();
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    for mut e in entities {
        let name = e.name.split_whitespace().collect::<Vec<_>>().join(" ");
        if name.is_empty() {
            out.pruned.push(Pruned {
                item: "entity".into(),
                what: format!("(empty name) [{}]", e.entity_type),
                reason: "entity has an empty name".into(),
            });
            continue;
        }
        e.name = name;
        let Some(t) = ontology_name(&ontology.entity_types, &e.entity_type) else {
            out.pruned.push(Pruned {
                item: "entity".into(),
                what: format!("{} [{}]", e.name, e.entity_type),
                reason: format!("entity type `{}` is not in the ontology", e.entity_type),
            });
            continue;
        };
        e.entity_type = t;
        let key = (norm_key(&e.name), e.entity_type.clone());
        match seen.get(&key) {
            Some(&i) => {
                let kept = &mut out.entities[i];
                for a in e.aliases {
                    if !kept.aliases.contains(&a) && a != kept.name {
                        kept.aliases.push(a);
                    }
                }
                if kept.description.is_empty() {
                    kept.description = e.description;
                }
            }
            None => {
                seen.insert(key, out.entities.len());
                out.entities.push(e);
            }
        }
    }
    if let Some(c) = ctx {
        drop_other_parties_aliases(&mut out, c.registry);
    }
    // Name or alias -> the entity's index (the first entity holding it).
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut loose: HashMap<String, String> = HashMap::new();
    // Entity names only (not aliases): a party is matched on these.
    let mut loose_names: HashMap<String, String> = HashMap::new();
    // Name or alias -> the types of every entity holding it (a relation
    // end names an entity by name only; `Licensor` may be a Role and a
    // DefinedTerm).
    let mut typed: HashMap<String, Vec<String>> = HashMap::new();
    for (i, e) in out.entities.iter().enumerate() {
        note_types(&mut typed, e);
        names.entry(norm_key(&e.name)).or_insert(i);
        loose.entry(loose_key(&e.name)).or_insert(e.name.clone());
        loose_names
            .entry(loose_key(&e.name))
            .or_insert(e.name.clone());
        for a in &e.aliases {
            names.entry(norm_key(a)).or_insert(i);
            loose.entry(loose_key(a)).or_insert(e.name.clone());
        }
    }
    let text = ctx.map(|c| Mentions::new(c.text));
    let mut seen_rel: HashMap<(String, String, String), ()> = HashMap::new();
    for mut r in relations {
        let what = format!("{} -{}-> {}", r.source, r.relation_type, r.target);
        let Some(t) = ontology_name(&ontology.relation_types, &r.relation_type) else {
            out.pruned.push(Pruned {
                item: "relation".into(),
                what,
                reason: format!("relation type `{}` is not in the ontology", r.relation_type),
            });
            continue;
        };
        r.relation_type = t;
        let mut missing = Vec::new();
        for source in [true, false] {
            let end = if source { &mut r.source } else { &mut r.target };
            if names.contains_key(&norm_key(end)) {
                continue;
            }
            let resolved = match (ctx, &text) {
                (Some(c), Some(m)) => resolve_end(
                    end,
                    &r.relation_type,
                    source,
                    ontology,
                    c.registry,
                    m,
                    (&loose, &loose_names),
                ),
                _ => None,
            };
            match resolved {
                Some(Resolved::Existing(name)) => *end = name,
                Some(Resolved::Added(e, reason)) => {
                    out.ends_added.push(AddedEnd {
                        what: format!("{} [{}]", e.name, e.entity_type),
                        reason,
                    });
                    let i = out.entities.len();
                    note_types(&mut typed, &e);
                    names.entry(norm_key(&e.name)).or_insert(i);
                    loose.entry(loose_key(&e.name)).or_insert(e.name.clone());
                    loose_names
                        .entry(loose_key(&e.name))
                        .or_insert(e.name.clone());
                    for a in &e.aliases {
                        names.entry(norm_key(a)).or_insert(i);
                        loose.entry(loose_key(a)).or_insert(e.name.clone());
                    }
                    *end = e.name.clone();
                    out.entities.push(e);
                }
                None => missing.push(format!(
                    "{} `{}`",
                    if source { "source" } else { "target" },
                    end
                )),
            }
        }
        if !missing.is_empty() {
            out.pruned.push(Pruned {
                item: "relation".into(),
                what,
                reason: format!("{} {NOT_AN_ENTITY}", missing.join(" and ")),
            });
            continue;
        }
        // A model's relation from an entity to itself (`Bank of America
        // -X-> Bank of America`) says nothing; the rules never make one.
        if ctx.is_some() && names.get(&norm_key(&r.source)) == names.get(&norm_key(&r.target)) {
            out.pruned.push(Pruned {
                item: "relation".into(),
                what,
                reason: format!("relation joins `{}` to itself", r.source),
            });
            continue;
        }
        if let Some(reason) = pattern_violation(ontology, &r, &typed) {
            out.pruned.push(Pruned {
                item: "relation".into(),
                what,
                reason,
            });
            continue;
        }
        if let Some(c) = ctx {
            let names_of = |end: &str| -> Vec<String> {
                let mut v = vec![end.to_string()];
                if let Some(&i) = names.get(&norm_key(end)) {
                    v.push(out.entities[i].name.clone());
                    v.extend(out.entities[i].aliases.iter().cloned());
                }
                v
            };
            let evidence = EvidenceCheck {
                section: text.as_ref().expect("a section context has its text"),
                registry: c.registry,
            };
            if let Some(reason) = evidence.problem(&r, &names_of(&r.source), &names_of(&r.target)) {
                out.pruned.push(Pruned {
                    item: "relation".into(),
                    what,
                    reason,
                });
                continue;
            }
        }
        let key = (
            norm_key(&r.source),
            r.relation_type.clone(),
            norm_key(&r.target),
        );
        if seen_rel.insert(key, ()).is_none() {
            out.relations.push(r);
        }
    }
    out
}

/// A model's relation is kept only on evidence: its quote is the
/// section's own words (case, whitespace and quote marks aside; `...`
/// joins pieces that must each be there) and names both ends, under the
/// entity's name or an alias, or, for a party, under any name the
/// document's registry gives it. A small model's quote is often a sentence
/// about the section (`The section contains a payment schedule`) or words
/// of the prompt; a relation between the parties on such a quote is made
/// up.
struct EvidenceCheck<'a> {
    section: &'a Mentions,
    registry: &'a PartyRegistry,
}

impl EvidenceCheck<'_> {
    fn problem(&self, r: &Relation, source: &[String], target: &[String]) -> Option<String> {
        let quote = straight_quotes(&r.evidence);
        let pieces: Vec<String> = quote
            .split("...")
            .flat_map(|p| p.split('\u{2026}'))
            .map(norm_key)
            .map(|p| p.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
            .filter(|p| !p.is_empty())
            .collect();
        if pieces.is_empty() {
            return Some(format!("{EVIDENCE}: no quote"));
        }
        if let Some(p) = pieces
            .iter()
            .find(|p| !self.section.text.contains(p.as_str()))
        {
            return Some(format!(
                "{EVIDENCE}: the quote `{}` is not in the section",
                truncate(p, 60)
            ));
        }
        let said = Mentions::new(&quote);
        let named = |names: &[String]| {
            names.iter().any(|n| said.holds(n))
                || names
                    .iter()
                    .find_map(|n| self.registry.resolve(n))
                    .is_some_and(|p| {
                        std::iter::once(&p.name)
                            .chain(p.names.iter())
                            .any(|n| !n.is_empty() && said.holds(n))
                    })
        };
        let missing: Vec<String> = [("source", source), ("target", target)]
            .iter()
            .filter(|(_, names)| !named(names))
            .map(|(side, names)| format!("{side} `{}`", names[0]))
            .collect();
        (!missing.is_empty()).then(|| {
            format!(
                "{EVIDENCE}: the quote does not name its {}",
                missing.join(" or ")
            )
        })
    }
}

fn straight_quotes(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{201c}' | '\u{201d}' => '"',
            '\u{2018}' | '\u{2019}' => '\'',
            c => c,
        })
        .collect()
}

fn truncate(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

fn note_types(typed: &mut HashMap<String, Vec<String>>, e: &Entity) {
    for n in std::iter::once(&e.name).chain(&e.aliases) {
        let types = typed.entry(norm_key(n)).or_default();
        if !types.contains(&e.entity_type) {
            types.push(e.entity_type.clone());
        }
    }
}

/// The start of the reason of a relation pruned for its ends' types (the
/// summary counts reasons by the word before the first colon).
pub const PATTERN: &str = "pattern";

/// Why a relation's ends do not fit its type's pattern, when they do not:
/// no entity under the source's name has a type the pattern starts at, or
/// none under the target's a type it ends at.
fn pattern_violation(
    ontology: &Ontology,
    r: &Relation,
    typed: &HashMap<String, Vec<String>>,
) -> Option<String> {
    let pattern = ontology.pattern(&r.relation_type)?;
    let types = |end: &str| typed.get(&norm_key(end)).cloned().unwrap_or_default();
    let (from, to) = (types(&r.source), types(&r.target));
    let fits = from.iter().any(|t| pattern.allows_source(t))
        && to.iter().any(|t| pattern.allows_target(t));
    (!fits).then(|| {
        format!(
            "{PATTERN}: `{}` runs {pattern}, not {} -> {}",
            r.relation_type,
            from.join("|"),
            to.join("|")
        )
    })
}

/// Drops an alias that the registry says is another party than the
/// entity's own name (`Licensor` with the alias `Blue Harbor Markets LLC`,
/// the licensee): kept, it would merge both parties into one node.
fn drop_other_parties_aliases(out: &mut PruneResult, registry: &PartyRegistry) {
    for e in &mut out.entities {
        let Some(own) = registry.resolve(&e.name) else {
            continue;
        };
        e.aliases.retain(|a| match registry.resolve(a) {
            Some(other) if !std::ptr::eq(own, other) => {
                out.pruned.push(Pruned {
                    item: "alias".into(),
                    what: format!("{a} (alias of {})", e.name),
                    reason: format!(
                        "the document's registry names `{a}` another party than `{}`",
                        e.name
                    ),
                });
                false
            }
            _ => true,
        });
    }
}

/// How a relation end was resolved.
enum Resolved {
    /// An extracted entity under a looser spelling: its name.
    Existing(String),
    /// A new entity, with the reason it was added.
    Added(Entity, String),
}

/// The section's text, lower-cased with runs of whitespace as one space,
/// for whole-word look-ups of names.
struct Mentions {
    text: String,
}

impl Mentions {
    fn new(text: &str) -> Mentions {
        Mentions {
            text: norm_key(&straight_quotes(text)),
        }
    }

    /// `name` (lower-cased, whitespace-normalised) occurs as whole words.
    fn holds(&self, name: &str) -> bool {
        let want = norm_key(name);
        if want.is_empty() {
            return false;
        }
        let edge = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        self.text.match_indices(&want).any(|(i, _)| {
            edge(self.text[..i].chars().next_back())
                && edge(self.text[i + want.len()..].chars().next())
        })
    }

    /// The text defines `name` in quotes (`(the "Agreement")`).
    fn defines(&self, name: &str) -> bool {
        let n = norm_key(name);
        ['"', '\u{201c}']
            .iter()
            .zip(['"', '\u{201d}'])
            .any(|(o, c)| self.text.contains(&format!("{o}{n}{c}")))
    }
}

fn resolve_end(
    end: &str,
    relation_type: &str,
    source: bool,
    ontology: &Ontology,
    registry: &PartyRegistry,
    text: &Mentions,
    (loose, loose_names): (&HashMap<String, String>, &HashMap<String, String>),
) -> Option<Resolved> {
    let name = end.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        return None;
    }
    if let Some(n) = loose.get(&loose_key(&name)) {
        return Some(Resolved::Existing(n.clone()));
    }
    if let Some(p) = registry.resolve(&name) {
        // The party may already be an entity under another of its names
        // (its own name, not an alias: a small model's aliases mix the
        // parties).
        let known = std::iter::once(p.name.as_str())
            .chain(p.names.iter().map(String::as_str))
            .filter(|n| !n.is_empty())
            .find_map(|n| loose_names.get(&loose_key(n)));
        if let Some(n) = known {
            return Some(Resolved::Existing(n.clone()));
        }
        // Named as the rules name a party's duties: its first defined name.
        let subject = p.subject_name().to_string();
        let ty = [p.kind.as_str(), "Organization", "Party"]
            .iter()
            .filter(|k| !k.is_empty())
            .find_map(|k| ontology_name(&ontology.entity_types, k))?;
        let aliases = std::iter::once(&p.name)
            .chain(p.names.iter())
            .filter(|n| !n.is_empty() && **n != subject)
            .take(5)
            .cloned()
            .collect();
        return Some(Resolved::Added(
            Entity {
                name: subject.clone(),
                entity_type: ty,
                aliases,
                description: String::new(),
            },
            format!("relation end `{name}` is the party `{subject}` of the document's registry"),
        ));
    }
    if name.chars().count() > MAX_END_CHARS
        || name.split(' ').count() > MAX_END_WORDS
        || !name.chars().any(char::is_alphanumeric)
        || !text.holds(&name)
    {
        return None;
    }
    let (ty, from) = if let Some(t) = end_type(ontology, relation_type, source) {
        (
            t,
            format!(
                "the type {relation_type} gives its {}",
                if source { "source" } else { "target" }
            ),
        )
    } else if let Some(t) = text
        .defines(&name)
        .then(|| ontology_name(&ontology.entity_types, "DefinedTerm"))
        .flatten()
    {
        (t, "the section defines it in quotes".to_string())
    } else {
        let t = GENERIC_TYPES
            .iter()
            .find_map(|g| ontology_name(&ontology.entity_types, g))?;
        (t, "the ontology's generic type".to_string())
    };
    Some(Resolved::Added(
        Entity {
            name: name.clone(),
            entity_type: ty,
            aliases: vec![],
            description: String::new(),
        },
        format!("relation end `{name}` is named in the section's text; type: {from}"),
    ))
}

/// The entity type the ontology's entry for `relation_type` gives its
/// source (before the first `->`) or target (after it: the next part, then
/// the rest), when a word or phrase of that part is an entity type
/// (`Obligation, Right or Covenant -> Condition it depends on`).
fn end_type(ontology: &Ontology, relation_type: &str, source: bool) -> Option<String> {
    if let Some(p) = ontology.pattern(relation_type) {
        let side = if source { &p.sources } else { &p.targets };
        if let Some(t) = side
            .iter()
            .find_map(|t| ontology_name(&ontology.entity_types, t))
        {
            return Some(t);
        }
    }
    let desc = ontology.relation_types.get(relation_type)?;
    if !desc.contains("->") {
        return None;
    }
    let parts: Vec<&str> = desc.split("->").map(str::trim).collect();
    let sides: Vec<&str> = if source {
        vec![parts[0]]
    } else {
        parts[1..].to_vec()
    };
    sides.iter().find_map(|part| {
        part.split([',', '(', ')', '/'])
            .flat_map(|alt| alt.split(" or "))
            .find_map(|alt| {
                let alt = alt.trim();
                ontology_name(&ontology.entity_types, alt).or_else(|| {
                    alt.split_whitespace()
                        .find_map(|w| ontology_name(&ontology.entity_types, w))
                })
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, org: &str) -> Value {
        serde_json::json!({
            "id": id,
            "entities": [{"name": org, "type": "Organization", "aliases": [], "description": ""}],
            "relations": [],
            "graphability": {"tier": "low", "why": "x"}
        })
    }

    #[test]
    fn a_pack_answer_is_read_item_by_item_by_id() {
        let ids: Vec<String> = ["0001", "0002", "0003"].map(String::from).to_vec();
        let mut bad = item("0003", "C");
        bad["relations"] = "none".into();
        let answer = serde_json::json!({"sections": [
            item("0002", "B"), item("0001", "A"), bad, item("0009", "Z"), item("0001", "again")
        ]});
        let a = parse_pack_answer(&answer.to_string(), &ids).unwrap();
        assert_eq!(a.outputs.len(), 2);
        assert_eq!(
            a.outputs["0001"].entities[0].name, "A",
            "the first of a repeated id"
        );
        assert_eq!(a.outputs["0002"].entities[0].name, "B");
        assert_eq!(a.invalid.len(), 1);
        assert_eq!(a.invalid[0].0, "0003");
        assert!(a.invalid[0].1.contains("relations"), "{:?}", a.invalid);
        assert_eq!(a.unknown, vec!["0009".to_string(), "0001".to_string()]);
        // Not JSON, or no list: the whole answer is wrong (repaired).
        assert!(parse_pack_answer("{\"sections\": [", &ids).is_err());
        let bare = item("x", "A");
        assert!(parse_pack_answer(&bare.to_string(), &ids).is_err());
        // A pack of one takes a bare section answer, or an item without its id.
        let one = vec!["0007".to_string()];
        let mut bare = bare;
        bare.as_object_mut().unwrap().remove("id");
        assert_eq!(
            parse_pack_answer(&bare.to_string(), &one).unwrap().outputs["0007"].entities[0].name,
            "A"
        );
        let no_id = serde_json::json!({"sections": [bare]});
        assert!(parse_pack_answer(&no_id.to_string(), &one)
            .unwrap()
            .outputs
            .contains_key("0007"));
        assert!(parse_pack_answer(&no_id.to_string(), &ids)
            .unwrap()
            .outputs
            .is_empty());
    }
    #[test]
    fn a_cut_pack_answer_keeps_the_items_that_closed_before_the_cut() {
        let ids: Vec<String> = ["0001", "0002", "0003"].map(String::from).to_vec();
        let whole = serde_json::json!({"sections": [
            item("0001", "A"), item("0002", "B } ] { \" ["), item("0003", "C")
        ]})
        .to_string();
        // Cut inside the third item: the first two stand, braces inside
        // strings notwithstanding.
        let cut = &whole[..whole.rfind("\"C\"").unwrap()];
        let a = salvage_pack_answer(cut, &ids);
        assert_eq!(a.outputs.len(), 2, "{a:?}");
        assert_eq!(a.outputs["0002"].entities[0].name, "B } ] { \" [");
        assert!(!a.outputs.contains_key("0003"));
        // Cut inside the first: nothing; no list at all: nothing.
        assert!(salvage_pack_answer(&whole[..30], &ids).outputs.is_empty());
        assert!(salvage_pack_answer("{\"entit", &ids).outputs.is_empty());
        // A whole answer salvages to all of it.
        assert_eq!(salvage_pack_answer(&whole, &ids).outputs.len(), 3);
    }

    fn onto() -> Ontology {
        let mut o = Ontology::default();
        for t in ["Organization", "Role", "SectionRef"] {
            o.entity_types.insert(t.into(), String::new());
        }
        o.relation_types.insert("HAS_ROLE".into(), String::new());
        o
    }

    fn ent(n: &str, t: &str) -> Entity {
        Entity {
            name: n.into(),
            entity_type: t.into(),
            aliases: vec![],
            description: String::new(),
        }
    }

    fn rel(s: &str, t: &str, d: &str) -> Relation {
        Relation {
            source: s.into(),
            relation_type: t.into(),
            target: d.into(),
            evidence: String::new(),
            reading: None,
        }
    }

    fn quoted(mut r: Relation, evidence: &str) -> Relation {
        r.evidence = evidence.into();
        r
    }

    #[test]
    fn evidence_must_be_the_sections_words_and_name_both_ends() {
        let onto = commercial();
        let text = "Rollmark GmbH (the \u{201c}Buyer\u{201d}) shall pay   the Purchase Price\nto the Supplier within 30 days.";
        let registry = PartyRegistry::default();
        let ctx = SectionContext {
            text,
            registry: &registry,
        };
        let r = prune_in_section(
            vec![
                ent("Rollmark GmbH", "Organization"),
                ent("Purchase Price", "Amount"),
            ],
            vec![
                // Case, whitespace and curly quotes aside, and pieces
                // joined by `...`.
                quoted(
                    rel("Rollmark GmbH", "PAYS", "Purchase Price"),
                    "rollmark gmbh (the \"Buyer\") shall pay the purchase price ... within 30 days",
                ),
                quoted(
                    rel("Rollmark GmbH", "PAYS", "Purchase Price"),
                    "The section sets out the Buyer's payment of the Purchase Price.",
                ),
                quoted(
                    rel("Rollmark GmbH", "PAYS", "Purchase Price"),
                    "shall pay the Purchase Price",
                ),
                rel("Rollmark GmbH", "PAYS", "Purchase Price"),
            ],
            &onto,
            Some(ctx),
        );
        assert_eq!(r.relations.len(), 1, "{:?}", r.pruned);
        let reasons: Vec<&str> = r.pruned.iter().map(|p| p.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "evidence: the quote `the section sets out the buyer's payment of the purchase pri...` is not in the section",
                "evidence: the quote does not name its source `Rollmark GmbH`",
                "evidence: no quote",
            ]
        );
        // Without the section (the rules), no quote is asked for.
        let plain = prune(
            vec![
                ent("Rollmark GmbH", "Organization"),
                ent("Purchase Price", "Amount"),
            ],
            vec![rel("Rollmark GmbH", "PAYS", "Purchase Price")],
            &onto,
        );
        assert_eq!(plain.relations.len(), 1);
    }

    #[test]
    fn valid_answer_passes() {
        let a = r#"{"entities":[{"name":"A","type":"Role","aliases":[],"description":""}],
            "relations":[],"graphability":{"tier":"high","why":"x"}}"#;
        let out = parse_and_validate(a).unwrap();
        assert_eq!(out.tier(), Some(Tier::High));
        assert_eq!(out.entities.len(), 1);
    }

    #[test]
    fn fenced_answer_is_accepted() {
        let a = "```json\n{\"entities\":[],\"relations\":[],\"graphability\":{\"tier\":\"low\",\"why\":\"\"}}\n```";
        assert!(parse_and_validate(a).is_ok());
    }

    #[test]
    fn off_schema_names_the_path() {
        let a = r#"{"entities":[{"name":"A","type":"Role"}],"relations":[],"graphability":{"tier":"huge","why":""}}"#;
        let err = parse_and_validate(a).unwrap_err();
        assert!(err.contains("/entities/0"), "{err}");
        assert!(err.contains("/graphability/tier"), "{err}");
        assert!(parse_and_validate("not json")
            .unwrap_err()
            .contains("not valid JSON"));
        assert!(parse_and_validate(r#"{"pwned":true}"#).is_err());
    }

    #[test]
    fn prune_records_reasons() {
        let r = prune(
            vec![
                ent("Acme", "party"),
                ent("Borrower", "Role"),
                ent("X", "Planet"),
                ent("acme", "Organization"),
            ],
            vec![
                rel("Acme", "has_role", "Borrower"),
                rel("Acme", "OWNS", "Borrower"),
                rel("Acme", "HAS_ROLE", "Nobody"),
            ],
            &onto(),
        );
        assert_eq!(
            r.entities.len(),
            2,
            "party maps to Organization, acme merged"
        );
        assert_eq!(r.entities[0].entity_type, "Organization");
        assert_eq!(r.relations.len(), 1);
        assert_eq!(r.relations[0].relation_type, "HAS_ROLE");
        assert_eq!(r.pruned.len(), 3);
        assert!(r
            .pruned
            .iter()
            .any(|p| p.reason.contains("`Planet` is not in the ontology")));
        assert!(r.pruned.iter().any(|p| p.reason.contains("`OWNS`")));
        assert!(r
            .pruned
            .iter()
            .any(|p| p.reason.contains("target `Nobody`")));
    }

    fn commercial() -> Ontology {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("indices/commercial.yaml");
        crate::index::GraphabilityIndex::load(&[path])
            .expect("indices/commercial.yaml loads")
            .ontology
    }

    fn license() -> String {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/short_license.txt");
        std::fs::read_to_string(path).unwrap()
    }

    /// The licence's registry, read as a document's is: its opening (up to
    /// the first numbered section, with it) and its signature block.
    fn license_registry() -> PartyRegistry {
        let src = license();
        let opening = &src[..src.find("     Section 2.").unwrap()];
        let sigs = &src[src.find("ORCHARD LANE FOODS, INC.  ").unwrap()..];
        crate::extract::rules::party_registry(opening, &[sigs])
    }

    /// Real answers of Qwen2.5 0.5B to the licence's routed sections
    /// (fixtures/real_model_answers.json): heading, section text, answer.
    fn real_answers() -> Vec<(String, String, ModelOutput)> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/real_model_answers.json");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        v["sections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let answer = serde_json::to_string(&s["answer"]).unwrap();
                (
                    s["heading"].as_str().unwrap().to_string(),
                    s["text"].as_str().unwrap().to_string(),
                    parse_and_validate(&answer).expect("a real answer passes the schema"),
                )
            })
            .collect()
    }

    #[test]
    fn real_answers_keep_relations_whose_ends_the_registry_or_text_knows() {
        // The ends' resolution alone: without the relation patterns (the
        // next test applies them).
        let mut onto = commercial();
        onto.relation_patterns.clear();
        let registry = license_registry();
        assert!(
            registry.resolve("Licensee").is_some() && registry.resolve("Licensor").is_some(),
            "{registry:?}"
        );
        let (mut before, mut after, mut added) = (0, 0, 0);
        for (heading, text, answer) in real_answers() {
            let plain = prune(answer.entities.clone(), answer.relations.clone(), &onto);
            let ctx = SectionContext {
                text: &text,
                registry: &registry,
            };
            let r = prune_in_section(answer.entities, answer.relations, &onto, Some(ctx));
            // Past the ends: kept, or pruned only later for their quote
            // (the evidence check has its own test).
            // Distinct triples: a relation the model repeats is pruned for
            // its quote each time, where a kept one is deduplicated.
            let past_ends = r
                .relations
                .iter()
                .map(|x| format!("{} -{}-> {}", x.source, x.relation_type, x.target))
                .chain(
                    r.pruned
                        .iter()
                        .filter(|p| reason_kind(&p.reason) == EVIDENCE)
                        .map(|p| p.what.clone()),
                )
                .collect::<std::collections::HashSet<_>>()
                .len();
            before += plain.relations.len();
            after += past_ends;
            added += r.ends_added.len();
            assert!(past_ends >= plain.relations.len(), "{heading}");
            // Every kept relation joins two kept entities, and never a
            // party to itself through a mixed-up alias.
            let owner = |n: &str| {
                r.entities
                    .iter()
                    .position(|e| {
                        norm_key(&e.name) == norm_key(n)
                            || e.aliases.iter().any(|a| norm_key(a) == norm_key(n))
                    })
                    .unwrap_or_else(|| panic!("{heading}: end `{n}` is no entity: {r:?}"))
            };
            for rel in &r.relations {
                assert_ne!(owner(&rel.source), owner(&rel.target), "{heading}: {rel:?}");
            }
            // An added entity is a party of the registry or named in the text.
            for a in &r.ends_added {
                let name = a.what.split(" [").next().unwrap();
                assert!(
                    registry.resolve(name).is_some() || Mentions::new(&text).holds(name),
                    "{heading}: {a:?}"
                );
            }
            // The licensee is no alias of the licensor any more.
            for e in r.entities.iter().filter(|e| e.name == "Licensor") {
                assert!(
                    !e.aliases.iter().any(|a| a.contains("Blue Harbor")),
                    "{heading}: {e:?}"
                );
            }
        }
        // Preamble: `Licensee` was no entity; Grant: its target was the
        // licensor's wrong alias. Both kept now, as the party they name.
        assert_eq!((before, after, added), (3, 4, 2));
    }

    #[test]
    fn real_answers_party_to_party_facts_fall_to_the_patterns() {
        // Qwen2.5 0.5B on the licence: `Licensor -COVENANT_NOT_TO_SUE->
        // Licensee` from the preamble, `-OBLIGATED_TO-> Licensee` from the
        // royalty clause: a fact ends at a clause or a value, never at the
        // other party.
        let onto = commercial();
        let registry = license_registry();
        let mut pruned = Vec::new();
        for (_, text, answer) in real_answers() {
            let ctx = SectionContext {
                text: &text,
                registry: &registry,
            };
            let r = prune_in_section(answer.entities, answer.relations, &onto, Some(ctx));
            assert!(r.relations.is_empty(), "{:?}", r.relations);
            pruned.extend(r.pruned.into_iter().filter(|p| p.item == "relation"));
        }
        assert_eq!(pruned.len(), 5, "{pruned:?}");
        assert!(
            pruned.iter().all(|p| reason_kind(&p.reason) == PATTERN),
            "{pruned:?}"
        );
    }

    #[test]
    fn an_end_named_in_the_text_takes_the_type_its_relation_gives() {
        let onto = commercial();
        let text = r#"This Agreement (the "Agreement") is governed by the laws of the State of Vermont. Acme shall pay the Royalty to the Licensor."#;
        let registry = PartyRegistry::default();
        let ctx = SectionContext {
            text,
            registry: &registry,
        };
        // The shape Qwen2.5 0.5B answers in: ends it did not list.
        let r = prune_in_section(
            vec![ent("Royalty", "Amount")],
            vec![
                quoted(
                    rel("Agreement", "GOVERNED_BY", "State of Vermont"),
                    "This Agreement (the \"Agreement\") is governed by the laws of the State of Vermont",
                ),
                quoted(
                    rel("the Royalty", "OWED_TO", "Licensor"),
                    "Acme shall pay the Royalty to the Licensor.",
                ),
                quoted(
                    rel("Acme Widgets", "PAYS", "Royalty"),
                    "Acme shall pay the Royalty",
                ),
            ],
            &onto,
            Some(ctx),
        );
        let typed = |n: &str| {
            r.entities
                .iter()
                .find(|e| e.name == n)
                .map(|e| e.entity_type.as_str())
        };
        // Range of GOVERNED_BY (`Agreement -> Jurisdiction ...`).
        assert_eq!(typed("State of Vermont"), Some("Jurisdiction"));
        // `Agreement` is no type of the ontology: defined in quotes.
        assert_eq!(typed("Agreement"), Some("DefinedTerm"));
        // `the Royalty` is the listed entity; `Licensor` is named in the
        // text, typed from OWED_TO's range (`... -> Party it is owed to`).
        assert_eq!(typed("Licensor"), Some("Organization"));
        assert_eq!(r.relations.len(), 2, "{r:?}");
        assert_eq!(r.relations[1].source, "Royalty");
        // `Acme Widgets` is not in the text: pruned, as before.
        assert_eq!(r.ends_added.len(), 3, "{:?}", r.ends_added);
        assert_eq!(r.pruned.len(), 1);
        assert!(
            r.pruned[0].reason.ends_with(NOT_AN_ENTITY),
            "{:?}",
            r.pruned
        );
        assert!(r.pruned[0].reason.contains("`Acme Widgets`"));
        // Without the section, the same answer keeps nothing.
        let plain = prune(
            vec![ent("Royalty", "Amount")],
            vec![rel("Agreement", "GOVERNED_BY", "State of Vermont")],
            &onto,
        );
        assert!(plain.relations.is_empty() && plain.ends_added.is_empty());
        // An entity joined to itself, through an alias as well (seen on
        // CUAD: `Bank of America -AFFILIATE_LICENSE_LICENSOR-> Bank of
        // America`): pruned with the section, kept without it as before.
        let selfish = || {
            let mut boa = ent("Bank of America", "Organization");
            boa.aliases.push("BofA".into());
            (
                vec![boa],
                vec![
                    rel("Bank of America", "OBLIGATED_TO", "Bank of America"),
                    rel("BofA", "OWNS", "Bank of America"),
                ],
            )
        };
        let (e, rels) = selfish();
        let r = prune_in_section(e, rels, &onto, Some(ctx));
        assert!(r.relations.is_empty(), "{r:?}");
        assert_eq!(
            r.pruned
                .iter()
                .filter(|p| p.reason.contains("to itself"))
                .count(),
            2
        );
        // (Without the relation patterns, which prune both for their
        // ends' types: an Organization is no Obligation.)
        let mut bare = onto.clone();
        bare.relation_patterns.clear();
        let (e, rels) = selfish();
        assert_eq!(prune(e, rels, &bare).relations.len(), 2);
    }

    #[test]
    fn relations_outside_their_pattern_are_pruned_with_the_reason() {
        let o = commercial();
        let r = prune(
            vec![
                ent("Helios Components Corporation", "Organization"),
                ent("Rollmark GmbH", "Organization"),
                ent("Supplier", "Role"),
                ent("Delaware", "Jurisdiction"),
                ent("Agreement", "DefinedTerm"),
            ],
            vec![
                rel("Helios Components Corporation", "HAS_ROLE", "Rollmark GmbH"),
                rel("Helios Components Corporation", "HAS_ROLE", "Supplier"),
                rel(
                    "Helios Components Corporation",
                    "GOVERNING_LAW",
                    "Rollmark GmbH",
                ),
                rel("Agreement", "GOVERNING_LAW", "Delaware"),
            ],
            &o,
        );
        let kept: Vec<String> = r
            .relations
            .iter()
            .map(|r| format!("{}>{}", r.relation_type, r.target))
            .collect();
        assert_eq!(kept, ["HAS_ROLE>Supplier", "GOVERNING_LAW>Delaware"]);
        let reasons: Vec<&str> = r.pruned.iter().map(|p| p.reason.as_str()).collect();
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        assert_eq!(
            reasons[0],
            "pattern: `HAS_ROLE` runs Organization|Person -> Role|DefinedTerm, not Organization -> Organization"
        );
        assert!(
            reasons[1].starts_with("pattern: `GOVERNING_LAW` runs "),
            "{reasons:?}"
        );
        assert!(reasons.iter().all(|r| reason_kind(r) == PATTERN));
    }

    #[test]
    fn an_end_of_several_types_fits_when_one_of_them_does() {
        let o = commercial();
        // The rules type a party's defined name both ways.
        let r = prune(
            vec![
                ent("Licensee", "Role"),
                ent("Licensee", "DefinedTerm"),
                ent("the licence", "Right"),
            ],
            vec![rel("Licensee", "HOLDS_RIGHT", "the licence")],
            &o,
        );
        assert_eq!(r.relations.len(), 1, "{:?}", r.pruned);
    }

    #[test]
    fn reason_kinds_cover_the_plain_reasons() {
        assert_eq!(
            reason_kind("source `X` is not an extracted entity"),
            "end not an entity"
        );
        assert_eq!(
            reason_kind("relation type `OWNS` is not in the ontology"),
            "type not in the ontology"
        );
        assert_eq!(reason_kind("relation joins `A` to itself"), "self-loop");
        assert_eq!(
            reason_kind("evidence: the quote is not in the section"),
            EVIDENCE
        );
        assert_eq!(reason_kind("verifier: no"), VERIFIER);
        assert_eq!(reason_kind("something: else"), "other");
    }
}

#[cfg(test)]
mod salvage_tests {
    use super::*;

    #[test]
    fn a_cut_section_answer_keeps_its_closed_entities_and_relations() {
        let cut = r#"{"sections": [{"id": "0001", "entities": [{"name": "Acme", "type": "Organization", "aliases": [], "description": "x"}, {"name": "Borrower", "type": "Role", "aliases": [], "description": "y"}], "relations": [{"source": "Acme", "type": "HAS_ROLE", "target": "Borrower", "evidence": "Acme (the Borrower)"}, {"source": "Acme", "ty"#;
        let o = salvage_section(cut).unwrap();
        assert_eq!((o.entities.len(), o.relations.len()), (2, 1));
        assert!(o.graphability.is_none(), "no rating was given");
        // An item the schema refuses is left out, the rest kept.
        let bad = r#"{"entities": [{"name": "Acme"}, {"name": "B", "type": "Role", "aliases": [], "description": ""}], "relat"#;
        assert_eq!(salvage_section(bad).unwrap().entities.len(), 1);
        assert!(salvage_section(r#"{"entities": [{"name": "Ac"#).is_none());
    }
}
