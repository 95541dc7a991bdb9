//! Organisations, parties and roles: `X, as Administrative Agent`,
//! `X, a Missouri corporation (the "Company")`, subsidiaries.

use crate::extract::rules::common::builder::Builder;
use crate::extract::rules::common::orgs::*;
use crate::extract::rules::common::roles::*;
use crate::extract::rules::common::terms::*;
use crate::extract::rules::common::text::EVIDENCE_CHARS;
use crate::extract::rules::common::text::*;
use crate::extract::rules::common::values::AMOUNT;
use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::HashSet;

/// `, as Administrative Agent` right after a party's name, also after the
/// branch acting (`ICICI BANK LIMITED, NEW YORK BRANCH, as a Lender`).
pub(in crate::extract::rules) static AS_ROLE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:,\s+(?:[A-Z][A-Za-z.\-]*\s+){0,4}(?:Branch|BRANCH))?,?\s+(?:in\s+its\s+capacity\s+)?as\s+(?:the\s+|an?\s+)?([A-Z][A-Za-z\-]*(?:\s+(?:and\s+)?[A-Z][A-Za-z\-]*)*)")
        .unwrap()
});

/// `, a Missouri corporation (the "Company")` right after a party's name.
pub(in crate::extract::rules) static AFTER_PARTY: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r#"^(?:,\s*(?:a|an)\s+(?P<desc>[^,()"]{0,60}?))?\s*\((?P<pre>[^()"]{0,40})"(?P<term>[^"]{1,60})"\s*\)"#)
        .unwrap()
});

pub(in crate::extract::rules) static JURISDICTION: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\s+(?:corporation|limited liability company|banking|national banking|limited partnership|company|statutory trust)")
        .unwrap()
});

/// `, a wholly-owned subsidiary of ` right after an organisation's name.
pub(in crate::extract::rules) static SUBSIDIARY_OF_ORG: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^,?\s+(?:a|an)\s+(?:(?:wholly[- ]owned|direct|indirect|direct\s+or\s+indirect)\s+)?subsidiary\s+of\s+")
        .unwrap()
});

/// `the Company's Significant Subsidiaries`, `each of the Borrower's Subsidiaries`.
pub(in crate::extract::rules) static POSSESSIVE_SUBSIDIARIES: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"\b([A-Z][A-Za-z\-]+)'s\s+(?:[a-z]+\s+){0,2}((?:[A-Z][a-z]+\s+)?Subsidiar(?:y|ies))\b",
    )
    .unwrap()
});

/// Parties and roles: `X, as Administrative Agent`, `X, a Missouri
/// corporation (the "Company")`, and in a credit agreement's preamble the
/// first party named without a role is the Borrower.
pub(in crate::extract::rules) fn parties(
    b: &mut Builder,
    p: &str,
    credit: bool,
    set: &HashSet<String>,
) {
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
        let o = b.org(org);
        let has_role = roles_after(b, p, org, &o, &found, &mut agents);
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
    // `X, as Administrative Agent for the Lenders`: only where the text
    // says whom the agent acts for.
    agents_for_whom(b, p, &found, &agents);
}

/// What follows an organisation's name in `p`: its roles (`, as
/// Administrative Agent`; an agent's name is kept in `agents`), its parent
/// (`, a wholly-owned subsidiary of X`) and the term it is defined as (`, a
/// Missouri corporation (the "Company")`, with its jurisdiction). True
/// when it was given a role.
fn roles_after(
    b: &mut Builder,
    p: &str,
    org: &OrgMatch,
    o: &str,
    found: &[OrgMatch],
    agents: &mut Vec<String>,
) -> bool {
    let after = &p[org.end..];
    let mut has_role = false;
    if let Some(c) = AS_ROLE.captures(after) {
        for role in c[1]
            .split(" and ")
            .map(without_signature_words)
            .filter(|r| !r.is_empty() && r.chars().next().is_some_and(char::is_uppercase))
        {
            let role = singular_role(&role);
            let r = b.entity(&role, "Role", "");
            b.relate(
                o,
                "HAS_ROLE",
                &r,
                &truncate(
                    &format!("{}{}", org.raw, &after[..c.get(0).unwrap().end()]),
                    EVIDENCE_CHARS,
                ),
            );
            if role.to_ascii_lowercase().contains("agent") {
                agents.push(o.to_string());
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
            let pn = b.org(parent);
            b.relate(
                o,
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
            b.relate(&d, "DEFINED_AS", o, &evidence);
            if is_role(&term) {
                let r = b.entity(&singular_role(&term), "Role", "");
                b.relate(o, "HAS_ROLE", &r, &evidence);
                has_role = true;
                if term.to_ascii_lowercase().contains("agent") {
                    agents.push(o.to_string());
                }
            }
        }
        if let Some(desc) = c.name("desc") {
            if let Some(j) = JURISDICTION.captures(desc.as_str()) {
                b.entity(&j[1], "Jurisdiction", &format!("jurisdiction of {o}"));
            }
        }
    }
    has_role
}

/// `X, as Administrative Agent for the Lenders`: only where the text says
/// whom the agent acts for, and X was named an agent.
fn agents_for_whom(b: &mut Builder, p: &str, found: &[OrgMatch], agents: &[String]) {
    for c in AGENT_FOR_WHOM.captures_iter(p) {
        let whom = singular_role(&titled(&c[2]));
        let Some(agent) = found
            .iter()
            .rev()
            .find(|o| o.end <= c.get(0).unwrap().start() && c.get(0).unwrap().start() - o.end < 8)
        else {
            continue;
        };
        let a = b.org(agent);
        if !agents.contains(&a) {
            continue;
        }
        let l = b.entity(&whom, "Role", "");
        let evidence = format!("{}{}", agent.raw, &p[agent.end..c.get(0).unwrap().end()]);
        b.relate(
            &a,
            "AGENT_FOR",
            &l,
            &truncate(&evidence, EVIDENCE_CHARS.max(evidence.len())),
        );
    }
}

/// `, as Administrative Agent for the Lenders` (the agent's name just before).
static AGENT_FOR_WHOM: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i),?\s+as\s+(?:the\s+)?((?:[a-z\-]+\s+){0,3}agent)\s+(?:for|on\s+behalf\s+of)\s+(?:itself\s+and\s+)?(?:the\s+)?(lenders|banks|secured\s+parties|holders)\b")
        .unwrap()
});

/// A role as written, without the signature-block field that can follow it
/// on the same line (`as a Lender By:`).
fn without_signature_words(role: &str) -> String {
    let mut words: Vec<&str> = role.split_whitespace().collect();
    while words
        .last()
        .is_some_and(|w| ["By", "Name", "Title", "Its"].contains(w))
    {
        words.pop();
    }
    words.join(" ")
}

/// `LENDERS` -> `Lenders`, `secured parties` -> `Secured Parties`.
fn titled(s: &str) -> String {
    s.split_whitespace()
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|f| {
                    f.to_uppercase()
                        .chain(cs.flat_map(char::to_lowercase))
                        .collect::<String>()
                })
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `the Company's Significant Subsidiaries` -> `Significant Subsidiary
/// -SUBSIDIARY_OF-> Company`.
pub(in crate::extract::rules) fn subsidiaries(b: &mut Builder, p: &str) {
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

/// A commitment table (`Lender | Commitment | JPMorgan Chase Bank, N.A. |
/// $ 350,000,000 | ...`): each row's lender holds the amount beside it, as
/// `Lender -OBLIGATED_TO-> Commitment of Lender` and `Amount -AMOUNT_OF->
/// Commitment of Lender`. Only in a table that says it lists commitments.
pub(in crate::extract::rules) fn commitment_rows(b: &mut Builder, p: &str, set: &HashSet<String>) {
    if !p.contains(" |") || !p.to_ascii_lowercase().contains("commitment") {
        return;
    }
    let cells: Vec<&str> = p.split(" |").map(str::trim).collect();
    for pair in cells.windows(2) {
        let (name, value) = (pair[0], pair[1]);
        let Some(amount) = AMOUNT.find(value).filter(|m| m.start() == 0) else {
            continue;
        };
        let found = orgs(name, set);
        let Some(org) = found
            .iter()
            .find(|o| o.start == 0 && o.end + 1 >= name.len())
        else {
            continue;
        };
        let o = b.org(org);
        let commitment = b.entity(&format!("Commitment of {o}"), "Obligation", "");
        let a = b.entity(&normalize_ws(amount.as_str()), "Amount", "");
        let evidence = format!("{name} | {}", amount.as_str());
        b.relate(&o, "OBLIGATED_TO", &commitment, &evidence);
        if let Some(r) = b.offered("AMOUNT_OF") {
            b.relate(&a, r, &commitment, &evidence);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::rules::extract;
    use crate::extract::rules::test_support::{has, input};

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
            !o.relations.iter().any(|r| r.relation_type == "AGENT_FOR"),
            "`as Agent.` says not for whom: {:#?}",
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
        // The text does not say whom the agent acts for: no AGENT_FOR.
        assert!(!o.relations.iter().any(|r| r.relation_type == "AGENT_FOR"));
        let with_whom = extract(&input(
            "Preamble",
            "AGREEMENT among AT&T CAPITAL CORPORATION (the \"Borrower\"), the BANKS party hereto and \
             MORGAN GUARANTY TRUST COMPANY OF NEW YORK, as Administrative Agent for the Banks.",
        ));
        assert!(
            has(
                &with_whom,
                "Morgan Guaranty Trust Company of New York",
                "AGENT_FOR",
                "Bank"
            ),
            "{:#?}",
            with_whom.relations
        );
        assert!(o
            .entities
            .iter()
            .any(|e| e.entity_type == "Jurisdiction" && e.name == "Delaware"));
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
}
