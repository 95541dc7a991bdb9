//! Normal forms of fact values, so a register compares across contracts
//! and against a lawyer's abstract: dates as ISO 8601 (partial as far as
//! the text gives it: `2014-05-08`, `2014-05`, `2014`), periods as an
//! amount and a unit (`1 year`, `30 days`), places by name (`New York`,
//! `Ontario, Canada`), money as currency and amount (`USD 250.00`).

use once_cell::sync::Lazy;
use regex::Regex;

/// The normal form of a fact's target, when its type has one.
pub fn of(rel_type: &str, target_type: &str, value: &str) -> Option<String> {
    match target_type {
        // A date the definitions reader met first as another entity type
        // (`"Effective Date" means October 31, 2019` typed as a period) is
        // still the agreement's date.
        _ if matches!(rel_type, "AGREEMENT_DATE" | "EFFECTIVE_DATE") => date(value),
        // An expiration is a date: the builder computes it from a term.
        "Period" if rel_type == "EXPIRATION_DATE" => None,
        "Date" => date(value),
        // A period entity named by its clause (the rule found no period
        // of its own) has no normal form: the clause's first unit (`renew
        // ... on a year to year basis, unless ... notifies ... 30 days
        // prior`) may be another value's.
        "Period" if value.split_whitespace().count() > PERIOD_WORDS => None,
        "Period" => period(value),
        "Jurisdiction" => place(value),
        "Amount" => money(value),
        _ => None,
    }
}

/// Most words of a period as a value (`one hundred eighty (180) calendar
/// days`); longer, the entity is named by its clause.
pub const PERIOD_WORDS: usize = 8;

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

fn month_of(word: &str) -> Option<u32> {
    let w = word.trim_end_matches('.').to_ascii_lowercase();
    if w.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| w.starts_with(m))
        .map(|i| i as u32 + 1)
}

/// A two-digit year as contracts of the last century and this one use it.
fn full_year(y: u32) -> u32 {
    match y {
        0..=49 => 2000 + y,
        50..=99 => 1900 + y,
        _ => y,
    }
}

/// `March 1, 2020`, `8th day of May, 2014`, `1 March 2020`, `3/1/2020`,
/// `March 2020`, `____ day of ______, 2020` -> `2020-03-01`, `2014-05-08`,
/// `2020-03-01`, `2020-03-01`, `2020-03`, `2020`.
pub fn date(text: &str) -> Option<String> {
    static NUMERIC: Lazy<Regex> =
        Lazy::new(|| Regex::new(r"^(\d{1,2})[/-](\d{1,2})[/-](\d{2,4})$").unwrap());
    static TOKEN: Lazy<Regex> = Lazy::new(|| Regex::new(r"[A-Za-z]+\.?|\d+").unwrap());
    let t = text.trim();
    if let Some(c) = NUMERIC.captures(t) {
        let m: u32 = c[1].parse().ok()?;
        let d: u32 = c[2].parse().ok()?;
        let y = full_year(c[3].parse().ok()?);
        return valid(y, Some(m), Some(d));
    }
    let (mut year, mut month, mut day) = (None, None, None);
    for tok in TOKEN.find_iter(t).map(|m| m.as_str()) {
        if let Ok(n) = tok.parse::<u32>() {
            if tok.len() == 4 {
                year = Some(n);
            } else if day.is_none() && (1..=31).contains(&n) && year.is_none() {
                day = Some(n);
            }
        } else if let Some(m) = month_of(tok) {
            if month.is_none() {
                month = Some(m);
            }
        }
    }
    let year = year?;
    // A day without a month (`the 5th day of ____, 2020`) says the year.
    let day = month.and(day);
    valid(year, month, day)
}

fn valid(y: u32, m: Option<u32>, d: Option<u32>) -> Option<String> {
    if !(1900..=2100).contains(&y) {
        return None;
    }
    match (m, d) {
        (Some(m), Some(d)) if (1..=12).contains(&m) && (1..=days_in(y, m)).contains(&d) => {
            Some(format!("{y:04}-{m:02}-{d:02}"))
        }
        (Some(m), _) if (1..=12).contains(&m) => Some(format!("{y:04}-{m:02}")),
        _ => Some(format!("{y:04}")),
    }
}

fn days_in(y: u32, m: u32) -> u32 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

/// Counts spelled out, as contracts write them before or without digits.
fn number_word(w: &str) -> Option<u32> {
    const UNITS: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 8] = [
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    let w = w.to_ascii_lowercase();
    if let Some(i) = UNITS.iter().position(|u| *u == w) {
        return Some(i as u32);
    }
    if let Some(i) = TENS.iter().position(|t| *t == w) {
        return Some(20 + 10 * i as u32);
    }
    if w == "a" || w == "an" {
        return Some(1);
    }
    None
}

/// The count a run of number words spells (`one hundred eighty`,
/// `forty-five`), when it is one.
fn words_count(words: &[&str]) -> Option<u32> {
    let mut total = 0u32;
    let mut any = false;
    for w in words {
        for part in w.split('-') {
            let p = part.to_ascii_lowercase();
            if p == "hundred" {
                total = total.max(1) * 100;
            } else if p == "thousand" {
                total = total.max(1) * 1000;
            } else if p == "and" {
                continue;
            } else {
                total += number_word(&p)?;
            }
            any = true;
        }
    }
    any.then_some(total)
}

/// `thirty (30) days`, `2 years`, `one-year`, `twelve months`, `successive
/// one year` -> `30 days`, `2 years`, `1 year`, `12 months`, `1 year`.
pub fn period(text: &str) -> Option<String> {
    if text.trim().eq_ignore_ascii_case("perpetual") {
        return Some("perpetual".to_string());
    }
    static UNIT: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\b(day|week|month|quarter|year)s?\b|(?i)-(day|week|month|quarter|year)\b")
            .unwrap()
    });
    static DIGITS: Lazy<Regex> = Lazy::new(|| Regex::new(r"\d{1,4}").unwrap());
    let u = UNIT.captures(text)?;
    let unit = u.get(1).or_else(|| u.get(2))?.as_str().to_ascii_lowercase();
    let before = &text[..u.get(0)?.start()];
    let n = match DIGITS.find_iter(before).last() {
        Some(d) => d.as_str().parse::<u32>().ok()?,
        None => {
            let words: Vec<&str> = before
                .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
                .filter(|w| !w.is_empty())
                .collect();
            // The longest run of number words that ends the text.
            let start = (0..words.len())
                .find(|&i| words_count(&words[i..]).is_some())
                .unwrap_or(words.len());
            if start == words.len() {
                return None;
            }
            words_count(&words[start..])?
        }
    };
    if n == 0 {
        return None;
    }
    Some(format!("{n} {unit}{}", if n == 1 { "" } else { "s" }))
}

/// A place as a lawyer's abstract names it: the state or country, a
/// province with its country; an adjective (`English law`) as its country.
pub fn place(text: &str) -> Option<String> {
    const ADJECTIVES: &[(&str, &str)] = &[
        ("English", "England"),
        ("Swiss", "Switzerland"),
        ("German", "Germany"),
        ("French", "France"),
        ("Dutch", "Netherlands"),
        ("Irish", "Ireland"),
        ("Scottish", "Scotland"),
        ("Chinese", "China"),
        ("Japanese", "Japan"),
        ("Canadian", "Canada"),
        ("Israeli", "Israel"),
        ("Indian", "India"),
    ];
    const PROVINCES: &[&str] = &[
        "Ontario",
        "Quebec",
        "British Columbia",
        "Alberta",
        "Manitoba",
        "Saskatchewan",
        "Nova Scotia",
        "New Brunswick",
    ];
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let t = t.trim_matches(|c: char| !c.is_alphanumeric());
    if t.is_empty() || t.split_whitespace().count() > 5 {
        return None;
    }
    // One name per place: `New York State` is New York, the PRC China.
    const ALIASES: &[(&str, &str)] = &[
        ("PRC", "China"),
        ("P.R.C", "China"),
        ("People's Republic of China", "China"),
        ("Peoples Republic of China", "China"),
    ];
    let t = t.strip_suffix(" State").unwrap_or(t);
    if let Some((_, name)) = ALIASES.iter().find(|(a, _)| a.eq_ignore_ascii_case(t)) {
        return Some(name.to_string());
    }
    if let Some((_, country)) = ADJECTIVES.iter().find(|(a, _)| a.eq_ignore_ascii_case(t)) {
        return Some(country.to_string());
    }
    if PROVINCES.iter().any(|p| p.eq_ignore_ascii_case(t)) {
        return Some(format!("{t}, Canada"));
    }
    Some(t.to_string())
}

/// `$250.00`, `US$ 5 million`, `EUR 100,000`, `5%` -> `USD 250.00`,
/// `USD 5000000`, `EUR 100000`, `5%`.
pub fn money(text: &str) -> Option<String> {
    static NUM: Lazy<Regex> =
        Lazy::new(|| Regex::new(r"(\d[\d,]*(?:\.\d+)?)\s*(million|billion|thousand)?").unwrap());
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let c = NUM.captures(t)?;
    let digits = c[1].replace(',', "");
    if lower.contains('%') || lower.contains("percent") || lower.contains("per cent") {
        return Some(format!("{digits}%"));
    }
    let currency = if lower.contains("eur") || t.contains('€') {
        "EUR"
    } else if lower.contains("gbp") || t.contains('£') {
        "GBP"
    } else if lower.contains("rmb") || t.contains('¥') {
        "CNY"
    } else if t.contains('$') || lower.contains("usd") || lower.contains("dollar") {
        "USD"
    } else {
        return None;
    };
    let scale = match c.get(2).map(|m| m.as_str().to_ascii_lowercase()) {
        Some(s) if s == "million" => 1_000_000f64,
        Some(s) if s == "billion" => 1_000_000_000f64,
        Some(s) if s == "thousand" => 1_000f64,
        _ => 1.0,
    };
    let amount = if scale == 1.0 {
        digits
    } else {
        let x: f64 = digits.parse().ok()?;
        format!("{}", (x * scale).round() as u64)
    };
    Some(format!("{currency} {amount}"))
}

/// The date a term ends, in a sentence that gives its start and end
/// (`commence August 1, 1995 and continue until January 30, 2000`): the
/// first date after `until`, `through`, `expire(s) on`, `ending`, `end on`.
pub fn end_date(sentence: &str) -> Option<String> {
    static END: Lazy<Regex> = Lazy::new(|| {
        Regex::new(r"(?i)\b(?:until|through(?:\s+to)?|thru|expir(?:e|es|ing)\s+on|ending\s+on|ends?\s+(?:on|as\s+of|at)|terminat(?:e|es|ing)\s+on|in\s+no\s+event\s+later\s+than)\s+(?:and\s+including\s+)?(?:the\s+)?([A-Za-z0-9][A-Za-z0-9,./ ]{4,40}?(?:\d{4}|/\d{2}))\b")
            .unwrap()
    });
    END.captures_iter(sentence)
        .find_map(|c| date(c.get(1)?.as_str()).filter(|d| d.len() >= 7))
}

/// Adds a period (`2 years`, `90 days`) to an ISO date (`2014-05-08`); a
/// partial date or a period in days of a partial date gives nothing.
pub fn add_period(iso: &str, period: &str) -> Option<String> {
    let mut parts = iso.split('-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let d: i64 = parts.next()?.parse().ok()?;
    let (n, unit) = period.split_once(' ')?;
    let n: i64 = n.parse().ok()?;
    let months = match unit.trim_end_matches('s') {
        "year" => 12 * n,
        "month" => n,
        "quarter" => 3 * n,
        "day" | "week" => {
            let days = if unit.starts_with("week") { 7 * n } else { n };
            let date = chrono::NaiveDate::from_ymd_opt(y as i32, m as u32, d as u32)?
                + chrono::Duration::days(days);
            return Some(date.format("%Y-%m-%d").to_string());
        }
        _ => return None,
    };
    let total = y * 12 + (m - 1) + months;
    let (ny, nm) = (total / 12, total % 12 + 1);
    let nd = (d as u32).min(days_in(ny as u32, nm as u32));
    Some(format!("{ny:04}-{nm:02}-{nd:02}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_become_iso_as_far_as_the_text_gives_them() {
        assert_eq!(date("8th day of May, 2014").as_deref(), Some("2014-05-08"));
        assert_eq!(date("March 1, 2020").as_deref(), Some("2020-03-01"));
        assert_eq!(date("12-23-2019").as_deref(), Some("2019-12-23"));
        assert_eq!(date("1 March 2020").as_deref(), Some("2020-03-01"));
        assert_eq!(date("5/8/14").as_deref(), Some("2014-05-08"));
        assert_eq!(date("Sept. 30, 2003").as_deref(), Some("2003-09-30"));
        assert_eq!(date("March 2020").as_deref(), Some("2020-03"));
        assert_eq!(date("____ day of ______, 2020").as_deref(), Some("2020"));
        assert_eq!(date("February 30, 2020").as_deref(), Some("2020-02"));
        assert_eq!(date("no year"), None);
    }

    #[test]
    fn periods_become_a_count_and_a_unit() {
        assert_eq!(period("thirty (30) days").as_deref(), Some("30 days"));
        assert_eq!(period("2 years").as_deref(), Some("2 years"));
        assert_eq!(period("one-year").as_deref(), Some("1 year"));
        assert_eq!(period("twelve months").as_deref(), Some("12 months"));
        assert_eq!(
            period("one hundred eighty days").as_deref(),
            Some("180 days")
        );
        assert_eq!(period("successive one year").as_deref(), Some("1 year"));
        assert_eq!(period("the term of this Agreement"), None);
    }

    #[test]
    fn places_money_and_computed_dates() {
        assert_eq!(place("English").as_deref(), Some("England"));
        assert_eq!(place("Ontario").as_deref(), Some("Ontario, Canada"));
        assert_eq!(place("New York").as_deref(), Some("New York"));
        assert_eq!(place("New York State").as_deref(), Some("New York"));
        assert_eq!(place("PRC").as_deref(), Some("China"));
        // A clause-named period has no normal form; a period value has.
        assert_eq!(
            of("RENEWAL_TERM", "Period", "one (1) year").as_deref(),
            Some("1 year")
        );
        assert_eq!(
            of(
                "NOTICE_PERIOD_TO_TERMINATE_RENEWAL",
                "Period",
                "This Agreement will automatically renew on a year to year basis unless"
            ),
            None
        );
        assert_eq!(money("$250.00").as_deref(), Some("USD 250.00"));
        assert_eq!(money("US$ 5 million").as_deref(), Some("USD 5000000"));
        assert_eq!(money("EUR 100,000").as_deref(), Some("EUR 100000"));
        assert_eq!(money("5%").as_deref(), Some("5%"));
        assert_eq!(
            add_period("2014-05-08", "2 years").as_deref(),
            Some("2016-05-08")
        );
        assert_eq!(
            add_period("2020-01-31", "1 month").as_deref(),
            Some("2020-02-29")
        );
        assert_eq!(
            add_period("2020-01-01", "90 days").as_deref(),
            Some("2020-03-31")
        );
        assert_eq!(add_period("2020-01", "1 year"), None);
        assert_eq!(
            end_date("shall commence August 1, 1995 and continue until January 30, 2000, unless")
                .as_deref(),
            Some("2000-01-30")
        );
        assert_eq!(end_date("effective as of March 1, 2020"), None);
    }
}
