//! What the verifier asks about one document: every clause kind the rules
//! asserted or held back (one question per paragraph and kind), and, for a
//! kind the rules asserted nowhere in the document, the paragraphs the
//! clause model scores highest for it (recall the rules miss). Value
//! fields (dates, term, law) are not asked: they are read, not judged.

use crate::clause_model::ClauseModel;
use crate::extract::facts_vocabulary::{category_of, category_relation_type, is_clause_kind};
use crate::extract::{SectionExtraction, SectionInput};
use crate::index::Ontology;
use std::collections::{BTreeMap, BTreeSet};

/// The clause model's score from which a paragraph no rule read is asked
/// about: low, since a question costs a few hundred tokens and the model's
/// answer, not this score, decides.
pub const SUGGEST_FLOOR: f32 = 0.2;

/// Paragraphs asked about per kind and document when no rule asserted the
/// kind: the model's best few, so one long contract cannot flood the bill.
const SUGGESTIONS_PER_KIND: usize = 2;

/// Paragraphs shorter than this many words are headings or fragments.
const MIN_WORDS: usize = 8;

/// Where a question's candidate came from, so its answer can be applied.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// A relation the rules asserted (its index in the section's relations).
    Asserted(usize),
    /// A candidate the rules held back (its index in the section's
    /// candidates).
    Held(usize),
    /// A paragraph the clause model scores at this for the kind, no rule
    /// having read it.
    Suggested(f32),
}

/// One closed question: is this paragraph of this section a clause of this
/// kind?
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// `q1`, `q2`, ... within its section's request.
    pub id: String,
    /// Index of the section in the document's extractions.
    pub section: usize,
    pub relation_type: String,
    pub paragraph: String,
    /// Every candidate the answer speaks for (two facts of one kind in one
    /// paragraph are one question).
    pub origins: Vec<Origin>,
}

/// The questions of one document. `extractions[i]` is the reading of
/// `inputs[i]`; `model` proposes paragraphs where no rule asserted a kind.
pub fn questions(
    extractions: &[SectionExtraction],
    inputs: &[SectionInput],
    ontology: &Ontology,
    model: Option<&ClauseModel>,
) -> Vec<Question> {
    let askable = |ty: &str| {
        is_clause_kind(ty)
            && ontology.relation_types.contains_key(ty)
            && !ontology.review_only.contains(ty)
    };
    let mut by_key: BTreeMap<(usize, String, String), Vec<Origin>> = BTreeMap::new();
    let mut asserted: BTreeSet<String> = BTreeSet::new();
    for (i, (x, input)) in extractions.iter().zip(inputs).enumerate() {
        let paragraphs = crate::extract::rules::paragraphs_of(&input.text);
        for (k, r) in x.relations.iter().enumerate() {
            if askable(&r.relation_type) {
                asserted.insert(r.relation_type.clone());
                let p = paragraph_of(&paragraphs, &r.evidence);
                by_key
                    .entry((i, r.relation_type.clone(), p))
                    .or_default()
                    .push(Origin::Asserted(k));
            }
        }
        for (k, c) in x.candidates.iter().enumerate() {
            let ty = &c.relation.relation_type;
            if askable(ty) {
                let p = paragraph_of(&paragraphs, &c.relation.evidence);
                by_key
                    .entry((i, ty.clone(), p))
                    .or_default()
                    .push(Origin::Held(k));
            }
        }
    }
    if let Some(model) = model {
        for (key, origin) in suggestions(inputs, model, &asserted, &askable) {
            by_key.entry(key).or_default().push(origin);
        }
    }
    let mut per_section: BTreeMap<usize, usize> = BTreeMap::new();
    by_key
        .into_iter()
        .filter(|((_, _, p), _)| !p.trim().is_empty())
        .map(|((section, relation_type, paragraph), origins)| {
            let n = per_section.entry(section).or_default();
            *n += 1;
            Question {
                id: format!("q{n}"),
                section,
                relation_type,
                paragraph,
                origins,
            }
        })
        .collect()
}

/// The clause model's best paragraphs for each kind no rule asserted.
fn suggestions(
    inputs: &[SectionInput],
    model: &ClauseModel,
    asserted: &BTreeSet<String>,
    askable: &dyn Fn(&str) -> bool,
) -> Vec<((usize, String, String), Origin)> {
    let kinds: Vec<(usize, String)> = model
        .categories()
        .iter()
        .enumerate()
        .map(|(k, c)| (k, category_relation_type(c)))
        .filter(|(_, ty)| askable(ty) && !asserted.contains(ty) && category_of(ty).is_some())
        .collect();
    let mut best: BTreeMap<String, Vec<(f32, usize, String)>> = BTreeMap::new();
    for (i, input) in inputs.iter().enumerate() {
        for p in crate::extract::rules::paragraphs_of(&input.text) {
            if p.split_whitespace().count() < MIN_WORDS {
                continue;
            }
            let scores = model.score(&input.title, &p);
            for (k, ty) in &kinds {
                let Some(s) = model.say(&scores, *k) else {
                    continue;
                };
                if s >= SUGGEST_FLOOR {
                    best.entry(ty.clone()).or_default().push((s, i, p.clone()));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (ty, mut list) in best {
        list.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (s, i, p) in list.into_iter().take(SUGGESTIONS_PER_KIND) {
            out.push(((i, ty.clone(), p), Origin::Suggested(s)));
        }
    }
    out
}

/// The paragraph of `paragraphs` that holds `evidence` (a sentence window,
/// perhaps cut with `...`), else the evidence itself.
/// The questions of each section that has any, by section index: one
/// request each.
pub fn by_section(qs: &[Question]) -> BTreeMap<usize, Vec<usize>> {
    let mut out: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, q) in qs.iter().enumerate() {
        out.entry(q.section).or_default().push(i);
    }
    out
}

pub(super) fn paragraph_of(paragraphs: &[String], evidence: &str) -> String {
    let probe: String =
        norm(evidence.trim_matches(|c: char| c == '.' || c == '…' || c.is_whitespace()))
            .chars()
            .take(80)
            .collect();
    if probe.is_empty() {
        return String::new();
    }
    paragraphs
        .iter()
        .find(|p| norm(p).contains(&probe))
        .cloned()
        .unwrap_or_else(|| evidence.trim().to_string())
}

/// Lower case, one space for every run of white space, straight quotes:
/// how a quote is compared with its paragraph.
pub(super) fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .replace(['“', '”'], "\"")
        .replace(['‘', '’'], "'")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{Candidate, Relation};

    fn relation(ty: &str, evidence: &str) -> Relation {
        Relation {
            source: "Agreement".into(),
            relation_type: ty.into(),
            target: evidence.into(),
            evidence: evidence.into(),
            reading: None,
        }
    }

    fn ontology() -> Ontology {
        let mut o = Ontology::default();
        for ty in [
            "NON_COMPETE",
            "AUDIT_RIGHTS",
            "GOVERNING_LAW",
            "EXCLUSIVITY",
        ] {
            o.relation_types
                .insert(ty.into(), format!("Is there {ty}?"));
        }
        o.review_only.insert("EXCLUSIVITY".into());
        o
    }

    #[test]
    fn asserted_and_held_kinds_are_asked_once_per_paragraph_values_never() {
        let text = "1. Non-competition. The Distributor shall not sell competing products in the Territory during the Term.\n\n2. Records. The Distributor shall keep books open for inspection by the Company at any time.\n\n3. Law. This Agreement is governed by the laws of New York.";
        let input = SectionInput {
            text: text.into(),
            title: "Covenants".into(),
            ..Default::default()
        };
        let x = SectionExtraction {
            relations: vec![
                relation(
                    "NON_COMPETE",
                    "The Distributor shall not sell competing products",
                ),
                relation(
                    "NON_COMPETE",
                    "shall not sell competing products in the Territory",
                ),
                relation("GOVERNING_LAW", "governed by the laws of New York"),
                relation("EXCLUSIVITY", "sell competing products"),
            ],
            candidates: vec![Candidate {
                relation: relation("AUDIT_RIGHTS", "books open for inspection by the Company"),
                target_type: "Right".into(),
                why: String::new(),
            }],
            ..SectionExtraction::blank(
                "d".into(),
                "0001".into(),
                "rules".into(),
                crate::extract::SectionStatus::Ok,
            )
        };
        let qs = questions(&[x], &[input], &ontology(), None);
        let kinds: Vec<_> = qs.iter().map(|q| q.relation_type.as_str()).collect();
        assert_eq!(kinds, ["AUDIT_RIGHTS", "NON_COMPETE"], "{qs:#?}");
        assert_eq!(qs[1].origins, [Origin::Asserted(0), Origin::Asserted(1)]);
        assert!(
            qs[1].paragraph.starts_with("1. Non-competition."),
            "{}",
            qs[1].paragraph
        );
        assert_eq!(qs[0].origins, [Origin::Held(0)]);
        assert_eq!((qs[0].id.as_str(), qs[1].id.as_str()), ("q1", "q2"));
    }
}
