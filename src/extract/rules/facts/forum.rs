//! Forum and law: the courts the parties submit to, where disputes are
//! heard or arbitrated, and the governing law, read once for the register
//! (`GOVERNING_LAW`) and the graph (`GOVERNED_BY`) alike, in every wording
//! (`governed by the laws of X`, `The laws of X shall govern`, `governed by
//! English law`, capitals).

use super::{ci, Rule, Source, Target};
use once_cell::sync::Lazy;
use regex::Regex;

pub(super) static RULES: [Rule; 2] = [
    Rule {
        category: "Governing Law",
        any: &["law"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:governed|construed|interpreted|enforced|controlled)\s+(?:by|in\s+accordance\s+with|under|pursuant\s+to|according\s+to)\b[^.;]{0,100}?\blaws?\b|\blaws?\s+of\b[^.;]{0,120}?\b(?:shall|will)\s+(?:govern|apply|control)|\b(?:governing|choice\s+of)\s+law\b[^.;]{0,60}?\b(?:shall\s+be|is)\b|\bapplicable\s+law\s+(?:shall\s+be|is|will\s+be)\b",
            )
        }),
        unless: Some(Lazy::new(|| {
            // `as if ... were governed by the laws of the United States`
            // (or `if ... were governed by ...`, the `if` maybe on the page
            // before) imagines another law, and `notwithstanding that the
            // Loan Documents may in fact be stated to be governed by ...`
            // concedes one; neither chooses. It
            // chooses none.
            ci(
                r"\bcompl(?:y|iance)\s+with\s+(?:all\s+)?(?:applicable\s+)?laws\b|\bas\s+if\b|\bwere\s+governed\b|\bstated\s+to\s+be\s+governed\b",
            )
        })),
        also: None,
        source: Source::Agreement,
        target: Target::GoverningPlace,
    },
    Rule {
        category: "Submits To Jurisdiction",
        any: &["jurisdiction", "venue", "courts", "arbitrat", "forum"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:exclusive|non-?exclusive)?\s*(?:jurisdiction|venue)\s+of\s+(?:the\s+)?(?:state\s+|federal\s+)?courts?\b|\bsubmits?\s+to\s+the\b[^.;]{0,60}?\bjurisdiction\b|\b(?:brought|heard|litigated|resolved|settled)\s+(?:exclusively\s+|only\s+)?(?:in|before|by)\s+(?:the\s+)?(?:state\s+or\s+federal\s+)?(?:courts?|arbitration)\b|\bfinally\s+(?:settled|resolved)\s+by\s+(?:binding\s+)?arbitration\b|\barbitration\s+(?:shall\s+be\s+)?(?:held|conducted)\s+in\b",
            )
        }),
        // A person's immunity from a court, or a court it is not subject
        // to (a ground to refuse an assignee), chooses no forum; a forum
        // clause speaks of the disputes it hears.
        unless: Some(Lazy::new(|| {
            ci(
                r"\bimmunity\s+from\s+(?:the\s+)?(?:jurisdiction|suit)|\bnot\s+(?:be\s+)?subject\s+to\b[^.;]{0,80}?\bjurisdiction\b",
            )
        })),
        also: Some(Lazy::new(|| {
            ci(
                r"\b(?:actions?|suits?|proceedings?|disputes?|claims?|controvers\w*|litigation|arising|arbitrat\w*|submits?|venue|matters?)\b",
            )
        })),
        source: Source::Party,
        target: Target::Place,
    },
];

/// `governed by ... the laws of (the State of) X`, `construed ... under the
/// laws of X`.
static GOVERNED: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?ix)
        \b(?:governed|construed|interpreted|enforced)\b[^.;]{0,120}?\blaws?\s+of\s+
        (?:the\s+)?(?:(?:State|Commonwealth|Province|Republic|Kingdom|People's\s+Republic)\s+of\s+)?
        (?-i:(?P<place>(?:the\s+)?[A-Z][A-Za-z]+(?:\s+(?:of\s+)?[A-Z][A-Za-z]+){0,3}))",
    )
    .unwrap()
});

/// Words that end a place's name when the capitalised run goes on
/// (`New York Without Regard`, `Delaware Applicable`).
const NOT_PLACE: &[&str] = &[
    "without",
    "applicable",
    "excluding",
    "except",
    "and",
    "as",
    "in",
    "including",
    "notwithstanding",
    "that",
    "which",
    "regardless",
    "other",
    "shall",
    "the",
];

/// A governing-law statement: the place, and where the statement's words
/// are in the sentence.
pub(super) struct Governed {
    pub(super) place: String,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// The place whose laws govern the agreement, where the sentence says so
/// in the form `governed by (or construed under) the laws of (the State
/// of) X` and speaks of the agreement (`this Agreement`, or `it` right
/// after it) before the verb. A court's jurisdiction or a party's state of
/// organisation is no governing law.
pub(super) fn governed_place(s: &str) -> Option<Governed> {
    for c in GOVERNED.captures_iter(s) {
        let start = c.get(0).unwrap().start();
        let sentence_start = s[..start].rfind(['.', ';']).map_or(0, |i| i + 1);
        let lead = s[sentence_start..c.get(0).unwrap().end()].to_ascii_lowercase();
        if !lead.contains("agreement") {
            continue;
        }
        let mut words: Vec<&str> = c["place"].split_whitespace().collect();
        if words.first().is_some_and(|w| w.eq_ignore_ascii_case("the")) {
            words.remove(0);
        }
        // England and Wales is one jurisdiction, not a list.
        let after = &s[c["place"].len() + c.name("place").unwrap().start()..];
        if words.first() == Some(&"England")
            && after
                .to_ascii_lowercase()
                .trim_start()
                .starts_with("and wales")
        {
            words = vec!["England", "and", "Wales"];
        } else if let Some(cut) = words
            .iter()
            .position(|w| NOT_PLACE.contains(&w.to_ascii_lowercase().as_str()))
        {
            words.truncate(cut);
        }
        while words.last().is_some_and(|w| w.eq_ignore_ascii_case("of")) {
            words.pop();
        }
        if words.is_empty() || (words.len() == 1 && words[0].len() < 3) {
            continue;
        }
        let place = words.join(" ");
        // `NEW YORK` -> `New York`.
        let place = if place.chars().any(char::is_lowercase) {
            place
        } else {
            crate::extract::rules::common::text::titled(&place)
        };
        let whole = c.get(0).unwrap();
        let place = state_beside_federal(&place, &s[whole.end()..]).unwrap_or(place);
        return Some(Governed {
            place,
            start: whole.start(),
            end: whole.end(),
        });
    }
    None
}

/// The state whose laws govern beside the federal ones: `the laws of the
/// United States and the State of Florida` or `... and, to the extent not
/// inconsistent therewith, the Commonwealth of Kentucky` make a contract
/// governed by the state's law (federal law applies everywhere), as a
/// lawyer's abstract names it.
fn state_beside_federal(place: &str, rest: &str) -> Option<String> {
    static STATE: Lazy<Regex> = Lazy::new(|| {
        Regex::new(
            r"(?i)^[^.;]{0,100}?\b(?:state|commonwealth)\s+of\s+(?-i:(?P<p>[A-Z][A-Za-z]+(?:\s+[A-Z][A-Za-z]+)?))",
        )
        .unwrap()
    });
    if !place.starts_with("United States") && place != "U.S." && place != "US" {
        return None;
    }
    let words: Vec<&str> = STATE
        .captures(rest)?
        .name("p")?
        .as_str()
        .split_whitespace()
        .collect();
    let cut = words
        .iter()
        .position(|w| NOT_PLACE.contains(&w.to_ascii_lowercase().as_str()))
        .unwrap_or(words.len());
    (cut > 0).then(|| words[..cut].join(" "))
}
