//! Builds a document's [`PartyRegistry`] with the readers the rules use on
//! each section: the parties clause (`clause`), the signature blocks
//! (`signature`), then the pronouns the opening defines (`("we," "us," or
//! "our")`, `("you" or the "Franchisee")`), which no section reader keeps
//! because they are not terms.

use super::common::builder::Builder;
use super::common::names::spellings;
use super::common::orgs::clear_org_matches;
use super::common::terms::{push_term, valid_term, PAREN_TERM};
use super::common::text::{clean, normalize_ws, paragraphs, without_contents_lines};
use super::readers::{parties_clause, signatories, spread_parties_clauses, unfold_columns};
use crate::extract::party_registry::{registry_texts, PartyRegistry, RegisteredParty, PRONOUNS};
use crate::route::RoutePlan;
use crate::tree::SourceText;
use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::HashSet;

/// A parenthetical holding a quoted pronoun: `("we," "us," or "our")`,
/// `("you" or the "Franchisee")`, `(the "Company" or "we")`.
static PRONOUN_PAREN: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r#"(?i)\([^()]{0,80}?"\s*(?:we|us|our|you|your)\s*[,.]?\s*"[^()]{0,120}?\)"#)
        .unwrap()
});

/// A quoted name inside a parenthetical.
static QUOTED: Lazy<Regex> = Lazy::new(|| Regex::new(r#""([^"]{1,60})""#).unwrap());

/// How far before a pronoun parenthetical the party's name may start (an
/// address often sits between them).
const LOOKBACK: usize = 400;

/// The registry of a planned document, read from the texts
/// [`registry_texts`] cuts out of it.
pub fn document_registry(plan: &RoutePlan, source: &SourceText) -> PartyRegistry {
    let (opening, signatures) = registry_texts(plan, source);
    party_registry(opening, &signatures)
}

/// The registry of a document from its opening (the parties clause) and
/// its signature sections.
pub fn party_registry(opening: &str, signatures: &[&str]) -> PartyRegistry {
    clear_org_matches();
    let text = without_contents_lines(&clean(opening));
    let paras = paragraphs(&text);
    let mut set: HashSet<String> = HashSet::new();
    let mut terms: Vec<String> = Vec::new();
    for p in &paras {
        for c in PAREN_TERM.captures_iter(p) {
            push_term(&mut terms, &mut set, &c[2]);
        }
    }
    let mut b = Builder {
        spellings: spellings(&paras),
        ..Builder::default()
    };
    for joined in spread_parties_clauses(&paras) {
        parties_clause(&mut b, &joined, &set);
    }
    for p in &paras {
        parties_clause(&mut b, p, &set);
    }
    for s in signatures {
        let unfolded = unfold_columns(s);
        let paras = paragraphs(&without_contents_lines(&clean(
            unfolded.as_deref().unwrap_or(s),
        )));
        signatories(&mut b, &paras, &set);
    }
    clear_org_matches();
    let mut reg = from_builder(&b);
    pronouns(&mut reg, &b, &text);
    reg
}

/// The organisations of the builder with the names defined for them
/// (DEFINED_AS) and their roles (HAS_ROLE).
fn from_builder(b: &Builder) -> PartyRegistry {
    let mut reg = PartyRegistry::default();
    for e in b
        .entities
        .iter()
        .filter(|e| e.entity_type == "Organization")
    {
        reg.parties.push(RegisteredParty {
            name: e.name.clone(),
            kind: "Organization".into(),
            ..RegisteredParty::default()
        });
    }
    for r in &b.relations {
        let (owner, value, roles) = match r.relation_type.as_str() {
            "DEFINED_AS" => (&r.target, &r.source, false),
            "HAS_ROLE" => (&r.source, &r.target, true),
            _ => continue,
        };
        let Some(p) = reg.parties.iter_mut().find(|p| p.name == *owner) else {
            continue;
        };
        let list = if roles { &mut p.roles } else { &mut p.names };
        if !list.iter().any(|n| n == value) {
            list.push(value.clone());
        }
    }
    // A party only met as a bare signatory name and never defined is kept:
    // it signs, so it is a party.
    reg
}

/// Pronouns defined in the opening: each pronoun parenthetical belongs to
/// the party one of its quoted names already names, else to the
/// organisation written last before it (within [`LOOKBACK`]); a
/// parenthetical after a blank name (`a ... company ("you" or the
/// "Franchisee")`) makes a party of its quoted names.
fn pronouns(reg: &mut PartyRegistry, b: &Builder, text: &str) {
    let mut floor = 0;
    for m in PRONOUN_PAREN.find_iter(text) {
        let mut pron: Vec<String> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for q in QUOTED.captures_iter(m.as_str()) {
            let raw = normalize_ws(q[1].trim_matches([',', '.', ' ', ';']));
            let low = raw.to_lowercase();
            if PRONOUNS.contains(&low.as_str()) {
                if !pron.contains(&low) {
                    pron.push(low);
                }
            } else {
                let t = raw.strip_prefix("the ").unwrap_or(&raw).to_string();
                if valid_term(&t) {
                    names.push(t);
                }
            }
        }
        // A pronoun another party already has is that party's (a later
        // exhibit restating the parties).
        pron.retain(|p| !reg.parties.iter().any(|q| q.pronouns.contains(p)));
        if pron.is_empty() {
            floor = m.end();
            continue;
        }
        let by_name = reg
            .parties
            .iter()
            .position(|p| names.iter().any(|n| p.names.iter().any(|k| k == n)));
        let from = floor.max(m.start().saturating_sub(LOOKBACK));
        let by_place = || {
            let before = text.get(from..m.start()).unwrap_or("");
            reg.parties
                .iter()
                .enumerate()
                .filter_map(|(i, p)| {
                    let spellings = b
                        .entities
                        .iter()
                        .find(|e| e.entity_type == "Organization" && e.name == p.name)
                        .map(|e| e.aliases.clone())
                        .unwrap_or_default();
                    std::iter::once(&p.name)
                        .chain(spellings.iter())
                        .filter(|s| !s.is_empty())
                        .filter_map(|s| before.rfind(s.as_str()))
                        .max()
                        .map(|at| (at, i))
                })
                .max()
                .map(|(_, i)| i)
        };
        let at = by_name.or_else(by_place);
        let party = match at {
            Some(i) => &mut reg.parties[i],
            None if !names.is_empty() => {
                reg.parties.push(RegisteredParty::default());
                reg.parties.last_mut().expect("just pushed")
            }
            None => {
                floor = m.end();
                continue;
            }
        };
        for n in names {
            if !party.names.contains(&n) {
                party.names.push(n);
            }
        }
        party.pronouns.extend(pron);
        floor = m.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn franchise_opening_defines_we_and_you() {
        let opening = "THIS FRANCHISE AGREEMENT (the \"Agreement\") is made and entered into as of the \"Effective Date\" by and between: Goosehead Insurance Agency, LLC, a Delaware limited liability company, with its principal place of business at 1500 Solana Blvd., Suite 450, Westlake, Texas 76262 (\"we,\" \"us,\" or \"our\"); and a [limited liability company organized in] the state of and having offices at (\"you\" or the \"Franchisee\").";
        let r = party_registry(opening, &[]);
        let we = r.resolve("We").expect("we");
        assert_eq!(we.name, "Goosehead Insurance Agency, LLC");
        let you = r.resolve("you").expect("you");
        assert_eq!(you.names, vec!["Franchisee"]);
        assert!(you.name.is_empty());
        assert_eq!(
            r.resolve("Franchisee").map(|p| &p.pronouns),
            Some(&you.pronouns)
        );
    }

    #[test]
    fn party_letters_and_short_names_resolve() {
        let opening = "This Cooperation Agreement is entered into by and between:\n\n(1) Nanjing Tuniu Technology Co., Ltd., with its registered address at Nanjing (\"Party A\");\n\n(2) Beijing Tuniu Technology Co., Ltd., with its registered address at Beijing (\"Party B\").\n\nWHEREAS";
        let r = party_registry(opening, &[]);
        assert_eq!(
            r.resolve("Party A").map(|p| p.name.as_str()),
            Some("Nanjing Tuniu Technology Co., Ltd.")
        );
        assert_eq!(
            r.resolve("Party B").map(|p| p.name.as_str()),
            Some("Beijing Tuniu Technology Co., Ltd.")
        );
        assert!(r.prompt_lines().contains("\"Party A\""));
    }
}
