//! The section's own identity for the rules: the name its relations start
//! from and the number a reference to itself carries. Both come from the
//! label the tree parsed (`SectionInput::label`), never from the title, so
//! a reference is compared with the section by parsed numbers: in Section
//! 5.06, `Section 5.6` and `Section 5.06` are the section itself.

use super::text::{normalize_ws, section_refs};
use crate::extract::SectionInput;
use crate::tree::label::parse_label;
use crate::tree::{Label, LabelKind};

/// The section as its own relations name it.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::extract::rules) struct OwnSection {
    /// `Section 5.06`, `Article VII` (the form cross-references use), or the
    /// title when the label is no section or article number.
    pub name: String,
    /// The heading as written.
    pub title: String,
    number: Option<PartNumber>,
}

/// A part's number as parsed: what it numbers and its sequence.
#[derive(Debug, Clone, PartialEq)]
struct PartNumber {
    kind: LabelKind,
    seq: Vec<u32>,
    /// Ends in a letter after a digit (`2.04A`, `Schedule 2.01A`): the
    /// label's sequence folds the letter in (`[2, 4, 1]`, like `2.04.1`) or
    /// drops it (`Schedule 2.01A` is `[2, 1]`), so the flag keeps the
    /// lettered part apart from its neighbours.
    lettered: bool,
}

impl PartNumber {
    fn of(label: &Label) -> PartNumber {
        let b = label.text.as_bytes();
        let lettered =
            b.len() >= 2 && b[b.len() - 1].is_ascii_alphabetic() && b[b.len() - 2].is_ascii_digit();
        PartNumber {
            kind: label.kind,
            seq: label.seq.clone(),
            lettered,
        }
    }

    /// A reference as `section_refs` writes it (`Section 5.6`,
    /// `Article VII`), parsed by the tree's label parser. A suffix the
    /// parser leaves (`Section 2.04a`) marks another part, like a letter.
    fn of_reference(reference: &str) -> Option<PartNumber> {
        let (label, used) = parse_label(reference)?;
        let mut number = PartNumber::of(&label);
        number.lettered |= used < reference.trim_end().len();
        Some(number)
    }
}

impl OwnSection {
    pub(in crate::extract::rules) fn of(input: &SectionInput) -> OwnSection {
        let title = normalize_ws(&input.title);
        // The reference form only when a cross-reference is written so
        // (`Section 1.A` never is): else the title says more.
        let name = input
            .label
            .as_ref()
            .and_then(reference_name)
            .filter(|n| section_refs(n) == [n.as_str()])
            .unwrap_or_else(|| title.clone());
        let name = if name.is_empty() {
            format!("Section {}", input.node_id)
        } else {
            name
        };
        OwnSection {
            name,
            title,
            number: input.label.as_ref().map(PartNumber::of),
        }
    }

    /// `reference` names this very part: the same number (`Section 5.6` in
    /// Section 5.06), or the same name, which would be a loop in the graph.
    pub(in crate::extract::rules) fn is_itself(&self, reference: &str) -> bool {
        reference == self.name
            || self.number.is_some() && self.number == PartNumber::of_reference(reference)
    }

    /// `reference` names this part or one of its own subsections
    /// (`Section 2.04.4` inside 2.04; `Section 2.04A` is another section).
    pub(in crate::extract::rules) fn is_itself_or_within(&self, reference: &str) -> bool {
        if self.is_itself(reference) {
            return true;
        }
        let (Some(own), Some(r)) = (&self.number, PartNumber::of_reference(reference)) else {
            return false;
        };
        // Only under a dotted number: a one-number section (an amendment's
        // `SECTION 2.`) is no parent of the `Section 2.6` it amends.
        own.kind == r.kind
            && own.seq.len() >= 2
            && !r.lettered
            && r.seq.len() > own.seq.len()
            && r.seq.starts_with(&own.seq)
    }
}

/// The name cross-references give the part: `Section` with the dotted
/// number as written (`SECTION 5.06` and a bare `5.06` are `Section
/// 5.06`), `Article` with its number when the heading says `Article`.
fn reference_name(label: &Label) -> Option<String> {
    match label.kind {
        LabelKind::Section if label.seq.len() >= 2 => {
            // A dotted section number starts with a digit; what precedes
            // it is the keyword (`Section`, `SECTION`, `§`, `Clause`).
            let number = label.text.trim_start_matches(|c: char| !c.is_ascii_digit());
            Some(format!("Section {number}"))
        }
        LabelKind::Article => {
            let keyword = "article";
            let written = label.text.get(..keyword.len())?;
            written
                .eq_ignore_ascii_case(keyword)
                .then(|| format!("Article {}", label.text[keyword.len()..].trim_start()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::rules::extract;
    use crate::extract::rules::test_support::{has, input, referenced};

    #[test]
    fn a_section_does_not_reference_its_own_number_however_written() {
        let i = input(
            "SECTION 5.06. Mergers and Sales of Assets",
            "Any sale described in Section 5.6 or in Section 5.06 is also subject to Section 5.07.\n\n\
             The Company shall not sell its assets except as Section 5.06 and Section 5.07 permit.",
        );
        assert_eq!(i.label.as_ref().map(|l| l.seq.clone()), Some(vec![5, 6]));
        let o = extract(&i);
        let refs = referenced(&o);
        assert!(
            !refs.contains(&"Section 5.06") && !refs.contains(&"Section 5.6"),
            "{:#?}",
            o.relations
        );
        // Body text and an obligation's clause alike reach the next section.
        assert!(has(&o, "Section 5.06", "REFERENCES", "Section 5.07"));
        assert!(
            o.relations.iter().any(|r| r.source != "Section 5.06"
                && r.relation_type == "REFERENCES"
                && r.target == "Section 5.07"),
            "{:#?}",
            o.relations
        );
    }

    #[test]
    fn own_subsections_are_no_reference_but_a_lettered_neighbour_is() {
        let o = extract(&input(
            "Section 2.04 Incremental Facilities",
            "Any increase under Section 2.04.4 is also an increase under Section 2.04A.",
        ));
        assert_eq!(referenced(&o), ["Section 2.04A"], "{:#?}", o.relations);
        assert!(has(&o, "Section 2.04", "REFERENCES", "Section 2.04A"));
    }

    #[test]
    fn an_article_is_itself_in_arabic_or_roman_numbers() {
        let o = extract(&input(
            "ARTICLE VII EVENTS OF DEFAULT",
            "Nothing in Article 7 or Article VII limits the remedies in Article VIII.",
        ));
        assert_eq!(referenced(&o), ["Article VIII"], "{:#?}", o.relations);
        assert!(has(&o, "Article VII", "REFERENCES", "Article VIII"));
    }

    #[test]
    fn without_a_label_no_number_is_the_sections_own() {
        // A heading the tree did not number (a schedule's caption, say) whose
        // title only looks like a section's.
        let mut i = input(
            "Section 5.06 of the Credit Agreement",
            "Any sale described in Section 5.06 is also subject to Section 5.07.",
        );
        i.label = None;
        let o = extract(&i);
        let own = "Section 5.06 of the Credit Agreement";
        assert!(
            has(&o, own, "REFERENCES", "Section 5.06"),
            "{:#?}",
            o.relations
        );
        assert!(has(&o, own, "REFERENCES", "Section 5.07"));
    }

    #[test]
    fn a_one_number_section_is_no_parent_of_dotted_sections() {
        // An amendment's `SECTION 2.` amends the other agreement's Section 2.6.
        let o = extract(&input(
            "SECTION 2. Amendments to the Credit Agreement",
            "A new Section 2.6(b)(v) is inserted at the end thereof.",
        ));
        assert_eq!(referenced(&o), ["Section 2.6"], "{:#?}", o.relations);
    }

    #[test]
    fn a_schedule_is_itself_in_its_own_text() {
        let o = extract(&input(
            "SCHEDULE 2.01 Commitments",
            "The amounts in Schedule 2.01 are reduced by those in Schedule 2.02.",
        ));
        assert_eq!(referenced(&o), ["Schedule 2.02"], "{:#?}", o.relations);
    }
}
