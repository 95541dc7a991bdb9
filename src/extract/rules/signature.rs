//! Signature blocks and labelled party lines: the organisations that sign
//! the agreement are its parties, wherever the parties clause left them
//! out (a joint filing agreement names its parties only where they sign).
//!
//! - `PHOTRONICS, INC. By: /s/ ... Name: ... Title: ...`: the organisation
//!   right above a signature field signs; it takes the role written before
//!   it (`LICENSOR: X`, `DISTRIBUTOR X LTD.`), else `Signatory`.
//! - `By: Apollo Life Asset GP, LLC, its general partner`: the organisation
//!   signing for another takes the capacity it signs in.
//! - `Party B: Xinyu Xinwei New Energy Co., Ltd.`: the label is the party's
//!   defined name.

use super::builder::Builder;
use super::parties::{is_role, orgs, singular_role, OrgMatch};
use super::text::{normalize_ws, titled, truncate, SIGNATURE_FIELD};
use super::EVIDENCE_CHARS;
use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::HashSet;

/// A signature field right after a name (`By:`, `/s/`, `Per:`), after an
/// optional `(seal)`.
static SIGNED_AFTER: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"^\s*[,.:]?\s*(?:\(\s*(?i:seal)\s*\)\s*)?(?:By\b|BY\b|/s/|/S/|Per\s*:|Signed\b|Signature\b)",
    )
    .unwrap()
});

/// `, its general partner` after a name that follows `By:`.
static CAPACITY: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i)^,?\s+(?:as\s+)?its\s+((?:sole\s+|managing\s+)?(?:general\s+partner|member|manager|investment\s+(?:adviser|advisor|manager)|attorney-in-fact|trustee|agent))\b")
        .unwrap()
});

/// A label right before a name: `LICENSOR:`, `Party B:`, `SPONSOR(S):`.
static LABEL: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?:^|[\s\]\)])((?:[A-Z][A-Za-z]+\s+)?[A-Z][A-Za-z]+(?:\(S\)|\(s\))?|Party\s+[A-Z0-9])\s*:\s*$")
        .unwrap()
});

/// `Party A`, `Party B`: the name a contract gives a party by its place.
static PARTY_LETTER: Lazy<Regex> = Lazy::new(|| Regex::new(r"^Party\s+[A-Z0-9]$").unwrap());

/// A paragraph that is a signature field (`By: ...`, `Name: ...`, `/s/ ...`).
fn field(p: &str) -> bool {
    SIGNATURE_FIELD.is_match(p) || p.starts_with("/s/") || p.starts_with("/S/")
}

/// Signatories and labelled parties of a section's paragraphs.
pub(super) fn signatories(b: &mut Builder, paragraphs: &[String], set: &HashSet<String>) {
    for (i, p) in paragraphs.iter().enumerate() {
        let next_is_field = paragraphs.get(i + 1).is_some_and(|n| field(n));
        let found = orgs(p, set);
        // Which names sign: a field right after, or (written side by side,
        // `WOMEN.COM NETWORKS, INC. EDIETS.COM, INC. By: ...`) a signing
        // name right after.
        let mut signs = vec![false; found.len()];
        for k in (0..found.len()).rev() {
            let o = &found[k];
            let after = &p[o.end..];
            let ends_paragraph = only_seals(after);
            let next_signs = found
                .get(k + 1)
                .is_some_and(|n| signs[k + 1] && p[o.end..n.start].trim().is_empty());
            signs[k] =
                SIGNED_AFTER.is_match(after) || (next_is_field && ends_paragraph) || next_signs;
        }
        for (k, o) in found.iter().enumerate() {
            let before = &p[..o.start];
            let label = LABEL.captures(before).map(|c| normalize_ws(&c[1]));
            let label_at = label
                .as_ref()
                .and_then(|l| before.rfind(l.as_str()))
                .unwrap_or(o.start);
            // `Party B: X`: the contract's name for the party.
            if let Some(l) = label.as_deref().filter(|l| PARTY_LETTER.is_match(l)) {
                let org = b.org(o);
                let d = b.entity(l, "DefinedTerm", "");
                b.relate(&d, "DEFINED_AS", &org, &evidence(p, o, label_at));
            }
            // `By: X, its general partner`.
            let by_before = before.trim_end().trim_end_matches(':').trim_end();
            if by_before.ends_with("By") || by_before.ends_with("BY") {
                if let Some(c) = CAPACITY.captures(&p[o.end..]) {
                    let org = b.org(o);
                    let r = b.entity(&titled(&normalize_ws(&c[1])), "Role", "");
                    let end = o.end + c.get(0).unwrap().end();
                    let quote = truncate(&p[o.start..end], EVIDENCE_CHARS.max(end - o.start));
                    b.relate(&org, "HAS_ROLE", &r, &quote);
                    continue;
                }
            }
            // A labelled party line (`PURCHASER: X`) or a signature.
            let labelled_role = label
                .as_deref()
                .map(|l| titled(l.trim_end_matches("(S)").trim_end_matches("(s)")))
                .filter(|l| is_role(l));
            if !signs[k] && labelled_role.is_none() {
                continue;
            }
            let role = labelled_role
                .or_else(|| o.lead_role.as_deref().map(titled).filter(|l| is_role(l)))
                .map(|l| singular_role(&l))
                .unwrap_or_else(|| "Signatory".to_string());
            let org = b.org(o);
            let r = b.entity(&role, "Role", "");
            b.relate(&org, "HAS_ROLE", &r, &evidence(p, o, label_at));
        }
    }
}

/// True when `text` holds no letter or digit outside `(seal)` marks (any
/// case): nothing follows the name but a seal. Stops at the first other
/// letter, so a name early in a long paragraph costs its neighbourhood,
/// not the rest of the paragraph (lower-casing that rest for every name
/// made a megabyte line quadratic).
fn only_seals(text: &str) -> bool {
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if rest
            .as_bytes()
            .get(..6)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"(seal)"))
        {
            rest = &rest[6..];
            continue;
        }
        if c.is_alphanumeric() {
            return false;
        }
        rest = &rest[c.len_utf8()..];
    }
    true
}

/// The quote of a party line: from `from` (its label) through the name
/// and the signature field after it.
fn evidence(p: &str, o: &OrgMatch, from: usize) -> String {
    let mut end = (o.end + 30).min(p.len());
    while !p.is_char_boundary(end) {
        end += 1;
    }
    let from = from.min(o.start);
    truncate(&p[from..end], EVIDENCE_CHARS.max(o.end - from + 10))
}

#[cfg(test)]
mod seal_tests {
    /// At every offset of texts with seals, names and other letters,
    /// [`super::only_seals`] says what lower-casing the rest and removing
    /// its `(seal)` marks said.
    #[test]
    fn only_seals_reads_as_removing_the_seals_did() {
        let by_copy = |t: &str| {
            !t.to_ascii_lowercase()
                .replace("(seal)", "")
                .chars()
                .any(char::is_alphanumeric)
        };
        let texts = [
            " (SEAL) ",
            ", (Seal).  (seal)",
            " (seal)(seal) x",
            " ((seal)) é",
            "(sea l)",
            " — .,;",
            "(SEAL)\n\nBy: /s/",
            "",
        ];
        let mut ends = 0;
        for t in texts {
            for (at, _) in t.char_indices().chain(std::iter::once((t.len(), ' '))) {
                assert_eq!(
                    super::only_seals(&t[at..]),
                    by_copy(&t[at..]),
                    "{:?}",
                    &t[at..]
                );
                ends += usize::from(by_copy(&t[at..]));
            }
        }
        assert!(ends > 10);
    }
}
