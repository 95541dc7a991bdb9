//! Unit and property tests of the whole tree builder: tiling, ids,
//! nesting, kinds, and the plain-text rules on small documents.

use super::*;
use proptest::prelude::*;

fn tree_of(text: &str) -> DocTree {
    build_tree(&SourceText::from_text("doc.txt", text))
}

/// The nodes' byte spans tile the text (`text` as given to the tree:
/// it is normalised here the same way), and their lines are the lines
/// those bytes are on: a node that starts inside a line shares it with
/// the node before. Sizes are the spans' characters.
pub(super) fn assert_tiles(text: &str, tree: &DocTree) {
    let src = SourceText::from_text("t.txt", text);
    let mut next = 0;
    let mut prev_end_line = 0;
    for n in tree.iter() {
        assert_eq!(
            n.start_byte, next,
            "node {} {:?} does not start where the previous ended",
            n.node_id, n.title
        );
        assert!(n.end_byte > n.start_byte, "node {} is empty", n.node_id);
        assert_eq!(
            n.start_line,
            src.line_of_offset(n.start_byte),
            "{}",
            n.node_id
        );
        assert_eq!(
            n.end_line,
            src.line_of_offset(n.end_byte - 1),
            "{}",
            n.node_id
        );
        let inside_a_line = n.start_byte != src.line_start(n.start_line);
        let expected_start = prev_end_line + usize::from(!inside_a_line);
        assert_eq!(n.start_line, expected_start, "{} {:?}", n.node_id, n.title);
        assert!(n.line_num >= n.start_line && n.line_num <= n.end_line);
        assert_eq!(n.chars, src.text[n.start_byte..n.end_byte].chars().count());
        next = n.end_byte;
        prev_end_line = n.end_line;
    }
    assert_eq!(next, src.text.len(), "spans do not reach the end");
    assert_eq!(prev_end_line, tree.line_count, "lines do not reach the end");
}

fn ids_are_preorder(tree: &DocTree) {
    // Extra nodes (`0000-toc`) take no pre-order number.
    let ids: Vec<&str> = tree
        .iter()
        .map(|n| n.node_id.as_str())
        .filter(|id| !id.contains('-'))
        .collect();
    let first = if tree.structure[0].kind == NodeKind::Preamble {
        0
    } else {
        1
    };
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(*id, format!("{:04}", i + first));
    }
}

const SMALL: &str = "\
CREDIT AGREEMENT dated as of May 1, 2024 among ACME CORP., as Borrower, and ACME BANK, N.A.

ARTICLE I
DEFINITIONS

SECTION 1.01. Defined Terms. As used in this Agreement, \"Borrower\" means ACME Corp.
The Borrower shall repay the Loans as set out in
Section 2.01, in each case with interest.
SECTION 1.02. Accounting Terms. All accounting terms shall be construed under GAAP.

ARTICLE II
THE CREDITS

SECTION 2.01. Commitments. Each Lender agrees to make Loans to the Borrower.
2.19 or 2.20. and more text that wrapped onto a new line here.
SECTION 2.02. [Reserved].

IN WITNESS WHEREOF, the parties have executed this Agreement.
By: ________
EXHIBIT A
FORM OF NOTE
The Borrower promises to pay.
";

#[test]
fn plain_text_structure() {
    let t = tree_of(SMALL);
    assert_eq!(t.format, DocFormat::Text);
    assert_tiles(SMALL, &t);
    ids_are_preorder(&t);
    let got: Vec<(&str, &str, u8, NodeKind)> = t
        .iter()
        .map(|n| (n.node_id.as_str(), n.title.as_str(), n.level, n.kind))
        .collect();
    assert_eq!(
        got,
        vec![
            ("0000", "Preamble", 1, NodeKind::Preamble),
            ("0001", "ARTICLE I DEFINITIONS", 1, NodeKind::Structural),
            ("0002", "SECTION 1.01. Defined Terms", 2, NodeKind::Section),
            (
                "0003",
                "SECTION 1.02. Accounting Terms",
                2,
                NodeKind::Section
            ),
            ("0004", "ARTICLE II THE CREDITS", 1, NodeKind::Structural),
            ("0005", "SECTION 2.01. Commitments", 2, NodeKind::Section),
            ("0006", "SECTION 2.02. [Reserved]", 2, NodeKind::Section),
            ("0007", "Signature Page", 1, NodeKind::Signature),
            ("0008", "EXHIBIT A FORM OF NOTE", 1, NodeKind::Exhibit),
        ]
    );
    let s = t.find("0005").unwrap();
    assert_eq!(
        s.breadcrumb,
        "ARTICLE II THE CREDITS > SECTION 2.01. Commitments"
    );
    assert_eq!(t.find("0004").unwrap().subtree_span(), (11, 17));
}

#[test]
fn spans_and_chars_follow_the_source() {
    let src = SourceText::from_text("d.txt", SMALL);
    let t = build_tree(&src);
    let total: usize = t.iter().map(|n| n.chars).sum();
    assert_eq!(total, SMALL.chars().count());
    let n = t.find("0002").unwrap();
    assert!(src
        .span_text(n.start_line, n.end_line)
        .starts_with("SECTION 1.01."));
}

#[test]
fn headingless_text_is_one_fallback_node() {
    let t = tree_of("MEMORANDUM\n\nTo: the Board\nThe Borrower shall pay.\n");
    assert_eq!(t.structure.len(), 1);
    let n = &t.structure[0];
    assert_eq!(
        (n.kind, n.node_id.as_str(), n.start_line, n.end_line),
        (NodeKind::Fallback, "0001", 1, 4)
    );
}

#[test]
fn markdown_follows_the_reference_stack() {
    let md = "Cover text of the agreement with parties.\n\n# Article 1\n\n## Section 1.01 Definitions\n\nText.\n\n```\n# not a heading\n```\n\nSetext Title\n------------\n\n### Deep\n\n# Article 2\nMore.\n";
    let t = build_tree(&SourceText::from_text("a.md", md));
    assert_eq!(t.format, DocFormat::Markdown);
    assert_tiles(md, &t);
    let got: Vec<(&str, usize, u8, &str)> = t
        .iter()
        .map(|n| (n.node_id.as_str(), n.line_num, n.level, n.title.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("0000", 1, 1, "Preamble"),
            ("0001", 3, 1, "Article 1"),
            ("0002", 5, 2, "Section 1.01 Definitions"),
            ("0003", 13, 2, "Setext Title"),
            ("0004", 16, 3, "Deep"),
            ("0005", 18, 1, "Article 2"),
        ]
    );
    assert_eq!(t.find("0001").unwrap().kind, NodeKind::Structural);
}

#[test]
fn markdown_wrapper_is_read_as_plain_text() {
    let text = format!("# Exhibit 10.1\n\n{SMALL}\n# End of document\n");
    let t = tree_of(&text);
    assert_eq!(t.format, DocFormat::Text);
    assert!(t.iter().any(|n| n.title == "SECTION 2.01. Commitments"));
}

#[test]
fn toc_run_is_one_node_and_body_follows() {
    let text = "\
TABLE OF CONTENTS
ARTICLE I DEFINITIONS ............ 1
SECTION 1.01. Defined Terms ....... 1
SECTION 1.02. Accounting Terms .... 5
ARTICLE II THE CREDITS ............ 6
SECTION 2.01. Commitments ......... 6

THIS AGREEMENT dated as of May 1, 2024 is made among ACME CORP. and the lenders party hereto.

ARTICLE I
DEFINITIONS
SECTION 1.01. Defined Terms. \"Lender\" means each bank party hereto.
ARTICLE II
THE CREDITS
SECTION 2.01. Commitments. Each Lender severally agrees to make loans.
";
    let t = tree_of(text);
    assert_tiles(text, &t);
    let kinds: Vec<(NodeKind, usize)> = t.iter().map(|n| (n.kind, n.line_num)).collect();
    assert_eq!(
        kinds,
        vec![
            (NodeKind::Toc, 1),
            (NodeKind::Preamble, 8),
            (NodeKind::Structural, 10),
            (NodeKind::Section, 12),
            (NodeKind::Structural, 13),
            (NodeKind::Section, 15),
        ]
    );
}

#[test]
fn inline_and_run_together_headings() {
    let text = "\
ARTICLE IVREPRESENTATIONS
SECTION 4.01.Organization. The Borrower is duly organized under the laws of Delaware.
SECTION 4.02.Authority—The Borrower has full power to enter into this Agreement.
";
    let t = tree_of(text);
    let titles: Vec<&str> = t.iter().map(|n| n.title.as_str()).collect();
    assert_eq!(
        titles,
        vec![
            "ARTICLE IV REPRESENTATIONS",
            "SECTION 4.01. Organization",
            "SECTION 4.02. Authority"
        ]
    );
}

#[test]
fn crlf_cr_bom_tabs_and_unicode() {
    let text = "\u{feff}Preamble text naming ACME Société Générale, as Agent.\r\nARTICLE 1\r\n\tDéfinitions\rSection 1.01.\tDefined Terms. “Agent” means the agent.\r\n";
    let t = tree_of(text);
    assert_tiles(text, &t);
    assert_eq!(t.line_count, 4);
    let titles: Vec<&str> = t.iter().map(|n| n.title.as_str()).collect();
    assert_eq!(
        titles,
        vec![
            "Preamble",
            "ARTICLE 1 Définitions",
            "Section 1.01. Defined Terms"
        ]
    );
}

#[test]
fn very_long_lines_are_fine() {
    let long = "word ".repeat(200_000);
    let text =
        format!("ARTICLE I\nGENERAL\nSECTION 1.01. Scope. {long}.\nSECTION 1.02. Other. x\n");
    let t = tree_of(&text);
    assert_tiles(&text, &t);
    assert_eq!(t.iter().count(), 3);
}

#[test]
fn section_numbers_only_increase_within_an_article() {
    let text = "\
ARTICLE I
GENERAL
SECTION 1.01. First. Text of the first section.
SECTION 1.03. Third. Text.
SECTION 1.02. Back. This is a cross reference that looks like a heading.
Section 2.01 Title Case Reference. Belongs to another article, so not here.
SECTION 1.04. Fourth. Text.
";
    let t = tree_of(text);
    // 1.01 and 1.04 are kept, with one of 1.02 / 1.03 between (either
    // chain is as good); numbers only go up and 2.01 is not in article I.
    let seqs: Vec<Vec<u32>> = t
        .iter()
        .filter_map(|n| n.label.as_ref())
        .filter(|l| l.kind == LabelKind::Section)
        .map(|l| l.seq.clone())
        .collect();
    assert_eq!(seqs.len(), 3, "{seqs:?}");
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    assert_eq!((seqs[0].clone(), seqs[2].clone()), (vec![1, 1], vec![1, 4]));
}

/// (title, label, name) of every node, in document order.
fn headings_of(t: &DocTree) -> Vec<(String, String, String)> {
    t.iter()
        .filter(|n| n.kind != NodeKind::Preamble)
        .map(|n| {
            let label = n.label.as_ref().map_or("", |l| l.text.as_str()).to_owned();
            (n.title.clone(), label, n.name.clone())
        })
        .collect()
}

#[test]
fn roman_article_number_is_not_split_into_a_title() {
    for (roman, value) in [("II", 2), ("IV", 4), ("VI", 6), ("VII", 7)] {
        let text = format!(
            "PURCHASE AGREEMENT\n\nARTICLE {roman}\nCOVENANTS\n\n\
             Section {value}.4 Tax Returns. The Seller shall file.\n\n\
             Section {value}.5 Section 338 Election. The Buyer may make an election.\n"
        );
        let t = tree_of(&text);
        assert_tiles(&text, &t);
        let h = headings_of(&t);
        assert_eq!(
            h[0],
            (
                format!("ARTICLE {roman} COVENANTS"),
                format!("ARTICLE {roman}"),
                "COVENANTS".to_owned()
            ),
            "{h:?}"
        );
        let article = t
            .iter()
            .find(|n| n.name == "COVENANTS")
            .expect("the article node");
        assert_eq!(
            article.label.as_ref().map(|l| l.seq.clone()),
            Some(vec![value])
        );
        assert_eq!(article.nodes.len(), 2, "{h:?}");
    }
}

#[test]
fn excerpt_may_start_at_a_late_article() {
    let text = "PURCHASE AGREEMENT\n\nARTICLE VI COVENANTS\n\n\
                Section 6.4 Tax Returns. The Seller shall file.\n\n\
                Section 6.5 Other Matters. The Buyer may.\n";
    let t = tree_of(text);
    assert_tiles(text, &t);
    let titles: Vec<String> = headings_of(&t).into_iter().map(|h| h.0).collect();
    assert_eq!(
        titles,
        [
            "ARTICLE VI COVENANTS",
            "Section 6.4 Tax Returns",
            "Section 6.5 Other Matters"
        ]
    );
    // Sections alone (an amendment restating two sections) are headings too.
    let t = tree_of(
        "AMENDMENT NO. 2\n\nSection 6.4 Tax Returns. The Seller shall file.\n\n\
         Section 6.5 Other Matters. The Buyer may.\n",
    );
    assert_eq!(headings_of(&t).len(), 2, "{:?}", headings_of(&t));
}

#[test]
fn lone_late_number_in_prose_stays_prose() {
    for stray in [
        "6.4 The Seller shall file all returns when due and pay the taxes shown on them.",
        "Section 6.4 Tax Returns. The Seller shall file all returns when due.",
        "ARTICLE VI",
    ] {
        let text = format!(
            "PURCHASE AGREEMENT\n\nThe parties agree to the following terms and \
             conditions of the sale.\n{stray}\nThe Buyer shall pay the price in cash.\n"
        );
        let t = tree_of(&text);
        assert_tiles(&text, &t);
        assert_eq!(t.structure.len(), 1, "{stray}: {:?}", headings_of(&t));
        assert_eq!(t.structure[0].kind, NodeKind::Fallback, "{stray}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Arbitrary Unicode text, control characters and all: never panics,
    /// and the spans tile whatever lines there are.
    #[test]
    fn arbitrary_text_tiles(text in "(?s).{0,400}") {
        let src = SourceText::from_text("any.txt", &text);
        let tree = build_tree(&src);
        if src.line_count() > 0 {
            assert_tiles(&text, &tree);
            ids_are_preorder(&tree);
        }
    }

    /// For any input built from heading-like and ordinary lines, with any
    /// line endings, the spans tile the document and ids are pre-order.
    #[test]
    fn spans_always_tile(
        parts in prop::collection::vec(
            prop_oneof![
                Just("ARTICLE I".to_owned()),
                Just("ARTICLE II".to_owned()),
                Just("SECTION 1.01. Title. Body text of the section.".to_owned()),
                Just("Section 2.02 Other".to_owned()),
                Just("1.03 Bare Title".to_owned()),
                Just("EXHIBIT A".to_owned()),
                Just("Schedule 2.01".to_owned()),
                Just("TABLE OF CONTENTS".to_owned()),
                Just("SECTION 1.01 Definitions ......... 1".to_owned()),
                Just("1.03 Bare Title ......... 2".to_owned()),
                // Headings run into a line, as the contents may place them.
                Just("Text ends.\u{a0}SECTION 1.01 Definitions. Body. 1.03 Bare Title. é".to_owned()),
                Just("PART ONE 1.03 Bare Title more text".to_owned()),
                Just("IN WITNESS WHEREOF".to_owned()),
                Just("# Heading".to_owned()),
                Just("## Sub heading".to_owned()),
                Just("```".to_owned()),
                Just("----".to_owned()),
                Just(String::new()),
                "[a-zA-Z0-9 .,\u{e9}\u{2019}]{0,40}",
            ],
            0..60,
        ),
        eol in prop_oneof![Just("\n"), Just("\r\n"), Just("\r")],
    ) {
        let text = parts.join(eol);
        let src = SourceText::from_text("p.txt", &text);
        let tree = build_tree(&src);
        if src.line_count() == 0 {
            prop_assert!(tree.structure.is_empty());
        } else {
            assert_tiles(&text, &tree);
            ids_are_preorder(&tree);
            let total: usize = tree.iter().map(|n| n.chars).sum();
            prop_assert_eq!(total, src.text.chars().count());
        }
    }
}

#[test]
fn annex_titles_continue_and_split_numbers_join() {
    let text = "\
ARTICLE I
GENERAL
SECTION 1.01. Scope. This Agreement covers the loans.

EXHIBIT F
OPINION OF COUNSEL FOR
THE BORROWER
Text of the opinion.

EXHIBIT H -1
[FORM OF]
U.S. TAX COMPLIANCE CERTIFICATE
Text of the certificate.
";
    let t = tree_of(text);
    let annexes: Vec<&str> = t
        .iter()
        .filter(|n| n.kind == NodeKind::Exhibit)
        .map(|n| n.title.as_str())
        .collect();
    assert_eq!(
        annexes,
        vec![
            "EXHIBIT F OPINION OF COUNSEL FOR THE BORROWER",
            "EXHIBIT H-1 [FORM OF] U.S. TAX COMPLIANCE CERTIFICATE"
        ]
    );
}

#[test]
fn long_run_of_bodiless_headings_is_linear_and_kept() {
    // 20,000 distinct headings with no body and no TOC features: a form of
    // numbered titles, not a table of contents.
    let mut text = String::from("ARTICLE 1\nGENERAL\n");
    for s in 1..=20_000 {
        text.push_str(&format!(
            "Section {}.{:02}. Title\n",
            1 + (s - 1) / 10,
            1 + (s - 1) % 10
        ));
    }
    let t = tree_of(&text);
    assert_eq!(t.iter().filter(|n| n.kind == NodeKind::Toc).count(), 0);
    // Sections 2.01.. open articles whose headings are missing; numbers
    // of four digits (article 1000 on) are not section numbers.
    let sections = t.iter().filter(|n| n.level == 2).count();
    assert_eq!(sections, 999 * 10);
}

#[test]
fn blank_line_inside_a_span_keeps_its_characters() {
    // Once found by the tiling property: a span ending in an empty line.
    let text = "ARTICLE I\n\n1.03 Bare Title";
    let src = SourceText::from_text("r.txt", text);
    let t = build_tree(&src);
    assert_tiles(text, &t);
    assert_eq!(
        t.iter().map(|n| n.chars).sum::<usize>(),
        text.chars().count()
    );
    assert_eq!(src.span_text(1, 2), "ARTICLE I\n");
}

/// A contents page and a body whose extraction ran several headings into
/// one line; `{contents}` is replaced by the contents page or nothing.
const RUN_TOGETHER: &str = "\
CREDIT AGREEMENT
{contents}
THIS AGREEMENT is made among the parties named below, who agree as follows.

SECTION 1. DEFINITIONS
1.1 Defined Terms. As used herein the terms below have the meanings given. 1.2 Other Provisions. The words hereof refer to this Agreement. SECTION 2. THE LOANS To induce the Lenders to lend, the Borrower agrees as follows. 2.1 Commitments. Each Lender agrees to lend. 2.2 Notes. The Loans are evidenced by notes made under 2.3 Interest and not otherwise.
2.4 Fees. The Borrower pays fees.
";

const RUN_TOGETHER_CONTENTS: &str = "
TABLE OF CONTENTS

SECTION 1. DEFINITIONS ........................ 1
1.1 Defined Terms ............................. 1
1.2 Other Provisions .......................... 2
SECTION 2. THE LOANS .......................... 2
2.1 Commitments ............................... 2
2.2 Notes ..................................... 3
2.3 Interest .................................. 3
2.4 Fees ...................................... 3
";

#[test]
fn contents_entries_run_into_a_line_start_nodes_at_their_offset() {
    let text = RUN_TOGETHER.replace("{contents}", RUN_TOGETHER_CONTENTS);
    let src = SourceText::from_text("r.txt", &text);
    let t = build_tree(&src);
    assert_tiles(&text, &t);
    let line = src
        .text
        .rfind("1.1 Defined")
        .map(|at| src.line_of_offset(at));
    let in_line: Vec<(&str, &str)> = t
        .iter()
        .filter(|n| Some(n.start_line) == line)
        .map(|n| {
            (
                n.title.as_str(),
                src.byte_span_text(n.start_byte, n.end_byte),
            )
        })
        .collect();
    let titles: Vec<&str> = in_line.iter().map(|x| x.0).collect();
    assert_eq!(
        titles,
        [
            "1.1 Defined Terms",
            "1.2 Other Provisions",
            // The capitals title ends where its body starts.
            "SECTION 2. THE LOANS",
            "2.1 Commitments",
            "2.2 Notes",
        ]
    );
    // Each node's text starts with its heading and holds no other: the
    // one before ends at the sentence end.
    for (title, text) in &in_line {
        let label = title.split(' ').next().unwrap();
        assert!(text.starts_with(label), "{title}: {text:?}");
    }
    assert!(
        in_line[0].1.ends_with("meanings given. "),
        "{:?}",
        in_line[0].1
    );
    // `2.3` after a lower-case word is a reference, not a heading.
    assert!(in_line[4]
        .1
        .contains("under 2.3 Interest and not otherwise."));
    let loans = t
        .iter()
        .find(|n| n.title == "SECTION 2. THE LOANS")
        .unwrap();
    assert_eq!(loans.kind, NodeKind::Structural);
    let kids: Vec<&str> = loans.nodes.iter().map(|n| n.title.as_str()).collect();
    assert_eq!(kids, ["2.1 Commitments", "2.2 Notes", "2.4 Fees"]);
    let h = &t.health;
    // Only mentioned after a lower-case word: not a heading of the filing.
    assert_eq!(
        h.toc_not_in_filing,
        ["2.3 Interest .................................. 3"]
    );
    assert_eq!(h.toc_found(), 7);
    assert!(h.toc_missing.is_empty() && h.toc_inline.is_empty());
    assert_eq!(h.toc_found_share(), 1.0);
}

#[test]
fn without_contents_evidence_a_line_is_never_split() {
    // Every number inside the line stands inside a sentence (after a
    // lower-case word): a cross-reference, never a heading. (After a
    // sentence end, a heading line's run-in clauses are offered even
    // without contents; see `candidates_at`.)
    let text = RUN_TOGETHER
        .replace("{contents}", "")
        .replace("given. 1.2", "given in 1.2")
        .replace("Agreement. SECTION 2", "Agreement under SECTION 2")
        .replace("follows. 2.1", "follows under 2.1")
        .replace("lend. 2.2", "lend under 2.2");
    let src = SourceText::from_text("r.txt", &text);
    let t = build_tree(&src);
    assert_tiles(&text, &t);
    for n in t.iter() {
        assert_eq!(n.start_byte, src.line_start(n.start_line), "{:?}", n.title);
    }
}

#[test]
fn a_tree_saved_before_byte_spans_still_loads() {
    let t = tree_of(SMALL);
    let mut json = serde_json::to_value(&t).unwrap();
    fn strip(v: &mut serde_json::Value) {
        if let Some(o) = v.as_object_mut() {
            assert!(o.remove("start_byte").is_some() && o.remove("end_byte").is_some());
            o.get_mut("nodes")
                .and_then(|n| n.as_array_mut())
                .into_iter()
                .flatten()
                .for_each(strip);
        }
    }
    json["structure"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .for_each(strip);
    let old: DocTree = serde_json::from_value(json).unwrap();
    assert!(old.iter().all(|n| (n.start_byte, n.end_byte) == (0, 0)));
    assert_eq!(old.iter().count(), t.iter().count());
}

/// A contract whose contents page lists some third-level clauses.
fn listed_third_level(contents_sub: &str, body_sub: &str) -> String {
    let mut t = String::from("LOAN AGREEMENT\n\nTABLE OF CONTENTS\n\n");
    t.push_str("ARTICLE I DEFINITIONS ........ 1\n1.1 Definitions ........ 1\n");
    t.push_str("ARTICLE II THE FACILITY ........ 2\n2.1 The Facility ........ 2\n");
    t.push_str(contents_sub);
    t.push_str("2.2 Fees ........ 5\n\n");
    t.push_str(
        "ARTICLE I\nDEFINITIONS\n\n1.1 Definitions. Terms used here have these meanings.\n\n",
    );
    t.push_str("ARTICLE II\nTHE FACILITY\n\n2.1 The Facility. The Lenders agree to lend.\n\n");
    t.push_str("2.1.1 Loans. Each Lender shall make loans to the Borrower.\n\n");
    t.push_str("2.1.2 Borrowing. The Borrower may borrow on any business day.\n\n");
    t.push_str(body_sub);
    t.push_str("2.2 Fees. The Borrower shall pay the fees set out below.\n");
    t
}

#[test]
fn a_third_level_the_contents_list_is_a_heading_below_a_bare_section() {
    let titles = |t: &DocTree| t.iter().map(|n| n.title.clone()).collect::<Vec<_>>();
    let body = "2.1.3 Loan Principal Payment. The Borrower shall repay the loans.\n\n";
    // Listed: a heading of its own, though 2.1.1 and 2.1.2 before it are
    // not listed and stay the section's clause outline.
    let text = listed_third_level("2.1.3 Loan Principal Payment ........ 4\n", body);
    let tree = tree_of(&text);
    assert_tiles(&text, &tree);
    let got = titles(&tree);
    assert!(
        got.iter().any(|t| t == "2.1.3 Loan Principal Payment"),
        "{got:?}"
    );
    assert!(!got.iter().any(|t| t.starts_with("2.1.1")), "{got:?}");
    assert_eq!(tree.health.toc_missing, Vec::<String>::new());
    // Not listed: no third level below a bare section.
    let text = listed_third_level("", body);
    let got = titles(&tree_of(&text));
    assert!(!got.iter().any(|t| t.starts_with("2.1.3")), "{got:?}");
    // Run into its number (`2.1.3Loan Principal Payment.`) it reads the same.
    let glued = "2.1.3Loan Principal Payment.  The Borrower shall repay the loans.\n\n";
    let text = listed_third_level("2.1.3 Loan Principal Payment ........ 4\n", glued);
    let got = titles(&tree_of(&text));
    assert!(
        got.iter()
            .any(|t| t.starts_with("2.1.3") && t.ends_with("Loan Principal Payment")),
        "{got:?}"
    );
}

/// A heading is `structural` (routed `empty`) only when it has no text of
/// its own: a first clause run onto its line is text, a short lead-in
/// ending in a colon is not.
#[test]
fn a_clause_run_onto_a_heading_line_is_its_own_text() {
    let body = "The parties agree as set out below and in the schedules. ".repeat(3);
    let text = format!(
        "1. Compliance. Neither party shall engage in any practice that breaks the Fair Credit Reporting Act. {body}\n\n\
         1.1 Records. {body}\n\n1.2 Audits. {body}\n\n\
         2. Payments\n\nEach party agrees that:\n\n2.1 Fees. {body}\n\n2.2 Taxes. {body}\n"
    );
    let t = tree_of(&text);
    let kind = |title: &str| {
        t.iter()
            .find(|n| n.title.starts_with(title))
            .unwrap_or_else(|| panic!("no {title} in {:?}", headings_of(&t)))
            .kind
    };
    assert_eq!(kind("1. Compliance"), NodeKind::Section);
    assert_eq!(kind("2. Payments"), NodeKind::Structural);
    assert_tiles(&text, &t);
}

/// A short agreement whose signature page is followed by `tail` with no
/// heading the decoder knows.
fn signed_then(tail: &str) -> String {
    format!(
        "\
SUPPLY AGREEMENT between Alpha Widgets Inc. and Beta Stores LLC, dated as of June 1, 2021.

1. Supply. Alpha shall supply the widgets listed by Beta in each purchase order it accepts.

2. Price. Beta shall pay the prices agreed in writing within thirty days of each invoice.

IN WITNESS WHEREOF, the parties have executed this Agreement as of the date first written above.
ALPHA WIDGETS INC.   BETA STORES LLC
By: /s/ Ann Example   By: /s/ Bob Example
Name: Ann Example   Name: Bob Example
Title: President   Title: Chief Executive Officer
Address: 1 Main Street   Fax: 555 0100
Page 7 of 9

{tail}"
    )
}

#[test]
fn a_signature_page_ends_after_its_last_block() {
    let text = signed_then(
        "The parties further agree that the supplier shall keep a stock of spare parts for each \
         model for five years after the last delivery, and that each party bears its own costs.\n\
         Either party may audit the other's records of these parts once a year on notice.\n",
    );
    let t = tree_of(&text);
    assert_tiles(&text, &t);
    let sig = t
        .iter()
        .find(|n| n.kind == NodeKind::Signature)
        .expect("signature node");
    let sig_text = &text[sig.start_byte..sig.end_byte];
    assert!(sig_text.contains("Title: President"));
    assert!(!sig_text.contains("spare parts"), "{sig_text}");
    let after = t
        .find(&format!("{}-fallback", sig.node_id))
        .expect("an untitled node after the pages");
    assert_eq!(after.kind, NodeKind::Fallback);
    assert!(text[after.start_byte..after.end_byte].starts_with("The parties further agree"));
}

#[test]
fn the_content_after_a_signature_page_takes_its_title_line() {
    let text = signed_then(
        "SPARE PARTS ANNEX\n\
         The supplier shall keep a stock of spare parts for each model for five years after the \
         last delivery, and each party bears its own costs of doing so.\n",
    );
    let t = tree_of(&text);
    assert_tiles(&text, &t);
    let after = t
        .iter()
        .find(|n| n.title == "SPARE PARTS ANNEX")
        .expect("titled node after the pages");
    assert!(after.node_id.ends_with("-section"), "{}", after.node_id);
    assert_eq!(after.level, 1);
}

#[test]
fn footers_after_a_signature_page_stay_in_it() {
    let text = signed_then("Page 8 of 9\n[Signature Page to Supply Agreement]\n");
    let t = tree_of(&text);
    assert_tiles(&text, &t);
    let sig = t
        .iter()
        .find(|n| n.kind == NodeKind::Signature)
        .expect("signature node");
    assert_eq!(sig.end_byte, text.len());
    assert!(t.iter().all(|n| !n.node_id.contains('-')));
}
