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
//! Layout, from the ground up: `common/` (text, terms and values,
//! organisations and roles, the builder, clause helpers: it imports no
//! reader), `readers/` (one table of relation readers, `readers::READERS`,
//! and a file per family of readers), `facts/` (the typed facts lawyers
//! mark, one relation type per CUAD category, as a table of rules read by
//! the last row of the readers' table) and `document_parties` (the
//! document's parties, read once per document). This file reads the section's terms
//! and runs the readers' table over its paragraphs.

use super::validate::ontology_name;
use super::SectionInput;
use crate::index::Ontology;
use std::collections::HashSet;

mod common;
mod document_parties;
mod document_terms;
mod facts;
mod readers;

pub use crate::tree::paragraphs::paragraphs_of;
use common::builder::Builder;
pub use common::builder::RulesOutput;
use common::names::spellings;
use common::orgs::{clear_org_matches, corporate};
use common::own::OwnSection;
use common::terms::*;
use common::text::*;
pub use document_parties::{document_registry, party_registry};
pub use document_terms::term_definitions;
pub(crate) use facts::clause_target_type;
use readers::{Flow, OpenLists, Paragraph, Read, Reader, Section, READERS};

/// The extractor name recorded in [`super::SectionExtraction::extractor`].
pub const EXTRACTOR: &str = "rules";

/// Runs the rules over one section. Deterministic: the same input always
/// gives the same output, in the same order.
pub fn extract(input: &SectionInput) -> RulesOutput {
    extract_for(input, &Ontology::default())
}

/// Sentence spans (byte offsets) of a paragraph, as the typed facts read
/// them: ends at `.` or `;` before an upper-case word, not after an
/// abbreviation.
pub fn sentence_spans(paragraph: &str) -> Vec<(usize, usize)> {
    facts::sentences(paragraph)
}

/// [`extract`], choosing relation types the ontology offers: `AMOUNT_OF`
/// and `RATE_OF` (value -> what it measures) when present, `REFERENCES`
/// otherwise.
pub fn extract_for(input: &SectionInput, ontology: &Ontology) -> RulesOutput {
    clear_org_matches();
    let paragraphs = paragraphs_of(&input.text);
    let mut b = Builder {
        offered: offered_types(ontology),
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
    let (terms, term_matcher) = section_terms(input, &paragraphs);
    let own = OwnSection::of(input);
    let section = Section {
        paragraphs: &paragraphs,
        terms: &terms,
        term_matcher: &term_matcher,
        own: &own,
        credit: input.doc_type.to_ascii_lowercase().contains("credit"),
    };
    for run in READERS.chunk_by(|a, b| {
        matches!(a.read, Read::Paragraph(_)) && matches!(b.read, Read::Paragraph(_))
    }) {
        match &run[0].read {
            Read::Section(read) => {
                let before = b.relations.len();
                read(&mut b, &section);
                debug_check_emits(&run[0], &b, before);
            }
            Read::Paragraph(_) => walk(&mut b, &section, run),
        }
    }
    b.finish()
}

/// The relation types the readers emit that the ontology offers: a reader
/// asks before writing one it can do without (`AMOUNT_OF`, else
/// `REFERENCES`; no `TERMINATES`).
fn offered_types(ontology: &Ontology) -> HashSet<&'static str> {
    READERS
        .iter()
        .flat_map(|r| r.emits.named())
        .copied()
        .filter(|t| ontology_name(&ontology.relation_types, t).is_some())
        .collect()
}

/// Every term the section defines, to recognise their uses (the matcher),
/// and beside them the names the document's opening defines for its
/// parties: `between Fox and Vodafone Group Services Limited` joins two
/// parties, not one name.
fn section_terms(
    input: &SectionInput,
    paragraphs: &[String],
) -> (HashSet<String>, Option<TermMatcher>) {
    let mut terms: Vec<String> = Vec::new();
    let mut term_set: HashSet<String> = HashSet::new();
    for p in paragraphs {
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
    // The party names join the set only: a use of one is no use of a term
    // the section defines.
    let matcher = term_regex(&terms);
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
    (term_set, matcher)
}

/// Offers each paragraph to a run of paragraph readers in turn, until one
/// is done with it. A contents page (or its lines inside a preamble) lists
/// headings; it states no relation.
fn walk(b: &mut Builder, section: &Section, run: &[Reader]) {
    let mut lists = OpenLists::default();
    for text in section.paragraphs {
        if contents_like(text) {
            continue;
        }
        let lower = text.to_ascii_lowercase();
        let mut p = Paragraph {
            text,
            section,
            lists: &mut lists,
        };
        for reader in run {
            let Read::Paragraph(r) = &reader.read else {
                continue;
            };
            let reads = (r.triggers.is_empty() || r.triggers.iter().any(|t| lower.contains(t)))
                && !r.skips.iter().any(|s| s.applies(text));
            let flow = if reads {
                let before = b.relations.len();
                let flow = (r.read)(b, &mut p);
                debug_check_emits(reader, b, before);
                flow
            } else {
                Flow::Next
            };
            if !r.keeps_references {
                b.clause_refs.clear();
            }
            if flow == Flow::Done {
                break;
            }
        }
    }
}

/// In a debug build: every relation a reader added since `before` is of a
/// type its row declares, so the table cannot drift from the code.
fn debug_check_emits(reader: &Reader, b: &Builder, before: usize) {
    if cfg!(debug_assertions) {
        for r in &b.relations[before..] {
            assert!(
                reader.emits.allows(&r.relation_type),
                "the `{}` reader emitted {} but its row does not declare it",
                reader.name,
                r.relation_type
            );
        }
    }
}

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
