//! Organisations, parties and roles: `X, as Administrative Agent`,
//! `X, a Missouri corporation (the "Company")`, subsidiaries.

use super::builder::Builder;
use super::common::roles::*;
use super::common::text::*;
use super::terms::*;
use super::EVIDENCE_CHARS;
use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::{HashMap, HashSet};

/// Organisation names: capitalised words ending in a corporate suffix, with
/// an optional `of New York` and `, N.A.`-style tail.
pub(super) static ORG: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?x)
        \b(?P<lead>(?:(?:[A-Z][A-Za-z0-9&'./\-]*|[0-9]+[A-Za-z][A-Za-z0-9&'.\-]*|[0-9]{1,6}|[a-z](?:\.[a-z])+\.|[a-z]{1,2}[A-Z][A-Za-z0-9&'.\-]*|[a-z][a-z0-9\-]*\.(?:com|COM|net))\s+(?:(?:of|OF|&|and)\s+)?){0,8})
        (?:(?P<suffix>Co\.|CO\.|Corp\.|CORP\.|Inc\.|INC\.|L\.L\.C\.|L\.P\.|L\.L\.P\.|Ltd\.|LTD\.|S\.A\.|B\.V\.|N\.V\.|S\.p\.A\.|S\.R\.L\.
           |(?:Corporation|CORPORATION|Incorporated|INCORPORATED|Company|COMPANY|LLC|LLP|Limited|LIMITED|plc|PLC|Bank|BANK|Trust|TRUST|AG|GmbH|GMBH
              |L\.L\.C|L\.P|LP|Ltd|LTD|Corp|CORP|Inc|INC|S\.A|B\.V|A/S|S/A|SRL|SpA|SPA)\b)
         |(?P<last>[A-Z][A-Za-z0-9&'./\-]*|[a-z]{1,2}[A-Z][A-Za-z0-9&'.\-]*|[0-9]*[A-Za-z][A-Za-z0-9\-]*\.(?:com|COM|net)),\s+(?P<suffix2>Inc\.|INC\.|inc\.|Inc\b|INC\b|Incorporated\b|INCORPORATED\b|LLC\b|L\.L\.C\.|L\.L\.C\b|L\.P\.|L\.P\b|LP\b|LLP\b|Ltd\.|LTD\.|Ltd\b|LTD\b|Limited\b|LIMITED\b|Corp\.|CORP\.|Corp\b|S\.A\.|S\.A\b|N\.A\.|B\.V\.|B\.V\b|N\.V\.|GmbH\b|PLC\b|plc\b))
        (?P<tail>(?:\s+USA\b)?(?:\s+(?:of|OF)(?:\s+[A-Z][A-Za-z]+){1,3})?
           (?:,?\s+(?:N\.A\.|National\s+Association|NATIONAL\s+ASSOCIATION|Inc\.|INC\.|LLC|L\.P\.|Ltd\.|plc|PLC))?)",
    )
    .unwrap()
});

/// Corporate words one of which every [`ORG`] match holds (each of its
/// suffixes contains one): a text without any is not searched with it
/// (about 72% of the shared contracts' paragraph text).
static ORG_WORDS: Lazy<aho_corasick::AhoCorasick> = Lazy::new(|| {
    aho_corasick::AhoCorasick::new([
        "Co.", "CO.", "Corp", "CORP", "Inc", "INC", "inc.", "L.L.C", "L.P", "Ltd", "LTD", "S.A",
        "B.V", "N.V.", "S.p.A.", "S.R.L.", "Company", "COMPANY", "LLC", "LP", "Limited", "LIMITED",
        "plc", "PLC", "Bank", "BANK", "Trust", "TRUST", "AG", "GmbH", "GMBH", "A/S", "S/A", "SRL",
        "SpA", "SPA", "N.A.",
    ])
    .expect("fixed words")
});

/// `, as Administrative Agent` right after a party's name, also after the
/// branch acting (`ICICI BANK LIMITED, NEW YORK BRANCH, as a Lender`).
pub(super) static AS_ROLE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:,\s+(?:[A-Z][A-Za-z.\-]*\s+){0,4}(?:Branch|BRANCH))?,?\s+(?:in\s+its\s+capacity\s+)?as\s+(?:the\s+|an?\s+)?([A-Z][A-Za-z\-]*(?:\s+(?:and\s+)?[A-Z][A-Za-z\-]*)*)")
        .unwrap()
});

/// `, a Missouri corporation (the "Company")` right after a party's name.
pub(super) static AFTER_PARTY: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r#"^(?:,\s*(?:a|an)\s+(?P<desc>[^,()"]{0,60}?))?\s*\((?P<pre>[^()"]{0,40})"(?P<term>[^"]{1,60})"\s*\)"#)
        .unwrap()
});

pub(super) static JURISDICTION: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\s+(?:corporation|limited liability company|banking|national banking|limited partnership|company|statutory trust)")
        .unwrap()
});

/// `, a wholly-owned subsidiary of ` right after an organisation's name.
pub(super) static SUBSIDIARY_OF_ORG: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^,?\s+(?:a|an)\s+(?:(?:wholly[- ]owned|direct|indirect|direct\s+or\s+indirect)\s+)?subsidiary\s+of\s+")
        .unwrap()
});

/// `the Company's Significant Subsidiaries`, `each of the Borrower's Subsidiaries`.
pub(super) static POSSESSIVE_SUBSIDIARIES: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"\b([A-Z][A-Za-z\-]+)'s\s+(?:[a-z]+\s+){0,2}((?:[A-Z][a-z]+\s+)?Subsidiar(?:y|ies))\b",
    )
    .unwrap()
});

/// Words that start a capitalised run but are not part of a name.
pub(super) const STOP_LEAD: &[&str] = &[
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
    "lenders",
    "borrowers",
    "agents",
    "issuers",
    "banks",
    "party",
    "parties",
    "hereto",
    "section",
    "article",
];

/// An organisation name found in text.
pub(super) struct OrgMatch {
    /// As written (a word doubled by a typo is kept once).
    pub(super) raw: String,
    /// Byte range of the match in the paragraph (with any leading
    /// stop words).
    pub(super) start: usize,
    pub(super) end: usize,
    /// A role word written glued in front of the name (`DISTRIBUTOR
    /// MOBILEVISION COMMUNICATIONS LTD.` in a signature block).
    pub(super) lead_role: Option<String>,
    /// Other names the text gives it right after (`d/b/a Time Life
    /// Music`, `(f/k/a McRae's, Inc.)`, `formerly known as Tradeum, Inc.`):
    /// the same organisation, one node.
    pub(super) trade_names: Vec<String>,
}

/// Capitalised words and a place in brackets right before a name
/// (`Rise (Tianjin) ` before `Education Information Consulting Co.`).
static BRACKETED_PLACE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?:^|\s)([A-Z][A-Za-z&.\-]*(?:\s+[A-Z][A-Za-z&.\-]*){0,3})\s+\(([A-Z][a-z]+)\)\s+$",
    )
    .unwrap()
});

/// Another name of the organisation just named: `, a Delaware corporation
/// d/b/a ALFA AESAR`, `(f/k/a McRae's, Inc.)`, `doing business as X`.
static TRADE_NAME: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r#"^(?:,?\s*(?:a|an)\s+[^,()"]{0,60}?)?,?\s*\(?\s*(?:[dDfFaAnN]/[kKbB]/[aA]|doing\s+business\s+as|formerly\s+known\s+as|trading\s+as|also\s+known\s+as)\s+"?((?:[A-Z0-9][A-Za-z0-9&'.\-]*,?\s+(?:(?:of|&|and)\s+)?){0,6}[A-Z0-9][A-Za-z0-9&'.\-]*)"#,
    )
    .unwrap()
});

/// The other names [`TRADE_NAME`] reads after an organisation's name.
fn trade_names(after: &str) -> Vec<String> {
    let Some(c) = TRADE_NAME.captures(after) else {
        return Vec::new();
    };
    let name = c[1].trim_end_matches([',', '.']).to_string();
    // `Tradeum, Inc.` keeps its form's full stop.
    let name = if c[1].ends_with('.') && closing(c[1].split_whitespace().last().unwrap_or("")) {
        c[1].to_string()
    } else {
        name
    };
    if name.split_whitespace().count() < 1 || name.len() < 3 {
        return Vec::new();
    }
    vec![name]
}

pub(super) fn orgs(p: &str, defined: &HashSet<String>) -> Vec<OrgMatch> {
    let mut out = Vec::new();
    orgs_in(p, 0, defined, &mut out);
    out
}

/// Headings that a layout glues in front of a name, with their number
/// (`Schedule A Erchonia Corporation`).
const HEADING_WORDS: &[&str] = &["schedule", "exhibit", "attachment", "annex", "appendix"];

/// Signature-block fields and recital words glued in front of a name.
const FIELD_WORDS: &[&str] = &[
    "name",
    "title",
    "by",
    "its",
    "signature",
    "date",
    "dated",
    "whereas",
    "witness",
    "attest",
    "accepted",
    "agreed",
];

/// Marks of another name of the same organisation (`Carson Pirie Scott
/// II, Inc. (f/k/a McRae's, Inc.)`): never the start of a name.
const ALIAS_MARKS: &[&str] = &[
    "f/k/a", "d/b/a", "a/k/a", "n/k/a", "(f/k/a", "(d/b/a", "(a/k/a",
];

/// Role labels of cover pages and signature blocks that are no
/// [`ROLE_HEADS`] word.
const LABEL_ROLES: &[&str] = &["sender", "shipper", "sponsor(s)"];

/// Words of running text that no organisation name holds.
const SENTENCE_WORDS: &[&str] = &[
    "shall",
    "will",
    "not",
    "including",
    "but",
    "may",
    "must",
    "whereas",
    "hereby",
    "herein",
    "or",
    "any",
    "which",
    "be",
    "to",
];

/// Only stop words (`the`, `each of the`): a name's start keeps them.
fn stop_led(words: &str) -> bool {
    words
        .split_whitespace()
        .all(|w| STOP_LEAD.contains(&w.to_ascii_lowercase().as_str()))
}

/// Words of a signer's title, never of a company's name.
const OFFICER_WORDS: &[&str] = &[
    "officer",
    "president",
    "signatory",
    "director",
    "secretary",
    "treasurer",
    "chairman",
    "counsel",
    "ceo",
    "cfo",
    "coo",
];

/// Corporate words that close a name (not `Bank`, `Trust`, `Company`,
/// which also sit inside one: `Deutsche Bank Trust Company Americas`).
fn closing(w: &str) -> bool {
    let l = w.trim_end_matches(',').to_ascii_lowercase();
    [
        "inc",
        "corp",
        "ltd",
        "llc",
        "l.l.c",
        "l.p",
        "lp",
        "plc",
        "gmbh",
        "s.a",
        "b.v",
        "n.v",
        "limited",
        "corporation",
        "incorporated",
    ]
    .contains(&l.trim_end_matches('.'))
}

/// Corporate words: a run of words holding one is a whole name.
const CORPORATE: &[&str] = &[
    "gmbh",
    "b.v",
    "n.v",
    "llp",
    "l.l.p",
    "s.p.a",
    "co",
    "corp",
    "inc",
    "llc",
    "l.l.c",
    "l.p",
    "ltd",
    "s.a",
    "corporation",
    "incorporated",
    "company",
    "limited",
    "plc",
    "bank",
    "trust",
    "ag",
    "n.a",
    "branch",
    "lp",
    "a/s",
    "s/a",
    "srl",
    "spa",
    "s.r.l",
];

pub(super) fn corporate(w: &str) -> bool {
    let l = w.trim_end_matches(',').to_ascii_lowercase();
    CORPORATE.contains(&l.trim_end_matches('.'))
}

/// Where `and` joins two names rather than sitting inside one: the last
/// `and` whose words since the previous `and` hold a corporate word, a
/// role, a stop word or a defined term (`Lenders and JPMorgan Chase Bank`,
/// `Bank of America and Citibank`), or that is followed by a whole name
/// before the final corporate words (`BNP Paribas and Deutsche Bank
/// Securities Inc.`); not `Industrial and Commercial Bank of China`.
fn and_between_names(kept: &[&str], defined: &HashSet<String>) -> Option<usize> {
    let ands: Vec<usize> = (1..kept.len().saturating_sub(1))
        .filter(|&i| kept[i].eq_ignore_ascii_case("and"))
        .collect();
    // A corporate word followed by more name (`Deutsche Bank Securities`),
    // not by more corporate words or `of` (`Company Limited`, `Bank of`).
    let inner_name = |j: usize| {
        corporate(kept[j])
            && kept.get(j + 1).is_some_and(|n| {
                !corporate(n) && !n.eq_ignore_ascii_case("of") && !n.eq_ignore_ascii_case("and")
            })
    };
    ands.iter().enumerate().rev().find_map(|(k, &i)| {
        let from = if k == 0 { 0 } else { ands[k - 1] + 1 };
        let seg = &kept[from..i];
        // A short name in capitals before a name in mixed case (`IGER and
        // Plant Research International B.V.`): a party of its own.
        let acronym = seg.len() == 1
            && (2..=6).contains(&seg[0].len())
            && all_caps(seg[0])
            && seg[0].chars().all(|c| c.is_ascii_alphabetic())
            && !mostly_caps(&kept[i + 1..].join(" "));
        let bad = acronym
            || defined.contains(&seg.join(" "))
            || seg.iter().any(|w| {
                let l = w.to_ascii_lowercase();
                corporate(w)
                    || w.chars().all(|c| c.is_ascii_digit())
                    || STOP_LEAD.contains(&l.as_str())
                    || is_role(w)
                    || defined.contains(*w)
            })
            || (i + 1..kept.len()).any(inner_name);
        bad.then_some(i)
    })
}

/// Byte offset of `part`, a slice of `whole`, in `whole`.
fn offset_in(whole: &str, part: &str) -> usize {
    part.as_ptr() as usize - whole.as_ptr() as usize
}

/// A group of an [`ORG`] match: its span in the text searched.
#[derive(Debug, Clone, Copy)]
struct Group<'h> {
    hay: &'h str,
    start: usize,
    end: usize,
}

impl<'h> Group<'h> {
    fn as_str(&self) -> &'h str {
        &self.hay[self.start..self.end]
    }
    fn start(&self) -> usize {
        self.start
    }
    fn end(&self) -> usize {
        self.end
    }
}

/// The spans of one [`ORG`] match: whole, `lead`, `suffix`, `tail`,
/// `suffix2`.
type OrgSpans = [Option<(usize, usize)>; 5];

/// One [`ORG`] match over a text, read through [`Group`]s.
struct OrgCaptures<'h> {
    hay: &'h str,
    spans: OrgSpans,
}

impl<'h> OrgCaptures<'h> {
    fn group(&self, i: usize) -> Option<Group<'h>> {
        self.spans[i].map(|(start, end)| Group {
            hay: self.hay,
            start,
            end,
        })
    }
    fn get(&self, i: usize) -> Option<Group<'h>> {
        debug_assert_eq!(i, 0);
        self.group(0)
    }
    fn name(&self, name: &str) -> Option<Group<'h>> {
        let i = ["lead", "suffix", "tail", "suffix2"]
            .iter()
            .position(|n| *n == name)
            .expect("a group of ORG");
        self.group(i + 1)
    }
}

thread_local! {
    /// [`ORG`]'s matches per text searched, for the section the thread is
    /// on: a section's paragraphs are searched for organisations by the
    /// spellings, the parties, the parties clause and the signatures
    /// alike, and ORG is the costliest pattern of the rules. Emptied at
    /// the start of each section ([`clear_org_matches`]).
    static ORG_MATCHES: std::cell::RefCell<HashMap<String, std::rc::Rc<Vec<OrgSpans>>>> =
        std::cell::RefCell::new(HashMap::new());
}

/// Forgets the matches kept for the previous section.
pub(super) fn clear_org_matches() {
    ORG_MATCHES.with(|m| m.borrow_mut().clear());
}

/// [`ORG`]'s matches in `p`, searched once per text per section.
fn org_matches(p: &str) -> std::rc::Rc<Vec<OrgSpans>> {
    if let Some(found) = ORG_MATCHES.with(|m| m.borrow().get(p).cloned()) {
        return found;
    }
    let names = ["lead", "suffix", "tail", "suffix2"];
    // Most paragraphs hold no corporate word: ORG is not run on them.
    let hay = if ORG_WORDS.is_match(p) { p } else { "" };
    let found: Vec<OrgSpans> = ORG
        .captures_iter(hay)
        .map(|c| {
            let span = |m: Option<regex::Match>| m.map(|m| (m.start(), m.end()));
            let mut spans: OrgSpans = [span(c.get(0)), None, None, None, None];
            for (i, n) in names.iter().enumerate() {
                spans[i + 1] = span(c.name(n));
            }
            spans
        })
        .collect();
    let found = std::rc::Rc::new(found);
    ORG_MATCHES.with(|m| m.borrow_mut().insert(p.to_string(), found.clone()));
    found
}

fn orgs_in(p: &str, base: usize, defined: &HashSet<String>, out: &mut Vec<OrgMatch>) {
    let matches = org_matches(p);
    for spans in matches.iter() {
        let c = OrgCaptures {
            hay: p,
            spans: *spans,
        };
        let (glued, unglued): (Vec<&str>, Vec<&str>);
        let whole = c.get(0).unwrap();
        let words: Vec<&str> = whole.as_str().split_whitespace().collect();
        let skip = words
            .iter()
            .take_while(|w| STOP_LEAD.contains(&w.to_ascii_lowercase().as_str()))
            .count();
        // `Form of Opinion of Company`: a corporate word right after `of`
        // names no organisation.
        // So does one right after `by`, `with`, `to`, `for`, `from`
        // (`THE SOLE WARRANTY MADE BY COMPANY`), or a bare `Company` after
        // one word and `and` (`RGHI and Company`: a defined short name and
        // the defined `Company`, two parties).
        let generic_suffix = c.name("suffix").is_some_and(|m| {
            ["company", "corporation"].contains(&m.as_str().to_ascii_lowercase().as_str())
        });
        if c.name("suffix").is_some()
            && c.name("lead").is_some_and(|l| {
                let lead: Vec<&str> = l.as_str().split_whitespace().collect();
                lead.last().is_some_and(|w| {
                    let w = w.to_ascii_lowercase();
                    w == "of"
                        || (generic_suffix
                            && ["by", "with", "to", "for", "from"].contains(&w.as_str()))
                        || (generic_suffix && w == "and" && lead.len() - skip.min(lead.len()) <= 2)
                })
            })
        {
            continue;
        }
        // A table's column letters (`Y Z AA AB AC AD AE AF AG`): no name.
        if words.len() >= 3
            && words
                .iter()
                .all(|w| w.len() <= 2 && w.chars().all(|c| c.is_ascii_uppercase()))
        {
            continue;
        }
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
        // `Bank of America and Citibank, N.A.`: the names before the `and`
        // are found on their own, first.
        let mut start = whole.start();
        let mut end = whole.end();
        if let Some(i) = and_between_names(kept, defined) {
            let from = offset_in(p, kept[0]);
            let to = offset_in(p, kept[i]);
            orgs_in(&p[from..to], base + from, defined, out);
            kept = &kept[i + 1..];
            start = offset_in(p, kept[0]);
        }
        // Two names side by side (signature blocks in columns: `Inktomi
        // Corp Microsoft Corp`, `PC Financial Services Private Limited
        // Mobimagic Co., Ltd.`): a closing corporate word followed by more
        // name ends the first.
        while let Some(j) = (0..kept.len().saturating_sub(2)).find(|&j| {
            closing(kept[j]) && j > 0 && {
                let n = kept[j + 1];
                !corporate(n)
                    // `a Nevada Limited Liability Company`: one form.
                    && !["of", "and", "&", "liability", "partnership"]
                        .contains(&n.to_ascii_lowercase().as_str())
                    && n.chars().next().is_some_and(char::is_uppercase)
            }
        }) {
            let from = offset_in(p, kept[0]);
            let to = offset_in(p, kept[j]) + kept[j].len();
            orgs_in(&p[from..to], base + from, defined, out);
            kept = &kept[j + 1..];
            start = offset_in(p, kept[0]);
        }
        // A signer's name and title written before the name (`Thomas Sipp
        // Chief Financial Officer SCULPTOR CAPITAL LP`): the name is after
        // the title.
        // So does a postcode (`Austin, Texas 78741 Sibannac, Inc.`) or a
        // document's title (`ODM Supply Agreement 2 Organic Preparations`).
        if let Some(j) = kept.iter().rposition(|w| {
            let l = w.trim_end_matches([',', '.']).to_ascii_lowercase();
            l.split('/').any(|part| OFFICER_WORDS.contains(&part))
                || (l.len() >= 4 && l.chars().all(|c| c.is_ascii_digit()))
                // A registration number (`TX1896055 Elder-Beerman Stores
                // Corporation`): four digits or more among letters.
                || (l.chars().filter(char::is_ascii_digit).count() >= 4
                    && l.chars().all(|c| c.is_ascii_alphanumeric()))
                || l == "agreement"
                // A lawyer's `Esq.` ends a person's name (`Jane Roe, Esq.
                // and Loeb & Loeb LLP`).
                || l == "esq"
        }) {
            if j + 2 < kept.len() {
                kept = &kept[j + 1..];
            }
        }
        // A press release's heading glued on (`About Dova
        // Pharmaceuticals, Inc.`): `About` opens no company's name.
        if kept.len() > 2 && kept[0] == "About" {
            kept = &kept[1..];
        }
        // Stop words left at the front by a cut (`CORP. and DEUTSCHE BANK`).
        let lead_stop = kept
            .iter()
            .take_while(|w| STOP_LEAD.contains(&w.to_ascii_lowercase().as_str()))
            .count();
        if lead_stop < kept.len() {
            kept = &kept[lead_stop..];
        }
        // `a Delaware Corporation`, `an Ohio Limited Liability Company`:
        // what a party is, not its name.
        let article = |w: &str| w.eq_ignore_ascii_case("a") || w.eq_ignore_ascii_case("an");
        let word_before = p[..offset_in(p, kept[0])]
            .trim_end()
            .rsplit(char::is_whitespace)
            .next()
            .unwrap_or("");
        let generic = c.name("suffix").is_some_and(|m| {
            ["corporation", "company", "limited"]
                .contains(&m.as_str().to_ascii_lowercase().as_str())
        });
        if article(word_before) && generic {
            continue;
        }
        // Words glued in front of a name by a layout: a clause or list
        // number (`2.1`, `551` is kept only inside a name), a heading
        // (`Schedule A`), a signature-block field (`Name Title`) or a role
        // label (`DISTRIBUTOR MOBILEVISION COMMUNICATIONS LTD.`,
        // `SHIPPER ECOPETROL S.A.`); `Bank of America` keeps its `Bank`.
        let mut lead_role: Option<&str> = None;
        while let Some(first) = kept.first() {
            let next = kept.get(1).copied().unwrap_or("");
            let bare = first.trim_end_matches([':', ',']);
            let low = bare.to_ascii_lowercase();
            let numeric = bare.chars().all(|c| c.is_ascii_digit() || c == '.');
            let heading = HEADING_WORDS.contains(&low.as_str()) && kept.len() > 3;
            let field = FIELD_WORDS.contains(&low.as_str()) || ALIAS_MARKS.contains(&low.as_str());
            let glued_role = (is_role(bare) || LABEL_ROLES.contains(&low.as_str()))
                && kept.len() > 2
                && !["of", "&", "and"].contains(&next.to_ascii_lowercase().as_str());
            let orphan = closing(bare) && kept.len() > 2;
            let stop = STOP_LEAD.contains(&low.as_str()) && kept.len() > 1;
            if numeric || field || orphan || stop {
                kept = &kept[1..];
            } else if heading {
                kept = &kept[2..];
            } else if glued_role {
                lead_role = Some(bare);
                kept = &kept[1..];
            } else {
                break;
            }
        }
        if kept.is_empty() {
            continue;
        }
        if lead_role.is_some()
            || start < offset_in(p, kept[0]) && !stop_led(&p[start..offset_in(p, kept[0])])
        {
            start = offset_in(p, kept[0]);
        }
        // `IN NO EVENT SHALL COMPANY`, `INCLUDING BUT NOT LIMITED`: a
        // sentence in capitals, not a name.
        if kept
            .iter()
            .any(|w| SENTENCE_WORDS.contains(&w.to_ascii_lowercase().as_str()))
        {
            continue;
        }
        let mut tail = c.name("tail").map_or("", |t| t.as_str().trim());
        // `Bank of New York`, `Trust Company of New York`; not `LEO PHARMA
        // A/S of Industriparken`, an address.
        let of_name = c.name("suffix").is_some_and(|m| {
            ["bank", "trust", "company", "corporation"]
                .contains(&m.as_str().to_ascii_lowercase().as_str())
        });
        if !of_name && (tail.starts_with("of ") || tail.starts_with("OF ")) {
            let n = tail.split_whitespace().count();
            if kept.len() > n {
                kept = &kept[..kept.len() - n];
                let last = kept[kept.len() - 1];
                end = offset_in(p, last) + last.len();
            }
            tail = "";
        }
        if kept.len() < 2 && tail.is_empty() {
            continue;
        }
        // `Form of Opinion of Milbank LLP`, `Law Department of X`: a
        // heading or a department before the name.
        if kept.len() > 3
            && (kept[0].eq_ignore_ascii_case("form") && kept[1].eq_ignore_ascii_case("of")
                || kept[1].eq_ignore_ascii_case("department") && kept[2].eq_ignore_ascii_case("of"))
        {
            if let Some(j) = (2..kept.len() - 1).find(|&j| kept[j].eq_ignore_ascii_case("of")) {
                start = offset_in(p, kept[j + 1]);
                kept = &kept[j + 1..];
            }
        }
        // `the Surviving Corporation`, `the Operating Company`: the role a
        // merger or a group structure gives a company, not its name (also
        // where a list of defined terms writes it alone).
        if kept.len() == 2
            && ["corporation", "company"].contains(&kept[1].to_ascii_lowercase().as_str())
            && STRUCTURE_PARTICIPLES.contains(&kept[0].to_ascii_lowercase().as_str())
        {
            continue;
        }
        // `Florida Business Corporation Act`, `General Corporation Law`: a
        // statute's name; `Signed by ... of Your Company`: a form's blank.
        let after = p[end..].trim_start();
        let statute = ["Act", "Law", "Code", "ACT", "LAW", "CODE"]
            .iter()
            .any(|w| {
                after
                    .strip_prefix(w)
                    .is_some_and(|r| !r.starts_with(char::is_alphanumeric))
            });
        if statute
            || kept
                .iter()
                .any(|w| ["your", "our"].contains(&w.to_ascii_lowercase().as_str()))
        {
            continue;
        }
        // `Managing DirectorBanco Santander S.A.`, `WALT DISNEY
        // COMPANYMizuho Bank, Ltd.`: a signer's title or the previous
        // column glued to the name's first word by a PDF layout; the name
        // starts where the glued word does.
        if let Some((i, cut)) = kept
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, w)| glued_prefix(w).map(|n| (i, n)))
        {
            start = offset_in(p, kept[i]) + cut;
            let first = &p[start..offset_in(p, kept[i]) + kept[i].len()];
            glued = std::iter::once(first)
                .chain(kept[i + 1..].iter().copied())
                .collect();
            kept = &glued;
        }
        // `Royal Bank of CANADAby`: a field word glued after the name.
        if let Some(last) = kept.last() {
            if let Some(stem) = glued_field_suffix(last) {
                end = offset_in(p, last) + stem.len();
                let mut v = kept[..kept.len() - 1].to_vec();
                v.push(stem);
                unglued = v;
                kept = &unglued;
                tail = "";
            }
        }
        // `Rise (Tianjin) Education Information Consulting Co., Ltd.`: a
        // place in brackets inside the name; its start is before them.
        let mut bracketed = None;
        if lead_role.is_none() {
            let to = offset_in(p, kept[0]);
            let mut at = to.saturating_sub(120);
            while !p.is_char_boundary(at) {
                at += 1;
            }
            if let Some(c) = BRACKETED_PLACE.captures(&p[at..to]) {
                let from = at + c.get(1).unwrap().start();
                if !c[1]
                    .split_whitespace()
                    .any(|w| STOP_LEAD.contains(&w.to_ascii_lowercase().as_str()))
                {
                    start = from;
                    bracketed = Some(format!("{} ({})", normalize_ws(&c[1]), &c[2]));
                }
            }
        }
        // `Standard  Standard & Poor's`: a word doubled by a typo.
        let mut raw_words: Vec<&str> = Vec::with_capacity(kept.len());
        for w in kept {
            if raw_words.last() != Some(w) {
                raw_words.push(w);
            }
        }
        let raw = match bracketed {
            Some(b) => format!("{b} {}", raw_words.join(" ")),
            None => raw_words.join(" "),
        };
        // `WestRock Company`: a word with a capital inside (or a digit) is
        // a name, never a role's adjective (`Operating Company`).
        let coined = kept.len() == 2
            && kept[0]
                .chars()
                .skip(1)
                .any(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            && kept[0].chars().any(|c| c.is_ascii_lowercase());
        if defined.contains(&raw)
            || (is_role(&raw)
                && kept.len() <= 2
                && !coined
                && tail.is_empty()
                && c.name("suffix2").is_none())
        {
            continue;
        }
        out.push(OrgMatch {
            raw,
            start: base + start,
            end: base + end,
            lead_role: lead_role.map(str::to_string),
            trade_names: trade_names(&p[end..]),
        });
    }
}

/// Words that make a corporate word the role of a company in a merger or a
/// group (`Surviving Corporation`, `Holding Company`), never its name.
const STRUCTURE_PARTICIPLES: &[&str] = &[
    "surviving",
    "acquiring",
    "acquired",
    "resulting",
    "continuing",
    "operating",
    "holding",
    "merging",
    "disappearing",
    "constituent",
];

/// Signature titles, fields and corporate words a PDF layout glues to the
/// next column's first word.
fn glue_word(w: &str) -> bool {
    let l = w.to_ascii_lowercase();
    OFFICER_WORDS.contains(&l.as_str())
        || FIELD_WORDS.contains(&l.as_str())
        || ["company", "corporation", "agent", "bank"].contains(&l.as_str())
}

/// In `DirectorBanco` or `COMPANYMizuho`, where the glued word ends: a
/// glue word followed by a capital that starts a word in lower case
/// (`PricewaterhouseCoopers`, `McGraw` begin with no glue word).
fn glued_prefix(w: &str) -> Option<usize> {
    let chars: Vec<(usize, char)> = w.char_indices().collect();
    let mixed = (3..chars.len().saturating_sub(1)).find_map(|k| {
        let (at, c) = chars[k];
        let next = chars[k + 1].1;
        (c.is_uppercase() && next.is_lowercase() && glue_word(&w[..at])).then_some(at)
    });
    // In capitals (`COMPANYGOLDMAN`) only a title or a corporate word
    // counts, with a word of four letters or more after it.
    mixed.or_else(|| {
        if !all_caps(w) {
            return None;
        }
        let l = w.to_ascii_lowercase();
        OFFICER_WORDS
            .iter()
            .chain(&["company", "corporation"])
            .find(|g| l.starts_with(*g) && l.len() >= g.len() + 4)
            .map(|g| g.len())
    })
}

/// `CANADAby`: a word in capitals with a lower-case field word glued on.
fn glued_field_suffix(w: &str) -> Option<&str> {
    ["by", "its", "name", "title"].iter().find_map(|f| {
        let stem = w.strip_suffix(f)?;
        (stem.len() >= 2 && stem.chars().all(|c| c.is_ascii_uppercase())).then_some(stem)
    })
}

/// A word that ends a sentence: a full stop that is not an abbreviation
/// (`U.S.`, `St.`, `N.A.`).
pub(super) fn sentence_end(w: &str) -> bool {
    let Some(stem) = w.strip_suffix('.') else {
        return false;
    };
    !stem.contains('.') && stem.chars().filter(|c| c.is_alphabetic()).count() > 3 && !corporate(w)
}

/// A word with letters, all of them capitals (`JPMORGAN`, `N.A.`).
fn all_caps(w: &str) -> bool {
    let mut letters = w.chars().filter(|c| c.is_alphabetic()).peekable();
    letters.peek().is_some() && letters.all(char::is_uppercase)
}

/// A name written in capitals: more than half of its words are
/// (`JPMORGAN CHASE BANK, N.A.`, `BofA SECURITIES, INC.`; not `ICICI Bank
/// Limited`).
pub(super) fn mostly_caps(raw: &str) -> bool {
    let words: Vec<&str> = raw
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .collect();
    let caps = words.iter().filter(|w| all_caps(w)).count();
    caps * 2 > words.len()
}

/// Words as a section writes them in organisation names that are not in
/// capitals, keyed by their lower case: `JPMorgan Chase Bank, N.A.` gives
/// `jpmorgan` -> `JPMorgan`, `ICICI Bank Limited` gives `icici` -> `ICICI`.
/// [`display_name`] prefers these to title-casing.
pub(super) fn spellings(paragraphs: &[String]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let none = HashSet::new();
    for p in paragraphs {
        for m in orgs(p, &none) {
            if mostly_caps(&m.raw) {
                continue;
            }
            for w in m.raw.split_whitespace() {
                let bare = w.trim_end_matches(',');
                if bare.chars().next().is_some_and(char::is_uppercase) {
                    out.entry(bare.to_lowercase())
                        .or_insert_with(|| bare.to_string());
                }
            }
        }
    }
    out
}

/// Capitalised words kept as written: acronyms (no vowel, `HSBC`; at most
/// three letters, `BNP`; four letters with one vowel, `MUFG`), initials
/// (`U.S.`) and `&` names; common short words (`BANK`, `NEW`) are not.
pub(super) fn keep_caps(bare: &str) -> bool {
    const TITLE: &[&str] = &[
        "CO.", "INC.", "LTD.", "CORP.", "THE", "AND", "BANK", "TRUST", "FUND", "NEW", "YORK",
        "WEST", "EAST", "CITY", "GAS", "OIL", "AIR", "LIFE", "HOME", "CARE", "ONE", "STAR", "BAY",
        "EDISON",
    ];
    let letters: Vec<char> = bare.chars().filter(|c| c.is_alphabetic()).collect();
    let vowels = letters.iter().filter(|c| "AEIOUY".contains(**c)).count();
    bare.contains('&')
        || bare.trim_end_matches('.').contains('.')
        || (!TITLE.contains(&bare)
            && (vowels == 0 || letters.len() <= 3 || (letters.len() == 4 && vowels < 2)))
}

/// The name to show: mixed-case names as written; names in capitals
/// word by word, preferring the section's own `spellings` (`JPMORGAN` ->
/// `JPMorgan` when the section also writes `JPMorgan`), else keeping
/// acronyms ([`keep_caps`]) and title-casing the rest:
/// `JPMORGAN CHASE BANK, N.A.` -> `Jpmorgan Chase Bank, N.A.` without one.
pub(super) fn display_name(raw: &str, spellings: &HashMap<String, String>) -> String {
    if !mostly_caps(raw) {
        return raw.to_string();
    }
    raw.split(' ')
        .map(|w| {
            let bare = w.trim_end_matches(',');
            let rest = &w[bare.len()..];
            if !all_caps(bare) {
                w.to_string()
            } else if let Some(s) = spellings.get(&bare.to_lowercase()) {
                format!("{s}{rest}")
            } else if bare == "OF" || bare == "AND" {
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
pub(super) fn parties(b: &mut Builder, p: &str, credit: bool, set: &HashSet<String>) {
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
                let pn = b.org(parent);
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
                    b.entity(&j[1], "Jurisdiction", &format!("jurisdiction of {o}"));
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
    // `X, as Administrative Agent for the Lenders`: only where the text
    // says whom the agent acts for.
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
pub(super) fn subsidiaries(b: &mut Builder, p: &str) {
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
pub(super) fn commitment_rows(b: &mut Builder, p: &str, set: &HashSet<String>) {
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
        if let Some(r) = b.amount_of {
            b.relate(&a, r, &commitment, &evidence);
        }
    }
}

#[cfg(test)]
mod org_words_tests {
    use super::*;

    /// Every suffix ORG knows, written after a name: ORG finds the name,
    /// and ORG_WORDS lets the text through to it.
    #[test]
    fn every_org_suffix_holds_an_org_word() {
        let suffixes = [
            "Co.",
            "CO.",
            "Corp.",
            "CORP.",
            "Inc.",
            "INC.",
            "L.L.C.",
            "L.P.",
            "L.L.P.",
            "Ltd.",
            "LTD.",
            "S.A.",
            "B.V.",
            "N.V.",
            "S.p.A.",
            "S.R.L.",
            "Corporation",
            "CORPORATION",
            "Incorporated",
            "INCORPORATED",
            "Company",
            "COMPANY",
            "LLC",
            "LLP",
            "Limited",
            "LIMITED",
            "plc",
            "PLC",
            "Bank",
            "BANK",
            "Trust",
            "TRUST",
            "AG",
            "GmbH",
            "GMBH",
            "L.L.C",
            "L.P",
            "LP",
            "Ltd",
            "LTD",
            "Corp",
            "CORP",
            "Inc",
            "INC",
            "S.A",
            "B.V",
            "A/S",
            "S/A",
            "SRL",
            "SpA",
            "SPA",
        ];
        let comma_suffixes = ["inc.", "N.A.", "Inc", "GmbH", "plc"];
        for s in suffixes {
            let t = format!("between Acme Widgets {s} and others");
            assert!(ORG.is_match(&t), "{t}");
            assert!(ORG_WORDS.is_match(&t), "{t}");
        }
        for s in comma_suffixes {
            let t = format!("between Acme, {s} and others");
            assert!(ORG.is_match(&t), "{t}");
            assert!(ORG_WORDS.is_match(&t), "{t}");
        }
        let plain = "The Borrower shall deliver the notice within ten days.";
        assert!(!ORG_WORDS.is_match(plain) && !ORG.is_match(plain));
    }
}
