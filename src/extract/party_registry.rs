//! The document's party registry: who the parties are and every name the
//! document gives each of them, built once per document before any
//! section is extracted.
//!
//! A contract names a party once in full (`Goosehead Insurance Agency,
//! LLC, a Delaware limited liability company ... ("we," "us," or "our")`)
//! and then writes its duties under another name: a defined name
//! (`Franchisee`), a short name (`Bellicum`), a place (`Party A`) or a
//! pronoun (`You must ...`, `We may ...`). A section read alone cannot
//! tell whom those names mean; the registry, read from the parties clause
//! and the signature blocks, can. The rules resolve a duty's subject (and
//! to whom it is owed) through it, and [`PartyRegistry::prompt_lines`]
//! gives an LLM the same list.
//!
//! This module holds the data and its look-ups, below every reader; the
//! rules extractor builds it ([`super::rules::document_registry`]) with
//! the same parties-clause and signature readers it uses on each section.

use crate::route::RoutePlan;
use crate::tree::{NodeKind, SourceText};
use serde::{Deserialize, Serialize};

/// Longest opening read for the parties clause: the text before the first
/// numbered heading and that heading's section, at most this many bytes.
pub const OPENING_BYTES: usize = 24 * 1024;

/// Pronouns a document may define for a party (`("we," "us," or "our")`,
/// `("you")`), lower-case.
pub const PRONOUNS: &[&str] = &["we", "us", "our", "you", "your"];

/// One party of a document.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisteredParty {
    /// Its full name as the parties clause or signature block writes it
    /// (`Goosehead Insurance Agency, LLC`); empty when the document leaves
    /// it blank (a form: `("you" or the "Franchisee")`).
    pub name: String,
    /// `Organization`, or empty when unnamed.
    pub kind: String,
    /// Names the document defines for it, in order: `Franchisor`,
    /// `Party A`, `Bellicum`.
    pub names: Vec<String>,
    /// Pronouns that stand for it (`we`, `us`, `our`).
    pub pronouns: Vec<String>,
    /// Roles the document gives it (`Franchisor`, `Signatory`).
    pub roles: Vec<String>,
}

impl RegisteredParty {
    /// The name a duty of this party is written against in the graph: its
    /// first defined name (which the parties clause ties to the
    /// organisation), else its full name.
    pub fn subject_name(&self) -> &str {
        self.names
            .first()
            .map(String::as_str)
            .unwrap_or(self.name.as_str())
    }

    fn answers_to(&self, mention: &str) -> bool {
        let m = mention.trim();
        let low = m.to_lowercase();
        if PRONOUNS.contains(&low.as_str()) {
            return self.pronouns.contains(&low);
        }
        (!self.name.is_empty() && self.name.eq_ignore_ascii_case(m))
            || self.names.iter().any(|n| n.eq_ignore_ascii_case(m))
    }
}

/// Every party of one document with every name it goes by.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartyRegistry {
    pub parties: Vec<RegisteredParty>,
}

impl PartyRegistry {
    /// The party a mention stands for: a full name, a defined or short
    /// name, or a pronoun the document defines (any case).
    pub fn resolve(&self, mention: &str) -> Option<&RegisteredParty> {
        let m = mention.trim();
        let m = m
            .strip_prefix("the ")
            .or_else(|| m.strip_prefix("The "))
            .unwrap_or(m);
        self.parties.iter().find(|p| p.answers_to(m))
    }

    /// Every name (not pronoun) a sentence may use for a party.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.parties.iter().flat_map(|p| {
            std::iter::once(p.name.as_str())
                .filter(|n| !n.is_empty())
                .chain(p.names.iter().map(String::as_str))
        })
    }

    pub fn is_empty(&self) -> bool {
        self.parties.is_empty()
    }

    /// In a contract of two parties, the one `mention` does not stand for
    /// (`the other Party` of a duty `mention` holds); none otherwise.
    pub fn other_than(&self, mention: &str) -> Option<&RegisteredParty> {
        let [a, b] = self.parties.as_slice() else {
            return None;
        };
        let this = self.resolve(mention)?;
        if std::ptr::eq(this, a) {
            Some(b)
        } else {
            Some(a)
        }
    }

    /// The registry as lines for an extraction prompt: one party a line,
    /// with every name it goes by, so the model resolves `you`, `Party A`
    /// or a short name to the party. Empty when no party is known.
    pub fn prompt_lines(&self) -> String {
        if self.parties.is_empty() {
            return String::new();
        }
        // The instruction to write duties against the party is the system
        // message's: this list is data, and it is in every request.
        let mut out = String::from("Parties:\n");
        for p in &self.parties {
            let head = if p.name.is_empty() {
                "(name left blank)".to_string()
            } else {
                p.name.clone()
            };
            let mut aka: Vec<String> = p.names.iter().map(|n| format!("\"{n}\"")).collect();
            aka.extend(p.pronouns.iter().map(|n| format!("\"{n}\"")));
            out.push_str("- ");
            out.push_str(&head);
            if !aka.is_empty() {
                out.push_str(" = ");
                out.push_str(&aka.join(", "));
            }
            let roles: Vec<&str> = p
                .roles
                .iter()
                .map(String::as_str)
                .filter(|r| *r != "Signatory")
                .collect();
            if !roles.is_empty() {
                out.push_str("; role: ");
                out.push_str(&roles.join(", "));
            }
            out.push('\n');
        }
        out
    }
}

/// The texts a document's registry is read from: its opening (before the
/// first numbered heading, with that heading's section, at most
/// [`OPENING_BYTES`]) and its signature sections.
pub fn registry_texts<'a>(plan: &RoutePlan, source: &'a SourceText) -> (&'a str, Vec<&'a str>) {
    let first_numbered = plan
        .sections
        .iter()
        .position(|s| s.label.is_some() && s.kind == NodeKind::Section);
    let end = match first_numbered {
        Some(i) => plan.sections[i].end_byte,
        None => plan.sections.last().map_or(0, |s| s.end_byte),
    };
    let mut cut = end.min(OPENING_BYTES).min(source.text.len());
    while !source.text.is_char_boundary(cut) {
        cut -= 1;
    }
    let opening = &source.text[..cut];
    let signatures = plan
        .sections
        .iter()
        .filter(|s| s.kind == NodeKind::Signature)
        .map(|s| source.byte_span_text(s.start_byte, s.end_byte))
        .collect();
    (opening, signatures)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> PartyRegistry {
        PartyRegistry {
            parties: vec![
                RegisteredParty {
                    name: "Goosehead Insurance Agency, LLC".into(),
                    kind: "Organization".into(),
                    names: vec![],
                    pronouns: vec!["we".into(), "us".into(), "our".into()],
                    roles: vec![],
                },
                RegisteredParty {
                    name: String::new(),
                    kind: String::new(),
                    names: vec!["Franchisee".into()],
                    pronouns: vec!["you".into()],
                    roles: vec![],
                },
            ],
        }
    }

    #[test]
    fn pronouns_and_names_resolve_to_their_party() {
        let r = registry();
        assert_eq!(
            r.resolve("We").unwrap().subject_name(),
            "Goosehead Insurance Agency, LLC"
        );
        assert_eq!(r.resolve("you").unwrap().subject_name(), "Franchisee");
        assert_eq!(r.resolve("the Franchisee").unwrap().names[0], "Franchisee");
        assert!(r.resolve("they").is_none());
        assert!(r.resolve("Licensee").is_none());
    }

    #[test]
    fn prompt_lines_list_every_name() {
        let lines = registry().prompt_lines();
        assert!(lines.contains("- Goosehead Insurance Agency, LLC = \"we\", \"us\", \"our\""));
        assert!(lines.contains("- (name left blank) = \"Franchisee\", \"you\""));
        assert!(PartyRegistry::default().prompt_lines().is_empty());
    }
}
