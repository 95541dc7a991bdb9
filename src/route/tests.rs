//! Routing on hand-built trees (the tree builder is another stage).

use super::*;
use crate::tree::{DocFormat, Node};

const INDEX: &str = "\
document_type: t
anchors: [Subsidiaries]
noise: [Table of Contents]
very_high:
  - title: Parties
    aliases: [Preamble]
  - Definitions
  - Subsidiaries
medium:
  - Liens
high:
  - Negative Pledge
low:
  - Governing Law
very_low:
  - Exhibit
  - Notices
";

fn kgroute_split(title: &str) -> (Option<crate::tree::Label>, String) {
    crate::tree::split_heading(title)
}

fn node(id: &str, title: &str, kind: NodeKind, chars: usize, nodes: Vec<Node>) -> Node {
    let (label, name) = kgroute_split(title);
    Node {
        title: title.into(),
        label,
        name,
        node_id: id.into(),
        line_num: 1,
        start_line: 1,
        end_line: 1,
        start_byte: 0,
        end_byte: 0,
        level: 1,
        chars,
        breadcrumb: title.into(),
        kind,
        nodes,
    }
}

/// A one-document tree around `structure`.
fn doc(structure: Vec<Node>) -> DocTree {
    DocTree {
        doc_name: "d".into(),
        doc_id: "d-1".into(),
        line_count: 10,
        format: DocFormat::Text,
        health: Default::default(),
        party_names: Vec::new(),
        structure,
    }
}

fn tree() -> DocTree {
    use NodeKind::*;
    DocTree {
        doc_name: "d".into(),
        doc_id: "d-1234".into(),
        line_count: 10,
        format: DocFormat::Text,
        health: Default::default(),
        party_names: Vec::new(),
        structure: vec![
            node("0000", "Preamble", Preamble, 700, vec![]),
            node("0001", "TABLE OF CONTENTS", Toc, 3000, vec![]),
            node(
                "0002",
                "ARTICLE I DEFINITIONS",
                Structural,
                20,
                vec![node(
                    "0003",
                    "Section 1.01 Definitions",
                    Section,
                    40_000,
                    vec![],
                )],
            ),
            node(
                "0004",
                "ARTICLE V COVENANTS",
                Structural,
                22,
                vec![
                    node(
                        "0005",
                        "Section 5.01 Liens; Negative Pledge",
                        Section,
                        5000,
                        vec![],
                    ),
                    node("0006", "Section 5.02 [Reserved]", Section, 30, vec![]),
                    node(
                        "0007",
                        "Section 5.03 Benchmark Replacement Setting",
                        Section,
                        4000,
                        vec![],
                    ),
                    node("0008", "Section 5.04 Governing Law", Section, 900, vec![]),
                    node("0009", "Section 5.05 Notices", Section, 2500, vec![]),
                    node("0010", "Schedule 4.09 Subsidiaries", Schedule, 600, vec![]),
                ],
            ),
            node(
                "0011",
                "EXHIBIT A - Form of Note",
                Exhibit,
                8000,
                vec![
                    node("0015", "Section 3. Payments", Section, 700, vec![]),
                    node("0016", "Section 4. Definitions", Section, 300, vec![]),
                ],
            ),
            node(
                "0013",
                "SCHEDULE 1.1(a)",
                Schedule,
                20,
                vec![node("0014", "COMMITMENT SCHEDULE", Section, 2000, vec![])],
            ),
            node("0012", "Signatures", Signature, 1500, vec![]),
        ],
    }
}

fn index() -> GraphabilityIndex {
    GraphabilityIndex::from_yaml_str("t.yaml", INDEX).unwrap()
}

fn route_of(p: &RoutePlan, id: &str) -> (Route, Option<Tier>, Override) {
    let s = p.sections.iter().find(|s| s.node_id == id).unwrap();
    (s.route, s.predicted_tier, s.override_reason)
}

#[test]
fn routes_every_kind_of_section() {
    let p = plan(&tree(), &index(), &RouteOptions::default());
    assert_eq!(p.sections.len(), 17);
    assert_eq!(p.doc_type, "t");
    use Route::*;
    let o = Override::None;
    assert_eq!(route_of(&p, "0000"), (Llm, Some(Tier::VeryHigh), o));
    assert_eq!(route_of(&p, "0001"), (Noise, None, o));
    assert_eq!(route_of(&p, "0002"), (Empty, None, o));
    assert_eq!(route_of(&p, "0003"), (Llm, Some(Tier::VeryHigh), o));
    assert_eq!(route_of(&p, "0005"), (Llm, Some(Tier::High), o));
    assert_eq!(route_of(&p, "0006"), (Empty, None, o));
    assert_eq!(route_of(&p, "0007"), (Llm, None, o));
    assert_eq!(route_of(&p, "0008"), (Skip, Some(Tier::Low), o));
    assert_eq!(route_of(&p, "0009"), (Skip, Some(Tier::VeryLow), o));
    assert_eq!(route_of(&p, "0010"), (Llm, Some(Tier::VeryHigh), o));
    assert!(p.sections[11].matched.anchor || p.sections[10].matched.anchor);
    assert_eq!(route_of(&p, "0011"), (Skip, Some(Tier::VeryLow), o));
    assert_eq!(route_of(&p, "0012"), (Noise, None, o));
    assert_eq!(route_of(&p, "0013"), (Empty, None, o));
    // Inside an exhibit, unknown headings are part of the form; known ones
    // keep their own tier.
    assert_eq!(route_of(&p, "0015"), (Skip, Some(Tier::VeryLow), o));
    assert_eq!(route_of(&p, "0016"), (Llm, Some(Tier::VeryHigh), o));
    assert_eq!(route_of(&p, "0014"), (Llm, None, o));
    let new = p.sections.iter().find(|s| s.node_id == "0007").unwrap();
    assert_eq!(new.matched.method, MatchMethod::None);
}

#[test]
fn stats_add_up() {
    let p = plan(&tree(), &index(), &RouteOptions::default());
    let s = PlanStats::of(&p, None);
    let total: usize = tree().iter().map(|n| n.chars).sum();
    assert_eq!(s.chars_total, total);
    assert_eq!(
        s.chars_sent + s.chars_skipped + s.chars_noise + s.chars_empty,
        s.chars_total
    );
    assert_eq!(s.chars_skipped, 900 + 2500 + 8000 + 700);
    assert_eq!(s.chars_noise, 3000 + 1500);
    assert_eq!(s.routed_sections, 11);
    assert_eq!(s.by_tier.new, 2);
    assert!((s.new_section_pct - 200.0 / 11.0).abs() < 1e-9);
    let cut = 100.0 * (total - s.chars_sent) as f64 / total as f64;
    assert!((s.payload_cut_pct - cut).abs() < 1e-9);
    assert_eq!(s.est_input_tokens, (s.chars_sent as u64).div_ceil(4));
    let prices = Prices {
        input_per_million: 1.0,
        output_per_million: 4.0,
    };
    let b = PlanStats::sum([&s, &s], Some(&prices));
    assert_eq!(b.documents, 2);
    assert_eq!(b.chars_total, 2 * total);
    assert_eq!(
        b.chars_sent + b.chars_skipped + b.chars_noise + b.chars_empty,
        b.chars_total
    );
    assert!(b.est_cost_usd.unwrap() > 0.0);
}

#[test]
fn calibrate_sends_skipped_but_not_noise() {
    let opts = RouteOptions {
        calibrate: true,
        audit_rate: 0.0,
        content: false,
    };
    let p = plan(&tree(), &index(), &opts);
    assert_eq!(
        route_of(&p, "0008"),
        (Route::Llm, Some(Tier::Low), Override::Calibrate)
    );
    assert_eq!(route_of(&p, "0001").0, Route::Noise);
    let s = PlanStats::of(&p, None);
    assert_eq!((s.chars_skipped, s.calibrate_overrides), (0, 4));
}

#[test]
fn audit_sample_is_deterministic_and_near_its_rate() {
    let picked = (0..10_000)
        .filter(|i| audit_pick("doc-abc", &format!("{i:04}"), 0.1))
        .count();
    assert!((800..1200).contains(&picked), "{picked}");
    let again = (0..10_000)
        .filter(|i| audit_pick("doc-abc", &format!("{i:04}"), 0.1))
        .count();
    assert_eq!(picked, again);
    assert!(!audit_pick("d", "0001", 0.0));
    assert!(audit_pick("d", "0001", 1.0));
    let opts = RouteOptions {
        calibrate: false,
        audit_rate: 1.0,
        content: false,
    };
    let p = plan(&tree(), &index(), &opts);
    assert_eq!(
        route_of(&p, "0009"),
        (Route::Llm, Some(Tier::VeryLow), Override::Audit)
    );
}

const GUARANTY_INDEX: &str = "\
document_type: t
concepts:
  - [Guaranty, Guarantee, Guarantor]
medium:
  - title: Guaranty Waivers
    aliases: [Waivers by Guarantor]
very_low:
  - title: No Waivers
    aliases: [Waivers]
  - Exhibit
";

#[test]
fn parents_settle_an_ambiguous_title() {
    use NodeKind::*;
    let idx = GraphabilityIndex::from_yaml_str("g.yaml", GUARANTY_INDEX).unwrap();
    let t = doc(vec![
        node(
            "0001",
            "ARTICLE X GUARANTEE",
            Section,
            500,
            vec![node("0002", "Section 10.04 Waivers", Section, 2000, vec![])],
        ),
        node(
            "0003",
            "ARTICLE XI MISCELLANEOUS",
            Section,
            500,
            vec![node("0004", "Section 11.02 Waivers", Section, 900, vec![])],
        ),
    ]);
    let p = plan(&t, &idx, &RouteOptions::default());
    let by_id = |id: &str| p.sections.iter().find(|s| s.node_id == id).unwrap();
    let g = by_id("0002");
    assert_eq!(g.matched.entry.as_deref(), Some("Guaranty Waivers"));
    assert_eq!(
        (g.matched.method, g.route),
        (MatchMethod::Context, Route::Llm)
    );
    assert_eq!(g.matched.runner_up.as_deref(), Some("No Waivers"));
    let m = by_id("0004");
    assert_eq!(m.matched.entry.as_deref(), Some("No Waivers"));
    assert_eq!(m.route, Route::Skip);
}

#[test]
fn a_form_heading_is_a_form_wherever_it_sits() {
    use NodeKind::*;
    let idx = GraphabilityIndex::from_yaml_str("g.yaml", GUARANTY_INDEX).unwrap();
    let t = doc(vec![
        node(
            "0001",
            "SCHEDULE 4 FORM OF ISSUE NOTICE",
            Schedule,
            3000,
            vec![],
        ),
        node("0002", "SCHEDULE 5 PRICING GRID", Schedule, 3000, vec![]),
    ]);
    let p = plan(&t, &idx, &RouteOptions::default());
    assert_eq!(p.sections[0].matched.entry.as_deref(), Some("Exhibit"));
    assert_eq!(p.sections[0].route, Route::Skip);
    // Not a form and not known: new, sent.
    assert_eq!(
        (p.sections[1].predicted_tier, p.sections[1].route),
        (None, Route::Llm)
    );
}

#[test]
fn heading_name_drops_the_numbering_label() {
    let n = node(
        "0001",
        "SECTION 4.01.Representations and Warranties",
        NodeKind::Section,
        10,
        vec![],
    );
    assert_eq!(heading_name(&n), "Representations and Warranties");
}

/// A heading with children routes its own text only when it holds more
/// than a lead-in; its children are routed either way.
#[test]
fn a_lead_in_of_a_heading_with_children_is_not_sent() {
    use NodeKind::*;
    let child = || {
        node(
            "0002",
            "Section 7.1 Events of Default",
            Section,
            5000,
            vec![],
        )
    };
    let with_own = |own: usize| {
        doc(vec![node(
            "0001",
            "ARTICLE VII EVENTS OF DEFAULT",
            Section,
            own,
            vec![child()],
        )])
    };
    let opts = RouteOptions::default();
    let short = plan(&with_own(LEAD_IN_CHARS), &index(), &opts);
    assert_eq!(route_of(&short, "0001").0, Route::Empty);
    assert_eq!(route_of(&short, "0002").0, Route::Llm);
    let long = plan(&with_own(LEAD_IN_CHARS + 1), &index(), &opts);
    assert_eq!(route_of(&long, "0001").0, Route::Llm);
    // Without children the same short text is a section of its own.
    let mut alone = with_own(LEAD_IN_CHARS);
    alone.structure[0].nodes.clear();
    assert_eq!(
        route_of(&plan(&alone, &index(), &opts), "0001").0,
        Route::Llm
    );
}

/// `[Reserved]` read from a text with the next clause run into it is a
/// section with text (new, sent); alone it routes nowhere.
#[test]
fn a_reserved_heading_holding_the_next_clause_is_sent() {
    let mut reserved = node("0001", "17. [RESERVED.]", NodeKind::Section, 1500, vec![]);
    reserved.end_byte = 1500;
    let p = plan(
        &doc(vec![reserved.clone()]),
        &index(),
        &RouteOptions::default(),
    );
    assert_eq!(route_of(&p, "0001").0, Route::Llm);
    reserved.chars = 30;
    reserved.end_byte = 30;
    let p = plan(&doc(vec![reserved]), &index(), &RouteOptions::default());
    assert_eq!(route_of(&p, "0001").0, Route::Empty);
}

/// An exhibit heading that opens the document (the filing's exhibit
/// letter over the agreement) is not an attachment: its unknown title is
/// new and sent; the same heading after the body is an exhibit, skipped.
#[test]
fn an_exhibit_that_opens_the_document_is_the_document() {
    let exhibit = || {
        node(
            "0001",
            "EXHIBIT D JOINT FILING STATEMENT",
            NodeKind::Exhibit,
            3000,
            vec![],
        )
    };
    let opts = RouteOptions::default();
    let alone = doc(vec![
        node("0000", "Preamble", NodeKind::Preamble, 200, vec![]),
        exhibit(),
    ]);
    let p = plan(&alone, &index(), &opts);
    assert_eq!(route_of(&p, "0001"), (Route::Llm, None, Override::None));
    let after = doc(vec![
        node(
            "0002",
            "Section 5.01 Liens; Negative Pledge",
            NodeKind::Section,
            5000,
            vec![],
        ),
        exhibit(),
    ]);
    let p = plan(&after, &index(), &opts);
    assert_eq!(route_of(&p, "0001").0, Route::Skip);
}

/// An exhibit that is an agreement of its own (its own parties and
/// clauses) is read like any new section, and so are its unknown headings;
/// a blank form of an agreement and a reference to the main agreement
/// stay exhibits, skipped.
#[test]
fn an_exhibit_that_is_an_agreement_of_its_own_is_sent() {
    use NodeKind::*;
    let t = doc(vec![
        node("0001", "Section 5.01 Liens", Section, 5000, vec![]),
        node(
            "0002",
            "EXHIBIT A OWNER AGREEMENT",
            Exhibit,
            3000,
            vec![node("0003", "1. Personal Guaranty", Section, 900, vec![])],
        ),
        node("0004", "EXHIBIT C ADDENDUM TO LEASE", Exhibit, 2000, vec![]),
        node(
            "0005",
            "EXHIBIT D FORM OF GUARANTY AGREEMENT",
            Exhibit,
            2000,
            vec![],
        ),
        node(
            "0006",
            "EXHIBIT 4 TO AGREEMENT BETWEEN ACME AND BETA",
            Exhibit,
            2000,
            vec![],
        ),
    ]);
    let p = plan(&t, &index(), &RouteOptions::default());
    for id in ["0002", "0003", "0004"] {
        assert_eq!(route_of(&p, id), (Route::Llm, None, Override::None), "{id}");
    }
    for id in ["0005", "0006"] {
        assert_eq!(
            route_of(&p, id),
            (Route::Skip, Some(Tier::VeryLow), Override::None),
            "{id}"
        );
    }
    assert!(names_agreement("TRUST AGREEMENT - FULL LIABILITY"));
    assert!(!names_agreement("CATEGORIES OF LABORATORY PRODUCTS"));
}

const FORMS_INDEX: &str = "\
document_type: t
medium:
  - Exhibit
very_low:
  - Forms
";

/// A type whose exhibits carry the deal sends its `Exhibit` entry and
/// still skips blank forms, and the headings inside them, by `Forms`.
#[test]
fn a_forms_entry_takes_blank_forms_when_exhibits_are_sent() {
    use NodeKind::*;
    let idx = GraphabilityIndex::from_yaml_str("f.yaml", FORMS_INDEX).unwrap();
    let t = doc(vec![
        node("0001", "Section 1 Services", Section, 5000, vec![]),
        node(
            "0002",
            "EXHIBIT A PRODUCT LIST",
            Exhibit,
            3000,
            vec![node("0003", "Prices", Section, 900, vec![])],
        ),
        node(
            "0004",
            "EXHIBIT B FORM OF PURCHASE ORDER",
            Exhibit,
            2000,
            vec![node("0005", "Instructions", Section, 900, vec![])],
        ),
    ]);
    let p = plan(&t, &idx, &RouteOptions::default());
    let entry = |id: &str| {
        let s = p.sections.iter().find(|s| s.node_id == id).unwrap();
        (s.matched.entry.clone().unwrap_or_default(), s.route)
    };
    assert_eq!(entry("0002"), ("Exhibit".into(), Route::Llm));
    assert_eq!(entry("0003"), ("Exhibit".into(), Route::Llm));
    assert_eq!(entry("0004"), ("Forms".into(), Route::Skip));
    assert_eq!(entry("0005"), ("Forms".into(), Route::Skip));
}
