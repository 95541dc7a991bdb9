//! A document's title (the agreement's name), kept with each section's
//! pointer so sections returned across a batch of filings name their filing
//! by what it is, not only by a file name such as
//! `30ef5065fd5e4760a5ef4d6d04209b59.txt`.
//!
//! Two places say it, tried in this order: the opening's naming clause
//! ("This Second Amendment to Credit Agreement (this "Amendment") ..."),
//! which is precise where present, and else the first title line of the
//! opening in capitals that ends in a document noun ("PURCHASE AGREEMENT",
//! with an "AMENDED AND RESTATED" line above it joined).

use regex::Regex;
use std::sync::OnceLock;

/// Bytes of the opening read: the title and naming clause come first.
const OPENING_BYTES: usize = 6000;
/// Non-empty lines of the opening looked at for a title line.
const TITLE_LINES: usize = 40;
/// Longest title kept, in words.
const MAX_WORDS: usize = 14;

/// Words a document's name ends in.
const DOC_NOUNS: &[&str] = &[
    "agreement",
    "agreements",
    "amendment",
    "indenture",
    "contract",
    "lease",
    "plan",
    "note",
    "notes",
    "guaranty",
    "guarantee",
    "certificate",
    "deed",
    "instrument",
    "supplement",
    "waiver",
    "consent",
    "mortgage",
    "declaration",
    "letter",
    "charter",
    "undertaking",
    "memorandum",
];

/// The title of the document whose text is `text`, when its opening says
/// one (whitespace collapsed; a title in capitals title-cased).
pub fn document_title(text: &str) -> Option<String> {
    let mut end = text.len().min(OPENING_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let opening = &text[..end];
    naming_clause(opening)
        .or_else(|| title_line(opening))
        .map(|t| tidy(&t))
}

/// "This <Name> (the "Agreement")", "THIS <NAME>, dated as of", "This
/// <Name> is entered into": the name of at least two words ending in a
/// document noun.
fn naming_clause(opening: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        let word = r"(?:[A-Z0-9][A-Za-z0-9.'’&/#-]*|and|of|to|for|the|on|in)";
        Regex::new(&format!(
            r"\b(?:This|THIS)\s+({word}(?:\s+{word}){{1,{}}})\s*(?:\(|,|\bis\b|\bare\b|\bdated\b|\bmade\b|\bentered\b|\bby\b)",
            MAX_WORDS - 1
        ))
        .expect("naming clause pattern")
    });
    let collapsed = opening.split_whitespace().collect::<Vec<_>>().join(" ");
    re.captures_iter(&collapsed).find_map(|c| {
        let name = c[1].trim_end_matches([',', '.', ';']);
        let last = name.rsplit(' ').next()?.to_lowercase();
        DOC_NOUNS.contains(&last.as_str()).then(|| name.to_string())
    })
}

/// The first line of the opening in capitals ending in a document noun,
/// with the capital lines directly above it that continue it ("AMENDED AND
/// RESTATED").
fn title_line(opening: &str) -> Option<String> {
    let lines: Vec<&str> = opening
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(TITLE_LINES)
        .collect();
    let capitals = |l: &str| {
        let letters: Vec<char> = l.chars().filter(|c| c.is_alphabetic()).collect();
        letters.len() >= 3 && letters.iter().all(|c| c.is_uppercase())
    };
    let at = lines.iter().position(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        capitals(l)
            && words.len() <= MAX_WORDS
            && words.last().is_some_and(|w| {
                let w = w
                    .trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase();
                DOC_NOUNS.contains(&w.as_str())
            })
    })?;
    let mut start = at;
    while start > 0 {
        let above = lines[start - 1];
        let continues = above
            .split_whitespace()
            .last()
            .is_some_and(|w| matches!(w, "AND" | "RESTATED" | "TO" | "OF" | "FOR"));
        if !(capitals(above) && continues) {
            break;
        }
        start -= 1;
    }
    Some(lines[start..=at].join(" "))
}

/// Whitespace collapsed; a name in capitals title-cased (small words lower).
fn tidy(name: &str) -> String {
    let words: Vec<&str> = name.split_whitespace().collect();
    let shouting = name
        .chars()
        .filter(|c| c.is_alphabetic())
        .all(|c| c.is_uppercase());
    if !shouting {
        return words.join(" ");
    }
    words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let lower = w.to_lowercase();
            if i > 0
                && matches!(
                    lower.as_str(),
                    "and" | "of" | "to" | "for" | "the" | "on" | "in"
                )
            {
                return lower;
            }
            let mut c = lower.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_naming_clause_names_the_document() {
        let text = "Exhibit 10.1\nSECURITIES PURCHASE AND SECURITY AGREEMENT\nThis Securities Purchase and Security Agreement (the \u{201c}Agreement\u{201d}) is entered\ninto as of April 23, 2020";
        assert_eq!(
            document_title(text).as_deref(),
            Some("Securities Purchase and Security Agreement")
        );
        let text = "Exhibit 10.1\nExecution Version\nSECOND AMENDMENT TO CREDIT AGREEMENT\nTHIS SECOND AMENDMENT TO CREDIT AGREEMENT (this \u{201c}Amendment\u{201d}), dated as of";
        assert_eq!(
            document_title(text).as_deref(),
            Some("Second Amendment to Credit Agreement")
        );
    }

    #[test]
    fn a_title_in_capitals_when_no_clause_names_it() {
        let text = "Exhibit 10.4\nDRIVE AUTO RECEIVABLES TRUST 2020-1\nAMENDED AND RESTATED\nTRUST AGREEMENT\nbetween the parties below, effective today";
        assert_eq!(
            document_title(text).as_deref(),
            Some("Amended and Restated Trust Agreement")
        );
    }

    #[test]
    fn no_title_when_the_opening_names_none() {
        assert_eq!(
            document_title("This Agreement (the \"Agreement\") is made"),
            None
        );
        assert_eq!(document_title("Minutes of the meeting held on 3 May"), None);
    }
}
