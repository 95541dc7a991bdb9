//! The parties clause of a preamble, in any contract type: `by and between
//! X, a Delaware corporation with offices at ... ("Licensor"), and Y
//! (referred to as "Marketing Affiliate" or "MA")`. Each party named after
//! `between`/`among` gets the names the clause defines for it (DEFINED_AS)
//! and, when a defined name is a role rather than a short form of its own
//! name (`Licensor`, `Marketing Affiliate`; not `Ginkgo`, `BLI`), that
//! role (HAS_ROLE). A role is read from the clause, never guessed from the
//! nearest word.

use crate::extract::rules::common::builder::Builder;
use crate::extract::rules::common::orgs::{orgs, OrgMatch};
use crate::extract::rules::common::roles::{is_role, singular_role};
use crate::extract::rules::common::terms::valid_term;
use crate::extract::rules::common::text::EVIDENCE_CHARS;
use crate::extract::rules::common::text::{normalize_ws, snippet_around, truncate};
use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::HashSet;

/// Where the list of parties opens.
static OPENS: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i)\b(?:(?:made|entered\s+into)\s+)?(?:by\s+and\s+)?(?:between|among|amongst)\b(?:\s+and\s+among)?:?|\b(?:made|entered\s+into)\s+by\b").unwrap()
});

/// A parenthetical that defines names: `("Ginkgo")`, `(the "Licensee")`,
/// `(referred to as "Marketing Affiliate" or "MA")`, `(hereinafter "TL")`.
/// Also in single quotes (`('the Manufacturer')`), and a bare role
/// (`(as Company)`, `(as Repairer)`).
static DEFINING_PAREN: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r#"\(\s*[^()"]{0,80}?"[^"]{1,60}"[^()]{0,120}?\)|\(\s*(?:the\s+|hereinafter\s+)?'[^'()]{1,60}'\s*\)|\(\s*as\s+(?:the\s+)?[A-Z][A-Za-z]+(?:\s+[A-Z][A-Za-z]+)?\s*\)"#)
        .unwrap()
});

/// A defined name in a defining parenthetical.
static QUOTED: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r#""([^"]{1,60})"|^\(\s*(?:the\s+|hereinafter\s+)?'([^'()]{1,60})'|^\(\s*as\s+(?:the\s+)?([A-Z][A-Za-z]+(?:\s+[A-Z][A-Za-z]+)?)\s*\)"#)
        .unwrap()
});

/// What ends the parties clause: the recitals or the operative words.
static CLAUSE_END: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i)\b(?:whereas|recitals|background|witnesseth|w\s?i\s?t\s?n\s?e\s?s\s?s\s?e\s?t\s?h|now,?\s+therefore|in\s+consideration\s+of)\b").unwrap()
});

/// A sentence end inside a party's segment: its defining parenthetical is
/// in its own sentence (`... and JPMorgan Chase Bank, as Agent. Capitalized
/// terms ... (the "Borrowers")` defines nothing for JPMorgan).
static SENTENCE_END: Lazy<Regex> = Lazy::new(|| Regex::new(r"[a-z0-9)\]]\.\s+[A-Z][a-z]").unwrap());

/// Defined names that stand for all parties, not one.
const COLLECTIVE: &[&str] = &["party", "parties", "agreement", "effective date"];

/// Last words of defined names that name a document, a date or a thing,
/// never a party (`Credit Agreement`, `Closing Date`, `Notes`).
const DOCUMENT_WORDS: &[&str] = &[
    "agreement",
    "agreements",
    "date",
    "term",
    "note",
    "notes",
    "plan",
    "facility",
    "lease",
    "premises",
    "property",
    "products",
    "product",
    "territory",
    "amendment",
    "letter",
    "contract",
];

/// Parties clauses that a layout spreads over paragraphs (`BETWEEN:` /
/// a party's name and address / `(hereinafter called "MLX")` / `- and -`
/// / ...): each paragraph that opens a list of parties without closing
/// it, joined with the paragraphs that follow up to the one holding the
/// recitals or the operative words (at most 12 paragraphs).
pub(in crate::extract::rules) fn spread_parties_clauses(paragraphs: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, p) in paragraphs.iter().enumerate() {
        let Some(open) = OPENS.find(p) else {
            continue;
        };
        if CLAUSE_END.find_at(p, open.end()).is_some() || i + 1 == paragraphs.len() {
            continue;
        }
        // The paragraph before says what is agreed (`THIS AGREEMENT made as
        // of ...` above `BETWEEN:`).
        let mut joined = match i.checked_sub(1).map(|k| &paragraphs[k]) {
            Some(prev) if !OPENS.is_match(prev) => format!("{prev} {p}"),
            _ => p.clone(),
        };
        for q in paragraphs.iter().skip(i + 1).take(11) {
            joined.push(' ');
            joined.push_str(q);
            if CLAUSE_END.is_match(q) || joined.len() > 4000 {
                break;
            }
        }
        out.push(joined);
    }
    out
}

/// The parties clause of paragraph `p`: DEFINED_AS and HAS_ROLE for each
/// party it names.
pub(in crate::extract::rules) fn parties_clause(b: &mut Builder, p: &str, set: &HashSet<String>) {
    let Some(open) = OPENS.find(p) else {
        return;
    };
    let lower = p.to_ascii_lowercase();
    if !(lower.contains("agreement") || lower.contains("agree") || lower.contains("contract")) {
        return;
    }
    let end = CLAUSE_END
        .find_at(p, open.end())
        .map_or(p.len(), |m| m.start());
    // A match may take a capitalised opening word in (`Between BURGER
    // KING CORPORATION`): the name ends after the opening all the same.
    let found: Vec<OrgMatch> = orgs(p, set)
        .into_iter()
        .filter(|o| o.end > open.end() && o.end <= end)
        .collect();
    // A party opens the list or follows a separator; `a subsidiary of Y`
    // or `c/o Y` names no party.
    let mut parties: Vec<&OrgMatch> = Vec::new();
    let mut from = open.end();
    for o in &found {
        // `(hereinafter called "MLX") - and - HEALTHCENTRAL.COM INC.`
        let start = o.start.max(from);
        let before = p[from..start]
            .trim_end_matches(|c: char| c == '-' || c.is_whitespace())
            .to_ascii_lowercase();
        let first = parties.is_empty() && p[open.end()..start].trim().len() <= 4;
        let separated = before.ends_with(',')
            || before.ends_with(';')
            || before.ends_with(')')
            || before.ends_with(" and")
            || before.ends_with("and/or")
            || before.ends_with(':')
            || before == "and";
        if first || separated {
            parties.push(o);
        }
        from = o.end.max(from);
    }
    // Parties listed without a parenthetical of their own, waiting for a
    // collective one (`X, Y and Z (collectively, the "Marathon Parties")`).
    let mut pending: Vec<usize> = Vec::new();
    let mut named_any = vec![false; parties.len()];
    for (i, org) in parties.iter().enumerate() {
        let seg_end = parties.get(i + 1).map_or(end, |n| n.start);
        let seg = &p[org.end..seg_end];
        let seg = sentence_end(seg).map_or(seg, |at| &seg[..at]);
        // The first defining parenthetical of the segment is the party's.
        let Some(paren) = DEFINING_PAREN.find(seg) else {
            pending.push(i);
            continue;
        };
        // Not one far into another sentence.
        if paren.start() > 400 {
            pending.clear();
            continue;
        }
        let low = paren.as_str().to_ascii_lowercase();
        let collective = low.contains("collectively") || low.contains("together");
        let mut named = if collective {
            std::mem::take(&mut pending)
        } else {
            pending.clear();
            Vec::new()
        };
        named.push(i);
        for k in named {
            let party = parties[k];
            let seg = &p[party.end..org.end + paren.end()];
            named_any[k] |= define(b, party, seg, paren.as_str());
        }
    }
    persons(b, p, open.end(), end);
    // Named in the parties clause, it is a party even when the clause
    // gives it no name or role of its own (`between Acme Inc. and Beta
    // LLC.`, a name whose parenthetical the clause garbles); but only in
    // the sentence that opens the list: a press release's `the agreement
    // between A and B ... Morgan, Lewis & Bockius LLP served as counsel`
    // lists no counsel as a party.
    for (org, named) in parties.iter().zip(named_any) {
        let before = &p[open.end()..org.start.max(open.end())];
        if !named && !SENTENCE_END.is_match(before) && !generic_name(&org.raw) {
            let o = b.org(org);
            let r = b.entity("Party", "Role", "");
            let evidence = snippet_around(&p[..end], &org.raw);
            b.relate(&o, "HAS_ROLE", &r, &evidence);
        }
    }
}

/// A name of nothing but corporate-form and generic words (`Holdings
/// Limited`, `Co., Ltd.`, `Restated Limited Liability Company`): the tail
/// of a name the recogniser cut, not a party to give a role.
fn generic_name(name: &str) -> bool {
    const GENERIC: &[&str] = &[
        "co",
        "corp",
        "corporation",
        "company",
        "inc",
        "incorporated",
        "ltd",
        "limited",
        "llc",
        "lp",
        "l",
        "p",
        "plc",
        "holdings",
        "holding",
        "group",
        "operations",
        "technologies",
        "restated",
        "amended",
        "liability",
        "joint",
        "venture",
        "partnership",
        "partners",
        "the",
        "and",
        "of",
    ];
    name.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| GENERIC.contains(&w.to_ascii_lowercase().as_str()))
}

/// A natural person the parties clause lists: `John A. Smith, an
/// individual residing at ...`, or a name with its title (`Mr. John
/// Smith ("Consultant")`), then its defining parenthetical.
static PERSON: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?:\b(?:Mr|Ms|Mrs|Dr)\.?\s+)?\b([A-Z][a-z]+(?:\s+[A-Z]\.)?(?:\s+[A-Z][a-z'\-]+){1,2})\s*,\s*an?\s+individual\b|\b(?:Mr|Ms|Mrs|Dr)\.?\s+([A-Z][a-z]+(?:\s+[A-Z]\.)?(?:\s+[A-Z][a-z'\-]+){1,2})\b")
        .unwrap()
});

/// Persons among the parties of `p[from..end]`: a Person entity with the
/// names and role its parenthetical defines (the role is what makes it a
/// party of the register: a person named only in passing gets none).
fn persons(b: &mut Builder, p: &str, from: usize, end: usize) {
    let clause = &p[from..end];
    for c in PERSON.captures_iter(clause) {
        let Some(name) = c.get(1).or(c.get(2)) else {
            continue;
        };
        let rest = &clause[name.end()..];
        let rest = sentence_end(rest).map_or(rest, |at| &rest[..at]);
        // Its own parenthetical, before the next party's name.
        let Some(paren) = DEFINING_PAREN.find(rest).filter(|m| m.start() <= 300) else {
            continue;
        };
        if rest[..paren.start()].contains(" and ") {
            continue;
        }
        let o = b.entity(name.as_str(), "Person", "");
        define_names(b, &o, name.as_str(), &rest[..paren.end()], paren.as_str());
    }
}

/// Where a sentence ends in a party's segment: a full stop before a
/// capitalised word, when running text follows before the next
/// parenthetical (`... as Agent. Capitalized terms used herein ...`), not
/// in an address (`Mt. Kemble Ave`, `St. Georges Bldg`, `Port Vila.
/// Vanuatu ('the Manufacturer')`).
fn sentence_end(seg: &str) -> Option<usize> {
    SENTENCE_END
        .find_iter(seg)
        .map(|m| m.start() + 2)
        .find(|&at| {
            let rest = &seg[at..];
            let upto = rest.find('(').map_or(rest, |i| &rest[..i]);
            upto.split_whitespace().any(|w| {
                w.len() >= 4
                    && w.chars()
                        .all(|c| c.is_ascii_lowercase() || c == ',' || c == ';')
            })
        })
}

/// DEFINED_AS (and HAS_ROLE for a role) from the names of `paren`, the
/// defining parenthetical that ends `seg` (the text after the party's name).
/// True when it gave the party a name.
fn define(b: &mut Builder, org: &OrgMatch, seg: &str, paren: &str) -> bool {
    let o = b.org(org);
    define_names(b, &o, &org.raw, seg, paren)
}

/// DEFINED_AS (and HAS_ROLE for a role) to party entity `o`, written
/// `raw` in the text, from the names of `paren`; true when it gave one.
fn define_names(b: &mut Builder, o: &str, raw: &str, seg: &str, paren: &str) -> bool {
    let mut gave = false;
    let full = format!("{raw}{seg}");
    let limit = EVIDENCE_CHARS.max(raw.len() + 40);
    for q in QUOTED.captures_iter(paren) {
        let Some(name) = q.get(1).or(q.get(2)).or(q.get(3)) else {
            continue;
        };
        let name = name.as_str();
        // The quote holds the defined name: past the limit (a long
        // address between the name and its parenthetical) it is the
        // words around the name, not the cut-off description.
        let evidence = if full.chars().count() <= limit {
            truncate(&full, limit)
        } else {
            snippet_around(&full, name)
        };
        let term = normalize_ws(name.trim_matches([',', '.', ' ']));
        // `the Manufacturer` in single quotes: the name without its article.
        let term = term
            .strip_prefix("the ")
            .map(str::to_string)
            .unwrap_or(term);
        let low = term.to_ascii_lowercase();
        let last = low.rsplit(' ').next().unwrap_or("");
        if !party_term(&term)
            || COLLECTIVE.contains(&low.as_str())
            || DOCUMENT_WORDS.contains(&last)
        {
            continue;
        }
        let d = b.entity(&term, "DefinedTerm", "");
        b.relate(&d, "DEFINED_AS", o, &evidence);
        gave = true;
        if role_name(&term, raw) {
            let r = b.entity(&singular_role(&term), "Role", "");
            b.relate(o, "HAS_ROLE", &r, &evidence);
        }
    }
    gave
}

/// A party's defined name: a term, or a short name written in lower case
/// first (`"eDiets"`, `"iVillage"`).
fn party_term(t: &str) -> bool {
    valid_term(t)
        || (t.chars().next().is_some_and(char::is_lowercase)
            && t.chars().any(char::is_uppercase)
            && t.split_whitespace().count() <= 3
            && t.len() <= 40)
}

/// A defined name that is a role of the party rather than a short form of
/// its own name: a known role word (`Borrower`, `Licensee`), or words none
/// of which is in the name and that are no acronym (`Marketing Affiliate`,
/// `Distributor`; not `Ginkgo` for Ginkgo Bioworks, Inc., nor `BLI`, `MA`).
pub(in crate::extract::rules) fn role_name(term: &str, org: &str) -> bool {
    if is_role(term) {
        return true;
    }
    let name: HashSet<String> = org
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let words: Vec<&str> = term.split_whitespace().collect();
    let acronym = words.iter().any(|w| {
        let letters: Vec<char> = w.chars().filter(|c| c.is_alphabetic()).collect();
        letters.len() <= 6 && letters.iter().all(|c| c.is_uppercase())
    });
    let named = words.iter().any(|w| {
        let l = w.to_lowercase();
        name.contains(l.trim_matches(|c: char| !c.is_alphanumeric()))
            || name
                .iter()
                .any(|n| n.len() >= 4 && l.starts_with(n.as_str()))
    });
    !acronym && !named && words.iter().all(|w| w.len() >= 3 || *w == "of")
}

#[cfg(test)]
mod tests {
    use crate::extract::rules::extract;
    use crate::extract::rules::test_support::{has, input, org_names};

    #[test]
    fn parties_clause_gives_each_party_its_defined_name_and_role() {
        let mut i = input(
            "Preamble",
            "This Marketing Affiliate Agreement (the \"Agreement\") is entered into this 8th day of May 2014, \
             by and between BIRCH FIRST GLOBAL INVESTMENTS INC., a corporation incorporated in the U.S. Virgin \
             Islands, with its main place of business located 9100 Havensight, Port of Sale, Ste. 15/16 \
             (referred to as \"Company\") and MOUNT KNOWLEDGE HOLDINGS INC. and/or assigns, a corporation \
             incorporated in the State of Nevada (referred to as \"Marketing Affiliate\" or \"MA\").\n\n\
             This COLLABORATION AGREEMENT is between Ginkgo Bioworks, Inc., a Delaware corporation with offices \
             located at 27 Drydock Avenue, Boston, Massachusetts 02210 (\"Ginkgo\"), and Berkeley Lights, Inc., \
             a Delaware corporation (\"BLI\"). Ginkgo and BLI may each be referred to herein as a \"Party\".",
        );
        i.doc_type = "commercial".into();
        let o = extract(&i);
        let birch = "Birch First Global Investments Inc.";
        let mount = "Mount Knowledge Holdings Inc.";
        assert!(
            has(&o, "Company", "DEFINED_AS", birch),
            "{:#?}",
            o.relations
        );
        assert!(has(&o, birch, "HAS_ROLE", "Company"), "{:#?}", o.relations);
        assert!(has(&o, "Marketing Affiliate", "DEFINED_AS", mount));
        assert!(has(&o, "MA", "DEFINED_AS", mount));
        assert!(has(&o, mount, "HAS_ROLE", "Marketing Affiliate"));
        // A short form of the party's own name is no role.
        assert!(has(&o, "Ginkgo", "DEFINED_AS", "Ginkgo Bioworks, Inc."));
        assert!(has(&o, "BLI", "DEFINED_AS", "Berkeley Lights, Inc."));
        assert!(!o.relations.iter().any(|r| r.relation_type == "HAS_ROLE"
            && (r.target == "Ginkgo" || r.target == "BLI" || r.target == "MA")));
        // Nobody is defined as the parties collectively.
        assert!(!o.relations.iter().any(|r| r.source == "Party"));
    }

    /// `Between` in capitals opens the list even when the name's match
    /// takes it in; a party the clause names without a name of its own is
    /// still a party.
    #[test]
    fn a_capital_opening_and_a_party_without_a_defined_name() {
        let o = extract(&input(
            "Preamble",
            "This Franchise Agreement is made Between WESTERN BURGER CORPORATION, a Florida corporation (\"BKC\"), \
             and Acme Widgets, Inc., a Texas corporation.",
        ));
        assert!(
            has(&o, "BKC", "DEFINED_AS", "Western Burger Corporation"),
            "{:#?}",
            o.relations
        );
        assert!(
            has(&o, "Acme Widgets, Inc.", "HAS_ROLE", "Party"),
            "{:#?}",
            o.relations
        );
        assert!(!has(&o, "Western Burger Corporation", "HAS_ROLE", "Party"));
        assert!(super::generic_name("Restated Limited Liability Company"));
        assert!(super::generic_name("Co., Ltd."));
        assert!(!super::generic_name("Acme Widgets, Inc."));
    }

    /// A person the parties clause lists is a party of its own type, with
    /// the role its parenthetical defines.
    #[test]
    fn a_person_among_the_parties_is_a_person_with_its_role() {
        let o = extract(&input(
            "Preamble",
            "This Consulting Agreement is made by and between Acme Widgets, Inc., a Texas corporation \
             (the \"Company\"), and John A. Smith, an individual residing at 12 Elm Street, Austin, Texas \
             (\"Consultant\").",
        ));
        assert!(
            has(&o, "John A. Smith", "HAS_ROLE", "Consultant"),
            "{:#?}",
            o.relations
        );
        assert!(o
            .entities
            .iter()
            .any(|e| e.name == "John A. Smith" && e.entity_type == "Person"));
        assert!(has(&o, "Acme Widgets, Inc.", "HAS_ROLE", "Company"));
    }

    /// A party's defining parenthetical is in its own sentence: a later
    /// sentence's `(the "Borrowers")` is never its name.
    #[test]
    fn a_later_sentences_defined_name_is_no_party_name() {
        let o = extract(&input(
            "Preamble",
            "Reference is made to the Credit Agreement among Emerson Electric Co. (the \"Company\"), \
             the Subsidiary Borrowers party thereto (collectively with the Company, the \"Borrowers\"), \
             each lender party thereto and JPMorgan Chase Bank, National Association, as Agent. \
             Capitalized terms used herein have the meanings assigned in the Credit Agreement (the \"Terms\").",
        ));
        assert!(
            has(&o, "Company", "DEFINED_AS", "Emerson Electric Co."),
            "{:#?}",
            o.relations
        );
        assert!(
            !o.relations
                .iter()
                .any(|r| r.relation_type == "DEFINED_AS" && r.target.starts_with("JPMorgan")),
            "{:#?}",
            o.relations
        );
    }

    #[test]
    fn parties_clause_forms_across_layouts() {
        let mut i = input(
            "Preamble",
            "This COLLABORATION AGREEMENT is made by and between THERAVANCE, INC., a Delaware corporation, \
             and having its principal office at 901 Gateway Boulevard, South San Francisco ( \"Theravance\"), \
             and GLAXO GROUP LIMITED, a United Kingdom corporation (\"GSK\"). RECITALS follow.\n\n\
             This Agreement is entered into by and between WOMEN.COM NETWORKS, INC. (\"Women.com\"), and \
             EDIETS.COM, INC., a Delaware corporation (\"eDiets\"). WHEREAS, eDiets maintains a site.",
        );
        i.doc_type = "commercial".into();
        let o = extract(&i);
        assert!(
            has(&o, "Theravance", "DEFINED_AS", "Theravance, Inc."),
            "{:#?}",
            o.relations
        );
        assert!(has(&o, "GSK", "DEFINED_AS", "Glaxo Group Limited"));
        assert!(
            has(&o, "eDiets", "DEFINED_AS", "EDIETS.COM, Inc."),
            "{:#?}",
            o.relations
        );
    }

    #[test]
    fn a_parties_clause_spread_over_paragraphs() {
        let mut i = input(
            "Preamble",
            "THIS AGREEMENT made as of the 30th day of June 1999\n\nBETWEEN:\n\n\
             MEDIALINX INTERACTIVE, L.P., represented herein by its general partner MediaLinx Interactive Inc.\n\
             a corporation incorporated under the laws of the Province of Ontario, 20 Richmond Street East\n\n\
             (hereinafter called \"MLX\")\n\n- and -\n\n\
             HEALTHCENTRAL.COM INC. a corporation incorporated under the laws of the state of California\n\n\
             (hereinafter called \"HCI\")\n\n\
             BETWEEN: ORGANIC PREPARATIONS INC. 2nd Floor, Port Vila, Vanuatu ('the Manufacturer') of one part\n\n\
             AND: AGAPE ATP INTERNATIONAL HOLDING LIMITED Unit 05, Kowloon, Hong Kong ('the Customer') of the \
             other part, and AZUL LINHAS S/A (as Company).\n\n\
             WHEREAS MLX owns an Internet service.",
        );
        i.doc_type = "commercial".into();
        let o = extract(&i);
        assert!(
            has(&o, "MLX", "DEFINED_AS", "MediaLinx Interactive, L.P."),
            "{:#?}",
            o.relations
        );
        assert!(
            has(&o, "HCI", "DEFINED_AS", "HEALTHCENTRAL.COM Inc."),
            "{:#?}",
            o.relations
        );
        assert!(!has(&o, "MLX", "DEFINED_AS", "MediaLinx Interactive Inc."));
        assert!(
            has(&o, "Organic Preparations Inc.", "HAS_ROLE", "Manufacturer"),
            "{:#?}",
            o.relations
        );
        assert!(has(
            &o,
            "Agape ATP International Holding Limited",
            "HAS_ROLE",
            "Customer"
        ));
        assert!(
            has(&o, "Azul Linhas S/A", "HAS_ROLE", "Company"),
            "{:#?}",
            o.relations
        );
    }

    #[test]
    fn collective_names_addresses_and_numbers_in_a_parties_clause() {
        let mut i = input(
            "Preamble",
            "This Cooperation Agreement is entered into by and between Acme Beauty, Inc., a Delaware \
             corporation (the \"Company\"), and Marathon Partners Equity Management, LLC (\"Marathon\"), \
             Marathon Partners L.P., Marathon Focus Fund L.P. and Mario Cibelli (collectively, the \
             \"Marathon Parties\").\n\n\
             This Agreement is made as of August 2014 by and between Capsugel US, LLC with an address at \
             412 Mt. Kemble Ave, Suite 200C, Morristown, NJ 07960 ( \"CAPSUGEL\") and Johnson Matthey Company, \
             Inc., having a mailing address of 30 Bond Street, Ward Hill, MA 01835-8099 and Nanophase \
             Technologies Corporation, a Delaware corporation (\"NTC\"), and PC Quote, Inc., with offices \
             in Chicago, Illinois 60605 and AB Wately, Inc. (hereinafter referred to as \"ABW\"), and LEO \
             PHARMA A/S of Industriparken 55, Ballerup (\"LEO\").\n\n\
             LIABILITY WHICH CANNOT BE EXCLUDED OR LIMITED shall survive.",
        );
        i.doc_type = "commercial".into();
        let o = extract(&i);
        for n in ["Marathon Partners L.P.", "Marathon Focus Fund L.P."] {
            assert!(
                has(&o, "Marathon Parties", "DEFINED_AS", n),
                "{n}: {:#?}",
                o.relations
            );
        }
        assert!(!has(
            &o,
            "Marathon Parties",
            "DEFINED_AS",
            "Acme Beauty, Inc."
        ));
        assert!(
            has(&o, "CAPSUGEL", "DEFINED_AS", "Capsugel US, LLC"),
            "{:#?}",
            o.relations
        );
        assert!(
            has(
                &o,
                "NTC",
                "DEFINED_AS",
                "Nanophase Technologies Corporation"
            ),
            "{:#?}",
            o.relations
        );
        assert!(
            has(&o, "ABW", "DEFINED_AS", "AB Wately, Inc."),
            "{:#?}",
            o.relations
        );
        assert!(
            has(&o, "LEO", "DEFINED_AS", "LEO Pharma A/S"),
            "{:#?}",
            o.relations
        );
        let names = org_names(&o);
        assert!(
            !names.iter().any(|n| n.starts_with("and ")
                || n.contains("60605")
                || n.contains("Industriparken")
                || n.contains("Excluded")),
            "{names:?}"
        );
    }
}
