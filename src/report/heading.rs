//! Display form of a section heading: what a reviewer would write in the
//! index. `Section 1.01 Definitions` becomes `Definitions`,
//! `Article 9: ADMINISTRATIVE AGENT` becomes `Administrative Agent`.
//!
//! The numbering comes off through the label the tree stage parsed
//! (`label` / `name` on the node and the routed section); nothing here
//! parses it again. Matching uses [`crate::index::normalize_name`]; this
//! form is for people (suggestions, entries added by `kgroute review`).

use crate::tree::{split_heading, Label, LabelKind};

const SMALL_WORDS: [&str; 14] = [
    "a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with",
];

/// Display form of a parsed heading. Article and section labels are
/// dropped (annex labels are the annex's name and stay: `Schedule 2.01A
/// Commitments`), control characters go ([`super::sanitize::sanitize_title`]),
/// an all-caps name turns into title case. A heading with no name of its
/// own (`ARTICLE IV`) keeps its title.
pub fn display_heading(title: &str, label: Option<&Label>, name: &str) -> String {
    let clean = super::sanitize::sanitize_title(title);
    let trimmed = clean.trim();
    let numbered = label.is_some_and(|l| matches!(l.kind, LabelKind::Article | LabelKind::Section));
    if !numbered {
        let rest = trimmed.trim_end_matches('.').trim();
        return if rest.is_empty() {
            trimmed.to_string()
        } else {
            cased(rest)
        };
    }
    let name = super::sanitize::sanitize_title(name);
    let rest = name.trim().trim_end_matches('.').trim();
    if rest.is_empty() {
        return trimmed.to_string();
    }
    cased(rest)
}

/// [`display_heading`] of a title that no tree has parsed (a review row
/// read from CSV): the label comes off through the one label parser.
pub fn display_title(heading: &str) -> String {
    let (label, name) = split_heading(heading);
    display_heading(heading, label.as_ref(), &name)
}

/// Title case for an all-caps heading; anything with lower case as written.
fn cased(s: &str) -> String {
    if s.chars().any(char::is_lowercase) {
        s.to_string()
    } else {
        title_case(s)
    }
}

fn title_case(s: &str) -> String {
    s.split(' ')
        .enumerate()
        .map(|(i, w)| {
            let lower = w.to_lowercase();
            if i > 0 && SMALL_WORDS.contains(&lower.as_str()) {
                return lower;
            }
            let mut chars = lower.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::{display_heading, display_title};
    use crate::tree::split_heading;

    #[test]
    fn strips_numbering_in_the_shapes_real_contracts_use() {
        let cases = [
            ("Section 1.01 Definitions", "Definitions"),
            (
                "SECTION 2.12. Payments and Computations",
                "Payments and Computations",
            ),
            (
                "ARTICLE 2.18. Extension of Termination Date",
                "Extension of Termination Date",
            ),
            ("1.01 Defined Terms", "Defined Terms"),
            ("Article 9: ADMINISTRATIVE AGENT", "Administrative Agent"),
            ("Article IV - Representations", "Representations"),
            ("Section 5.13 Subsidiaries.", "Subsidiaries"),
            ("Types of Advances", "Types of Advances"),
            ("ARTICLE IV", "ARTICLE IV"),
            ("Schedule 2.01A Commitments", "Schedule 2.01A Commitments"),
        ];
        for (input, want) in cases {
            assert_eq!(display_title(input), want, "{input}");
        }
    }

    #[test]
    fn the_parsed_label_decides_not_the_title() {
        // The tree's label and name are used as given: a heading the tree
        // found no label in keeps its numbering-like words.
        let (label, name) = split_heading("SECTION 2.12. PAYMENTS AND COMPUTATIONS");
        assert_eq!(
            display_heading(
                "SECTION 2.12. PAYMENTS AND COMPUTATIONS",
                label.as_ref(),
                &name
            ),
            "Payments and Computations"
        );
        assert_eq!(
            display_heading("Section Titles", None, "Section Titles"),
            "Section Titles"
        );
        let (label, name) = split_heading("EXHIBIT B-1 FORM OF NOTE");
        assert_eq!(
            display_heading("EXHIBIT B-1 FORM OF NOTE", label.as_ref(), &name),
            "Exhibit B-1 Form of Note"
        );
    }
}
