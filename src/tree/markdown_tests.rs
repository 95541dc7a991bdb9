//! Markdown trees: signature pages left as plain lines, the attachments
//! after them, and the reference ids of the real headings.

use super::*;

fn tree_of(text: &str) -> (SourceText, DocTree) {
    let src = SourceText::from_text("agreement.md", text);
    let tree = build_tree(&src);
    (src, tree)
}

/// Spans tile the document in pre-order, every node starting at a line
/// start (Markdown headings are lines).
fn assert_tiles(src: &SourceText, tree: &DocTree) {
    super::tests::assert_tiles(&src.text, tree);
    for n in tree.iter() {
        assert_eq!(n.start_byte, src.line_start(n.start_line), "{}", n.node_id);
    }
}

/// ATX headings outside code, in order: what the reference numbers
/// `0001`, `0002`, ... in pre-order.
fn atx_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with('#'))
        .map(|(i, _)| i + 1)
        .collect()
}

fn line_of(src: &SourceText, needle: &str) -> usize {
    (1..=src.line_count())
        .find(|&n| src.line(n).contains(needle))
        .unwrap_or_else(|| panic!("{needle} not in the text"))
}

/// Last article with its signature pages as plain lines (a signing
/// formula, party names over two lines, bold and underscored fields, a
/// page footer repeated on each page), an untitled pricing table, then
/// schedules and an exhibit one level below the articles, the exhibit a
/// form with its own sections and signature block.
const AGREEMENT: &str = "\
Cover page of the agreement between Northwind Industries, Inc. and Acme Bank.

# Article 1 Definitions

## Section 1.01 Defined Terms

Defined terms used in this agreement have the meanings given below.

# Article 2 Miscellaneous

## Section 2.01 Notices

All notices shall be in writing and delivered to the addresses below.

## Section 2.02 Counterparts

This Agreement may be executed in counterparts, each an original.

[Signature pages follow]

IN WITNESS WHEREOF, the parties hereto have caused this Agreement to be duly executed as of the date first written above.

NORTHWIND INDUSTRIES, INC.,
as Borrower

**By:** ______________________
**Name:** Margaret L. Okafor
**Title:** Chief Financial Officer
Address: 1 Harbour Road

Northwind Credit Agreement
Page S-1

ACME BANK, N.A., as Administrative Agent

By: <u>/s/ Priya Raman</u>
Name: Priya Raman
Title: Managing Director

Northwind Credit Agreement
Page S-2

PRICING GRID

| Level | Rating | Margin |
|---|---|---|
| I | A or better | 50 bps for every Eurodollar advance made under the facility |
| II | BBB+ | 75 bps for every Eurodollar advance made under the facility |
| III | BBB or below | 100 bps for every Eurodollar advance made under the facility |

## SCHEDULE 2.01

### Commitments

| Lender | Commitment |
|---|---|
| Acme Bank, N.A. | $200,000,000 |

## EXHIBIT A Form of Notice of Borrowing

### 1. Request

The Borrower requests an advance in the amount set out below.

NORTHWIND INDUSTRIES, INC.

By: ______________________
Name:
Title:
";

#[test]
fn signature_lines_in_the_last_article_become_a_signature_node() {
    let (src, t) = tree_of(AGREEMENT);
    assert_eq!(t.format, DocFormat::Markdown);
    assert_tiles(&src, &t);
    // The real headings keep the reference ids, in order.
    let real: Vec<(&str, usize)> = t
        .iter()
        .filter(|n| !n.node_id.contains('-') && n.kind != NodeKind::Preamble)
        .map(|n| (n.node_id.as_str(), n.line_num))
        .collect();
    let want: Vec<(String, usize)> = atx_lines(AGREEMENT)
        .into_iter()
        .enumerate()
        .map(|(i, l)| (format!("{:04}", i + 1), l))
        .collect();
    let want: Vec<(&str, usize)> = want.iter().map(|(i, l)| (i.as_str(), *l)).collect();
    assert_eq!(real, want);

    // The pages: from the signing formula to the last field of the last
    // block, with the footers between the blocks.
    let sig = t.find("0005-signature").expect("signature node");
    assert_eq!(sig.kind, NodeKind::Signature);
    assert_eq!(sig.level, 1);
    assert_eq!(sig.start_line, line_of(&src, "IN WITNESS WHEREOF"));
    assert!(sig.end_line >= line_of(&src, "Title: Managing Director"));
    assert!(sig.end_line < line_of(&src, "PRICING GRID"));
    let counterparts = t.find("0005").unwrap();
    assert_eq!(counterparts.end_line, sig.start_line - 1);
    assert!(src
        .span_text(counterparts.start_line, counterparts.end_line)
        .contains("[Signature pages follow]"));

    // The table after them is an attachment of its own, titled by the line
    // above it; it is not part of the pages (which are never sent).
    let grid = t.find("0005-schedule").expect("attachment node");
    assert_eq!(
        (grid.title.as_str(), grid.kind, grid.level),
        ("PRICING GRID", NodeKind::Schedule, 1)
    );
    assert_eq!(grid.start_line, line_of(&src, "PRICING GRID"));

    // Schedules and exhibits are top-level; their headings stay below them.
    let tops: Vec<&str> = t.structure.iter().map(|n| n.node_id.as_str()).collect();
    assert_eq!(
        tops,
        [
            "0000",
            "0001",
            "0003",
            "0005-signature",
            "0005-schedule",
            "0006",
            "0008"
        ]
    );
    let schedule = t.find("0006").unwrap();
    assert_eq!(
        (schedule.kind, schedule.nodes.len()),
        (NodeKind::Schedule, 1)
    );
    assert_eq!(schedule.nodes[0].breadcrumb, "SCHEDULE 2.01 > Commitments");
    let exhibit = t.find("0008").unwrap();
    assert_eq!(exhibit.kind, NodeKind::Exhibit);
    assert_eq!(exhibit.nodes[0].title, "1. Request");
    // The form's own signature block is part of the exhibit.
    assert_eq!(
        t.iter().filter(|n| n.kind == NodeKind::Signature).count(),
        1
    );
}

#[test]
fn signature_pages_route_as_noise_like_the_plain_text_ones() {
    let (_, t) = tree_of(AGREEMENT);
    let index = crate::index::GraphabilityIndex::default();
    let plan = crate::route::plan(&t, &index, &crate::route::RouteOptions::default());
    let route_of = |id: &str| {
        plan.sections
            .iter()
            .find(|s| s.node_id == id)
            .map(|s| s.route)
            .unwrap()
    };
    assert_eq!(route_of("0005-signature"), crate::route::Route::Noise);
    assert_eq!(route_of("0005-schedule"), crate::route::Route::Llm);
}

#[test]
fn a_signature_heading_of_its_own_adds_nothing() {
    let text = AGREEMENT.replace(
        "IN WITNESS WHEREOF",
        "# Signature Pages\n\nIN WITNESS WHEREOF",
    );
    let (src, t) = tree_of(&text);
    assert_tiles(&src, &t);
    let sig: Vec<&str> = t
        .iter()
        .filter(|n| n.kind == NodeKind::Signature)
        .map(|n| n.node_id.as_str())
        .collect();
    assert_eq!(sig, ["0006"]);
    assert!(t.iter().all(|n| !n.node_id.ends_with("-signature")));
}

#[test]
fn without_a_signing_formula_the_pages_start_at_the_first_party() {
    let text = AGREEMENT.replace(
        "IN WITNESS WHEREOF, the parties hereto have caused this Agreement to be duly executed as of the date first written above.",
        "The remainder of this page is intentionally left blank, and the parties sign on the following pages.",
    );
    let (src, t) = tree_of(&text);
    let sig = t.find("0005-signature").expect("signature node");
    assert_eq!(sig.start_line, line_of(&src, "NORTHWIND INDUSTRIES, INC.,"));
}

#[test]
fn fields_without_a_block_are_not_signature_pages() {
    // A notices clause with `Attention:` / `Telephone:` lines and a single `By:`
    // sentence is body text.
    let text = "\
# Article 1 Notices

## Section 1.01 Addresses

Notices go to the Borrower at the address below.

By: hand delivery or courier to the office of the Borrower, or by mail.

Attention: Treasurer
Telephone: 555-0100

## Section 1.02 Effect

Notices are effective on receipt.
";
    let (_, t) = tree_of(text);
    assert!(t.iter().all(|n| n.kind != NodeKind::Signature));
    assert!(t.iter().all(|n| !n.node_id.contains('-')));
}

#[test]
fn a_form_quoted_earlier_in_the_article_is_not_the_signature_pages() {
    let form = "## Section 2.01 Notices\n\nNotices use this form, signed as follows:\n\nBy: ______________________\nName:\nTitle:\n\nand are delivered by hand to each party at its address set out in the register kept by the Agent for that purpose, or as notified.\n\nMore rules for notices follow here, including the rules on electronic delivery to the Agent and the Lenders.\n";
    let text = AGREEMENT.replace(
        "## Section 2.01 Notices\n\nAll notices shall be in writing and delivered to the addresses below.\n",
        form,
    );
    let (src, t) = tree_of(&text);
    assert_tiles(&src, &t);
    let sig: Vec<&Node> = t.iter().filter(|n| n.kind == NodeKind::Signature).collect();
    assert_eq!(sig.len(), 1);
    assert_eq!(sig[0].start_line, line_of(&src, "IN WITNESS WHEREOF"));
    assert!(t.find("0004").unwrap().end_line > line_of(&src, "More rules for notices"));
}
