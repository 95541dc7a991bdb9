//! Relation patterns: the entity types each relation type may start and
//! end at (`HAS_ROLE: "Organization|Person -> Role"`), written in an
//! index's `ontology.relation_patterns`.
//!
//! A type enum alone lets a careless model write `Supplier -HAS_ROLE->
//! Buyer` or `Supplier -GOVERNING_LAW-> Buyer`: both ends are allowed
//! types, the pairing is not. The patterns say which pairings a relation
//! takes; `validate::prune_in_section` prunes any relation (rules and model
//! alike) whose ends fall outside them, and the prompt shows them to the
//! model. `*` on a side allows any type there.

use super::Ontology;
use std::fmt;

/// The parsed form of one `relation_patterns` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelationPattern {
    pub sources: Vec<String>,
    pub targets: Vec<String>,
}

/// A side that allows any entity type.
pub const ANY: &str = "*";

impl RelationPattern {
    /// `"A|B -> C"`: types separated by `|`, the sides by `->`.
    pub fn parse(text: &str) -> Result<RelationPattern, String> {
        let Some((from, to)) = text.split_once("->") else {
            return Err(format!(
                "`{text}` has no `->` between the source and target types"
            ));
        };
        let side = |s: &str| -> Result<Vec<String>, String> {
            let types: Vec<String> = s.split('|').map(|t| t.trim().to_string()).collect();
            if types.iter().any(String::is_empty) {
                return Err(format!("`{text}` has an empty type (write `A|B -> C`)"));
            }
            Ok(types)
        };
        if to.contains("->") {
            return Err(format!("`{text}` has more than one `->`"));
        }
        Ok(RelationPattern {
            sources: side(from)?,
            targets: side(to)?,
        })
    }

    pub fn allows_source(&self, entity_type: &str) -> bool {
        allows(&self.sources, entity_type)
    }

    pub fn allows_target(&self, entity_type: &str) -> bool {
        allows(&self.targets, entity_type)
    }

    /// Every type named on either side (not `*`), in order.
    pub fn types(&self) -> impl Iterator<Item = &str> {
        self.sources
            .iter()
            .chain(&self.targets)
            .map(String::as_str)
            .filter(|t| *t != ANY)
    }
}

fn allows(side: &[String], entity_type: &str) -> bool {
    side.iter().any(|t| t == ANY || t == entity_type)
}

impl fmt::Display for RelationPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} -> {}",
            self.sources.join("|"),
            self.targets.join("|")
        )
    }
}

impl Ontology {
    /// The pattern of a relation type, when the index gives one (a
    /// pattern that does not parse is `index check`'s to report; here it
    /// constrains nothing).
    pub fn pattern(&self, relation_type: &str) -> Option<RelationPattern> {
        self.relation_patterns
            .get(relation_type)
            .and_then(|p| RelationPattern::parse(p).ok())
    }
}

/// What is wrong with one pattern of a merged ontology: it does not parse,
/// names a relation type the ontology lacks, or an entity type it lacks.
pub fn pattern_problems(
    ontology: &Ontology,
    relation_type: &str,
    text: &str,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if !ontology.relation_types.contains_key(relation_type) {
        out.push((
            format!("relation pattern for `{relation_type}`, which is not in `relation_types`"),
            format!("add `{relation_type}` to `ontology.relation_types` or drop its pattern"),
        ));
    }
    match RelationPattern::parse(text) {
        Err(e) => out.push((
            format!("relation pattern of `{relation_type}`: {e}"),
            "write `SourceType|OtherType -> TargetType` (`*` for any type)".into(),
        )),
        Ok(p) => {
            for t in p.types() {
                if !ontology.entity_types.contains_key(t) {
                    let known: Vec<&str> =
                        ontology.entity_types.keys().map(String::as_str).collect();
                    out.push((
                        format!(
                            "relation pattern of `{relation_type}` names `{t}`, which is not in `entity_types`"
                        ),
                        format!(
                            "name one of {} or add `{t}` to `ontology.entity_types`",
                            known.join(", ")
                        ),
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sides_and_any() {
        let p = RelationPattern::parse(" Organization|Person -> Role ").unwrap();
        assert_eq!(p.sources, ["Organization", "Person"]);
        assert_eq!(p.targets, ["Role"]);
        assert!(p.allows_source("Person") && !p.allows_source("Role"));
        assert!(p.allows_target("Role") && !p.allows_target("Organization"));
        assert_eq!(p.to_string(), "Organization|Person -> Role");
        let any = RelationPattern::parse("* -> SectionRef").unwrap();
        assert!(any.allows_source("Obligation"));
        assert_eq!(any.types().collect::<Vec<_>>(), ["SectionRef"]);
        for bad in ["Organization", "A -> B -> C", "A| -> B", "A -> "] {
            assert!(RelationPattern::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn problems_name_unknown_types() {
        let mut o = Ontology::default();
        o.entity_types.insert("Organization".into(), String::new());
        o.entity_types.insert("Role".into(), String::new());
        o.relation_types.insert("HAS_ROLE".into(), String::new());
        assert!(pattern_problems(&o, "HAS_ROLE", "Organization -> Role").is_empty());
        let p = pattern_problems(&o, "HAS_ROLE", "Organisation -> Role");
        assert_eq!(p.len(), 1);
        assert!(p[0].0.contains("`Organisation`"), "{p:?}");
        assert!(p[0].1.contains("Organization, Role"), "{p:?}");
        let p = pattern_problems(&o, "PAYS", "Organization -> Role");
        assert!(p[0].0.contains("not in `relation_types`"), "{p:?}");
    }
}
