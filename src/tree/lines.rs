//! Line-level recognisers for plain-text contracts: heading candidates
//! (`ARTICLE`, `SECTION`, bare `1.01`, `SCHEDULE`/`EXHIBIT`/`ANNEX`), table of
//! contents lines, page furniture and prose. Each looks at one trimmed line
//! and knows nothing of the document; the stateful decisions live in
//! `plaintext.rs`.

use super::label::{glued_title, roman_value};
use once_cell::sync::Lazy;
use regex::Regex;

/// What a heading-like line claims to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CandKind {
    Article,
    /// `SECTION 1.01` / `Section 2.12`.
    Section,
    /// `1.01 Defined Terms` without a keyword.
    Bare,
    Schedule,
    Exhibit,
}

/// A heading-like line, split into its parts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate<'a> {
    pub kind: CandKind,
    /// The keyword as written (`ARTICLE`, `Section`, `EXHIBIT`), empty for bare.
    pub keyword: &'a str,
    /// The number or identifier as written (`IV`, `1.01`, `B-1`).
    pub ident: &'a str,
    /// Whether the number was followed by a period (`SECTION 1.01.`).
    pub dotted: bool,
    /// Parsed number: (article or section major, section minor). Annexes: (0, 0).
    pub num: (u32, Option<u32>),
    /// Other readings of a run-together roman numeral (`ARTICLE VCOVENANTS`),
    /// each with its own rest of line.
    pub alternatives: Vec<(u32, &'a str, &'a str)>,
    /// Text after the number and its separators, trimmed.
    pub rest: &'a str,
}

impl Candidate<'_> {
    /// `ARTICLE I`, `SECTION 7.02.`, `1.01`, `EXHIBIT A`.
    pub fn label(&self) -> String {
        let dot = if self.dotted { "." } else { "" };
        if self.keyword.is_empty() {
            format!("{}{dot}", self.ident)
        } else {
            format!("{} {}{dot}", self.keyword, self.ident)
        }
    }
}

const ARTICLE_WORDS: [&str; 2] = ["ARTICLE", "Article"];
const SECTION_WORDS: [&str; 2] = ["SECTION", "Section"];
/// `CLAUSE 4 OBLIGATIONS`, `CLAUSE FIRST PURPOSE`: the article level of
/// contracts drafted in civil-law style.
const CLAUSE_WORDS: [&str; 2] = ["CLAUSE", "Clause"];
// `§ 12` is a section keyword too (matched in `candidate`).
const SCHEDULE_WORDS: [&str; 8] = [
    "SCHEDULE",
    "Schedule",
    "ANNEX",
    "Annex",
    "APPENDIX",
    "Appendix",
    "ATTACHMENT",
    "Attachment",
];
const EXHIBIT_WORDS: [&str; 2] = ["EXHIBIT", "Exhibit"];

/// Recognises a heading-like line (already trimmed). Cheap for ordinary
/// lines: only lines starting with `A`, `S`, `E` or a digit are looked at.
pub(crate) fn candidate(t: &str) -> Option<Candidate<'_>> {
    let first = *t.as_bytes().first()?;
    match first {
        b'A' => keyword_rest(t, &ARTICLE_WORDS)
            .and_then(|(k, r)| article(k, r))
            .or_else(|| {
                keyword_rest(t, &SCHEDULE_WORDS).and_then(|(k, r)| annex(k, r, CandKind::Schedule))
            }),
        b'S' => keyword_rest(t, &SECTION_WORDS)
            .and_then(|(k, r)| section(k, r))
            .or_else(|| {
                keyword_rest(t, &SCHEDULE_WORDS).and_then(|(k, r)| annex(k, r, CandKind::Schedule))
            }),
        b'E' => keyword_rest(t, &EXHIBIT_WORDS).and_then(|(k, r)| annex(k, r, CandKind::Exhibit)),
        b'C' => keyword_rest(t, &CLAUSE_WORDS).and_then(|(k, r)| article(k, r)),
        b'0'..=b'9' => bare(t),
        _ => t.strip_prefix('§').and_then(|r| section("§", r)),
    }
}

fn keyword_rest<'a>(t: &'a str, words: &[&'static str]) -> Option<(&'a str, &'a str)> {
    words
        .iter()
        .find(|w| t.starts_with(**w))
        .map(|w| (&t[..w.len()], &t[w.len()..]))
}

/// Skips separators between a number and its title: spaces, `.`, `:`, dashes.
fn skip_separators(s: &str) -> &str {
    s.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '.' | ':' | '-' | '–' | '—' | '_')
    })
}

/// A title must not look like the middle of a sentence: `, in each case`,
/// `or 2.20.`, `(e) provides`, `hereto`.
fn title_start_ok(rest: &str) -> bool {
    match rest.chars().next() {
        None => true,
        Some(c) => !(c.is_lowercase() || matches!(c, ',' | ';' | '(' | ')' | '’' | '\'')),
    }
}

fn article<'a>(keyword: &'a str, after: &'a str) -> Option<Candidate<'a>> {
    let s = after.trim_start();
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        if digits > 3 {
            return None;
        }
        let num: u32 = s[..digits].parse().ok()?;
        let tail = &s[digits..];
        if tail.starts_with(|c: char| c.is_alphanumeric() || c == '(' || c == ',') {
            return None;
        }
        // `ARTICLE 2.18. Extension ...` style: the article is still 2.
        let tail = tail
            .strip_prefix('.')
            .map(|t| t.trim_start_matches(|c: char| c.is_ascii_digit()))
            .unwrap_or(tail);
        let rest = skip_separators(tail).trim_end();
        if !title_start_ok(rest) {
            return None;
        }
        return Some(Candidate {
            kind: CandKind::Article,
            keyword,
            ident: &s[..digits],
            dotted: false,
            num: (num, None),
            alternatives: Vec::new(),
            rest,
        });
    }
    if let Some(c) = spelled(keyword, s, CandKind::Article) {
        return Some(c);
    }
    let romans = s.bytes().take_while(|b| b"IVXLC".contains(b)).count();
    if romans == 0 {
        return None;
    }
    // Every valid reading of the roman prefix; a run-together title
    // (`VCOVENANTS`) offers several, the stateful pass picks one.
    let mut readings: Vec<(u32, &str, &str)> = Vec::new();
    for len in (1..=romans).rev() {
        let ident = &s[..len];
        let Some(v) = roman_value(ident) else {
            continue;
        };
        let tail = &s[len..];
        let glued = tail.starts_with(|c: char| c.is_uppercase());
        if tail
            .starts_with(|c: char| c.is_lowercase() || c.is_ascii_digit() || c == '(' || c == ',')
        {
            continue;
        }
        // `IXGUARANTY`: a title run into the numeral must be upper case.
        if glued && !tail.chars().take(2).all(char::is_uppercase) {
            continue;
        }
        // `VI` is not `V` and a title `I`: a glued word made only of
        // numeral letters is the rest of the numeral, not a title word.
        if glued
            && is_roman_letters(
                tail.split(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap_or(""),
            )
        {
            continue;
        }
        let rest = skip_separators(tail).trim_end();
        if title_start_ok(rest) {
            readings.push((v, ident, rest));
        }
    }
    let (v, ident, rest) = *readings.first()?;
    Some(Candidate {
        kind: CandKind::Article,
        keyword,
        ident,
        dotted: false,
        num: (v, None),
        alternatives: readings,
        rest,
    })
}

/// A word of roman numeral letters only (`I`, `II`, `VII`; `CIVIL` too,
/// which no article title starts with glued to its number).
fn is_roman_letters(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b"IVXLC".contains(&b))
}

/// Parses `1`, `1.01`, returning (major, minor, bytes used).
fn dotted_number(s: &str) -> Option<(u32, Option<u32>, usize)> {
    let b = s.as_bytes();
    let d1 = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if d1 == 0 || d1 > 3 {
        return None;
    }
    let major = s[..d1].parse().ok()?;
    if b.get(d1) == Some(&b'.') {
        let d2 = b[d1 + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if d2 > 0 {
            if d2 > 3 {
                return None;
            }
            let minor = s[d1 + 1..d1 + 1 + d2].parse().ok()?;
            return Some((major, Some(minor), d1 + 1 + d2));
        }
    }
    Some((major, None, d1))
}

/// A number spelled out after its keyword (`SECTION FOUR. REMUNERATION`,
/// `CLAUSE TWENTY-FIRST SETTLEMENT`), in the keyword's case or capitalised,
/// before a title that starts like one.
fn spelled<'a>(keyword: &'a str, s: &'a str, kind: CandKind) -> Option<Candidate<'a>> {
    let end = s
        .find(|c: char| !(c.is_ascii_alphabetic() || c == '-'))
        .unwrap_or(s.len());
    let word = &s[..end];
    let num = super::label::spelled_number(word)?;
    // `Section Two` / `SECTION TWO`, never `Section two of`.
    let upper = word.bytes().all(|b| !b.is_ascii_lowercase());
    if !(upper || word.starts_with(|c: char| c.is_ascii_uppercase())) {
        return None;
    }
    let tail = &s[end..];
    let dotted = tail.starts_with('.');
    if tail.starts_with(|c: char| !(c.is_whitespace() || matches!(c, '.' | ':' | '-' | '–' | '—')))
    {
        return None;
    }
    let rest = skip_separators(tail).trim_end();
    if !title_start_ok(rest) || rest.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    Some(Candidate {
        kind,
        keyword,
        ident: word,
        dotted,
        num: (num, None),
        alternatives: Vec::new(),
        rest,
    })
}

fn section<'a>(keyword: &'a str, after: &'a str) -> Option<Candidate<'a>> {
    let s = after.trim_start();
    if s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return spelled(keyword, s, CandKind::Section);
    }
    let (major, minor, used) = dotted_number(s)?;
    let ident = &s[..used];
    let mut tail = &s[used..];
    // `Section 2.08(e)`, `Section 2.05.4`, `Section 3(3)`, `Section 2.01A`:
    // references or sub-levels, not section headings. A title glued to
    // the number (`SECTION 5.01Affirmative`, `§ 1Premises`, `SECTION
    // 2.07[Reserved]`, common in extracted contents pages) is one.
    if tail.starts_with(|c: char| c.is_alphanumeric() || c == '(' || c == ',' || c == ';')
        && !glued_title(tail)
    {
        return None;
    }
    if tail.starts_with('.') && tail[1..].starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let dotted = tail.starts_with('.');
    if dotted {
        tail = &tail[1..];
    }
    let rest = skip_separators(tail).trim_end();
    if !title_start_ok(rest) || rest.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    Some(Candidate {
        kind: CandKind::Section,
        keyword,
        ident,
        dotted,
        num: (major, minor),
        alternatives: Vec::new(),
        rest,
    })
}

/// Words a title run into a bare number may have: a heading's title, not
/// the first words of a sentence.
const GLUED_TITLE_WORDS: usize = 12;
/// Characters of a whole line that is a glued title without its period.
const GLUED_TITLE_LINE: usize = 60;

/// A title run into a bare number (`11.1Letter of Credit.`, `4.01.Taxes`,
/// `7.6Operating Costs`) reads as a heading when it is closed: cut by its
/// own period before the body (`24.10Time is of the Essence.  Time`), or
/// a short line of its own with at least half its words capitalised. A
/// numbered paragraph run into its first sentence (`1.2Landlord hereby
/// grants to the District and its`) runs to the wrapping width instead.
/// With a space after the number such a paragraph is still a candidate,
/// which the decoder marks down for its title.
pub(crate) fn glued_bare_title(rest: &str) -> bool {
    if rest.starts_with('[') {
        return true;
    }
    if !glued_title(rest) {
        return false;
    }
    let title = inline_title(rest);
    let words = title.split_whitespace().count();
    if words > GLUED_TITLE_WORDS {
        return false;
    }
    if title.len() < rest.len() {
        return true;
    }
    let caps = title
        .split_whitespace()
        .filter(|w| w.starts_with(char::is_uppercase))
        .count();
    rest.chars().count() <= GLUED_TITLE_LINE && !rest.ends_with([',', ';']) && caps * 2 >= words
}

fn bare(t: &str) -> Option<Candidate<'_>> {
    let (major, minor, used) = dotted_number(t)?;
    let minor = minor?;
    if major == 0 || t.as_bytes()[..used].len() > 6 {
        return None;
    }
    let mut tail = &t[used..];
    let dotted = tail.starts_with('.');
    if dotted {
        tail = &tail[1..];
    }
    let rest = tail.trim();
    if rest.is_empty() {
        // A label alone on its line (`1.02`), its title on the next line.
    } else if !tail.starts_with(char::is_whitespace) {
        if !glued_bare_title(rest) {
            return None;
        }
    } else if !rest.starts_with(|c: char| c.is_uppercase() || c == '[') {
        // A bare number needs a real title: a capitalised word or `[Reserved]`.
        return None;
    }
    Some(Candidate {
        kind: CandKind::Bare,
        keyword: "",
        ident: &t[..used],
        dotted,
        num: (major, Some(minor)),
        alternatives: Vec::new(),
        rest,
    })
}

fn annex<'a>(keyword: &'a str, after: &'a str, kind: CandKind) -> Option<Candidate<'a>> {
    if !after.starts_with(|c: char| c.is_whitespace()) {
        return None;
    }
    let s = after.trim_start();
    let end = s
        .find(|c: char| c.is_whitespace() || matches!(c, ':' | '–' | '—' | ','))
        .unwrap_or(s.len());
    let mut ident = &s[..end];
    let mut tail = &s[end..];
    if let Some(stripped) = ident.strip_suffix('.') {
        ident = stripped;
        tail = &s[end - 1..];
    }
    if !annex_ident_ok(ident, kind) {
        return None;
    }
    let mut rest = skip_separators(tail).trim_end();
    // `ANNEX A to CREDIT AGREEMENT`: what the annex belongs to, part of
    // the label line; its title follows below.
    if rest.len() < 60 && (rest.starts_with("to ") || rest.starts_with("TO ")) {
        rest = "";
    }
    if !title_start_ok(rest) {
        return None;
    }
    Some(Candidate {
        kind,
        keyword,
        ident,
        dotted: false,
        num: (0, None),
        alternatives: Vec::new(),
        rest,
    })
}

/// `EXHIBIT 10.3`, `Exhibit 99.5`: the number the SEC filing gives the
/// whole document (Item 601 exhibit numbers start at 10 for contracts),
/// written above it, not an exhibit of the contract.
pub(crate) fn is_filing_exhibit_number(c: &Candidate<'_>) -> bool {
    c.kind == CandKind::Exhibit
        && c.rest.is_empty()
        && c.ident.split_once('.').is_some_and(|(major, minor)| {
            major.len() == 2
                && major.bytes().all(|b| b.is_ascii_digit())
                && !minor.is_empty()
                && minor.bytes().all(|b| b.is_ascii_digit())
        })
}

/// `A`, `B-1`, `H-2`, `IV`, `5.13`, `2.01A`, `1.1(a)`.
fn annex_ident_ok(ident: &str, kind: CandKind) -> bool {
    if kind == CandKind::Exhibit && ident.contains('(') {
        // `Exhibit 10(r)`: the SEC filing's own exhibit number. (`Exhibit
        // 10.1` at the top is left to the decoder: an exhibit there would
        // end the body before it starts.)
        return false;
    }
    static RE: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"^(?:[A-Z]{1,2}(?:-?[0-9]{1,2}[A-Z]?)?|[IVX]{1,5}|[0-9]{1,2}(?:\.[0-9]{1,2})?(?:\.?[A-Z])?(?:\([a-zA-Z0-9]{1,3}\))?)$")
            .expect("annex id regex")
    });
    RE.is_match(ident)
}

/// A line of a table of contents: dotted leaders, a trailing page number,
/// several headings run together, or a page number glued to a title.
/// Hand-written scans (no regex): this runs on many lines.
pub(crate) fn is_tocish(t: &str) -> bool {
    has_leader(t.as_bytes()) || is_tocish_past_leaders(t)
}

/// `is_tocish` for a line already known to have no leaders.
pub(crate) fn is_tocish_past_leaders(t: &str) -> bool {
    if is_deep_number_alone(t) {
        return true;
    }
    // A page number right before the next entry's keyword: `Advances21SECTION`
    // or `Borrowings 24     Section` (spaces may be no-break spaces).
    let bytes = t.as_bytes();
    for i in memchr::memchr3_iter(b'S', b'A', b'E', bytes) {
        if i == 0
            || !bytes[i - 1].is_ascii_digit()
                && !bytes[i - 1].is_ascii_whitespace()
                && bytes[i - 1] != 0xA0
        {
            continue;
        }
        let rest = &bytes[i..];
        let glued_ok = if [b"SECTION", b"Section", b"ARTICLE", b"Article"]
            .iter()
            .any(|k| rest.starts_with(*k))
        {
            true
        } else if [&b"EXHIBIT"[..], b"Exhibit", b"SCHEDULE", b"Schedule"]
            .iter()
            .any(|k| rest.starts_with(k))
        {
            false
        } else {
            continue;
        };
        let (spaces, digits, prev) = trailing_number(&t[..i]);
        if digits == 0 || digits > 3 {
            continue;
        }
        if spaces == 0
            && glued_ok
            && prev.is_some_and(|c| c.is_ascii_alphabetic() || "]).".contains(c))
        {
            return true;
        }
        if spaces >= 2 {
            return true;
        }
    }
    // A trailing page number: after two spaces (`Term   Page 6`) or glued to
    // a lower-case word (`Extension Date40`).
    let (_, digits, prev) = trailing_number(t);
    if digits == 0 || digits > 3 {
        return false;
    }
    if prev.is_some_and(|c| c.is_ascii_lowercase() || c == ']' || c == ')') {
        return true;
    }
    let body = t.trim_end_matches(char::is_whitespace);
    let body = &body[..body.len() - digits];
    let body = match body.trim_end().strip_suffix("Page") {
        Some(b) => b,
        None => body,
    };
    let before = body.trim_end_matches(char::is_whitespace);
    !before.is_empty() && body[before.len()..].chars().count() >= 2
}

/// `5.1.1` alone on its line: a contents entry whose title is on the next
/// line (a contents page of one cell per line). In the body a third-level
/// number is a section's own outline, never a heading without its title,
/// so a line of nothing else belongs to a listing.
fn is_deep_number_alone(t: &str) -> bool {
    if !t.starts_with(|c: char| c.is_ascii_digit()) || t.len() > 12 {
        return false;
    }
    let t = t.strip_suffix('.').unwrap_or(t);
    let mut parts = 0;
    for p in t.split('.') {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        parts += 1;
    }
    parts >= 3
}

/// Dotted or underscored leaders: `.....`, `. . . .`, `_____`.
pub(crate) fn has_leader(b: &[u8]) -> bool {
    // Every leader holds four dots or five underscores; most lines hold
    // fewer. memchr finds them (vectorised) and stops at the fourth or
    // fifth, where the walk below goes byte by byte.
    let at_least = |x: u8, n: usize| memchr::memchr_iter(x, b).nth(n - 1).is_some();
    if !at_least(b'.', 4) && !at_least(b'_', 5) {
        return false;
    }
    let (mut dots, mut spaced, mut unders) = (0u32, 0u32, 0u32);
    for (i, &c) in b.iter().enumerate() {
        dots = if c == b'.' { dots + 1 } else { 0 };
        unders = if c == b'_' { unders + 1 } else { 0 };
        if c == b'.' && b.get(i + 1) == Some(&b' ') {
            spaced += 1;
        } else if c != b' ' {
            spaced = 0;
        }
        if dots >= 5 || unders >= 5 || spaced >= 4 {
            return true;
        }
    }
    false
}

/// For text ending in `... word 27   `: (whitespace characters after the
/// number, digits of the number, the character before the number).
fn trailing_number(s: &str) -> (usize, usize, Option<char>) {
    let mut it = s.chars().rev().peekable();
    let mut spaces = 0;
    while it.next_if(|c| c.is_whitespace()).is_some() {
        spaces += 1;
    }
    let mut digits = 0;
    while it.next_if(char::is_ascii_digit).is_some() {
        digits += 1;
    }
    (spaces, digits, it.next())
}

/// `TABLE OF CONTENTS`, `Contents`, possibly run into the first entries.
pub(crate) fn is_toc_title(t: &str) -> bool {
    // Cheap exit for the ordinary line: it runs on every line.
    if !t
        .as_bytes()
        .first()
        .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'T' | b't' | b'C' | b'c'))
    {
        return false;
    }
    // A page number run into the title (`2 TABLE OF CONTENTS`): up to
    // three digits and a space (the line's first space, so no search).
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let t = if digits <= 3 && t.as_bytes().get(digits) == Some(&b' ') {
        t[digits + 1..].trim_start()
    } else {
        t
    };
    let b = t.as_bytes();
    if b.len() >= 17 && b[..17].eq_ignore_ascii_case(b"TABLE OF CONTENTS") {
        return true;
    }
    t.trim_end().eq_ignore_ascii_case("CONTENTS")
}

/// Page numbers, running page furniture and extractor markers: lines that
/// carry no text of their own.
pub(crate) fn is_furniture(t: &str) -> bool {
    if t.is_empty() {
        return true;
    }
    let b = t.as_bytes();
    if b.len() >= 3 && b.iter().all(|c| b"-=_* \t".contains(c)) {
        return true;
    }
    if b.len() > 12 {
        return false;
    }
    // Lower-cased on the stack: this runs on every short line.
    let mut buf = [0u8; 12];
    let lower = &mut buf[..b.len()];
    lower.copy_from_slice(b);
    lower.make_ascii_lowercase();
    let l = std::str::from_utf8(lower)
        .expect("ASCII lower case keeps UTF-8")
        .trim();
    let page_num = |s: &str| (1..=3).contains(&s.len()) && s.bytes().all(|c| c.is_ascii_digit());
    l == "page"
        || is_extractor_marker(l)
        || page_num(l)
        || l.strip_prefix("page")
            .is_some_and(|r| page_num(r.trim_start()))
        || (l.len() <= 6 && l.bytes().all(|c| b"ivxlc".contains(&c)))
        || l.strip_prefix('-')
            .and_then(|r| r.strip_suffix('-'))
            .is_some_and(|r| page_num(r.trim()))
}

/// A block marker the text extraction leaves on a line of its own
/// (`[[TABLE]]`, `[[/TABLE]]` around every table in nine corpus files, or
/// any other `[[WORD]]`): structure of the conversion, not of the contract.
fn is_extractor_marker(l: &str) -> bool {
    l.strip_prefix("[[")
        .and_then(|r| r.strip_suffix("]]"))
        .map(|r| r.strip_prefix('/').unwrap_or(r))
        .is_some_and(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphabetic()))
}

/// Running text: a long line made mostly of lower-case words.
pub(crate) fn is_prose(t: &str) -> bool {
    is_prose_shape(t) && !is_tocish(t)
}

/// The shape of running text (long, mostly lower-case words), before the
/// contents-line test `is_prose` adds.
pub(crate) fn is_prose_shape(t: &str) -> bool {
    if t.len() < 60 {
        return false;
    }
    let mut words = 0usize;
    let mut lower = 0usize;
    if t.is_ascii() {
        // Most lines: a byte walk, no char decoding (this runs on every line).
        let mut in_word = false;
        for &b in t.as_bytes() {
            let ws = b.is_ascii_whitespace();
            if !ws && !in_word {
                words += 1;
                lower += usize::from(b.is_ascii_lowercase());
            }
            in_word = !ws;
        }
        return words >= 8 && lower * 100 >= words * 35;
    }
    for w in t.split_whitespace() {
        words += 1;
        if w.starts_with(|c: char| c.is_lowercase()) {
            lower += 1;
        }
    }
    words >= 8 && lower * 100 >= words * 35
}

/// A short line that can serve as a title on the line after `ARTICLE I`.
pub(crate) fn is_title_line(t: &str) -> bool {
    let words = t.split_whitespace().count();
    !t.is_empty()
        && t.len() <= 120
        && words <= 16
        && !t.starts_with(|c: char| c.is_lowercase())
        && !t.ends_with(',')
        && !is_prose(t)
}

/// Title of an inline heading: the text up to the first sentence-ending
/// period (not an abbreviation) or em-dash; `[Reserved]` up to its bracket.
pub(crate) fn inline_title(rest: &str) -> &str {
    if rest.starts_with('[') {
        if let Some(i) = rest.find(']') {
            return &rest[..=i];
        }
    }
    for (i, ch) in rest.char_indices() {
        match ch {
            '.' => {
                let next = rest[i + 1..].chars().next();
                if next.is_none_or(char::is_whitespace) && !is_abbreviation(&rest[..i]) {
                    return &rest[..i];
                }
                // `Title.Body` run together (Disney): a period followed by
                // an upper-case letter that starts a new sentence.
                if next.is_some_and(char::is_uppercase)
                    && !is_abbreviation(&rest[..i])
                    && rest[..i].ends_with(|c: char| c.is_lowercase())
                {
                    return &rest[..i];
                }
            }
            '—' => return rest[..i].trim_end(),
            _ => {}
        }
    }
    if rest.len() > 150 {
        let mut end = 150;
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let cut = rest[..end].rfind(' ').unwrap_or(end);
        return &rest[..cut];
    }
    rest
}

fn is_abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace())
        .next()
        .unwrap_or("");
    let w = word.trim_start_matches(|c: char| !c.is_alphanumeric());
    (w.len() == 1 && w.starts_with(|c: char| c.is_uppercase()))
        || (w.contains('.') && w.chars().all(|c| c.is_alphabetic() || c == '.'))
        || matches!(
            w,
            "Inc" | "Co" | "Corp" | "Ltd" | "No" | "Nos" | "Jr" | "Sr" | "vs" | "St" | "Mr" | "Ms"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(t: &str) -> Candidate<'_> {
        candidate(t).unwrap_or_else(|| panic!("not a candidate: {t}"))
    }

    #[test]
    fn article_forms() {
        let c = cand("ARTICLE IV");
        assert_eq!((c.num, c.rest), ((4, None), ""));
        let c = cand("Article 9: ADMINISTRATIVE AGENT");
        assert_eq!((c.num.0, c.rest), (9, "ADMINISTRATIVE AGENT"));
        let c = cand("ARTICLE VCOVENANTS");
        assert_eq!((c.num.0, c.rest), (5, "COVENANTS"));
        let c = cand("ARTICLE IXGUARANTY");
        assert_eq!((c.num.0, c.rest), (9, "GUARANTY"));
        let c = cand("ARTICLE 1 Premises and Term");
        assert_eq!(c.rest, "Premises and Term");
        assert!(candidate("Article 2, any other officer").is_none());
        assert!(candidate("Article 8 or the Commitments expire").is_none());
        assert!(candidate("Article 2 (including Section 2.13) of this").is_none());
        assert!(candidate("Articles of Incorporation").is_none());
        let c = cand("CLAUSE SECOND  DEFINITIONS");
        assert_eq!(
            (c.kind, c.num, c.rest),
            (CandKind::Article, (2, None), "DEFINITIONS")
        );
        let c = cand("CLAUSE TWENTY-NINTH ADDITIONS");
        assert_eq!(c.num, (29, None));
        let c = cand("SECTION FOUR. REMUNERATION");
        assert_eq!(
            (c.kind, c.num, c.dotted),
            (CandKind::Section, (4, None), true)
        );
        assert!(candidate("Section two of the Agreement").is_none());
        assert!(candidate("Clause 5 of this Agreement").is_none());
        assert!(candidate("SECTION ONE hereof").is_none());
    }

    #[test]
    fn section_forms() {
        let c = cand("SECTION 7.02. Agent and Affiliates. Body text");
        assert_eq!(
            (c.num, c.dotted, c.label()),
            ((7, Some(2)), true, "SECTION 7.02.".into())
        );
        assert_eq!(inline_title(c.rest), "Agent and Affiliates");
        let c = cand("SECTION1.01.Certain Defined Terms.");
        assert_eq!(inline_title(c.rest), "Certain Defined Terms");
        let c = cand("SECTION 4.01.Title. Body text goes on");
        assert_eq!(inline_title(c.rest), "Title");
        let c = cand("Section 1.04.    [Reserved].");
        assert_eq!(inline_title(c.rest), "[Reserved]");
        let c = cand("SECTION 2.15.Sharing of Payments, etc. If any Lender");
        assert_eq!(inline_title(c.rest), "Sharing of Payments, etc");
        assert_eq!(cand("SECTION 1.0 DEFINITIONS").num, (1, Some(0)));
        assert!(candidate("Section 8.07, in each case other than").is_none());
        assert!(candidate("Section 2.08(e) provides a mechanism").is_none());
        assert!(candidate("Section 12.04 shall be exercised").is_none());
        assert!(candidate("Sections 2.14, 2.15 and 2.16").is_none());
    }

    #[test]
    fn bare_and_annex_forms() {
        assert_eq!(cand("1.01 Defined Terms").num, (1, Some(1)));
        assert!(candidate("2.19 or 2.20.").is_none());
        assert!(candidate("1.1   \"Effective Date\" shall mean").is_none());
        assert_eq!(cand("EXHIBIT B-1").kind, CandKind::Exhibit);
        assert_eq!(cand("Schedule 2.01A Commitments").rest, "Commitments");
        assert_eq!(cand("SCHEDULE 5.13").kind, CandKind::Schedule);
        assert_eq!(cand("ANNEX I").kind, CandKind::Schedule);
        assert_eq!(cand("Exhibit A - Note").rest, "Note");
        assert!(candidate("Exhibit A hereto, evidencing").is_none());
        assert!(candidate("Exhibit 10(r) Form 10-K for 1995").is_none());
        assert_eq!(cand("EXHIBIT 1.A").kind, CandKind::Exhibit);
        assert!(candidate("EXHIBITS").is_none());
    }

    #[test]
    fn bare_numbers_glued_to_a_closed_title() {
        let c = cand("11.1Letter of Credit.  Concurrent with Tenant’s execution");
        assert_eq!(
            (c.num, c.ident, inline_title(c.rest)),
            ((11, Some(1)), "11.1", "Letter of Credit")
        );
        assert_eq!(
            inline_title(cand("1.1Subject Referred To.").rest),
            "Subject Referred To"
        );
        assert_eq!(cand("2.4ROFO Right.").rest, "ROFO Right.");
        let c = cand("4.01.Taxes. The Borrower shall pay");
        assert_eq!((c.dotted, inline_title(c.rest)), (true, "Taxes"));
        assert_eq!(cand("2.07[Reserved]").rest, "[Reserved]");
        assert_eq!(cand("7.6Operating Costs").rest, "Operating Costs");
        // A numbered paragraph run into its first sentence goes on below.
        assert!(
            candidate("1.2Landlord hereby grants to the District and its Agents, employees")
                .is_none()
        );
        assert!(candidate("1.1The Borrower shall repay the Advances on the").is_none());
        // Amounts, ids and lower-case words are not titles.
        assert!(candidate("2.5million of the Commitments").is_none());
        assert!(candidate("2.5Million Dollars ($2,500,000) of the Commitments shall be").is_none());
        assert!(candidate("1.2B, in the manner and for the purposes").is_none());
        assert!(candidate("2.01A").is_none());
        assert!(candidate("2.1.3Notices.").is_none());
        // The same gluing after a keyword.
        assert_eq!(
            cand("SECTION 5.01AFFIRMATIVE COVENANTS").rest,
            "AFFIRMATIVE COVENANTS"
        );
        assert!(candidate("Section 2.01A Commitments").is_none());
    }

    #[test]
    fn a_bare_label_alone_is_a_candidate_a_deeper_one_a_contents_line() {
        let c = cand("4.1");
        assert_eq!((c.num, c.rest, c.label()), ((4, Some(1)), "", "4.1".into()));
        assert_eq!(cand("1.02.").label(), "1.02.");
        assert!(candidate("1.").is_none() && candidate("2019").is_none());
        assert!(is_tocish("5.1.1") && is_tocish("4.2.1."));
        assert!(!is_tocish("4.1") && !is_tocish("5.1.1 Condenser Water"));
    }

    #[test]
    fn romans_are_canonical() {
        assert_eq!(roman_value("XIV"), Some(14));
        assert_eq!(roman_value("IX"), Some(9));
        assert_eq!(roman_value("VC"), None);
        assert_eq!(roman_value("IIII"), None);
    }

    #[test]
    fn toc_and_prose_lines() {
        assert!(is_tocish("SECTION 1.01 Definitions.................. 1"));
        assert!(is_tocish(
            "and Borrowings 24     Section 1.03.   Terms Generally 24     Section"
        ));
        assert!(is_tocish(
            "ARTICLE VCOVENANTSSECTION 5.01Affirmative Covenants41SECTION 5.02Negative"
        ));
        assert!(is_tocish(
            "SECTION 16.0 GENERAL...........................................  Page 19"
        ));
        assert!(!is_tocish(
            "SECTION 2.01. Commitments to Lend. Each Bank severally agrees, on the terms"
        ));
        assert!(is_prose(
            "AGREEMENT dated as of April 6, 2020 among CONSOLIDATED EDISON, INC., the LENDERS"
        ));
        assert!(!is_prose(
            "EXHIBITS           Exhibit A – Form of Assignment and Assumption       Exhibit"
        ));
        assert!(
            is_furniture("iv")
                && is_furniture("Page 3")
                && is_furniture("-12-")
                && is_furniture("[[TABLE]]")
                && is_furniture("[[/IMAGE]]")
                && !is_furniture("[[Reserved]]x")
        );
        assert!(
            is_toc_title("TABLE OF CONTENTS*") && is_toc_title("TABLE OF CONTENTSPageARTICLE I")
        );
        // A page number of up to three digits and a space before the title.
        assert!(is_toc_title("2 TABLE OF CONTENTS") && is_toc_title("123   Contents"));
        assert!(!is_toc_title("1234 CONTENTS") && !is_toc_title("12TABLE OF CONTENTS"));
    }

    #[test]
    fn leaders_need_a_run_not_just_enough_dots() {
        assert!(has_leader(b"Definitions.....1") && has_leader(b"Taxes . . . . 38"));
        assert!(has_leader(b"Notices_____12"));
        assert!(!has_leader(b"1.2.3.4 Title") && !has_leader(b"a_b_c_d_e_f"));
        assert!(is_furniture("PAGE 12") && is_furniture("- 7 -") && is_furniture("xii"));
        assert!(!is_furniture("Page 1234") && !is_furniture("Definitions"));
    }
}
