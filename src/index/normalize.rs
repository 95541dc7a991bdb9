//! Title normalisation shared by matching, reports and suggestions.
//!
//! Real headings carry numbering and decoration that says nothing about what
//! a section is: `SECTION 2.12. Payments and Computations`, `ARTICLE VII THE
//! AGENT`, `Agent’s Fees`. The tree stage parses the numbering off once
//! (`Node.name`); matching and the report's grouping reduce that name to its
//! bare words here. Titles no tree has seen (index YAML, review CSV) go
//! through the same label parser first.

use crate::tree::{split_heading, Label, LabelKind};
use once_cell::sync::Lazy;
use regex::Regex;

/// Parenthesised asides: `(Aggregated)`, `(Section 2.05.4)`.
static PARENS: Lazy<Regex> = Lazy::new(|| Regex::new(r"\([^()]*\)").expect("valid regex"));

/// Words dropped everywhere: they never decide what a section is about.
const DROPPED: &[&str] = &["and", "the"];

/// Normalises a heading's name (the title without its label, as the tree
/// stage parsed it: `Node.name`) for matching and grouping: drops
/// parenthesised asides, case, punctuation, curly quotes and apostrophes,
/// `&`/`and`, `the`, and simple plurals. Nothing here parses numbering.
///
/// `Definitions` -> `definition`; `THE AGENT` -> `agent`; `Counterparts;
/// Integration` and `Counterparts and Integration` both -> `counterpart
/// integration`.
pub fn normalize_name(name: &str) -> String {
    thread_local! {
        static NAMES: super::memo::Memory<String> = Default::default();
    }
    super::memo::remembered(&NAMES, name, |n| words(n).join(" "))
}

/// [`normalize_name`] of a title string that no tree has parsed (an index
/// entry typed in YAML, a review row read from CSV): the label comes off
/// through the one label parser, [`crate::tree::split_heading`].
///
/// `Section 1.01 Definitions` -> `definition`; `ARTICLE VII THE AGENT` ->
/// `agent`. Returns an empty string for a title that is only numbering
/// (`Section 1.01`); a bare annex heading is named by its kind
/// (`SCHEDULE 1.1(a)` -> `schedule`).
pub fn normalize_title(title: &str) -> String {
    let (label, name) = split_heading(title);
    normalize_heading(label.as_ref(), &name)
}

/// [`normalize_name`] of a parsed heading; a bare annex heading (no name of
/// its own) is named by its kind (`SCHEDULE 1.1(a)` -> `schedule`).
pub fn normalize_heading(label: Option<&Label>, name: &str) -> String {
    let w = words(name);
    if w.is_empty() {
        return label.map_or("", |l| annex_word(l.kind)).to_owned();
    }
    w.join(" ")
}

/// The word that names an annex heading with no name of its own.
fn annex_word(kind: LabelKind) -> &'static str {
    match kind {
        LabelKind::Schedule => "schedule",
        LabelKind::Exhibit => "exhibit",
        LabelKind::Annex => "annex",
        LabelKind::Appendix => "appendix",
        LabelKind::Attachment => "attachment",
        LabelKind::Article | LabelKind::Section | LabelKind::Part => "",
    }
}

/// The normalised words of a title body (numbering already stripped).
fn words(body: &str) -> Vec<String> {
    let cleaned = PARENS.replace_all(body, " ");
    let mut text = String::with_capacity(cleaned.len());
    for c in cleaned.chars() {
        match c {
            // Apostrophes vanish so `Agent’s` and `Agents` meet.
            '\'' | '’' | '‘' | '`' => {}
            // So do invisible characters inside a word (zero-width space
            // and joiners, word joiner, BOM, soft hyphen: PDF and web
            // text carry them), which would cut `Gover\u{200b}ning` in two.
            c if is_invisible(c) => {}
            '&' => text.push_str(" and "),
            c if c.is_ascii_alphanumeric() => text.push(c.to_ascii_lowercase()),
            c if c.is_alphanumeric() => text.extend(c.to_lowercase()),
            _ => text.push(' '),
        }
    }
    text.split_whitespace()
        .filter(|w| !DROPPED.contains(w))
        .map(stem)
        .collect()
}

/// A character that shows nothing and joins or splits no words on the
/// page.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00ad}' | '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}'
    )
}

/// Light plural stemming: `liabilities` -> `liability`, `taxes` -> `tax`,
/// `lenders` -> `lender`; keeps `business`, `status`, `analysis`.
pub fn stem(word: &str) -> String {
    let w = word;
    if w.len() <= 3 || !w.is_ascii() {
        return w.to_string();
    }
    if let Some(s) = w.strip_suffix("ies") {
        return format!("{s}y");
    }
    if w.ends_with("sses") {
        return w[..w.len() - 2].to_string();
    }
    for suf in ["xes", "ches", "shes"] {
        if w.ends_with(suf) {
            return w[..w.len() - 2].to_string();
        }
    }
    if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        return w[..w.len() - 1].to_string();
    }
    w.to_string()
}

/// True for `[Reserved]`, `Reserved`, `Intentionally Omitted` and the like:
/// sections with no text that route nowhere.
pub fn is_reserved(title: &str) -> bool {
    is_reserved_normalized(&normalize_title(title))
}

/// [`is_reserved`] for a title already passed through [`normalize_title`].
pub fn is_reserved_normalized(normalized: &str) -> bool {
    matches!(
        normalized,
        "reserved" | "intentionally omitted" | "intentionally left blank" | "omitted"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_inside_a_word_do_not_split_it() {
        assert_eq!(
            normalize_title("2. Gover\u{200b}ning La\u{200c}w"),
            normalize_title("2. Governing Law")
        );
        assert_eq!(
            normalize_name("In\u{00ad}demni\u{2060}fication"),
            "indemnification"
        );
    }

    #[test]
    fn strips_numbering_and_section_words() {
        assert_eq!(normalize_title("Section 1.01 Definitions"), "definition");
        assert_eq!(
            normalize_title("SECTION 2.12. Payments and Computations"),
            "payment computation"
        );
        assert_eq!(normalize_title("1.01 Defined Terms"), "defined term");
        assert_eq!(normalize_title("ARTICLE VII THE AGENT"), "agent");
        assert_eq!(normalize_title("Schedule 5.13 Subsidiaries"), "subsidiary");
        assert_eq!(
            normalize_title("Article 9: ADMINISTRATIVE AGENT (Aggregated)"),
            "administrative agent"
        );
        assert_eq!(
            normalize_title("Mergers, Consolidations and Sales of Assets"),
            "merger consolidation sale of asset"
        );
        assert_eq!(normalize_title("Section 2.12 [Reserved]"), "reserved");
        assert_eq!(normalize_title("Schedule 2.01A Commitments"), "commitment");
        assert_eq!(
            normalize_title("ARTICLE 2.18. Extension of Termination Date"),
            "extension of termination date"
        );
        assert_eq!(
            normalize_title("SECTION 4.01.Representations and Warranties"),
            "representation warranty"
        );
        assert_eq!(normalize_title("Article 1. DEFINITIONS"), "definition");
        assert_eq!(
            normalize_title("EXHIBIT H - Competitive Bid Quote (Section 2.05.4)"),
            "competitive bid quote"
        );
        assert_eq!(normalize_title("SCHEDULE 1.1(a)"), "schedule");
        assert_eq!(normalize_title("Exhibits"), "exhibit");
        assert_eq!(normalize_title("Section 1.01"), "");
        assert_eq!(normalize_title("SECTION 1.0 DEFINITIONS"), "definition");
    }

    #[test]
    fn names_are_not_parsed_again() {
        // The tree took the label off; what is left is all name.
        assert_eq!(normalize_name("Section 1.01"), "section 1 01");
        assert_eq!(normalize_name("THE AGENT"), "agent");
        assert_eq!(normalize_heading(None, "Definitions"), "definition");
        let (label, name) = split_heading("Exhibit B-1");
        assert_eq!(normalize_heading(label.as_ref(), &name), "exhibit");
        let (label, name) = split_heading("ARTICLE IV");
        assert_eq!(normalize_heading(label.as_ref(), &name), "");
        // A bare roman numeral with its period is an article label to the
        // one parser, for the tree and for matching alike.
        assert_eq!(normalize_title("IV. Representations"), "representation");
    }

    #[test]
    fn quotes_ampersand_plurals_and_punctuation() {
        assert_eq!(normalize_title("Section 7.10 Agent’s Fees"), "agent fee");
        assert_eq!(normalize_title("Agent's Fee"), "agent fee");
        assert_eq!(
            normalize_title("Counterparts; Integration"),
            normalize_title("Counterparts and Integration")
        );
        assert_eq!(normalize_title("Terms & Conditions."), "term condition");
        assert_eq!(normalize_title("Taxes"), "tax");
        assert_eq!(normalize_title("Liabilities"), "liability");
        assert_eq!(
            normalize_title("Conduct of Business"),
            "conduct of business"
        );
    }

    #[test]
    fn words_that_look_like_numerals_survive() {
        assert_eq!(normalize_title("Civil Matters"), "civil matter");
        assert_eq!(normalize_title("Mix of Products"), "mix of product");
        assert_eq!(normalize_title("Exhibit A-1 Form of Note"), "form of note");
    }

    /// Words of real headings (none is a structural word or a numeral).
    const WORDS: &[&str] = &[
        "Definitions",
        "Events",
        "of",
        "Default",
        "Mergers",
        "Sales",
        "Assets",
        "Agent’s",
        "Fees",
        "Liens",
        "Negative",
        "Pledge",
        "Use",
        "Proceeds",
        "Governing",
        "Law",
        "&",
        "Subsidiaries",
        "Taxes",
        "Notices",
        "Litigation",
        "Company",
        "Guaranty",
        "Civil",
    ];

    proptest::proptest! {
        #[test]
        fn numbering_prefixes_do_not_change_the_title(
            words in proptest::collection::vec(proptest::sample::select(WORDS), 1..6),
            prefix in proptest::sample::select(&[
                "Section 1.01 ", "SECTION 2.12. ", "1.01 ", "ARTICLE VII ", "Article 9: ",
                "Schedule 2.01A ", "Section 12.16.\u{a0} ", "§ 4.2 ", "ARTICLE 2.18. ", "Exhibit H - ",
            ][..]),
        ) {
            let title = words.join(" ");
            let bare = normalize_title(&title);
            // A title with no words of its own (`&`) is named by its kind.
            proptest::prop_assume!(!bare.is_empty());
            proptest::prop_assert_eq!(normalize_title(&format!("{prefix}{title}")), bare.clone());
            proptest::prop_assert_eq!(normalize_title(&title.to_uppercase()), bare.clone());
            proptest::prop_assert!(!bare.contains("  ") && bare == bare.trim());
            proptest::prop_assert!(bare.chars().all(|c| c == ' ' || c.is_lowercase() || c.is_numeric()));
        }

        #[test]
        fn never_panics(title in "\\PC{0,60}") {
            let n = normalize_title(&title);
            proptest::prop_assert!(!n.contains("  "));
        }
    }

    #[test]
    fn reserved_forms() {
        assert!(is_reserved("Section 2.12 [Reserved]"));
        assert!(is_reserved("Section 3.09. [Reserved]."));
        assert!(is_reserved("Intentionally Omitted"));
        assert!(!is_reserved("Rights Reserved By Landlord"));
    }
}
