//! The values a fact points at, read from its sentence: dates, periods,
//! amounts and rates.

use once_cell::sync::Lazy;
use regex::Regex;

const MONTH: &str = r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?";

/// `March 1, 2020`, `1st day of March, 2020`, `1 March 2020`, `3/1/2020`,
/// `March 2020`, `the ___ day of ______, 2020`.
static DATE: Lazy<Regex> = Lazy::new(|| Regex::new(&format!("(?i){}", date_source())).unwrap());

/// The pattern of a date ([`DATE`]'s), for a rule that must see one at a
/// place of its own (`TERM: January 30, 2012 until July 29, 2012`).
pub(super) fn date_source() -> String {
    format!(
        r"\b(?:{MONTH}\s+\d{{1,2}}\s*(?:st|nd|rd|th)?\s*,?\s*\d{{4}}|\d{{1,2}}\s*(?:s\s?t|n\s?d|r\s?d|t\s?h)?\s+(?:day\s+of\s+)?{MONTH}\s*[,.]?\s*(?:A\.D\.\s*)?\d{{4}}|\d{{1,2}}/\d{{1,2}}/\d{{2,4}}|\d{{1,2}}-\d{{1,2}}-\d{{4}}|(?:{MONTH}|_{{2,}})\s*,?\s+\d{{4}}|_{{2,}}\s*day\s+of\s+(?:{MONTH}|_{{2,}})\s*,?\s*\d{{4}})"
    )
}

/// Number words, as contracts spell a count before its digits (`one hundred
/// eighty (180) days`).
const NUMBER_WORD: &str = r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand)(?:-[a-z]+)?";

/// `thirty (30) days`, `one hundred eighty (180) days`, `2 years`, `one
/// (1) year`, `twelve months`.
static PERIOD: Lazy<Regex> = Lazy::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:(?:{NUMBER_WORD}\s+(?:and\s+)?){{0,3}}\(\d{{1,4}}\)|(?:[a-z]+(?:-[a-z]+)?\s+)?\(\d{{1,4}}\)|\d{{1,4}}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty-five|sixty|ninety)\s*(?:-\s*)?(?:calendar\s+|business\s+|consecutive\s+|full\s+|additional\s+|successive\s+)*(?:days?|months?|years?|weeks?|quarters?)\b",
    ))
    .unwrap()
});

/// `$10,000`, `US$ 5 million`, `EUR 100,000`, `5%`, `ten percent (10%)`.
static AMOUNT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?i)(?:(?:US\s*)?\$|USD\s?|EUR\s?|€|£|GBP\s?|RMB\s?|¥)\s?\d[\d,]*(?:\.\d+)?(?:\s*(?:million|billion|thousand))?|\b\d[\d,]*(?:\.\d+)?\s*(?:%|percent\b|per\s+cent\b)|\b\d[\d,]*(?:\.\d+)?\s+(?:dollars|euros)\b",
    )
    .unwrap()
});

/// `laws of the State of New York`, `courts of England`, `English law`,
/// `courts located in Santa Clara County, California`.
static PLACE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?i:\b(?:laws?|courts?|jurisdiction|arbitration)\s+(?:located\s+|sitting\s+|held\s+)?(?:of|in)\s+(?:the\s+)?(?:(?:state|commonwealth|province|republic|kingdom|city|county|people['’]s\s+republic)\s+of\s+)?)(?P<p>[A-Z][A-Za-z]+(?:\s+(?:of\s+)?[A-Z][A-Za-z]+){0,2})|\b(?P<a>English|Swiss|German|French|Dutch|Irish|Scottish|Delaware|Chinese|Japanese|Canadian|Israeli|Indian|Singapore|Hong\s+Kong|Ontario|California|Texas|Nevada|Florida)\s+law\b",
    )
    .unwrap()
});

/// Words that end a place's name when the capitalised run goes on.
const NOT_PLACE: &[&str] = &[
    "Without",
    "Applicable",
    "Excluding",
    "Except",
    "And",
    "As",
    "In",
    "Including",
    "Shall",
    "The",
    "Notwithstanding",
    "That",
    "Which",
    "Regardless",
    "Other",
    "Agreement",
    "United",
    // `the State and Federal courts in California`: the kind of court,
    // not its place (`the State of New York` never reaches here).
    "State",
];

/// The place a governing-law or forum sentence names.
pub(super) fn place(s: &str) -> Option<String> {
    for c in PLACE.captures_iter(s) {
        if let Some(a) = c.name("a") {
            return Some(tidy(a.as_str()));
        }
        let raw = c.name("p")?.as_str();
        // `the United States District Court for the Southern District of
        // New York`: a federal court sits in the state its district names.
        if raw
            .split_whitespace()
            .any(|w| w == "District" || w == "Court")
        {
            static DISTRICT_OF: Lazy<Regex> = Lazy::new(|| {
                Regex::new(r"\bDistrict\s+of\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)").unwrap()
            });
            let after = &s[c.get(0)?.start()..];
            let near = &after[..after.len().min(160)];
            match DISTRICT_OF.captures(near) {
                // The District of Columbia is a jurisdiction of its own.
                Some(d) if &d[1] == "Columbia" => return Some("District of Columbia".to_string()),
                Some(d) => return Some(d[1].to_string()),
                None => continue,
            }
        }
        // England and Wales is one jurisdiction, not a list.
        if raw.to_ascii_lowercase().starts_with("england and wales") {
            return Some("England and Wales".to_string());
        }
        let words: Vec<&str> = raw
            .split_whitespace()
            .take_while(|w| !NOT_PLACE.iter().any(|n| n.eq_ignore_ascii_case(w)) || *w == "United")
            .collect();
        let mut words = words;
        while words.last().is_some_and(|w| w.eq_ignore_ascii_case("of")) {
            words.pop();
        }
        if words.is_empty() || words[0] == "This" || words[0] == "Such" || words[0] == "Any" {
            continue;
        }
        let name = words.join(" ");
        return Some(if name.chars().any(char::is_lowercase) {
            name
        } else {
            crate::extract::rules::common::text::titled(&name)
        });
    }
    None
}

/// How far a date may follow the words that make it a fact's (`entered
/// into as of the 1st day of March, 2020`), and how far it may come before
/// them (`as of June 26, 2015 (the "Effective Date")`), in bytes.
const DATE_AFTER: usize = 80;
const DATE_BEFORE: usize = 60;

/// The date a fact's trigger (`at..to` in the sentence) speaks of: the
/// first one inside it or within [`DATE_AFTER`] bytes after it, else the
/// last one within [`DATE_BEFORE`] bytes before it; none elsewhere in the
/// sentence. A start (`starts`: the agreement's date or its effective date)
/// is never a date the words between name as an end or a deadline: `shall
/// commence as of the Effective Date and shall terminate on June 30, 2010`
/// or `shall become effective upon execution and expire February 26, 1999`
/// dates the end, `not been met by January 31, 2001` a condition.
pub(super) fn date_near(s: &str, at: usize, to: usize, starts: bool) -> Option<String> {
    static ENDS: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\bterminat|\bexpir|\buntil\b|\bthrough\b|\bthru\b|\blater\s+than\b|\bdeadline\b|\bnot\s+(?:been\s+)?(?:met|satisfied|fulfilled)\b|\bby\s+(?:no\s+later|the\s+end)\b|\bending\b")
            .unwrap()
    });
    let clean = |gap: &str| !starts || !ENDS.is_match(gap);
    let dates: Vec<regex::Match> = DATE.find_iter(s).collect();
    let after = dates.iter().find(|m| {
        m.end() > at
            && m.start() <= to + DATE_AFTER
            && clean(&s[at.min(m.start())..m.start().max(at)])
    });
    let before = || {
        dates.iter().rev().find(|m| {
            m.end() <= at && at - m.end() <= DATE_BEFORE && clean(&s[m.end()..to.max(m.end())])
        })
    };
    after.or_else(before).map(|m| tidy(m.as_str()))
}

/// The period a fact's trigger (`at..to` in the sentence) speaks of: one
/// inside the trigger, else the first after it within [`AFTER`] bytes,
/// else the nearest before it, else the first of the sentence.
pub(super) fn period_near(s: &str, at: usize, to: usize) -> Option<String> {
    near(&PERIOD, s, at, to)
}

/// The period a renewal lasts, chosen as [`period_near`] chooses among the
/// sentence's periods of months, quarters or years: a renewal runs that
/// long, while days and weeks are the notice that stops it or a window
/// (`renew automatically ... unless either party gives thirty (30) days'
/// notice`).
/// Only a period inside the renewal's words or after them counts: one
/// before them is the initial term's (`an initial term of seven (7) years
/// and will automatically renew for one or more annual periods`). A
/// renewal without a count runs one unit at a time (`on a year to year
/// basis`, `annual periods`: `one year`; not an `annual escalation
/// rate`); one `for an unlimited period` is perpetual.
pub(super) fn renewal_period(s: &str, at: usize, to: usize) -> Option<String> {
    static SHORT: Lazy<Regex> = Lazy::new(|| Regex::new(r"(?i)\b(?:days?|weeks?)\b").unwrap());
    static ONE_UNIT: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\b(?:(year|month)[\s-]+to[\s-]+(?:year|month)|(annual|yearly|monthly)\s+(?:renewal\s+)?(?:periods?|terms?|basis|renewals?|extensions?|increments?))\b")
            .unwrap()
    });
    static ENDLESS: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\b(?:unlimited|indefinite|perpetual)\s+(?:period|term|basis|renewals?)\b|\bindefinitely\b|\bin\s+perpetuity\b")
            .unwrap()
    });
    let floor = |mut i: usize| {
        i = i.min(s.len());
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let own = &s[floor(at)..floor(to + AFTER).max(floor(at))];
    let counted = PERIOD
        .find_iter(s)
        .filter(|m| !SHORT.is_match(m.as_str()))
        .find(|m| m.end() > at && m.start() <= to + AFTER)
        .map(|m| tidy(m.as_str()));
    counted
        .or_else(|| ENDLESS.is_match(own).then(|| "perpetual".to_string()))
        .or_else(|| {
            ONE_UNIT.captures(own).map(|c| {
                let unit = c
                    .get(1)
                    .map(|u| u.as_str().to_ascii_lowercase())
                    .unwrap_or_else(|| {
                        if c[2].eq_ignore_ascii_case("monthly") {
                            "month"
                        } else {
                            "year"
                        }
                        .to_string()
                    });
                format!("one {unit}")
            })
        })
}

/// The amount or rate a fact's trigger speaks of, chosen as
/// [`period_near`] chooses.
pub(super) fn amount_near(s: &str, at: usize, to: usize) -> Option<String> {
    near(&AMOUNT, s, at, to)
}

/// The period a notice is given in, read from the notice's own words: the
/// first period within [`AFTER`] bytes after the word `notice` (`written
/// notice at least sixty (60) days prior to the end of the term`), else one
/// written right before it as its length (`ninety (90) days' prior written
/// notice`). A period elsewhere in the sentence (`renewing for successive
/// one (1) year periods unless either party gives notice`) is the term's,
/// not the notice's: then there is none.
pub(super) fn notice_period(s: &str, notice_at: usize, notice_end: usize) -> Option<String> {
    static LENGTH_OF: Lazy<Regex> = Lazy::new(|| {
        Regex::new(
            r"(?i)^\s*(?:['’]s?)?\s*(?:(?:prior|advance|advanced|written|of|in\s+writing)\s+)*$",
        )
        .unwrap()
    });
    let after = PERIOD
        .find_iter(s)
        .find(|m| m.start() >= notice_end && m.start() - notice_end <= AFTER);
    if let Some(m) = after {
        return Some(tidy(m.as_str()));
    }
    PERIOD
        .find_iter(&s[..notice_at])
        .filter(|m| LENGTH_OF.is_match(&s[m.end()..notice_at]))
        .last()
        .map(|m| tidy(m.as_str()))
}

/// How far after a trigger its value may be (`renewing automatically for
/// successive one-year periods`): a clause, not the rest of the sentence.
const AFTER: usize = 200;

/// A sentence names several values (`an initial term of five (5) years,
/// renewing for successive one-year periods unless notice is given one
/// hundred eighty (180) days before expiry`): each fact takes the one its
/// own words speak of, not the sentence's first.
fn near(re: &Regex, s: &str, at: usize, to: usize) -> Option<String> {
    near_where(re, s, at, to, |_| true)
}

/// [`near`] among the matches `keep` accepts.
fn near_where(
    re: &Regex,
    s: &str,
    at: usize,
    to: usize,
    keep: impl Fn(&str) -> bool,
) -> Option<String> {
    // `Two Hundred Fifty and No/100 Dollars ($250.00)`: the cents of a
    // spelled amount are no amount; its numerals follow it.
    let found: Vec<regex::Match> = re
        .find_iter(s)
        .filter(|m| !s[..m.start()].ends_with('/') && keep(m.as_str()))
        .collect();
    let pick = found
        .iter()
        .find(|m| m.start() < to && m.end() > at)
        .or_else(|| {
            found
                .iter()
                .find(|m| m.start() >= to && m.start() - to <= AFTER)
        })
        .or_else(|| found.iter().rev().find(|m| m.end() <= at))
        .or_else(|| found.first())?;
    Some(tidy(pick.as_str()))
}

fn tidy(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_date_is_the_one_its_words_name() {
        let s = "This Agreement shall commence as of the Effective Date and, unless earlier terminated, shall terminate on June 30, 2010.";
        let at = s.find("Agreement").unwrap();
        let to = s.find("as of").unwrap() + 5;
        assert_eq!(date_near(s, at, to, true), None);
        // The same date is the end the expiry's words name.
        let at = s.find("terminate on").unwrap();
        assert_eq!(
            date_near(s, at, at + 12, false).as_deref(),
            Some("June 30, 2010")
        );
        let s = "This Agreement is entered into as of June 26, 2015 (the \"Effective Date\"), between A and B.";
        let at = s.find("\"Effective").unwrap();
        assert_eq!(
            date_near(s, at, at + 16, true).as_deref(),
            Some("June 26, 2015")
        );
        let s = "This Supplement shall become effective upon execution of the SOW and expire February 26, 1999.";
        let at = s.find("shall become").unwrap();
        assert_eq!(date_near(s, at, at + 22, true), None);
        // A date far from its words belongs to another clause.
        let s = "This Agreement is made as of the date last written below, and the Supplier shall deliver the first order of Products to the Buyer on or about March 1, 2020.";
        let at = s.find("made as of").unwrap();
        assert_eq!(date_near(s, at, at + 10, true), None);
    }

    #[test]
    fn reads_values() {
        assert_eq!(
            date_near("made as of the 8th day of May, 2014 by", 0, 10, true).as_deref(),
            Some("8th day of May, 2014")
        );
        assert_eq!(
            date_near("dated March 1, 2020", 0, 5, true).as_deref(),
            Some("March 1, 2020")
        );
        assert_eq!(
            period_near("upon thirty (30) days notice", 0, 4).as_deref(),
            Some("thirty (30) days")
        );
        assert_eq!(
            period_near("for a term of 2 years", 0, 3).as_deref(),
            Some("2 years")
        );
        assert_eq!(
            amount_near("not exceed $1,000,000.00 in", 0, 10).as_deref(),
            Some("$1,000,000.00")
        );
        assert_eq!(
            amount_near("a royalty of 5% of Net Sales", 2, 9).as_deref(),
            Some("5%")
        );
        assert_eq!(date_near("no date here", 0, 2, true), None);
        assert_eq!(
            amount_near(
                "a fee of Two Hundred Fifty and No/100 Dollars ($250.00) per month",
                2,
                5
            )
            .as_deref(),
            Some("$250.00")
        );
        // Each fact of a sentence takes the value its own words speak of.
        let term = "This Agreement continues for an initial term of five (5) years (the \"Term\"), renewing automatically for successive one-year periods unless either Party gives notice of non-renewal at least one hundred eighty (180) days before expiry.";
        let renew = term.find("renewing automatically").unwrap();
        assert_eq!(
            period_near(term, renew, renew + 22).as_deref(),
            Some("one-year")
        );
        let notice = term.find("non-renewal").unwrap();
        assert_eq!(
            period_near(term, notice, notice + 11).as_deref(),
            Some("one hundred eighty (180) days")
        );
        let initial = term.find("initial term").unwrap();
        assert_eq!(
            period_near(term, initial, initial + 12).as_deref(),
            Some("five (5) years")
        );
        // PDF text splits ordinals and puts a period for a comma.
        assert_eq!(
            date_near("entered into on the 14t h day of April, 2015", 0, 15, true).as_deref(),
            Some("14t h day of April, 2015")
        );
        assert_eq!(
            date_near("made this 16 day of August. 2012", 0, 9, true).as_deref(),
            Some("16 day of August. 2012")
        );
        assert_eq!(
            place("governed by the laws of the State of New York without regard").as_deref(),
            Some("New York")
        );
        assert_eq!(
            place("This Agreement is governed by English law.").as_deref(),
            Some("English")
        );
        assert_eq!(
            place("THE LAWS OF THE STATE OF DELAWARE SHALL GOVERN").as_deref(),
            Some("Delaware")
        );
    }
}
