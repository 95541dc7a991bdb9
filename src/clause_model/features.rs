//! The words a paragraph is scored on: lower-case word unigrams and
//! bigrams of its text, and the unigrams of its section's title marked
//! `h:`. Numbers are one token (`<n>`): a clause kind does not depend on
//! which period or amount it names, and a model that learned `30` would
//! not carry to `45`.
//!
//! The same function feeds training and scoring, so a model can only see
//! at ingest the features it was trained on.

/// Longest paragraph read, in bytes: a clause lives in its opening words,
/// and an unbroken page of text (a table run together) would otherwise
/// cost in proportion to its length.
const MAX_TEXT_BYTES: usize = 6_000;

/// The distinct features of a paragraph under a title, sorted.
pub fn features(title: &str, text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let words = words(clip(text, MAX_TEXT_BYTES));
    for (i, w) in words.iter().enumerate() {
        out.push(w.clone());
        if let Some(next) = words.get(i + 1) {
            out.push(format!("{w} {next}"));
        }
    }
    for w in words_of_title(title) {
        out.push(format!("h:{w}"));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The first `max` bytes of `text`, cut at a character boundary.
fn clip(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Word tokens: runs of ASCII letters (lower-cased) or digits (`<n>`);
/// other characters separate words. A hyphen inside a word joins it
/// (`non-compete`, `royalty-free`), since those compounds are the clause
/// words lawyers look for.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut digits = false;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let joins = b == b'-'
            && !cur.is_empty()
            && !digits
            && bytes.get(i + 1).is_some_and(u8::is_ascii_alphabetic);
        if b.is_ascii_alphabetic() {
            if digits {
                out.push(std::mem::take(&mut cur));
                digits = false;
            }
            cur.push(b.to_ascii_lowercase() as char);
        } else if digits
            && matches!(b, b',' | b'.')
            && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
        {
            // `1,000.50` is one number.
        } else if b.is_ascii_digit() {
            if !digits && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if !digits {
                cur.push_str("<n>");
                digits = true;
            }
        } else if joins {
            cur.push('-');
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
            digits = false;
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A title's words, without its numbering (`Section 9.2`, `ARTICLE IV`).
fn words_of_title(title: &str) -> Vec<String> {
    const NUMBERING: &[&str] = &["section", "article", "<n>", "i", "ii", "iii", "iv", "v"];
    words(title)
        .into_iter()
        .filter(|w| !NUMBERING.contains(&w.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_one_token_and_compounds_stay_whole() {
        assert_eq!(
            words("within thirty (30) days; a non-compete, $1,000.50"),
            vec!["within", "thirty", "<n>", "days", "a", "non-compete", "<n>"]
        );
        assert_eq!(words("Section 10.2-A"), vec!["section", "<n>", "a"]);
    }

    #[test]
    fn features_hold_unigrams_bigrams_and_title_words() {
        let f = features("Section 9. Insurance", "Shall maintain insurance");
        for want in [
            "shall",
            "maintain",
            "insurance",
            "shall maintain",
            "maintain insurance",
            "h:insurance",
        ] {
            assert!(f.iter().any(|x| x == want), "{want} in {f:?}");
        }
        assert!(!f.iter().any(|x| x == "h:section" || x == "h:<n>"), "{f:?}");
        let mut sorted = f.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(f, sorted, "distinct and sorted");
    }

    #[test]
    fn a_long_paragraph_is_read_to_its_limit_only() {
        let long = "é".repeat(MAX_TEXT_BYTES);
        assert!(clip(&long, MAX_TEXT_BYTES).len() <= MAX_TEXT_BYTES);
        assert_eq!(clip("short", 10), "short");
    }
}
