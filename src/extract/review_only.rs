//! Facts a document type reads but does not assert: the index's
//! `ontology.review_only` relation types. CUAD's clause kinds describe
//! commercial contracts; the same words in a credit agreement are another
//! clause (`the Agent shall have the sole and exclusive right` to collect
//! payments, `a minimum of $1,000,000` per loan). A reading of such a kind
//! becomes a [`Candidate`] the register lists to check, whichever
//! extractor made it, so nothing it found is lost and nothing it guessed is
//! asserted.

use super::{Candidate, Entity, Relation};
use crate::index::Ontology;

/// Moves the relations of the ontology's review-only types out of
/// `relations` into candidates, dropping a target no other relation
/// names (the clause entity the fact made).
pub fn hold(
    ontology: &Ontology,
    doc_type: &str,
    entities: &mut Vec<Entity>,
    relations: &mut Vec<Relation>,
) -> Vec<Candidate> {
    if ontology.review_only.is_empty() {
        return Vec::new();
    }
    let (held, kept): (Vec<Relation>, Vec<Relation>) = std::mem::take(relations)
        .into_iter()
        .partition(|r| ontology.review_only.contains(&r.relation_type));
    *relations = kept;
    let mut out = Vec::with_capacity(held.len());
    for relation in held {
        let named_elsewhere = relations
            .iter()
            .any(|r| r.source == relation.target || r.target == relation.target);
        let target_type = entities
            .iter()
            .find(|e| e.name == relation.target)
            .map(|e| e.entity_type.clone())
            .unwrap_or_default();
        if !named_elsewhere {
            entities.retain(|e| e.name != relation.target);
        }
        let why = format!(
            "a {} reads {} here, a kind of clause its index holds for review (ontology.review_only): \
             the words are those of the clause, the contract may mean something else",
            doc_type.replace('_', " "),
            relation.relation_type
        );
        out.push(Candidate {
            relation,
            target_type,
            why,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(name: &str, ty: &str) -> Entity {
        Entity {
            name: name.into(),
            entity_type: ty.into(),
            aliases: vec![],
            description: String::new(),
        }
    }

    fn relation(source: &str, ty: &str, target: &str) -> Relation {
        Relation {
            source: source.into(),
            relation_type: ty.into(),
            target: target.into(),
            evidence: "Agent shall have the sole and exclusive right to collect".into(),
            reading: None,
        }
    }

    #[test]
    fn a_review_only_fact_becomes_a_candidate_and_its_own_target_goes() {
        let mut o = Ontology::default();
        o.review_only.insert("EXCLUSIVITY".into());
        let mut entities = vec![
            entity("Agent", "Role"),
            entity("sole and exclusive right to collect", "Right"),
            entity("Borrower", "Role"),
        ];
        let mut relations = vec![
            relation(
                "Agent",
                "EXCLUSIVITY",
                "sole and exclusive right to collect",
            ),
            relation("Borrower", "BORROWS_FROM", "Agent"),
        ];
        let held = hold(&o, "credit_agreement", &mut entities, &mut relations);
        assert_eq!(held.len(), 1);
        assert_eq!(held[0].relation.relation_type, "EXCLUSIVITY");
        assert_eq!(held[0].target_type, "Right");
        assert!(held[0].why.contains("credit agreement"), "{}", held[0].why);
        assert_eq!(relations.len(), 1);
        assert_eq!(relations[0].relation_type, "BORROWS_FROM");
        // The party stays (another relation names it); the clause goes.
        let names: Vec<&str> = entities.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["Agent", "Borrower"]);
    }

    #[test]
    fn without_review_only_types_nothing_moves() {
        let o = Ontology::default();
        let mut entities = vec![entity("Agent", "Role")];
        let mut relations = vec![relation("Agent", "EXCLUSIVITY", "x")];
        assert!(hold(&o, "commercial", &mut entities, &mut relations).is_empty());
        assert_eq!(relations.len(), 1);
    }
}
