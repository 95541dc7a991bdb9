//! Unit tests of the rules extractor on small, hand-written excerpts.

use super::test_support::*;
use super::*;
use common::names::display_name;

#[test]
fn definitions_yield_terms_is_a_and_defined_as() {
    let i = input(
        "Section 1.01 Definitions",
        "\u{201C}<u>Advance</u>\u{201D} means a Ratable Advance or a Competitive Bid Advance.\n\n\
         \"Ratable Advance\" means a borrowing by the Borrower under Section 2.02.\n\n\
         \"Swing Line Advance\" means a Ratable Advance made by the Swing Line Lender.\n\n\
         \"Competitive Bid Advance\": an advance bearing 0.125% per annum.\n\n\
         \"Borrower\" means the Company.\n\n\
         \"Company\" means Emerson Electric Co., a Missouri corporation, and its successors.",
    );
    let o = extract(&i);
    assert_eq!(o, extract(&i), "deterministic");
    let names: Vec<&str> = o
        .entities
        .iter()
        .filter(|e| e.entity_type == "DefinedTerm")
        .map(|e| e.name.as_str())
        .collect();
    for t in [
        "Advance",
        "Ratable Advance",
        "Competitive Bid Advance",
        "Borrower",
        "Company",
    ] {
        assert!(names.contains(&t), "{t} in {names:?}");
    }
    assert!(
        has(&o, "Swing Line Advance", "IS_A", "Ratable Advance"),
        "{:#?}",
        o.relations
    );
    // One of alternatives is no kind: an Advance is not always Ratable.
    assert!(!has(&o, "Advance", "IS_A", "Ratable Advance"));
    // A term merely mentioned in a definition's body defines nothing.
    assert!(!has(&o, "Ratable Advance", "DEFINED_AS", "Borrower"));
    assert!(!o
        .relations
        .iter()
        .any(|r| r.source == "Advance" && r.relation_type == "DEFINED_AS"));
    // `means the Company` names the same thing; it is no kind of it.
    assert!(!has(&o, "Borrower", "IS_A", "Company"));
    assert!(has(&o, "Ratable Advance", "REFERENCES", "Section 2.02"));
    assert!(has(
        &o,
        "Competitive Bid Advance",
        "REFERENCES",
        "0.125% per annum"
    ));
    assert!(
        has(&o, "Company", "DEFINED_AS", "Emerson Electric Co."),
        "{:#?}",
        o.relations
    );
}

#[test]
fn preamble_parties_and_roles() {
    let o = extract(&input(
        "Preamble",
        "THIS CREDIT AGREEMENT, dated as of May 23, 2018, is by and among EMERSON ELECTRIC CO., the SUBSIDIARY BORROWERS \
         from time to time party hereto, the LENDERS, the LC ISSUERS and JPMORGAN CHASE BANK, N.A., as Agent. \
         The parties hereto agree as follows:",
    ));
    assert!(
        has(&o, "Emerson Electric Co.", "HAS_ROLE", "Borrower"),
        "{:#?}",
        o.relations
    );
    assert!(
        has(&o, "Jpmorgan Chase Bank, N.A.", "HAS_ROLE", "Agent"),
        "{:#?}",
        o.relations
    );
    assert!(
        !o.relations.iter().any(|r| r.relation_type == "AGENT_FOR"),
        "`as Agent.` says not for whom: {:#?}",
        o.relations
    );
    let jp = o
        .entities
        .iter()
        .find(|e| e.name == "Jpmorgan Chase Bank, N.A.")
        .unwrap();
    assert_eq!(jp.aliases, vec!["JPMORGAN CHASE BANK, N.A.".to_string()]);
}

#[test]
fn parenthetical_party_and_administrative_agent() {
    let o = extract(&input(
        "Preamble",
        "AGREEMENT dated as of June 30, 1995 among AT&T CAPITAL CORPORATION, a Delaware corporation (the \"Borrower\"), \
         the BANKS party hereto and MORGAN GUARANTY TRUST COMPANY OF NEW YORK, as Administrative Agent.",
    ));
    assert!(
        has(&o, "AT&T Capital Corporation", "HAS_ROLE", "Borrower"),
        "{:#?}",
        o
    );
    assert!(has(
        &o,
        "Borrower",
        "DEFINED_AS",
        "AT&T Capital Corporation"
    ));
    assert!(
        has(
            &o,
            "Morgan Guaranty Trust Company of New York",
            "HAS_ROLE",
            "Administrative Agent"
        ),
        "{:#?}",
        o.relations
    );
    // The text does not say whom the agent acts for: no AGENT_FOR.
    assert!(!o.relations.iter().any(|r| r.relation_type == "AGENT_FOR"));
    let with_whom = extract(&input(
        "Preamble",
        "AGREEMENT among AT&T CAPITAL CORPORATION (the \"Borrower\"), the BANKS party hereto and \
         MORGAN GUARANTY TRUST COMPANY OF NEW YORK, as Administrative Agent for the Banks.",
    ));
    assert!(
        has(
            &with_whom,
            "Morgan Guaranty Trust Company of New York",
            "AGENT_FOR",
            "Bank"
        ),
        "{:#?}",
        with_whom.relations
    );
    assert!(o
        .entities
        .iter()
        .any(|e| e.entity_type == "Jurisdiction" && e.name == "Delaware"));
}

#[test]
fn organisation_names_stop_at_sentences_and_keep_acronyms() {
    let o = extract(&input(
        "Lenders",
        "Increase of Aggregate Commitment. The Company may ask. Signed by U.S. BANK NATIONAL ASSOCIATION, \
         DBS BANK LTD. and UBS AG, as Lenders. Information Concerning The Company is confidential.",
    ));
    let orgs: Vec<&str> = o
        .entities
        .iter()
        .filter(|e| e.entity_type == "Organization")
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(
        orgs,
        ["U.S. Bank National Association", "DBS Bank Ltd.", "UBS AG"],
        "{orgs:?}"
    );
}

#[test]
fn values_use_amount_of_and_rate_of_when_the_ontology_has_them() {
    let i = input(
        "Section 2.01 The Facility",
        "Each Lender agrees to make Loans up to $100,000,000 at 0.125% per annum.",
    );
    let mut o = Ontology::default();
    o.relation_types.insert("AMOUNT_OF".into(), String::new());
    o.relation_types.insert("RATE_OF".into(), String::new());
    let with = extract_for(&i, &o);
    let ob = with
        .entities
        .iter()
        .find(|e| e.entity_type == "Obligation")
        .unwrap()
        .name
        .clone();
    assert!(
        has(&with, "$100,000,000", "AMOUNT_OF", &ob),
        "{:#?}",
        with.relations
    );
    assert!(has(&with, "0.125% per annum", "RATE_OF", &ob));
    let without = extract(&i);
    assert!(has(&without, &ob, "REFERENCES", "$100,000,000"));
}

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
fn lenders_lend_to_borrowers() {
    let o = extract(&input(
        "Section 2.01 The Facility",
        "Each Lender severally agrees, on the terms and conditions set forth in this Agreement, to make \
         Ratable Loans to the Borrowers in Agreed Currencies from time to time.",
    ));
    assert!(
        has(&o, "Lender", "LENDS_TO", "Borrower"),
        "{:#?}",
        o.relations
    );
    assert!(o
        .relations
        .iter()
        .any(|r| r.relation_type == "OBLIGATED_TO" && r.source == "Lender"));
}

#[test]
fn subsidiaries_and_ratios() {
    let o = extract(&input(
        "Section 4.09 Subsidiaries",
        "Each of the Company\u{2019}s corporate Significant Subsidiaries is duly incorporated. \
         Ratings by Standard & Poor's Financial Services LLC, a subsidiary of S&P Global Inc., apply. \
         The Company will not permit the Leverage Ratio to exceed 3.00 to 1.00.",
    ));
    assert!(
        has(&o, "Significant Subsidiary", "SUBSIDIARY_OF", "Company"),
        "{:#?}",
        o.relations
    );
    assert!(
        has(
            &o,
            "Standard & Poor's Financial Services LLC",
            "SUBSIDIARY_OF",
            "S&P Global Inc."
        ),
        "{:#?}",
        o.relations
    );
    assert!(o
        .entities
        .iter()
        .any(|e| e.entity_type == "Rate" && e.name == "3.00 to 1.00"));
}

#[test]
fn wrapped_plain_text_definitions_are_found() {
    let o = extract(&input(
        "Section 1.01. Definitions",
        "\u{201C}Additional Lender\u{201D} means a Person which becomes a Lender pursuant to Section\n\
         2.17.\n\
         \u{201C}Administrative Agent\u{201D} means Bank of America, N.A., in its capacity as\n\
         administrative agent for the Lenders hereunder.\n\
         \u{201C}Lender\u{201D} means each bank party hereto.",
    ));
    let terms: Vec<&str> = o
        .entities
        .iter()
        .filter(|e| e.entity_type == "DefinedTerm")
        .map(|e| e.name.as_str())
        .collect();
    // The three terms, in the order the text defines them.
    assert_eq!(
        terms,
        ["Additional Lender", "Administrative Agent", "Lender"]
    );
    assert!(has(&o, "Additional Lender", "REFERENCES", "Section 2.17"));
    assert!(has(
        &o,
        "Administrative Agent",
        "DEFINED_AS",
        "Bank of America, N.A."
    ));
}

#[test]
fn events_of_default_trigger_the_default() {
    let o = extract(&input(
        "Section 6.01 Events of Default",
        "The occurrence of any one or more of the following events shall constitute an \"Event of Default\":\n\n\
         (a) any Borrower shall fail to pay any principal of any Loan;\n\n\
         54\n\n\
         (b) any Borrower shall fail to observe any covenant contained in Section 5.06;\n\n\
         then, and in every such event, the Agent may terminate the Commitments by notice to the Company.",
    ));
    let events: Vec<&str> = o
        .entities
        .iter()
        .filter(|e| e.entity_type == "EventOfDefault")
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(events[0].starts_with("Event of Default (a): any Borrower shall fail to pay"));
    assert!(has(&o, events[1], "TRIGGERS", "Event of Default"));
    assert!(has(&o, events[1], "REFERENCES", "Section 5.06"));
    assert!(!o
        .relations
        .iter()
        .any(|r| r.relation_type == "OBLIGATED_TO" && r.target.contains("fail to pay")));
}

#[test]
fn obligations_and_covenants() {
    let o = extract(&input(
        "Section 5.06 Mergers and Sales of Assets",
        "The Company shall not permit any Subsidiary to sell all of its assets, except as permitted by Section 5.08. \
         The Company shall maintain its corporate existence. The Agent shall not be required to act. Each Lender agrees to fund its Advances of $5,000,000.",
    ));
    let cov = o
        .entities
        .iter()
        .find(|e| e.entity_type == "Covenant")
        .expect("a covenant");
    assert!(
        cov.name.starts_with("Company shall not permit"),
        "{}",
        cov.name
    );
    assert!(has(&o, &cov.name, "RESTRICTS", "Company"));
    assert!(
        !o.entities
            .iter()
            .any(|e| e.name.starts_with("Agent shall not be required")),
        "a relief, not a covenant"
    );
    assert!(has(&o, &cov.name, "REFERENCES", "Section 5.08"));
    assert!(o
        .relations
        .iter()
        .any(|r| r.relation_type == "MUST_MAINTAIN" && r.source == "Company"));
    assert!(o
        .relations
        .iter()
        .any(|r| r.relation_type == "OBLIGATED_TO" && r.source == "Lender"));
    assert!(o
        .entities
        .iter()
        .any(|e| e.entity_type == "Amount" && e.name == "$5,000,000"));
}

fn org_names(o: &RulesOutput) -> Vec<&str> {
    o.entities
        .iter()
        .filter(|e| e.entity_type == "Organization")
        .map(|e| e.name.as_str())
        .collect()
}

#[test]
fn table_cells_do_not_run_into_one_name() {
    // Schedule 1.1(b) of the Emerson agreement: a currency column before
    // the bank's name, each cell on its own line.
    let o = extract(&input(
        "SCHEDULE 1.1(b)",
        "### EUROCURRENCY PAYMENT OFFICES\n\n\
         <table>\n  <thead>\n    <tr>\n      <th>Currency</th>\n      <th>Eurocurrency Payment Office</th>\n    </tr>\n  </thead>\n  <tbody>\n\
         <tr>\n      <td>Dollars</td>\n      <td>JPMorgan Chase Bank, N.A., New York,<br>New York</td>\n    </tr>\n\
         <tr>\n      <td>Euros</td>\n      <td>JPMorgan Chase Bank, N.A., New York,<br>New York</td>\n    </tr>\n\
         <tr>\n      <td>British Pounds Sterling</td>\n      <td>JPMorgan Chase Bank, N.A., New York,<br>New York</td>\n    </tr>\n\
         <tr>\n      <td>Japanese Yen</td>\n      <td>JPMorgan Chase Bank, N.A., New York,<br>New York</td>\n    </tr>\n\
         </tbody>\n</table>",
    ));
    assert_eq!(org_names(&o), ["JPMorgan Chase Bank, N.A."]);
    // Rows of a commitments table: one lender per row.
    let o = extract(&input(
        "SCHEDULE 1.1(a)",
        "<table>\n<tr>\n<td>Goldman Sachs Bank USA</td>\n<td>$ 100,000,000</td>\n</tr>\n\
         <tr>\n<td>The Northern Trust Company</td>\n<td>$ 100,000,000</td>\n</tr>\n</table>",
    ));
    assert_eq!(
        org_names(&o),
        ["Goldman Sachs Bank USA", "Northern Trust Company"],
        "{:#?}",
        o.entities
    );
}

#[test]
fn names_in_capitals_take_the_sections_mixed_case_spelling() {
    let o = extract(&input(
        "Signatures",
        "JPMORGAN CHASE BANK, N.A., as Agent and as a Lender\n\n\
         By: /s/ Jane Doe\n\n\
         ICICI BANK LIMITED, NEW YORK BRANCH, as a Lender\n\n\
         By: /s/ Akashdeep Sarpal\nName: Akashdeep Sarpal\nTitle: Country Head \u{2013} USA\nICICI Bank Limited\n\n\
         Notices to JPMorgan Chase Bank, N.A., 10 South Dearborn, Chicago.",
    ));
    let orgs = org_names(&o);
    assert_eq!(
        orgs,
        ["JPMorgan Chase Bank, N.A.", "ICICI Bank Limited"],
        "one entity each, spelled as the section writes them in mixed case"
    );
    let jp = &o.entities.iter().find(|e| e.name == orgs[0]).unwrap();
    assert_eq!(jp.aliases, ["JPMORGAN CHASE BANK, N.A."]);
    assert!(has(&o, "JPMorgan Chase Bank, N.A.", "HAS_ROLE", "Agent"));
    assert!(has(&o, "ICICI Bank Limited", "HAS_ROLE", "Lender"));
}

#[test]
fn acronyms_in_capitals_stay_capitals() {
    for (raw, shown) in [
        ("HSBC BANK USA, N.A.", "HSBC Bank USA, N.A."),
        ("MUFG BANK, LTD.", "MUFG Bank, Ltd."),
        (
            "BNP PARIBAS SECURITIES CORP.",
            "BNP Paribas Securities Corp.",
        ),
        (
            "MORGAN STANLEY MUFG LOAN PARTNERS, LLC",
            "Morgan Stanley MUFG Loan Partners, LLC",
        ),
        ("BofA SECURITIES, INC.", "BofA Securities, Inc."),
        ("JPMORGAN CHASE BANK, N.A.", "Jpmorgan Chase Bank, N.A."),
        ("ICICI Bank Limited", "ICICI Bank Limited"),
    ] {
        assert_eq!(display_name(raw, &Default::default()), shown, "{raw}");
    }
    let o = extract(&input(
        "Preamble",
        "CREDIT AGREEMENT among CUMMINS INC., the LENDERS party hereto and \
         BofA SECURITIES, INC., as Joint Lead Arranger.",
    ));
    assert_eq!(org_names(&o), ["Cummins Inc.", "BofA Securities, Inc."]);
}

#[test]
fn exhibit_titles_and_typos_are_not_organisations() {
    let o = extract(&input(
        "Exhibits",
        "Exhibit B-1 \u{2013} Form of Opinion of Company\u{2019}s External Counsel\n\n\
         \u{201C}S&P\u{201D} means Standard  Standard & Poor\u{2019}s Rating Services, a Standard  \
         Standard & Poor\u{2019}s Financial Services LLC business.",
    ));
    assert_eq!(
        org_names(&o),
        ["Standard & Poor's Financial Services LLC"],
        "{:#?}",
        o.entities
    );
}

#[test]
fn national_association_and_n_a_are_one_bank() {
    let o = extract(&input(
        "Exhibit",
        "among JPMorgan Chase Bank, N.A., as Agent, and the Lenders.\n\n\
         Notices to JPMORGAN CHASE BANK, NATIONAL ASSOCIATION, as Agent.",
    ));
    assert_eq!(
        org_names(&o),
        ["JPMorgan Chase Bank, N.A."],
        "{:#?}",
        o.entities
    );
    let jp = &o.entities[0];
    assert_eq!(
        jp.aliases,
        [
            "JPMorgan Chase Bank, National Association",
            "JPMORGAN CHASE BANK, NATIONAL ASSOCIATION"
        ]
    );
}

#[test]
fn and_inside_a_name_and_between_names() {
    let o = extract(&input(
        "Signatures",
        "AUSTRALIA AND NEW ZEALAND BANKING GROUP LIMITED, as a Lender\n\n\
         Industrial and Commercial Bank of China, Shanghai Municipal Branch, as a Lender\n\n\
         BNP PARIBAS SECURITIES CORP. and DEUTSCHE BANK SECURITIES INC., as Joint Lead Arrangers\n\n\
         among the Lenders and Bank of America, N.A., as Administrative Agent\n\n\
         The Reference Banks are Royal Bank of Canada and Citibank, N.A.",
    ));
    assert_eq!(
        org_names(&o),
        [
            "Australia and New Zealand Banking Group Limited",
            "Industrial and Commercial Bank of China",
            "BNP Paribas Securities Corp.",
            "Deutsche Bank Securities Inc.",
            "Bank of America, N.A.",
            "Royal Bank of Canada",
            "Citibank, N.A.",
        ],
        "{:#?}",
        o.entities
    );
    assert!(has(
        &o,
        "Industrial and Commercial Bank of China",
        "HAS_ROLE",
        "Lender"
    ));
    assert!(has(
        &o,
        "Deutsche Bank Securities Inc.",
        "HAS_ROLE",
        "Joint Lead Arranger"
    ));
}

#[test]
fn guarantees_liens_and_appointments_need_their_words() {
    let o = extract(&input(
        "Section 10.01 Guarantee",
        "The Company hereby absolutely and irrevocably and unconditionally guarantees, as a primary \
         obligor and not merely as a surety, the payment when and as due of the Obligations.\n\n\
         The Borrower hereby grants to the Agent a security interest in all of its right, title and \
         interest in the Collateral Account.\n\n\
         Each Lender irrevocably appoints and authorizes the Administrative Agent to take such action.\n\n\
         The Agent shall have the same rights as any other Lender.",
    ));
    assert!(
        has(&o, "Company", "GUARANTEES", "Obligations"),
        "{:#?}",
        o.relations
    );
    assert!(has(&o, "Borrower", "GRANTS_LIEN_ON", "Collateral Account"));
    assert!(has(&o, "Administrative Agent", "AGENT_FOR", "Lender"));
    // Every quote holds its trigger word.
    for (t, w) in [
        ("GUARANTEES", "guarantees"),
        ("GRANTS_LIEN_ON", "security interest"),
        ("AGENT_FOR", "appoints"),
    ] {
        let r = o.relations.iter().find(|r| r.relation_type == t).unwrap();
        assert!(r.evidence.contains(w), "{r:?}");
    }
    // `the same rights as any other Lender` binds nobody.
    assert!(!o
        .relations
        .iter()
        .any(|r| r.relation_type == "OBLIGATED_TO"));
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

/// The targets of every REFERENCES relation.
fn referenced(o: &RulesOutput) -> Vec<&str> {
    o.relations
        .iter()
        .filter(|r| r.relation_type == "REFERENCES")
        .map(|r| r.target.as_str())
        .collect()
}

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

#[test]
fn a_lettered_schedule_is_referenced_whole() {
    let o = extract(&input(
        "Section 2.01 Commitments",
        "Each Lender's Commitment is set forth on Schedule 2.01A; the Letter of Credit \
         Commitments on Schedule 2.01B and the Existing Letters of Credit on Schedule 2.",
    ));
    assert_eq!(
        referenced(&o),
        ["Schedule 2.01A", "Schedule 2.01B", "Schedule 2"],
        "{:#?}",
        o.relations
    );
}

#[test]
fn parties_clause_gives_each_party_its_defined_name_and_role() {
    let mut i = input(
        "Preamble",
        "This Marketing Affiliate Agreement (the \"Agreement\") is entered into this 8th day of May 2014, \
         by and between BIRCH FIRST GLOBAL INVESTMENTS INC., a corporation incorporated in the U.S. Virgin \
         Islands, with its main place of business located 9100 Havensight, Port of Sale, Ste. 15/16 \
         (referred to as \"Company\") and MOUNT KNOWLEDGE HOLDINGS INC. and/or assigns, a corporation \
         incorporated in the State of Nevada (referred to as \"Marketing Affiliate\" or \"MA\").\n\n\
         This COLLABORATION AGREEMENT is between Ginkgo Bioworks, Inc., a Delaware corporation with offices \
         located at 27 Drydock Avenue, Boston, Massachusetts 02210 (\"Ginkgo\"), and Berkeley Lights, Inc., \
         a Delaware corporation (\"BLI\"). Ginkgo and BLI may each be referred to herein as a \"Party\".",
    );
    i.doc_type = "commercial".into();
    let o = extract(&i);
    let birch = "Birch First Global Investments Inc.";
    let mount = "Mount Knowledge Holdings Inc.";
    assert!(
        has(&o, "Company", "DEFINED_AS", birch),
        "{:#?}",
        o.relations
    );
    assert!(has(&o, birch, "HAS_ROLE", "Company"), "{:#?}", o.relations);
    assert!(has(&o, "Marketing Affiliate", "DEFINED_AS", mount));
    assert!(has(&o, "MA", "DEFINED_AS", mount));
    assert!(has(&o, mount, "HAS_ROLE", "Marketing Affiliate"));
    // A short form of the party's own name is no role.
    assert!(has(&o, "Ginkgo", "DEFINED_AS", "Ginkgo Bioworks, Inc."));
    assert!(has(&o, "BLI", "DEFINED_AS", "Berkeley Lights, Inc."));
    assert!(!o.relations.iter().any(|r| r.relation_type == "HAS_ROLE"
        && (r.target == "Ginkgo" || r.target == "BLI" || r.target == "MA")));
    // Nobody is defined as the parties collectively.
    assert!(!o.relations.iter().any(|r| r.source == "Party"));
}

/// A party's defining parenthetical is in its own sentence: a later
/// sentence's `(the "Borrowers")` is never its name.
#[test]
fn a_later_sentences_defined_name_is_no_party_name() {
    let o = extract(&input(
        "Preamble",
        "Reference is made to the Credit Agreement among Emerson Electric Co. (the \"Company\"), \
         the Subsidiary Borrowers party thereto (collectively with the Company, the \"Borrowers\"), \
         each lender party thereto and JPMorgan Chase Bank, National Association, as Agent. \
         Capitalized terms used herein have the meanings assigned in the Credit Agreement (the \"Terms\").",
    ));
    assert!(
        has(&o, "Company", "DEFINED_AS", "Emerson Electric Co."),
        "{:#?}",
        o.relations
    );
    assert!(
        !o.relations
            .iter()
            .any(|r| r.relation_type == "DEFINED_AS" && r.target.starts_with("JPMorgan")),
        "{:#?}",
        o.relations
    );
}

#[test]
fn dot_com_and_foreign_forms_are_organisations() {
    let o = extract(&input(
        "Preamble",
        "This Agreement is made by and between 2THEMART.COM, INC., a Nevada corporation (\"2TheMart\"), \
         theglobe.com, inc. (\"theglobe\"), OntoChem GmbH (\"OntoChem\"), Kiromic, Inc (\"Kiromic\"), \
         iVillage, Inc., (\"iVillage\") and Skype Communications, S.A. (\"Skype\").",
    ));
    let names = org_names(&o);
    for n in [
        "2THEMART.COM, INC.",
        "theglobe.com, inc.",
        "OntoChem GmbH",
        "Kiromic, Inc",
        "iVillage, Inc.",
        "Skype Communications, S.A.",
    ] {
        assert!(
            o.entities.iter().any(|e| e.entity_type == "Organization"
                && (e.name == n || e.aliases.iter().any(|a| a == n))),
            "{n} in {names:?}"
        );
    }
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
        has(&o, "Agreement", "GOVERNED_BY", "England"),
        "{:#?}",
        o.relations
    );
    // A forum or a state of organisation is no governing law.
    assert!(!has(&o, "Agreement", "GOVERNED_BY", "Delaware"));
    assert!(!has(&o, "Agreement", "GOVERNED_BY", "Texas"));
}

#[test]
fn duties_rights_and_conditions_of_any_party() {
    let mut onto = Ontology::default();
    for t in ["OBLIGATED_TO", "HOLDS_RIGHT", "RESTRICTS", "TERMINATES"] {
        onto.relation_types.insert(t.into(), String::new());
    }
    let o = extract_for(
        &input(
            "Section 4 Rent",
            "Tenant shall pay the Fixed Base Rent monthly in advance. Tenant shall pay the Fixed Base Rent \
             to Landlord's lockbox. Contractor will purchase the Components from the Supplier. Licensee may \
             terminate this Agreement upon thirty days' notice. Landlord shall have the right to inspect the \
             Premises. Licensee may not assign this Agreement. If the Agent shall notify the Borrower, the \
             Borrower shall repay the Loans.",
        ),
        &onto,
    );
    let targets = |s: &str, t: &str| -> Vec<String> {
        o.relations
            .iter()
            .filter(|r| r.source == s && r.relation_type == t)
            .map(|r| r.target.clone())
            .collect()
    };
    // Two duties that begin alike are two nodes.
    assert_eq!(
        targets("Tenant", "OBLIGATED_TO").len(),
        2,
        "{:#?}",
        o.relations
    );
    assert_eq!(targets("Contractor", "OBLIGATED_TO").len(), 1);
    assert_eq!(targets("Licensee", "HOLDS_RIGHT").len(), 1);
    assert_eq!(targets("Licensee", "TERMINATES").len(), 1);
    assert_eq!(targets("Landlord", "HOLDS_RIGHT").len(), 1);
    assert!(o
        .relations
        .iter()
        .any(|r| r.relation_type == "RESTRICTS" && r.target == "Licensee"));
    // A condition binds no one; the duty it conditions does.
    assert!(
        targets("Agent", "OBLIGATED_TO").is_empty(),
        "{:#?}",
        o.relations
    );
    assert_eq!(targets("Borrower", "OBLIGATED_TO").len(), 1);
}

#[test]
fn corporate_forms_without_their_dots_and_lower_case_names() {
    let o = extract(&input(
        "Preamble",
        "This Agreement is made by and between e.l.f. Beauty, Inc. (\"elf\"), Google Inc whose place of \
         business is in California, AbbVie Biotechnology Ltd, a Bermuda corporation, IREYA B.V having an \
         address in Leiden, Establishment Labs, S.A a corporation of Costa Rica, LEO PHARMA A/S, in \
         Ballerup, PPD Development, LP, a Texas limited partnership, SCULPTOR CAPITAL LP, \
         Peregrine/Bridge Transfer Corporation, E.PIPHANY, INC., eGain Communications Corporation, \
         NETWORK 1 FINANCIAL, INC. and Clarus IV-D, L.P, a partnership.",
    ));
    let names = org_names(&o);
    for n in [
        "e.l.f. Beauty, Inc.",
        "Google Inc",
        "AbbVie Biotechnology Ltd",
        "IREYA B.V",
        "Establishment Labs, S.A",
        "LEO PHARMA A/S",
        "PPD Development, LP",
        "SCULPTOR CAPITAL LP",
        "Peregrine/Bridge Transfer Corporation",
        "E.PIPHANY, INC.",
        "eGain Communications Corporation",
        "NETWORK 1 FINANCIAL, INC.",
        "Clarus IV-D, L.P",
    ] {
        assert!(
            o.entities.iter().any(|e| e.entity_type == "Organization"
                && (e.name == n || e.aliases.iter().any(|a| a == n))),
            "{n} in {names:?}"
        );
    }
}

#[test]
fn descriptions_headings_labels_and_shouting_are_no_organisations() {
    let o = extract(&input(
        "Preamble",
        "This Agreement is made by and between SFG Financial Corp, a Delaware Corporation whose address \
         is in New York (\"Licensor\"), and PSiTech Corporation, a BVI Corporation (\"Licensee\").\n\n\
         Schedule A Erchonia Corporation price list.\n\n\
         SHIPPER ECOPETROL S.A. TAX ID 899.999.068-1\n\n\
         IN NO EVENT SHALL COMPANY BE LIABLE, INCLUDING BUT NOT LIMITED TO LOST PROFITS.\n\n\
         2.1 Company shall deliver the goods. Bank of America, N.A. is the bank.",
    ));
    let names = org_names(&o);
    assert!(
        has(&o, "PSiTech Corporation", "HAS_ROLE", "Licensee"),
        "{:#?}",
        o.relations
    );
    assert!(
        has(&o, "SFG Financial Corp", "HAS_ROLE", "Licensor"),
        "{:#?}",
        o.relations
    );
    for n in [
        "Erchonia Corporation",
        "Ecopetrol S.A.",
        "Bank of America, N.A.",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    for bad in [
        "Delaware Corporation",
        "BVI Corporation",
        "1 Company",
        "Company",
    ] {
        assert!(!names.contains(&bad), "{bad} in {names:?}");
    }
    assert!(
        !names
            .iter()
            .any(|n| n.contains("Schedule") || n.contains("Shipper") || n.contains("Shall")),
        "{names:?}"
    );
}

#[test]
fn parties_clause_forms_across_layouts() {
    let mut i = input(
        "Preamble",
        "This COLLABORATION AGREEMENT is made by and between THERAVANCE, INC., a Delaware corporation, \
         and having its principal office at 901 Gateway Boulevard, South San Francisco ( \"Theravance\"), \
         and GLAXO GROUP LIMITED, a United Kingdom corporation (\"GSK\"). RECITALS follow.\n\n\
         This Agreement is entered into by and between WOMEN.COM NETWORKS, INC. (\"Women.com\"), and \
         EDIETS.COM, INC., a Delaware corporation (\"eDiets\"). WHEREAS, eDiets maintains a site.",
    );
    i.doc_type = "commercial".into();
    let o = extract(&i);
    assert!(
        has(&o, "Theravance", "DEFINED_AS", "Theravance, Inc."),
        "{:#?}",
        o.relations
    );
    assert!(has(&o, "GSK", "DEFINED_AS", "Glaxo Group Limited"));
    assert!(
        has(&o, "eDiets", "DEFINED_AS", "EDIETS.COM, Inc."),
        "{:#?}",
        o.relations
    );
}

#[test]
fn a_parties_clause_spread_over_paragraphs() {
    let mut i = input(
        "Preamble",
        "THIS AGREEMENT made as of the 30th day of June 1999\n\nBETWEEN:\n\n\
         MEDIALINX INTERACTIVE, L.P., represented herein by its general partner MediaLinx Interactive Inc.\n\
         a corporation incorporated under the laws of the Province of Ontario, 20 Richmond Street East\n\n\
         (hereinafter called \"MLX\")\n\n- and -\n\n\
         HEALTHCENTRAL.COM INC. a corporation incorporated under the laws of the state of California\n\n\
         (hereinafter called \"HCI\")\n\n\
         BETWEEN: ORGANIC PREPARATIONS INC. 2nd Floor, Port Vila, Vanuatu ('the Manufacturer') of one part\n\n\
         AND: AGAPE ATP INTERNATIONAL HOLDING LIMITED Unit 05, Kowloon, Hong Kong ('the Customer') of the \
         other part, and AZUL LINHAS S/A (as Company).\n\n\
         WHEREAS MLX owns an Internet service.",
    );
    i.doc_type = "commercial".into();
    let o = extract(&i);
    assert!(
        has(&o, "MLX", "DEFINED_AS", "MediaLinx Interactive, L.P."),
        "{:#?}",
        o.relations
    );
    assert!(
        has(&o, "HCI", "DEFINED_AS", "HEALTHCENTRAL.COM Inc."),
        "{:#?}",
        o.relations
    );
    assert!(!has(&o, "MLX", "DEFINED_AS", "MediaLinx Interactive Inc."));
    assert!(
        has(&o, "Organic Preparations Inc.", "HAS_ROLE", "Manufacturer"),
        "{:#?}",
        o.relations
    );
    assert!(has(
        &o,
        "Agape ATP International Holding Limited",
        "HAS_ROLE",
        "Customer"
    ));
    assert!(
        has(&o, "Azul Linhas S/A", "HAS_ROLE", "Company"),
        "{:#?}",
        o.relations
    );
}

#[test]
fn signature_blocks_name_the_parties_that_sign() {
    let mut i = input(
        "Signatures",
        "IN WITNESS WHEREOF, the undersigned execute this Agreement as of July 6, 2020.\n\n\
         SCULPTOR CAPITAL LP\n\nBy: /s/ Thomas Sipp\n\nThomas Sipp Chief Financial Officer SCULPTOR MASTER FUND LTD\n\n\
         By: /s/ Thomas Sipp\n\n\
         WOMEN.COM NETWORKS, INC. EDIETS.COM, INC. By: /S/ Bud Ward By: /S/ David Humble\n\n\
         APOLLO LIFE ASSET, L.P. By: Apollo Life Asset GP, LLC, its general partner By: /s/ W. Kuesel\n\n\
         PURCHASER: PEEK Investments LLC Date: July 16, 2012\n\n\
         DISTRIBUTOR MOBILEVISION COMMUNICATIONS LTD. By: Name Andrew Zhang\n\n\
         Party B: Xinyu Xinwei New Energy Co., Ltd. (seal)\n\n\
         Inktomi Corp Microsoft Corp By: /s/ A By: /s/ B\n\n\
         Notices shall be sent to Acme Holdings, Inc. by courier.\n\n\
         1 Main St, Austin, Texas 78741 Sibannac, Inc. By: /s/ C\n\n\
         CEO/President Verso Backhaul Solutions, Inc. By: /s/ D\n\n\
         ODM Supply Agreement 2 Organic Preparations INC. By: /s/ E",
    );
    i.doc_type = "commercial".into();
    let o = extract(&i);
    for n in [
        "Sculptor Capital LP",
        "Sculptor Master Fund LTD",
        "WOMEN.COM Networks, Inc.",
        "EDIETS.COM, Inc.",
        "Apollo Life Asset, L.P.",
        "Inktomi Corp",
        "Microsoft Corp",
    ] {
        assert!(
            has(&o, n, "HAS_ROLE", "Signatory"),
            "{n}: {:#?}",
            o.relations
        );
    }
    assert!(has(
        &o,
        "Apollo Life Asset GP, LLC",
        "HAS_ROLE",
        "General Partner"
    ));
    assert!(
        has(&o, "Peek Investments LLC", "HAS_ROLE", "Purchaser"),
        "{:#?}",
        o.relations
    );
    assert!(has(
        &o,
        "Mobilevision Communications Ltd.",
        "HAS_ROLE",
        "Distributor"
    ));
    assert!(has(
        &o,
        "Party B",
        "DEFINED_AS",
        "Xinyu Xinwei New Energy Co., Ltd."
    ));
    for n in [
        "Sibannac, Inc.",
        "Verso Backhaul Solutions, Inc.",
        "Organic Preparations INC.",
    ] {
        assert!(
            has(&o, n, "HAS_ROLE", "Signatory"),
            "{n}: {:#?}",
            o.relations
        );
    }
    // Named in running text, not signing.
    assert!(!o
        .relations
        .iter()
        .any(|r| r.source == "Acme Holdings, Inc." && r.relation_type == "HAS_ROLE"));
    let names = org_names(&o);
    assert!(
        !names.iter().any(|n| n.contains("Officer")
            || n.contains("Inktomi Corp Microsoft")
            || n.contains("78741")
            || n.contains("CEO")
            || n.contains("Agreement")),
        "{names:?}"
    );
}

#[test]
fn a_heading_word_or_a_lawyer_glued_to_a_name_is_left_out() {
    let mut i = input(
        "Press Release",
        "About Dova Pharmaceuticals, Inc. Dova is a pharmaceutical company.\n\n\
         With a copy to: Jane Roe, Esq. and Loeb & Loeb LLP, 345 Park Avenue.",
    );
    i.doc_type = "commercial".into();
    let out = extract(&i);
    let names = org_names(&out);
    assert!(names.contains(&"Dova Pharmaceuticals, Inc."), "{names:?}");
    assert!(names.contains(&"Loeb & Loeb LLP"), "{names:?}");
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("About") || n.contains("Esq")),
        "{names:?}"
    );
}

#[test]
fn collective_names_addresses_and_numbers_in_a_parties_clause() {
    let mut i = input(
        "Preamble",
        "This Cooperation Agreement is entered into by and between Acme Beauty, Inc., a Delaware \
         corporation (the \"Company\"), and Marathon Partners Equity Management, LLC (\"Marathon\"), \
         Marathon Partners L.P., Marathon Focus Fund L.P. and Mario Cibelli (collectively, the \
         \"Marathon Parties\").\n\n\
         This Agreement is made as of August 2014 by and between Capsugel US, LLC with an address at \
         412 Mt. Kemble Ave, Suite 200C, Morristown, NJ 07960 ( \"CAPSUGEL\") and Johnson Matthey Company, \
         Inc., having a mailing address of 30 Bond Street, Ward Hill, MA 01835-8099 and Nanophase \
         Technologies Corporation, a Delaware corporation (\"NTC\"), and PC Quote, Inc., with offices \
         in Chicago, Illinois 60605 and AB Wately, Inc. (hereinafter referred to as \"ABW\"), and LEO \
         PHARMA A/S of Industriparken 55, Ballerup (\"LEO\").\n\n\
         LIABILITY WHICH CANNOT BE EXCLUDED OR LIMITED shall survive.",
    );
    i.doc_type = "commercial".into();
    let o = extract(&i);
    for n in ["Marathon Partners L.P.", "Marathon Focus Fund L.P."] {
        assert!(
            has(&o, "Marathon Parties", "DEFINED_AS", n),
            "{n}: {:#?}",
            o.relations
        );
    }
    assert!(!has(
        &o,
        "Marathon Parties",
        "DEFINED_AS",
        "Acme Beauty, Inc."
    ));
    assert!(
        has(&o, "CAPSUGEL", "DEFINED_AS", "Capsugel US, LLC"),
        "{:#?}",
        o.relations
    );
    assert!(
        has(
            &o,
            "NTC",
            "DEFINED_AS",
            "Nanophase Technologies Corporation"
        ),
        "{:#?}",
        o.relations
    );
    assert!(
        has(&o, "ABW", "DEFINED_AS", "AB Wately, Inc."),
        "{:#?}",
        o.relations
    );
    assert!(
        has(&o, "LEO", "DEFINED_AS", "LEO Pharma A/S"),
        "{:#?}",
        o.relations
    );
    let names = org_names(&o);
    assert!(
        !names.iter().any(|n| n.starts_with("and ")
            || n.contains("60605")
            || n.contains("Industriparken")
            || n.contains("Excluded")),
        "{names:?}"
    );
}

#[test]
fn a_termination_list_gives_each_named_party_its_right() {
    let mut onto = Ontology::default();
    for t in ["HOLDS_RIGHT", "TERMINATES"] {
        onto.relation_types.insert(t.into(), String::new());
    }
    let mut i = input(
        "Section 10.01 Termination",
        "Section 10.01 Termination. This Agreement may be terminated at any time prior to the Closing:\n\
         (a) by mutual written agreement of the Company and Parent; or\n\
         (b) by either the Company or Parent, if:\n\
         (i) the Merger has not been consummated on or before the End Date; or\n\
         (ii) there shall be in effect any Order enjoining the Merger;\n\
         (c) by Parent, if an Adverse Recommendation Change shall have occurred;\n\
         (d) by the Company, if the Board has determined to accept a Superior Proposal.\n\n\
         The Company shall pay the Termination Fee by wire transfer.",
    );
    i.doc_type = "m_and_a".into();
    let o = extract_for(&i, &onto);
    let rights = |s: &str| -> Vec<String> {
        o.relations
            .iter()
            .filter(|r| r.source == s && r.relation_type == "TERMINATES")
            .map(|r| r.target.clone())
            .collect()
    };
    assert_eq!(rights("Parent").len(), 2, "{:#?}", o.relations);
    assert_eq!(rights("Company").len(), 2, "{:#?}", o.relations);
    assert!(rights("Company")
        .iter()
        .any(|r| r.contains("Superior Proposal")));
    // Mutual consent is no party's right.
    assert!(!o.relations.iter().any(|r| r.target.contains("mutual")));
}

/// An ontology offering `types`.
#[test]
fn party_short_names_bind_duties_and_payments() {
    let text = "8.1 Upfront Payment. As consideration for the supply described in Article 4, \
                Bellicum will pay to Miltenyi a non-refundable upfront fee of EUR 2,000,000 \
                (the \"Upfront Fee\"). Miltenyi may invoice the Upfront Fee in two installments.";
    let mut i = input("8.1 Upfront Payment", text);
    i.doc_type = "commercial".into();
    let ontology = onto(&["PAYS", "OBLIGATED_TO", "HOLDS_RIGHT", "REFERENCES"]);
    // Without the document's parties, `Bellicum` is just a capitalised word.
    let bare = extract_for(&i, &ontology);
    assert!(
        of_type(&bare, "OBLIGATED_TO").is_empty(),
        "{:#?}",
        bare.relations
    );
    i.parties = vec!["Miltenyi".into(), "Bellicum".into()];
    let o = extract_for(&i, &ontology);
    let pays = of_type(&o, "PAYS");
    assert_eq!(pays.len(), 1, "{:#?}", o.relations);
    assert_eq!(pays[0].0, "Bellicum");
    assert!(pays[0]
        .1
        .starts_with("non-refundable upfront fee of EUR 2,000,000"));
    assert!(of_type(&o, "OBLIGATED_TO")
        .iter()
        .any(|(s, t)| *s == "Bellicum" && t.contains("will pay to Miltenyi")));
    assert!(of_type(&o, "HOLDS_RIGHT")
        .iter()
        .any(|(s, t)| *s == "Miltenyi" && t.contains("invoice")));
    // The reference before the duty's clause stays the section's own.
    assert!(
        has(&o, "Section 8.1", "REFERENCES", "Article 4"),
        "{:#?}",
        o.relations
    );
    // Without PAYS in the ontology, the duty stays and no payment is made up.
    let no_pays = extract_for(&i, &onto(&["OBLIGATED_TO"]));
    assert!(of_type(&no_pays, "PAYS").is_empty());
}

#[test]
fn bare_subjects_after_a_comma_and_asides_around_the_modal() {
    let i = input(
        "5. Delinquent Payment",
        "5. Delinquent Payment. Rent is delinquent after the fifth day; additionally, \
         Landlord, in addition to all other rights and remedies available to it, may charge \
         Tenant a fee equal to $50.00. If any check is not honored, Tenant shall, in addition \
         to any other remedies available to Landlord, pay Landlord a \"NSF\" fee of $75.00, \
         and Landlord may require that all future payments be made by cash.",
    );
    let o = extract(&i);
    let rights = of_type(&o, "HOLDS_RIGHT");
    assert!(rights
        .iter()
        .any(|(s, t)| *s == "Landlord" && t.contains("may charge Tenant")));
    assert!(rights
        .iter()
        .any(|(s, t)| *s == "Landlord" && t.contains("may require")));
    assert!(of_type(&o, "OBLIGATED_TO")
        .iter()
        .any(|(s, t)| *s == "Tenant" && t.contains("NSF")));
}

#[test]
fn licence_grants_name_both_parties() {
    let ontology = onto(&[
        "LICENSES",
        "HOLDS_RIGHT",
        "LEASES_TO",
        "LEASES",
        "RESTRICTS",
    ]);
    let mut i = input(
        "10.2 Limited License",
        "10.2 Limited License. Miltenyi hereby grants to Bellicum a limited, non-exclusive \
         right and license under the Miltenyi Technology for the Permitted Use. \
         Subcontractors shall not have the right to grant sublicenses.",
    );
    i.parties = vec!["Miltenyi".into(), "Bellicum".into()];
    let o = extract_for(&i, &ontology);
    let grant = of_type(&o, "LICENSES");
    assert_eq!(grant.len(), 1, "{:#?}", o.relations);
    assert_eq!(grant[0].0, "Miltenyi");
    assert!(of_type(&o, "HOLDS_RIGHT").contains(&("Bellicum", grant[0].1)));

    // A non-exclusive grant is exclusive nowhere; an exclusive one is
    // exclusive in the Territory it names.
    let exclusive_onto = onto(&["LICENSES", "HOLDS_RIGHT", "EXCLUSIVE_IN"]);
    assert!(of_type(&extract_for(&i, &exclusive_onto), "EXCLUSIVE_IN").is_empty());
    let mut excl = input(
        "2.1 License Grant",
        "2.1 License Grant. CytoDyn hereby grants to Vyera an exclusive, royalty-bearing \
         license under the CytoDyn Patents to Commercialize Licensed Products in the Field \
         in the Territory during the Term of the Agreement, as provided in the Agreement.",
    );
    excl.parties = vec!["CytoDyn".into(), "Vyera".into()];
    let o = extract_for(&excl, &exclusive_onto);
    let places: Vec<&str> = of_type(&o, "EXCLUSIVE_IN")
        .iter()
        .map(|(_, t)| *t)
        .collect();
    assert_eq!(places, vec!["Field", "Territory"], "{:#?}", o.relations);

    // A grant between words that are no party gives nothing.
    let other = input(
        "2.1 Grant",
        "2.1 Grant. Management hereby grants to Marketing a license to use the logo.",
    );
    assert!(of_type(&extract_for(&other, &ontology), "LICENSES").is_empty());
}

#[test]
fn what_reads_as_a_duty_but_binds_no_one() {
    let mut i = input(
        "2.5 Restrictions",
        "WHEREAS, the Parties desire that Vyera will Commercialize Licensed Products.\n\n\
         2.5 Restrictions. Vyera shall not Commercialize any Licensed Product outside the \
         Territory. CytoDyn shall not, and shall cause its Affiliates not to, grant rights \
         that conflict with this Agreement. Airspan shall not suffer any liability for late \
         performance. Bellicum shall only be invoiced for quantities delivered. (d)If any \
         Lender shall subsequently recoup any costs, it shall refund them. The Servicing \
         Agent shall, by 1:00 p.m. ET on TD+1, remit funds to the custodian.",
    );
    i.parties = vec![
        "Vyera".into(),
        "CytoDyn".into(),
        "Airspan".into(),
        "Bellicum".into(),
    ];
    let o = extract(&i);
    let restricts = of_type(&o, "RESTRICTS");
    let duties = of_type(&o, "OBLIGATED_TO");
    // `shall not Commercialize` and `shall not, and shall cause ... not to,
    // grant` restrict; neither is a duty.
    assert!(restricts
        .iter()
        .any(|(c, p)| *p == "Vyera" && c.contains("Commercialize")));
    assert!(restricts
        .iter()
        .any(|(c, p)| *p == "CytoDyn" && c.contains("grant rights")));
    assert!(
        !duties.iter().any(|(s, _)| *s == "Vyera" || *s == "CytoDyn"),
        "{duties:#?}"
    );
    // A recital, a relief from liability, a protection and a condition
    // bind no one.
    assert!(
        !restricts.iter().any(|(_, p)| *p == "Airspan"),
        "{restricts:#?}"
    );
    assert!(
        !duties
            .iter()
            .any(|(s, _)| *s == "Bellicum" || *s == "Lender"),
        "{duties:#?}"
    );
    // `p.m.` ends no sentence: the duty keeps its act.
    assert!(duties
        .iter()
        .any(|(s, t)| *s == "Servicing Agent" && t.contains("remit funds")));
}

#[test]
fn a_list_opened_by_a_later_sentence_is_no_earlier_duty_s() {
    let mut i = input(
        "5.6 Minimum Purchases",
        "5.6 Minimum Purchases. Miltenyi shall provide written notice to Bellicum of such \
         shortfall. If Bellicum fails to cure it, then Miltenyi shall have no obligation to \
         Bellicum under this Agreement:\n\n\
         (1) to provide Regulatory Work in accordance with Section 4.3.",
    );
    i.parties = vec!["Miltenyi".into(), "Bellicum".into()];
    let o = extract(&i);
    assert!(
        !o.relations
            .iter()
            .any(|r| r.source.starts_with("Miltenyi shall provide") && r.target == "Section 4.3"),
        "{:#?}",
        o.relations
    );
    assert!(
        has(&o, "Section 5.6", "REFERENCES", "Section 4.3"),
        "{:#?}",
        o.relations
    );
}

#[test]
fn statutes_blanks_defined_names_and_glued_columns_are_no_organisations() {
    let o = extract(&input(
        "Signatures",
        "This Agreement is subject to the Florida Business Corporation Act and the Delaware \
         General Corporation Law. Signed by an Authorized Representative of Your Company. \
         The Exchange Agent and the Surviving Corporation shall cooperate.\n\n\
         Managing DirectorBanco Santander S.A.\n\n\
         THE WALT DISNEY COMPANYMizuho Bank, Ltd.\n\n\
         THE WALT DISNEY COMPANYGOLDMAN SACHS LENDING PARTNERS LLC\n\n\
         ROYAL BANK OF CANADAby\n\n\
         Form of Opinion of Milbank LLP, counsel to the Borrower",
    ));
    let names = org_names(&o);
    for bad in [
        "Corporation",
        "Your Company",
        "DirectorBanco",
        "COMPANYMizuho",
        "CANADAby",
        "Form of",
    ] {
        assert!(!names.iter().any(|n| n.contains(bad)), "{bad} in {names:?}");
    }
    for good in [
        "Banco Santander S.A.",
        "Mizuho Bank, Ltd.",
        "Goldman Sachs Lending Partners LLC",
        "Royal Bank of Canada",
        "Milbank LLP",
    ] {
        assert!(names.contains(&good), "{good} in {names:?}");
    }
}

/// The ontology types a duty's qualifiers use.
fn qualified() -> Ontology {
    onto(&[
        "CONDITIONED_ON",
        "HAS_EXCEPTION",
        "HAS_PERIOD",
        "TRIGGERS",
        "HOLDS_RIGHT",
        "OBLIGATED_TO",
        "RESTRICTS",
        "TERMINATES",
    ])
}

#[test]
fn conditions_exceptions_and_periods_attach_to_their_duty() {
    let text = "If Licensee fails to pay any amount when due, Licensor may terminate this \
                Agreement upon thirty (30) days' prior written notice. Licensee shall pay each \
                invoice within forty-five (45) days after receipt, unless disputed in good faith. \
                Licensee shall deliver the report on or before March 1, 2020, except as provided \
                in Section 4.2.";
    let mut i = input("5.1 Payment", text);
    i.doc_type = "commercial".into();
    let o = extract_for(&i, &qualified());
    let of = |t: &str| of_type(&o, t);
    let right = o
        .relations
        .iter()
        .find(|r| r.relation_type == "HOLDS_RIGHT" && r.source == "Licensor")
        .map(|r| r.target.clone())
        .expect("Licensor's right to terminate");
    assert!(
        of("CONDITIONED_ON").contains(&(
            right.as_str(),
            "If Licensee fails to pay any amount when due"
        )),
        "{:#?}",
        o.relations
    );
    assert!(of("HAS_PERIOD")
        .iter()
        .any(|(s, t)| *s == right && t.contains("thirty (30) days' prior written notice")));
    let pay = of("OBLIGATED_TO")
        .into_iter()
        .find(|(_, t)| t.starts_with("Licensee shall pay"))
        .map(|(_, t)| t)
        .expect("duty to pay");
    assert!(of("HAS_PERIOD").contains(&(pay, "within forty-five (45) days")));
    assert!(of("CONDITIONED_ON").contains(&(pay, "unless disputed in good faith")));
    let deliver = of("OBLIGATED_TO")
        .into_iter()
        .find(|(_, t)| t.starts_with("Licensee shall deliver"))
        .map(|(_, t)| t)
        .expect("duty to deliver");
    assert!(of("HAS_PERIOD").contains(&(deliver, "on or before March 1, 2020")));
    assert!(of("HAS_EXCEPTION").contains(&(deliver, "except as provided in Section 4.2")));
    // A qualifier is typed as what it is, never as a duty.
    let typed = |n: &str| {
        o.entities
            .iter()
            .find(|e| e.name == n)
            .map(|e| e.entity_type.as_str())
    };
    assert_eq!(typed("unless disputed in good faith"), Some("Condition"));
    assert_eq!(
        typed("except as provided in Section 4.2"),
        Some("Exception")
    );
    assert_eq!(typed("within forty-five (45) days"), Some("Period"));
    // Without the ontology's types, nothing of it is made.
    let bare = extract_for(&i, &onto(&["OBLIGATED_TO", "HOLDS_RIGHT"]));
    assert!(!bare
        .entities
        .iter()
        .any(|e| ["Condition", "Exception", "Period"].contains(&e.entity_type.as_str())));
}

#[test]
fn permitted_baskets_are_exceptions_of_their_covenant() {
    let text = "The Borrower will not create or suffer to exist any Lien on any of its \
                property, except:\n\n\
                (a) Liens for taxes not yet due;\n\n\
                (b) Liens securing Indebtedness not exceeding $5,000,000 in the aggregate.\n\n\
                The Borrower shall not:\n\n\
                (a) amend its charter;";
    let mut onto = qualified();
    onto.relation_types
        .insert("AMOUNT_OF".into(), String::new());
    let o = extract_for(&input("7.01 Liens", text), &onto);
    let ex = of_type(&o, "HAS_EXCEPTION");
    assert_eq!(ex.len(), 2, "{:#?}", o.relations);
    assert!(
        ex.iter()
            .all(|(s, _)| s.starts_with("Borrower will not create")),
        "{ex:#?}"
    );
    // The basket's cap is the basket's, not the covenant's.
    assert!(of_type(&o, "AMOUNT_OF")
        .iter()
        .any(|(a, t)| *a == "$5,000,000" && t.starts_with("Liens securing Indebtedness")));
    assert!(ex.iter().any(|(_, t)| *t == "Liens for taxes not yet due"));
    // A list of what is restricted is no list of exceptions.
    assert!(!ex.iter().any(|(_, t)| t.contains("charter")));
}

#[test]
fn assignment_and_change_of_control_are_named_acts() {
    let text = "Neither Party shall assign this Agreement without the prior written consent \
                of the other Party. This Agreement may not be assigned by Licensee to a \
                competitor of Licensor. Licensor may terminate this Agreement upon a Change of \
                Control of Licensee. Licensee shall not undergo a change of control without \
                the consent of Licensor.";
    let mut i = input("12. Assignment", text);
    i.doc_type = "commercial".into();
    let o = extract_for(&i, &qualified());
    let restricts = of_type(&o, "RESTRICTS");
    assert!(
        restricts.iter().any(|(_, t)| *t == "Assignment"),
        "{:#?}",
        o.relations
    );
    assert!(restricts.iter().any(|(_, t)| *t == "Change of Control"));
    // The passive names the restricted party after `by`.
    assert!(restricts
        .iter()
        .any(|(s, t)| s.starts_with("This Agreement may not be assigned") && *t == "Licensee"));
    let triggers = of_type(&o, "TRIGGERS");
    assert!(triggers
        .iter()
        .any(|(s, t)| *s == "Change of Control" && t.starts_with("Licensor may terminate")));
}

/// A duty whose clause ends before the verb the pattern reached (`IAC
/// will, [*].`, a redaction in a CUAD manufacturing agreement) is read
/// without running past the clause: no panic, the paragraph's other
/// duties still found.
#[test]
fn a_clause_that_ends_before_its_verb_is_read_safely() {
    let mut i = input(
        "10.2. Product Warranty by IAC",
        "10.2. Product Warranty by IAC. For any Product Unit which is agreed between the Parties (such agreement to be made fairly and reasonably) to be non conforming to the above product warranty, IAC will, [*]. The warranty granted in this Section 10.2 will not apply to Product Units that have been misused. If Sonos requests an extension of the Warranty Period, the parties will negotiate in good faith to determine an appropriate charge.",
    );
    i.parties = vec!["IAC".into(), "Sonos".into()];
    let o = extract(&i);
    assert!(
        o.relations
            .iter()
            .any(|r| r.relation_type == "OBLIGATED_TO"),
        "{:?}",
        o.relations
    );
}
