//! A document's verdicts applied to its extractions. Per clause kind the
//! offline reading and the model's are compared; the model's decides only
//! where the calibration trusts it with the kind (else nothing changes),
//! and then: a held fact it confirms is asserted, a paragraph it confirms
//! that no rule read becomes a fact with the model's quote, an asserted
//! fact it denies goes to the reviewer with why. A question it did not
//! answer changes nothing.

use super::ask::Verdict;
use super::calibration::Calibration;
use super::questions::{Origin, Question};
use crate::extract::facts_vocabulary::category_of;
use crate::extract::{Basis, Candidate, Entity, Reading, Relation, SectionExtraction};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the verifier found about one clause kind of one document: what a
/// calibration learns from, and what the register row shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CategoryCheck {
    /// The offline reading marks the kind present.
    pub offline: bool,
    /// The model's reading: present when it said yes to a question of the
    /// kind, absent when it answered them all no; none without an answer.
    pub model: Option<bool>,
    /// Questions asked about the kind, and how many got a usable answer.
    pub asked: u32,
    pub answered: u32,
    /// `model` or `offline`: whose reading the register shows.
    pub decided_by: String,
}

/// Applies `verdicts` (one per question, in order) to `extractions`;
/// returns each asked kind's check. `model_name` names the verifier in the
/// reasons a reviewer reads.
pub fn apply(
    extractions: &mut [SectionExtraction],
    questions: &[Question],
    verdicts: &[Verdict],
    calibration: Option<&Calibration>,
    model_name: &str,
) -> BTreeMap<String, CategoryCheck> {
    let mut checks: BTreeMap<String, CategoryCheck> = BTreeMap::new();
    for x in extractions.iter() {
        for r in &x.relations {
            if let Some(c) = checks.get_mut(&r.relation_type) {
                c.offline = true;
            }
        }
    }
    for (q, v) in questions.iter().zip(verdicts) {
        let c = checks.entry(q.relation_type.clone()).or_default();
        c.asked += 1;
        match v {
            Verdict::Yes { .. } => {
                c.answered += 1;
                c.model = Some(true);
            }
            Verdict::No => {
                c.answered += 1;
                c.model.get_or_insert(false);
            }
            Verdict::Unanswered(_) => {}
        }
    }
    for (ty, c) in checks.iter_mut() {
        c.offline = extractions
            .iter()
            .any(|x| x.relations.iter().any(|r| &r.relation_type == ty));
        let trusted = calibration.is_some_and(|cal| cal.trusts(ty));
        c.decided_by = if trusted && c.model.is_some() {
            "model"
        } else {
            "offline"
        }
        .to_string();
    }

    // Changes per section, applied from the highest index down so earlier
    // indices stay valid.
    let mut demote: BTreeMap<usize, Vec<(usize, String)>> = BTreeMap::new();
    let mut promote: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut add: BTreeMap<usize, Vec<(String, String, String)>> = BTreeMap::new();
    for (q, v) in questions.iter().zip(verdicts) {
        if checks[&q.relation_type].decided_by != "model" {
            continue;
        }
        let name = category_of(&q.relation_type).unwrap_or(&q.relation_type);
        for origin in &q.origins {
            match (origin, v) {
                (Origin::Asserted(k), Verdict::No) => demote.entry(q.section).or_default().push((
                    *k,
                    format!("the rules read a {name} clause here; {model_name}, asked about these words, says it is none (its answers are calibrated to decide this kind)"),
                )),
                (Origin::Held(k), Verdict::Yes { .. }) => promote.entry(q.section).or_default().push(*k),
                (Origin::Suggested(_), Verdict::Yes { quote, party }) => add
                    .entry(q.section)
                    .or_default()
                    .push((q.relation_type.clone(), quote.clone(), party.clone())),
                _ => {}
            }
        }
    }
    for (i, x) in extractions.iter_mut().enumerate() {
        let mut held = promote.remove(&i).unwrap_or_default();
        held.sort_unstable();
        held.dedup();
        for k in held.into_iter().rev() {
            let c = x.candidates.remove(k);
            assert_fact(x, c.relation, &c.target_type);
        }
        let mut denied = demote.remove(&i).unwrap_or_default();
        denied.sort_by_key(|d| d.0);
        denied.dedup_by_key(|d| d.0);
        for (k, why) in denied.into_iter().rev() {
            let r = x.relations.remove(k);
            let target_type = x
                .entities
                .iter()
                .find(|e| e.name == r.target)
                .map(|e| e.entity_type.clone())
                .unwrap_or_default();
            if !x
                .relations
                .iter()
                .any(|o| o.source == r.target || o.target == r.target)
            {
                x.entities.retain(|e| e.name != r.target);
            }
            x.candidates.push(Candidate {
                relation: r,
                target_type,
                why,
            });
        }
        for (ty, quote, party) in add.remove(&i).unwrap_or_default() {
            let category = category_of(&ty).unwrap_or_default();
            let target_type =
                crate::extract::rules::clause_target_type(category).unwrap_or("Right");
            let source = x
                .entities
                .iter()
                .find(|e| !party.is_empty() && e.name.eq_ignore_ascii_case(&party))
                .map(|e| e.name.clone())
                .unwrap_or_else(|| "Agreement".to_string());
            let relation = Relation {
                source,
                relation_type: ty,
                target: quote.clone(),
                evidence: quote,
                reading: None,
            };
            assert_fact(x, relation, target_type);
        }
    }
    checks
}

/// Adds a confirmed fact with its ends to a section's reading.
fn assert_fact(x: &mut SectionExtraction, mut relation: Relation, target_type: &str) {
    let score = relation.reading.and_then(|r| r.score());
    relation.reading = Some(Reading::new(Basis::Verified, score));
    if relation.source == "Agreement" && !x.entities.iter().any(|e| e.name == "Agreement") {
        x.entities.push(Entity {
            name: "Agreement".into(),
            entity_type: "DefinedTerm".into(),
            aliases: Vec::new(),
            description: String::new(),
        });
    }
    if !x.entities.iter().any(|e| e.name == relation.target) {
        x.entities.push(Entity {
            name: relation.target.clone(),
            entity_type: target_type.to_string(),
            aliases: Vec::new(),
            description: String::new(),
        });
    }
    if !x.relations.contains(&relation) {
        x.relations.push(relation);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::SectionStatus;

    fn relation(ty: &str, target: &str) -> Relation {
        Relation {
            source: "Agreement".into(),
            relation_type: ty.into(),
            target: target.into(),
            evidence: target.into(),
            reading: Some(Reading::new(Basis::RuleAndModel, Some(0.4))),
        }
    }

    fn section() -> SectionExtraction {
        let mut x =
            SectionExtraction::blank("d".into(), "0001".into(), "rules".into(), SectionStatus::Ok);
        x.entities = vec![
            Entity {
                name: "Agreement".into(),
                entity_type: "DefinedTerm".into(),
                aliases: vec![],
                description: String::new(),
            },
            Entity {
                name: "shall not compete".into(),
                entity_type: "Covenant".into(),
                aliases: vec![],
                description: String::new(),
            },
        ];
        x.relations = vec![relation("NON_COMPETE", "shall not compete")];
        x.candidates = vec![Candidate {
            relation: relation("AUDIT_RIGHTS", "books open for inspection"),
            target_type: "Right".into(),
            why: "held".into(),
        }];
        x
    }

    fn question(id: &str, ty: &str, origin: Origin) -> Question {
        Question {
            id: id.into(),
            section: 0,
            relation_type: ty.into(),
            breadcrumb: "[1]".into(),
            excerpt: "p".into(),
            origins: vec![origin],
        }
    }

    fn trusting(kinds: &[&str]) -> Calibration {
        Calibration::trusting("test-model", kinds)
    }

    #[test]
    fn a_trusted_model_confirms_held_facts_and_denies_asserted_ones() {
        let qs = [
            question("q1", "NON_COMPETE", Origin::Asserted(0)),
            question("q2", "AUDIT_RIGHTS", Origin::Held(0)),
            question("q3", "INSURANCE", Origin::Suggested(0.3)),
        ];
        let yes = |q: &str| Verdict::Yes {
            quote: q.into(),
            party: String::new(),
        };
        let verdicts = [
            Verdict::No,
            yes("books open for inspection"),
            yes("shall maintain insurance"),
        ];
        let mut xs = [section()];
        let checks = apply(
            &mut xs,
            &qs,
            &verdicts,
            Some(&trusting(&["NON_COMPETE", "AUDIT_RIGHTS", "INSURANCE"])),
            "m",
        );
        let kinds: Vec<_> = xs[0]
            .relations
            .iter()
            .map(|r| r.relation_type.as_str())
            .collect();
        assert_eq!(kinds, ["AUDIT_RIGHTS", "INSURANCE"]);
        assert!(xs[0]
            .relations
            .iter()
            .all(|r| r.reading.unwrap().basis == Basis::Verified));
        assert_eq!(xs[0].candidates.len(), 1);
        assert!(xs[0].candidates[0].why.contains("says it is none"));
        assert!(!xs[0].entities.iter().any(|e| e.name == "shall not compete"));
        assert!(xs[0]
            .entities
            .iter()
            .any(|e| e.name == "shall maintain insurance" && e.entity_type == "Obligation"));
        assert_eq!(
            checks["NON_COMPETE"],
            CategoryCheck {
                offline: true,
                model: Some(false),
                asked: 1,
                answered: 1,
                decided_by: "model".into()
            }
        );
        assert_eq!(checks["AUDIT_RIGHTS"].model, Some(true));
    }

    #[test]
    fn without_trust_or_answers_nothing_changes_but_the_record() {
        let qs = [
            question("q1", "NON_COMPETE", Origin::Asserted(0)),
            question("q2", "AUDIT_RIGHTS", Origin::Held(0)),
        ];
        for (cal, verdicts) in [
            (
                None,
                [
                    Verdict::No,
                    Verdict::Yes {
                        quote: "books open for inspection".into(),
                        party: String::new(),
                    },
                ],
            ),
            (
                Some(trusting(&["AUDIT_RIGHTS"])),
                [Verdict::No, Verdict::Unanswered("junk".into())],
            ),
        ] {
            let mut xs = [section()];
            let checks = apply(&mut xs, &qs, &verdicts, cal.as_ref(), "m");
            assert_eq!(xs[0], section());
            assert!(
                checks.values().all(|c| c.decided_by == "offline"),
                "{checks:?}"
            );
            assert_eq!(checks["NON_COMPETE"].model, Some(false));
        }
    }
}
