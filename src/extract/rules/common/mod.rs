//! The layer every reader of the rules stands on. It imports no reader, so
//! a reader can use any of it without tying itself to another reader.
//!
//! - `text`: cleaning, paragraphs, quotes, cross-references, evidence;
//! - `terms`, `values`: defined terms, and amounts, rates and dates;
//! - `orgs`, `names`, `roles`: organisation names, how they are shown, and
//!   party roles;
//! - `own`: the section's own identity (its number and subsections);
//! - `builder`: the deduplicating collector every reader writes to;
//! - `clause`, `qualifiers`: what a duty's clause is made of, and the
//!   conditions, exceptions and periods its sentence attaches to it.

pub(super) mod builder;
pub(super) mod clause;
pub(super) mod names;
pub(super) mod orgs;
pub(super) mod own;
pub(super) mod qualifiers;
pub(super) mod roles;
pub(super) mod terms;
pub(super) mod text;
pub(super) mod values;
