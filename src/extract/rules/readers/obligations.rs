//! Obligations (`the Borrower shall ...`), negative covenants
//! (`shall not ...`, `Neither ... nor ...`) and what they restrict.

use super::{Flow, Paragraph};
use crate::extract::rules::common::builder::Builder;
use crate::extract::rules::common::clause::*;
use crate::extract::rules::common::own::OwnSection;
use crate::extract::rules::common::qualifiers::qualify;
use crate::extract::rules::common::roles::{is_role, singular_role};
use crate::extract::rules::common::text::EVIDENCE_CHARS;
use crate::extract::rules::common::text::*;
use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::HashSet;

/// `the Borrower shall ...`, `each Lender agrees to ...`, `the Company shall not permit ...`;
/// a bare subject after a comma or `and` (`..., and Landlord shall ...`) and
/// a comma aside around the modal (`Tenant shall, in addition to ..., pay`).
pub(in crate::extract::rules) static OBLIGATION: Lazy<Regex> = Lazy::new(|| {
    with_large_dfa(
        r"(?:\b(?:the|each|any|such|The|Each|Any|Such)\s+|(?:^|[.;:]\s+|\)\s+|,\s+|\b(?:and|then)\s+))((?:[A-Z][A-Za-z\-]*\s+){0,3}[A-Z][A-Za-z\-]*)(?:\s*,[^,;]{1,160},)?\s+(?:(?:severally|hereby|irrevocably|unconditionally)\s+)*(?:shall|will|must|agrees(?:\s*,[^,;]{0,120},)?\s+to|covenants\s+to)(?:\s*,[^,;]{1,160},)?\s+(not\s+)?(?:(?:directly\s+or\s+indirectly|at\s+any\s+time),?\s+)?([A-Za-z][a-z\-]+)",
    )
    .unwrap()
});

/// `Neither the Company nor any Subsidiary will ...`: a restriction on both.
pub(in crate::extract::rules) static NEITHER: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"\bNeither\s+(?:the\s+)?((?:[A-Z][A-Za-z\-]*\s+){0,3}[A-Z][A-Za-z\-]*)\s+nor\s+(?:any\s+|the\s+)?((?:[A-Z][A-Za-z\-]*\s+){0,3}[A-Z][A-Za-z\-]*)\s+(?:shall|will)\s+([a-z][a-z\-]+)",
    )
    .unwrap()
});

/// A word every [`OBLIGATION`] match holds (one of its verbs).
const OBLIGATION_WORDS: &[&str] = &["shall", "will", "must", "agrees", "covenants"];

/// A duty written with a lower-case pronoun inside a sentence (`..., you
/// must pay`, `and we will provide`), in [`OBLIGATION`]'s groups: subject,
/// `not`, verb. A capitalised `You must` is [`OBLIGATION`]'s own.
static PRONOUN_OBLIGATION: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(you|we)\s+(?:shall|will|must|agree\s+to)\s+(not\s+)?(?:(?:directly\s+or\s+indirectly|at\s+any\s+time|promptly|immediately),?\s+)?([a-z][a-z\-]+)")
        .unwrap()
});

/// A right written with a lower-case pronoun inside a sentence (`..., we
/// may terminate`), in [`RIGHT`]'s groups.
static PRONOUN_RIGHT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(you|we)\s+(?:may|(?:have|has)\s+the\s+(?:sole\s+|exclusive\s+|unilateral\s+)?right\s+to|are\s+entitled\s+to|reserve\s+the\s+right\s+to)\s+(not\s+)?(?:(?:at\s+any\s+time|in\s+our\s+sole\s+discretion|at\s+our\s+option),?\s+)?([a-z][a-z\-]+)")
        .unwrap()
});

/// A word every [`RIGHT`] match holds.
const RIGHT_WORDS: &[&str] = &["may", "shall", "entitled", "right"];

/// Rights: `Licensee may terminate ...`, `the Landlord shall have the right
/// to ...`, `each Party is entitled to ...`; `may not` restricts.
pub(in crate::extract::rules) static RIGHT: Lazy<Regex> = Lazy::new(|| {
    with_large_dfa(
        r"(?:\b(?:the|each|any|either|The|Each|Any|Either)\s+|(?:^|[.;:]\s+|\)\s+|,\s+|\b(?:and|then)\s+))((?:[A-Z][A-Za-z\-]*\s+){0,3}[A-Z][A-Za-z\-]*)(?:\s*,[^,;]{1,160},)?\s+(?:may|shall\s+(?:have|be\s+entitled)\s+(?:the\s+(?:sole\s+|exclusive\s+|unilateral\s+)?right\s+)?to|(?:is|are)\s+entitled\s+to|(?:has|have)\s+the\s+(?:sole\s+|exclusive\s+|unilateral\s+)?right\s+to|reserves?\s+the\s+right\s+to)\s+(not\s+)?(?:(?:at\s+any\s+time|in\s+its\s+sole\s+discretion|at\s+its\s+option),?\s+)?([a-z][a-z\-]+)",
    )
    .unwrap()
});

/// Verbs after `may` that state a possibility, not a right.
const NON_RIGHT_VERBS: &[&str] = &[
    "be",
    "have",
    "become",
    "include",
    "deem",
    "need",
    "apply",
    "result",
    "arise",
    "occur",
    "reasonably",
    "from",
    "also",
    "otherwise",
    "only",
    "in",
    "mutually",
    "jointly",
    "instead",
];

/// `... to make Ratable Loans to the Borrowers ...` inside a lender's obligation.
pub(in crate::extract::rules) static LENDS_TO: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\bto\s+make\s+[^.;]{0,80}?\bto\s+(?:the|any|each|such)\s+(?:applicable\s+)?((?:[A-Z][A-Za-z\-]*\s+){0,2}(?:Borrower|Company)s?)\b")
        .unwrap()
});

/// A lien named in a covenant's clause.
pub(in crate::extract::rules) static LIEN: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"\bLiens?\b").unwrap());

/// Verbs after `shall` that state a status, not an obligation.
pub(in crate::extract::rules) const NON_OBLIGATION_VERBS: &[&str] = &[
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
    "fail",
    "cease",
    "hereby",
    "in",
    "thereupon",
    "automatically",
    // `shall only be invoiced`, `shall receive the entire award`: a
    // protection or an entitlement, not a duty.
    "only",
    "receive",
];

/// `shall not be required/obligated/liable ...`: a relief, not a covenant.
pub(in crate::extract::rules) const RELIEF: &[&str] = &[
    "required",
    "obligated",
    "liable",
    "responsible",
    "deemed",
    "entitled",
];

/// `shall not suffer any liability`, `will not incur any responsibility`:
/// the words after the verb name a liability the party is freed of.
fn frees_from_liability(p: &str, c: &regex::Captures) -> bool {
    p[c.get(0).unwrap().end()..]
        .split_whitespace()
        .take(3)
        .any(|w| {
            let w = w.to_ascii_lowercase();
            w.starts_with("liab") || w.starts_with("responsib")
        })
}

pub(in crate::extract::rules) const MAINTAIN_VERBS: &[&str] =
    &["maintain", "keep", "preserve", "remain"];

/// The last duty, right or restriction a paragraph states.
pub(in crate::extract::rules) struct Found {
    /// Its node's name.
    pub node: String,
    /// Its clause runs to the paragraph's end, so a list the paragraph
    /// opens with `:` is its own.
    pub to_end: bool,
    /// It restricts (`shall not`, `Neither ... nor`, `may not`).
    pub restriction: bool,
}

/// The duties, restrictions and rights a paragraph states. A duty whose
/// clause ends the paragraph with `:` opens a list of clauses that are its
/// own (after `except:` under a restriction, each a permitted exception).
/// A paragraph that states one is read by no later reader.
pub(super) fn duties(b: &mut Builder, p: &mut Paragraph) -> Flow {
    let section = p.section;
    let Some(f) = obligations(b, p.text, section.terms, section.own) else {
        return Flow::Next;
    };
    // `... Miltenyi shall provide notice. ... Miltenyi shall have no
    // obligation to Bellicum:` opens a list that is no duty's.
    let permits = f.restriction && super::lists::opens_exceptions(p.text);
    p.lists.duty = (f.to_end && p.text.trim_end().ends_with(':')).then_some((f.node, permits));
    // References outside the duties' clauses (`as described in Article 4;
    // ... Bellicum will pay ...`) stay the section's.
    section_references(b, p.text, section.own);
    Flow::Done
}

/// `the Borrower shall ...` (OBLIGATED_TO), `... shall maintain ...`
/// (MUST_MAINTAIN), `... shall not ...` (RESTRICTS).
/// Returns the last obligation or covenant found in the paragraph.
pub(in crate::extract::rules) fn obligations(
    b: &mut Builder,
    p: &str,
    set: &HashSet<String>,
    own: &OwnSection,
) -> Option<Found> {
    // Each pattern only where its words are (see `holds_any`).
    let neither = neither_nor(b, p, set, own);
    let duties = duties_of(b, p, own);
    let rights = rights_of(b, p, own);
    // The paragraph's last duty, restriction or right found.
    rights.or(duties).or(neither)
}

/// `Neither the Borrower nor any Subsidiary shall ...`: a covenant that
/// RESTRICTS both.
fn neither_nor(b: &mut Builder, p: &str, set: &HashSet<String>, own: &OwnSection) -> Option<Found> {
    let mut last = None;
    let neither = p.contains("Neither");
    for c in NEITHER.captures_iter(if neither { p } else { "" }) {
        let first = normalize_ws(&c[1]);
        let known =
            |t: &str| is_role(t) || set.contains(t) || set.contains(t.trim_end_matches('s'));
        if !known(&first) {
            continue;
        }
        let clause = clause_at(p, c.get(0).unwrap().start());
        let name = clause_name(clause);
        let ob = b.entity(&name, "Covenant", &truncate(clause, 200));
        let evidence = truncate(clause, EVIDENCE_CHARS);
        restricts_liens(b, &ob, clause);
        for party in [first, normalize_ws(&c[2])] {
            let pt = party_entity(b, &party);
            b.relate(&ob, "RESTRICTS", &pt, &evidence);
        }
        clause_links(b, &ob, clause, own);
        let verb_end = c.get(0).unwrap().end() - c.get(0).unwrap().start();
        qualify(b, &ob, p, clause, verb_end, true);
        last = Some(Found {
            node: ob,
            to_end: runs_to_end(p, clause),
            restriction: true,
        });
    }
    last
}

/// `the Borrower shall ...` (OBLIGATED_TO, MUST_MAINTAIN), `... shall not
/// ...` (a Covenant that RESTRICTS its party), also in the second person
/// (`you shall pay`).
fn duties_of(b: &mut Builder, p: &str, own: &OwnSection) -> Option<Found> {
    let mut last = None;
    let obligation = holds_any(p, OBLIGATION_WORDS);
    let pronoun_duties = if obligation && holds_any(p, &["you", "we"]) {
        p
    } else {
        ""
    };
    let duties = OBLIGATION
        .captures_iter(if obligation { p } else { "" })
        .chain(PRONOUN_OBLIGATION.captures_iter(pronoun_duties));
    for c in duties {
        let Some((party, negated)) = subject(&c[1]) else {
            continue;
        };
        // `shall not, and shall cause its Affiliates not to, grant`: the
        // `not` stands alone before an aside. `Neither Party shall assign`
        // restricts both.
        let negative = negated || c.get(2).is_some() || &c[3] == "not";
        let verb = c[3].to_ascii_lowercase();
        if NON_OBLIGATION_VERBS.contains(&verb.as_str()) && !negative {
            continue;
        }
        // `shall not be required to ...` relieves a party; it restricts nothing.
        let next = p[c.get(0).unwrap().end()..]
            .split_whitespace()
            .next()
            .unwrap_or("");
        // `shall not be included ...` states a status; `shall not be
        // required to ...` relieves a party: neither restricts anything.
        if negative && (verb == "be" || RELIEF.contains(&next) || frees_from_liability(p, &c)) {
            continue;
        }
        // Only a party can be bound (`the Borrower`, `each Lender`), not a
        // rate or an amount (`the Eurocurrency Rate shall in no event ...`),
        // and only as the subject: in `the ratio of Debt of the Borrower
        // shall not exceed` the ratio is bound, not the Borrower.
        if !b.bindable(&party)
            || inside_noun_phrase(p, c.get(0).unwrap().start())
            || conditional(p, c.get(1).unwrap().start())
        {
            continue;
        }
        let clause = clause_at(p, c.get(1).unwrap().start());
        let name = clause_name(clause);
        let Some(pt) = bound_party(b, &party) else {
            continue;
        };
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
            if verb == "pay" {
                payment(b, &pt, &p[c.get(3).unwrap().end()..], &evidence);
            }
            if let Some(l) = LENDS_TO.captures(clause) {
                let borrower = singular_role(&normalize_ws(&l[1]));
                let bt = b.entity(&borrower, "Role", "");
                b.relate(&pt, "LENDS_TO", &bt, &evidence);
            }
            owed_to(
                b,
                &ob,
                &pt,
                // From the verb, whose object may be the recipient (`pay
                // Landlord`). The clause may end before the verb the match
                // reached (`IAC will, [*] ...`): then nothing follows it.
                clause
                    .get(c.get(3).unwrap().start() - c.get(1).unwrap().start()..)
                    .unwrap_or(""),
            );
            ob
        };
        clause_links(b, &ob, clause, own);
        let verb_end = c.get(3).unwrap().end() - c.get(1).unwrap().start();
        qualify(b, &ob, p, clause, verb_end, negative);
        last = Some(Found {
            node: ob,
            to_end: runs_to_end(p, clause),
            restriction: negative,
        });
    }
    last
}

/// `the Lender may ...` (HOLDS_RIGHT, TERMINATES for a right to end the
/// agreement), `... may not ...` (a Covenant that RESTRICTS its party).
fn rights_of(b: &mut Builder, p: &str, own: &OwnSection) -> Option<Found> {
    let mut last = None;
    let right = holds_any(p, RIGHT_WORDS);
    let pronoun_rights = if right && holds_any(p, &["you", "we"]) {
        p
    } else {
        ""
    };
    let rights = RIGHT
        .captures_iter(if right { p } else { "" })
        .chain(PRONOUN_RIGHT.captures_iter(pronoun_rights));
    for c in rights {
        // `Neither Party may assign` restricts both, like `may not`.
        let Some((party, negated)) = subject(&c[1]) else {
            continue;
        };
        let negative = negated || c.get(2).is_some();
        let verb = c[3].to_string();
        let at = c.get(1).unwrap().start();
        if !b.bindable(&party)
            || NON_RIGHT_VERBS.contains(&verb.as_str())
            || inside_noun_phrase(p, c.get(0).unwrap().start())
            || conditional(p, at)
        {
            continue;
        }
        let clause = clause_at(p, at);
        let name = clause_name(clause);
        let Some(pt) = bound_party(b, &party) else {
            continue;
        };
        let evidence = truncate(clause, EVIDENCE_CHARS);
        let r = if negative {
            let r = b.entity(&name, "Covenant", &truncate(clause, 200));
            b.relate(&r, "RESTRICTS", &pt, &evidence);
            r
        } else {
            let r = b.entity(&name, "Right", &truncate(clause, 200));
            b.relate(&pt, "HOLDS_RIGHT", &r, &evidence);
            if verb == "terminate" {
                if let Some(t) = b.offered("TERMINATES") {
                    b.relate(&pt, t, &r, &evidence);
                }
            }
            r
        };
        clause_links(b, &r, clause, own);
        let verb_end = c.get(3).unwrap().end() - at;
        qualify(b, &r, p, clause, verb_end, negative);
        last = Some(Found {
            node: r,
            to_end: runs_to_end(p, clause),
            restriction: negative,
        });
    }
    last
}

/// The party a sentence opens with, without its article (`The Borrower`
/// -> `Borrower`), and whether the sentence negates it (`No Lender`,
/// `Neither Party` followed by no `nor`: what follows binds it not to act).
fn subject(raw: &str) -> Option<(String, bool)> {
    let s = normalize_ws(raw);
    let (first, rest) = match s.split_once(' ') {
        Some((f, r)) => (f.to_string(), r.to_string()),
        None => (s.clone(), String::new()),
    };
    match first.as_str() {
        "No" | "Neither" | "NO" | "NEITHER" if !rest.is_empty() => {
            subject(&rest).map(|(party, _)| (party, true))
        }
        "No" | "Neither" | "NO" | "NEITHER" => None,
        // `If Landlord shall advise Tenant ...`: a condition, whose party
        // is bound by nothing.
        "If" | "Unless" | "When" | "Whenever" | "Until" | "Whether" | "Once" | "IF" | "UNLESS"
        | "WHEN" => None,
        "The" | "Each" | "Any" | "Such" | "Either" | "A" | "An" | "THE" | "EACH" | "ANY"
        | "SUCH" | "EITHER"
            if !rest.is_empty() =>
        {
            Some((rest, false))
        }
        _ => Some((s, false)),
    }
}

/// Words that, right before a subject, make its clause a condition (`if the
/// Borrower shall ...`), each with its leading space.
const CONDITION_WORDS: &[&str] = &[
    " if",
    " unless",
    " upon",
    " when",
    " whenever",
    " until",
    " whether",
    " in the event",
    " in the event that",
    " provided that",
    " provided, however, that",
    " provided however that",
    " to the extent",
    " to the extent that",
    " after",
    " before",
    " once",
    " where",
    " that",
    " as",
    " so long as",
    " except",
    " except that",
    " in case",
];

/// True when the clause at `at` is the condition of another (`if the
/// Agent shall notify ...`, `unless the Tenant shall ...`, `provided that
/// the Licensee may ...`): a condition binds no one.
///
/// Reads only the words just before `at`, comparing without regard to
/// ASCII case in place: lower-casing everything before the match made each
/// match cost the paragraph's length (quadratic in a megabyte line).
fn conditional(p: &str, at: usize) -> bool {
    let before = p[..at].trim_end();
    let before = [" the", " each", " any", " such"]
        .iter()
        .find_map(|w| strip_suffix_ci(before, w))
        .unwrap_or(before)
        .trim_end_matches(',');
    CONDITION_WORDS.iter().any(|w| {
        let w = w.trim_start();
        strip_suffix_ci(before, w).is_some_and(|head| {
            !head
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric())
        })
    })
}

/// `s` without its `suffix` (lower-case ASCII), compared without regard to
/// ASCII case: what `s.to_ascii_lowercase().strip_suffix(suffix)` keeps,
/// without copying `s`.
fn strip_suffix_ci<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = s.len().checked_sub(suffix.len())?;
    let tail = s.as_bytes().get(cut..)?;
    (s.is_char_boundary(cut) && tail.eq_ignore_ascii_case(suffix.as_bytes())).then(|| &s[..cut])
}

/// `the Guarantor hereby unconditionally guarantees ... the Obligations`.
static GUARANTEES: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:the|each|The|Each)\s+((?:[A-Z][A-Za-z\-]*\s+){0,3}[A-Z][A-Za-z\-]*)\s+(?:hereby\s+)?(?:(?:absolutely|unconditionally|irrevocably|jointly|severally|and|,)\s*)*guarantees?\b")
        .unwrap()
});

/// `the Borrower hereby grants to the Agent ... a security interest in ...`.
static GRANTS_LIEN: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:the|each|The|Each)\s+((?:[A-Z][A-Za-z\-]*\s+){0,3}[A-Z][A-Za-z\-]*)\s+(?:hereby\s+)?(?:grants?|pledges?|assigns?\s+and\s+pledges?)\b[^.;]{0,120}?\b(?:security\s+interest|lien|Lien)\s+(?:in|on|upon)\b")
        .unwrap()
});

/// Guarantees and liens stated by a known party: `Guarantor -GUARANTEES->`
/// the first defined term after the verb (`the Obligations`), `Grantor
/// -GRANTS_LIEN_ON->` the first defined term after `security interest in`
/// (`the Collateral`). Nothing when no defined term follows in the clause.
pub(in crate::extract::rules) fn guarantees_and_liens(
    b: &mut Builder,
    p: &str,
    set: &HashSet<String>,
) {
    // Words every match of each pattern holds.
    let guarantees = p.contains("guarantee");
    let grants_lien =
        holds_any(p, &["grant", "pledge"]) && holds_any(p, &["security", "lien", "Lien"]);
    for (re, rel, may_match) in [
        (&*GUARANTEES, "GUARANTEES", guarantees),
        (&*GRANTS_LIEN, "GRANTS_LIEN_ON", grants_lien),
    ] {
        if !may_match {
            continue;
        }
        for c in re.captures_iter(p) {
            let party = normalize_ws(&c[1]);
            let known = set.contains(&party) || set.contains(party.trim_end_matches('s'));
            if !is_role(&party) && !known {
                continue;
            }
            let whole = c.get(0).unwrap();
            let clause = clause_at(p, c.get(1).unwrap().start());
            let after_at = whole.end() - c.get(1).unwrap().start();
            let Some(rest) = clause.get(after_at..) else {
                continue;
            };
            let Some(target) = first_term(rest, set) else {
                continue;
            };
            let pt = party_entity(b, &party);
            let ty = if rel == "GRANTS_LIEN_ON" {
                "Asset"
            } else {
                "DefinedTerm"
            };
            let t = b.entity(&target, ty, "");
            let end = rest.find(&target).map_or(rest.len(), |i| i + target.len());
            let evidence = truncate(
                &clause[..after_at + end],
                EVIDENCE_CHARS.max(after_at + end),
            );
            b.relate(&pt, rel, &t, &evidence);
        }
    }
}

/// The first capitalised term in `text` after `the`/`all`/`its`/`such`/`each`/`any`:
/// the longest run of its words that the section defines, else the whole
/// run when it names no party (`the Guaranteed Obligations`, defined in
/// another section, but not `the Lenders`).
fn first_term(text: &str, set: &HashSet<String>) -> Option<String> {
    static AFTER_ARTICLE: Lazy<Regex> = Lazy::new(|| {
        Regex::new(
            r"\b(?:the|all|its|such|each|any)\s+((?:[A-Z][A-Za-z\-]*\s+){0,3}[A-Z][A-Za-z\-]*)",
        )
        .unwrap()
    });
    AFTER_ARTICLE.captures_iter(text).find_map(|c| {
        let words: Vec<&str> = c[1].split_whitespace().collect();
        // The longest run of leading words that is a defined term.
        (1..=words.len())
            .rev()
            .find_map(|n| {
                let t = words[..n].join(" ");
                let singular = t.trim_end_matches('s');
                (set.contains(&t) || set.contains(singular)).then_some(t)
            })
            .or_else(|| {
                let t = words.join(" ");
                (!is_role(&t) && !t.eq_ignore_ascii_case("agreement")).then_some(t)
            })
    })
}

/// A negative covenant that names liens restricts them (`Lien` entity).
pub(in crate::extract::rules) fn restricts_liens(b: &mut Builder, covenant: &str, clause: &str) {
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

/// The entity a duty or right of `party` (as the sentence writes it) is
/// held by: a name of the document's party registry as written (the
/// parties clause ties it to the organisation), a pronoun as the party's
/// first defined name (or its organisation when it has none), else a role
/// or party short name as before. `None` when nothing can be bound.
fn bound_party(b: &mut Builder, party: &str) -> Option<String> {
    let low = party.to_lowercase();
    let pronoun = crate::extract::party_registry::PRONOUNS.contains(&low.as_str());
    if let Some(rp) = b.registry.resolve(party).cloned() {
        if !pronoun {
            if rp.name.eq_ignore_ascii_case(party) && rp.names.is_empty() {
                return Some(b.entity(&rp.name, "Organization", ""));
            }
            return Some(party_entity(b, party));
        }
        return match rp.names.first() {
            Some(n) => Some(party_entity(b, n)),
            None if !rp.name.is_empty() => Some(b.entity(&rp.name, "Organization", "")),
            None => None,
        };
    }
    (!pronoun && b.bindable(party)).then(|| party_entity(b, party))
}

/// Words after which a party is the one a duty is owed to: a preposition
/// of the recipient (`deliver to the District`, `for the benefit of
/// Franchisor`) or a verb whose object receives (`pay Landlord`, `notify
/// each Bank`, `provide Tenant with`, `indemnify and hold harmless
/// Licensor`), then the party's name with its determiner.
static RECIPIENT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:(to|for\s+the\s+(?:account|benefit)\s+of|(?:consult|cooperate|confer)\s+with)|(?:[Nn]otify|[Nn]otifies|[Ii]nform|[Aa]dvise|[Pp]ay|[Rr]epay|[Rr]eimburse|[Cc]ompensate|[Ii]ndemnify|[Dd]efend|[Hh]old\s+harmless|[Pp]rovide|[Ff]urnish|[Gg]ive|[Ss]end|[Gg]rant|[Aa]ssist|[Pp]ermit|[Aa]llow|[Ii]nvoice|[Rr]efund|[Ss]upply|[Oo]ffer|[Tt]ell))\s+(?:the\s+|each\s+|any\s+|such\s+|all\s+|either\s+)?(us|you|[A-Z][A-Za-z\-]*(?:\s+[A-Z][A-Za-z\-]*){0,3})")
        .unwrap()
});

/// `and each Lender`, `or the Agent`: a party coordinated with the
/// recipient before it.
static AND_RECIPIENT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^,?\s+(?:and/or|and|or)\s+(?:the\s+|each\s+|any\s+|such\s+|all\s+)?([A-Z][A-Za-z\-]*(?:\s+[A-Z][A-Za-z\-]*){0,3})")
        .unwrap()
});

/// Names no one party bears: `to any Party`, `to a Third Party`.
const NO_RECIPIENT: &[&str] = &["party", "parties", "third party", "third parties"];

/// The party a mention after a recipient word stands for, when it is one
/// that is not `holder`: a name of the registry, a role or a party short
/// name, as written or (after a verb, `pay Landlord Additional Rent`) its
/// leading words. A possessive (`to Landlord's satisfaction`) names no
/// recipient.
fn recipient(
    b: &mut Builder,
    text: &str,
    at: usize,
    mention: &str,
    after_verb: bool,
) -> Option<String> {
    let end = at + mention.len();
    if text[end..].starts_with(['\'', '\u{2019}']) {
        return None;
    }
    // `us` after a verb or `to` is the object form of `we`.
    let mention = if mention == "us" { "we" } else { mention };
    let words: Vec<&str> = mention.split_whitespace().collect();
    let longest = if after_verb { 1 } else { words.len() };
    (longest..=words.len()).rev().find_map(|n| {
        let m = words[..n].join(" ");
        let pronoun = m == "we" || m == "you";
        if NO_RECIPIENT.contains(&m.to_ascii_lowercase().as_str())
            || (pronoun && b.registry.resolve(&m).is_none())
            || !(pronoun || b.bindable(&m))
        {
            return None;
        }
        bound_party(b, &m)
    })
}

/// To whom a duty is owed (OWED_TO), read from the duty's own clause
/// after its subject (`text`, from the duty's verb on): the party after
/// a recipient word (see [`RECIPIENT`]) and the parties coordinated with
/// it, when they are not the holder; in a contract of two parties,
/// `notify the other Party`, `pay to the other party`, `with the other
/// Party` too, and a duty each Party holds to the other is owed to
/// `Party`.
fn owed_to(b: &mut Builder, duty: &str, holder: &str, text: &str) {
    static OTHER_PARTY: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\b(?:to|notify|notifies|inform|pay|reimburse|indemnify|with)\s+(?:the|such)\s+other\s+party\b")
            .unwrap()
    });
    let quote = truncate(text, EVIDENCE_CHARS);
    for c in RECIPIENT.captures_iter(text) {
        let after_verb = c.get(1).is_none();
        let m = c.get(2).unwrap();
        let Some(to) = recipient(b, text, m.start(), m.as_str(), after_verb) else {
            continue;
        };
        if to.eq_ignore_ascii_case(holder) {
            continue;
        }
        b.relate(duty, "OWED_TO", &to, &quote);
        // `to the Administrative Agent and each Lender`: both.
        let mut rest_at = m.end();
        while let Some(a) = AND_RECIPIENT.captures(&text[rest_at..]) {
            let g = a.get(1).unwrap();
            let at = rest_at + g.start();
            match recipient(b, text, at, g.as_str(), false) {
                Some(to) if !to.eq_ignore_ascii_case(holder) => {
                    b.relate(duty, "OWED_TO", &to, &quote)
                }
                _ => break,
            }
            rest_at += g.end();
        }
        return;
    }
    if OTHER_PARTY.is_match(text) {
        // `Each Party shall notify the other Party`: a duty both parties
        // hold, owed by each to the other.
        if holder.eq_ignore_ascii_case("party") {
            b.relate(duty, "OWED_TO", holder, &quote);
            return;
        }
        let other = b
            .registry
            .other_than(holder)
            .map(|p| p.subject_name().to_string());
        if let Some(to) = other.and_then(|o| bound_party(b, &o)) {
            if !to.eq_ignore_ascii_case(holder) {
                b.relate(duty, "OWED_TO", &to, &quote);
            }
        }
    }
}

/// True when the word before `at` ties what follows into a longer noun
/// phrase (`of the Borrower`, `to the Lenders`), so it is no subject.
fn inside_noun_phrase(p: &str, at: usize) -> bool {
    let before = p[..at].trim_end();
    let word = before
        .rsplit(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    [
        "of", "to", "by", "for", "with", "from", "than", "under", "against", "between", "as",
    ]
    .contains(&word.as_str())
}

/// `Each Lender hereby irrevocably appoints (and authorizes) the
/// Administrative Agent ...`: the agent acts for the lenders.
static APPOINTS: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:the|each|Each|The)\s+((?:[A-Z][A-Za-z\-]*\s+){0,2}[A-Z][A-Za-z\-]*)\s+(?:hereby\s+)?(?:irrevocably\s+)?(?:appoints|designates)\s+(?:,?\s*(?:and|designates|authorizes)\s+)*(?:[a-z]+\s+){0,3}?(?:the\s+)?((?:[A-Z][A-Za-z\-]*\s+){0,3}Agent)\b")
        .unwrap()
});

/// `This Agreement may not be assigned by either Party without ...`: a
/// restriction on assignment written in the passive, on the party after
/// `by` when one is named.
static PASSIVE_ASSIGNMENT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:[Tt]his|[Tt]he)\s+Agreement\b[^.;]{0,120}?\b(?:shall|may|will|can)\s+not\s+be\s+(?:assigned|transferred|delegated)(?:[^.;]{0,60}?\bby\s+(?:either\s+|any\s+|the\s+)?((?:[A-Z][A-Za-z\-]*\s+){0,2}[A-Z][A-Za-z\-]*))?")
        .unwrap()
});

/// `Covenant -RESTRICTS-> Assignment` (and the party named after `by`)
/// for a passive restriction on assigning the agreement.
pub(in crate::extract::rules) fn passive_assignment(b: &mut Builder, p: &str, own: &OwnSection) {
    // Words every match holds.
    if !(p.contains("Agreement")
        && p.contains("not")
        && holds_any(p, &["assigned", "transferred", "delegated"]))
    {
        return;
    }
    for c in PASSIVE_ASSIGNMENT.captures_iter(p) {
        let start = c.get(0).unwrap().start();
        let clause = clause_at(p, start);
        let cov = b.entity(&clause_name(clause), "Covenant", &truncate(clause, 200));
        let evidence = truncate(clause, EVIDENCE_CHARS);
        let act = b.entity("Assignment", "Act", "");
        b.relate(&cov, "RESTRICTS", &act, &evidence);
        if let Some(party) = c.get(1).map(|m| singular_role(&normalize_ws(m.as_str()))) {
            if b.bindable(&party) {
                let pt = party_entity(b, &party);
                b.relate(&cov, "RESTRICTS", &pt, &evidence);
            }
        }
        clause_links(b, &cov, clause, own);
        let verb_end = c.get(0).unwrap().end() - start;
        qualify(b, &cov, p, clause, verb_end.min(clause.len()), true);
    }
}

/// `Agent -AGENT_FOR-> Lender` where the lenders appoint the agent.
pub(in crate::extract::rules) fn appointments(b: &mut Builder, p: &str) {
    // A verb every match holds.
    if !holds_any(p, &["appoints", "designates"]) {
        return;
    }
    for c in APPOINTS.captures_iter(p) {
        let principal = normalize_ws(&c[1]);
        let agent = normalize_ws(&c[2]);
        if !is_role(&principal) || !is_role(&agent) {
            continue;
        }
        let a = b.entity(&singular_role(&agent), "Role", "");
        let l = b.entity(&singular_role(&principal), "Role", "");
        let whole = c.get(0).unwrap();
        let evidence = truncate(
            whole.as_str(),
            EVIDENCE_CHARS.max(whole.as_str().chars().count()),
        );
        b.relate(&a, "AGENT_FOR", &l, &evidence);
    }
}

/// `This Agreement may be terminated at any time ...`: what follows lists
/// who may end it.
static TERMINABLE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"(?i)\bmay\s+be\s+terminated\b").unwrap());

/// A clause of a termination list naming who may end the agreement: `(b)
/// by either Parent or the Company, if ...`, `(c) by Licensor upon ...`.
static BY_PARTY: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?:^|\s)\((?:[a-z]|[ivx]{1,4}|\d{1,2})\)\s+by\s+(?:either\s+)?(?:the\s+)?((?:[A-Z][A-Za-z\-]*\s+){0,2}[A-Z][A-Za-z\-]*)(?:\s+or\s+(?:by\s+)?(?:the\s+)?((?:[A-Z][A-Za-z\-]*\s+){0,2}[A-Z][A-Za-z\-]*))?")
        .unwrap()
});

/// Termination rights written in the passive (`This Agreement may be
/// terminated ...: (b) by either Parent or the Company, if ...`): each
/// party named after `by` in a clause of the list holds the right that
/// clause states (`HOLDS_RIGHT`, and `TERMINATES` when the ontology has it).
/// `in_list` says a previous paragraph opened the list; returns whether
/// the list goes on after `p`.
pub(in crate::extract::rules) fn termination_list(
    b: &mut Builder,
    p: &str,
    in_list: bool,
    own: &OwnSection,
) -> bool {
    let opens = TERMINABLE.find(p);
    let from = match (opens, in_list) {
        (Some(m), _) => m.end(),
        (None, true) if LIST_CLAUSE.is_match(p) => 0,
        _ => return false,
    };
    for c in BY_PARTY.captures_iter(&p[from..]) {
        let at = from + c.get(0).unwrap().start();
        let at = at + p[at..].find('(').unwrap_or(0);
        let clause = clause_at(p, at);
        // The clause says who and when, the list's opening what.
        let name = clause_name(&format!("Termination right {clause}"));
        let evidence = truncate(clause, EVIDENCE_CHARS);
        for g in [c.get(1), c.get(2)].into_iter().flatten() {
            let party = normalize_ws(g.as_str());
            if party.eq_ignore_ascii_case("mutual") || party.split_whitespace().count() > 3 {
                continue;
            }
            let pt = party_entity(b, &singular_role(&party));
            let r = b.entity(&name, "Right", &truncate(clause, 200));
            b.relate(&pt, "HOLDS_RIGHT", &r, &evidence);
            if let Some(t) = b.offered("TERMINATES") {
                b.relate(&pt, t, &r, &evidence);
            }
            clause_links(b, &r, clause, own);
            let by_end = (from + c.get(0).unwrap().end()).saturating_sub(at);
            qualify(b, &r, p, clause, by_end, false);
        }
    }
    p.trim_end().ends_with(':') || (in_list && LIST_CLAUSE.is_match(p)) || opens.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::rules::test_support::{has, input, of_type, onto};
    use crate::extract::rules::{extract, extract_for};
    use crate::index::Ontology;

    /// In a contract of two parties, `the other Party` of a duty is the
    /// party that does not hold it; with three parties nobody can tell.
    #[test]
    fn a_duty_to_the_other_party_is_owed_to_the_party_that_does_not_hold_it() {
        use crate::extract::party_registry::{PartyRegistry, RegisteredParty};
        let party = |name: &str, defined: &str| RegisteredParty {
            name: name.into(),
            kind: "Organization".into(),
            names: vec![defined.into()],
            ..Default::default()
        };
        let text = "7.2 Notices. Licensee shall promptly notify the other Party of any claim of \
                    infringement of the Licensed Patents.";
        let mut i = input("7.2 Notices", text);
        i.registry = PartyRegistry {
            parties: vec![
                party("Acme Corp.", "Licensor"),
                party("Beta Inc.", "Licensee"),
            ],
        };
        let ontology = onto(&["OBLIGATED_TO", "OWED_TO"]);
        let owed = |o: &crate::extract::rules::RulesOutput| -> Vec<String> {
            of_type(o, "OWED_TO")
                .into_iter()
                .map(|(_, t)| t.to_string())
                .collect()
        };
        assert_eq!(owed(&extract_for(&i, &ontology)), ["Licensor"]);
        i.registry.parties.push(party("Gamma LLC", "Agent"));
        assert!(owed(&extract_for(&i, &ontology)).is_empty());
        // A duty each Party holds is owed by each to the other.
        let each = input(
            "7.3 Notices",
            "7.3 Notices. Each Party shall promptly notify the other Party of any claim.",
        );
        assert_eq!(owed(&extract_for(&each, &ontology)), ["Party"]);
    }

    /// The party after a recipient word is the one a duty is owed to,
    /// named by role without any registry (a credit agreement, a lease):
    /// `pay to the Administrative Agent`, `pay Landlord`, `furnish to the
    /// Administrative Agent and each Lender`, `notify each Bank`; never a
    /// possessive, the holder itself or a name that is no party.
    #[test]
    fn the_party_after_a_recipient_word_is_owed_the_duty() {
        let ontology = onto(&["OBLIGATED_TO", "OWED_TO"]);
        let owed = |text: &str| -> Vec<String> {
            let mut to: Vec<String> =
                of_type(&extract_for(&input("2.1 Fees", text), &ontology), "OWED_TO")
                    .into_iter()
                    .map(|(_, t)| t.to_string())
                    .collect();
            to.sort();
            to
        };
        assert_eq!(
            owed("The Borrower agrees to pay to the Administrative Agent, for its own account, fees payable in the amounts agreed."),
            ["Administrative Agent"]
        );
        assert_eq!(
            owed("If any check is not honored, Tenant shall pay Landlord a fee of $75.00 for each such check."),
            ["Landlord"]
        );
        assert_eq!(
            owed("The Borrower will furnish to the Administrative Agent and each Lender written notice of any Default."),
            ["Administrative Agent", "Lender"]
        );
        assert_eq!(
            owed("Upon receipt of a notice, the Agent shall promptly notify each Bank of the contents thereof."),
            ["Bank"]
        );
        assert!(
            owed("Tenant shall complete the work to Landlord's reasonable satisfaction within thirty days.").is_empty()
        );
        assert!(
            owed("The Borrower shall pay to the Borrower's account all sums collected.").is_empty()
        );
        assert!(owed("Tenant shall deliver the plans prior to the Commencement Date.").is_empty());
        // A condition binds no one: only Tenant's duty is read.
        let cond = extract_for(
            &input(
                "2.2 Plans",
                "If Landlord shall advise Tenant of any objections to the Plans, then Tenant shall promptly revise the Plans.",
            ),
            &ontology,
        );
        let holders: Vec<&str> = of_type(&cond, "OBLIGATED_TO")
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        assert_eq!(holders, ["Tenant"]);
    }

    /// [`conditional`] as it was, lower-casing everything before the match.
    fn conditional_by_lowercase(p: &str, at: usize) -> bool {
        let before = p[..at].trim_end().to_ascii_lowercase();
        let before = before
            .strip_suffix(" the")
            .or_else(|| before.strip_suffix(" each"))
            .or_else(|| before.strip_suffix(" any"))
            .or_else(|| before.strip_suffix(" such"))
            .unwrap_or(&before)
            .trim_end_matches(',');
        CONDITION_WORDS.iter().any(|w| {
            before.strip_suffix(w.trim_start()).is_some_and(|head| {
                !head
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric())
            })
        })
    }

    /// At every character of clauses with conditions in all cases, the
    /// in-place comparison says what lower-casing the prefix said.
    #[test]
    fn conditional_reads_the_words_before_as_lowercasing_did() {
        let text = "IF the Borrower shall fail, Unless THE Agent shall notify; \
            Provided, However, That each Lender may; PROVIDED THAT Such Lender will, \
            in the Event That the Lessee shall, Ünless the Tenant shall; thé Agent, \
            whereas the Agent shall, As the Agent may,,, SO LONG AS any Party shall \
            Zuntil the Buyer will, To The Extent that the Seller shall, IN CASE the Bank";
        let mut checked = 0;
        for (at, _) in text.char_indices() {
            assert_eq!(
                conditional(text, at),
                conditional_by_lowercase(text, at),
                "{:?}",
                &text[..at]
            );
            checked += usize::from(conditional(text, at));
        }
        assert!(checked >= 10, "only {checked} conditional positions");
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

    #[test]
    fn guarantees_liens_and_appointments_need_their_words() {
        let o = extract(&input(
            "Section 10.01 Guarantee",
            "The Company hereby absolutely and irrevocably and unconditionally guarantees, as a primary \
             obligor and not merely as a surety, the payment when and as due of the Obligations.\n\n\
             The Borrower hereby grants to the Agent a security interest in all of its right, title and \
             interest in the Collateral Account.\n\n\
             Each Lender irrevocably appoints and authorizes the Administrative Agent to take such action.\n\n\
             The Agent shall have the same rights as any other Lender.",
        ));
        assert!(
            has(&o, "Company", "GUARANTEES", "Obligations"),
            "{:#?}",
            o.relations
        );
        assert!(has(&o, "Borrower", "GRANTS_LIEN_ON", "Collateral Account"));
        assert!(has(&o, "Administrative Agent", "AGENT_FOR", "Lender"));
        // Every quote holds its trigger word.
        for (t, w) in [
            ("GUARANTEES", "guarantees"),
            ("GRANTS_LIEN_ON", "security interest"),
            ("AGENT_FOR", "appoints"),
        ] {
            let r = o.relations.iter().find(|r| r.relation_type == t).unwrap();
            assert!(r.evidence.contains(w), "{r:?}");
        }
        // `the same rights as any other Lender` binds nobody.
        assert!(!o
            .relations
            .iter()
            .any(|r| r.relation_type == "OBLIGATED_TO"));
    }

    #[test]
    fn duties_rights_and_conditions_of_any_party() {
        let mut onto = Ontology::default();
        for t in ["OBLIGATED_TO", "HOLDS_RIGHT", "RESTRICTS", "TERMINATES"] {
            onto.relation_types.insert(t.into(), String::new());
        }
        let o = extract_for(
            &input(
                "Section 4 Rent",
                "Tenant shall pay the Fixed Base Rent monthly in advance. Tenant shall pay the Fixed Base Rent \
                 to Landlord's lockbox. Contractor will purchase the Components from the Supplier. Licensee may \
                 terminate this Agreement upon thirty days' notice. Landlord shall have the right to inspect the \
                 Premises. Licensee may not assign this Agreement. If the Agent shall notify the Borrower, the \
                 Borrower shall repay the Loans.",
            ),
            &onto,
        );
        let targets = |s: &str, t: &str| -> Vec<String> {
            o.relations
                .iter()
                .filter(|r| r.source == s && r.relation_type == t)
                .map(|r| r.target.clone())
                .collect()
        };
        // Two duties that begin alike are two nodes.
        assert_eq!(
            targets("Tenant", "OBLIGATED_TO").len(),
            2,
            "{:#?}",
            o.relations
        );
        assert_eq!(targets("Contractor", "OBLIGATED_TO").len(), 1);
        assert_eq!(targets("Licensee", "HOLDS_RIGHT").len(), 1);
        assert_eq!(targets("Licensee", "TERMINATES").len(), 1);
        assert_eq!(targets("Landlord", "HOLDS_RIGHT").len(), 1);
        assert!(o
            .relations
            .iter()
            .any(|r| r.relation_type == "RESTRICTS" && r.target == "Licensee"));
        // A condition binds no one; the duty it conditions does.
        assert!(
            targets("Agent", "OBLIGATED_TO").is_empty(),
            "{:#?}",
            o.relations
        );
        assert_eq!(targets("Borrower", "OBLIGATED_TO").len(), 1);
    }

    #[test]
    fn a_termination_list_gives_each_named_party_its_right() {
        let mut onto = Ontology::default();
        for t in ["HOLDS_RIGHT", "TERMINATES"] {
            onto.relation_types.insert(t.into(), String::new());
        }
        let mut i = input(
            "Section 10.01 Termination",
            "Section 10.01 Termination. This Agreement may be terminated at any time prior to the Closing:\n\
             (a) by mutual written agreement of the Company and Parent; or\n\
             (b) by either the Company or Parent, if:\n\
             (i) the Merger has not been consummated on or before the End Date; or\n\
             (ii) there shall be in effect any Order enjoining the Merger;\n\
             (c) by Parent, if an Adverse Recommendation Change shall have occurred;\n\
             (d) by the Company, if the Board has determined to accept a Superior Proposal.\n\n\
             The Company shall pay the Termination Fee by wire transfer.",
        );
        i.doc_type = "m_and_a".into();
        let o = extract_for(&i, &onto);
        let rights = |s: &str| -> Vec<String> {
            o.relations
                .iter()
                .filter(|r| r.source == s && r.relation_type == "TERMINATES")
                .map(|r| r.target.clone())
                .collect()
        };
        assert_eq!(rights("Parent").len(), 2, "{:#?}", o.relations);
        assert_eq!(rights("Company").len(), 2, "{:#?}", o.relations);
        assert!(rights("Company")
            .iter()
            .any(|r| r.contains("Superior Proposal")));
        // Mutual consent is no party's right.
        assert!(!o.relations.iter().any(|r| r.target.contains("mutual")));
    }

    #[test]
    fn party_short_names_bind_duties_and_payments() {
        let text = "8.1 Upfront Payment. As consideration for the supply described in Article 4, \
                    Bellicum will pay to Miltenyi a non-refundable upfront fee of EUR 2,000,000 \
                    (the \"Upfront Fee\"). Miltenyi may invoice the Upfront Fee in two installments.";
        let mut i = input("8.1 Upfront Payment", text);
        i.doc_type = "commercial".into();
        let ontology = onto(&["PAYS", "OBLIGATED_TO", "HOLDS_RIGHT", "REFERENCES"]);
        // Without the document's parties, `Bellicum` is just a capitalised word.
        let bare = extract_for(&i, &ontology);
        assert!(
            of_type(&bare, "OBLIGATED_TO").is_empty(),
            "{:#?}",
            bare.relations
        );
        i.parties = vec!["Miltenyi".into(), "Bellicum".into()];
        let o = extract_for(&i, &ontology);
        let pays = of_type(&o, "PAYS");
        assert_eq!(pays.len(), 1, "{:#?}", o.relations);
        assert_eq!(pays[0].0, "Bellicum");
        assert!(pays[0]
            .1
            .starts_with("non-refundable upfront fee of EUR 2,000,000"));
        assert!(of_type(&o, "OBLIGATED_TO")
            .iter()
            .any(|(s, t)| *s == "Bellicum" && t.contains("will pay to Miltenyi")));
        assert!(of_type(&o, "HOLDS_RIGHT")
            .iter()
            .any(|(s, t)| *s == "Miltenyi" && t.contains("invoice")));
        // The reference before the duty's clause stays the section's own.
        assert!(
            has(&o, "Section 8.1", "REFERENCES", "Article 4"),
            "{:#?}",
            o.relations
        );
        // Without PAYS in the ontology, the duty stays and no payment is made up.
        let no_pays = extract_for(&i, &onto(&["OBLIGATED_TO"]));
        assert!(of_type(&no_pays, "PAYS").is_empty());
    }

    #[test]
    fn bare_subjects_after_a_comma_and_asides_around_the_modal() {
        let i = input(
            "5. Delinquent Payment",
            "5. Delinquent Payment. Rent is delinquent after the fifth day; additionally, \
             Landlord, in addition to all other rights and remedies available to it, may charge \
             Tenant a fee equal to $50.00. If any check is not honored, Tenant shall, in addition \
             to any other remedies available to Landlord, pay Landlord a \"NSF\" fee of $75.00, \
             and Landlord may require that all future payments be made by cash.",
        );
        let o = extract(&i);
        let rights = of_type(&o, "HOLDS_RIGHT");
        assert!(rights
            .iter()
            .any(|(s, t)| *s == "Landlord" && t.contains("may charge Tenant")));
        assert!(rights
            .iter()
            .any(|(s, t)| *s == "Landlord" && t.contains("may require")));
        assert!(of_type(&o, "OBLIGATED_TO")
            .iter()
            .any(|(s, t)| *s == "Tenant" && t.contains("NSF")));
    }

    #[test]
    fn what_reads_as_a_duty_but_binds_no_one() {
        let mut i = input(
            "2.5 Restrictions",
            "WHEREAS, the Parties desire that Vyera will Commercialize Licensed Products.\n\n\
             2.5 Restrictions. Vyera shall not Commercialize any Licensed Product outside the \
             Territory. CytoDyn shall not, and shall cause its Affiliates not to, grant rights \
             that conflict with this Agreement. Airspan shall not suffer any liability for late \
             performance. Bellicum shall only be invoiced for quantities delivered. (d)If any \
             Lender shall subsequently recoup any costs, it shall refund them. The Servicing \
             Agent shall, by 1:00 p.m. ET on TD+1, remit funds to the custodian.",
        );
        i.parties = vec![
            "Vyera".into(),
            "CytoDyn".into(),
            "Airspan".into(),
            "Bellicum".into(),
        ];
        let o = extract(&i);
        let restricts = of_type(&o, "RESTRICTS");
        let duties = of_type(&o, "OBLIGATED_TO");
        // `shall not Commercialize` and `shall not, and shall cause ... not to,
        // grant` restrict; neither is a duty.
        assert!(restricts
            .iter()
            .any(|(c, p)| *p == "Vyera" && c.contains("Commercialize")));
        assert!(restricts
            .iter()
            .any(|(c, p)| *p == "CytoDyn" && c.contains("grant rights")));
        assert!(
            !duties.iter().any(|(s, _)| *s == "Vyera" || *s == "CytoDyn"),
            "{duties:#?}"
        );
        // A recital, a relief from liability, a protection and a condition
        // bind no one.
        assert!(
            !restricts.iter().any(|(_, p)| *p == "Airspan"),
            "{restricts:#?}"
        );
        assert!(
            !duties
                .iter()
                .any(|(s, _)| *s == "Bellicum" || *s == "Lender"),
            "{duties:#?}"
        );
        // `p.m.` ends no sentence: the duty keeps its act.
        assert!(duties
            .iter()
            .any(|(s, t)| *s == "Servicing Agent" && t.contains("remit funds")));
    }

    #[test]
    fn a_list_opened_by_a_later_sentence_is_no_earlier_duty_s() {
        let mut i = input(
            "5.6 Minimum Purchases",
            "5.6 Minimum Purchases. Miltenyi shall provide written notice to Bellicum of such \
             shortfall. If Bellicum fails to cure it, then Miltenyi shall have no obligation to \
             Bellicum under this Agreement:\n\n\
             (1) to provide Regulatory Work in accordance with Section 4.3.",
        );
        i.parties = vec!["Miltenyi".into(), "Bellicum".into()];
        let o = extract(&i);
        assert!(
            !o.relations.iter().any(
                |r| r.source.starts_with("Miltenyi shall provide") && r.target == "Section 4.3"
            ),
            "{:#?}",
            o.relations
        );
        assert!(
            has(&o, "Section 5.6", "REFERENCES", "Section 4.3"),
            "{:#?}",
            o.relations
        );
    }

    /// A duty whose clause ends before the verb the pattern reached (`IAC
    /// will, [*].`, a redaction in a CUAD manufacturing agreement) is read
    /// without running past the clause: no panic, the paragraph's other
    /// duties still found.
    #[test]
    fn a_clause_that_ends_before_its_verb_is_read_safely() {
        let mut i = input(
            "10.2. Product Warranty by IAC",
            "10.2. Product Warranty by IAC. For any Product Unit which is agreed between the Parties (such agreement to be made fairly and reasonably) to be non conforming to the above product warranty, IAC will, [*]. The warranty granted in this Section 10.2 will not apply to Product Units that have been misused. If Sonos requests an extension of the Warranty Period, the parties will negotiate in good faith to determine an appropriate charge.",
        );
        i.parties = vec!["IAC".into(), "Sonos".into()];
        let o = extract(&i);
        assert!(
            o.relations
                .iter()
                .any(|r| r.relation_type == "OBLIGATED_TO"),
            "{:?}",
            o.relations
        );
    }
}
