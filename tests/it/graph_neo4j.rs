//! Graph stage and sinks against a real Neo4j (start one with
//! `scripts/neo4j start`; `NEO4J_URI`, `NEO4J_USERNAME`, `NEO4J_PASSWORD`
//! override the defaults). The plans and extractions are built by hand here
//! until the tree/route/extract stages are merged; `ingest_graph` is the one
//! path a test needs to write any `DocGraph`, so the Emerson end-to-end test
//! only has to build its graph with the real stages and call it.
//!
//! Every test uses its own doc ids and cleans up, so tests run in parallel on
//! one database; counts are always taken per doc id.

use kgroute::extract::{Entity, Relation, SectionExtraction, SectionStatus};
use kgroute::graph::{build_document_graph, DocGraph, DocumentMeta, GraphCounts};
use kgroute::index::{MatchMethod, Ontology, Tier, TitleMatch};
use kgroute::route::{Override, Route, RoutePlan, RoutedSection};
use kgroute::sink::{open_sink, GraphSink, Neo4jSink, Secret, SinkConfig, WriteStats};
use kgroute::tree::NodeKind;
use neo4rs::{query, Graph};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

// ---------- hand-built stage inputs ----------

const HOSTILE: [&str; 4] = [
    "The \"Agent's\" Fee",
    "back`tick` Term",
    "x})-[:X]->(y) DETACH DELETE y //",
    "Multi\nLine\r\nTerm",
];

fn ontology() -> Ontology {
    let mut o = Ontology::default();
    for t in [
        "Organization",
        "Person",
        "Jurisdiction",
        "DefinedTerm",
        "Role",
        "Obligation",
        "Amount",
    ] {
        o.entity_types.insert(t.into(), format!("a {t}"));
    }
    for t in [
        "ROLE_OF",
        "GUARANTEES",
        "OWES",
        "REFERENCES",
        "GOVERNED_BY",
        "LENDS_TO",
    ] {
        o.relation_types.insert(t.into(), format!("a {t} edge"));
    }
    o
}

/// A unique doc id for this test process and call.
fn doc_id(tag: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!(
        "it-{tag}-{}-{nanos}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

fn section(
    node_id: &str,
    title: &str,
    tier: Option<Tier>,
    route: Route,
    lines: (usize, usize),
) -> RoutedSection {
    RoutedSection {
        node_id: node_id.into(),
        title: title.into(),
        label: None,
        name: title.into(),
        breadcrumb: format!("Credit Agreement > {title}"),
        kind: NodeKind::Section,
        level: if node_id == "0001" { 1 } else { 2 },
        start_line: lines.0,
        end_line: lines.1,
        start_byte: 0,
        end_byte: 0,
        chars: (lines.1 - lines.0 + 1) * 70,
        matched: TitleMatch {
            entry: tier.map(|_| title.to_string()),
            method: if tier.is_some() {
                MatchMethod::Exact
            } else {
                MatchMethod::None
            },
            score: if tier.is_some() { 1.0 } else { 0.0 },
            tier,
            anchor: false,
            noise: false,
            reserved: false,
            runner_up: None,
            runner_up_score: 0.0,
        },
        predicted_tier: tier,
        route,
        override_reason: Override::None,
        paragraphs: Vec::new(),
    }
}

fn plan(doc: &str) -> RoutePlan {
    RoutePlan {
        doc_id: doc.into(),
        doc_name: format!("{doc}.md"),
        doc_type: "credit_agreement".into(),
        doc_type_confidence: 1.0,
        sections: vec![
            section("0001", "ARTICLE I Definitions", None, Route::Empty, (1, 2)),
            section(
                "0002",
                "Section 1.01 Definitions",
                Some(Tier::VeryHigh),
                Route::Llm,
                (3, 90),
            ),
            section(
                "0003",
                "Section 2.01 The Facility",
                Some(Tier::High),
                Route::Llm,
                (91, 140),
            ),
            section(
                "0004",
                "Section 6.01 Guaranty",
                None,
                Route::Llm,
                (141, 170),
            ),
            section(
                "0005",
                "Section 9.09 Governing Law",
                Some(Tier::VeryLow),
                Route::Skip,
                (171, 175),
            ),
        ],
        tree_health: Default::default(),
    }
}

fn parents() -> HashMap<String, String> {
    ["0002", "0003", "0004", "0005"]
        .into_iter()
        .map(|n| (n.to_string(), "0001".to_string()))
        .collect()
}

fn ent(name: &str, t: &str, aliases: &[&str]) -> Entity {
    Entity {
        name: name.into(),
        entity_type: t.into(),
        aliases: aliases.iter().map(|a| a.to_string()).collect(),
        description: String::new(),
    }
}

fn rel(s: &str, t: &str, d: &str, ev: &str) -> Relation {
    Relation {
        source: s.into(),
        relation_type: t.into(),
        target: d.into(),
        evidence: ev.into(),
        reading: None,
    }
}

fn extraction(
    doc: &str,
    node: &str,
    entities: Vec<Entity>,
    relations: Vec<Relation>,
) -> SectionExtraction {
    SectionExtraction {
        doc_id: doc.into(),
        node_id: node.into(),
        entities,
        relations,
        pruned: vec![],
        ends_added: vec![],
        candidates: vec![],
        model_tier: None,
        model_why: None,
        density_tier: Tier::High,
        actual_tier: Tier::High,
        tokens_in: 0,
        tokens_out: 0,
        tokens_cached: 0,
        extractor: "rules".into(),
        status: SectionStatus::Ok,
    }
}

/// A credit agreement between `company` (the Borrower) and JPMorgan (the
/// agent), with hostile defined terms and one off-ontology relation.
/// `edited` changes the Facility section: a different lender and amount.
fn extractions(doc: &str, company: &str, bank: &str, edited: bool) -> Vec<SectionExtraction> {
    let mut defs_entities = vec![
        ent(company, "Organization", &["the Company"]),
        ent("Borrower", "Role", &[]),
        ent(bank, "Organization", &["JPMorgan", "JPMCB"]),
        ent("Administrative Agent", "Role", &[]),
        ent("Obligations", "DefinedTerm", &[]),
    ];
    defs_entities.extend(HOSTILE.iter().map(|h| ent(h, "DefinedTerm", &[])));
    let mut defs_relations = vec![
        rel(
            "Borrower",
            "ROLE_OF",
            company,
            "\"Borrower\" means the Company",
        ),
        rel(
            "Administrative Agent",
            "ROLE_OF",
            "JPMorgan",
            "JPMorgan, as Administrative Agent",
        ),
        rel(
            "Borrower",
            "OWES",
            "Obligations",
            "the Borrower shall pay the Obligations",
        ),
        rel(
            "Borrower",
            "HACKS]->(x) DETACH DELETE x //",
            "Obligations",
            "off-ontology",
        ),
        rel("Borrower", "OWNS_SECRETLY", company, "off-ontology"),
    ];
    defs_relations.extend(HOSTILE.iter().map(|h| {
        rel(
            h,
            "REFERENCES",
            "Obligations",
            "hostile \"evidence\" `x` })-[:Y]->(",
        )
    }));
    let (lender, amount) = if edited {
        ("Bank of America, N.A.", "$4,000,000,000")
    } else {
        (bank, "$3,500,000,000")
    };
    vec![
        extraction(doc, "0002", defs_entities, defs_relations),
        extraction(
            doc,
            "0003",
            vec![
                ent(lender, "Organization", &[]),
                ent("the Company", "Organization", &[]),
                ent(amount, "Amount", &[]),
                ent("Borrower", "Role", &[]),
            ],
            vec![
                rel(
                    lender,
                    "LENDS_TO",
                    "Borrower",
                    "each Lender agrees to make Advances",
                ),
                rel("Borrower", "OWES", amount, "aggregate Commitments"),
            ],
        ),
        extraction(
            doc,
            "0004",
            vec![
                ent(company, "Organization", &[]),
                ent("Obligations", "DefinedTerm", &[]),
                ent("Borrower", "Role", &[]),
            ],
            vec![
                rel(
                    company,
                    "GUARANTEES",
                    "Obligations",
                    "the Company guarantees the Obligations",
                ),
                // Same relation again: one edge, two provenances.
                rel(
                    "Borrower",
                    "OWES",
                    "Obligations",
                    "as set out in Section 6.01",
                ),
            ],
        ),
    ]
}

fn meta(doc: &str) -> DocumentMeta {
    DocumentMeta {
        doc_id: doc.into(),
        name: format!("{doc}.md"),
        doc_type: "credit_agreement".into(),
        sha256: "0".repeat(64),
        path: format!("/corpus/{doc}.md").into(),
    }
}

fn doc_graph(doc: &str, company: &str, bank: &str, edited: bool) -> DocGraph {
    build_document_graph(
        &meta(doc),
        &plan(doc),
        &parents(),
        &extractions(doc, company, bank, edited),
        &ontology(),
    )
}

// ---------- real Neo4j helpers ----------

pub(super) fn neo4j_env() -> (String, String, Secret) {
    let uri = std::env::var("NEO4J_URI").unwrap_or_else(|_| checkout_neo4j_uri());
    let user = std::env::var("NEO4J_USERNAME").unwrap_or_else(|_| "neo4j".into());
    let password = Secret::new(std::env::var("NEO4J_PASSWORD").unwrap_or_default());
    (uri, user, password)
}

/// The Bolt URI of this checkout's own server: `scripts/neo4j start` keeps
/// its port in `.neo4j/port` (each checkout has its own), 7687 before it
/// ever ran.
pub(super) fn checkout_neo4j_uri() -> String {
    let port_file = super::util::repo().join(".neo4j").join("port");
    let port = std::fs::read_to_string(port_file)
        .ok()
        .and_then(|p| p.trim().parse::<u16>().ok())
        .unwrap_or(7687);
    format!("bolt://127.0.0.1:{port}")
}

/// Connects to the test server or fails the test (never skips).
pub(super) async fn connect() -> Neo4jSink {
    let (uri, user, password) = neo4j_env();
    match Neo4jSink::connect_default(&uri, &user, &password).await {
        Ok(s) => s,
        Err(e) if std::env::var_os("CI").is_some() => {
            panic!("CI: Neo4j must be running for these tests: {e:#}")
        }
        Err(e) => panic!("{e:#}\nstart a local server with: scripts/neo4j start"),
    }
}

/// Writes `graph` to the test server; the path every end-to-end test uses.
async fn ingest_graph(graph: &DocGraph) -> (Neo4jSink, WriteStats) {
    let mut sink = connect().await;
    let stats = sink.write_document(graph).await.expect("write document");
    (sink, stats)
}

async fn count(g: &Graph, cypher: &str, doc: &str) -> usize {
    let mut rows = g
        .execute(query(cypher).param("doc_id", doc))
        .await
        .unwrap_or_else(|e| panic!("{cypher}: {e}"));
    let row = rows.next().await.unwrap().expect("one row");
    row.get::<i64>("n").unwrap() as usize
}

/// What the database holds for one document.
pub(super) async fn db_counts(g: &Graph, doc: &str) -> GraphCounts {
    GraphCounts {
        sections: count(
            g,
            "MATCH (s:Section {doc_id: $doc_id})-[:IN_DOCUMENT]->(:Document {doc_id: $doc_id}) RETURN count(s) AS n",
            doc,
        )
        .await,
        entities: count(
            g,
            "MATCH (e:Entity)-[:MENTIONED_IN]->(:Section {doc_id: $doc_id}) RETURN count(DISTINCT e) AS n",
            doc,
        )
        .await,
        relations: count(
            g,
            "MATCH (:Section {doc_id: $doc_id})<-[:MENTIONED_IN]-(a:Entity) WITH DISTINCT a \
             MATCH (a)-[r]->(:Entity) WHERE r.doc_id = $doc_id RETURN count(r) AS n",
            doc,
        )
        .await,
        mentions: count(
            g,
            "MATCH (:Entity)-[m:MENTIONED_IN]->(:Section {doc_id: $doc_id}) RETURN count(m) AS n",
            doc,
        )
        .await,
        dropped: 0,
    }
}

fn without_dropped(c: GraphCounts) -> GraphCounts {
    GraphCounts { dropped: 0, ..c }
}

async fn names_of(g: &Graph, doc: &str) -> Vec<String> {
    let mut rows = g
        .execute(
            query("MATCH (e:Entity)-[:MENTIONED_IN]->(:Section {doc_id: $doc_id}) RETURN DISTINCT e.name AS name")
                .param("doc_id", doc),
        )
        .await
        .unwrap();
    let mut out = Vec::new();
    while let Some(r) = rows.next().await.unwrap() {
        out.push(r.get::<String>("name").unwrap());
    }
    out.sort();
    out
}

// ---------- in-memory graph ----------

#[test]
fn graph_resolves_identities_and_dedups_relations() {
    let g = doc_graph(
        "d1",
        "Emerson Electric Co.",
        "JPMorgan Chase Bank, N.A.",
        false,
    );
    let c = g.counts();
    assert_eq!(c.sections, 5);
    // company, Borrower, bank, Administrative Agent, Obligations, 4 hostile,
    // the amount ("the Company" is an alias of the company).
    assert_eq!(
        c.entities,
        10,
        "{:#?}",
        g.entities().map(|e| &e.key).collect::<Vec<_>>()
    );
    let company = g
        .entity("organization:emerson electric co")
        .expect("company");
    assert!(company.aliases.contains("the Company"));
    assert_eq!(company.mentions.len(), 3);
    assert_eq!(
        g.entity("d1/role:borrower").unwrap().doc_id.as_deref(),
        Some("d1")
    );
    assert!(g
        .entity("organization:jpmorgan chase bank")
        .unwrap()
        .doc_id
        .is_none());
    // Two off-ontology relations dropped, with reasons naming the type.
    let dropped: Vec<_> = g.dropped.iter().filter(|d| d.item == "relation").collect();
    assert_eq!(dropped.len(), 2, "{dropped:#?}");
    assert!(dropped.iter().any(|d| d.reason.contains("OWNS_SECRETLY")));
    assert!(g
        .relations()
        .all(|(_, e, _)| ontology().relation_types.contains_key(&e.rel_type)));
    // Borrower OWES Obligations: found twice, kept once with both places.
    let owes: Vec<_> = g
        .relations()
        .filter(|(a, e, b)| a.name == "Borrower" && e.rel_type == "OWES" && b.name == "Obligations")
        .collect();
    assert_eq!(owes.len(), 1);
    let nodes: Vec<_> = owes[0]
        .1
        .provenance
        .iter()
        .map(|p| p.node_id.as_str())
        .collect();
    assert_eq!(nodes, ["0002", "0004"]);
    // ROLE_OF resolved through the alias "JPMorgan".
    assert!(g
        .relations()
        .any(|(a, e, b)| a.name == "Administrative Agent"
            && e.rel_type == "ROLE_OF"
            && b.key == "organization:jpmorgan chase bank"));
    assert_eq!(c.relations, 2 + 1 + HOSTILE.len() + 2 + 1);
    let facility = g.sections.iter().find(|s| s.node_id == "0003").unwrap();
    assert_eq!(facility.parent_uid.as_deref(), Some("d1#0001"));
    assert_eq!(facility.actual_tier, Some(Tier::High));
    assert_eq!(
        g.sections
            .iter()
            .find(|s| s.node_id == "0005")
            .unwrap()
            .actual_tier,
        None
    );
}

#[test]
fn variant_spellings_of_a_bank_are_one_node() {
    let d = "d2";
    let ex = vec![extraction(
        d,
        "0002",
        vec![
            ent("JPMorgan Chase Bank, N.A.", "Organization", &[]),
            ent("JPMORGAN  CHASE BANK N.A", "Organization", &[]),
        ],
        vec![],
    )];
    let g = build_document_graph(&meta(d), &plan(d), &parents(), &ex, &ontology());
    assert_eq!(g.counts().entities, 1);
    assert!(g
        .entities()
        .next()
        .unwrap()
        .aliases
        .contains("JPMORGAN  CHASE BANK N.A"));
}

// ---------- offline files ----------

#[tokio::test]
async fn file_sink_writes_import_files() {
    let dir = kgroute_tmp();
    let mut sink = open_sink(&SinkConfig::Files {
        dir: dir.path().to_path_buf(),
        import_files: true,
    })
    .await
    .unwrap();
    assert!(sink.describe().contains("no Neo4j configured"));
    let a = doc_graph(
        "fa",
        "Emerson Electric Co.",
        "JPMorgan Chase Bank, N.A.",
        false,
    );
    let b = doc_graph(
        "fb",
        "Texas Roadhouse, Inc.",
        "JPMORGAN CHASE BANK, N.A.",
        false,
    );
    sink.write_document(&a).await.unwrap();
    sink.write_document(&b).await.unwrap();
    assert!(
        sink.write_document(&a).await.is_err(),
        "same doc twice must fail"
    );
    sink.finish().await.unwrap();

    let mut nodes = csv::Reader::from_path(dir.path().join("nodes.csv")).unwrap();
    assert_eq!(nodes.headers().unwrap().get(0), Some(":ID"));
    assert_eq!(nodes.headers().unwrap().get(1), Some(":LABEL"));
    let rows: Vec<csv::StringRecord> = nodes.records().map(|r| r.unwrap()).collect();
    let ids: Vec<&str> = rows.iter().map(|r| r.get(0).unwrap()).collect();
    let unique: std::collections::HashSet<&str> = ids.iter().copied().collect();
    assert_eq!(
        unique.len(),
        ids.len(),
        "node ids must be unique for neo4j-admin"
    );
    // The bank once, the Borrower twice (one per document).
    assert_eq!(ids.iter().filter(|i| i.contains("jpmorgan")).count(), 1);
    assert_eq!(
        ids.iter().filter(|i| i.ends_with("role:borrower")).count(),
        2
    );
    let expected_nodes =
        2 + a.counts().sections + b.counts().sections + a.counts().entities + b.counts().entities
            - 1;
    assert_eq!(rows.len(), expected_nodes);
    // Hostile names survive the CSV round trip literally.
    for h in HOSTILE {
        assert!(
            rows.iter().any(|r| r.get(3) == Some(h)),
            "{h:?} not stored literally"
        );
    }

    let mut rels = csv::Reader::from_path(dir.path().join("relationships.csv")).unwrap();
    assert_eq!(
        rels.headers().unwrap().iter().take(3).collect::<Vec<_>>(),
        [":START_ID", ":END_ID", ":TYPE"]
    );
    let rel_rows: Vec<csv::StringRecord> = rels.records().map(|r| r.unwrap()).collect();
    for r in &rel_rows {
        assert!(
            unique.contains(r.get(0).unwrap()) && unique.contains(r.get(1).unwrap()),
            "dangling {r:?}"
        );
        assert!(!r.get(2).unwrap().contains("HACKS") && r.get(2) != Some("OWNS_SECRETLY"));
    }
    let typed = rel_rows
        .iter()
        .filter(|r| !["IN_DOCUMENT", "CHILD_OF", "MENTIONED_IN"].contains(&r.get(2).unwrap()))
        .count();
    assert_eq!(typed, a.counts().relations + b.counts().relations);

    let mut lines = Vec::new();
    kgroute::sink::parts::each_line(dir.path(), |l| {
        lines.push(l.to_string());
        Ok(())
    })
    .unwrap();
    assert!(
        !dir.path().join("graph.jsonl").exists(),
        "the lines are kept once, in the parts"
    );
    let kinds: Vec<String> = lines
        .iter()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(kinds.iter().filter(|k| *k == "document").count(), 2);
    assert_eq!(kinds.iter().filter(|k| *k == "relation").count(), typed);
}

/// Loads the offline sink's files with the real `neo4j-admin database
/// import full` of Neo4j 5.26 (the `AdminTool` from the launcher's Maven
/// classpath, built by `scripts/neo4j start`) into a throw-away home.
#[tokio::test]
async fn file_sink_output_loads_with_neo4j_admin_import() {
    let server = super::util::repo().join("scripts/neo4j-server/target");
    let classpath = std::fs::read_to_string(server.join("classpath.txt")).unwrap_or_else(|e| {
        panic!("{e}: the Neo4j launcher is not built; run scripts/neo4j start")
    });
    let dir = kgroute_tmp();
    let out = dir.path().join("import");
    let mut sink = open_sink(&SinkConfig::Files {
        dir: out.clone(),
        import_files: true,
    })
    .await
    .unwrap();
    let a = doc_graph(
        "ia",
        "Emerson Electric Co.",
        "JPMorgan Chase Bank, N.A.",
        false,
    );
    let b = doc_graph(
        "ib",
        "Texas Roadhouse, Inc.",
        "JPMORGAN CHASE BANK, N.A.",
        true,
    );
    sink.write_document(&a).await.unwrap();
    sink.write_document(&b).await.unwrap();
    sink.finish().await.unwrap();

    let home = dir.path().join("home");
    for d in ["conf", "data", "logs"] {
        std::fs::create_dir_all(home.join(d)).unwrap();
    }
    let output = std::process::Command::new("java")
        .args(["-Xmx512m", "-cp"])
        .arg(format!(
            "{}:{}",
            server.join("classes").display(),
            classpath.trim()
        ))
        .args(["org.neo4j.cli.AdminTool", "database", "import", "full"])
        .arg(format!("--nodes={}", out.join("nodes.csv").display()))
        .arg(format!(
            "--relationships={}",
            out.join("relationships.csv").display()
        ))
        // The tool writes its report into the working directory by default.
        .arg(format!(
            "--report-file={}",
            dir.path().join("import.report").display()
        ))
        .args([
            "--multiline-fields=true",
            "--array-delimiter=U+001F",
            "--max-off-heap-memory=256m",
            "neo4j",
        ])
        .env("NEO4J_HOME", &home)
        .env("NEO4J_CONF", home.join("conf"))
        .output()
        .expect("run java");
    let log = String::from_utf8_lossy(&output.stdout).to_string()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "import failed:\n{log}");
    let (ca, cb) = (a.counts(), b.counts());
    // Two documents, their sections, their entities less the shared bank
    // (Bank of America appears only in the edited one).
    let nodes = 2 + ca.sections + cb.sections + ca.entities + cb.entities - 1;
    // IN_DOCUMENT + CHILD_OF (4 per document) + mentions + typed relations.
    let rels =
        ca.sections + cb.sections + 8 + ca.mentions + cb.mentions + ca.relations + cb.relations;
    assert!(
        log.contains(&format!("  {nodes} nodes\n")),
        "expected {nodes} nodes:\n{log}"
    );
    assert!(
        log.contains(&format!("  {rels} relationships\n")),
        "expected {rels} relationships:\n{log}"
    );
}

fn kgroute_tmp() -> tempfile::TempDir {
    super::util::tempdir()
}

// ---------- real Neo4j ----------

#[tokio::test]
async fn neo4j_counts_match_and_reingest_is_idempotent() {
    let doc = doc_id("idem");
    let company = format!("Idem {doc} Corp.");
    let g = doc_graph(&doc, &company, "JPMorgan Chase Bank, N.A.", false);
    let (mut sink, stats) = ingest_graph(&g).await;
    let want = without_dropped(g.counts());
    assert_eq!(
        (stats.sections, stats.entities, stats.relations),
        (want.sections, want.entities, want.relations)
    );
    let first = db_counts(sink.graph(), &doc).await;
    assert_eq!(first, want);
    assert_eq!(
        count(
            sink.graph(),
            "MATCH (d:Document {doc_id: $doc_id}) RETURN count(d) AS n",
            &doc
        )
        .await,
        1
    );
    assert_eq!(
        count(
            sink.graph(),
            "MATCH (:Section {doc_id: $doc_id})-[c:CHILD_OF]->(:Section) RETURN count(c) AS n",
            &doc
        )
        .await,
        4
    );
    // Provenance of the deduplicated relation.
    let mut rows = sink
        .graph()
        .execute(
            query("MATCH (a:Entity {key: $k})-[r:OWES {doc_id: $doc_id}]->(:Entity {name: 'Obligations'}) RETURN r.node_ids AS ids")
                .param("k", format!("{doc}/role:borrower"))
                .param("doc_id", doc.as_str()),
        )
        .await
        .unwrap();
    let ids: Vec<String> = rows.next().await.unwrap().unwrap().get("ids").unwrap();
    assert_eq!(ids, ["0002", "0004"]);

    sink.write_document(&g).await.unwrap();
    sink.write_document(&g).await.unwrap();
    assert_eq!(db_counts(sink.graph(), &doc).await, first);
    assert_eq!(
        count(
            sink.graph(),
            "MATCH (d:Document {doc_id: $doc_id}) RETURN count(d) AS n",
            &doc
        )
        .await,
        1
    );
    sink.delete_document(&doc).await.unwrap();
    assert_eq!(db_counts(sink.graph(), &doc).await, GraphCounts::default());
}

#[tokio::test]
async fn neo4j_edited_reingest_replaces_old_facts() {
    let doc = doc_id("edit");
    let company = format!("Edit {doc} Corp.");
    let bank = format!("Edit Bank {doc}, N.A.");
    let (sink, _) = ingest_graph(&doc_graph(&doc, &company, &bank, false)).await;
    let before = names_of(sink.graph(), &doc).await;
    assert!(before.contains(&"$3,500,000,000".to_string()));

    let edited = doc_graph(&doc, &company, &bank, true);
    let (sink, _) = ingest_graph(&edited).await;
    let after = names_of(sink.graph(), &doc).await;
    assert!(
        !after.contains(&"$3,500,000,000".to_string()),
        "stale amount survived: {after:?}"
    );
    assert!(after.contains(&"$4,000,000,000".to_string()));
    assert!(after.contains(&"Bank of America, N.A.".to_string()));
    assert_eq!(
        db_counts(sink.graph(), &doc).await,
        without_dropped(edited.counts())
    );
    // The old LENDS_TO from the bank is gone; the new one is there.
    let lends = |k: String| {
        let g = sink.graph().clone();
        let doc = doc.clone();
        async move {
            let mut rows = g
                .execute(
                    query("MATCH (a:Entity {key: $k})-[r:LENDS_TO]->(:Entity) WHERE r.doc_id = $doc_id RETURN count(r) AS n")
                        .param("k", k)
                        .param("doc_id", doc.as_str()),
                )
                .await
                .unwrap();
            rows.next().await.unwrap().unwrap().get::<i64>("n").unwrap()
        }
    };
    let old_key = format!(
        "organization:{}",
        kgroute::graph::identity::org_canonical(&bank)
    );
    assert_eq!(lends(old_key.clone()).await, 0);
    assert_eq!(lends("organization:bank of america".into()).await, 1);
    sink.delete_document(&doc).await.unwrap();
    // The old bank is mentioned by no document now: gone as well.
    assert_eq!(
        count(
            sink.graph(),
            "MATCH (e:Entity {key: $doc_id}) RETURN count(e) AS n",
            &old_key
        )
        .await,
        0
    );
}

#[tokio::test]
async fn neo4j_two_documents_share_the_bank_but_not_the_borrower() {
    let (d1, d2) = (doc_id("share1"), doc_id("share2"));
    let g1 = doc_graph(
        &d1,
        &format!("Emerson {d1}"),
        "JPMorgan Chase Bank, N.A.",
        false,
    );
    let g2 = doc_graph(
        &d2,
        &format!("Roadhouse {d2}"),
        "JPMORGAN CHASE BANK, N.A.",
        false,
    );
    let (mut sink, _) = ingest_graph(&g1).await;
    sink.write_document(&g2).await.unwrap();
    let g = sink.graph().clone();
    let mut rows = g
        .execute(
            query(
                "MATCH (e:Entity:Organization {key: 'organization:jpmorgan chase bank'})-[:MENTIONED_IN]->(s:Section) \
                 WHERE s.doc_id IN $docs RETURN count(DISTINCT e) AS banks, count(DISTINCT s.doc_id) AS docs",
            )
            .param("docs", vec![d1.clone(), d2.clone()]),
        )
        .await
        .unwrap();
    let row = rows.next().await.unwrap().unwrap();
    assert_eq!(
        (
            row.get::<i64>("banks").unwrap(),
            row.get::<i64>("docs").unwrap()
        ),
        (1, 2)
    );
    let mut rows = g
        .execute(
            query(
                "MATCH (b:Entity:Role {name: 'Borrower'})-[:ROLE_OF]->(c:Entity:Organization) \
                 WHERE b.doc_id IN $docs RETURN count(DISTINCT b) AS borrowers, count(DISTINCT c) AS companies",
            )
            .param("docs", vec![d1.clone(), d2.clone()]),
        )
        .await
        .unwrap();
    let row = rows.next().await.unwrap().unwrap();
    assert_eq!(
        (
            row.get::<i64>("borrowers").unwrap(),
            row.get::<i64>("companies").unwrap()
        ),
        (2, 2)
    );

    // Removing one document keeps the shared bank for the other.
    sink.delete_document(&d1).await.unwrap();
    assert_eq!(db_counts(&g, &d2).await, without_dropped(g2.counts()));
    // The shared node keeps whichever spelling created it (other tests, or
    // the Emerson ingest, may share it), so compare normalised names.
    let names = names_of(&g, &d2).await;
    assert!(
        names
            .iter()
            .any(|n| kgroute::graph::identity::org_canonical(n) == "jpmorgan chase bank"),
        "{names:?}"
    );
    sink.delete_document(&d2).await.unwrap();
}

#[tokio::test]
async fn neo4j_hostile_names_stored_literally_and_off_ontology_types_never_written() {
    let doc = doc_id("hostile");
    let g = doc_graph(
        &doc,
        &format!("Hostile {doc} Inc."),
        &format!("Hostile Bank {doc}"),
        false,
    );
    let (sink, _) = ingest_graph(&g).await;
    let names = names_of(sink.graph(), &doc).await;
    for h in HOSTILE {
        assert!(
            names.contains(&h.to_string()),
            "{h:?} not stored literally in {names:?}"
        );
    }
    let mut rows = sink
        .graph()
        .execute(
            query(
                "MATCH (:Section {doc_id: $doc_id})<-[:MENTIONED_IN]-(a:Entity) WITH DISTINCT a \
                 MATCH (a)-[r]->(:Entity) WHERE r.doc_id = $doc_id RETURN DISTINCT type(r) AS t, r.evidence AS ev",
            )
            .param("doc_id", doc.as_str()),
        )
        .await
        .unwrap();
    let mut types = Vec::new();
    let mut evidences = Vec::new();
    while let Some(r) = rows.next().await.unwrap() {
        types.push(r.get::<String>("t").unwrap());
        evidences.push(r.get::<String>("ev").unwrap());
    }
    assert!(!types.is_empty());
    for t in &types {
        assert!(
            ontology().relation_types.contains_key(t),
            "type {t} outside the ontology reached Neo4j"
        );
    }
    assert!(evidences
        .iter()
        .any(|e| e == "hostile \"evidence\" `x` })-[:Y]->("));
    // Nothing called X or HACKS exists anywhere: the injection did nothing.
    let g2 = sink.graph();
    assert_eq!(
        count(g2, "MATCH ()-[r:X]->() RETURN count(r) AS n", &doc).await,
        0
    );
    assert_eq!(
        count(
            g2,
            "MATCH ()-[r:OWNS_SECRETLY]->() RETURN count(r) AS n",
            &doc
        )
        .await,
        0
    );
    sink.delete_document(&doc).await.unwrap();
}

#[tokio::test]
async fn neo4j_failure_rolls_back_only_that_document() {
    let doc = doc_id("rollback");
    let company = format!("Rollback {doc} Corp.");
    let good = doc_graph(&doc, &company, &format!("Rollback Bank {doc}"), false);
    let (mut sink, _) = ingest_graph(&good).await;
    let before = db_counts(sink.graph(), &doc).await;
    // A graph that fails mid-write: an entity whose label is not sanitised is
    // refused after the old facts were deleted inside the transaction.
    let mut bad = good.clone();
    let idx = bad.index[&format!("{doc}/role:borrower")];
    bad.graph[idx].label = Some("Role`) DETACH DELETE (n".into());
    let err = sink.write_document(&bad).await.unwrap_err();
    assert!(format!("{err:#}").contains("rolled back"), "{err:#}");
    assert_eq!(db_counts(sink.graph(), &doc).await, before);

    // A failure raised by the server mid-batch: two document-scoped nodes
    // with one key break the uniqueness constraint on Entity.key.
    let mut clash = good.clone();
    let dup = clash.graph[clash.index[&format!("{doc}/role:borrower")]].clone();
    clash.graph.add_node(dup);
    let err = sink.write_document(&clash).await.unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.contains("rolled back") && msg.contains("Constraint"),
        "{msg}"
    );
    assert_eq!(db_counts(sink.graph(), &doc).await, before);
    // The connection pool is still usable after the failed transaction.
    sink.write_document(&good).await.unwrap();
    assert_eq!(db_counts(sink.graph(), &doc).await, before);
    sink.delete_document(&doc).await.unwrap();
}

#[tokio::test]
async fn neo4j_unreachable_fails_fast_naming_uri_not_password() {
    for uri in ["bolt://127.0.0.1:1", "bolt://neo4j:s3cret-pa55@127.0.0.1:1"] {
        let cfg = SinkConfig::Neo4j {
            uri: uri.into(),
            user: "neo4j".into(),
            password: Secret::new("s3cret-pa55"),
            database: None,
            batch_size: 100,
        };
        let err = match open_sink(&cfg).await {
            Ok(_) => panic!("port 1 must not answer Bolt"),
            Err(e) => format!("{e:#}"),
        };
        assert!(err.contains("bolt://127.0.0.1:1"), "{err}");
        assert!(!err.contains("s3cret-pa55"), "{err}");
        assert!(err.contains("scripts/neo4j start"), "{err}");
    }
}

#[tokio::test]
async fn neo4j_sink_describes_itself() {
    let (uri, user, password) = neo4j_env();
    let cfg = SinkConfig::Neo4j {
        uri: uri.clone(),
        user,
        password,
        database: None,
        batch_size: 500,
    };
    let sink = match open_sink(&cfg).await {
        Ok(s) => s,
        Err(e) => panic!("{e:#}\nstart a local server with: scripts/neo4j start"),
    };
    assert_eq!(sink.describe(), format!("Neo4j at {uri}"));
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn document_meta_from_a_real_contract() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let path = super::util::corpus("credit_agreements/emerson_2018.md");
    let m = DocumentMeta::from_file(&path, "emerson", "credit_agreement").unwrap();
    assert_eq!(m.name, "emerson_2018.md");
    // The same digest as coreutils' sha256sum.
    let out = std::process::Command::new("sha256sum")
        .arg(&path)
        .output()
        .expect("sha256sum");
    let want = String::from_utf8(out.stdout).unwrap();
    assert_eq!(m.sha256, want.split_whitespace().next().unwrap());
    let again = DocumentMeta::from_file(&path, "emerson", "credit_agreement").unwrap();
    assert_eq!(m, again);
    let err = DocumentMeta::from_file(std::path::Path::new("/no/such.md"), "x", "y").unwrap_err();
    assert!(format!("{err:#}").contains("/no/such.md"));
}

#[tokio::test]
async fn neo4j_small_batches_write_the_same_graph() {
    let (uri, user, password) = neo4j_env();
    let cfg = SinkConfig::Neo4j {
        uri,
        user,
        password,
        database: None,
        batch_size: 3,
    };
    let mut sink = match open_sink(&cfg).await {
        Ok(s) => s,
        Err(e) => panic!("{e:#}\nstart a local server with: scripts/neo4j start"),
    };
    let doc = doc_id("batches");
    let g = doc_graph(
        &doc,
        &format!("Batch {doc} Corp."),
        &format!("Batch Bank {doc}"),
        false,
    );
    let stats = sink.write_document(&g).await.unwrap();
    // More statements than the one-batch-per-kind minimum: rows were chunked.
    assert!(stats.statements > 20, "{stats:?}");
    let check = connect().await;
    assert_eq!(
        db_counts(check.graph(), &doc).await,
        without_dropped(g.counts())
    );
    check.delete_document(&doc).await.unwrap();
    sink.finish().await.unwrap();
}

// ---------- entity resolution over the whole shared corpus ----------

/// Spellings met in the shared corpus that name one organisation each
/// (hand-checked against the documents): every group must be one node.
const EXPECTED_MERGES: &[&[&str]] = &[
    &[
        "JPMorgan Chase Bank, N.A.",
        "JPMORGAN CHASE BANK, N.A.",
        "JPMorgan Chase Bank",
    ],
    &[
        "HSBC Bank USA, N.A.",
        "HSBC BANK USA, N.A.",
        // Its all-caps spelling is only on Emerson's signature pages.
        "HSBC Bank USA, National Association",
    ],
    &["Bank of America, N.A.", "BANK OF AMERICA, N.A."],
    &["Citibank, N.A.", "CITIBANK, N.A."],
    &[
        "Wells Fargo Bank, N.A.",
        "WELLS FARGO BANK, N.A.",
        "Wells Fargo Bank, National Association",
        "WELLS FARGO BANK, NATIONAL ASSOCIATION",
    ],
    &[
        "Morgan Guaranty Trust Company of New York",
        "MORGAN GUARANTY TRUST COMPANY OF NEW YORK",
    ],
];

/// Every folder of the shared corpus with documents.
fn corpus_dirs() -> Vec<std::path::PathBuf> {
    let root = super::util::corpora();
    ["credit_agreements", "other", "wide"]
        .iter()
        .map(|d| root.join(d))
        .collect()
}

fn offline_ingest(docs: &[std::path::PathBuf], out: &std::path::Path) {
    let o = std::process::Command::new(assert_cmd::cargo::cargo_bin("kgroute"))
        .arg("ingest")
        .args(docs)
        .arg("--index")
        .arg(
            super::util::repo()
                .join("indices")
                .join("credit_agreement.yaml"),
        )
        .arg("--out")
        .arg(out)
        .arg("--history")
        .arg(out.join("history.csv"))
        .arg("--import-files")
        .arg("-q")
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("NEO4J_URI")
        .output()
        .expect("run kgroute");
    assert!(
        o.status.success(),
        "kgroute ingest failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The batch's graph (`kgroute export`): every record as JSON.
fn jsonl(batch: &std::path::Path) -> Vec<serde_json::Value> {
    super::util::graph_jsonl(batch)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn whole_corpus_one_node_per_organisation_in_the_import_files() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    use kgroute::graph::identity::org_canonical;
    use std::collections::{BTreeMap, BTreeSet};
    let dir = super::util::tempdir();
    offline_ingest(&corpus_dirs(), dir.path());
    let records = jsonl(dir.path());

    // Every spelling of an organisation met anywhere -> the keys it got.
    let mut keys_of: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // Per document: normalised names typed Role and DefinedTerm.
    let mut roles: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut terms: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut noise: BTreeSet<(String, String)> = BTreeSet::new();
    for r in &records {
        let doc = r["doc_id"].as_str().unwrap().to_string();
        match r["kind"].as_str().unwrap() {
            "entity" => {
                let e = &r["entity"];
                let name = e["name"].as_str().unwrap().to_string();
                let norm = kgroute::graph::identity::normalize_name(&name);
                match e["entity_type"].as_str().unwrap() {
                    "Organization" => {
                        let key = e["key"].as_str().unwrap().to_string();
                        let aliases = e["aliases"].as_array().unwrap();
                        for n in std::iter::once(name.as_str())
                            .chain(aliases.iter().map(|a| a.as_str().unwrap()))
                        {
                            keys_of
                                .entry(n.to_string())
                                .or_default()
                                .insert(key.clone());
                        }
                    }
                    "Role" => {
                        roles.entry(doc).or_default().insert(norm);
                    }
                    "DefinedTerm" => {
                        terms.entry(doc).or_default().insert(norm);
                    }
                    _ => {}
                }
            }
            "section" => {
                let s = &r["section"];
                if s["route"] == "noise" {
                    noise.insert((doc, s["node_id"].as_str().unwrap().to_string()));
                }
            }
            "relation" => {
                for p in r["provenance"].as_array().unwrap() {
                    let at = (doc.clone(), p["node_id"].as_str().unwrap().to_string());
                    // Noise sections (signature pages) give only what the
                    // rules find there.
                    assert!(
                        !noise.contains(&at) || p["source"] == "rules",
                        "relation from a noise section not found by the rules: {r}"
                    );
                }
            }
            _ => {}
        }
    }

    // The hand-checked groups: each spelling was met, all share one node.
    for group in EXPECTED_MERGES {
        let keys: BTreeSet<&String> = group
            .iter()
            .flat_map(|n| {
                keys_of
                    .get(*n)
                    .unwrap_or_else(|| panic!("{n:?} not met in the corpus"))
            })
            .collect();
        assert_eq!(keys.len(), 1, "{group:?} -> {keys:?}");
    }
    // And in general: spellings that fold to one canonical name have one key.
    let mut by_canon: BTreeMap<String, BTreeSet<&String>> = BTreeMap::new();
    for (n, ks) in &keys_of {
        by_canon.entry(org_canonical(n)).or_default().extend(ks);
    }
    for (canon, ks) in &by_canon {
        assert_eq!(ks.len(), 1, "{canon}: {ks:?}");
    }
    // The import files write each organisation once.
    let mut nodes = csv::Reader::from_path(dir.path().join("graph").join("nodes.csv")).unwrap();
    let headers = nodes.headers().unwrap().clone();
    let id = headers.iter().position(|h| h == ":ID").unwrap();
    let mut seen = BTreeSet::new();
    for row in nodes.records() {
        let row = row.unwrap();
        assert!(
            seen.insert(row[id].to_string()),
            "node {} written twice",
            &row[id]
        );
    }
    for group in EXPECTED_MERGES {
        let key = keys_of[group[0]].iter().next().unwrap();
        assert!(
            seen.contains(&format!("ent:{key}")),
            "{key} not in nodes.csv"
        );
    }
    // Per document, no name is both a Role and a DefinedTerm node.
    for (doc, r) in &roles {
        if let Some(t) = terms.get(doc) {
            let both: Vec<&String> = r.intersection(t).collect();
            assert!(both.is_empty(), "{doc}: Role and DefinedTerm: {both:?}");
        }
    }
    // Every Section row carries the tree's one parse of its heading: the
    // label as written and the name, as `split_heading` gives them.
    let mut nodes = csv::Reader::from_path(dir.path().join("graph").join("nodes.csv")).unwrap();
    let headers = nodes.headers().unwrap().clone();
    let col = |n: &str| headers.iter().position(|h| h == n).unwrap();
    let (kind, title, label, name) = (col(":LABEL"), col("title"), col("label"), col("name"));
    let mut sections = 0;
    let mut labelled = 0;
    for row in nodes.records() {
        let row = row.unwrap();
        if &row[kind] != "Section" {
            continue;
        }
        sections += 1;
        let (l, n) = kgroute::tree::split_heading(&row[title]);
        let l = l.map(|l| l.text).unwrap_or_default();
        labelled += usize::from(!l.is_empty());
        assert_eq!(
            (&row[label], &row[name]),
            (l.as_str(), n.as_str()),
            "{:?}",
            &row[title]
        );
    }
    assert!(
        sections > 1000 && labelled * 2 > sections,
        "{labelled} of {sections} labelled"
    );
}

#[tokio::test]
async fn neo4j_spellings_across_documents_meet_in_one_node_with_the_written_name() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let tmp = super::util::tempdir();
    // Copies under names of this run: doc ids nobody else uses.
    let nonce = format!(
        "{}_{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let docs: Vec<std::path::PathBuf> = [
        "credit_agreements/emerson_2018.md",
        "credit_agreements/disney_2020.txt",
        "credit_agreements/coned_2020.txt",
    ]
    .iter()
    .map(|rel| {
        let src = super::util::corpus(rel);
        let name = src.file_name().unwrap().to_str().unwrap();
        let dst = tmp.path().join(format!("er_{nonce}_{name}"));
        std::fs::copy(&src, &dst).unwrap();
        dst
    })
    .collect();
    let (uri, user, _) = neo4j_env();
    let o = std::process::Command::new(assert_cmd::cargo::cargo_bin("kgroute"))
        .arg("ingest")
        .args(&docs)
        .arg("--index")
        .arg(
            super::util::repo()
                .join("indices")
                .join("credit_agreement.yaml"),
        )
        .arg("--out")
        .arg(tmp.path().join("out"))
        .arg("--history")
        .arg(tmp.path().join("history.csv"))
        .arg("--neo4j")
        .arg(&uri)
        .arg("-q")
        .env("NEO4J_USERNAME", user)
        .env_remove("KGROUTE_LLM_URL")
        .output()
        .expect("run kgroute");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let sink = connect().await;
    let g = sink.graph().clone();
    let prefix = format!("er_{nonce}");
    for (group, key) in [
        (EXPECTED_MERGES[0], "organization:jpmorgan chase bank"),
        (EXPECTED_MERGES[1], "organization:hsbc bank usa"),
    ] {
        let mut rows = g
            .execute(
                query(
                    "MATCH (e:Entity:Organization)-[:MENTIONED_IN]->(s:Section) \
                     WHERE s.doc_id STARTS WITH $prefix AND e.key STARTS WITH $key \
                     RETURN e.key AS key, e.name AS name, e.aliases AS aliases, count(DISTINCT s.doc_id) AS docs",
                )
                .param("prefix", prefix.as_str())
                .param("key", key),
            )
            .await
            .unwrap();
        let mut found = Vec::new();
        while let Some(r) = rows.next().await.unwrap() {
            found.push((
                r.get::<String>("key").unwrap(),
                r.get::<String>("name").unwrap(),
                r.get::<Vec<String>>("aliases").unwrap(),
                r.get::<i64>("docs").unwrap(),
            ));
        }
        assert_eq!(found.len(), 1, "one node for {group:?}: {found:?}");
        let (k, name, aliases, docs) = &found[0];
        assert_eq!(k, key);
        assert!(*docs >= 2, "{key} mentioned by {docs} of the documents");
        // The mixed-case spelling the documents write, not capitals.
        assert!(name.chars().any(char::is_lowercase), "{key} shows {name:?}");
        assert!(
            aliases.iter().any(|a| a
                .chars()
                .filter(|c| c.is_alphabetic())
                .all(char::is_uppercase)),
            "{key}: the capitals spelling is kept as an alias: {aliases:?}"
        );
    }
    // Clean up this run's documents.
    let mut rows = g
        .execute(
            query("MATCH (d:Document) WHERE d.doc_id STARTS WITH $prefix RETURN d.doc_id AS id")
                .param("prefix", prefix.as_str()),
        )
        .await
        .unwrap();
    let mut ids = Vec::new();
    while let Some(r) = rows.next().await.unwrap() {
        ids.push(r.get::<String>("id").unwrap());
    }
    assert_eq!(ids.len(), 3);
    for id in ids {
        sink.delete_document(&id).await.unwrap();
    }
}
