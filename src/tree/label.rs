//! One parse of a heading into its label (`ARTICLE VII`, `Section 2.12`,
//! `1.1`, `Schedule 2.01A`) and its name (the title without the label).
//!
//! Every heading of both detectors goes through [`split_heading`] once, in
//! the tree stage; matching, reports and the graph read `label` / `name`
//! from the node instead of stripping numbering from titles again.

use serde::{Deserialize, Serialize};

/// What kind of part a label numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelKind {
    Article,
    Section,
    Schedule,
    Exhibit,
    Annex,
    Appendix,
    Attachment,
    Part,
}

/// The numbering of a heading, as written and as a sequence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    pub kind: LabelKind,
    /// As written, without trailing separators: `ARTICLE VII`,
    /// `Section 2.12`, `1.1`, `Schedule 2.01A`.
    pub text: String,
    /// The number parsed: `[7]`, `[2, 12]`, `[1, 1]`, `[2, 1]`; letters
    /// count from 1 (`Exhibit B-1` is `[2, 1]`).
    pub seq: Vec<u32>,
}

const KEYWORDS: [(&str, LabelKind); 10] = [
    ("ARTICLE", LabelKind::Article),
    ("SECTION", LabelKind::Section),
    ("SCHEDULE", LabelKind::Schedule),
    ("EXHIBIT", LabelKind::Exhibit),
    ("ANNEX", LabelKind::Annex),
    ("APPENDIX", LabelKind::Appendix),
    ("ATTACHMENT", LabelKind::Attachment),
    ("PART", LabelKind::Part),
    ("CLAUSE", LabelKind::Section),
    ("§", LabelKind::Section),
];

/// Spelled-out numbers used for articles (`ARTICLE ONE`).
const WORDS: [&str; 20] = [
    "ONE",
    "TWO",
    "THREE",
    "FOUR",
    "FIVE",
    "SIX",
    "SEVEN",
    "EIGHT",
    "NINE",
    "TEN",
    "ELEVEN",
    "TWELVE",
    "THIRTEEN",
    "FOURTEEN",
    "FIFTEEN",
    "SIXTEEN",
    "SEVENTEEN",
    "EIGHTEEN",
    "NINETEEN",
    "TWENTY",
];

/// Spelled-out ordinals (`CLAUSE FIRST`, `ARTICLE TWELFTH`).
const ORDINALS: [&str; 20] = [
    "FIRST",
    "SECOND",
    "THIRD",
    "FOURTH",
    "FIFTH",
    "SIXTH",
    "SEVENTH",
    "EIGHTH",
    "NINTH",
    "TENTH",
    "ELEVENTH",
    "TWELFTH",
    "THIRTEENTH",
    "FOURTEENTH",
    "FIFTEENTH",
    "SIXTEENTH",
    "SEVENTEENTH",
    "EIGHTEENTH",
    "NINETEENTH",
    "TWENTIETH",
];

/// Tens for compounds (`TWENTY-FIRST`, `THIRTY-TWO`), and their ordinals.
const TENS: [(&str, &str, u32); 4] = [
    ("TWENTY", "TWENTIETH", 20),
    ("THIRTY", "THIRTIETH", 30),
    ("FORTY", "FORTIETH", 40),
    ("FIFTY", "FIFTIETH", 50),
];

/// The value of a number word, any case: a cardinal or an ordinal up to
/// twenty, a ten, or a hyphenated compound of a ten and a unit
/// (`Twenty-First`, `THIRTY-TWO`).
pub(crate) fn spelled_number(word: &str) -> Option<u32> {
    if word.len() < 3
        || word.len() > 16
        || !word.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-')
    {
        return None;
    }
    let up = word.to_ascii_uppercase();
    let unit = |w: &str| {
        WORDS
            .iter()
            .position(|x| *x == w)
            .or_else(|| ORDINALS.iter().position(|x| *x == w))
            .map(|n| n as u32 + 1)
    };
    if let Some(v) = unit(&up) {
        return Some(v);
    }
    if let Some(&(_, _, v)) = TENS.iter().find(|(t, o, _)| *t == up || *o == up) {
        return Some(v);
    }
    let (ten, one) = up.split_once('-')?;
    let &(_, _, t) = TENS.iter().find(|(x, _, _)| *x == ten)?;
    unit(one).filter(|&u| u < 10).map(|u| t + u)
}

/// Splits a heading as written into its label and its name. A heading with
/// no label keeps its whole text (less trailing separators) as the name.
pub fn split_heading(title: &str) -> (Option<Label>, String) {
    let t = title.trim();
    match parse_label(t) {
        Some((label, used)) => (Some(label), clean_name(&t[used..])),
        None => (None, clean_name(t)),
    }
}

/// The label at the start of `t` and the bytes it takes.
pub fn parse_label(t: &str) -> Option<(Label, usize)> {
    if t.starts_with(|c: char| c.is_ascii_digit()) {
        return bare(t);
    }
    if let Some(l) = bare_roman(t) {
        return Some(l);
    }
    for (word, kind) in KEYWORDS {
        let Some(head) = t.get(..word.len()) else {
            continue;
        };
        if !head.eq_ignore_ascii_case(word) {
            continue;
        }
        let after = &t[word.len()..];
        // `SECTION1.01.` glued is common in extracted text; `Sections` is
        // a plural reference, `Articles of` a name.
        let ws = after.len() - after.trim_start().len();
        let s = after.trim_start();
        let glued_digit = ws == 0 && s.starts_with(|c: char| c.is_ascii_digit());
        if ws == 0 && !glued_digit && word != "§" {
            return None;
        }
        let (seq, ident_len) = ident(s, kind)?;
        let used = word.len() + ws + ident_len;
        let mut text = String::with_capacity(used);
        text.push_str(head);
        if ws > 0 {
            text.push(' ');
        }
        text.push_str(&s[..ident_len]);
        text.truncate(text.trim_end_matches('.').len());
        return Some((Label { kind, text, seq }, used));
    }
    None
}

/// `IV.  PROPRIETARY MARKS`: a roman numeral with its period, no keyword.
fn bare_roman(t: &str) -> Option<(Label, usize)> {
    let n = t.bytes().take_while(|b| b"IVX".contains(b)).count();
    let rest = t.get(n..)?;
    // `IV.  PROPRIETARY MARKS`, or `II - WORK BY LEO` with a dash.
    let dotted = rest.starts_with('.') && rest[1..].starts_with(char::is_whitespace);
    let dashed = [" - ", " – ", " — "].iter().any(|d| rest.starts_with(d));
    if n == 0 || !(dotted || dashed) {
        return None;
    }
    let v = roman_value(&t[..n])?;
    Some((
        Label {
            kind: LabelKind::Article,
            text: t[..n].to_owned(),
            seq: vec![v],
        },
        n + usize::from(dotted),
    ))
}

/// `1.`, `1.1`, `1.01`, `2.1.3` at the start of a line: one number is a
/// top-level clause (article), more are sections; `1.A.` letters its
/// sections.
fn bare(t: &str) -> Option<(Label, usize)> {
    let (mut seq, mut used) = dotted(t)?;
    let b = t.as_bytes();
    if seq.len() == 1
        && b.get(used) == Some(&b'.')
        && b.get(used + 1).is_some_and(u8::is_ascii_uppercase)
        && b.get(used + 2) == Some(&b'.')
    {
        seq.push(letter_value(b[used + 1] as char));
        used += 2;
    }
    let rest = &t[used..];
    // `11.1Letter of Credit`: a title run into the number, read the way
    // a keyword label's glued title is (`SECTION 5.01Affirmative`).
    if !(rest.is_empty()
        || rest.starts_with(|c: char| c.is_whitespace() || c == '.' || c == '[')
        || glued_title(rest))
    {
        return None;
    }
    let kind = if seq.len() == 1 {
        LabelKind::Article
    } else {
        LabelKind::Section
    };
    Some((
        Label {
            kind,
            text: t[..used].to_owned(),
            seq,
        },
        used,
    ))
}

/// A capitalised word run into the number before it: `Affirmative` in
/// `5.01Affirmative`, `ROFO` in `2.4ROFO Right` (an id suffix such as
/// `2.01A` or `2.01AA` is one or two capitals alone).
pub(crate) fn glued_title(tail: &str) -> bool {
    let mut c = tail.chars();
    if !c.next().is_some_and(char::is_uppercase) {
        return false;
    }
    let second = c.next();
    second.is_some_and(char::is_lowercase)
        || second.is_some_and(char::is_uppercase) && c.next().is_some_and(char::is_uppercase)
}

/// `2`, `2.12`, `2.1.3` (a trailing period is not part of it).
fn dotted(s: &str) -> Option<(Vec<u32>, usize)> {
    let b = s.as_bytes();
    let mut seq = Vec::new();
    let mut i = 0;
    loop {
        let d = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if d == 0 || d > 3 {
            return if seq.is_empty() || d > 3 {
                None
            } else {
                Some((seq, i - 1))
            };
        }
        seq.push(s[i..i + d].parse().ok()?);
        i += d;
        if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 1;
            continue;
        }
        return Some((seq, i));
    }
}

/// The identifier after a keyword and the bytes it takes.
fn ident(s: &str, kind: LabelKind) -> Option<(Vec<u32>, usize)> {
    let end = s
        .find(|c: char| c.is_whitespace() || matches!(c, ':' | '–' | '—' | ',' | ';' | '['))
        .unwrap_or(s.len());
    let mut word = &s[..end];
    while let Some(w) = word.strip_suffix(['.', ')', '-']) {
        // `2.01.` and `VII.` end with a separator, `1.1(a)` keeps its `)`.
        if word.ends_with(')') && word.contains('(') {
            break;
        }
        word = w;
    }
    if word.is_empty() {
        return None;
    }
    // A number word (`ONE`) is all letters: only a word that starts
    // with one is looked up.
    if word.starts_with(|c: char| c.is_ascii_alphabetic()) {
        if let Some(n) = spelled_number(word) {
            return Some((vec![n], word.len()));
        }
    }
    if word.starts_with(|c: char| c.is_ascii_digit()) {
        let (mut seq, mut used) = dotted(s)?;
        let b = s.as_bytes();
        // `2.01A`, `1.1(a)`: a letter suffix is a sub-part of a section,
        // part of an annex's id.
        let letter = match (b.get(used), b.get(used + 1)) {
            (Some(c), next)
                if c.is_ascii_uppercase() && !next.is_some_and(u8::is_ascii_alphabetic) =>
            {
                Some((*c as char, 1))
            }
            (Some(b'('), Some(c)) if c.is_ascii_lowercase() && b.get(used + 2) == Some(&b')') => {
                Some((*c as char, 3))
            }
            _ => None,
        };
        if let Some((c, n)) = letter {
            if matches!(
                kind,
                LabelKind::Article | LabelKind::Section | LabelKind::Part
            ) {
                seq.push(letter_value(c));
            }
            used += n;
        }
        return Some((seq, used));
    }
    // Roman numerals (`VII`) for articles and parts; letters (`B-1`) for
    // annexes. A multi-letter valid roman numeral reads as roman anywhere.
    let (head, num) = match word.split_once('-') {
        Some((h, n)) => (h, Some(n)),
        None => (word, None),
    };
    if head.is_empty() || !head.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let roman = roman_value(&head.to_ascii_uppercase());
    let mut seq = match (kind, roman) {
        (LabelKind::Article | LabelKind::Part | LabelKind::Section, Some(v)) => vec![v],
        (LabelKind::Article | LabelKind::Section, None) => return None,
        (_, Some(v)) if head.len() > 1 => vec![v],
        _ if head.len() <= 2 && head.chars().all(|c| c.is_ascii_uppercase()) => {
            let c: Vec<char> = head.chars().collect();
            let first = letter_value(c[0]);
            // `AA` after `Z`.
            vec![if c.len() == 2 {
                26 * first + letter_value(c[1])
            } else {
                first
            }]
        }
        _ => return None,
    };
    if let Some(n) = num {
        let d = n.bytes().take_while(u8::is_ascii_digit).count();
        if d == 0 || d > 2 {
            return None;
        }
        seq.push(n[..d].parse().ok()?);
    }
    Some((seq, word.len()))
}

fn letter_value(c: char) -> u32 {
    u32::from(c.to_ascii_uppercase() as u8 - b'A' + 1)
}

/// Value of a canonical roman numeral (`IV`, not `IIII` or `VC`).
pub(crate) fn roman_value(s: &str) -> Option<u32> {
    let value = |b: u8| match b {
        b'I' => Some(1i64),
        b'V' => Some(5),
        b'X' => Some(10),
        b'L' => Some(50),
        b'C' => Some(100),
        _ => None,
    };
    let b = s.as_bytes();
    let mut total: i64 = 0;
    for (i, &c) in b.iter().enumerate() {
        let v = value(c)?;
        if b.get(i + 1).and_then(|&n| value(n)).is_some_and(|n| n > v) {
            total -= v;
        } else {
            total += v;
        }
    }
    let total = u32::try_from(total).ok()?;
    (total > 0 && total < 400 && spells_roman(total, s)).then_some(total)
}

/// Whether `s` is the canonical roman numeral of `n` (compared piece by
/// piece, without writing the numeral out).
fn spells_roman(mut n: u32, mut s: &str) -> bool {
    const TABLE: [(u32, &str); 9] = [
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    for (v, piece) in TABLE {
        while n >= v {
            match s.strip_prefix(piece) {
                Some(rest) => s = rest,
                None => return false,
            }
            n -= v;
        }
    }
    s.is_empty()
}

/// The title less leading separators after a label and trailing
/// punctuation: `. Payments and Computations.` -> `Payments and Computations`.
fn clean_name(s: &str) -> String {
    let s = s.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '.' | ':' | '-' | '–' | '—' | '_' | ')')
    });
    let s = s.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '.' | ':' | ';' | ','));
    collapse_spaces(s)
}

/// Words joined by one space: runs of whitespace (line breaks, tabs,
/// no-break spaces) become one ` `.
pub(crate) fn collapse_spaces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(t: &str) -> (LabelKind, String, Vec<u32>, String) {
        let (l, name) = split_heading(t);
        let l = l.unwrap_or_else(|| panic!("no label in {t}"));
        (l.kind, l.text, l.seq, name)
    }

    #[test]
    fn keyword_labels() {
        assert_eq!(
            split("SECTION 2.12. Payments and Computations."),
            (
                LabelKind::Section,
                "SECTION 2.12".into(),
                vec![2, 12],
                "Payments and Computations".into()
            )
        );
        assert_eq!(
            split("ARTICLE VII THE AGENT"),
            (
                LabelKind::Article,
                "ARTICLE VII".into(),
                vec![7],
                "THE AGENT".into()
            )
        );
        assert_eq!(split("Article 1. DEFINITIONS").2, vec![1]);
        assert_eq!(split("ARTICLE ONE General").2, vec![1]);
        assert_eq!(split("CLAUSE FIRST PURPOSE").2, vec![1]);
        assert_eq!(split("CLAUSE TWENTY-NINTH VALIDITY").2, vec![29]);
        assert_eq!(split("SECTION FOUR. REMUNERATION").3, "REMUNERATION");
        assert_eq!(split("SECTION1.01.Certain Defined Terms").2, vec![1, 1]);
        assert_eq!(split("Section 2.05 [Reserved]").3, "[Reserved]");
        assert_eq!(split("§ 4 Rent").2, vec![4]);
        assert_eq!(split("ARTICLE IV").3, "");
    }

    #[test]
    fn bare_and_annex_labels() {
        assert_eq!(
            split("1.1 Definitions."),
            (
                LabelKind::Section,
                "1.1".into(),
                vec![1, 1],
                "Definitions".into()
            )
        );
        assert_eq!(split("1. DEFINITIONS").0, LabelKind::Article);
        assert_eq!(split("2.1.3 Notices").2, vec![2, 1, 3]);
        // A title run into the number, as after a keyword.
        assert_eq!(
            split("11.1Letter of Credit."),
            (
                LabelKind::Section,
                "11.1".into(),
                vec![11, 1],
                "Letter of Credit".into()
            )
        );
        assert_eq!(split("2.4ROFO Right").3, "ROFO Right");
        assert_eq!(split("2.07[Reserved]").3, "[Reserved]");
        let s = split("Schedule 2.01A Commitments");
        assert_eq!(
            (s.0, s.1.as_str(), s.2, s.3.as_str()),
            (
                LabelKind::Schedule,
                "Schedule 2.01A",
                vec![2, 1],
                "Commitments"
            )
        );
        assert_eq!(split("EXHIBIT B-1 Form of Note").2, vec![2, 1]);
        assert_eq!(split("Exhibit A - Note").3, "Note");
        assert_eq!(split("ANNEX II").2, vec![2]);
        assert_eq!(split("PART A Terms").2, vec![1]);
    }

    #[test]
    fn no_label() {
        assert_eq!(
            split_heading("TEXAS ROADHOUSE, INC.:"),
            (None, "TEXAS ROADHOUSE, INC".into())
        );
        assert_eq!(split_heading("Articles of Incorporation").0, None);
        assert_eq!(split_heading("Sections 2.14 and 2.15").0, None);
        assert_eq!(split_heading("Preamble").1, "Preamble");
        assert_eq!(split_heading("2019 Results").0, None);
        assert_eq!(split_heading("3D Printing").0, None);
        assert_eq!(split_heading("1.5x Leverage").0, None);
    }

    #[test]
    fn romans_are_canonical() {
        assert_eq!(roman_value("XIV"), Some(14));
        assert_eq!(roman_value("VC"), None);
        assert_eq!(roman_value("IIII"), None);
        assert_eq!(roman_value("XC"), Some(90));
        assert_eq!(roman_value("CCCXCIX"), Some(399));
        assert_eq!(roman_value("CD"), None);
        assert_eq!(roman_value(""), None);
    }
}
