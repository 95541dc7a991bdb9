//! Learning a family's own paragraph model from its batches (`kgroute
//! index learn`): which paragraphs held the relations the family's
//! extraction found, and reviewers' decisions, teach a one-category
//! [`ClauseModel`] whether a paragraph of this family is worth sending.
//! Routing by content reads it in place of the shipped model, for any
//! family (the shipped one knows commercial contracts only).
//!
//! The thresholds are chosen on documents the model did not learn from:
//! the documents are split in folds, each fold is scored by a model of the
//! others, and `inside` is the highest score keeping the asked share of
//! the relations (under a Medium or unknown title, a paragraph goes from
//! it), `rescue` the lowest score above which at least half the
//! paragraphs hold one (under a Low title, a paragraph goes from it). The
//! model written is then learned from every document.

pub mod labels;

use crate::clause_model::learned::{Thresholds, CATEGORY};
use crate::clause_model::train::{train, Example, Params};
use crate::clause_model::ClauseModel;
use crate::index::Tier;
use anyhow::bail;
use labels::{Labelled, Labels};

/// Fewest documents to learn from: thresholds need folds of documents a
/// model did not see.
pub const MIN_DOCUMENTS: usize = 4;

/// Fewest paragraphs holding a relation to learn from.
pub const MIN_POSITIVES: usize = 20;

/// Most folds the documents are split into.
const FOLDS: usize = 5;

/// The share of paragraphs above `rescue` that hold a relation.
const RESCUE_PRECISION: f64 = 0.5;

/// A reviewer's decision is seen this many times in training.
const REVIEWED_WEIGHT: usize = 2;

/// What was learned, and how it measured on documents it did not see.
#[derive(Debug)]
pub struct Learned {
    pub model: ClauseModel,
    pub thresholds: Thresholds,
    pub folds: usize,
    /// Routed by titles alone, then by titles and the model's scores
    /// (scored out of fold), over the paragraphs learned from.
    pub titles: Kept,
    pub with_model: Kept,
    /// Titles and the shipped model, for a family it routes: what the
    /// learned model would replace, on the same paragraphs.
    pub with_shipped: Option<Kept>,
    pub positives: usize,
    pub reviewed: usize,
    pub params: Params,
}

/// A routing's share of the relations kept and of the characters cut.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Kept {
    pub relations: f64,
    pub cut: f64,
}

/// Learns a model from `labels`, its thresholds chosen to keep `recall`
/// of the relations out of fold.
/// `shipped` is the model routing the family now and its thresholds,
/// measured beside the learned one.
pub fn learn(
    labels: &Labels,
    recall: f64,
    shipped: Option<(&ClauseModel, Thresholds)>,
) -> anyhow::Result<Learned> {
    let docs = labels.documents.len();
    let positives = labels.paragraphs.iter().filter(|p| p.positive).count();
    if docs < MIN_DOCUMENTS {
        bail!(
            "{docs} document(s) to learn from: at least {MIN_DOCUMENTS} are needed, so that the \
             thresholds are chosen on documents the model did not learn from"
        );
    }
    if positives < MIN_POSITIVES {
        bail!(
            "{positives} paragraph(s) hold a relation worth sending: at least {MIN_POSITIVES} are \
             needed (learn from a calibrated batch: `kgroute ingest --calibrate` reads every section whole)"
        );
    }
    if !(0.5..=1.0).contains(&recall) {
        bail!("--recall {recall}: a share from 0.5 to 1");
    }
    let params = Params {
        // A family's batches are small: a word needs fewer documents.
        min_documents: if docs < 10 { 2 } else { 3 },
        ..Params::default()
    };
    let folds = FOLDS.min(docs);
    let mut scores = vec![0f32; labels.paragraphs.len()];
    for fold in 0..folds {
        let model = train_on(labels, &params, |d| d % folds != fold);
        for (p, s) in labels.paragraphs.iter().zip(scores.iter_mut()) {
            if p.document % folds == fold {
                *s = model.top(&p.title, &p.text).0;
            }
        }
    }
    let thresholds = choose(&labels.paragraphs, &scores, recall);
    Ok(Learned {
        model: train_on(labels, &params, |_| true),
        thresholds,
        folds,
        titles: kept(&labels.paragraphs, |p, _| {
            p.title_tier.is_none_or(Tier::is_sent)
        }),
        with_model: kept(&labels.paragraphs, |p, i| {
            sent_by(p.title_tier, scores[i], &thresholds)
        }),
        with_shipped: shipped.map(|(m, th)| {
            kept(&labels.paragraphs, |p, _| {
                sent_by(p.title_tier, m.top(&p.title, &p.text).0, &th)
            })
        }),
        positives,
        reviewed: labels.paragraphs.iter().filter(|p| p.reviewed).count(),
        params,
    })
}

/// Whether routing by content sends a paragraph of this score under a
/// title of this tier (as [`crate::route::content`] decides).
fn sent_by(tier: Option<Tier>, score: f32, th: &Thresholds) -> bool {
    match tier {
        Some(Tier::VeryHigh | Tier::High) => true,
        Some(Tier::Medium) | None => score >= th.inside,
        Some(Tier::Low | Tier::VeryLow) => score >= th.rescue,
    }
}

fn train_on(labels: &Labels, params: &Params, take: impl Fn(usize) -> bool) -> ClauseModel {
    let mut examples = Vec::new();
    for p in labels.paragraphs.iter().filter(|p| take(p.document)) {
        let e = Example {
            features: crate::clause_model::features(&p.title, &p.text),
            positive: if p.positive { vec![0] } else { Vec::new() },
            document: p.document,
        };
        let times = if p.reviewed { REVIEWED_WEIGHT } else { 1 };
        examples.extend(std::iter::repeat_n(e, times));
    }
    train(&[CATEGORY.to_string()], &examples, params)
}

/// A paragraph's weight in recall: the relations it holds, or one for a
/// paragraph a reviewer sends.
fn weight(p: &Labelled) -> f64 {
    if p.positive {
        f64::from(p.relations.max(1))
    } else {
        0.0
    }
}

/// The thresholds (see the module's notes) for out-of-fold `scores`.
fn choose(paragraphs: &[Labelled], scores: &[f32], recall: f64) -> Thresholds {
    let mut positive: Vec<(f32, f64)> = paragraphs
        .iter()
        .zip(scores)
        .filter(|(p, _)| p.positive)
        .map(|(p, &s)| (s, weight(p)))
        .collect();
    positive.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = positive.iter().map(|p| p.1).sum();
    // With room for rounding: keeping 90% of ten relations may lose one.
    let may_lose = (1.0 - recall) * total + 1e-9;
    let mut lost = 0.0;
    let mut inside = 0.0;
    for &(s, w) in &positive {
        if lost + w > may_lose {
            inside = s;
            break;
        }
        lost += w;
    }
    let mut all: Vec<(f32, bool)> = paragraphs
        .iter()
        .zip(scores)
        .map(|(p, &s)| (s, p.positive))
        .collect();
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut rescue = f32::INFINITY;
    let mut held = 0usize;
    for (n, &(s, positive)) in all.iter().enumerate() {
        held += usize::from(positive);
        if n + 1 >= 5 && held as f64 >= RESCUE_PRECISION * (n + 1) as f64 {
            rescue = s;
        }
    }
    Thresholds {
        inside,
        rescue: rescue.max(inside),
    }
}

/// The share of relations a routing keeps and of characters it cuts.
fn kept(paragraphs: &[Labelled], sent: impl Fn(&Labelled, usize) -> bool) -> Kept {
    let (mut rel, mut rel_kept, mut chars, mut chars_cut) = (0u64, 0u64, 0usize, 0usize);
    for (i, p) in paragraphs.iter().enumerate() {
        let s = sent(p, i);
        rel += u64::from(p.relations);
        chars += p.chars;
        if s {
            rel_kept += u64::from(p.relations);
        } else {
            chars_cut += p.chars;
        }
    }
    let share = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    Kept {
        relations: share(rel_kept as f64, rel as f64),
        cut: share(chars_cut as f64, chars as f64),
    }
}

/// The comment lines written above a learned model: what it was learned
/// from and how it measured.
pub fn describe(doc_type: &str, batches: &[String], labels: &Labels, l: &Learned) -> Vec<String> {
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    vec![
        format!(
            "kgroute learned model of {doc_type} documents: the probability that a paragraph holds a relation worth extracting"
        ),
        "written by `kgroute index learn --write`; learn it again rather than edit it".into(),
        format!("learned from: {}", batches.join(", ")),
        format!(
            "{} documents, {} paragraphs of {} sections read whole: {} hold a relation, {} decided by a reviewer",
            labels.documents.len(),
            labels.paragraphs.len(),
            labels.sections_read,
            l.positives,
            l.reviewed
        ),
        format!(
            "thresholds chosen on documents the model did not learn from ({} folds by document); on them, \
             titles alone keep {} of the relations and cut {} of the characters, titles and this model {} and {}",
            l.folds,
            pct(l.titles.relations),
            pct(l.titles.cut),
            pct(l.with_model.relations),
            pct(l.with_model.cut)
        ),
        l.params.to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(document: usize, positive: bool, relations: u32, tier: Option<Tier>) -> Labelled {
        Labelled {
            document,
            title: String::new(),
            text: String::new(),
            chars: 100,
            relations,
            positive,
            reviewed: false,
            title_tier: tier,
        }
    }

    #[test]
    fn inside_keeps_the_asked_share_of_relations_and_rescue_half_precision() {
        let positive = [0.9, 0.8, 0.7, 0.6, 0.01];
        let negative = [0.65, 0.3, 0.2, 0.1, 0.05, 0.04, 0.03, 0.02];
        let mut ps = Vec::new();
        let mut scores = Vec::new();
        for s in positive {
            ps.push(p(0, true, 1, None));
            scores.push(s);
        }
        for s in negative {
            ps.push(p(0, false, 0, None));
            scores.push(s);
        }
        // Every relation kept: down to the lowest positive.
        let th = choose(&ps, &scores, 1.0);
        assert_eq!(th.inside, 0.01);
        // From 0.1 up, four of eight paragraphs hold a relation; below,
        // fewer than half.
        assert_eq!(th.rescue, 0.1);
        // Losing one relation of five is allowed at 80%.
        let th = choose(&ps, &scores, 0.8);
        assert_eq!(th.inside, 0.6);
        assert_eq!(th.rescue, 0.6, "never below inside");
    }

    #[test]
    fn a_paragraph_holding_many_relations_weighs_more() {
        let ps = vec![p(0, true, 9, None), p(0, true, 1, None)];
        let th = choose(&ps, &[0.1, 0.9], 0.85);
        assert_eq!(
            th.inside, 0.1,
            "dropping the nine-relation paragraph loses 90%"
        );
        let th = choose(&ps, &[0.9, 0.1], 0.85);
        assert_eq!(th.inside, 0.9, "the one-relation paragraph may go");
    }

    #[test]
    fn titles_decide_where_they_are_sure() {
        let th = Thresholds {
            inside: 0.3,
            rescue: 0.8,
        };
        assert!(sent_by(Some(Tier::High), 0.0, &th));
        assert!(!sent_by(Some(Tier::Medium), 0.2, &th));
        assert!(sent_by(None, 0.3, &th));
        assert!(!sent_by(Some(Tier::Low), 0.5, &th));
        assert!(sent_by(Some(Tier::VeryLow), 0.8, &th));
    }
}
