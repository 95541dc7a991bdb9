//! "Which contracts ...?" over a whole batch (`kgroute ask
//! --contracts`): the question is mapped to the CUAD
//! categories whose names it says ([`categories_in`]), and the contracts
//! come from the typed facts of those categories in the batch's graph
//! (its parts, one streamed pass, only the lines of the fact types
//! parsed), each with its facts and the whole section that shows
//! them. Where the graph has no fact of the category (or the question names
//! none), the contracts come from retrieval: those whose best section
//! scores at least [`RETRIEVAL_SHARE`] of the best section's score.

use super::{FoundSection, SectionHit};
use crate::extract::facts_vocabulary::category_relation_type;
use crate::search::SearchIndex;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Retrieval fallback: a contract answers when one of its sections scores
/// at least this share of the best section (the CUAD tuning half's best
/// share for the corpus-wide check of `scripts/ask-eval`).
pub const RETRIEVAL_SHARE: f32 = 0.5;
/// Sections retrieved for the fallback and the shares.
pub const RETRIEVAL_POOL: usize = 1500;

/// How the graph's facts and retrieval agree (tuned on the CUAD tuning
/// half, `scripts/ask-eval --contracts`): a contract with a fact of the
/// category answers when its best section for the question scores at
/// least `confirm` of the best section's (0: every fact counts); one
/// without answers when its best section scores at least `alone`
/// (above 1: never).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agreement {
    pub confirm: f32,
    pub alone: f32,
}

pub const AGREEMENT: Agreement = Agreement {
    confirm: 0.0,
    alone: 2.0,
};
/// Facts shown per contract.
pub const MAX_FACTS: usize = 5;

/// One typed fact of a contract.
#[derive(Debug, Clone, Serialize)]
pub struct ContractFact {
    /// The CUAD category (`Non-Compete`).
    pub category: String,
    /// Its relation type (`NON_COMPETE`).
    pub rel_type: String,
    /// Who it binds or benefits (a party or role, or the agreement).
    pub party: String,
    /// Its value (a date, period, amount, jurisdiction, or the clause).
    pub value: String,
    /// The sentence it was read from.
    pub evidence: String,
    /// The section it was read from.
    pub node_id: String,
    /// `§node lines a-b`, when the register gives the lines.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub pointer: String,
}

/// A contract that answers, with why.
#[derive(Debug, Clone, Serialize)]
pub struct Contract {
    pub doc_id: String,
    pub doc_name: String,
    /// `graph` (from its typed facts) or `retrieval` (its best section).
    pub found_by: String,
    pub score: f32,
    pub facts: Vec<ContractFact>,
    /// The whole sections that show the facts (or the best section).
    pub sections: Vec<FoundSection>,
}

/// The answer to a "which contracts" question.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ContractsAnswer {
    pub question: String,
    /// The categories the question was mapped to.
    pub categories: Vec<String>,
    /// Of those, the ones asked to be absent (`no`, `without`, `lack`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lacks: Vec<String>,
    /// The party the question names, as the register knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub party: Option<String>,
    /// The governing law's place the question names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub law: Option<String>,
    /// The law or the party is asked to be another (`not governed by`,
    /// `not with`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_law: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_party: bool,
    /// What the question names that the batch does not hold (a party, a
    /// place, a clause kind): said, and nothing listed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<String>,
    /// Said before the contracts: what the batch does not hold, what a
    /// list of absences cannot know.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub contracts: Vec<Contract>,
    /// When no contract holds the category asked for: the sections nearest
    /// the question, as sections (none is a fact of the category).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nearest_sections: Vec<FoundSection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<super::DocProblem>,
}

pub use crate::contracts::category::categories_in;

#[derive(Deserialize)]
struct Line {
    doc_id: String,
    #[serde(default)]
    kind: String,
    #[serde(default, rename = "type")]
    rel_type: String,
    #[serde(default)]
    source: String,
    #[serde(default)]
    target: String,
    #[serde(default)]
    provenance: Vec<super::grounding::Provenance>,
}

/// Typed facts of `rel_types` per document, read from the batch's graph
/// files (empty when the batch has none).
pub fn facts_of(
    batch: &Path,
    categories: &[&str],
) -> anyhow::Result<BTreeMap<String, Vec<ContractFact>>> {
    let mut out: BTreeMap<String, Vec<ContractFact>> = BTreeMap::new();
    let types: Vec<(String, String, &str)> = categories
        .iter()
        .map(|c| {
            let t = category_relation_type(c);
            (format!("\"type\":\"{t}\""), t, *c)
        })
        .collect();
    crate::sink::parts::each_line(&batch.join("graph"), |line| {
        let Some((_, t, cat)) = types.iter().find(|(needle, _, _)| line.contains(needle)) else {
            return Ok(());
        };
        let Ok(l) = serde_json::from_str::<Line>(line) else {
            return Ok(());
        };
        if l.kind != "relation" || &l.rel_type != t {
            return Ok(());
        }
        let p = l.provenance.first();
        out.entry(l.doc_id.clone()).or_default().push(ContractFact {
            category: cat.to_string(),
            rel_type: l.rel_type,
            party: entity_name(&l.source),
            value: entity_name(&l.target),
            evidence: p.map(|p| p.evidence.clone()).unwrap_or_default(),
            node_id: p.map(|p| p.node_id.clone()).unwrap_or_default(),
            pointer: String::new(),
        });
        Ok(())
    })?;
    Ok(out)
}

/// `doc/covenant:not to compete` -> `not to compete`.
fn entity_name(id: &str) -> String {
    let tail = id.rsplit_once('/').map_or(id, |(_, t)| t);
    tail.split_once(':').map_or(tail, |(_, n)| n).to_string()
}

/// Contracts by retrieval: those whose best section scores at least
/// `share` of the best section's, best first, with that section.
pub fn by_retrieval(
    index: &SearchIndex,
    question: &str,
    pool: usize,
    share: f32,
) -> anyhow::Result<Vec<(String, SectionHit)>> {
    let hits = super::candidates_with(
        index,
        question,
        None,
        pool,
        None,
        &super::docrank::DocRankOptions::NONE,
    )?;
    let best = hits.first().map_or(0.0, |h| h.score);
    let mut out: Vec<(String, SectionHit)> = Vec::new();
    for h in hits {
        if h.score < share * best {
            break;
        }
        if !out.iter().any(|(d, _)| *d == h.pointer.doc_id) {
            out.push((h.pointer.doc_id.clone(), h));
        }
    }
    Ok(out)
}

/// The section of `doc` numbered `node`, found by searching its fact's
/// evidence within the document.
fn section_of(
    index: &SearchIndex,
    doc: &str,
    node: &str,
    evidence: &str,
) -> anyhow::Result<Option<SectionHit>> {
    let hits = index.search(evidence, Some(doc), 50)?;
    let hit = hits.into_iter().find(|h| h.pointer.node_id == node);
    Ok(hit.map(|h| SectionHit {
        score: h.score,
        chunks: vec![(h.chunk_start, h.chunk_end)],
        pointer: h.pointer,
    }))
}

/// Answers "which contracts ..." over the batch `batch`.
pub fn contracts(
    batch: &Path,
    index: &SearchIndex,
    question: &str,
) -> anyhow::Result<ContractsAnswer> {
    contracts_with(batch, index, question, &AGREEMENT)
}

/// Each document's best section for `question` as a share of the best
/// section's score, over the `pool` best sections.
pub fn shares(
    index: &SearchIndex,
    question: &str,
    pool: usize,
) -> anyhow::Result<HashMap<String, (f32, SectionHit)>> {
    let hits = super::candidates_with(
        index,
        question,
        None,
        pool,
        None,
        &super::docrank::DocRankOptions::NONE,
    )?;
    let best = hits.first().map_or(0.0, |h| h.score).max(f32::MIN_POSITIVE);
    let mut out: HashMap<String, (f32, SectionHit)> = HashMap::new();
    for h in hits {
        out.entry(h.pointer.doc_id.clone())
            .or_insert((h.score / best, h));
    }
    Ok(out)
}

/// Which documents answer: those with facts whose retrieval share is at
/// least `confirm`, and those without facts whose share is at least `alone`.
pub fn agreeing<'a>(
    facts: impl Iterator<Item = &'a String>,
    shares: &'a HashMap<String, (f32, SectionHit)>,
    how: &Agreement,
) -> Vec<&'a str> {
    let share = |d: &str| shares.get(d).map_or(0.0, |s| s.0);
    let mut out: Vec<&str> = Vec::new();
    for d in facts {
        if how.confirm <= 0.0 || share(d) >= how.confirm {
            out.push(d);
        }
    }
    for (d, (s, _)) in shares {
        if *s >= how.alone && !out.contains(&d.as_str()) {
            out.push(d);
        }
    }
    out
}

/// [`contracts`] with graph and retrieval combined by `how`.
pub fn contracts_with(
    batch: &Path,
    index: &SearchIndex,
    question: &str,
    how: &Agreement,
) -> anyhow::Result<ContractsAnswer> {
    let register = batch.join(crate::register::REGISTER_JSONL);
    if register.exists() {
        let rows = crate::register::read_jsonl(&register)?;
        if let Some(a) = from_register(&rows, index, question)? {
            return Ok(a);
        }
    }
    let cats = categories_in(question);
    let mut facts = facts_of(batch, &cats)?;
    let needs_shares = how.confirm > 0.0 || how.alone <= 1.0;
    if !facts.is_empty() && needs_shares {
        let sh = shares(index, question, RETRIEVAL_POOL)?;
        let keep: std::collections::HashSet<String> = agreeing(facts.keys(), &sh, how)
            .into_iter()
            .map(str::to_string)
            .collect();
        facts.retain(|d, _| keep.contains(d));
        // Listed by retrieval beside the graph's: no facts, its best section.
        for d in keep {
            facts.entry(d).or_default();
        }
    }
    let mut answer = ContractsAnswer {
        question: question.to_string(),
        categories: cats.iter().map(|c| c.to_string()).collect(),
        ..Default::default()
    };
    if facts.is_empty() && !cats.is_empty() {
        answer.notes.push(format!(
            "No contract in this batch has a {} fact; the contracts below only have sections whose words are near the question.",
            cats.join(" or ")
        ));
    }
    let mut names: HashMap<String, String> = HashMap::new();
    if facts.is_empty() {
        if cats.is_empty() {
            answer.notes.push(
                "The question names no category, party or governing law the register knows: the contracts below are those whose sections are nearest its words (by retrieval), not contracts with a fact."
                    .into(),
            );
        }
        for (doc, hit) in by_retrieval(index, question, RETRIEVAL_POOL, RETRIEVAL_SHARE)? {
            let read = super::read_sections(std::slice::from_ref(&hit), 1);
            answer.problems.extend(read.problems);
            if read.sections.is_empty() {
                continue;
            }
            answer.contracts.push(Contract {
                doc_id: doc,
                doc_name: hit.pointer.doc_name.clone(),
                found_by: "retrieval".into(),
                score: hit.score,
                facts: Vec::new(),
                sections: read.sections,
            });
        }
        return Ok(answer);
    }
    let mut sh_cache: Option<HashMap<String, (f32, SectionHit)>> = None;
    for (doc, mut list) in facts {
        list.truncate(MAX_FACTS);
        let mut hits: Vec<SectionHit> = Vec::new();
        if list.is_empty() {
            if sh_cache.is_none() {
                sh_cache = Some(shares(index, question, RETRIEVAL_POOL)?);
            }
            if let Some((_, h)) = sh_cache.as_ref().and_then(|c| c.get(&doc)) {
                hits.push(h.clone());
            }
        }
        for f in &list {
            if hits.iter().any(|h| h.pointer.node_id == f.node_id) {
                continue;
            }
            if let Some(h) = section_of(index, &doc, &f.node_id, &f.evidence)? {
                hits.push(h);
            }
        }
        let read = super::read_sections(&hits, hits.len());
        answer.problems.extend(read.problems);
        let name = hits
            .first()
            .map(|h| h.pointer.doc_name.clone())
            .unwrap_or_else(|| doc.clone());
        names.insert(doc.clone(), name.clone());
        answer.contracts.push(Contract {
            doc_id: doc,
            doc_name: name,
            found_by: if list.is_empty() {
                "retrieval"
            } else {
                "graph"
            }
            .into(),
            score: list.len() as f32,
            facts: list,
            sections: read.sections,
        });
    }
    answer.contracts.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.doc_name.cmp(&b.doc_name))
    });
    Ok(answer)
}

/// Nearest sections listed when no contract holds the category asked for.
pub const NEAREST_SECTIONS: usize = 3;

/// The answer from the batch's register rows, by the engine `kgroute
/// contracts` uses; `None` when the question asks the register nothing (no
/// category, party or law it knows).
pub fn from_register(
    rows: &[crate::register::RegisterRow],
    index: &SearchIndex,
    question: &str,
) -> anyhow::Result<Option<ContractsAnswer>> {
    use crate::contracts::query::{facts_of, select, value_of, Query};
    let asked = crate::contracts::question::read(question, rows);
    let q = &asked.query;
    if !asked.unknown.is_empty() {
        // An answer to another question would be wrong: say what is not
        // known, list nothing.
        let mut answer = ContractsAnswer {
            question: question.to_string(),
            unknown: asked.unknown.clone(),
            ..Default::default()
        };
        for u in &asked.unknown {
            answer.notes.push(if u.ends_with(" clause") {
                format!(
                    "No clause kind of the register is {u}: the register's kinds are the 39 CUAD categories (e.g. \"non-compete\", \"cap on liability\", \"MFN\"); nothing is listed."
                )
            } else {
                format!(
                    "No contract of this batch names {u} (no party or governing law of its {} contracts goes by it); nothing is listed.",
                    rows.len()
                )
            });
        }
        return Ok(Some(answer));
    }
    if *q == Query::default() {
        return Ok(None);
    }
    let mut answer = ContractsAnswer {
        question: question.to_string(),
        categories: asked.categories.iter().map(|c| c.to_string()).collect(),
        lacks: q.lacks.iter().map(|c| c.to_string()).collect(),
        party: q.party.clone(),
        law: q.law.clone(),
        not_law: q.not_law,
        not_party: q.not_party,
        ..Default::default()
    };
    if q.not_law {
        let unknown = rows
            .iter()
            .filter(|r| facts_of(r, crate::contracts::query::GOVERNING_LAW).is_empty())
            .count();
        if unknown > 0 {
            answer.notes.push(format!(
                "{unknown} contracts whose governing law was not found are not listed: their law is not known to be another."
            ));
        }
    }
    let held_by_none: Vec<&str> = q
        .has
        .iter()
        .copied()
        .filter(|c| rows.iter().all(|r| facts_of(r, c).is_empty()))
        .collect();
    if !held_by_none.is_empty() {
        for c in &held_by_none {
            answer.notes.push(format!(
                "No contract in this batch has a {c} fact ({} contracts read).",
                rows.len()
            ));
        }
        answer.notes.push(
            "The sections nearest the question follow, as sections: none is a fact of that kind."
                .into(),
        );
        let near = super::ask(index, question, None, NEAREST_SECTIONS, None)?;
        answer.nearest_sections = near.sections;
        answer.problems = near.problems;
        return Ok(Some(answer));
    }
    let hits = select(rows, q);
    if !q.lacks.is_empty() {
        answer.notes.push(format!(
            "{} of {} contracts have no {} fact; a contract whose clause the extraction missed is listed too, so read this as \"no such fact found\".",
            hits.len(),
            rows.len(),
            q.lacks.join(" or ")
        ));
    }
    if hits.is_empty() {
        answer.notes.push(format!(
            "No contract of the {} in this batch matches.",
            rows.len()
        ));
    }
    for h in &hits {
        let facts: Vec<ContractFact> = h
            .facts
            .iter()
            .take(MAX_FACTS)
            .map(|s| ContractFact {
                category: s.category.to_string(),
                rel_type: category_relation_type(s.category),
                party: s.fact.party.clone().unwrap_or_default(),
                value: value_of(s.fact).to_string(),
                evidence: s.fact.quote.clone(),
                node_id: s.fact.node_id.clone(),
                pointer: s.fact.pointer(),
            })
            .collect();
        let doc = &h.row.doc_id;
        let mut sections: Vec<SectionHit> = Vec::new();
        for f in &facts {
            if sections.iter().any(|s| s.pointer.node_id == f.node_id) {
                continue;
            }
            let probe = if f.evidence.trim().is_empty() {
                &f.value
            } else {
                &f.evidence
            };
            if let Some(s) = section_of(index, doc, &f.node_id, probe)? {
                sections.push(s);
            }
        }
        let read = super::read_sections(&sections, sections.len());
        answer.problems.extend(read.problems);
        let name = Path::new(&h.row.path)
            .file_name()
            .map_or_else(|| h.row.path.clone(), |n| n.to_string_lossy().into_owned());
        answer.contracts.push(Contract {
            doc_id: doc.clone(),
            doc_name: name,
            found_by: "register".into(),
            score: facts.len() as f32,
            facts,
            sections: read.sections,
        });
    }
    Ok(Some(answer))
}

/// The answer as text: each contract, its facts (category, who, value,
/// evidence), then the whole sections that show them.
pub fn render_text(a: &ContractsAnswer) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let by_retrieval = a.contracts.iter().any(|c| c.found_by == "retrieval");
    let cats = match (a.categories.is_empty(), by_retrieval) {
        (true, true) => "none named: contracts by retrieval".to_string(),
        (true, false) => "none named".to_string(),
        (false, _) => a.categories.join(", "),
    };
    for n in &a.notes {
        let _ = writeln!(out, "{n}");
    }
    let _ = writeln!(out, "categories: {cats}");
    if !a.lacks.is_empty() {
        let _ = writeln!(out, "without: {}", a.lacks.join(", "));
    }
    let not = |negated: bool| if negated { "not " } else { "" };
    if let Some(p) = &a.party {
        let _ = writeln!(
            out,
            "party: {}{}",
            not(a.not_party),
            crate::report::sanitize_title(p)
        );
    }
    if let Some(l) = &a.law {
        let _ = writeln!(out, "law: {}{l}", not(a.not_law));
    }
    if !a.nearest_sections.is_empty() {
        let _ = writeln!(out, "\nnearest sections (not contracts with the fact):");
        write_sections(&mut out, &a.nearest_sections);
        return out;
    }
    let _ = writeln!(out, "{} contracts\n", a.contracts.len());
    for (i, c) in a.contracts.iter().enumerate() {
        let _ = writeln!(out, "{}. {} ({})", i + 1, c.doc_name, c.found_by);
        for f in &c.facts {
            let _ = writeln!(
                out,
                "   fact: {} [{}] {} -> {}",
                f.category,
                f.rel_type,
                crate::report::sanitize_title(&f.party),
                crate::report::sanitize_title(&f.value)
            );
            let at = if f.pointer.is_empty() {
                format!("§{}", f.node_id)
            } else {
                f.pointer.clone()
            };
            let _ = writeln!(out, "         evidence {at}: \"{}\"", f.evidence.trim());
        }
        write_sections(&mut out, &c.sections);
        let _ = writeln!(out);
    }
    out
}

/// Each section's pointer and breadcrumb, then its whole text indented.
fn write_sections(out: &mut String, sections: &[FoundSection]) {
    use std::fmt::Write;
    for s in sections {
        let p = &s.pointer;
        let _ = writeln!(
            out,
            "   {} §{} lines {}-{}: {}",
            p.doc_name,
            p.node_id,
            p.start_line,
            p.end_line,
            crate::report::sanitize_title(&p.breadcrumb)
        );
        for line in s.text.trim_end().lines() {
            let _ = writeln!(out, "      {line}");
        }
    }
}
