//! What a sentence attaches to a duty, right or restriction besides its
//! amounts and references: the conditions it depends on (`if Licensee
//! fails to pay`, `upon a Change of Control`), the exceptions carved out
//! of it (`except as set forth in Section 5`, a negative covenant's
//! permitted baskets) and when it runs (`within thirty (30) days`, `on or
//! before March 1, 2020`).
//!
//! A qualifier is a node of its own (`Condition`, `Exception`, `Period`)
//! linked from the clause it qualifies (`SUBJECT_TO`, `HAS_PERIOD`), so a
//! condition is never typed as the duty it conditions. A change of control
//! named in a condition triggers what it conditions; named in a
//! restriction, it is what is restricted.

use super::builder::Builder;
use super::text::EVIDENCE_CHARS;
use super::text::{normalize_ws, truncate};
use once_cell::sync::Lazy;
use regex::Regex;

/// Longest qualifier name kept.
const QUALIFIER_CHARS: usize = 200;

/// What a qualifier is, by the word that opens it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Condition,
    Exception,
    Period,
}

impl Kind {
    fn entity_type(self) -> &'static str {
        match self {
            Kind::Condition => "Condition",
            Kind::Exception => "Exception",
            Kind::Period => "Period",
        }
    }

    /// The kind a qualifier opening with `word` (lower case) has.
    fn of(word: &str) -> Kind {
        let w = word.trim_start_matches(|c: char| !c.is_alphabetic());
        if w.starts_with("except")
            || w.starts_with("other than")
            || w.starts_with("provided, however")
            || w.starts_with("provided however")
        {
            Kind::Exception
        } else if [
            "within",
            "until",
            "prior to",
            "no later than",
            "not later than",
        ]
        .iter()
        .any(|p| w.starts_with(p))
        {
            Kind::Period
        } else {
            Kind::Condition
        }
    }
}

/// A condition or exception that opens its sentence, or the part of it
/// after a comma, before the subject: `If Licensee fails to pay any amount
/// when due, Licensor may ...`, `..., provided that if no Rent is due,
/// Landlord shall refund ...`.
static LEADING: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?i)(?:^|,\s+)(?:\(?[a-z0-9]{1,4}[.)]\s+)?((?:if|unless|upon|in\s+the\s+event|in\s+case|provided(?:,\s*however,)?\s+that|subject\s+to|so\s+long\s+as|as\s+long\s+as|except|other\s+than|within|until|prior\s+to|no\s+later\s+than|not\s+later\s+than|following)\b[^;:]*?),\s*(?:then\s*,?\s*)?$",
    )
    .unwrap()
});

/// A condition or exception inside a clause, after its verb: `..., unless
/// disputed in good faith`, `except as provided in Section 5.2`, `upon a
/// material breach by Licensee`.
static TRAILING: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?i)(?:^|[\s,(])(if|unless|in\s+the\s+event(?:\s+(?:that|of))?|in\s+case\s+of|provided(?:,\s*however,)?\s+that|except(?:\s+(?:as|for|that|to\s+the\s+extent|in|where|with\s+respect\s+to|pursuant\s+to|upon))|other\s+than|so\s+long\s+as|subject\s+to|upon\s+(?:(?:the|a|any|such|its|their)\s+)?(?:[a-z\-]+\s+){0,2}?(?:occurrence|breach|termination|expiration|receipt|change|insolvency|bankruptcy|default|failure|request|completion|delivery|acceptance))\b",
    )
    .unwrap()
});

/// Words before `if` that make it `whether` (`determine if`), or an
/// illustration (`as if`), not a condition.
const IF_AS_WHETHER: &[&str] = &[
    "determine",
    "determines",
    "determining",
    "decide",
    "decides",
    "ascertain",
    "verify",
    "check",
    "ask",
    "know",
    "see",
    "as",
    "consider",
    "whether",
    "even",
];

/// A count of days, months or years with the word that times it:
/// `within thirty (30) days`, `at least sixty (60) days' prior written
/// notice`, `for a period of two (2) years`.
static PERIOD: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?i)\b(?:within|after|before|following|for|at\s+least|not\s+less\s+than|no\s+less\s+than|not\s+more\s+than|no\s+more\s+than|no\s+later\s+than|not\s+later\s+than|upon|on|by|during|of)\s+(?:a\s+(?:period|term)\s+of\s+|the\s+)?(?:(?:(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|and)(?:[\- ](?:one|two|three|four|five|six|seven|eight|nine|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|and)){0,3}\s+)?\(\d{1,4}\)|\d{1,4}|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|forty-five|fifty|sixty|ninety)(?:[\- ](?:one|two|three|four|five|six|seven|eight|nine))?)\s+(?:business\s+|calendar\s+|banking\s+|consecutive\s+|full\s+)?(?:days?|months?|years?|weeks?|quarters?)(?:['\u{2019}]s?)?(?:\s+(?:prior\s+|advance\s+)?(?:written\s+)?notice)?",
    )
    .unwrap()
});

/// A date with the word that times it: `on or before March 1, 2020`.
static DATED: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?i)\b(?:on\s+or\s+before|no\s+later\s+than|not\s+later\s+than|prior\s+to|until|through|before|by)\s+(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},\s+\d{4}\b",
    )
    .unwrap()
});

/// Qualifiers that say only that the agreement applies (`subject to the
/// terms of this Agreement`, `except as otherwise provided herein`).
static VACUOUS: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?i)^(?:subject\s+to\s+the\s+(?:other\s+)?(?:terms|provisions)(?:\s+and\s+conditions)?\s+(?:of|hereof|set\s+forth\s+(?:herein|in))|except\s+as\s+(?:otherwise\s+|expressly\s+)*(?:provided|set\s+forth|permitted|contemplated|stated)\s+(?:herein|hereunder|in\s+this\s+agreement|by\s+this\s+agreement))(?:\s+(?:this\s+agreement|hereof|herein))?\s*$",
    )
    .unwrap()
});

/// `change of control`, `change in control`.
static CHANGE_OF_CONTROL: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"(?i)\bchange\s+(?:of|in)\s+control\b").unwrap());

/// Verbs of a restriction on handing the agreement to someone else.
const ASSIGN_VERBS: &[&str] = &["assign", "transfer", "delegate"];

/// Links `duty` (an Obligation, Right or Covenant node) to what the
/// sentence attaches to it. `clause` is the duty's clause (a slice of
/// `p`, from its subject); `verb_end` is where its verb ends inside
/// `clause`; `restriction` says the clause restricts (`shall not`).
pub(in crate::extract::rules) fn qualify(
    b: &mut Builder,
    duty: &str,
    p: &str,
    clause: &str,
    verb_end: usize,
    restriction: bool,
) {
    let mut spans: Vec<(Kind, &str)> = Vec::new();
    if let Some(lead) = leading(p, clause) {
        spans.push((Kind::of(&lead.to_ascii_lowercase()), lead));
    }
    let body = clause.get(verb_end..).unwrap_or("");
    // `... and thereafter Tenant shall have 30 days ...`: what follows is
    // another party's duty, with its own timing and conditions.
    let cut = next_predicate(body);
    spans.extend(trailing(body, cut));
    let body = &body[..cut];
    // Timing inside a condition is the condition's (`if ... fails to cure
    // within 30 days`); the rest of the clause is the duty's.
    let mut free = body.to_string();
    for &(kind, text) in &spans {
        let rel = match kind {
            Kind::Period => b.offered("HAS_PERIOD"),
            Kind::Exception => b.offered("HAS_EXCEPTION"),
            Kind::Condition => b.offered("CONDITIONED_ON"),
        };
        if let Some(rel) = rel {
            let q = qualifier(b, kind, text);
            b.relate(duty, rel, &q, &truncate(text, EVIDENCE_CHARS));
            if kind != Kind::Period {
                periods(b, &q, text);
            }
        }
        if CHANGE_OF_CONTROL.is_match(text) && kind == Kind::Condition {
            if let Some(triggers) = b.offered("TRIGGERS") {
                let c = b.entity("Change of Control", "Act", "");
                b.relate(&c, triggers, duty, &truncate(text, EVIDENCE_CHARS));
            }
        }
        free = free.replacen(text, "", 1);
    }
    periods(b, duty, &free);
    if restriction {
        restricted_acts(b, duty, &clause[..verb_end.min(clause.len())], &free);
    }
}

/// The condition, exception or timing that opens the sentence `clause`
/// stands in, when one does.
fn leading<'a>(p: &'a str, clause: &str) -> Option<&'a str> {
    let at = clause.as_ptr() as usize - p.as_ptr() as usize;
    let before = &p[..at];
    // The sentence starts after the last `.`, `;` or `:` that ends one.
    let start = before
        .char_indices()
        .rev()
        .find(|&(i, ch)| matches!(ch, '.' | ';' | ':') && before[i + 1..].starts_with(' '))
        .map_or(0, |(i, _)| i + 1);
    let head = &before[start..];
    let c = LEADING.captures(head.trim())?;
    let m = c.get(1)?;
    let text = m.as_str().trim();
    // `If necessary,`, `If so,`: an idiom, no condition.
    let words = text.split_whitespace().count();
    (words >= 3 && text.len() <= 400 && !VACUOUS.is_match(text)).then_some(text)
}

/// A second predicate in a clause: a subject after a comma or a
/// conjunction, then its modal (`, and the Company will`, `and thereafter
/// Tenant shall`), or a state of something else (`shall be paid by
/// Tenant`, `the Cards shall be ready`).
static NEXT_PREDICATE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?:,|\band\b|\bbut\b|\bfailing\s+which\b|\bwhereupon\b|\((?:[a-z]|[ivx]{1,4}|\d{1,2})\))\s+(?:(?:thereafter|then|thereupon),?\s+)?(?:(?:the|such|each|any)\s+(?:[a-z]+\s+){0,2})?[A-Z][A-Za-z\-]*(?:\s+[A-Z][A-Za-z\-]*){0,3}\s+(?:shall|will|may|must)\b|\b(?:shall|will|must)\s+(?:not\s+)?be\b",
    )
    .unwrap()
});

/// Where a clause's body stops being its own predicate.
fn next_predicate(body: &str) -> usize {
    NEXT_PREDICATE.find(body).map_or(body.len(), |m| m.start())
}

/// Words before `upon` that make it part of a phrase (`founded upon such
/// failure`, `agreed upon`), not the opening of a condition.
const UPON_AS_PREPOSITION: &[&str] = &[
    "founded",
    "based",
    "agreed",
    "agree",
    "imposed",
    "conferred",
    "incumbent",
    "binding",
    "rely",
    "relying",
    "relied",
    "act",
    "acting",
    "depend",
    "depends",
    "dependent",
    "call",
    "called",
    "drawn",
    "draw",
    "set",
];

/// Words before `subject to` that make it a state (`becomes subject to`).
const SUBJECT_AS_STATE: &[&str] = &[
    "become", "becomes", "becoming", "is", "are", "be", "been", "being", "was", "were", "remain",
    "remains", "not",
];

/// The conditions and exceptions inside a clause's body, each up to the
/// next one, the next comma or the body's end. One that runs to the
/// body's end where another predicate starts (`..., provided that if no
/// further Rent is due, Landlord shall refund`) opens that predicate and
/// is not this clause's.
fn trailing(body: &str, cut: usize) -> Vec<(Kind, &str)> {
    let marks: Vec<(usize, String)> = TRAILING
        .captures_iter(body)
        .filter_map(|c| {
            let m = c.get(1)?;
            let word = m.as_str().to_ascii_lowercase();
            let prev = body[..m.start()]
                .trim_end_matches([' ', ','])
                .rsplit(|c: char| !c.is_alphabetic())
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            // `claims which, if unpaid, might ...`: the condition is the
            // claims', inside a relative clause.
            // `... notify Bellicum, and if Bellicum fails to respond, the
            // forecast shall ...`: after a conjunction, the condition opens
            // the next clause.
            let relative =
                ["which", "that", "who", "whom", "and", "or", "but"].contains(&prev.as_str());
            // `the amount, if any, by which`, `(if applicable)`: an aside
            // of one word is an idiom, no condition.
            let idiom = word == "if" && {
                let after = body[m.end()..].trim_start();
                let first = after.find([' ', ',', ')']).unwrap_or(after.len());
                after[first..].starts_with([',', ')'])
            };
            // `becomes subject to an inspection`, `content other than
            // Licensed Content`: a predicate or a noun's modifier, not a
            // qualifier of the clause.
            let modifier = match word.split_whitespace().next() {
                Some("subject") => SUBJECT_AS_STATE.contains(&prev.as_str()),
                Some("other") => !body[..m.start()].trim_end().ends_with([',', '(']),
                _ => false,
            };
            let skip = relative
                || idiom
                || modifier
                || match word.split_whitespace().next() {
                    Some("if") => IF_AS_WHETHER.contains(&prev.as_str()),
                    Some("upon") => UPON_AS_PREPOSITION.contains(&prev.as_str()),
                    _ => false,
                };
            (!skip).then(|| (m.start(), word))
        })
        .collect();
    marks
        .iter()
        .enumerate()
        .filter(|(_, (start, _))| *start < cut)
        .filter_map(|(i, (start, word))| {
            let next = marks.get(i + 1).map_or(body.len(), |(s, _)| *s);
            let end = next.min(aside_end(body, *start, word.len())).min(cut);
            if end == cut && cut < body.len() {
                return None;
            }
            let text = body[*start..end].trim_end_matches([' ', ',', '(', ')', '.', ';']);
            Some((Kind::of(word), text))
        })
        // `if it is`: too little to condition anything.
        .filter(|(_, t)| t.split_whitespace().count() >= 4 && !VACUOUS.is_match(t))
        .collect()
}

/// Where a qualifier opened at `start` ends at the latest: a
/// parenthesised one at its `)`, an aside at the first comma after at
/// least four words (`, except in an emergency,`; not the comma of a
/// list, `unless such amendment, modification or waiver`).
fn aside_end(body: &str, start: usize, marker_len: usize) -> usize {
    let from = start + marker_len;
    if body[..start].ends_with('(') {
        return body[from..].find(')').map_or(body.len(), |i| from + i);
    }
    let mut at = from;
    while let Some(i) = body[at..].find(", ") {
        let comma = at + i;
        if body[start..comma].split_whitespace().count() >= 4 {
            return comma;
        }
        at = comma + 2;
    }
    body.len()
}

/// The node for a qualifier's text.
fn qualifier(b: &mut Builder, kind: Kind, text: &str) -> String {
    let name = truncate(&normalize_ws(text), QUALIFIER_CHARS);
    b.entity(&name, kind.entity_type(), "")
}

/// `HAS_PERIOD` from `holder` to every period and dated limit in `text`.
fn periods(b: &mut Builder, holder: &str, text: &str) {
    let Some(rel) = b.offered("HAS_PERIOD") else {
        return;
    };
    let found: Vec<String> = PERIOD
        .find_iter(text)
        .chain(DATED.find_iter(text))
        .map(|m| normalize_ws(m.as_str()))
        .collect();
    for period in found {
        let p = b.entity(&period, "Period", "");
        b.relate(holder, rel, &p, &super::text::snippet_around(text, &period));
    }
}

/// A restriction on assigning the agreement restricts `Assignment`; one
/// that names a change of control restricts that too.
fn restricted_acts(b: &mut Builder, covenant: &str, head: &str, rest: &str) {
    let verb = head
        .split_whitespace()
        .last()
        .unwrap_or("")
        .to_ascii_lowercase();
    let evidence = truncate(&format!("{head}{rest}"), EVIDENCE_CHARS);
    if ASSIGN_VERBS.contains(&verb.as_str()) {
        let a = b.entity("Assignment", "Act", "");
        b.relate(covenant, "RESTRICTS", &a, &evidence);
    }
    if CHANGE_OF_CONTROL.is_match(rest) {
        let c = b.entity("Change of Control", "Act", "");
        b.relate(covenant, "RESTRICTS", &c, &evidence);
    }
}

/// A clause of a negative covenant's list of permitted exceptions (`(e)
/// Indebtedness ... not exceeding $5,000,000`): an `Exception` node of
/// the covenant (`HAS_EXCEPTION`). Returns it, for the clause's own amounts
/// and references; none when the ontology has no `HAS_EXCEPTION`.
pub(in crate::extract::rules) fn permitted(
    b: &mut Builder,
    covenant: &str,
    clause: &str,
) -> Option<String> {
    let rel = b.offered("HAS_EXCEPTION")?;
    let name = truncate(&normalize_ws(clause.trim_end_matches([';', '.', ' '])), 240);
    let e = b.entity(&name, "Exception", "");
    b.relate(covenant, rel, &e, &truncate(clause, EVIDENCE_CHARS));
    Some(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::rules::extract_for;
    use crate::extract::rules::test_support::{input, of_type, onto};
    use crate::index::Ontology;

    #[test]
    fn trailing_splits_at_each_marker_and_skips_whether() {
        let body = " terminate this Agreement upon a material breach by Licensee, unless cured \
                    within thirty (30) days";
        let t = trailing(body, body.len());
        assert_eq!(t.len(), 2, "{t:?}");
        assert_eq!(t[0].0, Kind::Condition);
        assert!(t[0].1.starts_with("upon a material breach"));
        assert!(t[1].1.starts_with("unless cured"));
        for b in [
            " determine if the goods conform",
            " pay, subject to the terms and conditions of this Agreement",
            " be founded upon such failure to surrender",
            " pay the amount, if any, by which it exceeds",
            " cooperate, and if it is, enter into it",
            " pay all claims which, if unpaid, might give rise to a Lien",
            " use content other than Licensed Content for the websites",
        ] {
            assert!(trailing(b, b.len()).is_empty(), "{b}");
        }
        // `becomes subject to` is part of the condition, not another.
        let b = " notify the other in the event that it becomes subject to any inspection";
        let t = trailing(b, b.len());
        assert_eq!(t.len(), 1, "{t:?}");
        assert!(t[0].1.ends_with("subject to any inspection"));
        let b = " not, however, except in an emergency, stop any service";
        assert_eq!(trailing(b, b.len())[0].1, "except in an emergency");
        // A condition that opens the next predicate is that one's.
        let b =
            " credit the overpayment, provided that if no Rent is due, Landlord shall refund it";
        assert!(trailing(b, next_predicate(b)).is_empty());
    }

    #[test]
    fn leading_takes_the_condition_before_the_subject() {
        let p = "Landlord shall credit the overpayment, provided that if no Rent is due, \
                 Landlord shall refund it.";
        let at = p.rfind("Landlord shall refund").unwrap();
        assert_eq!(
            leading(p, &p[at..]),
            Some("provided that if no Rent is due")
        );
        let p = "(b) If Tenant defaults, Landlord may cure the default.";
        let at = p.find("Landlord").unwrap();
        assert_eq!(leading(p, &p[at..]), Some("If Tenant defaults"));
        let p = "If necessary, Ceres agrees to enter into a joint defense agreement.";
        assert_eq!(leading(p, &p[p.find("Ceres").unwrap()..]), None);
        let p = "Subject to the terms and conditions set forth herein, Customer may audit.";
        assert_eq!(leading(p, &p[p.find("Customer").unwrap()..]), None);
        let p = "Tenant shall pay the Rent, and Landlord shall accept it.";
        let at = p.rfind("Landlord").unwrap();
        assert_eq!(leading(p, &p[at..]), None);
    }

    #[test]
    fn kinds_follow_the_opening_word() {
        assert_eq!(Kind::of("except as provided"), Kind::Exception);
        assert_eq!(Kind::of("provided, however, that"), Kind::Exception);
        assert_eq!(Kind::of("provided that"), Kind::Condition);
        assert_eq!(Kind::of("within ten days"), Kind::Period);
        assert_eq!(Kind::of("if"), Kind::Condition);
    }

    #[test]
    fn periods_read_spelled_and_digit_counts() {
        for s in [
            "within thirty (30) days after receipt",
            "upon at least sixty (60) days' prior written notice",
            "for a period of two (2) years",
            "within 10 business days",
        ] {
            assert!(PERIOD.is_match(s), "{s}");
        }
        assert!(!PERIOD.is_match("the thirty-day period"));
        assert!(PERIOD.is_match("within one hundred twenty (120) days"));
        // A comparison is no period.
        assert!(!PERIOD.is_match("if such period is less than thirty (30) days"));
        // A period named before: `this thirty (30) day period` is none.
        assert!(!PERIOD.is_match("within this thirty (30) day period"));
        assert!(DATED.is_match("on or before March 1, 2020"));
    }

    /// The ontology types a duty's qualifiers use.
    fn qualified() -> Ontology {
        onto(&[
            "CONDITIONED_ON",
            "HAS_EXCEPTION",
            "HAS_PERIOD",
            "TRIGGERS",
            "HOLDS_RIGHT",
            "OBLIGATED_TO",
            "RESTRICTS",
            "TERMINATES",
        ])
    }

    #[test]
    fn conditions_exceptions_and_periods_attach_to_their_duty() {
        let text = "If Licensee fails to pay any amount when due, Licensor may terminate this \
                    Agreement upon thirty (30) days' prior written notice. Licensee shall pay each \
                    invoice within forty-five (45) days after receipt, unless disputed in good faith. \
                    Licensee shall deliver the report on or before March 1, 2020, except as provided \
                    in Section 4.2.";
        let mut i = input("5.1 Payment", text);
        i.doc_type = "commercial".into();
        let o = extract_for(&i, &qualified());
        let of = |t: &str| of_type(&o, t);
        let right = o
            .relations
            .iter()
            .find(|r| r.relation_type == "HOLDS_RIGHT" && r.source == "Licensor")
            .map(|r| r.target.clone())
            .expect("Licensor's right to terminate");
        assert!(
            of("CONDITIONED_ON").contains(&(
                right.as_str(),
                "If Licensee fails to pay any amount when due"
            )),
            "{:#?}",
            o.relations
        );
        assert!(of("HAS_PERIOD")
            .iter()
            .any(|(s, t)| *s == right && t.contains("thirty (30) days' prior written notice")));
        let pay = of("OBLIGATED_TO")
            .into_iter()
            .find(|(_, t)| t.starts_with("Licensee shall pay"))
            .map(|(_, t)| t)
            .expect("duty to pay");
        assert!(of("HAS_PERIOD").contains(&(pay, "within forty-five (45) days")));
        assert!(of("CONDITIONED_ON").contains(&(pay, "unless disputed in good faith")));
        let deliver = of("OBLIGATED_TO")
            .into_iter()
            .find(|(_, t)| t.starts_with("Licensee shall deliver"))
            .map(|(_, t)| t)
            .expect("duty to deliver");
        assert!(of("HAS_PERIOD").contains(&(deliver, "on or before March 1, 2020")));
        assert!(of("HAS_EXCEPTION").contains(&(deliver, "except as provided in Section 4.2")));
        // A qualifier is typed as what it is, never as a duty.
        let typed = |n: &str| {
            o.entities
                .iter()
                .find(|e| e.name == n)
                .map(|e| e.entity_type.as_str())
        };
        assert_eq!(typed("unless disputed in good faith"), Some("Condition"));
        assert_eq!(
            typed("except as provided in Section 4.2"),
            Some("Exception")
        );
        assert_eq!(typed("within forty-five (45) days"), Some("Period"));
        // Without the ontology's types, nothing of it is made.
        let bare = extract_for(&i, &onto(&["OBLIGATED_TO", "HOLDS_RIGHT"]));
        assert!(!bare
            .entities
            .iter()
            .any(|e| ["Condition", "Exception", "Period"].contains(&e.entity_type.as_str())));
    }

    #[test]
    fn permitted_baskets_are_exceptions_of_their_covenant() {
        let text = "The Borrower will not create or suffer to exist any Lien on any of its \
                    property, except:\n\n\
                    (a) Liens for taxes not yet due;\n\n\
                    (b) Liens securing Indebtedness not exceeding $5,000,000 in the aggregate.\n\n\
                    The Borrower shall not:\n\n\
                    (a) amend its charter;";
        let mut onto = qualified();
        onto.relation_types
            .insert("AMOUNT_OF".into(), String::new());
        let o = extract_for(&input("7.01 Liens", text), &onto);
        let ex = of_type(&o, "HAS_EXCEPTION");
        assert_eq!(ex.len(), 2, "{:#?}", o.relations);
        assert!(
            ex.iter()
                .all(|(s, _)| s.starts_with("Borrower will not create")),
            "{ex:#?}"
        );
        // The basket's cap is the basket's, not the covenant's.
        assert!(of_type(&o, "AMOUNT_OF")
            .iter()
            .any(|(a, t)| *a == "$5,000,000" && t.starts_with("Liens securing Indebtedness")));
        assert!(ex.iter().any(|(_, t)| *t == "Liens for taxes not yet due"));
        // A list of what is restricted is no list of exceptions.
        assert!(!ex.iter().any(|(_, t)| t.contains("charter")));
    }

    #[test]
    fn assignment_and_change_of_control_are_named_acts() {
        let text = "Neither Party shall assign this Agreement without the prior written consent \
                    of the other Party. This Agreement may not be assigned by Licensee to a \
                    competitor of Licensor. Licensor may terminate this Agreement upon a Change of \
                    Control of Licensee. Licensee shall not undergo a change of control without \
                    the consent of Licensor.";
        let mut i = input("12. Assignment", text);
        i.doc_type = "commercial".into();
        let o = extract_for(&i, &qualified());
        let restricts = of_type(&o, "RESTRICTS");
        assert!(
            restricts.iter().any(|(_, t)| *t == "Assignment"),
            "{:#?}",
            o.relations
        );
        assert!(restricts.iter().any(|(_, t)| *t == "Change of Control"));
        // The passive names the restricted party after `by`.
        assert!(restricts
            .iter()
            .any(|(s, t)| s.starts_with("This Agreement may not be assigned") && *t == "Licensee"));
        let triggers = of_type(&o, "TRIGGERS");
        assert!(triggers
            .iter()
            .any(|(s, t)| *s == "Change of Control" && t.starts_with("Licensor may terminate")));
    }
}
