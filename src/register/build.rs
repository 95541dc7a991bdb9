//! One document's graph -> its [`RegisterRow`]. The row is read from the
//! graph as written (the typed-fact relations after identity resolution and
//! ontology checks), so the register and `graph.jsonl` never disagree.
//!
//! Choice rule for the document-level fields (dates, term, renewal, notice,
//! law; [`DOCUMENT_LEVEL`]): only a fact whose value has a normal form can
//! be the field's value (best first, then section order); one without (a
//! clause quoted for want of a date) goes to the row's `to_check`, for a
//! reviewer. Every other fact type keeps section order.

use super::{normalize, read, RegisterFact, RegisterParty, RegisterRow};
use crate::extract::facts_vocabulary::is_fact_relation;
use crate::graph::{DocGraph, EntityNode};
use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::{BTreeMap, HashMap};

/// Fact types with one value per contract, chosen by the module's rule.
pub const DOCUMENT_LEVEL: &[&str] = &[
    "AGREEMENT_DATE",
    "EFFECTIVE_DATE",
    "EXPIRATION_DATE",
    "RENEWAL_TERM",
    "NOTICE_PERIOD_TO_TERMINATE_RENEWAL",
    "GOVERNING_LAW",
    "WARRANTY_DURATION",
];

/// Entity types a fact's source may be as a party (else it is about the
/// agreement itself).
fn is_party(e: &EntityNode) -> bool {
    matches!(
        e.entity_type.to_ascii_lowercase().as_str(),
        "role" | "organization" | "organisation" | "person" | "party"
    ) && !e.name.eq_ignore_ascii_case("agreement")
}

/// The register row of one document's graph.
pub fn row_of(g: &DocGraph) -> RegisterRow {
    let order: HashMap<&str, usize> = g
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| (s.node_id.as_str(), i))
        .collect();
    let lines: HashMap<&str, (usize, usize)> = g
        .sections
        .iter()
        .map(|s| (s.node_id.as_str(), (s.start_line, s.end_line)))
        .collect();

    let mut facts: BTreeMap<String, Vec<(usize, RegisterFact)>> = BTreeMap::new();
    let mut parties: Vec<RegisterParty> = Vec::new();
    for (a, edge, b) in g.relations() {
        if edge.rel_type == "HAS_ROLE" {
            add_party(&mut parties, a, &b.name);
            continue;
        }
        if !is_fact_relation(&edge.rel_type) {
            continue;
        }
        let Some(p) = edge.provenance.first() else {
            continue;
        };
        let (start_line, end_line) = lines.get(p.node_id.as_str()).copied().unwrap_or((0, 0));
        let fact = RegisterFact {
            value: b.name.clone(),
            normalized: normalize::of(&edge.rel_type, &b.entity_type, &b.name),
            party: is_party(a).then(|| a.name.clone()),
            node_id: p.node_id.clone(),
            start_line,
            end_line,
            quote: p.evidence.clone(),
            why: String::new(),
            target_type: b.entity_type.clone(),
            basis: basis_of(p),
            confidence: p.reading.and_then(|r| r.score()),
        };
        let at = order.get(p.node_id.as_str()).copied().unwrap_or(usize::MAX);
        facts
            .entry(edge.rel_type.clone())
            .or_default()
            .push((at, fact));
    }
    let mut to_check: BTreeMap<String, Vec<RegisterFact>> = BTreeMap::new();
    appended_amendments(&mut facts, &mut to_check);
    expiration_dates(&mut facts, &g.term_definitions);
    let mut facts: BTreeMap<String, Vec<RegisterFact>> = facts
        .into_iter()
        .filter_map(|(ty, mut list)| {
            let level = DOCUMENT_LEVEL.contains(&ty.as_str());
            // Stable: facts of one section keep the graph's order.
            list.sort_by_key(|(at, f)| (if level { rank(&ty, f) } else { 0 }, *at));
            let (values, unread): (Vec<RegisterFact>, Vec<RegisterFact>) = list
                .into_iter()
                .map(|(_, f)| f)
                .partition(|f| !level || f.normalized.is_some());
            if !unread.is_empty() {
                to_check.entry(ty.clone()).or_default().extend(unread);
            }
            let (values, unsure) = signed_on_one_day(&ty, values);
            if !unsure.is_empty() {
                to_check.entry(ty.clone()).or_default().extend(unsure);
            }
            let (values, others) = one_date(&ty, values);
            if !others.is_empty() {
                to_check.entry(ty.clone()).or_default().extend(others);
            }
            (!values.is_empty()).then_some((ty, values))
        })
        .collect();
    let renewal = renewal_kind_of(&mut facts, &mut to_check);
    for h in &g.held {
        let c = &h.candidate;
        let (start_line, end_line) = lines.get(h.node_id.as_str()).copied().unwrap_or((0, 0));
        to_check
            .entry(c.relation.relation_type.clone())
            .or_default()
            .push(RegisterFact {
                value: c.relation.target.clone(),
                normalized: None,
                party: (!c.relation.source.eq_ignore_ascii_case("agreement"))
                    .then(|| c.relation.source.clone()),
                node_id: h.node_id.clone(),
                start_line,
                end_line,
                quote: c.relation.evidence.clone(),
                why: c.why.clone(),
                target_type: c.target_type.clone(),
                basis: c
                    .relation
                    .reading
                    .map(|r| r.basis.as_str().to_string())
                    .unwrap_or_default(),
                confidence: c.relation.reading.and_then(|r| r.score()),
            });
    }
    RegisterRow {
        doc_id: g.meta.doc_id.clone(),
        path: g.meta.path.display().to_string(),
        sha256: g.meta.sha256.clone(),
        doc_type: g.meta.doc_type.clone(),
        title: title_of(g),
        parties,
        facts,
        to_check,
        renewal,
        verify: None,
    }
}

/// A contract has one date and one effective date: the chosen one (the
/// first of `values`, best first) and the facts that agree with it stay;
/// a fact of another day dates another instrument the filing holds (an
/// amendment, the agreement an amendment attaches, a form, a report) and
/// goes to the reviewer.
fn one_date(ty: &str, values: Vec<RegisterFact>) -> (Vec<RegisterFact>, Vec<RegisterFact>) {
    if !matches!(ty, "AGREEMENT_DATE" | "EFFECTIVE_DATE") {
        return (values, Vec::new());
    }
    let Some(chosen) = values.first().and_then(|f| f.normalized.clone()) else {
        return (values, Vec::new());
    };
    // `2020` agrees with `2020-03-01`: a partial date is the same day
    // read with less.
    let agrees = |n: &str| chosen.starts_with(n) || n.starts_with(chosen.as_str());
    let (same, others): (Vec<RegisterFact>, Vec<RegisterFact>) = values
        .into_iter()
        .partition(|f| f.normalized.as_deref().is_some_and(agrees));
    let others = others
        .into_iter()
        .map(|f| RegisterFact {
            why: format!(
                "another day than the contract's own ({chosen}): the date of another instrument in the filing"
            ),
            normalized: None,
            ..f
        })
        .collect();
    (same, others)
}

/// A date read where the agreement is signed (`Title: CEO Date: March 14,
/// 2016`, `Dated: July 6, 2020`), not from its opening.
static SIGNED: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?i)(?:(?:\b(?:by|name|title|signature)\s*:|/s/)[^;]{0,120}?\bdated?|^\W*dated)\s*:",
    )
    .unwrap()
});

/// An agreement that its opening leaves undated takes the day its signers
/// dated it, when they all dated it one day. Signers who dated it on
/// different days leave the day it was made a reviewer's call (the last
/// signature, a counterpart's, a later amendment's): those facts go to
/// check.
fn signed_on_one_day(
    ty: &str,
    values: Vec<RegisterFact>,
) -> (Vec<RegisterFact>, Vec<RegisterFact>) {
    static FIELD: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\bdated?\s*:\s*([A-Za-z0-9][A-Za-z0-9,./ -]{2,30}?(?:\d{4}|/\d{2}))\b")
            .unwrap()
    });
    if ty != "AGREEMENT_DATE" || !values.first().is_some_and(|f| SIGNED.is_match(&f.quote)) {
        return (values, Vec::new());
    }
    let (signed, rest): (Vec<RegisterFact>, Vec<RegisterFact>) =
        values.into_iter().partition(|f| SIGNED.is_match(&f.quote));
    let mut days: Vec<String> = signed
        .iter()
        .flat_map(|f| FIELD.captures_iter(&f.quote))
        .filter_map(|c| normalize::date(c.get(1)?.as_str()))
        .filter(|d| d.len() == 10)
        .collect();
    days.sort();
    days.dedup();
    if days.len() <= 1 {
        let mut values = signed;
        values.extend(rest);
        return (values, Vec::new());
    }
    let why = format!(
        "the signers dated it on different days ({}): which is the agreement's is a reviewer's call",
        days.join(", ")
    );
    let held = signed
        .into_iter()
        .map(|f| RegisterFact {
            why: why.clone(),
            normalized: None,
            ..f
        })
        .collect();
    (rest, held)
}

/// A filing that appends an amendment to the agreement states the
/// amendment's date too (`The Parties agree that this Amendment I is
/// effective as of June 1, 2007`): when the document's first date of a kind
/// is not an amendment's, a later one that speaks of `this Amendment` (or
/// addendum) dates that instrument, not the agreement, and goes to the
/// reviewer. A document that is itself an amendment opens with its own.
fn appended_amendments(
    facts: &mut BTreeMap<String, Vec<(usize, RegisterFact)>>,
    to_check: &mut BTreeMap<String, Vec<RegisterFact>>,
) {
    static AMENDMENT: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"\b(?:[Tt]his|[Ss]uch|[Ww]hich)\s+(?:[\w#.-]+\s+){0,3}?(?:[Aa]mendment|AMENDMENT|[Aa]ddendum|ADDENDUM)\b")
            .unwrap()
    });
    for ty in ["AGREEMENT_DATE", "EFFECTIVE_DATE"] {
        let Some(list) = facts.get_mut(ty) else {
            continue;
        };
        let first_is_own = list
            .iter()
            .min_by_key(|(at, _)| *at)
            .is_some_and(|(_, f)| !AMENDMENT.is_match(&f.quote));
        if !first_is_own {
            continue;
        }
        let (later, own): (Vec<_>, Vec<_>) = std::mem::take(list)
            .into_iter()
            .partition(|(_, f)| AMENDMENT.is_match(&f.quote));
        *list = own;
        to_check
            .entry(ty.to_string())
            .or_default()
            .extend(later.into_iter().map(|(_, f)| {
                RegisterFact {
                    why: "the date of an amendment filed with the agreement, not the agreement's"
                        .to_string(),
                    ..f
                }
            }));
    }
}

/// How the contract renews, from its renewal cell (see
/// [`read::renewal_kind`]). When the renewal is an option, a notice period
/// is the notice to exercise it, not one that stops a renewal: the notice
/// cell stays empty and its facts go to the reviewer.
fn renewal_kind_of(
    facts: &mut BTreeMap<String, Vec<RegisterFact>>,
    to_check: &mut BTreeMap<String, Vec<RegisterFact>>,
) -> Option<String> {
    let kind = facts
        .get("RENEWAL_TERM")
        .and_then(|list| list.first())
        .and_then(read::renewal_kind)?;
    if kind == read::OPTION_TO_RENEW {
        if let Some(notices) = facts.remove("NOTICE_PERIOD_TO_TERMINATE_RENEWAL") {
            to_check
                .entry("NOTICE_PERIOD_TO_TERMINATE_RENEWAL".to_string())
                .or_default()
                .extend(notices.into_iter().map(|f| {
                    RegisterFact {
                        why: "the renewal is an option: a notice to exercise it stops no renewal"
                            .to_string(),
                        ..f
                    }
                }));
        }
    }
    Some(kind.to_string())
}

/// Who read a fact, as its first place in the graph says.
fn basis_of(p: &crate::graph::Provenance) -> String {
    match p.reading {
        _ if p.source != crate::graph::SOURCE_RULES && !p.source.is_empty() => "llm".to_string(),
        Some(r) => r.basis.as_str().to_string(),
        // A reader without a model behind it (a party's obligation).
        None if p.source == crate::graph::SOURCE_RULES => "rule".to_string(),
        None => String::new(),
    }
}

/// How well a fact states a document-level field: 0 best. A value in
/// normal form before raw text; a term, renewal or notice read from a
/// sentence about the agreement's term or its renewal before one read from
/// any other sentence that happens to hold a period (a notice to cure, an
/// order window).
fn rank(ty: &str, f: &RegisterFact) -> u8 {
    static TERM: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\b(?:term\s+of\s+this|initial\s+term|the\s+term\b|this\s+agreement\s+(?:shall|will)\s+(?:continue|remain|expire|terminate|be\s+in\s+effect)|remain\s+in\s+(?:full\s+force|effect)|expir)")
            .unwrap()
    });
    static RENEW: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\b(?:renew|non-?renew|extend|extension|successive|expir)").unwrap()
    });
    let Some(n) = f.normalized.as_deref() else {
        return 3;
    };
    match ty {
        "EXPIRATION_DATE" if n == "perpetual" || f.target_type == "Date" => 0,
        "EXPIRATION_DATE" => u8::from(!TERM.is_match(&f.quote)) * 2,
        "RENEWAL_TERM" | "NOTICE_PERIOD_TO_TERMINATE_RENEWAL" => {
            u8::from(!RENEW.is_match(&f.quote)) * 2
        }
        "AGREEMENT_DATE" if SIGNED.is_match(&f.quote) => 2,
        "AGREEMENT_DATE" | "EFFECTIVE_DATE" => u8::from(n.len() < 10),
        _ => 0,
    }
}

/// The expiration date when the contract gives a term, not a date: the
/// start (the effective date, else the agreement date, when the text gives
/// the day) plus the initial term; `perpetual` when the clause says so.
fn expiration_dates(
    facts: &mut BTreeMap<String, Vec<(usize, RegisterFact)>>,
    definitions: &BTreeMap<String, String>,
) {
    static PERPETUAL: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\b(?:perpetu(?:al|ity|ally)|indefinite(?:ly)?|in\s+full\s+force\s+and\s+effect\s+until\s+terminated|until\s+(?:terminated|termination)\b)")
            .unwrap()
    });
    let first_day = |ty: &str| {
        facts.get(ty).and_then(|list| {
            let mut list: Vec<&(usize, RegisterFact)> = list.iter().collect();
            list.sort_by_key(|(at, _)| *at);
            list.into_iter()
                .filter_map(|(_, f)| f.normalized.clone())
                .find(|n| n.len() == 10)
        })
    };
    let start = first_day("EFFECTIVE_DATE").or_else(|| first_day("AGREEMENT_DATE"));
    let Some(list) = facts.get_mut("EXPIRATION_DATE") else {
        return;
    };
    for (_, f) in list.iter_mut() {
        // `shall commence August 1, 1995 and continue until January 30,
        // 2000`, `shall be for one year ... and expire on December 31,
        // 2006`: the date the term ends, when the sentence names it, beats
        // any arithmetic.
        if let Some(end) = normalize::end_date(&f.quote) {
            f.normalized = Some(end);
            continue;
        }
        if f.target_type == "Date" {
            continue;
        }
        // What follows the initial term (`; thereafter, it shall continue
        // until terminated`) is how it renews, not how long it runs.
        let initial = INITIAL_PART
            .find(&f.quote)
            .map_or(f.quote.as_str(), |m| &f.quote[..m.start()]);
        // `until the second anniversary of the Effective Date`: the day
        // the term ends, counted from the agreement's start.
        if let Some(end) = anniversary(initial, start.as_deref()) {
            f.normalized = Some(end);
            continue;
        }
        f.normalized = if PERPETUAL.is_match(initial) {
            Some("perpetual".to_string())
        } else {
            term_end(initial, &f.value, start.as_deref())
                .or_else(|| defined_end(initial, definitions, start.as_deref()))
        };
    }
}

/// The end of a term of `period` (the fact's value) that `sentence`
/// states, counted from the start its words name, else the agreement's.
fn term_end(sentence: &str, period: &str, start: Option<&str>) -> Option<String> {
    // A term runs months or years; days are a notice or a window.
    let months = (period.split_whitespace().count() <= normalize::PERIOD_WORDS)
        .then(|| normalize::period(period))
        .flatten()
        .filter(|p| !p.ends_with("day") && !p.ends_with("days"))?;
    // `ten (10) years after the First Commercial Sale`: the words after
    // the period say what it counts from, before any start the sentence
    // gives the term itself.
    let from =
        counted_from(sentence, period, start).unwrap_or_else(|| term_start(sentence, start))?;
    normalize::add_period(&from, &months)
}

/// `shall continue in effect for the Service Period`: a term that runs
/// for a period the definitions give ends where its definition says
/// (`"Service Period" means April 1st 2019 through to March 30, 2020`,
/// `"Term" means three (3) years from the Effective Date`). A definition
/// that only points elsewhere (`has the meaning given in Section 9`)
/// gives nothing.
fn defined_end(
    sentence: &str,
    definitions: &BTreeMap<String, String>,
    start: Option<&str>,
) -> Option<String> {
    static FOR_THE: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i:\b(?:for|until|through|during|throughout|(?:end|expiration|expiry)\s+of))\s+the\s+(?P<t>[A-Z][\w-]*(?:\s+(?:of\s+)?[A-Z][\w-]*){0,4})")
            .unwrap()
    });
    static PERIOD_IN: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\b(?:[a-z]+(?:-[a-z]+)?\s+)?(?:\(\d{1,3}\)|\d{1,3})\s*(?:calendar\s+|consecutive\s+|full\s+)?(?:years?|months?)\b")
            .unwrap()
    });
    for c in FOR_THE.captures_iter(sentence) {
        let Some(definition) = definitions.get(&c["t"]) else {
            continue;
        };
        if let Some(end) = normalize::end_date(definition) {
            return Some(end);
        }
        if let Some(end) = anniversary(definition, start) {
            return Some(end);
        }
        let period = PERIOD_IN.find(definition)?;
        return term_end(definition, period.as_str(), start);
    }
    None
}

/// The date of `the Nth anniversary of the Effective Date` (or of the
/// date hereof, the commencement or execution date) named in a term
/// sentence, from the agreement's start (`agreement_start`: its effective
/// date, else its date). None after `the later of`, whose other limb
/// (an event) may end the term later.
fn anniversary(sentence: &str, agreement_start: Option<&str>) -> Option<String> {
    static ANNIVERSARY: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\b(?:(?P<ord>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|fifteenth|twentieth|twenty-fifth|thirtieth)|(?P<num>\d{1,2})\s*(?:st|nd|rd|th)|(?P<card>[a-z]+(?:-[a-z]+)?|\d{1,2})(?:\s*\(\d{1,2}\))?\s*-?\s*years?)\s*(?:\(\s*\d{1,2}\s*(?:s\s?t|n\s?d|r\s?d|t\s?h)?\s*\)\s*)?anniversary\s+of\s+(?:the\s+)?(?:effective\s+date|date\s+(?:hereof|of\s+this\s+(?:agreement|contract))|commencement\s+date|execution\s+date|date\s+of\s+execution)")
            .unwrap()
    });
    static LATER_OF: Lazy<Regex> = Lazy::new(|| Regex::new(r"(?i)\blater\s+of\b").unwrap());
    const ORDINALS: &[(&str, u32)] = &[
        ("first", 1),
        ("second", 2),
        ("third", 3),
        ("fourth", 4),
        ("fifth", 5),
        ("sixth", 6),
        ("seventh", 7),
        ("eighth", 8),
        ("ninth", 9),
        ("tenth", 10),
        ("eleventh", 11),
        ("twelfth", 12),
        ("fifteenth", 15),
        ("twentieth", 20),
        ("twenty-fifth", 25),
        ("thirtieth", 30),
    ];
    let start = agreement_start.filter(|s| s.len() == 10)?;
    let c = ANNIVERSARY.captures(sentence)?;
    let at = c.get(0)?.start();
    if LATER_OF.is_match(&sentence[..at]) {
        return None;
    }
    let years = if let Some(o) = c.name("ord") {
        let o = o.as_str().to_ascii_lowercase();
        ORDINALS.iter().find(|(w, _)| *w == o).map(|(_, n)| *n)?
    } else if let Some(n) = c.name("num") {
        n.as_str().parse().ok()?
    } else {
        let p = normalize::period(c.get(0)?.as_str())?;
        p.strip_suffix(" years")
            .or_else(|| p.strip_suffix(" year"))?
            .parse()
            .ok()?
    };
    normalize::add_period(start, &format!("{years} years"))
}

/// Where a term sentence turns from the initial term to what follows it.
static INITIAL_PART: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i)\bthereafter\b|\b(?:after|following|upon)\s+(?:the\s+)?(?:expiration\s+of\s+(?:the\s+)?)?initial\s+term\b")
        .unwrap()
});

/// The day a term runs from: the date its sentence says it commences
/// (`one (1) year, commencing January 1, 2008`); the agreement's own start
/// (`agreement_start`: its effective date, else its date) when the term
/// runs from that or the sentence names no start; none when it runs from an
/// event (`shall commence on the date upon which the Company delivers the
/// last Sample`, `five years following the date of launch`): its end is
/// not known from the text.
fn term_start(sentence: &str, agreement_start: Option<&str>) -> Option<String> {
    static FROM: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\b(?:commenc\w*|begin\w*|beginning|start\w*|effective|runs?|running|following|after|from)\s+(?:on\s+|upon\s+|with\s+|as\s+of\s+|at\s+)?(?P<what>[^.;]{0,60})")
            .unwrap()
    });
    for c in FROM.captures_iter(sentence) {
        let what = c.name("what").map_or("", |m| m.as_str().trim());
        if let Some(start) = start_named(what, agreement_start) {
            return start;
        }
    }
    agreement_start.map(str::to_string)
}

/// The start `what` (the words after `commencing`, `after`, `from`)
/// names: a date it gives, the agreement's own start, or none for an
/// event the agreement does not date (`the date upon which ...`, `the
/// date of launch`, `the First Commercial Sale`); `None` when it names no
/// start.
fn start_named(what: &str, agreement_start: Option<&str>) -> Option<Option<String>> {
    static OWN_START: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r#"(?i)^(?:the\s+)?(?:["“]?effective\s+date|date\s+(?:hereof|of\s+this|of\s+(?:execution|signing)|first\s+(?:above\s+)?(?:written|set\s+forth)|set\s+forth|on\s+which\s+this\s+agreement|this\s+agreement)|execution|signing|full\s+execution|(?:the\s+)?agreement\s+date)"#)
            .unwrap()
    });
    static EVENT: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)^(?:the\s+)?(?:date\s+(?:(?:up)?on\s+which|of|that|when)|first|launch|delivery|completion|opening|closing|commercial|later\s+of|earlier\s+of|sooner\s+of|receipt|approval|issuance)\b")
            .unwrap()
    });
    static DATE_FIRST: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)^(?:[A-Z][a-z]+\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2}(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?[A-Z][a-z]+,?\s+\d{4})")
            .unwrap()
    });
    if let Some(d) = DATE_FIRST
        .find(what)
        .and_then(|d| normalize::date(d.as_str()))
    {
        if d.len() == 10 {
            return Some(Some(d));
        }
    }
    if OWN_START.is_match(what) {
        return Some(agreement_start.map(str::to_string));
    }
    // `the tentative launch date of January 4, 1999`: an event the text
    // dates.
    static DATED_EVENT: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)^(?:the\s+)?(?:[\w-]+\s+){0,3}date\s+of\s+(?P<d>[A-Z][a-z]+\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2}(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?[A-Z][a-z]+,?\s+\d{4})")
            .unwrap()
    });
    if let Some(d) = DATED_EVENT
        .captures(what)
        .and_then(|c| normalize::date(&c["d"]))
        .filter(|d| d.len() == 10)
    {
        return Some(Some(d));
    }
    // `shall commence on the date upon which ...`, `following the date
    // of launch`: a start the agreement does not date.
    if EVENT.is_match(what) {
        return Some(None);
    }
    None
}

/// What a term of `period` counts from when the words right after the
/// period say (`ten (10) years after the First Commercial Sale`, `two
/// years from the Effective Date`): see [`start_named`]; `None` when they
/// name no start.
fn counted_from(
    sentence: &str,
    period: &str,
    agreement_start: Option<&str>,
) -> Option<Option<String>> {
    static AFTER_PERIOD: Lazy<Regex> = Lazy::new(|| {
        Regex::new(
            r"(?i)^\s*(?:\([^)]{0,40}\)\s*)?(?:after|following|from|of|to\s+commence\s+(?:on|upon|as\s+of)|commencing\s+(?:on|upon|as\s+of))\s+(?P<what>[^.;]{0,60})",
        )
        .unwrap()
    });
    let at = sentence.find(period)?;
    let rest = &sentence[at + period.len()..];
    let what = AFTER_PERIOD.captures(rest)?.name("what")?.as_str().trim();
    start_named(what, agreement_start)
}

fn add_party(parties: &mut Vec<RegisterParty>, who: &EntityNode, role: &str) {
    let i = match parties.iter().position(|p| p.name == who.name) {
        Some(i) => i,
        None => {
            parties.push(RegisterParty {
                name: who.name.clone(),
                aliases: who.aliases.iter().cloned().collect(),
                roles: Vec::new(),
            });
            parties.len() - 1
        }
    };
    if !parties[i]
        .roles
        .iter()
        .any(|r| r.eq_ignore_ascii_case(role))
    {
        parties[i].roles.push(role.to_string());
    }
}

/// The agreement's own name: as its opening states it (the naming clause,
/// else the title line: what `ask` shows too), else the first of the
/// opening sections whose heading names an agreement, a contract or a
/// licence (`SUPPLY AGREEMENT`), else nothing.
fn title_of(g: &DocGraph) -> String {
    const WORDS: &[&str] = &["agreement", "contract", "license", "licence", "lease"];
    if let Some(t) = &g.doc_title {
        return t.clone();
    }
    g.sections
        .iter()
        .take(3)
        .map(|s| s.title.trim())
        .find(|t| {
            let l = t.to_ascii_lowercase();
            t.len() <= 120 && WORDS.iter().any(|w| l.contains(w)) && !l.contains("table of")
        })
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An option to renew is exercised by notice: that notice stops no
    /// renewal, so it is no notice cell but a fact to check; beside an
    /// automatic renewal the notice stays.
    #[test]
    fn a_notice_beside_an_option_to_renew_is_no_notice_to_stop_it() {
        let fact = |quote: &str, n: &str| RegisterFact {
            quote: quote.into(),
            normalized: Some(n.into()),
            ..Default::default()
        };
        let notice = fact(
            "Licensee may exercise the option by written notice at least 90 days before the end of the Term.",
            "90 days",
        );
        for (renewal, kind, kept) in [
            ("Licensee shall have the option to renew this Agreement for one additional year.", "option", false),
            ("This Agreement shall automatically renew for successive one (1) year periods unless either party gives notice.", "automatic", true),
        ] {
            let mut facts = BTreeMap::from([
                ("RENEWAL_TERM".to_string(), vec![fact(renewal, "1 year")]),
                ("NOTICE_PERIOD_TO_TERMINATE_RENEWAL".to_string(), vec![notice.clone()]),
            ]);
            let mut to_check = BTreeMap::new();
            assert_eq!(renewal_kind_of(&mut facts, &mut to_check).as_deref(), Some(kind));
            assert_eq!(facts.contains_key("NOTICE_PERIOD_TO_TERMINATE_RENEWAL"), kept);
            assert_eq!(to_check.contains_key("NOTICE_PERIOD_TO_TERMINATE_RENEWAL"), !kept);
        }
    }

    /// An agreement filed with its later amendment: the amendment's date
    /// is to check, the agreement's stays; a document that is itself an
    /// amendment keeps its own.
    #[test]
    fn an_appended_amendments_date_is_not_the_agreements() {
        let fact = |quote: &str, n: &str| RegisterFact {
            quote: quote.into(),
            normalized: Some(n.into()),
            ..Default::default()
        };
        let own = fact(
            "THIS AGREEMENT is made this 1st day of April, 2007 (\"Effective Date\"), by and between Institute and Ceres.",
            "2007-04-01",
        );
        let appended = fact(
            "2. The Parties agree that this Amendment I is effective as of June 1, 2007.",
            "2007-06-01",
        );
        let mut facts = BTreeMap::from([(
            "EFFECTIVE_DATE".to_string(),
            vec![(3, own.clone()), (90, appended.clone())],
        )]);
        let mut to_check = BTreeMap::new();
        appended_amendments(&mut facts, &mut to_check);
        assert_eq!(facts["EFFECTIVE_DATE"], vec![(3, own)]);
        assert_eq!(to_check["EFFECTIVE_DATE"][0].quote, appended.quote);
        assert!(to_check["EFFECTIVE_DATE"][0].why.contains("amendment"));

        let amendment = fact(
            "This Amendment #3 to the Manufacturing Agreement (this \"Amendment #3\") is made effective as of December 21, 2017.",
            "2017-12-21",
        );
        let mut facts = BTreeMap::from([(
            "EFFECTIVE_DATE".to_string(),
            vec![(1, amendment.clone()), (40, appended)],
        )]);
        let mut to_check = BTreeMap::new();
        appended_amendments(&mut facts, &mut to_check);
        assert_eq!(facts["EFFECTIVE_DATE"].len(), 2);
        assert!(to_check.is_empty());
    }

    /// A term that runs for a defined period ends where the definition
    /// says; a definition with no end gives none.
    #[test]
    fn a_term_for_a_defined_period_ends_where_its_definition_says() {
        let definitions = BTreeMap::from([
            (
                "Service Period".to_string(),
                "April. 1st 2019 through to March 30, 2020.".to_string(),
            ),
            (
                "Term".to_string(),
                "the period of three (3) years from the Effective Date;".to_string(),
            ),
            ("Cure Period".to_string(), "thirty (30) days;".to_string()),
        ]);
        let start = Some("2019-04-01");
        let end = |s: &str| defined_end(s, &definitions, start);
        assert_eq!(
            end("This Agreement shall continue in effect for the Service Period.").as_deref(),
            Some("2020-03-30")
        );
        assert_eq!(
            end("This Agreement shall remain in force for the Term.").as_deref(),
            Some("2022-04-01")
        );
        assert_eq!(
            end("The breaching party may cure during the Cure Period."),
            None
        );
        assert_eq!(
            end("This Agreement shall continue for the Royalty Term."),
            None
        );
    }

    /// The contract's date is one day: facts that agree with the chosen
    /// one stay, another day goes to the reviewer.
    #[test]
    fn a_contract_has_one_date_and_other_days_are_to_check() {
        let fact = |n: &str| RegisterFact {
            quote: format!("dated as of {n}"),
            normalized: Some(n.into()),
            ..Default::default()
        };
        let (kept, others) = one_date(
            "AGREEMENT_DATE",
            vec![fact("2022-12-29"), fact("2022"), fact("2021-10-06")],
        );
        let kept: Vec<_> = kept
            .iter()
            .filter_map(|f| f.normalized.as_deref())
            .collect();
        assert_eq!(kept, ["2022-12-29", "2022"]);
        assert_eq!(others.len(), 1);
        assert!(others[0].why.contains("2022-12-29") && others[0].normalized.is_none());
        // Other fields keep every value.
        let (kept, others) = one_date("RENEWAL_TERM", vec![fact("1 year"), fact("2 years")]);
        assert_eq!((kept.len(), others.len()), (2, 0));
    }

    /// An undated opening leaves the agreement the day its signers dated
    /// it, when that is one day; signers of different days leave it to a
    /// reviewer, and an opening's date always comes first.
    #[test]
    fn an_agreement_signed_on_one_day_is_dated_that_day() {
        let fact = |quote: &str, n: &str| RegisterFact {
            quote: quote.into(),
            normalized: Some(n.into()),
            ..Default::default()
        };
        let one_day = fact(
            "By: /s/ Jane Roe Title: CEO Date: March 14, 2016 Date: 3/14/16",
            "2016-03-14",
        );
        let (kept, held) = signed_on_one_day("AGREEMENT_DATE", vec![one_day.clone()]);
        assert_eq!((kept.len(), held.len()), (1, 0));
        let two_days = fact(
            "Title: V.P., Sourcing Manager Date: 11/8/10 Date: 11/4/10",
            "2010-11-08",
        );
        let (kept, held) = signed_on_one_day("AGREEMENT_DATE", vec![two_days]);
        assert!(kept.is_empty(), "{kept:?}");
        assert!(held[0].why.contains("2010-11-04, 2010-11-08"), "{held:?}");
        assert!(held[0].normalized.is_none());
        // Two signature facts of different days, one each.
        let later = fact(
            "Name: John Doe Title: VP Date: March 20, 2016",
            "2016-03-20",
        );
        let (kept, held) = signed_on_one_day("AGREEMENT_DATE", vec![one_day.clone(), later]);
        assert_eq!((kept.len(), held.len()), (0, 2));
        // The opening's date ranks before any signature's.
        let opening = fact("This Agreement is made as of 2016", "2016");
        assert!(rank("AGREEMENT_DATE", &opening) < rank("AGREEMENT_DATE", &one_day));
    }

    #[test]
    fn an_anniversary_of_the_start_is_the_day_the_term_ends() {
        let start = Some("2019-05-06");
        for (sentence, end) in [
            ("The Initial Term shall expire on the fifth anniversary of the Effective Date.", Some("2024-05-06")),
            ("INITIAL TERM shall mean the Effective Date through the day prior to the second anniversary of the Effective Date.", Some("2021-05-06")),
            ("This Agreement shall continue until the five (5) year anniversary of the Effective Date.", Some("2024-05-06")),
            ("The term ends on the earlier of (a) the 3rd anniversary of the date hereof or (b) a Change of Control.", Some("2022-05-06")),
            // The later of an anniversary and an event has no date.
            ("The term ends on the later of (i) the third anniversary of the Effective Date or (ii) the date ETI ceases to be a Subsidiary.", None),
            ("The term shall be five years.", None),
        ] {
            assert_eq!(anniversary(sentence, start).as_deref(), end, "{sentence}");
        }
        // Without a start the text dates, no end either.
        assert_eq!(
            anniversary(
                "until the first anniversary of the Effective Date",
                Some("2019-05")
            ),
            None
        );
    }

    /// The words after a term's period say what it counts from, before
    /// the start the sentence gives the term itself.
    #[test]
    fn a_period_counts_from_the_start_named_after_it() {
        let own = Some("2019-11-02");
        let s = "This Agreement shall commence on the Effective Date and continue until ten (10) years after the First Commercial Sale.";
        assert_eq!(counted_from(s, "ten (10) years", own), Some(None));
        let s = "The term shall be two (2) years from the Effective Date.";
        assert_eq!(
            counted_from(s, "two (2) years", own),
            Some(own.map(str::to_string))
        );
        let s = "The term of this Agreement shall be five (5) years.";
        assert_eq!(counted_from(s, "five (5) years", own), None);
        // An event the text dates is the start.
        let s = "The remaining term shall be twenty four (24) months to commence on the tentative launch date of January 4, 1999.";
        assert_eq!(
            counted_from(s, "twenty four (24) months", own),
            Some(Some("1999-01-04".to_string()))
        );
    }

    #[test]
    fn a_term_runs_from_the_start_its_sentence_names() {
        let own = Some("2020-03-01");
        assert_eq!(
            term_start("The term of this Agreement shall be one (1) year, commencing January 1, 2008 and ending later.", own).as_deref(),
            Some("2008-01-01")
        );
        assert_eq!(
            term_start(
                "The term shall be two (2) years from the Effective Date.",
                own
            )
            .as_deref(),
            own
        );
        assert_eq!(
            term_start(
                "The term of this Agreement shall be for a period of two (2) years.",
                own
            )
            .as_deref(),
            own
        );
        // A term that runs from an event has no end the text dates.
        for event in [
            "The term of this Agreement shall be ten (10) years which shall commence on the date upon which the Company delivers to Distributor the last Sample.",
            "This Agreement shall terminate five (5) years following the date of launch of the first Website.",
        ] {
            assert_eq!(term_start(event, own), None, "{event}");
        }
    }

    #[test]
    fn what_follows_the_initial_term_is_not_its_length() {
        let quote = "This contract shall be for a term of one year commencing on the date first above written; thereafter, it shall automatically continue until terminated by either party.";
        let initial = INITIAL_PART
            .find(quote)
            .map_or(quote, |m| &quote[..m.start()]);
        assert!(!initial.contains("until terminated"), "{initial}");
    }
}
