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

use crate::extract::rules::common::builder::Builder;
use crate::extract::rules::common::orgs::{orgs, OrgMatch};
use crate::extract::rules::common::roles::{is_role, singular_role};
use crate::extract::rules::common::text::EVIDENCE_CHARS;
use crate::extract::rules::common::text::{normalize_ws, titled, truncate, SIGNATURE_FIELD};
pub(in crate::extract::rules) use crate::tree::paragraphs::unfold_columns;
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

/// True when the text before a would-be label ends with a lower-case word:
/// `Competitors of the Buyer: Conveyex Ltd.` names something of the
/// Buyer's in a sentence; a label (`BUYER: Acme`) starts its line or
/// follows a name, a mark or a gap.
fn after_a_lower_case_word(before: &str) -> bool {
    before
        .split_whitespace()
        .next_back()
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_lowercase()))
}

/// `Party A`, `Party B`: the name a contract gives a party by its place.
static PARTY_LETTER: Lazy<Regex> = Lazy::new(|| Regex::new(r"^Party\s+[A-Z0-9]$").unwrap());

/// A paragraph that is a signature field (`By: ...`, `Name: ...`, `/s/ ...`).
fn field(p: &str) -> bool {
    SIGNATURE_FIELD.is_match(p) || p.starts_with("/s/") || p.starts_with("/S/")
}

/// Signatories and labelled parties of a section's paragraphs.
pub(in crate::extract::rules) fn signatories(
    b: &mut Builder,
    paragraphs: &[String],
    set: &HashSet<String>,
) {
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
            let label = LABEL
                .captures(before)
                .filter(|c| !after_a_lower_case_word(&before[..c.get(1).unwrap().start()]))
                .map(|c| normalize_ws(&c[1]));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::rules::extract;
    use crate::extract::rules::test_support::{has, input, org_names};

    /// The (organisation, role) pairs of a builder's `HAS_ROLE` relations.
    fn has_role(b: &Builder) -> Vec<(String, String)> {
        b.relations
            .iter()
            .filter(|r| r.relation_type == "HAS_ROLE")
            .map(|r| (r.source.clone(), r.target.clone()))
            .collect()
    }

    #[test]
    fn columns_of_a_signature_page_are_read_one_by_one() {
        let text = "IN WITNESS WHEREOF ...\n\nSNAP:                                  SPONSOR:\n\nSnap Technologies                      United Airlines, Inc.\n\nBy:  /s/ Howard Berman                 By:  /s/ [*]";
        let out = unfold_columns(text).unwrap();
        assert!(out.contains("SNAP: Snap Technologies\n"), "{out}");
        assert!(out.contains("SPONSOR: United Airlines, Inc.\n"), "{out}");
        assert!(unfold_columns("Name:   Title:\nBy: x").is_none());
        assert!(unfold_columns("Plain text.").is_none());
    }

    #[test]
    fn a_column_label_gives_its_own_name_its_role() {
        let text = "COMPANY:                                CONSULTANT:\n\nAcme Widgets, Inc.                      Beta Advisors LLC\n\nBy: /s/ A                               By: /s/ B";
        let unfolded = unfold_columns(text).unwrap();
        let paras = crate::extract::rules::common::text::paragraphs(&unfolded);
        let mut b = Builder::default();
        signatories(&mut b, &paras, &HashSet::new());
        let roles = has_role(&b);
        assert!(
            roles.contains(&("Acme Widgets, Inc.".into(), "Company".into())),
            "{roles:?}"
        );
        assert!(
            roles.contains(&("Beta Advisors LLC".into(), "Consultant".into())),
            "{roles:?}"
        );
        assert!(!roles.contains(&("Acme Widgets, Inc.".into(), "Consultant".into())));
    }

    #[test]
    fn a_role_named_inside_a_sentence_is_no_label() {
        let paras = vec![
            "Competitors of the Buyer: Conveyex Systems Ltd.; Rollmark GmbH.".to_string(),
            "BUYER: Northwind Industries, Inc.".to_string(),
        ];
        let mut b = Builder::default();
        signatories(&mut b, &paras, &HashSet::new());
        let roles = has_role(&b);
        assert!(
            !roles.iter().any(|(s, _)| s.contains("Conveyex")),
            "{roles:?}"
        );
        assert!(
            roles.contains(&("Northwind Industries, Inc.".into(), "Buyer".into())),
            "{roles:?}"
        );
    }

    #[test]
    fn signature_blocks_name_the_parties_that_sign() {
        let mut i = input(
            "Signatures",
            "IN WITNESS WHEREOF, the undersigned execute this Agreement as of July 6, 2020.\n\n\
             SCULPTOR CAPITAL LP\n\nBy: /s/ Thomas Sipp\n\nThomas Sipp Chief Financial Officer SCULPTOR MASTER FUND LTD\n\n\
             By: /s/ Thomas Sipp\n\n\
             WOMEN.COM NETWORKS, INC. EDIETS.COM, INC. By: /S/ Bud Ward By: /S/ David Humble\n\n\
             APOLLO LIFE ASSET, L.P. By: Apollo Life Asset GP, LLC, its general partner By: /s/ W. Kuesel\n\n\
             PURCHASER: PEEK Investments LLC Date: July 16, 2012\n\n\
             DISTRIBUTOR MOBILEVISION COMMUNICATIONS LTD. By: Name Andrew Zhang\n\n\
             Party B: Xinyu Xinwei New Energy Co., Ltd. (seal)\n\n\
             Inktomi Corp Microsoft Corp By: /s/ A By: /s/ B\n\n\
             Notices shall be sent to Acme Holdings, Inc. by courier.\n\n\
             1 Main St, Austin, Texas 78741 Sibannac, Inc. By: /s/ C\n\n\
             CEO/President Verso Backhaul Solutions, Inc. By: /s/ D\n\n\
             ODM Supply Agreement 2 Organic Preparations INC. By: /s/ E",
        );
        i.doc_type = "commercial".into();
        let o = extract(&i);
        for n in [
            "Sculptor Capital LP",
            "Sculptor Master Fund LTD",
            "WOMEN.COM Networks, Inc.",
            "EDIETS.COM, Inc.",
            "Apollo Life Asset, L.P.",
            "Inktomi Corp",
            "Microsoft Corp",
        ] {
            assert!(
                has(&o, n, "HAS_ROLE", "Signatory"),
                "{n}: {:#?}",
                o.relations
            );
        }
        assert!(has(
            &o,
            "Apollo Life Asset GP, LLC",
            "HAS_ROLE",
            "General Partner"
        ));
        assert!(
            has(&o, "Peek Investments LLC", "HAS_ROLE", "Purchaser"),
            "{:#?}",
            o.relations
        );
        assert!(has(
            &o,
            "Mobilevision Communications Ltd.",
            "HAS_ROLE",
            "Distributor"
        ));
        assert!(has(
            &o,
            "Party B",
            "DEFINED_AS",
            "Xinyu Xinwei New Energy Co., Ltd."
        ));
        for n in [
            "Sibannac, Inc.",
            "Verso Backhaul Solutions, Inc.",
            "Organic Preparations INC.",
        ] {
            assert!(
                has(&o, n, "HAS_ROLE", "Signatory"),
                "{n}: {:#?}",
                o.relations
            );
        }
        // Named in running text, not signing.
        assert!(!o
            .relations
            .iter()
            .any(|r| r.source == "Acme Holdings, Inc." && r.relation_type == "HAS_ROLE"));
        let names = org_names(&o);
        assert!(
            !names.iter().any(|n| n.contains("Officer")
                || n.contains("Inktomi Corp Microsoft")
                || n.contains("78741")
                || n.contains("CEO")
                || n.contains("Agreement")),
            "{names:?}"
        );
    }
}
