//! Benchmark: Neo4j write throughput, batched `UNWIND` writer vs one
//! statement per row, on the same synthetic document graph, in one run.
//!
//! Needs a running server (`scripts/neo4j start`; `NEO4J_URI`,
//! `NEO4J_USERNAME`, `NEO4J_PASSWORD` override the defaults). Run with
//! `cargo bench --bench neo4j_write`: 20,000 relations batched and 1,000 one
//! statement at a time (two baselines: the same writer with one row per
//! statement inside the document's transaction, and a naive client sending
//! one auto-committed MERGE statement per relation), then prints relations/s
//! and the ratios
//! (targets: >= 20k relations/s batched, >= 30x). Not a criterion bench: one
//! write of 20k relations is the measurement, and the ratio needs both
//! numbers in the same process. Under `cargo test --benches` it runs a small
//! smoke version.

use kgroute::extract::{Entity, Relation, SectionExtraction, SectionStatus};
use kgroute::graph::{build_document_graph, DocGraph, DocumentMeta};
use kgroute::index::{Ontology, Tier, TitleMatch};
use kgroute::route::{Override, Route, RoutePlan, RoutedSection};
use kgroute::sink::{GraphSink, Neo4jSink, Secret};
use kgroute::tree::NodeKind;
use std::collections::HashMap;
use std::time::{Duration, Instant};

const TYPES: [&str; 5] = ["ROLE_OF", "OWES", "REFERENCES", "GUARANTEES", "PART_OF"];
/// Entities per section; each links to the next `FANOUT` of its section.
const PER_SECTION: usize = 100;
const FANOUT: usize = 10;

fn ontology() -> Ontology {
    let mut o = Ontology::default();
    o.entity_types
        .insert("DefinedTerm".into(), "a defined term".into());
    for t in TYPES {
        o.relation_types.insert(t.into(), t.into());
    }
    o
}

/// A document of `sections` sections, `PER_SECTION * FANOUT` relations each.
fn synthetic(doc_id: &str, sections: usize) -> DocGraph {
    let mut plan = RoutePlan {
        doc_id: doc_id.into(),
        doc_name: format!("{doc_id}.md"),
        doc_type: "credit_agreement".into(),
        doc_type_confidence: 1.0,
        sections: vec![],
        tree_health: Default::default(),
    };
    let mut extractions = vec![];
    for s in 0..sections {
        let node_id = format!("{:04}", s + 1);
        plan.sections.push(RoutedSection {
            node_id: node_id.clone(),
            title: format!("Section {s}"),
            label: None,
            name: format!("Section {s}"),
            breadcrumb: format!("Agreement > Section {s}"),
            kind: NodeKind::Section,
            level: 1,
            start_line: s * 100 + 1,
            end_line: s * 100 + 100,
            start_byte: 0,
            end_byte: 0,
            chars: 7_000,
            matched: TitleMatch::unmatched(),
            predicted_tier: None,
            route: Route::Llm,
            override_reason: Override::None,
            paragraphs: Vec::new(),
        });
        let name = |j: usize| format!("Term {s}-{}", j % PER_SECTION);
        let entities = (0..PER_SECTION)
            .map(|j| Entity {
                name: name(j),
                entity_type: "DefinedTerm".into(),
                aliases: vec![],
                description: String::new(),
            })
            .collect();
        let relations = (0..PER_SECTION)
            .flat_map(|j| {
                (1..=FANOUT).map(move |k| Relation {
                    source: name(j),
                    relation_type: TYPES[(j + k) % TYPES.len()].into(),
                    target: name(j + k),
                    evidence: format!("clause {j}.{k} of section {s}"),
                    reading: None,
                })
            })
            .collect();
        extractions.push(SectionExtraction {
            doc_id: doc_id.into(),
            node_id,
            entities,
            relations,
            pruned: vec![],
            ends_added: vec![],
            candidates: vec![],
            model_tier: None,
            model_why: None,
            density_tier: Tier::VeryHigh,
            actual_tier: Tier::VeryHigh,
            tokens_in: 0,
            tokens_out: 0,
            tokens_cached: 0,
            extractor: "rules".into(),
            status: SectionStatus::Ok,
        });
    }
    let meta = DocumentMeta {
        doc_id: doc_id.into(),
        name: format!("{doc_id}.md"),
        doc_type: "credit_agreement".into(),
        sha256: "0".repeat(64),
        path: format!("/bench/{doc_id}.md").into(),
    };
    build_document_graph(&meta, &plan, &HashMap::new(), &extractions, &ontology())
}

/// The naive client the batched writer replaces: one auto-committed
/// statement per relation, merging both endpoints each time.
async fn timed_naive(sink: &Neo4jSink, g: &DocGraph) -> Duration {
    let t = Instant::now();
    for (a, e, b) in g.relations() {
        let p = &e.provenance[0];
        let stmt = format!(
            "MERGE (a:Entity {{key: $src}}) ON CREATE SET a.name = $src_name, a.doc_id = $doc_id \
             MERGE (b:Entity {{key: $dst}}) ON CREATE SET b.name = $dst_name, b.doc_id = $doc_id \
             CREATE (a)-[:`{}` {{doc_id: $doc_id, node_id: $node_id, evidence: $evidence}}]->(b)",
            e.rel_type
        );
        sink.graph()
            .run(
                neo4rs::query(&stmt)
                    .param("src", a.key.as_str())
                    .param("src_name", a.name.as_str())
                    .param("dst", b.key.as_str())
                    .param("dst_name", b.name.as_str())
                    .param("doc_id", g.doc_id())
                    .param("node_id", p.node_id.as_str())
                    .param("evidence", p.evidence.as_str()),
            )
            .await
            .expect("naive write");
    }
    let d = t.elapsed();
    sink.delete_document(g.doc_id()).await.expect("clean up");
    sink.graph()
        .run(neo4rs::query("MATCH (e:Entity {doc_id: $d}) DETACH DELETE e").param("d", g.doc_id()))
        .await
        .expect("clean up");
    d
}

async fn timed_write(sink: &mut Neo4jSink, g: &DocGraph) -> Duration {
    let t = Instant::now();
    sink.write_document(g).await.expect("write document");
    let d = t.elapsed();
    sink.delete_document(g.doc_id()).await.expect("clean up");
    d
}

#[tokio::main]
async fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (batched_sections, single_sections) = if full { (20, 1) } else { (2, 1) };
    // This checkout's own server (`scripts/neo4j start` keeps its port in .neo4j/port).
    let uri = std::env::var("NEO4J_URI").unwrap_or_else(|_| {
        let port = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.neo4j/port"))
            .ok()
            .and_then(|p| p.trim().parse::<u16>().ok())
            .unwrap_or(7687);
        format!("bolt://127.0.0.1:{port}")
    });
    let user = std::env::var("NEO4J_USERNAME").unwrap_or_else(|_| "neo4j".into());
    let password = Secret::new(std::env::var("NEO4J_PASSWORD").unwrap_or_default());
    let mut sink = Neo4jSink::connect_default(&uri, &user, &password)
        .await
        .unwrap_or_else(|e| panic!("{e:#}\nstart a local server with: scripts/neo4j start"));

    let pid = std::process::id();
    let t = Instant::now();
    let batched = synthetic(&format!("bench-batched-{pid}"), batched_sections);
    let build = t.elapsed();
    let single = synthetic(&format!("bench-single-{pid}"), single_sections);
    let rel_b = batched.counts().relations;
    let rel_s = single.counts().relations;
    assert_eq!(rel_b, batched_sections * PER_SECTION * FANOUT);

    // Warm the server (query plans, JIT) with one untimed write of the same
    // size, batched and single.
    let warm = synthetic(&format!("bench-warm-{pid}"), batched_sections);
    timed_write(&mut sink, &warm).await;
    sink.set_batch_size(1);
    timed_write(&mut sink, &synthetic(&format!("bench-warm1-{pid}"), 1)).await;
    sink.set_batch_size(kgroute::sink::DEFAULT_BATCH_SIZE);

    let d_batched = timed_write(&mut sink, &batched).await;
    sink.set_batch_size(1);
    let d_single = timed_write(&mut sink, &single).await;
    let naive = synthetic(&format!("bench-naive-{pid}"), single_sections);
    let d_naive = timed_naive(&sink, &naive).await;

    let rate = |n: usize, d: Duration| n as f64 / d.as_secs_f64();
    let (rb, rs) = (rate(rel_b, d_batched), rate(rel_s, d_single));
    println!("neo4j_write: in-memory graph of {rel_b} relations built in {build:.2?}");
    println!(
        "neo4j_write: batched ({} rows/statement): {rel_b} relations in {d_batched:.2?} = {rb:.0} relations/s",
        kgroute::sink::DEFAULT_BATCH_SIZE
    );
    println!("neo4j_write: one statement per row: {rel_s} relations in {d_single:.2?} = {rs:.0} relations/s");
    let rn = rate(naive.counts().relations, d_naive);
    println!(
        "neo4j_write: naive client, one auto-committed MERGE statement per relation: {} relations in {d_naive:.2?} = {rn:.0} relations/s",
        naive.counts().relations
    );
    println!(
        "neo4j_write: ratio {:.1}x vs one statement per row in one transaction, {:.1}x vs the naive client (targets: >= 30x, >= 20000 relations/s batched)",
        rb / rs,
        rb / rn
    );
}
