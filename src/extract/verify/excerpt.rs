//! The words a question shows the model: not the whole paragraph (filings
//! have paragraphs of thousands of characters, and the paragraphs would be
//! most of the bill) but the sentences around what the rules read, or the
//! run of sentences the clause model scores highest, within
//! [`EXCERPT_CHARS`]. A clause a lawyer marks is a sentence or two.

use super::questions::norm;
use crate::extract::rules::sentence_spans;

/// Longest excerpt: two or three contract sentences.
pub const EXCERPT_CHARS: usize = 480;

/// The sentences of `paragraph` around `evidence` (a rule's quote, a
/// sentence window perhaps cut with `...`): the sentence it starts in and
/// its neighbours while they fit. A sentence longer than the budget gives
/// the evidence itself; evidence not found in the paragraph, the evidence.
pub fn around(paragraph: &str, evidence: &str) -> String {
    let paragraph = one_line(paragraph);
    if paragraph.len() <= EXCERPT_CHARS {
        return paragraph;
    }
    let evidence =
        one_line(evidence.trim_matches(|c: char| c == '.' || c == '…' || c.is_whitespace()));
    let probe: String = norm(&evidence).chars().take(40).collect();
    let spans = sentence_spans(&paragraph);
    let Some(k) = spans
        .iter()
        .position(|&(s, e)| !probe.is_empty() && norm(&paragraph[s..e]).contains(&probe))
    else {
        return clip(&evidence);
    };
    if spans[k].1 - spans[k].0 > EXCERPT_CHARS {
        return clip(&evidence);
    }
    grow(&paragraph, &spans, k)
}

/// The run of sentences of `paragraph` within the budget that `score`
/// rates highest (the whole paragraph when it fits).
pub fn best_window(paragraph: &str, score: impl Fn(&str) -> f32) -> String {
    let paragraph = one_line(paragraph);
    if paragraph.len() <= EXCERPT_CHARS {
        return paragraph;
    }
    let spans = sentence_spans(&paragraph);
    let mut best: Option<(f32, String)> = None;
    for k in 0..spans.len() {
        let mut end = k;
        while end + 1 < spans.len() && spans[end + 1].1 - spans[k].0 <= EXCERPT_CHARS {
            end += 1;
        }
        let window = if spans[end].1 - spans[k].0 <= EXCERPT_CHARS {
            paragraph[spans[k].0..spans[end].1].to_string()
        } else {
            clip(&paragraph[spans[k].0..spans[k].1])
        };
        let s = score(&window);
        if best.as_ref().is_none_or(|(b, _)| s > *b) {
            best = Some((s, window));
        }
    }
    best.map_or_else(|| clip(&paragraph), |(_, w)| w)
}

/// Sentence `k` and its neighbours, next first, while the whole fits.
fn grow(paragraph: &str, spans: &[(usize, usize)], k: usize) -> String {
    let (mut from, mut to) = (k, k);
    loop {
        let width = |a: usize, b: usize| spans[b].1 - spans[a].0;
        if to + 1 < spans.len() && width(from, to + 1) <= EXCERPT_CHARS {
            to += 1;
        } else if from > 0 && width(from - 1, to) <= EXCERPT_CHARS {
            from -= 1;
        } else {
            break;
        }
    }
    paragraph[spans[from].0..spans[to].1].to_string()
}

/// The text on one line, its runs of white space as one space.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most the budget, cut between words.
fn clip(s: &str) -> String {
    if s.len() <= EXCERPT_CHARS {
        return s.to_string();
    }
    let mut end = EXCERPT_CHARS;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let cut = s[..end].rfind(' ').unwrap_or(end);
    format!("{}…", &s[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long_paragraph() -> String {
        let filler =
            "The Parties shall meet each quarter to review the plan and its budget in good faith. ";
        format!(
            "{}The Distributor shall not sell any competing product in the Territory during the Term. {}",
            filler.repeat(6),
            filler.repeat(6)
        )
    }

    #[test]
    fn an_excerpt_is_the_sentences_around_the_evidence_within_the_budget() {
        let p = long_paragraph();
        let e = around(&p, "The Distributor shall not sell any competing product");
        assert!(e.len() <= EXCERPT_CHARS, "{}", e.len());
        assert!(e.contains("The Distributor shall not sell any competing product in the Territory during the Term."), "{e}");
        assert!(
            e.starts_with("The ") && e.ends_with('.'),
            "whole sentences: {e}"
        );
        // Evidence not in the paragraph: the evidence, never another text.
        assert_eq!(
            around(&p, "no such words here at all"),
            "no such words here at all"
        );
        // A short paragraph is shown whole.
        assert_eq!(around("Short  one.\nTwo.", "Short"), "Short one. Two.");
    }

    #[test]
    fn a_suggested_excerpt_is_the_window_the_score_prefers() {
        let p = long_paragraph();
        let w = best_window(&p, |t| if t.contains("competing") { 1.0 } else { 0.0 });
        assert!(w.contains("competing product"), "{w}");
        assert!(w.len() <= EXCERPT_CHARS);
    }
}
