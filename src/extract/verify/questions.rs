//! What the verifier asks about one document: every clause kind the rules
//! asserted or held back (one question per paragraph and kind), and, for a
//! kind the rules asserted nowhere in the document, the paragraphs the
//! clause model scores highest for it (recall the rules miss). Value
//! fields (dates, term, law) are not asked: they are read, not judged.
//! A question shows the sentences around its candidate, not the whole
//! paragraph ([`super::excerpt`]), and a document's questions go in a few
//! requests ([`batches`]), so the system message and the kinds'
//! definitions are sent once per batch, not once per section.

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

/// A kind the rules assert in more paragraphs than this is not asked
/// about: so many readings of one kind are rarely all wrong, and the
/// register's cell would stand on any one of them.
const MAX_ASSERTED_PARAGRAPHS: usize = 2;

/// Held readings asked about per kind and document (the clause model's
/// likeliest first): one confirmed is enough to mark the kind.
const HELD_PER_KIND: usize = 2;

/// Paragraphs shorter than this many words are headings or fragments.
const MIN_WORDS: usize = 8;

/// Questions per request: enough that the system message and the
/// definitions are a small part of the bill, few enough that a small
/// model's answer (a few dozen tokens each) stays short.
pub const QUESTIONS_PER_REQUEST: usize = 16;

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
    /// The section's breadcrumb, shown above its excerpts.
    pub breadcrumb: String,
    /// The words shown: the sentences around the candidate.
    pub excerpt: String,
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
    // By (section, kind, paragraph): two readings of one kind in one
    // paragraph are one question, shown around the first one's evidence.
    let mut by_key: Keyed = BTreeMap::new();
    let mut asserted: BTreeSet<String> = BTreeSet::new();
    for (i, (x, input)) in extractions.iter().zip(inputs).enumerate() {
        let paragraphs = crate::extract::rules::paragraphs_of(&input.text);
        for (k, r) in x.relations.iter().enumerate() {
            if askable(&r.relation_type) {
                asserted.insert(r.relation_type.clone());
                let p = paragraph_of(&paragraphs, &r.evidence);
                let excerpt = super::excerpt::around(&p, &r.evidence);
                by_key
                    .entry((i, r.relation_type.clone(), p))
                    .or_insert_with(|| (Vec::new(), excerpt))
                    .0
                    .push(Origin::Asserted(k));
            }
        }
        for (k, c) in x.candidates.iter().enumerate() {
            let ty = &c.relation.relation_type;
            if askable(ty) {
                let p = paragraph_of(&paragraphs, &c.relation.evidence);
                let excerpt = super::excerpt::around(&p, &c.relation.evidence);
                by_key
                    .entry((i, ty.clone(), p))
                    .or_insert_with(|| (Vec::new(), excerpt))
                    .0
                    .push(Origin::Held(k));
            }
        }
    }
    if let Some(model) = model {
        for (key, origin, excerpt) in suggestions(inputs, model, &asserted, &askable) {
            by_key
                .entry(key)
                .or_insert_with(|| (Vec::new(), excerpt))
                .0
                .push(origin);
        }
    }
    let kept = within_caps(by_key, inputs, model);
    kept.into_iter()
        .filter(|(_, (_, excerpt))| !excerpt.trim().is_empty())
        .enumerate()
        .map(
            |(n, ((section, relation_type, _), (origins, excerpt)))| Question {
                id: format!("q{}", n + 1),
                section,
                relation_type,
                breadcrumb: inputs[section].breadcrumb.clone(),
                excerpt,
                origins,
            },
        )
        .collect()
}

/// A question's key: its section, kind and paragraph.
type Key = (usize, String, String);

/// The questions so far: their candidates and the words to show.
type Keyed = BTreeMap<Key, (Vec<Origin>, String)>;

/// What is worth asking, for a register that marks kinds per contract: an
/// asserted kind only where it rests on at most
/// [`MAX_ASSERTED_PARAGRAPHS`] paragraphs (a no can then clear the cell),
/// a held reading only of a kind asserted nowhere, at most
/// [`HELD_PER_KIND`] of them, the clause model's likeliest first.
fn within_caps(mut by_key: Keyed, inputs: &[SectionInput], model: Option<&ClauseModel>) -> Keyed {
    let is_asserted = |o: &[Origin]| o.iter().any(|x| matches!(x, Origin::Asserted(_)));
    let is_held = |o: &[Origin]| o.iter().all(|x| matches!(x, Origin::Held(_)));
    let mut asserted: BTreeMap<&str, usize> = BTreeMap::new();
    for ((_, ty, _), (o, _)) in &by_key {
        if is_asserted(o) {
            *asserted.entry(ty).or_default() += 1;
        }
    }
    let likelihood = |section: usize, ty: &str, paragraph: &str| -> f32 {
        let Some(m) = model else { return 0.0 };
        let Some(k) = m
            .categories()
            .iter()
            .position(|c| category_relation_type(c) == ty)
        else {
            return 0.0;
        };
        m.score(&inputs[section].title, paragraph)[k]
    };
    let mut held: BTreeMap<&str, Vec<(f32, &Key)>> = BTreeMap::new();
    for (key, (o, _)) in &by_key {
        let (section, ty, paragraph) = key;
        if is_held(o) && !asserted.contains_key(ty.as_str()) {
            held.entry(ty)
                .or_default()
                .push((likelihood(*section, ty, paragraph), key));
        }
    }
    let mut chosen_held = BTreeSet::new();
    for list in held.values_mut() {
        list.sort_by(|a, b| b.0.total_cmp(&a.0));
        chosen_held.extend(list.iter().take(HELD_PER_KIND).map(|(_, k)| (*k).clone()));
    }
    let asserted: BTreeMap<String, usize> = asserted
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    by_key.retain(|key, (o, _)| {
        if is_asserted(o) {
            asserted[&key.1] <= MAX_ASSERTED_PARAGRAPHS
        } else if is_held(o) {
            chosen_held.contains(key)
        } else {
            true
        }
    });
    by_key
}

/// The clause model's best paragraphs for each kind no rule asserted.
fn suggestions(
    inputs: &[SectionInput],
    model: &ClauseModel,
    asserted: &BTreeSet<String>,
    askable: &dyn Fn(&str) -> bool,
) -> Vec<(Key, Origin, String)> {
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
    let index: BTreeMap<String, usize> = kinds.iter().map(|(k, ty)| (ty.clone(), *k)).collect();
    for (ty, mut list) in best {
        list.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (s, i, p) in list.into_iter().take(SUGGESTIONS_PER_KIND) {
            let k = index[&ty];
            let title = &inputs[i].title;
            let excerpt = super::excerpt::best_window(&p, |w| model.score(title, w)[k]);
            out.push(((i, ty.clone(), p), Origin::Suggested(s), excerpt));
        }
    }
    out
}

/// A document's questions in requests of at most
/// [`QUESTIONS_PER_REQUEST`], in document order, as indices into `qs`.
pub fn batches(qs: &[Question]) -> Vec<Vec<usize>> {
    (0..qs.len())
        .collect::<Vec<_>>()
        .chunks(QUESTIONS_PER_REQUEST)
        .map(<[usize]>::to_vec)
        .collect()
}

/// The paragraph of `paragraphs` that holds `evidence` (a sentence window,
/// perhaps cut with `...`), else the evidence itself.
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
            qs[1].excerpt.starts_with("1. Non-competition."),
            "{}",
            qs[1].excerpt
        );
        assert_eq!(qs[0].origins, [Origin::Held(0)]);
        assert_eq!((qs[0].id.as_str(), qs[1].id.as_str()), ("q1", "q2"));
    }

    #[test]
    fn a_kind_read_in_many_paragraphs_is_not_asked_and_held_readings_are_capped() {
        let paragraph = |i: usize, what: &str| {
            format!("{i}. Clause {i}. The Distributor {what} in the Territory during the Term number {i}.")
        };
        let text: Vec<String> = (1..=6)
            .map(|i| {
                paragraph(
                    i,
                    if i <= 3 {
                        "shall not sell competing products"
                    } else {
                        "shall keep books open for inspection"
                    },
                )
            })
            .collect();
        let input = SectionInput {
            text: text.join("\n\n"),
            title: "Covenants".into(),
            ..Default::default()
        };
        let evidence = |i: usize| text[i - 1][3..].to_string();
        let held = |ty: &str, i: usize| Candidate {
            relation: relation(ty, &evidence(i)),
            target_type: "Right".into(),
            why: String::new(),
        };
        let x = SectionExtraction {
            // A non-compete read in three paragraphs.
            relations: (1..=3)
                .map(|i| relation("NON_COMPETE", &evidence(i)))
                .collect(),
            // Three audit-rights readings held, and a non-compete one.
            candidates: vec![
                held("AUDIT_RIGHTS", 4),
                held("AUDIT_RIGHTS", 5),
                held("AUDIT_RIGHTS", 6),
                held("NON_COMPETE", 4),
            ],
            ..SectionExtraction::blank(
                "d".into(),
                "0001".into(),
                "rules".into(),
                crate::extract::SectionStatus::Ok,
            )
        };
        let qs = questions(&[x], &[input], &ontology(), None);
        let kinds: Vec<_> = qs.iter().map(|q| q.relation_type.as_str()).collect();
        assert_eq!(kinds, ["AUDIT_RIGHTS", "AUDIT_RIGHTS"], "{qs:#?}");
        assert!(qs
            .iter()
            .all(|q| matches!(q.origins[..], [Origin::Held(_)])));
    }
}
