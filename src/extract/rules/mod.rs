//! The offline rules extractor: a deterministic legal-text extractor that
//! runs when no LLM is configured. It is the default and the baseline to
//! compare LLMs against, so it emits the same schema as the LLM: defined
//! terms, parties and their roles, obligations and negative covenants,
//! section references, amounts and rates, linked by the credit-agreement
//! relation types (IS_A, DEFINED_AS, HAS_ROLE, AGENT_FOR, OBLIGATED_TO,
//! MUST_MAINTAIN, RESTRICTS, REFERENCES).
//!
//! It produces canonical type names; the caller maps them onto the index's
//! ontology and prunes (with a reason) whatever the ontology lacks.
//!
//! Layout: `text` (cleaning, paragraphs, quotes), `terms` (definitions and
//! values), `parties` (organisations and roles), `obligations`
//! (obligations and covenants), `qualifiers` (the conditions, exceptions
//! and periods a duty's sentence attaches to it), `facts` (the typed facts
//! lawyers mark: dates, money, grants, limits, remedies, forum, one
//! relation type per CUAD category), `builder` (deduplicating
//! collector); this file walks a section's paragraphs and dispatches to
//! them.

use super::validate::ontology_name;
use super::SectionInput;
use crate::index::Ontology;
use std::collections::HashSet;

mod common;
mod definitions;
mod facts;
mod grants;
mod law;
mod obligations;
mod parties;
mod parties_clause;
mod qualifiers;
mod registry;
mod signature;

use common::builder::Builder;
pub use common::builder::RulesOutput;
use common::clause::{clause_links, section_references};
use common::names::spellings;
use common::orgs::{clear_org_matches, corporate};
use common::own::OwnSection;
use common::terms::*;
use common::text::*;
use definitions::definition;
use grants::{leases, licence_grants};
use law::governing_law;
use obligations::*;
use parties::*;
use parties_clause::{parties_clause, spread_parties_clauses};
pub use registry::{document_registry, party_registry};
use signature::signatories;

/// The extractor name recorded in [`super::SectionExtraction::extractor`].
pub const EXTRACTOR: &str = "rules";

/// Runs the rules over one section. Deterministic: the same input always
/// gives the same output, in the same order.
pub fn extract(input: &SectionInput) -> RulesOutput {
    extract_for(input, &Ontology::default())
}

/// [`extract`], choosing relation types the ontology offers: `AMOUNT_OF`
/// and `RATE_OF` (value -> what it measures) when present, `REFERENCES`
/// otherwise.
pub fn extract_for(input: &SectionInput, ontology: &Ontology) -> RulesOutput {
    clear_org_matches();
    let unfolded = signature::unfold_columns(&input.text);
    let text = without_contents_lines(&clean(unfolded.as_deref().unwrap_or(&input.text)));
    let paragraphs = paragraphs(&text);
    let mut b = Builder {
        amount_of: ontology_name(&ontology.relation_types, "AMOUNT_OF").map(|_| "AMOUNT_OF"),
        rate_of: ontology_name(&ontology.relation_types, "RATE_OF").map(|_| "RATE_OF"),
        terminates: ontology_name(&ontology.relation_types, "TERMINATES").map(|_| "TERMINATES"),
        pays: ontology_name(&ontology.relation_types, "PAYS").map(|_| "PAYS"),
        licenses: ontology_name(&ontology.relation_types, "LICENSES").map(|_| "LICENSES"),
        leases_to: ontology_name(&ontology.relation_types, "LEASES_TO").map(|_| "LEASES_TO"),
        leases: ontology_name(&ontology.relation_types, "LEASES").map(|_| "LEASES"),
        exclusive_in: ontology_name(&ontology.relation_types, "EXCLUSIVE_IN")
            .map(|_| "EXCLUSIVE_IN"),
        conditioned_on: ontology_name(&ontology.relation_types, "CONDITIONED_ON")
            .map(|_| "CONDITIONED_ON"),
        has_exception: ontology_name(&ontology.relation_types, "HAS_EXCEPTION")
            .map(|_| "HAS_EXCEPTION"),
        has_period: ontology_name(&ontology.relation_types, "HAS_PERIOD").map(|_| "HAS_PERIOD"),
        triggers: ontology_name(&ontology.relation_types, "TRIGGERS").map(|_| "TRIGGERS"),
        parties: input
            .parties
            .iter()
            .map(|p| normalize_ws(p))
            .chain(input.registry.names().map(normalize_ws))
            .collect(),
        registry: input.registry.clone(),
        spellings: spellings(&paragraphs),
        ..Builder::default()
    };

    // Pass 1: every term the section defines, to recognise their uses.
    let mut terms: Vec<String> = Vec::new();
    let mut term_set: HashSet<String> = HashSet::new();
    for p in &paragraphs {
        if let Some(c) = DEFINITION.captures(p) {
            push_term(&mut terms, &mut term_set, &c[1]);
            if let Some(second) = c.get(2) {
                push_term(&mut terms, &mut term_set, second.as_str());
            }
        }
        for c in PAREN_TERM.captures_iter(p) {
            push_term(&mut terms, &mut term_set, &c[2]);
        }
    }
    let term_re = term_regex(&terms);
    // The names the opening defines for the parties are defined terms in
    // every section: `between Fox and Vodafone Group Services Limited`
    // joins two parties, not one name.
    for p in &input.registry.parties {
        // Not a company's own name kept among them (`WestRock Company`).
        for n in p
            .names
            .iter()
            .filter(|n| !n.split_whitespace().any(corporate))
        {
            term_set.insert(normalize_ws(n));
        }
    }

    for joined in spread_parties_clauses(&paragraphs) {
        parties_clause(&mut b, &joined, &term_set);
    }
    signatories(&mut b, &paragraphs, &term_set);
    let own = OwnSection::of(input);
    let credit = input.doc_type.to_ascii_lowercase().contains("credit");
    let mut event_list: Option<String> = None;
    // An obligation whose sentence ends in `:` (`... will not create any
    // Lien ..., except:`) goes on in the list clauses that follow; their
    // amounts and references are its own. After `except:` (or `other
    // than:`) under a restriction, each clause is a permitted exception.
    let mut list_owner: Option<(String, bool)> = None;
    // A termination list (`may be terminated ...:` then `(b) by Parent ...`).
    let mut terminable = false;
    for p in &paragraphs {
        // A contents page (or its lines inside a preamble) lists headings;
        // it states no relation.
        if contents_like(p) {
            continue;
        }
        if let Some(c) = DEFINITION.captures(p) {
            let term = normalize_ws(&c[1]);
            if valid_term(&term) {
                let body = &p[c.get(0).map_or(0, |m| m.end())..];
                let verb = c.get(3).map_or("", |m| m.as_str());
                definition(&mut b, &term, verb, body, &term_re, &term_set);
                if let Some(second) = c.get(2) {
                    let other = normalize_ws(second.as_str());
                    if valid_term(&other) {
                        definition(&mut b, &other, verb, body, &term_re, &term_set);
                    }
                }
                continue;
            }
        }
        // `... shall constitute an "Event of Default":` opens a list of
        // clauses, each an event that triggers a default.
        if let Some(lc) = LIST_CLAUSE.captures(p) {
            if let Some(trigger) = &event_list {
                let clause = truncate(&p[lc.get(0).unwrap().end()..], 200);
                let name = truncate(&format!("{trigger} ({}): {}", &lc[1], clause), 100);
                let ev = b.entity(&name, "EventOfDefault", &clause);
                let t = b.entity(trigger, "DefinedTerm", "");
                b.relate(&ev, "TRIGGERS", &t, &truncate(&clause, EVIDENCE_CHARS));
                clause_links(&mut b, &ev, p, &own);
                continue;
            }
        } else if !page_furniture(p) {
            event_list = None;
            list_owner = None;
        }
        if p.trim_end().ends_with(':') && p.to_ascii_lowercase().contains("event of default") {
            event_list = Some("Event of Default".to_string());
            continue;
        }
        terminable = termination_list(&mut b, p, terminable, &own);
        parties(&mut b, p, credit, &term_set);
        parties_clause(&mut b, p, &term_set);
        governing_law(&mut b, p);
        subsidiaries(&mut b, p);
        guarantees_and_liens(&mut b, p, &term_set);
        commitment_rows(&mut b, p, &term_set);
        appointments(&mut b, p);
        licence_grants(&mut b, p);
        leases(&mut b, p);
        b.clause_refs.clear();
        passive_assignment(&mut b, p, &own);
        // A recital (`WHEREAS, ... Vyera will Commercialize ...`) states
        // what the parties intend, not what binds them.
        let recital = p
            .trim_start()
            .get(..7)
            .is_some_and(|w| w.eq_ignore_ascii_case("WHEREAS"));
        let found = if recital {
            None
        } else {
            obligations(&mut b, p, &term_set, &own)
        };
        if let Some(f) = found {
            // `... Miltenyi shall provide notice. ... Miltenyi shall have no
            // obligation to Bellicum:` opens a list that is no duty's.
            let permits = f.restriction && opens_exceptions(p);
            list_owner = (f.to_end && p.trim_end().ends_with(':')).then_some((f.node, permits));
            // References outside the duties' clauses (`as described in
            // Article 4; ... Bellicum will pay ...`) stay the section's.
            section_references(&mut b, p, &own);
            continue;
        }
        if let (Some((owner, permits)), Some(lc)) = (&list_owner, LIST_CLAUSE.captures(p)) {
            let clause = &p[lc.get(0).unwrap().end()..];
            let holder = permits
                .then(|| qualifiers::permitted(&mut b, owner, clause))
                .flatten()
                .unwrap_or_else(|| owner.clone());
            clause_links(&mut b, &holder, clause, &own);
            continue;
        }
        // A cross-reference written in body text is the section's own.
        // Amounts and rates outside a definition or an obligation have no
        // clear holder: none is guessed.
        section_references(&mut b, p, &own);
    }
    // What lawyers mark, as typed facts (`facts/`): every paragraph, since
    // a definition or a duty may be a cap, a grant or a date as well.
    facts::facts(&mut b, &paragraphs);
    b.finish()
}

/// True when a restriction's paragraph ends by opening a list of what it
/// permits: `... will not create any Lien ..., except:`, `other than the
/// following:`.
fn opens_exceptions(p: &str) -> bool {
    static EXCEPT_LIST: once_cell::sync::Lazy<regex::Regex> = once_cell::sync::Lazy::new(|| {
        regex::Regex::new(
            r"(?i)\b(?:except|other\s+than|excluding|but\s+excluding)\b[^:;]{0,60}:\s*$",
        )
        .unwrap()
    });
    EXCEPT_LIST.is_match(p)
}

#[cfg(test)]
mod tests;
