//! Organisation names in running text: capitalised words ending in a
//! corporate suffix (`Deutsche Bank AG New York Branch`), with the
//! trade names, glued layout words and signature fields a PDF leaves
//! around them taken off. A reader asks [`orgs`] for a paragraph's
//! organisations; the matches are cached per section.

use super::roles::*;
use super::text::*;
use once_cell::sync::Lazy;
use regex::Regex;
use std::collections::{HashMap, HashSet};

/// Organisation names: capitalised words ending in a corporate suffix, with
/// an optional `of New York` and `, N.A.`-style tail.
pub(in crate::extract::rules) static ORG: Lazy<Regex> = Lazy::new(|| {
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

/// Words that start a capitalised run but are not part of a name.
pub(in crate::extract::rules) const STOP_LEAD: &[&str] = &[
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
pub(in crate::extract::rules) struct OrgMatch {
    /// As written (a word doubled by a typo is kept once).
    pub(in crate::extract::rules) raw: String,
    /// Byte range of the match in the paragraph (with any leading
    /// stop words).
    pub(in crate::extract::rules) start: usize,
    pub(in crate::extract::rules) end: usize,
    /// A role word written glued in front of the name (`DISTRIBUTOR
    /// MOBILEVISION COMMUNICATIONS LTD.` in a signature block).
    pub(in crate::extract::rules) lead_role: Option<String>,
    /// Other names the text gives it right after (`d/b/a Time Life
    /// Music`, `(f/k/a McRae's, Inc.)`, `formerly known as Tradeum, Inc.`):
    /// the same organisation, one node.
    pub(in crate::extract::rules) trade_names: Vec<String>,
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

pub(in crate::extract::rules) fn orgs(p: &str, defined: &HashSet<String>) -> Vec<OrgMatch> {
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

pub(in crate::extract::rules) fn corporate(w: &str) -> bool {
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
pub(in crate::extract::rules) fn clear_org_matches() {
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

/// A name being cut out of one [`ORG`] match: its words (slices of the
/// paragraph), where it starts and ends in the paragraph, the match's tail
/// (`of New York`, `, N.A.`) and a role label glued in front of it.
struct Candidate<'p> {
    words: Vec<&'p str>,
    start: usize,
    end: usize,
    tail: &'p str,
    lead_role: Option<&'p str>,
}

fn orgs_in(p: &str, base: usize, defined: &HashSet<String>, out: &mut Vec<OrgMatch>) {
    let matches = org_matches(p);
    for spans in matches.iter() {
        let c = OrgCaptures {
            hay: p,
            spans: *spans,
        };
        if let Some(m) = org_of_match(p, base, defined, &c, out) {
            out.push(m);
        }
    }
}

/// The organisation one [`ORG`] match names, once the names it runs
/// together with are found on their own (pushed to `out` first) and the
/// words a layout glued around it are cut off; `None` where it names none
/// (a description, a sentence in capitals, a statute, a role).
fn org_of_match<'p>(
    p: &'p str,
    base: usize,
    defined: &HashSet<String>,
    c: &OrgCaptures<'p>,
    out: &mut Vec<OrgMatch>,
) -> Option<OrgMatch> {
    let whole = c.get(0).unwrap();
    let words: Vec<&str> = whole.as_str().split_whitespace().collect();
    let skip = words
        .iter()
        .take_while(|w| STOP_LEAD.contains(&w.to_ascii_lowercase().as_str()))
        .count();
    if names_no_company(c, skip) || column_letters(&words) {
        return None;
    }
    let mut n = Candidate {
        words: words[skip..].to_vec(),
        start: whole.start(),
        end: whole.end(),
        tail: "",
        lead_role: None,
    };
    n.start_after_sentence_end();
    n.split_off_other_names(p, base, defined, out);
    n.start_after_signer_or_number();
    if n.is_description(p, c) {
        return None;
    }
    n.strip_glued_lead();
    if n.words.is_empty() {
        return None;
    }
    if n.lead_role.is_some()
        || n.start < offset_in(p, n.words[0]) && !stop_led(&p[n.start..offset_in(p, n.words[0])])
    {
        n.start = offset_in(p, n.words[0]);
    }
    // `IN NO EVENT SHALL COMPANY`, `INCLUDING BUT NOT LIMITED`: a
    // sentence in capitals, not a name.
    if n.words
        .iter()
        .any(|w| SENTENCE_WORDS.contains(&w.to_ascii_lowercase().as_str()))
    {
        return None;
    }
    n.tail = c.name("tail").map_or("", |t| t.as_str().trim());
    n.drop_address_tail(p, c);
    if n.words.len() < 2 && n.tail.is_empty() {
        return None;
    }
    n.start_after_heading(p);
    if n.is_structure_role() || n.is_statute_or_blank(p) {
        return None;
    }
    n.unglue(p);
    let bracketed = n.bracketed_place(p);
    n.into_match(p, base, defined, c, bracketed)
}

/// `Form of Opinion of Company`: a corporate word right after `of` names
/// no organisation. So does one right after `by`, `with`, `to`, `for`,
/// `from` (`THE SOLE WARRANTY MADE BY COMPANY`), or a bare `Company` after
/// one word and `and` (`RGHI and Company`: a defined short name and the
/// defined `Company`, two parties).
fn names_no_company(c: &OrgCaptures, skip: usize) -> bool {
    let generic_suffix = c.name("suffix").is_some_and(|m| {
        ["company", "corporation"].contains(&m.as_str().to_ascii_lowercase().as_str())
    });
    c.name("suffix").is_some()
        && c.name("lead").is_some_and(|l| {
            let lead: Vec<&str> = l.as_str().split_whitespace().collect();
            lead.last().is_some_and(|w| {
                let w = w.to_ascii_lowercase();
                w == "of"
                    || (generic_suffix && ["by", "with", "to", "for", "from"].contains(&w.as_str()))
                    || (generic_suffix && w == "and" && lead.len() - skip.min(lead.len()) <= 2)
            })
        })
}

/// A table's column letters (`Y Z AA AB AC AD AE AF AG`): no name.
fn column_letters(words: &[&str]) -> bool {
    words.len() >= 3
        && words
            .iter()
            .all(|w| w.len() <= 2 && w.chars().all(|c| c.is_ascii_uppercase()))
}

impl<'p> Candidate<'p> {
    /// A sentence end (`Commitment. The Company`) or a generic `The`
    /// inside the run starts the name after it.
    fn start_after_sentence_end(&mut self) {
        let kept = &self.words;
        if let Some(cut) = kept.iter().rposition(|w| {
            let n = kept.len();
            let is_last = std::ptr::eq(*w, kept[n - 1]);
            !is_last && (sentence_end(w) || w.eq_ignore_ascii_case("the"))
        }) {
            self.words.drain(..cut + 1);
        }
    }

    /// Names run together in one match are found on their own, first:
    /// `Bank of America and Citibank, N.A.`, and two names side by side
    /// (signature blocks in columns: `Inktomi Corp Microsoft Corp`, `PC
    /// Financial Services Private Limited Mobimagic Co., Ltd.`), where a
    /// closing corporate word followed by more name ends the first.
    fn split_off_other_names(
        &mut self,
        p: &'p str,
        base: usize,
        defined: &HashSet<String>,
        out: &mut Vec<OrgMatch>,
    ) {
        if let Some(i) = and_between_names(&self.words, defined) {
            let from = offset_in(p, self.words[0]);
            let to = offset_in(p, self.words[i]);
            orgs_in(&p[from..to], base + from, defined, out);
            self.words.drain(..i + 1);
            self.start = offset_in(p, self.words[0]);
        }
        while let Some(j) = (0..self.words.len().saturating_sub(2)).find(|&j| {
            closing(self.words[j]) && j > 0 && {
                let n = self.words[j + 1];
                !corporate(n)
                    // `a Nevada Limited Liability Company`: one form.
                    && !["of", "and", "&", "liability", "partnership"]
                        .contains(&n.to_ascii_lowercase().as_str())
                    && n.chars().next().is_some_and(char::is_uppercase)
            }
        }) {
            let from = offset_in(p, self.words[0]);
            let to = offset_in(p, self.words[j]) + self.words[j].len();
            orgs_in(&p[from..to], base + from, defined, out);
            self.words.drain(..j + 1);
            self.start = offset_in(p, self.words[0]);
        }
    }

    /// A signer's name and title written before the name (`Thomas Sipp
    /// Chief Financial Officer SCULPTOR CAPITAL LP`), a postcode (`Austin,
    /// Texas 78741 Sibannac, Inc.`), a registration number or a document's
    /// title (`ODM Supply Agreement 2 Organic Preparations`): the name is
    /// after it. Then a press release's `About` and stop words a cut left
    /// at the front (`CORP. and DEUTSCHE BANK`) go.
    fn start_after_signer_or_number(&mut self) {
        if let Some(j) = self.words.iter().rposition(|w| {
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
            if j + 2 < self.words.len() {
                self.words.drain(..j + 1);
            }
        }
        // `About Dova Pharmaceuticals, Inc.`: `About` opens no company's
        // name.
        if self.words.len() > 2 && self.words[0] == "About" {
            self.words.remove(0);
        }
        let lead_stop = self
            .words
            .iter()
            .take_while(|w| STOP_LEAD.contains(&w.to_ascii_lowercase().as_str()))
            .count();
        if lead_stop < self.words.len() {
            self.words.drain(..lead_stop);
        }
    }

    /// `a Delaware Corporation`, `an Ohio Limited Liability Company`: what
    /// a party is, not its name.
    fn is_description(&self, p: &str, c: &OrgCaptures) -> bool {
        let article = |w: &str| w.eq_ignore_ascii_case("a") || w.eq_ignore_ascii_case("an");
        let word_before = p[..offset_in(p, self.words[0])]
            .trim_end()
            .rsplit(char::is_whitespace)
            .next()
            .unwrap_or("");
        let generic = c.name("suffix").is_some_and(|m| {
            ["corporation", "company", "limited"]
                .contains(&m.as_str().to_ascii_lowercase().as_str())
        });
        article(word_before) && generic
    }

    /// Words glued in front of a name by a layout: a clause or list number
    /// (`2.1`, `551` is kept only inside a name), a heading (`Schedule
    /// A`), a signature-block field (`Name Title`) or a role label
    /// (`DISTRIBUTOR MOBILEVISION COMMUNICATIONS LTD.`, `SHIPPER ECOPETROL
    /// S.A.`, kept as the lead role); `Bank of America` keeps its `Bank`.
    fn strip_glued_lead(&mut self) {
        while let Some(&first) = self.words.first() {
            let kept = &self.words;
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
                self.words.remove(0);
            } else if heading {
                self.words.drain(..2);
            } else if glued_role {
                self.lead_role = Some(bare);
                self.words.remove(0);
            } else {
                break;
            }
        }
    }

    /// `Bank of New York`, `Trust Company of New York` keep their `of`
    /// tail; `LEO PHARMA A/S of Industriparken` is followed by an address,
    /// which goes.
    fn drop_address_tail(&mut self, p: &str, c: &OrgCaptures) {
        let of_name = c.name("suffix").is_some_and(|m| {
            ["bank", "trust", "company", "corporation"]
                .contains(&m.as_str().to_ascii_lowercase().as_str())
        });
        if !of_name && (self.tail.starts_with("of ") || self.tail.starts_with("OF ")) {
            let n = self.tail.split_whitespace().count();
            if self.words.len() > n {
                self.words.truncate(self.words.len() - n);
                let last = self.words[self.words.len() - 1];
                self.end = offset_in(p, last) + last.len();
            }
            self.tail = "";
        }
    }

    /// `Form of Opinion of Milbank LLP`, `Law Department of X`: a heading
    /// or a department before the name.
    fn start_after_heading(&mut self, p: &str) {
        let kept = &self.words;
        if kept.len() > 3
            && (kept[0].eq_ignore_ascii_case("form") && kept[1].eq_ignore_ascii_case("of")
                || kept[1].eq_ignore_ascii_case("department") && kept[2].eq_ignore_ascii_case("of"))
        {
            if let Some(j) = (2..kept.len() - 1).find(|&j| kept[j].eq_ignore_ascii_case("of")) {
                self.start = offset_in(p, kept[j + 1]);
                self.words.drain(..j + 1);
            }
        }
    }

    /// `the Surviving Corporation`, `the Operating Company`: the role a
    /// merger or a group structure gives a company, not its name (also
    /// where a list of defined terms writes it alone).
    fn is_structure_role(&self) -> bool {
        self.words.len() == 2
            && ["corporation", "company"].contains(&self.words[1].to_ascii_lowercase().as_str())
            && STRUCTURE_PARTICIPLES.contains(&self.words[0].to_ascii_lowercase().as_str())
    }

    /// `Florida Business Corporation Act`, `General Corporation Law`: a
    /// statute's name; `Signed by ... of Your Company`: a form's blank.
    fn is_statute_or_blank(&self, p: &str) -> bool {
        let after = p[self.end..].trim_start();
        let statute = ["Act", "Law", "Code", "ACT", "LAW", "CODE"]
            .iter()
            .any(|w| {
                after
                    .strip_prefix(w)
                    .is_some_and(|r| !r.starts_with(char::is_alphanumeric))
            });
        statute
            || self
                .words
                .iter()
                .any(|w| ["your", "our"].contains(&w.to_ascii_lowercase().as_str()))
    }

    /// `Managing DirectorBanco Santander S.A.`, `WALT DISNEY COMPANYMizuho
    /// Bank, Ltd.`: a signer's title or the previous column glued to the
    /// name's first word by a PDF layout; the name starts where the glued
    /// word does. `Royal Bank of CANADAby`: a field word glued after it.
    fn unglue(&mut self, p: &'p str) {
        if let Some((i, cut)) = self
            .words
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, w)| glued_prefix(w).map(|n| (i, n)))
        {
            self.start = offset_in(p, self.words[i]) + cut;
            let first = &p[self.start..offset_in(p, self.words[i]) + self.words[i].len()];
            self.words.drain(..i);
            self.words[0] = first;
        }
        if let Some(&last) = self.words.last() {
            if let Some(stem) = glued_field_suffix(last) {
                self.end = offset_in(p, last) + stem.len();
                let n = self.words.len();
                self.words[n - 1] = stem;
                self.tail = "";
            }
        }
    }

    /// `Rise (Tianjin) Education Information Consulting Co., Ltd.`: a
    /// place in brackets inside the name; its start is before them.
    fn bracketed_place(&mut self, p: &str) -> Option<String> {
        if self.lead_role.is_some() {
            return None;
        }
        let to = offset_in(p, self.words[0]);
        let mut at = to.saturating_sub(120);
        while !p.is_char_boundary(at) {
            at += 1;
        }
        let c = BRACKETED_PLACE.captures(&p[at..to])?;
        let from = at + c.get(1).unwrap().start();
        if c[1]
            .split_whitespace()
            .any(|w| STOP_LEAD.contains(&w.to_ascii_lowercase().as_str()))
        {
            return None;
        }
        self.start = from;
        Some(format!("{} ({})", normalize_ws(&c[1]), &c[2]))
    }

    /// The match, unless the name is a term the section defines or a role
    /// (`WestRock Company` is a name: a word with a capital inside, or a
    /// digit, is never a role's adjective like `Operating Company`).
    fn into_match(
        self,
        p: &str,
        base: usize,
        defined: &HashSet<String>,
        c: &OrgCaptures,
        bracketed: Option<String>,
    ) -> Option<OrgMatch> {
        let kept = &self.words;
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
                && self.tail.is_empty()
                && c.name("suffix2").is_none())
        {
            return None;
        }
        Some(OrgMatch {
            raw,
            start: base + self.start,
            end: base + self.end,
            lead_role: self.lead_role.map(str::to_string),
            trade_names: trade_names(&p[self.end..]),
        })
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
pub(in crate::extract::rules) fn sentence_end(w: &str) -> bool {
    let Some(stem) = w.strip_suffix('.') else {
        return false;
    };
    !stem.contains('.') && stem.chars().filter(|c| c.is_alphabetic()).count() > 3 && !corporate(w)
}

/// A word with letters, all of them capitals (`JPMORGAN`, `N.A.`).
pub(in crate::extract::rules) fn all_caps(w: &str) -> bool {
    let mut letters = w.chars().filter(|c| c.is_alphabetic()).peekable();
    letters.peek().is_some() && letters.all(char::is_uppercase)
}

/// A name written in capitals: more than half of its words are
/// (`JPMORGAN CHASE BANK, N.A.`, `BofA SECURITIES, INC.`; not `ICICI Bank
/// Limited`).
pub(in crate::extract::rules) fn mostly_caps(raw: &str) -> bool {
    let words: Vec<&str> = raw
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .collect();
    let caps = words.iter().filter(|w| all_caps(w)).count();
    caps * 2 > words.len()
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

#[cfg(test)]
mod tests {
    use crate::extract::rules::extract;
    use crate::extract::rules::test_support::{has, input, org_names};

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
    fn table_cells_do_not_run_into_one_name() {
        // Schedule 1.1(b) of the Emerson agreement: a currency column before
        // the bank's name, each cell on its own line.
        let o = extract(&input(
            "SCHEDULE 1.1(b)",
            "### EUROCURRENCY PAYMENT OFFICES\n\n\
             <table>\n  <thead>\n    <tr>\n      <th>Currency</th>\n      <th>Eurocurrency Payment Office</th>\n    </tr>\n  </thead>\n  <tbody>\n\
             <tr>\n      <td>Dollars</td>\n      <td>JPMorgan Chase Bank, N.A., New York,<br>New York</td>\n    </tr>\n\
             <tr>\n      <td>Euros</td>\n      <td>JPMorgan Chase Bank, N.A., New York,<br>New York</td>\n    </tr>\n\
             <tr>\n      <td>British Pounds Sterling</td>\n      <td>JPMorgan Chase Bank, N.A., New York,<br>New York</td>\n    </tr>\n\
             <tr>\n      <td>Japanese Yen</td>\n      <td>JPMorgan Chase Bank, N.A., New York,<br>New York</td>\n    </tr>\n\
             </tbody>\n</table>",
        ));
        assert_eq!(org_names(&o), ["JPMorgan Chase Bank, N.A."]);
        // Rows of a commitments table: one lender per row.
        let o = extract(&input(
            "SCHEDULE 1.1(a)",
            "<table>\n<tr>\n<td>Goldman Sachs Bank USA</td>\n<td>$ 100,000,000</td>\n</tr>\n\
             <tr>\n<td>The Northern Trust Company</td>\n<td>$ 100,000,000</td>\n</tr>\n</table>",
        ));
        assert_eq!(
            org_names(&o),
            ["Goldman Sachs Bank USA", "Northern Trust Company"],
            "{:#?}",
            o.entities
        );
    }

    #[test]
    fn exhibit_titles_and_typos_are_not_organisations() {
        let o = extract(&input(
            "Exhibits",
            "Exhibit B-1 \u{2013} Form of Opinion of Company\u{2019}s External Counsel\n\n\
             \u{201C}S&P\u{201D} means Standard  Standard & Poor\u{2019}s Rating Services, a Standard  \
             Standard & Poor\u{2019}s Financial Services LLC business.",
        ));
        assert_eq!(
            org_names(&o),
            ["Standard & Poor's Financial Services LLC"],
            "{:#?}",
            o.entities
        );
    }

    #[test]
    fn and_inside_a_name_and_between_names() {
        let o = extract(&input(
            "Signatures",
            "AUSTRALIA AND NEW ZEALAND BANKING GROUP LIMITED, as a Lender\n\n\
             Industrial and Commercial Bank of China, Shanghai Municipal Branch, as a Lender\n\n\
             BNP PARIBAS SECURITIES CORP. and DEUTSCHE BANK SECURITIES INC., as Joint Lead Arrangers\n\n\
             among the Lenders and Bank of America, N.A., as Administrative Agent\n\n\
             The Reference Banks are Royal Bank of Canada and Citibank, N.A.",
        ));
        assert_eq!(
            org_names(&o),
            [
                "Australia and New Zealand Banking Group Limited",
                "Industrial and Commercial Bank of China",
                "BNP Paribas Securities Corp.",
                "Deutsche Bank Securities Inc.",
                "Bank of America, N.A.",
                "Royal Bank of Canada",
                "Citibank, N.A.",
            ],
            "{:#?}",
            o.entities
        );
        assert!(has(
            &o,
            "Industrial and Commercial Bank of China",
            "HAS_ROLE",
            "Lender"
        ));
        assert!(has(
            &o,
            "Deutsche Bank Securities Inc.",
            "HAS_ROLE",
            "Joint Lead Arranger"
        ));
    }

    #[test]
    fn dot_com_and_foreign_forms_are_organisations() {
        let o = extract(&input(
            "Preamble",
            "This Agreement is made by and between 2THEMART.COM, INC., a Nevada corporation (\"2TheMart\"), \
             theglobe.com, inc. (\"theglobe\"), OntoChem GmbH (\"OntoChem\"), Kiromic, Inc (\"Kiromic\"), \
             iVillage, Inc., (\"iVillage\") and Skype Communications, S.A. (\"Skype\").",
        ));
        let names = org_names(&o);
        for n in [
            "2THEMART.COM, INC.",
            "theglobe.com, inc.",
            "OntoChem GmbH",
            "Kiromic, Inc",
            "iVillage, Inc.",
            "Skype Communications, S.A.",
        ] {
            assert!(
                o.entities.iter().any(|e| e.entity_type == "Organization"
                    && (e.name == n || e.aliases.iter().any(|a| a == n))),
                "{n} in {names:?}"
            );
        }
    }

    #[test]
    fn corporate_forms_without_their_dots_and_lower_case_names() {
        let o = extract(&input(
            "Preamble",
            "This Agreement is made by and between e.l.f. Beauty, Inc. (\"elf\"), Google Inc whose place of \
             business is in California, AbbVie Biotechnology Ltd, a Bermuda corporation, IREYA B.V having an \
             address in Leiden, Establishment Labs, S.A a corporation of Costa Rica, LEO PHARMA A/S, in \
             Ballerup, PPD Development, LP, a Texas limited partnership, SCULPTOR CAPITAL LP, \
             Peregrine/Bridge Transfer Corporation, E.PIPHANY, INC., eGain Communications Corporation, \
             NETWORK 1 FINANCIAL, INC. and Clarus IV-D, L.P, a partnership.",
        ));
        let names = org_names(&o);
        for n in [
            "e.l.f. Beauty, Inc.",
            "Google Inc",
            "AbbVie Biotechnology Ltd",
            "IREYA B.V",
            "Establishment Labs, S.A",
            "LEO PHARMA A/S",
            "PPD Development, LP",
            "SCULPTOR CAPITAL LP",
            "Peregrine/Bridge Transfer Corporation",
            "E.PIPHANY, INC.",
            "eGain Communications Corporation",
            "NETWORK 1 FINANCIAL, INC.",
            "Clarus IV-D, L.P",
        ] {
            assert!(
                o.entities.iter().any(|e| e.entity_type == "Organization"
                    && (e.name == n || e.aliases.iter().any(|a| a == n))),
                "{n} in {names:?}"
            );
        }
    }

    #[test]
    fn descriptions_headings_labels_and_shouting_are_no_organisations() {
        let o = extract(&input(
            "Preamble",
            "This Agreement is made by and between SFG Financial Corp, a Delaware Corporation whose address \
             is in New York (\"Licensor\"), and PSiTech Corporation, a BVI Corporation (\"Licensee\").\n\n\
             Schedule A Erchonia Corporation price list.\n\n\
             SHIPPER ECOPETROL S.A. TAX ID 899.999.068-1\n\n\
             IN NO EVENT SHALL COMPANY BE LIABLE, INCLUDING BUT NOT LIMITED TO LOST PROFITS.\n\n\
             2.1 Company shall deliver the goods. Bank of America, N.A. is the bank.",
        ));
        let names = org_names(&o);
        assert!(
            has(&o, "PSiTech Corporation", "HAS_ROLE", "Licensee"),
            "{:#?}",
            o.relations
        );
        assert!(
            has(&o, "SFG Financial Corp", "HAS_ROLE", "Licensor"),
            "{:#?}",
            o.relations
        );
        for n in [
            "Erchonia Corporation",
            "Ecopetrol S.A.",
            "Bank of America, N.A.",
        ] {
            assert!(names.contains(&n), "{n} in {names:?}");
        }
        for bad in [
            "Delaware Corporation",
            "BVI Corporation",
            "1 Company",
            "Company",
        ] {
            assert!(!names.contains(&bad), "{bad} in {names:?}");
        }
        assert!(
            !names
                .iter()
                .any(|n| n.contains("Schedule") || n.contains("Shipper") || n.contains("Shall")),
            "{names:?}"
        );
    }

    #[test]
    fn a_heading_word_or_a_lawyer_glued_to_a_name_is_left_out() {
        let mut i = input(
            "Press Release",
            "About Dova Pharmaceuticals, Inc. Dova is a pharmaceutical company.\n\n\
             With a copy to: Jane Roe, Esq. and Loeb & Loeb LLP, 345 Park Avenue.",
        );
        i.doc_type = "commercial".into();
        let out = extract(&i);
        let names = org_names(&out);
        assert!(names.contains(&"Dova Pharmaceuticals, Inc."), "{names:?}");
        assert!(names.contains(&"Loeb & Loeb LLP"), "{names:?}");
        assert!(
            !names
                .iter()
                .any(|n| n.starts_with("About") || n.contains("Esq")),
            "{names:?}"
        );
    }

    #[test]
    fn statutes_blanks_defined_names_and_glued_columns_are_no_organisations() {
        let o = extract(&input(
            "Signatures",
            "This Agreement is subject to the Florida Business Corporation Act and the Delaware \
             General Corporation Law. Signed by an Authorized Representative of Your Company. \
             The Exchange Agent and the Surviving Corporation shall cooperate.\n\n\
             Managing DirectorBanco Santander S.A.\n\n\
             THE WALT DISNEY COMPANYMizuho Bank, Ltd.\n\n\
             THE WALT DISNEY COMPANYGOLDMAN SACHS LENDING PARTNERS LLC\n\n\
             ROYAL BANK OF CANADAby\n\n\
             Form of Opinion of Milbank LLP, counsel to the Borrower",
        ));
        let names = org_names(&o);
        for bad in [
            "Corporation",
            "Your Company",
            "DirectorBanco",
            "COMPANYMizuho",
            "CANADAby",
            "Form of",
        ] {
            assert!(!names.iter().any(|n| n.contains(bad)), "{bad} in {names:?}");
        }
        for good in [
            "Banco Santander S.A.",
            "Mizuho Bank, Ltd.",
            "Goldman Sachs Lending Partners LLC",
            "Royal Bank of Canada",
            "Milbank LLP",
        ] {
            assert!(names.contains(&good), "{good} in {names:?}");
        }
    }
}
