//! An answer that repeats itself until its budget: small models fall into
//! loops (`"the Company", "the Company", ...`, a relation written again
//! and again, a run of blank lines under a grammar) and would spend every
//! token up to `max_tokens` on them, then be cut and asked again. The
//! stream is watched instead: when its tail is one unit written over and
//! over, the answer is stopped there and what came before the loop is
//! kept for the caller to salvage.

/// Longest repeated unit looked for, in bytes: a relation object.
const MAX_UNIT: usize = 320;

/// The repeated run must cover at least this many bytes...
const MIN_SPAN: usize = 240;

/// ...and hold the unit at least this many times.
const MIN_COPIES: usize = 4;

/// How often the tail is checked, in bytes of new content.
pub const CHECK_EVERY: usize = 64;

/// Where a looping tail of `text` began, when `text` ends in one: the
/// byte offset after the loop's first copy of its unit (the text up to
/// there holds everything the answer said once). `None` when the tail is
/// no loop.
pub fn loop_start(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let n = b.len();
    for unit in 1..=MAX_UNIT.min(n / MIN_COPIES) {
        let span = (unit * MIN_COPIES).max(MIN_SPAN);
        if span > n {
            continue;
        }
        if (n - span + unit..n).all(|i| b[i] == b[i - unit]) {
            // The loop may have begun earlier than the span checked.
            let mut start = n - span;
            while start > 0 && b[start - 1] == b[start - 1 + unit] {
                start -= 1;
            }
            let mut keep = start + unit;
            while !text.is_char_boundary(keep) {
                keep += 1;
            }
            return Some(keep);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_written_again_and_again_is_a_loop_and_the_text_before_is_kept() {
        let head = r#"{"entities": [{"name": "Acme", "type": "Organization"}], "relations": ["#;
        let unit = r#"{"source": "Acme", "type": "PAYS", "target": "Fee"}, "#;
        let text = format!("{head}{}", unit.repeat(8));
        let at = loop_start(&text).expect("a loop");
        assert_eq!(&text[..at], format!("{head}{unit}"));
        // Blank lines under a grammar.
        let blank = format!("{head}{}", "\n".repeat(300));
        assert_eq!(loop_start(&blank), Some(head.len() + 1));
    }

    #[test]
    fn varied_lists_and_short_repeats_are_no_loop() {
        let items: Vec<String> = (0..40)
            .map(|i| format!(r#"{{"name": "Party {i}", "type": "Organization"}}"#))
            .collect();
        let text = format!(r#"{{"entities": [{}"#, items.join(", "));
        assert_eq!(loop_start(&text), None);
        // Three copies of a long unit are not yet a loop; a short run of
        // spaces is indentation.
        let unit = "x".repeat(100) + "y";
        assert_eq!(loop_start(&unit.repeat(3)), None);
        assert_eq!(loop_start(&format!("{{\n{}\"a\": 1", " ".repeat(40))), None);
        assert_eq!(loop_start(""), None);
        // Multi-byte text is cut at a character boundary.
        let text = format!("{}{}", "é", "ü—".repeat(200));
        let at = loop_start(&text).unwrap();
        assert!(text.is_char_boundary(at));
    }
}
