//! The relation readers as one table. Each row names a reader, the
//! relation types it may emit, the words without which it cannot fire,
//! the paragraphs it never reads and the function that reads.
//! [`super::extract_for`] runs the rows in order: a section row once over
//! the section's paragraphs, a run of paragraph rows paragraph by
//! paragraph, each paragraph offered to the rows in turn until one says it
//! is [`Flow::Done`].
//!
//! Order matters: the builder keeps the first spelling, description and
//! evidence of an entity or a relation, so an earlier row's reading wins.
//!
//! Adding a reader is a file beside this one (its function and its tests),
//! its `mod` line and its row here, and its relation types in the
//! ontologies of `indices/` that should keep them. In a debug build the
//! walk checks every relation a row adds against the row's `emits`.

mod definitions;
mod grants;
mod leases;
mod lists;
mod obligations;
mod parties;
mod parties_clause;
mod signature;

pub(super) use parties_clause::{parties_clause, spread_parties_clauses};
pub(super) use signature::{signatories, unfold_columns};

use super::common::builder::Builder;
use super::common::clause::section_references;
use super::common::own::OwnSection;
use super::common::terms::TermMatcher;
use super::facts;
use std::collections::HashSet;

/// What every reader knows of the section it reads.
pub(super) struct Section<'a> {
    /// The section's paragraphs, cleaned.
    pub(super) paragraphs: &'a [String],
    /// The terms the section defines, and the names the document's
    /// opening defines for its parties.
    pub(super) terms: &'a HashSet<String>,
    /// The section's own defined terms, to find their uses.
    pub(super) term_matcher: &'a Option<TermMatcher>,
    /// The section's number and title.
    pub(super) own: &'a OwnSection,
    /// The document is a credit agreement (its preamble's first party
    /// without a role is the Borrower).
    pub(super) credit: bool,
}

/// Lists a paragraph can open and the next paragraphs go on: what each
/// clause `(a) ...` belongs to.
#[derive(Default)]
pub(super) struct OpenLists {
    /// `... shall constitute an "Event of Default":`: each clause is an
    /// event that triggers it.
    pub(super) events_of: Option<String>,
    /// A duty whose sentence ends in `:` goes on in the clauses that
    /// follow (their amounts and references are its own); the flag says
    /// each clause is an exception it permits (`except:`).
    pub(super) duty: Option<(String, bool)>,
    /// `This Agreement may be terminated ...:`: each clause may name who
    /// holds a termination right.
    pub(super) termination: bool,
}

/// One paragraph as a paragraph reader gets it.
pub(super) struct Paragraph<'a> {
    pub(super) text: &'a str,
    pub(super) section: &'a Section<'a>,
    pub(super) lists: &'a mut OpenLists,
}

/// After a paragraph reader: offer the paragraph to the next row, or stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Next,
    Done,
}

/// Paragraphs a reader never reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Skip {
    /// `WHEREAS, ... Vyera will Commercialize ...`: a recital states what
    /// the parties intend, not what binds them.
    Recital,
}

impl Skip {
    pub(super) fn applies(self, p: &str) -> bool {
        match self {
            Skip::Recital => super::common::text::is_recital(p),
        }
    }
}

/// The relation types a reader may emit.
pub(super) enum Emits {
    Types(&'static [&'static str]),
    /// The typed facts' types (one per CUAD category, and the richer
    /// relations beside them), and these.
    Facts(&'static [&'static str]),
}

impl Emits {
    /// The types the row names (the typed facts' own types aside).
    pub(super) fn named(&self) -> &'static [&'static str] {
        match self {
            Emits::Types(types) | Emits::Facts(types) => types,
        }
    }

    pub(super) fn allows(&self, relation_type: &str) -> bool {
        match self {
            Emits::Types(types) => types.contains(&relation_type),
            Emits::Facts(also) => {
                also.contains(&relation_type)
                    || crate::extract::facts_vocabulary::is_fact_relation(relation_type)
            }
        }
    }
}

/// How a reader is called.
pub(super) enum Read {
    /// Once, over the whole section.
    Section(fn(&mut Builder, &Section)),
    /// Paragraph by paragraph.
    Paragraph(ParagraphRead),
}

pub(super) struct ParagraphRead {
    /// Lower-case words one of which the paragraph must hold for the
    /// reader to read it (none: every paragraph). A cheap filter only: the
    /// reader's own patterns decide, and each of them needs one of these.
    pub(super) triggers: &'static [&'static str],
    pub(super) skips: &'static [Skip],
    /// The cross-references inside the clauses it reads are those clauses'
    /// own, so the section's own references leave them out. After a reader
    /// that does not keep them the walk forgets them.
    pub(super) keeps_references: bool,
    pub(super) read: fn(&mut Builder, &mut Paragraph) -> Flow,
}

pub(super) struct Reader {
    pub(super) name: &'static str,
    pub(super) emits: Emits,
    pub(super) read: Read,
}

/// What `clause_links` adds to a clause's node: its references, amounts
/// and rates.
macro_rules! with_links {
    ($($t:literal),*) => { &[$($t,)* "REFERENCES", "AMOUNT_OF", "RATE_OF"] };
}

/// Every reader, in the order it reads.
pub(super) static READERS: &[Reader] = &[
    Reader {
        name: "parties clauses",
        emits: Emits::Types(&["HAS_ROLE", "DEFINED_AS"]),
        read: Read::Section(|b, s| {
            // `between A, a Delaware corporation ("A"), and B ...` spread
            // over several paragraphs, joined.
            for joined in spread_parties_clauses(s.paragraphs) {
                parties_clause(b, &joined, s.terms);
            }
        }),
    },
    Reader {
        name: "signature blocks",
        emits: Emits::Types(&["HAS_ROLE", "DEFINED_AS"]),
        read: Read::Section(|b, s| signatories(b, s.paragraphs, s.terms)),
    },
    Reader {
        name: "definitions",
        emits: Emits::Types(with_links!("IS_A", "DEFINED_AS")),
        read: Read::Paragraph(ParagraphRead {
            triggers: &[],
            skips: &[],
            keeps_references: false,
            read: definitions::read,
        }),
    },
    Reader {
        name: "events of default",
        emits: Emits::Types(with_links!("TRIGGERS")),
        read: Read::Paragraph(ParagraphRead {
            triggers: &[],
            skips: &[],
            keeps_references: false,
            read: lists::events_of_default,
        }),
    },
    Reader {
        name: "termination rights",
        emits: Emits::Types(with_links!(
            "HOLDS_RIGHT",
            "TERMINATES",
            "CONDITIONED_ON",
            "HAS_EXCEPTION",
            "HAS_PERIOD",
            "TRIGGERS",
            "RESTRICTS"
        )),
        read: Read::Paragraph(ParagraphRead {
            // Every paragraph: a termination list goes on while its
            // clauses do.
            triggers: &[],
            skips: &[],
            keeps_references: false,
            read: |b, p| {
                p.lists.termination =
                    obligations::termination_list(b, p.text, p.lists.termination, p.section.own);
                Flow::Next
            },
        }),
    },
    Reader {
        name: "parties",
        emits: Emits::Types(&["HAS_ROLE", "DEFINED_AS", "AGENT_FOR", "SUBSIDIARY_OF"]),
        read: Read::Paragraph(ParagraphRead {
            triggers: &[],
            skips: &[],
            keeps_references: false,
            read: |b, p| {
                parties::parties(b, p.text, p.section.credit, p.section.terms);
                Flow::Next
            },
        }),
    },
    Reader {
        name: "parties clause",
        emits: Emits::Types(&["HAS_ROLE", "DEFINED_AS"]),
        read: Read::Paragraph(ParagraphRead {
            triggers: &[],
            skips: &[],
            keeps_references: false,
            read: |b, p| {
                parties_clause(b, p.text, p.section.terms);
                Flow::Next
            },
        }),
    },
    Reader {
        name: "subsidiaries",
        emits: Emits::Types(&["SUBSIDIARY_OF"]),
        read: Read::Paragraph(ParagraphRead {
            triggers: &["subsidiar"],
            skips: &[],
            keeps_references: false,
            read: |b, p| {
                parties::subsidiaries(b, p.text);
                Flow::Next
            },
        }),
    },
    Reader {
        name: "guarantees and liens",
        emits: Emits::Types(&["GUARANTEES", "GRANTS_LIEN_ON"]),
        read: Read::Paragraph(ParagraphRead {
            triggers: &["guarantee", "grant", "pledge"],
            skips: &[],
            keeps_references: false,
            read: |b, p| {
                obligations::guarantees_and_liens(b, p.text, p.section.terms);
                Flow::Next
            },
        }),
    },
    Reader {
        name: "commitment tables",
        emits: Emits::Types(&["OBLIGATED_TO", "AMOUNT_OF"]),
        read: Read::Paragraph(ParagraphRead {
            triggers: &["commitment"],
            skips: &[],
            keeps_references: false,
            read: |b, p| {
                parties::commitment_rows(b, p.text, p.section.terms);
                Flow::Next
            },
        }),
    },
    Reader {
        name: "agent appointments",
        emits: Emits::Types(&["AGENT_FOR"]),
        read: Read::Paragraph(ParagraphRead {
            triggers: &["appoints", "designates"],
            skips: &[],
            keeps_references: false,
            read: |b, p| {
                obligations::appointments(b, p.text);
                Flow::Next
            },
        }),
    },
    Reader {
        name: "licence grants",
        emits: Emits::Types(&["LICENSES", "HOLDS_RIGHT", "EXCLUSIVE_IN"]),
        read: Read::Paragraph(ParagraphRead {
            triggers: &["licen"],
            skips: &[],
            keeps_references: false,
            read: |b, p| {
                grants::licence_grants(b, p.text);
                Flow::Next
            },
        }),
    },
    Reader {
        name: "leases",
        emits: Emits::Types(&["LEASES_TO", "LEASES"]),
        read: Read::Paragraph(ParagraphRead {
            triggers: &["leases", "demises", "lets", "rents", "takes", "hires"],
            skips: &[],
            keeps_references: false,
            read: |b, p| {
                leases::leases(b, p.text);
                Flow::Next
            },
        }),
    },
    Reader {
        name: "assignment restrictions",
        emits: Emits::Types(with_links!(
            "RESTRICTS",
            "OBLIGATED_TO",
            "CONDITIONED_ON",
            "HAS_EXCEPTION",
            "HAS_PERIOD",
            "TRIGGERS"
        )),
        read: Read::Paragraph(ParagraphRead {
            triggers: &["assigned", "transferred", "delegated"],
            skips: &[],
            keeps_references: true,
            read: |b, p| {
                obligations::passive_assignment(b, p.text, p.section.own);
                Flow::Next
            },
        }),
    },
    Reader {
        name: "duties and rights",
        emits: Emits::Types(with_links!(
            "OBLIGATED_TO",
            "MUST_MAINTAIN",
            "RESTRICTS",
            "HOLDS_RIGHT",
            "TERMINATES",
            "OWED_TO",
            "PAYS",
            "LENDS_TO",
            "CONDITIONED_ON",
            "HAS_EXCEPTION",
            "HAS_PERIOD",
            "TRIGGERS"
        )),
        read: Read::Paragraph(ParagraphRead {
            triggers: &[],
            skips: &[Skip::Recital],
            keeps_references: true,
            read: obligations::duties,
        }),
    },
    Reader {
        name: "clauses of a duty's list",
        emits: Emits::Types(with_links!("HAS_EXCEPTION", "RESTRICTS")),
        read: Read::Paragraph(ParagraphRead {
            triggers: &[],
            skips: &[],
            keeps_references: true,
            read: lists::clauses_of_duty,
        }),
    },
    Reader {
        name: "the section's references",
        emits: Emits::Types(&["REFERENCES"]),
        read: Read::Paragraph(ParagraphRead {
            triggers: &[],
            skips: &[],
            keeps_references: true,
            read: |b, p| {
                // A cross-reference written in body text is the section's
                // own. Amounts and rates outside a definition or a duty
                // have no clear holder: none is guessed.
                section_references(b, p.text, p.section.own);
                Flow::Done
            },
        }),
    },
    Reader {
        // What lawyers mark, as typed facts (`facts/`): every paragraph,
        // since a definition or a duty may be a cap, a grant or a date as
        // well.
        name: "typed facts",
        emits: Emits::Facts(&[facts::GOVERNED_BY]),
        read: Read::Section(|b, s| facts::facts(b, &s.own.title, s.paragraphs)),
    },
];

#[cfg(test)]
mod tests;
