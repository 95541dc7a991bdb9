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
    let tokens = Tokens::of(title, text);
    tokens.features().into_iter().map(str::to_string).collect()
}

/// A paragraph's words laid end to end in one buffer, one space apart,
/// then its title's words as `h:` features: a word and a bigram are both
/// slices of the buffer, so scoring a paragraph allocates nothing per
/// feature (scoring every paragraph of a batch is on `plan`'s path).
pub(super) struct Tokens {
    buf: String,
    /// The text's words, as byte ranges of `buf`.
    words: Vec<(usize, usize)>,
    /// The title's `h:` features, as byte ranges of `buf`.
    title: Vec<(usize, usize)>,
}

impl Tokens {
    pub(super) fn of(title: &str, text: &str) -> Tokens {
        let text = clip(text, MAX_TEXT_BYTES);
        let mut buf = String::with_capacity(text.len() + title.len() + 16);
        let mut words = Vec::new();
        push_words(text, &mut buf, &mut words);
        let mut title_words = Vec::new();
        let mut scratch = String::new();
        push_words(title, &mut scratch, &mut title_words);
        let mut title_spans = Vec::new();
        for &(a, b) in &title_words {
            let w = &scratch[a..b];
            if TITLE_NUMBERING.contains(&w) {
                continue;
            }
            let start = buf.len();
            buf.push_str("h:");
            buf.push_str(w);
            title_spans.push((start, buf.len()));
            buf.push(' ');
        }
        Tokens {
            buf,
            words,
            title: title_spans,
        }
    }

    /// The distinct features, sorted.
    pub(super) fn features(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self.all_features().collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// How many features [`Tokens::all_features`] yields.
    pub(super) fn feature_count(&self) -> usize {
        (2 * self.words.len()).saturating_sub(1) + self.title.len()
    }

    /// Every feature, repeats included: unigrams, bigrams (two
    /// neighbouring words are one space apart in the buffer) and title
    /// words.
    pub(super) fn all_features(&self) -> impl Iterator<Item = &str> + '_ {
        let words = self.words.iter().enumerate().flat_map(move |(i, &(a, b))| {
            let pair = self
                .words
                .get(i + 1)
                .map(|&(_, next_end)| &self.buf[a..next_end]);
            std::iter::once(&self.buf[a..b]).chain(pair)
        });
        words.chain(self.title.iter().map(move |&(a, b)| &self.buf[a..b]))
    }
}

/// Title words that are numbering, not meaning (`Section 9.2`, `ARTICLE
/// IV`).
const TITLE_NUMBERING: &[&str] = &["section", "article", "<n>", "i", "ii", "iii", "iv", "v"];

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
/// words lawyers look for. Each word is appended to `buf` followed by one
/// space, its byte range pushed to `spans`.
fn push_words(text: &str, buf: &mut String, spans: &mut Vec<(usize, usize)>) {
    // The word being read starts here in `buf`; `digits`: it is a number.
    let mut start: Option<usize> = None;
    let mut digits = false;
    let close = |buf: &mut String, spans: &mut Vec<(usize, usize)>, start: &mut Option<usize>| {
        if let Some(s) = start.take() {
            spans.push((s, buf.len()));
            buf.push(' ');
        }
    };
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let joins = b == b'-'
            && start.is_some()
            && !digits
            && bytes.get(i + 1).is_some_and(u8::is_ascii_alphabetic);
        if b.is_ascii_alphabetic() {
            if digits {
                close(buf, spans, &mut start);
                digits = false;
            }
            start.get_or_insert(buf.len());
            buf.push(b.to_ascii_lowercase() as char);
        } else if digits
            && matches!(b, b',' | b'.')
            && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
        {
            // `1,000.50` is one number.
        } else if b.is_ascii_digit() {
            if !digits {
                close(buf, spans, &mut start);
                start = Some(buf.len());
                buf.push_str("<n>");
                digits = true;
            }
        } else if joins {
            buf.push('-');
        } else if start.is_some() {
            close(buf, spans, &mut start);
            digits = false;
        }
    }
    close(buf, spans, &mut start);
}

/// The word tokens of `text` ([`push_words`]).
#[cfg(test)]
fn words(text: &str) -> Vec<String> {
    let (mut buf, mut spans) = (String::new(), Vec::new());
    push_words(text, &mut buf, &mut spans);
    spans.iter().map(|&(a, b)| buf[a..b].to_string()).collect()
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
    fn the_feature_count_is_what_the_features_are() {
        for (title, text) in [
            ("", ""),
            ("Term", ""),
            ("", "one"),
            ("Section 9. Insurance", "shall maintain insurance"),
        ] {
            let t = Tokens::of(title, text);
            assert_eq!(
                t.feature_count(),
                t.all_features().count(),
                "{title:?} {text:?}"
            );
        }
    }

    #[test]
    fn a_long_paragraph_is_read_to_its_limit_only() {
        let long = "é".repeat(MAX_TEXT_BYTES);
        assert!(clip(&long, MAX_TEXT_BYTES).len() <= MAX_TEXT_BYTES);
        assert_eq!(clip("short", 10), "short");
    }
}
