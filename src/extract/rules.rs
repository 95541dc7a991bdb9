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

use super::validate::ontology_name;
use super::{Entity, Relation, SectionInput};
use crate::index::Ontology;
use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::{HashMap, HashSet};

/// The extractor name recorded in [`super::SectionExtraction::extractor`].
pub const EXTRACTOR: &str = "rules";

/// Longest evidence quote kept on a relation.
const EVIDENCE_CHARS: usize = 160;

/// Raw output of the rules, before ontology pruning.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RulesOutput {
    pub entities: Vec<Entity>,
    pub relations: Vec<Relation>,
}

static TAG: Lazy<Regex> = Lazy::new(|| Regex::new(r"</?[A-Za-z][A-Za-z0-9]*[^<>]*>").unwrap());

/// `"Term" means ...`, `"Term": ...`, `"Term" has the meaning ...` at the
/// start of a paragraph (optionally after a clause number).
static DEFINITION: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r#"^\s*(?:\([a-z0-9]{1,4}\)\s*)?"([^"]{1,100})"(?:\s*(?:,|and|or)\s*"([^"]{1,100})")?[^"]{0,160}?(:|\b(?:means?|(?:is|are)\s+defined|(?:has|have)\s+the\s+meanings?|refers?\s+to|includes?)\b)"#,
    )
    .unwrap()
});

/// `(the "Borrower")`, `(each, a "Lender")`, `(collectively, the "Lenders")`.
static PAREN_TERM: Lazy<Regex> =
    Lazy::new(|| Regex::new(r#"\(([^()"]{0,40})"([^"]{1,60})"\s*\)"#).unwrap());

/// Organisation names: capitalised words ending in a corporate suffix, with
/// an optional `of New York` and `, N.A.`-style tail.
static ORG: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?x)
        \b(?P<lead>(?:[A-Z][A-Za-z0-9&'.\-]*\s+(?:(?:of|OF|&)\s+)?){0,6})
        (?:(?P<suffix>Co\.|CO\.|Corp\.|CORP\.|Inc\.|INC\.|L\.L\.C\.|L\.P\.|Ltd\.|LTD\.|S\.A\.
           |(?:Corporation|CORPORATION|Incorporated|INCORPORATED|Company|COMPANY|LLC|Limited|LIMITED|plc|PLC|Bank|BANK|Trust|TRUST|AG)\b)
         |(?P<last>[A-Z][A-Za-z0-9&'\-]*),\s+(?P<suffix2>Inc\.|INC\.|LLC\b|L\.P\.|Ltd\.|LTD\.|N\.A\.|PLC\b|plc\b))
        (?P<tail>(?:\s+(?:of|OF)(?:\s+[A-Z][A-Za-z]+){1,3})?
           (?:,?\s+(?:N\.A\.|National\s+Association|NATIONAL\s+ASSOCIATION|Inc\.|INC\.|LLC|L\.P\.|Ltd\.|plc|PLC))?)",
    )
    .unwrap()
});

/// `, as Administrative Agent` right after a party's name.
static AS_ROLE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^,?\s+(?:in\s+its\s+capacity\s+)?as\s+(?:the\s+|an?\s+)?([A-Z][A-Za-z\-]*(?:\s+(?:and\s+)?[A-Z][A-Za-z\-]*)*)")
        .unwrap()
});

/// `, a Missouri corporation (the "Company")` right after a party's name.
static AFTER_PARTY: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r#"^(?:,\s*(?:a|an)\s+(?P<desc>[^,()"]{0,60}?))?\s*\((?P<pre>[^()"]{0,40})"(?P<term>[^"]{1,60})"\s*\)"#)
        .unwrap()
});

static JURISDICTION: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\s+(?:corporation|limited liability company|banking|national banking|limited partnership|company|statutory trust)")
        .unwrap()
});

/// `the Borrower shall ...`, `each Lender agrees to ...`, `the Company shall not permit ...`.
static OBLIGATION: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"\b(?:the|each|any|such|no|The|Each|Any|Such|No)\s+((?:[A-Z][A-Za-z\-]*\s+){0,3}[A-Z][A-Za-z\-]*)\s+(?:(?:severally|hereby|irrevocably|unconditionally)\s+)*(?:shall|will|agrees(?:\s*,[^,;]{0,120},)?\s+to|covenants\s+to)\s+(not\s+)?(?:(?:directly\s+or\s+indirectly|at\s+any\s+time),?\s+)?([a-z][a-z\-]+)",
    )
    .unwrap()
});

/// `Neither the Company nor any Subsidiary will ...`: a restriction on both.
static NEITHER: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"\bNeither\s+(?:the\s+)?((?:[A-Z][A-Za-z\-]*\s+){0,3}[A-Z][A-Za-z\-]*)\s+nor\s+(?:any\s+|the\s+)?((?:[A-Z][A-Za-z\-]*\s+){0,3}[A-Z][A-Za-z\-]*)\s+(?:shall|will)\s+([a-z][a-z\-]+)",
    )
    .unwrap()
});

/// Page numbers, running headers and source URLs that PDF extraction leaves
/// between paragraphs.
fn page_furniture(p: &str) -> bool {
    p.len() <= 80 || p.contains("://")
}

/// A list clause: `(a) ...`, `(iv) ...`.
static LIST_CLAUSE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\(([a-z]{1,2}|[ivx]{1,5}|\d{1,2})\)\s+").unwrap());

/// `... to make Ratable Loans to the Borrowers ...` inside a lender's obligation.
static LENDS_TO: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\bto\s+make\s+[^.;]{0,80}?\bto\s+(?:the|any|each|such)\s+(?:applicable\s+)?((?:[A-Z][A-Za-z\-]*\s+){0,2}(?:Borrower|Company)s?)\b")
        .unwrap()
});

/// `May 23, 2018`.
static DATE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},\s+\d{4}\b")
        .unwrap()
});

/// A lien named in a covenant's clause.
static LIEN: Lazy<Regex> = Lazy::new(|| Regex::new(r"\bLiens?\b").unwrap());

static SECTION_REF: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:Sections?|SECTIONS?)\s+(\d{1,2}(?:\.\d{1,3})+[A-Za-z]?)").unwrap()
});

static AMOUNT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\$\s?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:\s+(?:million|billion))?|\$\s?\d+(?:\.\d+)?(?:\s+(?:million|billion))?")
        .unwrap()
});

/// Percentages (`0.125% per annum`) and financial ratios (`3.00 to 1.00`).
static RATE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b\d{1,3}(?:\.\d+)?\s?%(?:\s+per\s+annum)?|\b\d{1,2}(?:\.\d{1,2})?\s+to\s+1(?:\.0{1,2})?\b")
        .unwrap()
});

/// `, a wholly-owned subsidiary of ` right after an organisation's name.
static SUBSIDIARY_OF_ORG: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^,?\s+(?:a|an)\s+(?:(?:wholly[- ]owned|direct|indirect|direct\s+or\s+indirect)\s+)?subsidiary\s+of\s+")
        .unwrap()
});

/// `the Company's Significant Subsidiaries`, `each of the Borrower's Subsidiaries`.
static POSSESSIVE_SUBSIDIARIES: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"\b([A-Z][A-Za-z\-]+)'s\s+(?:[a-z]+\s+){0,2}((?:[A-Z][a-z]+\s+)?Subsidiar(?:y|ies))\b",
    )
    .unwrap()
});

static OWN_SECTION: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"(?i)\bsection\s+(\d{1,2}(?:\.\d{1,3})+[a-z]?)").unwrap());

/// Words that start a capitalised run but are not part of a name.
const STOP_LEAD: &[&str] = &[
    "the",
    "this",
    "that",
    "each",
    "any",
    "such",
    "all",
    "no",
    "other",
    "an",
    "a",
    "by",
    "among",
    "between",
    "and",
    "of",
    "to",
    "from",
    "with",
    "for",
    "issuing",
    "lending",
    "applicable",
    "relevant",
    "agent",
    "borrower",
    "lender",
    "section",
    "article",
];

/// Last words that make a term a party role.
const ROLE_HEADS: &[&str] = &[
    "borrower",
    "agent",
    "lender",
    "bank",
    "issuer",
    "guarantor",
    "arranger",
    "bookrunner",
    "company",
    "landlord",
    "tenant",
    "trustee",
    "obligor",
    "purchaser",
    "seller",
    "customer",
    "supplier",
    "licensor",
    "licensee",
    "party",
    "parties",
    "holder",
];

/// Verbs after `shall` that state a status, not an obligation.
const NON_OBLIGATION_VERBS: &[&str] = &[
    "be",
    "mean",
    "means",
    "apply",
    "include",
    "have",
    "end",
    "refer",
    "survive",
    "constitute",
    "become",
    "bear",
    "deemed",
    "continue",
];

/// `shall not be required/obligated/liable ...`: a relief, not a covenant.
const RELIEF: &[&str] = &[
    "required",
    "obligated",
    "liable",
    "responsible",
    "deemed",
    "entitled",
];

const MAINTAIN_VERBS: &[&str] = &["maintain", "keep", "preserve", "remain"];

/// Runs the rules over one section. Deterministic: the same input always
/// gives the same output, in the same order.
pub fn extract(input: &SectionInput) -> RulesOutput {
    extract_for(input, &Ontology::default())
}

/// [`extract`], choosing relation types the ontology offers: `AMOUNT_OF`
/// and `RATE_OF` (value -> what it measures) when present, `REFERENCES`
/// otherwise.
pub fn extract_for(input: &SectionInput, ontology: &Ontology) -> RulesOutput {
    let text = clean(&input.text);
    let paragraphs = paragraphs(&text);
    let mut b = Builder {
        amount_of: ontology_name(&ontology.relation_types, "AMOUNT_OF").map(|_| "AMOUNT_OF"),
        rate_of: ontology_name(&ontology.relation_types, "RATE_OF").map(|_| "RATE_OF"),
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

    let own = own_section(input);
    let credit = input.doc_type.to_ascii_lowercase().contains("credit");
    let mut current: Option<String> = None;
    let mut event_list: Option<String> = None;
    for p in &paragraphs {
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
        }
        if p.trim_end().ends_with(':') && p.to_ascii_lowercase().contains("event of default") {
            event_list = Some("Event of Default".to_string());
            continue;
        }
        parties(&mut b, p, credit, &term_set);
        subsidiaries(&mut b, p);
        if let Some(last) = obligations(&mut b, p, &term_set, &own) {
            current = Some(last);
            continue;
        }
        // References, amounts and rates outside definitions and obligations
        // belong to the obligation they follow (its listed exceptions and
        // clauses), else to the section itself.
        let refs: Vec<String> = section_refs(p)
            .into_iter()
            .filter(|r| *r != own.0)
            .collect();
        let has_values = AMOUNT.is_match(p) || RATE.is_match(p);
        if refs.is_empty() && !has_values {
            continue;
        }
        let subject = match &current {
            Some(c) => c.clone(),
            None => b.entity(&own.0, "SectionRef", &own.1),
        };
        for sref in refs {
            let t = b.entity(&sref, "SectionRef", "");
            b.relate(&subject, "REFERENCES", &t, &snippet_around(p, &sref));
        }
        values(&mut b, &subject, p);
    }
    b.finish()
}

/// Strips HTML-like tags from PDF-to-Markdown output and straightens quotes.
fn clean(text: &str) -> String {
    let t = TAG.replace_all(text, "");
    t.chars()
        .map(|c| match c {
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{00AB}' | '\u{00BB}' => '"',
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{00A0}' => ' ',
            c => c,
        })
        .collect()
}

/// Paragraphs: runs of non-blank lines, joined with spaces (wrapped plain
/// text becomes one line per paragraph). In wrapped text without blank
/// lines, a line opening with a quoted term (a definition) or a list clause
/// after `;` or `:` also starts a paragraph.
fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    for l in text.lines() {
        let t = l.trim();
        let starts_new = !cur.is_empty()
            && (t.starts_with('"')
                || (LIST_CLAUSE.is_match(t)
                    && cur.last().is_some_and(|p| p.ends_with([';', ':']))));
        if (t.is_empty() || starts_new) && !cur.is_empty() {
            out.push(normalize_ws(&cur.join(" ")));
            cur.clear();
        }
        if !t.is_empty() {
            cur.push(t);
        }
    }
    if !cur.is_empty() {
        out.push(normalize_ws(&cur.join(" ")));
    }
    out
}

fn normalize_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn valid_term(t: &str) -> bool {
    let first = t.chars().next();
    !t.is_empty()
        && t.chars().count() <= 80
        && t.split_whitespace().count() <= 10
        && first.is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
}

fn push_term(terms: &mut Vec<String>, set: &mut HashSet<String>, raw: &str) {
    let t = normalize_ws(raw);
    if valid_term(&t) && set.insert(t.clone()) {
        terms.push(t);
    }
}

/// One regex matching any defined term (longest first, optional plural `s`).
fn term_regex(terms: &[String]) -> Option<Regex> {
    if terms.is_empty() {
        return None;
    }
    let mut sorted: Vec<&String> = terms.iter().collect();
    sorted.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    let alts: Vec<String> = sorted.iter().map(|t| regex::escape(t)).collect();
    Regex::new(&format!(r"\b(?:{})s?\b", alts.join("|"))).ok()
}

/// The term a match of [`term_regex`] stands for (plural `s` removed when
/// the singular is the term).
fn term_of(m: &str, set: &HashSet<String>) -> Option<String> {
    if set.contains(m) {
        return Some(m.to_string());
    }
    m.strip_suffix('s')
        .filter(|s| set.contains(*s))
        .map(str::to_string)
}

fn is_role(term: &str) -> bool {
    let last = term
        .split_whitespace()
        .last()
        .unwrap_or("")
        .to_ascii_lowercase();
    let last = last.trim_end_matches(['.', ',']);
    ROLE_HEADS.iter().any(|h| {
        last == *h || last.strip_suffix('s') == Some(h) || (last == "parties" && *h == "party")
    })
}

/// `Lenders` -> `Lender` for role names.
fn singular_role(term: &str) -> String {
    let t = normalize_ws(term);
    if t.ends_with("ies") {
        return format!("{}y", &t[..t.len() - 3]);
    }
    match t.strip_suffix('s') {
        Some(s) if is_role(s) && !t.ends_with("ss") => s.to_string(),
        _ => t,
    }
}

/// The section's own reference entity: `Section 5.06` from its title, or
/// the title itself.
fn own_section(input: &SectionInput) -> (String, String) {
    let name = OWN_SECTION
        .captures(&input.title)
        .map(|c| format!("Section {}", &c[1]))
        .unwrap_or_else(|| normalize_ws(&input.title));
    let name = if name.is_empty() {
        format!("Section {}", input.node_id)
    } else {
        name
    };
    (name, normalize_ws(&input.title))
}

fn section_refs(p: &str) -> Vec<String> {
    SECTION_REF
        .captures_iter(p)
        .map(|c| format!("Section {}", c[1].trim_end_matches('.')))
        .collect()
}

fn truncate(s: &str, n: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= n {
        return s.to_string();
    }
    let cut: String = s.chars().take(n).collect();
    match cut.rfind(' ') {
        Some(i) if i > n / 2 => format!("{}...", &cut[..i]),
        _ => format!("{cut}..."),
    }
}

/// A short quote around the first occurrence of `needle`.
fn snippet_around(p: &str, needle: &str) -> String {
    let Some(pos) = p.find(needle) else {
        return truncate(p, EVIDENCE_CHARS);
    };
    let start = p[..pos].char_indices().rev().nth(60).map_or(0, |(i, _)| i);
    truncate(&p[start..], EVIDENCE_CHARS)
}

/// A definition paragraph: the term, what it is (IS_A), what it is defined
/// with (DEFINED_AS other terms and organisations), and what it points to.
fn definition(
    b: &mut Builder,
    term: &str,
    verb: &str,
    body: &str,
    term_re: &Option<Regex>,
    set: &HashSet<String>,
) {
    let desc = truncate(&format!("{verb} {body}"), EVIDENCE_CHARS);
    let t = b.entity(term, "DefinedTerm", &desc);
    let body_trim = body.trim_start_matches([' ', ',', ':']);
    if let Some(re) = term_re {
        // IS_A: `means a Ratable Advance ...` / `means the Company ...`.
        let lead = Regex::new(
            r"^(?:(?:with respect to [^,]{0,80},\s*)?(?:at any time,\s*)?)(?:a|an|the|any|each)\s+",
        )
        .unwrap();
        let is_a_target = lead.find(body_trim).and_then(|m| {
            re.find(&body_trim[m.end()..])
                .filter(|x| x.start() == 0)
                .and_then(|x| term_of(x.as_str(), set))
        });
        if let Some(k) = &is_a_target {
            if k != term {
                let kn = b.entity(k, "DefinedTerm", "");
                b.relate(&t, "IS_A", &kn, &truncate(body_trim, EVIDENCE_CHARS));
            }
        }
        let mut used = HashSet::new();
        for m in re.find_iter(body) {
            let Some(k) = term_of(m.as_str(), set) else {
                continue;
            };
            if k == term || Some(&k) == is_a_target.as_ref() || !used.insert(k.clone()) {
                continue;
            }
            let kn = b.entity(&k, "DefinedTerm", "");
            b.relate(&t, "DEFINED_AS", &kn, &snippet_around(body, m.as_str()));
        }
    }
    // Terms defined inline, e.g. `("Exempt Debt")`, are part of this definition.
    for c in PAREN_TERM.captures_iter(body) {
        let inner = normalize_ws(&c[2]);
        if valid_term(&inner) && inner != term {
            let i = b.entity(
                &inner,
                "DefinedTerm",
                &truncate(&snippet_around(body, &c[0]), EVIDENCE_CHARS),
            );
            b.relate(&t, "DEFINED_AS", &i, &snippet_around(body, &c[0]));
        }
    }
    for org in orgs(body, set) {
        let o = b.entity(&org.name, "Organization", "");
        b.alias(&o, "Organization", &org.raw);
        b.relate(&t, "DEFINED_AS", &o, &snippet_around(body, &org.raw));
    }
    for sref in section_refs(body) {
        let s = b.entity(&sref, "SectionRef", "");
        b.relate(&t, "REFERENCES", &s, &snippet_around(body, &sref));
    }
    values(b, &t, body);
    for m in DATE.find_iter(body) {
        let d = b.entity(m.as_str(), "Period", "");
        b.relate(&t, "DEFINED_AS", &d, &snippet_around(body, m.as_str()));
    }
}

/// Amounts and rates mentioned in `text`: `Amount -AMOUNT_OF-> subject`
/// and `Rate -RATE_OF-> subject` when the ontology has those relation
/// types, else `subject -REFERENCES-> Amount/Rate`.
fn values(b: &mut Builder, subject: &str, text: &str) {
    for (re, ty, rel) in [
        (&*AMOUNT, "Amount", b.amount_of),
        (&*RATE, "Rate", b.rate_of),
    ] {
        for m in re.find_iter(text) {
            let v = b.entity(&normalize_ws(m.as_str()), ty, "");
            let evidence = snippet_around(text, m.as_str());
            match rel {
                Some(r) => b.relate(&v, r, subject, &evidence),
                None => b.relate(subject, "REFERENCES", &v, &evidence),
            }
        }
    }
}

/// An organisation name found in text.
struct OrgMatch {
    /// Display name (title-cased when written in capitals).
    name: String,
    /// As written.
    raw: String,
    /// Byte range of the match in the paragraph (with any leading
    /// stop words).
    start: usize,
    end: usize,
}

fn orgs(p: &str, defined: &HashSet<String>) -> Vec<OrgMatch> {
    let mut out = Vec::new();
    for c in ORG.captures_iter(p) {
        let whole = c.get(0).unwrap();
        let words: Vec<&str> = whole.as_str().split_whitespace().collect();
        let skip = words
            .iter()
            .take_while(|w| STOP_LEAD.contains(&w.to_ascii_lowercase().as_str()))
            .count();
        let mut kept = &words[skip..];
        // A sentence end (`Commitment. The Company`) or a generic `The`
        // inside the run starts the name after it.
        if let Some(cut) = kept.iter().rposition(|w| {
            let n = kept.len();
            let is_last = std::ptr::eq(*w, kept[n - 1]);
            !is_last && (sentence_end(w) || w.eq_ignore_ascii_case("the"))
        }) {
            kept = &kept[cut + 1..];
        }
        let tail = c.name("tail").map_or("", |t| t.as_str().trim());
        if kept.len() < 2 && tail.is_empty() {
            continue;
        }
        let raw = kept.join(" ");
        if defined.contains(&raw)
            || (is_role(&raw) && kept.len() <= 2 && tail.is_empty() && c.name("suffix2").is_none())
        {
            continue;
        }
        out.push(OrgMatch {
            name: display_name(&raw),
            raw,
            start: whole.start(),
            end: whole.end(),
        });
    }
    out
}

/// `JPMORGAN CHASE BANK, N.A.` -> `Jpmorgan Chase Bank, N.A.`; mixed-case
/// names are kept as written.
/// A word that ends a sentence: a full stop that is not an abbreviation
/// (`U.S.`, `St.`, `N.A.`).
fn sentence_end(w: &str) -> bool {
    let Some(stem) = w.strip_suffix('.') else {
        return false;
    };
    !stem.contains('.') && stem.chars().filter(|c| c.is_alphabetic()).count() > 3
}

/// Capitalised words kept as written: acronyms and legal suffixes.
fn keep_caps(bare: &str) -> bool {
    const TITLE: &[&str] = &[
        "CO.", "INC.", "LTD.", "CORP.", "THE", "AND", "BANK", "TRUST", "FUND", "NEW", "YORK",
        "WEST", "EAST", "CITY", "GAS", "OIL", "AIR", "LIFE", "HOME", "CARE", "ONE", "STAR", "BAY",
        "EDISON",
    ];
    let letters = bare.chars().filter(|c| c.is_alphabetic()).count();
    bare.contains('&')
        || bare.trim_end_matches('.').contains('.')
        || (letters <= 4 && !TITLE.contains(&bare))
}

fn display_name(raw: &str) -> String {
    let letters: Vec<char> = raw.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.iter().any(|c| c.is_lowercase()) {
        return raw.to_string();
    }
    raw.split(' ')
        .map(|w| {
            let bare = w.trim_end_matches(',');
            if bare == "OF" || bare == "AND" {
                w.to_lowercase()
            } else if keep_caps(bare) {
                w.to_string()
            } else {
                let mut cs = w.chars();
                match cs.next() {
                    Some(f) => f
                        .to_uppercase()
                        .chain(cs.flat_map(|c| c.to_lowercase()))
                        .collect(),
                    None => String::new(),
                }
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parties and roles: `X, as Administrative Agent`, `X, a Missouri
/// corporation (the "Company")`, and in a credit agreement's preamble the
/// first party named without a role is the Borrower.
fn parties(b: &mut Builder, p: &str, credit: bool, set: &HashSet<String>) {
    let found = orgs(p, set);
    if found.is_empty() {
        // Parenthetical definitions without a named organisation still define terms.
        for c in PAREN_TERM.captures_iter(p) {
            let t = normalize_ws(&c[2]);
            if valid_term(&t) {
                b.entity(&t, if is_role(&t) { "Role" } else { "DefinedTerm" }, "");
            }
        }
        return;
    }
    let lower = p.to_ascii_lowercase();
    let preamble = (lower.contains(" among ") || lower.contains(" between "))
        && (lower.contains("agree") || lower.contains("agreement"));
    let mut agents: Vec<String> = Vec::new();
    let mut first_without_role: Option<String> = None;
    let mut any_role = false;
    for (i, org) in found.iter().enumerate() {
        let o = b.entity(&org.name, "Organization", "");
        b.alias(&o, "Organization", &org.raw);
        let after = &p[org.end..];
        let mut has_role = false;
        if let Some(c) = AS_ROLE.captures(after) {
            for role in c[1]
                .split(" and ")
                .map(normalize_ws)
                .filter(|r| !r.is_empty() && r.chars().next().is_some_and(char::is_uppercase))
            {
                let role = singular_role(&role);
                let r = b.entity(&role, "Role", "");
                b.relate(
                    &o,
                    "HAS_ROLE",
                    &r,
                    &truncate(
                        &format!("{}{}", org.raw, &after[..c.get(0).unwrap().end()]),
                        EVIDENCE_CHARS,
                    ),
                );
                if role.to_ascii_lowercase().contains("agent") {
                    agents.push(o.clone());
                }
                has_role = true;
            }
        }
        if let Some(m) = SUBSIDIARY_OF_ORG.find(after) {
            let parent_at = org.end + m.end();
            if let Some(parent) = found
                .iter()
                .find(|x| x.start >= parent_at && x.start <= parent_at + 4)
            {
                let pn = b.entity(&parent.name, "Organization", "");
                b.alias(&pn, "Organization", &parent.raw);
                b.relate(
                    &o,
                    "SUBSIDIARY_OF",
                    &pn,
                    &truncate(
                        &format!("{}{}", org.raw, &p[org.end..parent.end]),
                        EVIDENCE_CHARS,
                    ),
                );
            }
        }
        if let Some(c) = AFTER_PARTY.captures(after) {
            let term = normalize_ws(&c["term"]);
            if valid_term(&term) {
                let evidence = truncate(
                    &format!("{}{}", org.raw, &after[..c.get(0).unwrap().end()]),
                    EVIDENCE_CHARS,
                );
                let d = b.entity(&term, "DefinedTerm", "");
                b.relate(&d, "DEFINED_AS", &o, &evidence);
                if is_role(&term) {
                    let r = b.entity(&singular_role(&term), "Role", "");
                    b.relate(&o, "HAS_ROLE", &r, &evidence);
                    has_role = true;
                    if term.to_ascii_lowercase().contains("agent") {
                        agents.push(o.clone());
                    }
                }
            }
            if let Some(desc) = c.name("desc") {
                if let Some(j) = JURISDICTION.captures(desc.as_str()) {
                    b.entity(
                        &j[1],
                        "Jurisdiction",
                        &format!("jurisdiction of {}", org.name),
                    );
                }
            }
        }
        any_role |= has_role;
        if i == 0 && !has_role {
            first_without_role = Some(o);
        }
    }
    // Credit agreements name the borrower first; the preamble often gives
    // it no `as ...` role.
    if let Some(first) = first_without_role {
        if preamble && any_role && (credit || lower.contains("borrower")) {
            let r = b.entity("Borrower", "Role", "");
            b.relate(&first, "HAS_ROLE", &r, &truncate(p, EVIDENCE_CHARS));
        }
    }
    let principal = ["Lender", "Bank"]
        .into_iter()
        .find(|w| p.contains(&format!("{w}s")) || p.contains(&format!("{}S", w.to_uppercase())));
    if let Some(w) = principal {
        for a in agents {
            let l = b.entity(w, "Role", "");
            b.relate(&a, "AGENT_FOR", &l, &truncate(p, EVIDENCE_CHARS));
        }
    }
}

/// `the Company's Significant Subsidiaries` -> `Significant Subsidiary
/// -SUBSIDIARY_OF-> Company`.
fn subsidiaries(b: &mut Builder, p: &str) {
    for c in POSSESSIVE_SUBSIDIARIES.captures_iter(p) {
        let parent = normalize_ws(&c[1]);
        if !is_role(&parent) {
            continue;
        }
        let sub = normalize_ws(&c[2]).replace("Subsidiaries", "Subsidiary");
        let pt = b.entity(&parent, "Role", "");
        let st = b.entity(&sub, "DefinedTerm", "");
        b.relate(&st, "SUBSIDIARY_OF", &pt, &snippet_around(p, &c[0]));
    }
}

/// `the Borrower shall ...` (OBLIGATED_TO), `... shall maintain ...`
/// (MUST_MAINTAIN), `... shall not ...` (RESTRICTS).
/// Returns the last obligation or covenant found in the paragraph.
fn obligations(
    b: &mut Builder,
    p: &str,
    set: &HashSet<String>,
    own: &(String, String),
) -> Option<String> {
    let mut last = None;
    for c in NEITHER.captures_iter(p) {
        let first = normalize_ws(&c[1]);
        let known =
            |t: &str| is_role(t) || set.contains(t) || set.contains(t.trim_end_matches('s'));
        if !known(&first) {
            continue;
        }
        let clause = clause_at(p, c.get(0).unwrap().start());
        let name = truncate(
            &clause
                .split_whitespace()
                .take(12)
                .collect::<Vec<_>>()
                .join(" "),
            100,
        );
        let ob = b.entity(&name, "Covenant", &truncate(clause, 200));
        let evidence = truncate(clause, EVIDENCE_CHARS);
        restricts_liens(b, &ob, clause);
        for party in [first, normalize_ws(&c[2])] {
            let pn = if is_role(&party) {
                singular_role(&party)
            } else {
                party.clone()
            };
            let pt = b.entity(
                &pn,
                if is_role(&party) {
                    "Role"
                } else {
                    "DefinedTerm"
                },
                "",
            );
            b.relate(&ob, "RESTRICTS", &pt, &evidence);
        }
        clause_links(b, &ob, clause, own);
        last = Some(ob);
    }
    for c in OBLIGATION.captures_iter(p) {
        let party = normalize_ws(&c[1]);
        let negative = c.get(2).is_some();
        let verb = c[3].to_string();
        if NON_OBLIGATION_VERBS.contains(&verb.as_str()) && !negative {
            continue;
        }
        // `shall not be required to ...` relieves a party; it restricts nothing.
        let next = p[c.get(0).unwrap().end()..]
            .split_whitespace()
            .next()
            .unwrap_or("");
        if negative && verb == "be" && RELIEF.contains(&next) {
            continue;
        }
        let known = set.contains(&party) || set.contains(party.trim_end_matches('s'));
        if !is_role(&party) && !known {
            continue;
        }
        let clause = clause_at(p, c.get(1).unwrap().start());
        let name = truncate(
            &clause
                .split_whitespace()
                .take(12)
                .collect::<Vec<_>>()
                .join(" "),
            100,
        );
        let party_name = if is_role(&party) {
            singular_role(&party)
        } else {
            party.clone()
        };
        let pt = b.entity(
            &party_name,
            if is_role(&party) {
                "Role"
            } else {
                "DefinedTerm"
            },
            "",
        );
        let evidence = truncate(clause, EVIDENCE_CHARS);
        let ob = if negative {
            let ob = b.entity(&name, "Covenant", &truncate(clause, 200));
            b.relate(&ob, "RESTRICTS", &pt, &evidence);
            restricts_liens(b, &ob, clause);
            ob
        } else {
            let ob = b.entity(&name, "Obligation", &truncate(clause, 200));
            let rel = if MAINTAIN_VERBS.contains(&verb.as_str()) {
                "MUST_MAINTAIN"
            } else {
                "OBLIGATED_TO"
            };
            b.relate(&pt, rel, &ob, &evidence);
            if let Some(l) = LENDS_TO.captures(clause) {
                let borrower = singular_role(&normalize_ws(&l[1]));
                let bt = b.entity(&borrower, "Role", "");
                b.relate(&pt, "LENDS_TO", &bt, &evidence);
            }
            ob
        };
        clause_links(b, &ob, clause, own);
        last = Some(ob);
    }
    last
}

/// A negative covenant that names liens restricts them (`Lien` entity).
fn restricts_liens(b: &mut Builder, covenant: &str, clause: &str) {
    if let Some(m) = LIEN.find(clause) {
        let l = b.entity("Lien", "Lien", "a lien, security interest or encumbrance");
        b.relate(
            covenant,
            "RESTRICTS",
            &l,
            &snippet_around(clause, m.as_str()),
        );
    }
}

/// The clause starting at `start`: up to the next `;` or sentence end.
fn clause_at(p: &str, start: usize) -> &str {
    let rest = &p[start..];
    let end = rest
        .char_indices()
        .find(|&(i, ch)| {
            (ch == ';' || ch == '.')
                && rest[i + 1..].starts_with(' ')
                && !rest[..i].ends_with(char::is_uppercase)
        })
        .map_or(rest.len(), |(i, _)| i);
    &rest[..end]
}

/// Section references, amounts and rates inside an obligation's clause.
fn clause_links(b: &mut Builder, ob: &str, clause: &str, own: &(String, String)) {
    for sref in section_refs(clause) {
        if sref != own.0 {
            let s = b.entity(&sref, "SectionRef", "");
            b.relate(ob, "REFERENCES", &s, &snippet_around(clause, &sref));
        }
    }
    values(b, ob, clause);
}

/// Collects entities and relations without duplicates, in first-seen order.
#[derive(Default)]
struct Builder {
    entities: Vec<Entity>,
    index: HashMap<(String, &'static str), usize>,
    relations: Vec<Relation>,
    seen: HashSet<(String, String, String)>,
    /// `AMOUNT_OF` when the ontology has it.
    amount_of: Option<&'static str>,
    /// `RATE_OF` when the ontology has it.
    rate_of: Option<&'static str>,
}

impl Builder {
    /// Adds (or finds) an entity; returns its canonical name.
    fn entity(&mut self, name: &str, ty: &'static str, desc: &str) -> String {
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

    fn alias(&mut self, name: &str, ty: &'static str, alias: &str) {
        if let Some(&i) = self.index.get(&(name.to_lowercase(), ty)) {
            let e = &mut self.entities[i];
            if alias != e.name && !e.aliases.iter().any(|a| a == alias) {
                e.aliases.push(alias.to_string());
            }
        }
    }

    fn relate(&mut self, source: &str, ty: &str, target: &str, evidence: &str) {
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
            });
        }
    }

    fn finish(self) -> RulesOutput {
        RulesOutput {
            entities: self.entities,
            relations: self.relations,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(title: &str, text: &str) -> SectionInput {
        SectionInput {
            doc_id: "d".into(),
            doc_type: "credit_agreement".into(),
            node_id: "0001".into(),
            title: title.into(),
            breadcrumb: format!("[{title}]"),
            start_line: 1,
            end_line: text.lines().count(),
            text: text.into(),
            anchor: false,
        }
    }

    fn has(o: &RulesOutput, s: &str, t: &str, d: &str) -> bool {
        o.relations
            .iter()
            .any(|r| r.source == s && r.relation_type == t && r.target == d)
    }

    #[test]
    fn definitions_yield_terms_is_a_and_defined_as() {
        let i = input(
            "Section 1.01 Definitions",
            "\u{201C}<u>Advance</u>\u{201D} means a Ratable Advance or a Competitive Bid Advance.\n\n\
             \"Ratable Advance\" means a borrowing by the Borrower under Section 2.02.\n\n\
             \"Competitive Bid Advance\": an advance bearing 0.125% per annum.\n\n\
             \"Borrower\" means the Company.\n\n\
             \"Company\" means Emerson Electric Co., a Missouri corporation, and its successors.",
        );
        let o = extract(&i);
        assert_eq!(o, extract(&i), "deterministic");
        let names: Vec<&str> = o
            .entities
            .iter()
            .filter(|e| e.entity_type == "DefinedTerm")
            .map(|e| e.name.as_str())
            .collect();
        for t in [
            "Advance",
            "Ratable Advance",
            "Competitive Bid Advance",
            "Borrower",
            "Company",
        ] {
            assert!(names.contains(&t), "{t} in {names:?}");
        }
        assert!(
            has(&o, "Advance", "IS_A", "Ratable Advance"),
            "{:#?}",
            o.relations
        );
        assert!(has(&o, "Advance", "DEFINED_AS", "Competitive Bid Advance"));
        assert!(has(&o, "Ratable Advance", "REFERENCES", "Section 2.02"));
        assert!(has(
            &o,
            "Competitive Bid Advance",
            "REFERENCES",
            "0.125% per annum"
        ));
        assert!(
            has(&o, "Company", "DEFINED_AS", "Emerson Electric Co."),
            "{:#?}",
            o.relations
        );
    }

    #[test]
    fn preamble_parties_and_roles() {
        let o = extract(&input(
            "Preamble",
            "THIS CREDIT AGREEMENT, dated as of May 23, 2018, is by and among EMERSON ELECTRIC CO., the SUBSIDIARY BORROWERS \
             from time to time party hereto, the LENDERS, the LC ISSUERS and JPMORGAN CHASE BANK, N.A., as Agent. \
             The parties hereto agree as follows:",
        ));
        assert!(
            has(&o, "Emerson Electric Co.", "HAS_ROLE", "Borrower"),
            "{:#?}",
            o.relations
        );
        assert!(
            has(&o, "Jpmorgan Chase Bank, N.A.", "HAS_ROLE", "Agent"),
            "{:#?}",
            o.relations
        );
        assert!(
            has(&o, "Jpmorgan Chase Bank, N.A.", "AGENT_FOR", "Lender"),
            "{:#?}",
            o.relations
        );
        let jp = o
            .entities
            .iter()
            .find(|e| e.name == "Jpmorgan Chase Bank, N.A.")
            .unwrap();
        assert_eq!(jp.aliases, vec!["JPMORGAN CHASE BANK, N.A.".to_string()]);
    }

    #[test]
    fn parenthetical_party_and_administrative_agent() {
        let o = extract(&input(
            "Preamble",
            "AGREEMENT dated as of June 30, 1995 among AT&T CAPITAL CORPORATION, a Delaware corporation (the \"Borrower\"), \
             the BANKS party hereto and MORGAN GUARANTY TRUST COMPANY OF NEW YORK, as Administrative Agent.",
        ));
        assert!(
            has(&o, "AT&T Capital Corporation", "HAS_ROLE", "Borrower"),
            "{:#?}",
            o
        );
        assert!(has(
            &o,
            "Borrower",
            "DEFINED_AS",
            "AT&T Capital Corporation"
        ));
        assert!(
            has(
                &o,
                "Morgan Guaranty Trust Company of New York",
                "HAS_ROLE",
                "Administrative Agent"
            ),
            "{:#?}",
            o.relations
        );
        assert!(has(
            &o,
            "Morgan Guaranty Trust Company of New York",
            "AGENT_FOR",
            "Bank"
        ));
        assert!(o
            .entities
            .iter()
            .any(|e| e.entity_type == "Jurisdiction" && e.name == "Delaware"));
    }

    #[test]
    fn organisation_names_stop_at_sentences_and_keep_acronyms() {
        let o = extract(&input(
            "Lenders",
            "Increase of Aggregate Commitment. The Company may ask. Signed by U.S. BANK NATIONAL ASSOCIATION, \
             DBS BANK LTD. and UBS AG, as Lenders. Information Concerning The Company is confidential.",
        ));
        let orgs: Vec<&str> = o
            .entities
            .iter()
            .filter(|e| e.entity_type == "Organization")
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(
            orgs,
            ["U.S. Bank National Association", "DBS Bank Ltd.", "UBS AG"],
            "{orgs:?}"
        );
    }

    #[test]
    fn values_use_amount_of_and_rate_of_when_the_ontology_has_them() {
        let i = input(
            "Section 2.01 The Facility",
            "Each Lender agrees to make Loans up to $100,000,000 at 0.125% per annum.",
        );
        let mut o = Ontology::default();
        o.relation_types.insert("AMOUNT_OF".into(), String::new());
        o.relation_types.insert("RATE_OF".into(), String::new());
        let with = extract_for(&i, &o);
        let ob = with
            .entities
            .iter()
            .find(|e| e.entity_type == "Obligation")
            .unwrap()
            .name
            .clone();
        assert!(
            has(&with, "$100,000,000", "AMOUNT_OF", &ob),
            "{:#?}",
            with.relations
        );
        assert!(has(&with, "0.125% per annum", "RATE_OF", &ob));
        let without = extract(&i);
        assert!(has(&without, &ob, "REFERENCES", "$100,000,000"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// Any text, including multi-byte characters next to the patterns'
        /// anchors, extracts without panicking, deterministically.
        #[test]
        fn never_panics_and_is_deterministic(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::string::string_regex("[A-Za-zé€’“” ,.;:()$%0-9\n-]{0,40}").unwrap(),
                    proptest::strategy::Just("\u{201C}Term\u{201D} means ".to_string()),
                    proptest::strategy::Just("ACME BANK, N.A., as Agent".to_string()),
                    proptest::strategy::Just(", a subsidiary of Émile Co. ".to_string()),
                    proptest::strategy::Just("the Company shall not ".to_string()),
                    proptest::strategy::Just("Event of Default:\n\n(a) ".to_string()),
                    proptest::strategy::Just("Section 5.06 ".to_string()),
                    proptest::strategy::Just("the Borrower\u{2019}s Subsidiaries".to_string()),
                ],
                0..30,
            )
        ) {
            let i = input("Section 1.01 Anything", &parts.concat());
            let a = extract(&i);
            proptest::prop_assert_eq!(a, extract(&i));
        }
    }

    #[test]
    fn lenders_lend_to_borrowers() {
        let o = extract(&input(
            "Section 2.01 The Facility",
            "Each Lender severally agrees, on the terms and conditions set forth in this Agreement, to make \
             Ratable Loans to the Borrowers in Agreed Currencies from time to time.",
        ));
        assert!(
            has(&o, "Lender", "LENDS_TO", "Borrower"),
            "{:#?}",
            o.relations
        );
        assert!(o
            .relations
            .iter()
            .any(|r| r.relation_type == "OBLIGATED_TO" && r.source == "Lender"));
    }

    #[test]
    fn subsidiaries_and_ratios() {
        let o = extract(&input(
            "Section 4.09 Subsidiaries",
            "Each of the Company\u{2019}s corporate Significant Subsidiaries is duly incorporated. \
             Ratings by Standard & Poor's Financial Services LLC, a subsidiary of S&P Global Inc., apply. \
             The Company will not permit the Leverage Ratio to exceed 3.00 to 1.00.",
        ));
        assert!(
            has(&o, "Significant Subsidiary", "SUBSIDIARY_OF", "Company"),
            "{:#?}",
            o.relations
        );
        assert!(
            has(
                &o,
                "Standard & Poor's Financial Services LLC",
                "SUBSIDIARY_OF",
                "S&P Global Inc."
            ),
            "{:#?}",
            o.relations
        );
        assert!(o
            .entities
            .iter()
            .any(|e| e.entity_type == "Rate" && e.name == "3.00 to 1.00"));
    }

    #[test]
    fn wrapped_plain_text_definitions_are_found() {
        let o = extract(&input(
            "Section 1.01. Definitions",
            "\u{201C}Additional Lender\u{201D} means a Person which becomes a Lender pursuant to Section\n\
             2.17.\n\
             \u{201C}Administrative Agent\u{201D} means Bank of America, N.A., in its capacity as\n\
             administrative agent for the Lenders hereunder.\n\
             \u{201C}Lender\u{201D} means each bank party hereto.",
        ));
        let terms: Vec<&str> = o
            .entities
            .iter()
            .filter(|e| e.entity_type == "DefinedTerm")
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(
            terms,
            ["Additional Lender", "Lender", "Administrative Agent"]
        );
        assert!(has(&o, "Additional Lender", "REFERENCES", "Section 2.17"));
        assert!(has(
            &o,
            "Administrative Agent",
            "DEFINED_AS",
            "Bank of America, N.A."
        ));
    }

    #[test]
    fn events_of_default_trigger_the_default() {
        let o = extract(&input(
            "Section 6.01 Events of Default",
            "The occurrence of any one or more of the following events shall constitute an \"Event of Default\":\n\n\
             (a) any Borrower shall fail to pay any principal of any Loan;\n\n\
             54\n\n\
             (b) any Borrower shall fail to observe any covenant contained in Section 5.06;\n\n\
             then, and in every such event, the Agent may terminate the Commitments by notice to the Company.",
        ));
        let events: Vec<&str> = o
            .entities
            .iter()
            .filter(|e| e.entity_type == "EventOfDefault")
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(events.len(), 2, "{events:?}");
        assert!(events[0].starts_with("Event of Default (a): any Borrower shall fail to pay"));
        assert!(has(&o, events[1], "TRIGGERS", "Event of Default"));
        assert!(has(&o, events[1], "REFERENCES", "Section 5.06"));
        assert!(!o
            .relations
            .iter()
            .any(|r| r.relation_type == "OBLIGATED_TO" && r.target.contains("fail to pay")));
    }

    #[test]
    fn obligations_and_covenants() {
        let o = extract(&input(
            "Section 5.06 Mergers and Sales of Assets",
            "The Company shall not permit any Subsidiary to sell all of its assets, except as permitted by Section 5.08. \
             The Company shall maintain its corporate existence. The Agent shall not be required to act. Each Lender agrees to fund its Advances of $5,000,000.",
        ));
        let cov = o
            .entities
            .iter()
            .find(|e| e.entity_type == "Covenant")
            .expect("a covenant");
        assert!(
            cov.name.starts_with("Company shall not permit"),
            "{}",
            cov.name
        );
        assert!(has(&o, &cov.name, "RESTRICTS", "Company"));
        assert!(
            !o.entities
                .iter()
                .any(|e| e.name.starts_with("Agent shall not be required")),
            "a relief, not a covenant"
        );
        assert!(has(&o, &cov.name, "REFERENCES", "Section 5.08"));
        assert!(o
            .relations
            .iter()
            .any(|r| r.relation_type == "MUST_MAINTAIN" && r.source == "Company"));
        assert!(o
            .relations
            .iter()
            .any(|r| r.relation_type == "OBLIGATED_TO" && r.source == "Lender"));
        assert!(o
            .entities
            .iter()
            .any(|e| e.entity_type == "Amount" && e.name == "$5,000,000"));
    }
}
