//! What a clause of a duty, a right or a grant is made of: where the
//! clause ends (`clause_at`), the references and values inside it
//! (`clause_links`), the party it binds as an entity (`party_entity`),
//! what a `pay` clause pays (`payment`), and the paragraph's references
//! no clause took (`section_references`).

use super::builder::Builder;
use super::own::OwnSection;
use super::roles::{is_role, singular_role};
use super::text::*;
use super::values::values;

/// The clause starting at `start`: up to the next `;` or sentence end.
pub(in crate::extract::rules) fn clause_at(p: &str, start: usize) -> &str {
    let rest = &p[start..];
    let end = rest
        .char_indices()
        .find(|&(i, ch)| {
            (ch == ';' || ch == '.')
                && rest[i + 1..].starts_with(' ')
                && !rest[..i].ends_with(char::is_uppercase)
                && !(ch == '.' && abbreviation(&rest[..i]))
        })
        .map_or(rest.len(), |(i, _)| i);
    &rest[..end]
}

/// True when `clause` (a slice of `p`) ends where the paragraph's text
/// ends.
pub(in crate::extract::rules) fn runs_to_end(p: &str, clause: &str) -> bool {
    let end = clause.as_ptr() as usize - p.as_ptr() as usize + clause.len();
    end >= p.trim_end().len().saturating_sub(1)
}

/// True when the text before a dot ends in a dotted abbreviation (`p.m`,
/// `i.e`, `U.S`): that dot ends no sentence.
fn abbreviation(before: &str) -> bool {
    let word = before.rsplit(char::is_whitespace).next().unwrap_or("");
    word.len() <= 4 && word.contains('.') && word.chars().all(|c| c.is_alphabetic() || c == '.')
}

/// Section references, amounts and rates inside an obligation's clause.
pub(in crate::extract::rules) fn clause_links(
    b: &mut Builder,
    ob: &str,
    clause: &str,
    own: &OwnSection,
) {
    for sref in section_refs(clause) {
        b.clause_refs.insert(sref.clone());
        if !own.is_itself(&sref) {
            let s = b.entity(&sref, "SectionRef", "");
            b.relate(ob, "REFERENCES", &s, &snippet_around(clause, &sref));
        }
    }
    values(b, ob, clause);
}

/// The name of a covenant, obligation or right entity: its whole clause
/// (up to 240 characters), so two duties that begin alike stay two nodes.
pub(in crate::extract::rules) fn clause_name(clause: &str) -> String {
    truncate(&normalize_ws(clause), 240)
}

/// The party bound by a clause: a role (`the Lenders` -> `Lender`) or a
/// defined term.
pub(in crate::extract::rules) fn party_entity(b: &mut Builder, party: &str) -> String {
    if is_role(party) {
        b.entity(&singular_role(party), "Role", "")
    } else {
        b.entity(party, "DefinedTerm", "")
    }
}

/// Longest name kept for what is paid.
const PAID_CHARS: usize = 90;

/// Words that open no object of `pay` (`pay when due`, `pay for`).
const NO_OBJECT: &[&str] = &[
    "for", "when", "on", "in", "as", "within", "to", "by", "at", "if", "upon", "over", "from",
    "with", "under", "such", "or", "and",
];

/// `X shall pay [to Y] <what>`: X PAYS what. `after` is the text after
/// the word `pay`.
pub(in crate::extract::rules) fn payment(
    b: &mut Builder,
    payer: &str,
    after: &str,
    evidence: &str,
) {
    let Some(paid) = object_of_pay(b, after) else {
        return;
    };
    let Some(rel) = b.offered("PAYS") else {
        return;
    };
    let amount = b.entity(&paid, "Amount", "");
    b.relate(payer, rel, &amount, evidence);
}

/// What is paid: the noun phrase after `pay` (and its payee), up to the
/// first comma, parenthesis or clause word (`within`, `on or before`).
fn object_of_pay(b: &Builder, after: &str) -> Option<String> {
    let mut rest = after.trim_start();
    // `pay to Miltenyi ...`, `pay Landlord ...`: the payee is no object.
    let payee = rest.strip_prefix("to ").unwrap_or(rest);
    let payee = payee.strip_prefix("the ").unwrap_or(payee);
    let name_end = payee
        .find(|c: char| !(c.is_alphanumeric() || c == '-' || c == ' '))
        .unwrap_or(payee.len());
    let words: Vec<&str> = payee[..name_end].split_whitespace().collect();
    for n in (1..=words.len().min(3)).rev() {
        let cand = words[..n].join(" ");
        if b.bindable(&cand) || b.bindable(&singular_role(&cand)) {
            let at = payee.find(words[n - 1]).unwrap() + words[n - 1].len();
            rest = payee[at..].trim_start_matches([',', ' ']);
            break;
        }
    }
    // A comma or a dot inside a number (`2,000,000`, `$75.00`) ends nothing.
    let end = rest
        .char_indices()
        .find(|&(i, c)| {
            matches!(c, '(' | ';' | ':' | '\n')
                || (matches!(c, ',' | '.')
                    && !rest[i + 1..].starts_with(|d: char| d.is_ascii_digit()))
        })
        .map_or(rest.len(), |(i, _)| i);
    let mut phrase = rest[..end].trim();
    for stop in [
        " within ",
        " on or before ",
        " no later than ",
        " not later than ",
        " upon ",
        " when ",
        " in accordance ",
        " pursuant to ",
        " as set forth ",
        " as provided ",
        " in respect of ",
    ] {
        if let Some(i) = phrase.find(stop) {
            phrase = &phrase[..i];
        }
    }
    let first = phrase.split_whitespace().next()?;
    if NO_OBJECT.contains(&first.to_ascii_lowercase().as_str()) {
        return None;
    }
    let phrase = ["a ", "an ", "the ", "all ", "any "]
        .iter()
        .find_map(|a| phrase.strip_prefix(a))
        .unwrap_or(phrase);
    let phrase = normalize_ws(phrase.trim_matches(|c: char| c == '"' || c == '“'));
    (phrase.chars().any(char::is_alphabetic)).then(|| truncate(&phrase, PAID_CHARS))
}

/// The paragraph's cross-references that no clause of it took, as the
/// section's own. Its own subsections (`Section 2.04.4` inside 2.04) are
/// no cross-reference.
pub(in crate::extract::rules) fn section_references(b: &mut Builder, p: &str, own: &OwnSection) {
    let refs: Vec<String> = section_refs(p)
        .into_iter()
        .filter(|r| !own.is_itself_or_within(r) && !b.clause_refs.contains(r))
        .collect();
    if refs.is_empty() {
        return;
    }
    let subject = b.entity(&own.name, "SectionRef", &own.title);
    for sref in refs {
        let t = b.entity(&sref, "SectionRef", "");
        b.relate(&subject, "REFERENCES", &t, &snippet_around(p, &sref));
    }
}

/// A capitalised name of one to four words (`Bellicum`, `Service Provider`),
/// as a grant or a lease writes a party.
pub(in crate::extract::rules) const PARTY_NAME: &str =
    r"[A-Z][A-Za-z\-]*(?:\s+[A-Z][A-Za-z\-]*){0,3}";

/// The party a name is (`the Licensee`, `Bellicum`), or none.
pub(in crate::extract::rules) fn party(b: &Builder, raw: &str) -> Option<String> {
    let name = normalize_ws(raw);
    let name = ["The ", "Each "]
        .iter()
        .find_map(|a| name.strip_prefix(a))
        .unwrap_or(&name)
        .to_string();
    b.bindable(&name).then_some(name)
}
