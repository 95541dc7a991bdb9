//! Hand-built plans and extractions for the report unit tests.

use crate::extract::{Entity, Relation, SectionExtraction, SectionStatus};
use crate::index::{MatchMethod, Tier, TitleMatch};
use crate::route::{Override, Route, RoutedSection};
use crate::tree::NodeKind;

pub fn section(
    node_id: &str,
    title: &str,
    predicted: Option<Tier>,
    route: Route,
    chars: usize,
) -> RoutedSection {
    // Label and name as the tree stage parses them.
    let (label, name) = crate::tree::split_heading(title);
    RoutedSection {
        node_id: node_id.into(),
        title: title.into(),
        label,
        name,
        breadcrumb: format!("Agreement > {title}"),
        kind: NodeKind::Section,
        level: 2,
        start_line: 10,
        end_line: 20,
        start_byte: 0,
        end_byte: 0,
        chars,
        matched: TitleMatch {
            entry: predicted.map(|_| crate::report::display_title(title)),
            method: if predicted.is_some() {
                MatchMethod::Exact
            } else {
                MatchMethod::None
            },
            score: if predicted.is_some() { 1.0 } else { 0.0 },
            tier: predicted,
            anchor: false,
            noise: route == Route::Noise,
            reserved: false,
            runner_up: None,
            runner_up_score: 0.0,
        },
        predicted_tier: predicted,
        route,
        override_reason: Override::None,
        paragraphs: Vec::new(),
    }
}

pub fn extraction(node_id: &str, actual: Tier, relations: usize) -> SectionExtraction {
    SectionExtraction {
        doc_id: "doc".into(),
        node_id: node_id.into(),
        entities: vec![
            Entity {
                name: "Borrower".into(),
                entity_type: "Party".into(),
                aliases: vec![],
                description: String::new(),
            },
            Entity {
                name: "Lender".into(),
                entity_type: "Party".into(),
                aliases: vec![],
                description: String::new(),
            },
        ],
        relations: (0..relations)
            .map(|i| Relation {
                source: "Borrower".into(),
                relation_type: "BORROWS_FROM".into(),
                target: format!("Lender {i}"),
                evidence: String::new(),
                reading: None,
            })
            .collect(),
        pruned: vec![],
        candidates: vec![],
        ends_added: vec![],
        model_tier: Some(actual),
        model_why: None,
        density_tier: actual,
        actual_tier: actual,
        tokens_in: 1000,
        tokens_out: 200,
        tokens_cached: 0,
        extractor: "rules".into(),
        status: SectionStatus::Ok,
    }
}
