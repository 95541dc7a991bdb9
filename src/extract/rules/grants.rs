//! What one party gives another: payments (`Bellicum will pay to Miltenyi
//! an upfront fee ...`), licence grants (`Licensor hereby grants to
//! Licensee a non-exclusive licence ...`) and leases (`Landlord leases to
//! Tenant, and Tenant leases from Landlord, the Premises`).
//!
//! A grantor or payer counts only when it is a party: a role word or one
//! of the document's party short names ([`Builder::bindable`]).

use super::builder::Builder;
use super::common::roles::singular_role;
use super::common::text::*;
use super::obligations::clause_at;
use super::EVIDENCE_CHARS;
use once_cell::sync::Lazy;
use regex::Regex;

/// Longest name kept for what is paid.
const PAID_CHARS: usize = 90;

/// A capitalised name of one to four words (`Bellicum`, `Service Provider`).
const NAME: &str = r"[A-Z][A-Za-z\-]*(?:\s+[A-Z][A-Za-z\-]*){0,3}";

/// `X (hereby) grants to Y ... a ... licence`.
static GRANTS_LICENCE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(&format!(
        r"\b({NAME})\s+(?:hereby\s+)?(?:grants?|shall\s+grant|will\s+grant|agrees\s+to\s+grant)\s+(?:to\s+)?(?:the\s+|each\s+)?({NAME})\b[^.;]{{0,240}}?\b(?:sub)?licen[cs]es?\b"
    ))
    .unwrap()
});

/// `Landlord (hereby) leases (and demises) to Tenant`.
static LEASES_TO: Lazy<Regex> = Lazy::new(|| {
    Regex::new(&format!(
        r"\b({NAME})\s+(?:hereby\s+)?(?:leases|demises|lets)(?:\s*,?\s*(?:and|demises|lets|leases)\s*)*\s+to\s+(?:the\s+)?({NAME})\b"
    ))
    .unwrap()
});

/// `Tenant (hereby) leases (or takes) from Landlord, the Premises`.
static LEASES_FROM: Lazy<Regex> = Lazy::new(|| {
    Regex::new(&format!(
        r"\b({NAME})\s+(?:hereby\s+)?(?:leases|rents|takes|hires)(?:\s+and\s+(?:takes|hires|rents))?\s+from\s+(?:the\s+)?({NAME}),?\s+(?:the\s+|all\s+of\s+the\s+)?({NAME})"
    ))
    .unwrap()
});

/// `exclusive ... in the Territory`, `exclusive ... throughout the Field`:
/// where an exclusive grant holds (a defined place or field).
static EXCLUSIVE_WHERE: Lazy<Regex> =
    Lazy::new(|| Regex::new(&format!(r"\b(?:in|throughout|within)\s+the\s+({NAME})\b")).unwrap());

/// Capitalised words after `in the` that name a document or a time, not a
/// territory or a field.
const NOT_A_PLACE: &[&str] = &[
    "Agreement",
    "Term",
    "Section",
    "Article",
    "Exhibit",
    "Schedule",
    "Effective",
    "Event",
];

/// `exclusive` that is not `non-exclusive`.
fn exclusive(clause: &str) -> bool {
    let l = clause.to_ascii_lowercase();
    l.match_indices("exclusive")
        .any(|(i, _)| !l[..i].trim_end_matches(['-', ' ']).ends_with("non"))
}

/// Words that open no object of `pay` (`pay when due`, `pay for`).
const NO_OBJECT: &[&str] = &[
    "for", "when", "on", "in", "as", "within", "to", "by", "at", "if", "upon", "over", "from",
    "with", "under", "such", "or", "and",
];

/// `X shall pay [to Y] <what>`: X PAYS what. `after` is the text after
/// the word `pay`.
pub(super) fn payment(b: &mut Builder, payer: &str, after: &str, evidence: &str) {
    let Some(paid) = object_of_pay(b, after) else {
        return;
    };
    let Some(rel) = b.pays else {
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

/// `Licensor hereby grants to Licensee a non-exclusive licence ...`: the
/// grantor LICENSES the grant (a Right named by its clause) and the
/// grantee HOLDS_RIGHT it.
pub(super) fn licence_grants(b: &mut Builder, p: &str) {
    // Words every match holds.
    if !(p.contains("grant") && p.contains("licen")) {
        return;
    }
    for c in GRANTS_LICENCE.captures_iter(p) {
        let (grantor, grantee) = (normalize_ws(&c[1]), normalize_ws(&c[2]));
        let (Some(grantor), Some(grantee)) = (party(b, &grantor), party(b, &grantee)) else {
            continue;
        };
        let clause = clause_at(p, c.get(1).unwrap().start());
        let name = truncate(&normalize_ws(clause), 240);
        let right = b.entity(&name, "Right", &truncate(clause, 200));
        let evidence = truncate(clause, EVIDENCE_CHARS);
        let from = super::obligations::party_entity(b, &grantor);
        let to = super::obligations::party_entity(b, &grantee);
        if let Some(rel) = b.licenses {
            b.relate(&from, rel, &right, &evidence);
        }
        b.relate(&to, "HOLDS_RIGHT", &right, &evidence);
        // An exclusive grant is exclusive where the clause says: the
        // Territory or Field it names (defined terms, capitalised).
        if let (Some(rel), true) = (b.exclusive_in, exclusive(clause)) {
            for w in EXCLUSIVE_WHERE.captures_iter(clause) {
                let name = normalize_ws(&w[1]);
                let first = name.split(' ').next().unwrap_or("");
                if NOT_A_PLACE.contains(&first) {
                    continue;
                }
                let place = b.entity(&name, "DefinedTerm", "");
                b.relate(&right, rel, &place, &evidence);
            }
        }
    }
}

/// `Landlord leases to Tenant` (LEASES_TO) and `Tenant leases from
/// Landlord, the Premises` (LEASES).
pub(super) fn leases(b: &mut Builder, p: &str) {
    if let Some(rel) = b.leases_to {
        let may_match = holds_any(p, &["leases", "demises", "lets"]);
        for c in LEASES_TO.captures_iter(if may_match { p } else { "" }) {
            let (Some(from), Some(to)) = (party(b, &c[1]), party(b, &c[2])) else {
                continue;
            };
            let evidence = snippet_around(p, c.get(0).unwrap().as_str());
            let from = super::obligations::party_entity(b, &from);
            let to = super::obligations::party_entity(b, &to);
            b.relate(&from, rel, &to, &evidence);
        }
    }
    if let Some(rel) = b.leases {
        let may_match = holds_any(p, &["leases", "rents", "takes", "hires"]) && p.contains("from");
        for c in LEASES_FROM.captures_iter(if may_match { p } else { "" }) {
            let (Some(tenant), Some(_)) = (party(b, &c[1]), party(b, &c[2])) else {
                continue;
            };
            let evidence = snippet_around(p, c.get(0).unwrap().as_str());
            let tenant = super::obligations::party_entity(b, &tenant);
            let premises = b.entity(&normalize_ws(&c[3]), "DefinedTerm", "");
            b.relate(&tenant, rel, &premises, &evidence);
        }
    }
}

/// The party a name is (`the Licensee`, `Bellicum`), or none.
fn party(b: &Builder, raw: &str) -> Option<String> {
    let name = normalize_ws(raw);
    let name = ["The ", "Each "]
        .iter()
        .find_map(|a| name.strip_prefix(a))
        .unwrap_or(&name)
        .to_string();
    b.bindable(&name).then_some(name)
}
