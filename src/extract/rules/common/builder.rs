//! Collects entities and relations without duplicates, in first-seen order.

use super::names::display_name;
use super::orgs::OrgMatch;
use super::text::normalize_ws;
use crate::extract::{Candidate, Entity, Reading, Relation};
use std::collections::{HashMap, HashSet};

/// Raw output of the rules, before ontology pruning.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RulesOutput {
    pub entities: Vec<Entity>,
    pub relations: Vec<Relation>,
    /// Typed facts held back for review.
    pub candidates: Vec<Candidate>,
}

/// Collects entities and relations without duplicates, in first-seen order.
#[derive(Default)]
pub(in crate::extract::rules) struct Builder {
    pub(in crate::extract::rules) entities: Vec<Entity>,
    pub(in crate::extract::rules) index: HashMap<(String, &'static str), usize>,
    pub(in crate::extract::rules) relations: Vec<Relation>,
    pub(in crate::extract::rules) seen: HashSet<(String, String, String)>,
    /// The relation types the ontology offers of those the readers emit
    /// (see [`Builder::offered`]).
    pub(in crate::extract::rules) offered: HashSet<&'static str>,
    /// How the section spells words of organisation names in mixed case
    /// (see [`super::names::spellings`]).
    pub(in crate::extract::rules) spellings: HashMap<String, String>,
    /// The document's party short names (`Miltenyi`): subjects a duty or
    /// a right can bind, like a role.
    pub(in crate::extract::rules) parties: HashSet<String>,
    /// The document's parties under every name: a duty's subject or
    /// beneficiary written as `you`, `Party A` or a short name resolves
    /// through it.
    pub(in crate::extract::rules) registry: crate::extract::party_registry::PartyRegistry,
    /// The cross-references the current paragraph's clauses took.
    pub(in crate::extract::rules) clause_refs: HashSet<String>,
    /// Typed facts held back for review.
    pub(in crate::extract::rules) candidates: Vec<Candidate>,
}

impl Builder {
    /// `relation_type` when the ontology offers it. A reader asks before
    /// writing a relation it can write another way (`AMOUNT_OF`, else
    /// `REFERENCES`) or do without (`TERMINATES`).
    pub(in crate::extract::rules) fn offered(
        &self,
        relation_type: &'static str,
    ) -> Option<&'static str> {
        self.offered
            .contains(relation_type)
            .then_some(relation_type)
    }

    /// A subject that can hold a duty or a right: a role (`the Tenant`) or
    /// one of the document's party short names (`Bellicum`).
    pub(in crate::extract::rules) fn bindable(&self, subject: &str) -> bool {
        super::roles::is_role(subject)
            || self.parties.contains(subject)
            || self.registry.resolve(subject).is_some()
    }

    /// Adds (or finds) an entity; returns its canonical name.
    pub(in crate::extract::rules) fn entity(
        &mut self,
        name: &str,
        ty: &'static str,
        desc: &str,
    ) -> String {
        let name = normalize_ws(name);
        let key = (name.to_lowercase(), ty);
        if let Some(&i) = self.index.get(&key) {
            if self.entities[i].description.is_empty() && !desc.is_empty() {
                self.entities[i].description = desc.to_string();
            }
            return self.entities[i].name.clone();
        }
        self.index.insert(key, self.entities.len());
        self.entities.push(Entity {
            name: name.clone(),
            entity_type: ty.to_string(),
            aliases: Vec::new(),
            description: desc.to_string(),
        });
        name
    }

    /// Adds (or finds) an organisation named in the text, with its
    /// spelling as written as an alias; returns its canonical name.
    /// `X, National Association` and `X, N.A.` are one bank: the form
    /// seen first is the name, the other an alias.
    pub(in crate::extract::rules) fn org(&mut self, m: &OrgMatch) -> String {
        let name = display_name(&m.raw, &self.spellings);
        let known = na_variant(&name)
            .and_then(|v| self.index.get(&(v.to_lowercase(), "Organization")))
            .map(|&i| self.entities[i].name.clone());
        let o = match known {
            Some(o) => {
                self.alias(&o, "Organization", &name);
                o
            }
            None => self.entity(&name, "Organization", ""),
        };
        self.alias(&o, "Organization", &m.raw);
        for t in &m.trade_names {
            self.alias(&o, "Organization", t);
        }
        o
    }

    pub(in crate::extract::rules) fn alias(&mut self, name: &str, ty: &'static str, alias: &str) {
        if let Some(&i) = self.index.get(&(name.to_lowercase(), ty)) {
            let e = &mut self.entities[i];
            if alias != e.name && !e.aliases.iter().any(|a| a == alias) {
                e.aliases.push(alias.to_string());
            }
        }
    }

    pub(in crate::extract::rules) fn relate(
        &mut self,
        source: &str,
        ty: &str,
        target: &str,
        evidence: &str,
    ) {
        self.relate_read(source, ty, target, evidence, None);
    }

    /// [`Builder::relate`] for a typed fact, with how it was read.
    pub(in crate::extract::rules) fn relate_read(
        &mut self,
        source: &str,
        ty: &str,
        target: &str,
        evidence: &str,
        reading: Option<Reading>,
    ) {
        if source.eq_ignore_ascii_case(target) {
            return;
        }
        let key = (source.to_lowercase(), ty.to_string(), target.to_lowercase());
        if self.seen.insert(key) {
            self.relations.push(Relation {
                source: source.to_string(),
                relation_type: ty.to_string(),
                target: target.to_string(),
                evidence: evidence.to_string(),
                reading,
            });
        }
    }

    /// Holds a fact back for review instead of asserting it: its target
    /// (the clause or value made for it since `entities_before`) is taken
    /// back, so a held fact leaves no clause in the graph; the parties it
    /// names stay, since the text names them there whatever the fact.
    pub(in crate::extract::rules) fn hold(
        &mut self,
        entities_before: usize,
        relation: Relation,
        why: String,
    ) {
        let target = self
            .entities
            .iter()
            .rposition(|e| e.name == relation.target);
        let target_type = target
            .map(|i| self.entities[i].entity_type.clone())
            .unwrap_or_default();
        if let Some(t) = target.filter(|&t| t >= entities_before) {
            self.entities.remove(t);
            self.index.retain(|_, i| *i != t);
            for i in self.index.values_mut() {
                if *i > t {
                    *i -= 1;
                }
            }
        }
        if !self.candidates.iter().any(|c| {
            c.relation.relation_type == relation.relation_type
                && c.relation.evidence == relation.evidence
        }) {
            self.candidates.push(Candidate {
                relation,
                target_type,
                why,
            });
        }
    }

    pub(in crate::extract::rules) fn finish(self) -> RulesOutput {
        RulesOutput {
            entities: self.entities,
            relations: self.relations,
            candidates: self.candidates,
        }
    }
}

/// `X, National Association` <-> `X, N.A.` (any case).
fn na_variant(name: &str) -> Option<String> {
    for (from, to) in [
        (", national association", ", N.A."),
        (", n.a.", ", National Association"),
    ] {
        let Some(at) = name.len().checked_sub(from.len()) else {
            continue;
        };
        if name.is_char_boundary(at) && name[at..].eq_ignore_ascii_case(from) {
            return Some(format!("{}{to}", &name[..at]));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::extract::rules::extract;
    use crate::extract::rules::test_support::{input, org_names};

    #[test]
    fn national_association_and_n_a_are_one_bank() {
        let o = extract(&input(
            "Exhibit",
            "among JPMorgan Chase Bank, N.A., as Agent, and the Lenders.\n\n\
             Notices to JPMORGAN CHASE BANK, NATIONAL ASSOCIATION, as Agent.",
        ));
        assert_eq!(
            org_names(&o),
            ["JPMorgan Chase Bank, N.A."],
            "{:#?}",
            o.entities
        );
        let jp = &o.entities[0];
        assert_eq!(
            jp.aliases,
            [
                "JPMorgan Chase Bank, National Association",
                "JPMORGAN CHASE BANK, NATIONAL ASSOCIATION"
            ]
        );
    }
}
