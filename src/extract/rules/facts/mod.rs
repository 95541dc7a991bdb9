//! Typed facts for what lawyers mark: each sentence of a
//! section is read against a table of rules, one table per family (dates,
//! money, grants and limits, remedies, forum); a sentence a rule fits
//! gives `party -CATEGORY-> value` with the sentence as its evidence. The
//! relation type is the CUAD category's name as
//! [`crate::extract::facts_vocabulary::category_relation_type`] spells
//! it, so the LLM path (asked through the indices' ontologies) and the
//! measuring script (`scripts/cuad-facts`) count the same kinds.
//!
//! Why sentences and a table: what a lawyer marks is a clause, and the
//! words that make it one (`shall not exceed`, `right of first refusal`,
//! `non-transferable`) hold across contract types; the value (a date, a
//! period, an amount, a place) is read from the same sentence when the
//! category has one. The evidence is the sentence, cut to a window of
//! [`FACT_EVIDENCE_CHARS`] around the words that fired, never a section.

mod dates;
mod forum;
mod grants;
mod limits;
mod money;
mod remedies;
mod values;

use super::common::builder::Builder;
use super::common::terms::DEFINITION;
use super::common::text::{contents_like, is_recital, normalize_ws, truncate};
use crate::clause_model::{self, ClauseModel};
use crate::extract::facts_vocabulary::category_relation_type;
use crate::extract::{Basis, Reading, Relation};
use once_cell::sync::Lazy;
use regex::Regex;
use std::borrow::Cow;
use std::collections::HashSet;

/// Longest evidence quote of a fact: a sentence, or the window of one
/// around its trigger.
pub(super) const FACT_EVIDENCE_CHARS: usize = 380;

/// Fewest words of a sentence that states a fact.
const MIN_WORDS: usize = 7;

/// Longest name of a fact's target when it is named by its clause.
const CLAUSE_NAME_CHARS: usize = 120;

/// What a fact points at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Target {
    /// A date in the sentence (`March 1, 2020`), else the fact is not made.
    Date,
    /// A period (`thirty (30) days`), else the clause.
    Period,
    /// An amount or a rate (`$10,000`, `5%`), else the clause.
    Amount,
    /// The place whose law or courts the sentence names (`New York`),
    /// else the clause.
    Place,
    /// The place whose laws govern the agreement, else no fact: the
    /// register's governing law and the graph's `GOVERNED_BY`, from one
    /// reading.
    GoverningPlace,
    /// The clause itself, as an entity of this type (`Right`, `Covenant`,
    /// `Obligation`).
    Clause(&'static str),
}

/// Who a fact is about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Source {
    /// The agreement itself (dates, governing law).
    Agreement,
    /// The first party the sentence names, else the agreement.
    Party,
}

/// One rule of a family's table.
pub(super) struct Rule {
    /// The CUAD category (`Cap On Liability`).
    pub category: &'static str,
    /// Lower-case words of which the sentence must hold one (a cheap
    /// filter before the pattern).
    pub any: &'static [&'static str],
    /// What the sentence must match (case-insensitive unless it says).
    pub pattern: Lazy<Regex>,
    /// What it must not match (`non-exclusive` for exclusivity).
    pub unless: Option<Lazy<Regex>>,
    /// What it must match as well, anywhere in the sentence (an ownership
    /// clause must name intellectual property).
    pub also: Option<Lazy<Regex>>,
    pub source: Source,
    pub target: Target,
}

/// Builds a case-insensitive pattern for a rule table.
pub(super) fn ci(pattern: &str) -> Regex {
    super::common::text::with_large_dfa(&format!("(?i){pattern}")).expect("fact pattern")
}

fn tables() -> [&'static [Rule]; 6] {
    [
        &dates::RULES,
        &money::RULES,
        &grants::RULES,
        &limits::RULES,
        &remedies::RULES,
        &forum::RULES,
    ]
}

// The categories whose facts carry a value (a date, a period, a place)
// that the register reads and checks by its normal form. Every other
// category is a clause kind, asserted only when the clause model agrees.
use crate::extract::facts_vocabulary::VALUE_CATEGORIES;

/// Every typed fact of a section's paragraphs. A clause kind is asserted
/// when a rule fires on a sentence of a paragraph the clause model scores
/// at [`clause_model::AGREES`] or more for that kind, or when the model
/// alone scores the paragraph at [`clause_model::ALONE`]; a rule firing
/// where the model disagrees gives a [`crate::extract::Candidate`] to
/// check, not a fact.
pub(super) fn facts(b: &mut Builder, title: &str, paragraphs: &[String]) {
    // A bad model file stops the command before extraction starts (its
    // check runs first); here the shipped model stands in.
    let model = clause_model::active().unwrap_or_else(|_| clause_model::shipped());
    facts_with(b, title, paragraphs, Some(model));
}

/// [`facts`] with the given clause model, or the rules alone (`None`).
pub(super) fn facts_with(
    b: &mut Builder,
    title: &str,
    paragraphs: &[String],
    model: Option<&ClauseModel>,
) {
    // `EXHIBIT J FORM OF SNDA`: a form the contract attaches states the
    // form's dates, law and clauses, not the contract's. A contract filed
    // as a form (`FORM OF SUPPLY AGREEMENT`, or under a filing's exhibit
    // number, `EXHIBIT 10.1 FORM OF ...`) is still the contract.
    static FORM: Lazy<Regex> = Lazy::new(|| {
        ci(
            r"\b(?:exhibit|schedule|annex|appendix|attachment)\s+(?:[a-z]{1,2}(?:-\d{1,2})?|\d{1,2})\s*[-:.\x{2013}\x{2014}]?\s*(?:the\s+)?forms?\s+of\b",
        )
    });
    if FORM.is_match(title) {
        return;
    }
    let joined = cover_fields(paragraphs);
    let paragraphs: &[String] = &joined;
    // A form the heading skeleton left inside the section before it
    // (`EXHIBIT A` then `FORM OF PLEDGE AGREEMENT` after the last clause
    // of a numbered section): from there on the text is the form's.
    static FORM_OPENS: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*FORM\s+OF\b").unwrap());
    let opens_form = |text: &str| FORM.find(text).is_some_and(|m| m.start() <= 3);
    let mut before: Option<&str> = None;
    for p in paragraphs {
        if opens_form(p)
            || (FORM_OPENS.is_match(p)
                && before.is_some_and(|l| l.len() <= 40 && opens_form(&format!("{l} {p}"))))
        {
            return;
        }
        before = Some(p.as_str());
        if contents_like(p) || p.len() < 25 {
            continue;
        }
        let scores = model.map(|m| m.score(title, p)).unwrap_or_default();
        let mut fired: HashSet<&'static str> = HashSet::new();
        let defines = is_definition(p) || is_recital(p);
        for (start, end) in sentences(p) {
            let s = &p[start..end];
            // A definition says what a word means, and a recital what the
            // parties intend, not what a party must do: `"Change in
            // Control" means ...` is no change-of-control clause. Only a
            // value may come from either.
            let values_only = defines
                || is_definition(s)
                || is_recital(s)
                || is_heading(s)
                || about_other_contracts(s);
            // A heading (`10.5 Limitation of Liability.`) names a topic and
            // states no fact.
            // A short sentence may still date the agreement (`"Effective
            // Date" means October 31, 2019.`); nothing else.
            let words = s.split_whitespace().count();
            if words < 3 {
                continue;
            }
            let dates_only = words < MIN_WORDS;
            let lower = s.to_ascii_lowercase();
            for table in tables() {
                for rule in table.iter() {
                    // A definition may date the agreement, but the law it
                    // names is a thing defined (`"Eligible Institution"
                    // means a bank organized under the laws of the United
                    // States`), not the law that governs.
                    if (values_only && !VALUE_CATEGORIES.contains(&rule.category))
                        || (dates_only && rule.target != Target::Date)
                        || (rule.target == Target::GoverningPlace && (defines || is_definition(s)))
                    {
                        continue;
                    }
                    if rule.any.iter().any(|w| lower.contains(w)) {
                        let score = model.and_then(|m| model_score(m, &scores, rule.category));
                        let confidence = model.and_then(|m| {
                            m.category_index(rule.category)
                                .and_then(|k| m.say(&scores, k))
                        });
                        if apply(b, rule, s, score, confidence) {
                            fired.insert(rule.category);
                        }
                    }
                }
            }
        }
        let Some(model) = model.filter(|_| !defines) else {
            continue;
        };
        for (k, category) in model.categories().iter().enumerate() {
            let alone = model.say(&scores, k).filter(|&s| s >= clause_model::ALONE);
            if let Some(score) = alone.filter(|_| !fired.contains(category.as_str())) {
                model_fact(b, model, title, p, k, score);
            }
        }
    }
}

/// A cover page's field set out as two paragraphs, its name and then its
/// value (`EFFECTIVE DATE` / `JUNE 1, 1998`), read as one (`EFFECTIVE
/// DATE: JUNE 1, 1998`), the way the field is written inline.
fn cover_fields(paragraphs: &[String]) -> Cow<'_, [String]> {
    static FIELD: Lazy<Regex> = Lazy::new(|| {
        ci(
            r"^\s*(?:effective|expiration|termination|expiry|agreement|commencement)\s+date\s*:?\s*$",
        )
    });
    static DATE_ONLY: Lazy<Regex> = Lazy::new(|| {
        ci(
            r"^\s*(?:[a-z]+\.?\s+\d{1,2}(?:st|nd|rd|th)?\s*,?\s*\d{4}|\d{1,2}(?:st|nd|rd|th)?\s+[a-z]+\.?\s*,?\s*\d{4}|\d{1,2}/\d{1,2}/\d{2,4})\s*\.?\s*$",
        )
    });
    let joins = |w: &[String]| FIELD.is_match(&w[0]) && DATE_ONLY.is_match(&w[1]);
    // Nearly every section has none: read it as it is.
    if !paragraphs.windows(2).any(joins) {
        return Cow::Borrowed(paragraphs);
    }
    let mut out: Vec<String> = Vec::with_capacity(paragraphs.len());
    let mut i = 0;
    while i < paragraphs.len() {
        let p = &paragraphs[i];
        match paragraphs.get(i..i + 2) {
            Some(pair) if joins(pair) => {
                out.push(format!(
                    "{}: {}",
                    p.trim().trim_end_matches(':'),
                    pair[1].trim()
                ));
                i += 2;
            }
            _ => {
                out.push(p.clone());
                i += 1;
            }
        }
    }
    Cow::Owned(out)
}

/// True when the words that fired are the second half of their own
/// negation: `non-exclusive`, `Non Exclusive`, `non- exclusive` (a
/// hyphen the PDF broke) are the opposite of `exclusive`.
fn negated_by_prefix(s: &str, at: usize) -> bool {
    let before = s[..at].trim_end_matches([' ', '-']);
    before.len() >= 3
        && before.is_char_boundary(before.len() - 3)
        && before[before.len() - 3..].eq_ignore_ascii_case("non")
        && !before[..before.len() - 3]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
}

/// The rules of a category. What one says a clause of its kind is not
/// (its `unless`) holds for the clause model's reading too.
/// The entity type a clause kind's fact points at (`Non-Compete` ->
/// `Covenant`, `License Grant` -> `Right`, `Cap On Liability` ->
/// `Amount`), as its first rule reads it.
pub(crate) fn clause_target_type(category: &str) -> Option<&'static str> {
    match rules_of(category).next()?.target {
        Target::Clause(ty) => Some(ty),
        Target::Period => Some("Period"),
        Target::Amount => Some("Amount"),
        Target::Date => Some("Date"),
        Target::Place | Target::GoverningPlace => Some("Jurisdiction"),
    }
}

fn rules_of(category: &str) -> impl Iterator<Item = &'static Rule> + '_ {
    tables()
        .into_iter()
        .flat_map(|t| t.iter())
        .filter(move |r| r.category == category)
}

/// What a sentence must hold for the clause model alone (no rule of the
/// kind agreeing) to mark its kind: the words the kind cannot be without.
/// The model learns a clause's neighbourhood, so without them a plain
/// consequential-damages exclusion reads as uncapped liability, a
/// termination for breach as one for convenience, a non-exclusive grant
/// as exclusivity, an anti-assignment clause as a change of control and
/// any grant as a non-transferable one.
static MODEL_ALONE_NEEDS: Lazy<[(&str, Regex); 5]> = Lazy::new(|| {
    [
        (
            "Uncapped Liability",
            ci(
                r"\bexcept\b|\bexclud(?:ing|es?)\b|\bunless\b|\bnot\s+(?:be\s+construed\s+to\s+)?(?:apply|limit)\b|\bprovided,?\s+(?:however|that)\b|\bother\s+than\b|\bunlimited\b|\bgross(?:ly)?\s+negligen|\bwil+ful|\bfraud",
            ),
        ),
        (
            "Termination For Convenience",
            ci(
                r"\bfor\s+(?:any|no)\s+(?:or\s+no\s+)?reason|\bconvenience\b|\bwithout\s+(?:cause|reason)|\bat\s+will\b|\bdiscretion\b|\bat\s+any\s+time\b[^.;:]{0,40}?\b(?:upon|on|by\s+giving|with)\b[^.;:]{0,40}?\bnotice\b",
            ),
        ),
        (
            "Exclusivity",
            ci(
                r"\b(?:an?|the|its|sole|and|grants?|appoints?)\s+exclusive\b|\bexclusivity\b|\bexclusively\b|\bsole\s+(?:and\s+exclusive\s+)?(?:supplier|distributor|provider|source|agent|representative|reseller|manufacturer|right)\b",
            ),
        ),
        (
            "Change Of Control",
            ci(r"\bcontrol\b|\bmerge|\bacqui|\bsubstantially\s+all\b|\bconsolidat"),
        ),
        (
            "Non-Transferable License",
            ci(
                r"\bnon-?\s?(?:transferable|assignable|sub-?licens\w*)|\bpersonal\b|\bnot\s+(?:be\s+)?(?:transferable|assignable|sub-?licensable)|\b(?:may|shall|will)\s+not\s+(?:\w+\s+){0,3}?(?:assign|transfer|sub-?licen[cs]e)|\bwithout\s+(?:the\s+|any\s+)?right\s+to\s+(?:grant\s+)?(?:sub-?licen|transfer|assign)|\bonly\s+to\s+(?:its\s+)?affiliates\b",
            ),
        ),
    ]
});

/// True when the clause model alone may mark `category` from sentence `s`.
fn model_alone_may(category: &str, s: &str) -> bool {
    MODEL_ALONE_NEEDS
        .iter()
        .filter(|(c, _)| *c == category)
        .all(|(_, needs)| needs.is_match(s))
}

/// True when a sentence is a heading run into the text (`10.4 Inspection
/// of Property, Books and Records, Discussions.`): every word of four
/// letters or more is capitalised, none in capitals (a clause in
/// capitals, `IN NO EVENT SHALL Erchonia BE LIABLE`, is text). A heading
/// names a topic and binds no one.
fn is_heading(s: &str) -> bool {
    let long: Vec<&str> = s
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.len() >= 4)
        .collect();
    long.len() >= 2
        && long.iter().all(|w| {
            w.chars().next().is_some_and(char::is_uppercase) && w.chars().any(char::is_lowercase)
        })
}

/// True when a sentence describes other contracts' clauses (`(xiii) all
/// Contracts that contain a covenant restricting ... the solicitation of
/// customers`, a purchase agreement's list of the target's contracts):
/// their clauses are not this agreement's.
fn about_other_contracts(s: &str) -> bool {
    static OTHER: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"\b(?:[Aa]ll|[Aa]ny|[Ee]ach|[Nn]o)\s+(?:(?:Material|Company|Seller|Assigned|Business)\s+)?Contracts?\s+(?:that|which|containing|under\s+which|pursuant\s+to\s+which)\b")
            .unwrap()
    });
    OTHER.is_match(s)
}

/// True when the text opens with a definition (`1.26 "Change in
/// Control" means ...`, `"Exclusivity Exceptions" has the meaning ...`),
/// past a clause number.
fn is_definition(text: &str) -> bool {
    static NUMBER: Lazy<Regex> =
        Lazy::new(|| Regex::new(r"^\s*(?:\d{1,3}(?:\.\d{1,3})*\.?|[A-Z]\.)\s+").unwrap());
    let rest = NUMBER.find(text).map_or(text, |m| &text[m.end()..]);
    DEFINITION.is_match(rest)
}

/// The model's score of a clause kind for the paragraph; `None` for a
/// category with a value, or one the model does not score.
fn model_score(model: &ClauseModel, scores: &[f32], category: &str) -> Option<f32> {
    if VALUE_CATEGORIES.contains(&category) {
        return None;
    }
    model
        .category_index(category)
        .and_then(|k| model.say(scores, k))
}

/// A clause kind only the model reads in a paragraph: the fact of its
/// best sentence, from the party it names first (else the agreement) to
/// the clause.
fn model_fact(b: &mut Builder, model: &ClauseModel, title: &str, p: &str, k: usize, score: f32) {
    let category = model.categories()[k].as_str();
    if VALUE_CATEGORIES.contains(&category) {
        return;
    }
    let Some(rule) = rules_of(category).next() else {
        return;
    };
    let ty = match rule.target {
        Target::Clause(ty) => ty,
        Target::Period => "Period",
        Target::Amount => "Amount",
        _ => return,
    };
    let best = sentences(p)
        .into_iter()
        .map(|(a, z)| &p[a..z])
        .filter(|s| {
            s.split_whitespace().count() >= MIN_WORDS
                && !is_definition(s)
                && !is_recital(s)
                && !is_heading(s)
                && !rules_of(category).any(|r| r.unless.as_ref().is_some_and(|u| u.is_match(s)))
                && model_alone_may(category, s)
        })
        .map(|s| (model.score(title, s)[k], s))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let Some((_, s)) = best else {
        return;
    };
    let evidence = window(s, 0, 0);
    let target = clause_entity(b, ty, &evidence);
    let source = party_in(b, s).unwrap_or_else(|| b.entity("Agreement", "DefinedTerm", ""));
    b.relate_read(
        &source,
        &category_relation_type(category),
        &target,
        &evidence,
        Some(Reading::new(Basis::Model, Some(score))),
    );
}

/// Applies one rule to a sentence; true when the rule fits it (a fact was
/// made, or held for review). `model` is the clause model's score of the
/// sentence's paragraph for the rule's category, when it is a clause kind.
fn apply(
    b: &mut Builder,
    rule: &Rule,
    s: &str,
    model: Option<f32>,
    confidence: Option<f32>,
) -> bool {
    // `The initial term is two years and shall renew automatically for
    // ...`: a term is read before its renewal, which is the renewal
    // term's own fact (a sentence opening with the renewal keeps no term).
    let whole = s.len();
    let s = if rule.category == "Expiration Date" && rule.target == Target::Period {
        static RENEWAL: Lazy<Regex> = Lazy::new(|| ci(r"\brenew"));
        RENEWAL.find(s).map_or(s, |m| &s[..m.start()])
    } else {
        s
    };
    let cut = s.len() < whole;
    // `This Agreement shall be interpreted ... in all respects in
    // accordance with the laws of the State of Illinois`: the governing
    // law's own reading finds it where the trigger does not.
    let governed = match rule.target {
        Target::GoverningPlace => forum::governed_place(s),
        _ => None,
    };
    let found = rule
        .pattern
        .find_iter(s)
        .find(|m| {
            let lead = m.as_str().len()
                - m.as_str()
                    .trim_start_matches(|c: char| !c.is_alphanumeric())
                    .len();
            !negated_by_prefix(s, m.start() + lead)
        })
        .map(|m| (m.start(), m.end()));
    let Some((at, to)) = found.or(governed.as_ref().map(|g| (g.start, g.end))) else {
        return false;
    };
    if rule.unless.as_ref().is_some_and(|u| u.is_match(s))
        || rule.also.as_ref().is_some_and(|a| !a.is_match(s))
    {
        return false;
    }
    let held = model.filter(|&m| m < clause_model::AGREES);
    let entities_before = b.entities.len();
    let evidence = window(s, at, to);
    let target = match rule.target {
        Target::Date => match values::date_near(s, at, to, rule.category != "Expiration Date") {
            Some(d) => b.entity(&d, "Date", ""),
            None => return false,
        },
        Target::Period => match period_of(rule, s, at, to) {
            Some(v) => b.entity(&v, "Period", ""),
            // What comes before a renewal and holds no period is no term.
            None if cut => return false,
            None => clause_entity(b, "Period", &evidence),
        },
        Target::Amount => match values::amount_near(s, at, to) {
            Some(v) => b.entity(&v, "Amount", ""),
            None => clause_entity(b, "Amount", &evidence),
        },
        Target::Place => match values::place(s) {
            Some(v) => b.entity(&v, "Jurisdiction", ""),
            None => clause_entity(b, "Jurisdiction", &evidence),
        },
        Target::GoverningPlace => match governed.map(|g| g.place).or_else(|| values::place(s)) {
            Some(v) => b.entity(&v, "Jurisdiction", "governing law"),
            None => return false,
        },
        Target::Clause(ty) => clause_entity(b, ty, &clause_text(s, at, to, &evidence)),
    };
    let source = match rule.source {
        Source::Party => party_before(b, s, at).or_else(|| party_in(b, s)),
        Source::Agreement => None,
    }
    .unwrap_or_else(|| b.entity("Agreement", "DefinedTerm", ""));
    if let Some(score) = held {
        b.hold(
            entities_before,
            Relation {
                source,
                relation_type: category_relation_type(rule.category),
                target,
                evidence,
                reading: Some(Reading::new(Basis::Rule, Some(score))),
            },
            format!(
                "the rules read {} here; the clause model scores the paragraph {score:.2}, below {}",
                rule.category,
                clause_model::AGREES
            ),
        );
        return true;
    }
    // Both read it when the model scores the paragraph at AGREES or more
    // for the category (a value's too, though a value is never gated).
    let basis = match confidence {
        Some(c) if c >= clause_model::AGREES => Basis::RuleAndModel,
        _ => Basis::Rule,
    };
    b.relate_read(
        &source,
        &category_relation_type(rule.category),
        &target,
        &evidence,
        Some(Reading::new(basis, confidence)),
    );
    if rule.target == Target::GoverningPlace {
        b.relate(&source, GOVERNED_BY, &target, &evidence);
    }
    true
}

/// The graph's relation from the agreement to the place whose laws govern
/// it, beside the typed fact.
pub(super) const GOVERNED_BY: &str = "GOVERNED_BY";

/// The period a fact names. A notice period is the notice's own
/// ([`values::notice_period`]: `renewing for successive one-year periods
/// unless either party gives notice of non-renewal at least 180 days before
/// expiry` gives 180 days, never the renewal's one year, and none when the
/// notice names no period); a renewal's, one of months or years
/// ([`values::renewal_period`]); others, the one the trigger speaks of.
fn period_of(rule: &Rule, s: &str, at: usize, to: usize) -> Option<String> {
    static NOTICE: Lazy<Regex> = Lazy::new(|| Regex::new(r"(?i)\bnoti(?:ce|fy|fies)\b").unwrap());
    if rule.category.starts_with("Notice Period") {
        // The first notice word the trigger holds that gives a period
        // (`renew ... unless either Party notifies the other at least 30
        // days prior ... (a "Termination Notice")`: the first), else the
        // sentence's nearest to it; none, no period.
        let inside = NOTICE
            .find_iter(&s[..to])
            .filter(|n| n.start() >= at)
            .find_map(|n| values::notice_period(s, n.start(), n.end()));
        if inside.is_some() {
            return inside;
        }
        let n = NOTICE.find_iter(s).min_by_key(|n| {
            if n.start() >= to {
                n.start() - to
            } else {
                at.saturating_sub(n.end())
            }
        })?;
        return values::notice_period(s, n.start(), n.end());
    }
    if rule.category == "Renewal Term" {
        return values::renewal_period(s, at, to);
    }
    values::period_near(s, at, to)
}

/// The words of the clause that holds a trigger, from the clause's start
/// (`the Supplier shall not sell ...`, not the sentence's earlier clause
/// about the Buyer), when a clause break comes before the trigger; else the
/// evidence window.
fn clause_text(s: &str, at: usize, to: usize, evidence: &str) -> String {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    match CLAUSE_BREAK.find_iter(&s[..at]).last() {
        Some(b) => window(&s[b.end()..], 0, to - b.end()),
        None => evidence.to_string(),
    }
}

/// An entity named by its clause (`Covenant`: `Distributor shall not sell
/// competing products in the Territory ...`).
fn clause_entity(b: &mut Builder, ty: &'static str, evidence: &str) -> String {
    let name = truncate(&normalize_ws(evidence), CLAUSE_NAME_CHARS);
    b.entity(&name, ty, &truncate(evidence, 200))
}

/// A capitalised name of one to four words.
static NAME: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"\b[A-Z][A-Za-z\-]*(?:\s+[A-Z][A-Za-z\-]*){0,3}").unwrap());

/// The first party the sentence names: a role (`Licensee`, `the
/// Distributor`), one of the document's party short names, or a name the
/// party registry knows.
fn party_in(b: &mut Builder, s: &str) -> Option<String> {
    NAME.find_iter(s).find_map(|m| party_named(b, m.as_str()))
}

/// The subject of the clause that holds a fact's trigger: the first party
/// named between the clause's start and the trigger. `The Buyer shall
/// purchase ... from the Supplier, and the Supplier shall not sell ... to
/// any competitor` makes the non-compete the Supplier's, whoever the
/// sentence named first; `Licensee shall pay Licensor a royalty` keeps the
/// payer, not the payee the trigger follows.
fn party_before(b: &mut Builder, s: &str, at: usize) -> Option<String> {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    let before = &s[..at];
    let from = CLAUSE_BREAK.find_iter(before).last().map_or(0, |m| m.end());
    NAME.find_iter(&before[from..])
        .find_map(|m| party_named(b, m.as_str()))
}

/// Where a new clause with a subject of its own starts inside a sentence.
static CLAUSE_BREAK: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r";|,\s+(?:and|but|or|whereas|provided\s+(?:that|however))\s+|\bprovided,?\s+however,?\s+",
    )
    .unwrap()
});

/// The party a capitalised run of words names, if any: its longest run of
/// words that is a role, a short name or a registered name.
fn party_named(b: &mut Builder, run: &str) -> Option<String> {
    // `If Tenant timely contests ...`: a sentence's first word is
    // capitalised whatever it is; a conjunction, preposition or article is
    // no part of a name, in any case (`EXCEPT FOR A PARTY'S OBLIGATIONS`
    // opens a clause in capitals), nor is the agreement's own name run
    // into it (`Upon termination of this Agreement Distributor shall`).
    const LEADS: &[&str] = &[
        "if",
        "when",
        "whenever",
        "where",
        "unless",
        "upon",
        "until",
        "after",
        "before",
        "should",
        "in",
        "on",
        "at",
        "for",
        "by",
        "with",
        "each",
        "either",
        "neither",
        "any",
        "all",
        "such",
        "provided",
        "notwithstanding",
        "except",
        "subject",
        "following",
        "prior",
        "during",
        "once",
        "although",
        "while",
        "thereafter",
        "then",
        "and",
        "or",
        "but",
        "a",
        "an",
        "the",
        "agreement",
    ];
    let words: Vec<&str> = run
        .split_whitespace()
        .skip_while(|w| LEADS.iter().any(|l| l.eq_ignore_ascii_case(w)))
        .collect();
    if words.is_empty() {
        return None;
    }
    for n in (1..=words.len()).rev() {
        for start in 0..=words.len() - n {
            let cand = words[start..start + n].join(" ");
            let cand = cand.trim_start_matches("The ").to_string();
            if b.bindable(&cand) {
                return Some(super::common::clause::party_entity(b, &cand));
            }
        }
    }
    None
}

/// Sentence spans of a paragraph: ends at `.`, `;` or `:` before a space
/// and an upper-case letter, a digit or `(`, but not after an
/// abbreviation (`Inc.`, `No.`, `U.S.`) or a one-letter initial.
pub(in crate::extract::rules) fn sentences(p: &str) -> Vec<(usize, usize)> {
    let bytes = p.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        // The next word, past the spaces PDF text doubles.
        let mut next = i + 1;
        while bytes.get(next) == Some(&b' ') {
            next += 1;
        }
        if matches!(c, b'.' | b';')
            && next > i + 1
            && bytes
                .get(next)
                .is_some_and(|n| n.is_ascii_uppercase() || *n == b'(' || *n == b'"')
            && (c == b';' || !abbreviation(&p[start..i]))
        {
            out.push((start, i + 1));
            start = next;
            i = next;
            continue;
        }
        i += 1;
    }
    if start < p.len() {
        out.push((start, p.len()));
    }
    out.retain(|&(s, e)| e > s + 3);
    out
}

/// True when the text before a period ends with an abbreviation.
fn abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    let w = word.to_ascii_lowercase();
    w.len() <= 1
        || w.contains('.')
        || [
            "inc", "no", "co", "corp", "ltd", "sec", "st", "mr", "ms", "mrs", "dr", "jr", "nos",
            "art", "vs", "etc", "l.p", "n.a", "u.s", "e.g", "i.e", "para",
        ]
        .contains(&w.as_str())
}

/// At most [`FACT_EVIDENCE_CHARS`] of the sentence: all of it when it is
/// short, else a window from a word boundary before the match.
fn window(s: &str, m_start: usize, m_end: usize) -> String {
    if s.len() <= FACT_EVIDENCE_CHARS {
        return normalize_ws(s);
    }
    let mut from = m_start.saturating_sub(120).min(s.len());
    if m_end.saturating_sub(from) > FACT_EVIDENCE_CHARS {
        from = m_start.min(s.len());
    }
    while from > 0 && !s.is_char_boundary(from) {
        from -= 1;
    }
    if from > 0 {
        if let Some(sp) = s[from..].find(' ') {
            from += sp + 1;
        }
    }
    let mut to = (from + FACT_EVIDENCE_CHARS).min(s.len());
    while to < s.len() && !s.is_char_boundary(to) {
        to -= 1;
    }
    if to < s.len() {
        if let Some(sp) = s[from..to].rfind(' ') {
            to = from + sp;
        }
    }
    normalize_ws(&s[from..to])
}

#[cfg(test)]
mod tests;
