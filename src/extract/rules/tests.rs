//! Tests of the whole section pipeline, the readers together, on small
//! hand-written excerpts: any text extracts without panicking and
//! deterministically, a contents page states nothing, and the typed facts
//! read the governing law through [`extract_for`]. Each reader's own tests,
//! and those of the recognisers in `common/`, sit beside it in its file.

use super::test_support::*;
use super::*;

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// Any text, including multi-byte characters next to the patterns'
    /// anchors, extracts without panicking, deterministically.
    #[test]
    fn never_panics_and_is_deterministic(
        parts in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::string::string_regex("[A-Za-zé€’“” ,.;:()$%0-9\n-]{0,40}").unwrap(),
                proptest::strategy::Just("\u{201C}Term\u{201D} means ".to_string()),
                proptest::strategy::Just("ACME BANK, N.A., as Agent".to_string()),
                proptest::strategy::Just(", a subsidiary of Émile Co. ".to_string()),
                proptest::strategy::Just("the Company shall not ".to_string()),
                proptest::strategy::Just("Event of Default:\n\n(a) ".to_string()),
                proptest::strategy::Just("Section 5.06 ".to_string()),
                proptest::strategy::Just("the Borrower\u{2019}s Subsidiaries".to_string()),
            ],
            0..30,
        )
    ) {
        let i = input("Section 1.01 Anything", &parts.concat());
        let a = extract(&i);
        proptest::prop_assert_eq!(a, extract(&i));
    }
}

#[test]
fn contents_lines_and_glued_percentages() {
    let o = extract(&input(
        "Preamble",
        "TABLE OF CONTENTS\n\nSection 2.01 The Facility 22\nSection 2.02 Ratable Advances 23\n\
         Article 5. COVENANTS 50\n\n\
         \"Applicable Margin\" means the rate per annum set forth opposite Moody's0.375% in the grid; \
         a Person owning 50% or more of the voting stock is an Affiliate.",
    ));
    assert!(
        !o.relations
            .iter()
            .any(|r| r.target.starts_with("Section") || r.target.starts_with("Article")),
        "contents lines reference nothing: {:#?}",
        o.relations
    );
    assert!(
        has(&o, "Applicable Margin", "REFERENCES", "0.375%"),
        "{:#?}",
        o.relations
    );
    assert!(!o.entities.iter().any(|e| e.name == "375%"));
    assert!(
        !o.entities.iter().any(|e| e.name == "50%"),
        "a share, not a rate"
    );
}

#[test]
fn governing_law_names_the_place_whose_law_governs_the_agreement() {
    let mut onto = Ontology::default();
    onto.relation_types
        .insert("GOVERNED_BY".into(), String::new());
    let o = extract_for(
        &input(
            "Section 12.3 Governing Law",
            "This Agreement shall be governed by and construed in accordance with the laws of the State of \
             New York without regard to its conflict of laws principles. Each party submits to the \
             jurisdiction of the courts of the State of Delaware.\n\n\
             The validity of this Agreement shall be governed by the laws of England and Wales.\n\n\
             The Licensee, a corporation organized under the laws of the State of Texas, shall pay.",
        ),
        &onto,
    );
    assert!(
        has(&o, "Agreement", "GOVERNED_BY", "New York"),
        "{:#?}",
        o.relations
    );
    assert!(
        // One legal system of two countries' names: kept whole.
        has(&o, "Agreement", "GOVERNED_BY", "England and Wales"),
        "{:#?}",
        o.relations
    );
    // A forum or a state of organisation is no governing law.
    assert!(!has(&o, "Agreement", "GOVERNED_BY", "Delaware"));
    assert!(!has(&o, "Agreement", "GOVERNED_BY", "Texas"));
}
