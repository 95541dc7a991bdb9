//! Control characters out of headings before anyone prints or writes them.
//!
//! A heading comes from an untrusted document. Printed raw, an ANSI escape
//! in it (`ESC [ 2 J`) is a terminal command: it can clear the screen,
//! recolour or hide the rest of the output. Written into YAML, a control
//! character is not allowed in a plain scalar and breaks the index. So every
//! title shown to a person or written to a report, a spreadsheet or an index
//! goes through [`sanitize_title`] first: a heading is text, never a command.
//!
//! Call sites outside the report stage (for the lead to wire in): the title
//! and breadcrumb printing of `kgroute tree` (`src/cmd/tree.rs`) and
//! `kgroute plan` (`src/cmd/plan.rs`).

use std::borrow::Cow;

/// True for characters that a terminal or a YAML scalar treats as control:
/// C0 (including tab, newline, carriage return), DEL and C1.
fn is_control(c: char) -> bool {
    c.is_control()
}

/// Removes ANSI escape sequences (CSI `ESC [ ... final`, OSC `ESC ] ... BEL`
/// or `ESC \`, and two-character `ESC x`) and turns every other control
/// character into a space, then collapses the runs of spaces this leaves.
/// Returns the input unchanged (borrowed) when it has no control character.
pub fn sanitize_title(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' | '\u{9b}' => {
                // CSI: `ESC [` (or the 8-bit `\u{9b}`), parameters, one final
                // byte in `@`..`~`.
                let csi = c == '\u{9b}' || chars.peek() == Some(&'[');
                let osc = c == '\u{1b}' && chars.peek() == Some(&']');
                if csi {
                    if c == '\u{1b}' {
                        chars.next();
                    }
                    for n in chars.by_ref() {
                        if ('@'..='~').contains(&n) {
                            break;
                        }
                    }
                } else if osc {
                    chars.next();
                    while let Some(n) = chars.next() {
                        if n == '\u{7}' || (n == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                } else {
                    // `ESC c` (reset) and other two-character escapes.
                    chars.next_if(|n| !is_control(*n));
                }
                out.push(' ');
            }
            c if is_control(c) => out.push(' '),
            c => out.push(c),
        }
    }
    let collapsed = out.split_whitespace().collect::<Vec<_>>().join(" ");
    Cow::Owned(collapsed)
}

#[cfg(test)]
mod tests {
    use super::sanitize_title;

    #[test]
    fn escapes_are_removed_and_other_controls_become_spaces() {
        assert_eq!(sanitize_title("Definitions"), "Definitions");
        assert!(matches!(
            sanitize_title("Agent’s Fees"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            sanitize_title("\u{1b}[31mEvents of Default\u{1b}[0m"),
            "Events of Default"
        );
        assert_eq!(sanitize_title("Taxes\u{1b}[2J\u{1b}[H"), "Taxes");
        assert_eq!(sanitize_title("\u{1b}]0;owned\u{7}Notices"), "Notices");
        assert_eq!(sanitize_title("Fees\tand\r\nCosts\u{7f}"), "Fees and Costs");
        assert_eq!(sanitize_title("\u{9b}1mLiens"), "Liens");
        assert_eq!(sanitize_title("\u{1b}cReset"), "Reset");
    }

    proptest::proptest! {
        #[test]
        fn output_never_holds_a_control_character(s in "\\PC{0,10}[\\x00-\\x1f\\x7f-\\x9f]{1,3}\\PC{0,10}") {
            let out = sanitize_title(&s);
            proptest::prop_assert!(!out.chars().any(char::is_control), "{:?}", out);
            proptest::prop_assert_eq!(sanitize_title(&out), out.clone());
        }
    }
}
