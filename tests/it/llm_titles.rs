//! LLM title mapping against the loopback server: one call per document,
//! a good answer maps titles (method `llm`), a garbage answer maps none,
//! the cache answers the second time.

use super::util::tempdir;
use kgroute::extract::llm::client::LlmClient;
use kgroute::extract::llm::fake_server::{FakeServer, Reply};
use kgroute::extract::LlmConfig;
use kgroute::index::llm_titles::{map_titles, TitleQuery};
use kgroute::index::{GraphabilityIndex, MatchMethod, Tier};
use kgroute::route::{apply_title_mapping, plan, unmatched_titles, Route, RouteOptions};
use kgroute::tree::{build_tree, SourceText};
use serde_json::json;
use std::time::Duration;

const INDEX: &str = "document_type: credit_agreement\nversion: \"t\"\nhigh:\n  - Events of Default\nlow:\n  - Increased Costs\n";

const DOC: &str = "CREDIT AGREEMENT\n\nThe parties agree.\n\nSection 1.01 Yield Protection Matters\n\nIf any Change in Law shall impose on any Lender any reserve, the Borrower pays. This text is long enough to be a section of its own, with more words here.\n\nSection 1.02 Benchmark Fallback Mechanics\n\nIf the Benchmark is unavailable the Administrative Agent may replace it. This text is long enough to be a section of its own, with more words here.\n";

fn client(base: &str) -> LlmClient {
    LlmClient::new(LlmConfig::new(base, "m").unwrap()).unwrap()
}

fn setup() -> (GraphabilityIndex, kgroute::route::RoutePlan) {
    let idx = GraphabilityIndex::from_yaml_str("t.yaml", INDEX).unwrap();
    let src = SourceText::from_text("d.txt", DOC);
    let tree = build_tree(&src);
    let p = plan(&tree, &idx, &RouteOptions::default());
    (idx, p)
}

#[tokio::test]
async fn a_good_answer_maps_titles_and_is_cached() {
    let (idx, mut p) = setup();
    let asked = unmatched_titles(&p);
    let names: Vec<&str> = asked.iter().map(|q| q.name.as_str()).collect();
    assert!(names.contains(&"Yield Protection Matters"), "{names:?}");
    let server = FakeServer::start(Duration::ZERO, |r| {
        // Only titles and breadcrumbs travel, never the section text.
        assert!(!r.last_user_message().contains("reserve, the Borrower pays"));
        Reply::json(&json!({"mappings": [
            {"title": "Yield Protection Matters", "entry": "Increased Costs"},
            {"title": "Benchmark Fallback Mechanics", "entry": "none"}
        ]}))
    })
    .await
    .unwrap();
    let cache = tempdir();
    let c = client(&server.base_url());
    let m = map_titles(&c, Some(cache.path()), &idx, &asked)
        .await
        .unwrap();
    assert_eq!(
        m.get("Yield Protection Matters").map(String::as_str),
        Some("Increased Costs")
    );
    assert!(!m.contains_key("Benchmark Fallback Mechanics"));
    let changed = apply_title_mapping(&mut p, &idx, &m, &RouteOptions::default());
    assert_eq!(changed, 1);
    let s = p
        .sections
        .iter()
        .find(|s| s.title.contains("Yield Protection"))
        .unwrap();
    assert_eq!(
        (s.matched.method, s.predicted_tier, s.route),
        (MatchMethod::Llm, Some(Tier::Low), Route::Skip)
    );
    // Same titles again: answered from the cache, no second request.
    let again = map_titles(&c, Some(cache.path()), &idx, &asked)
        .await
        .unwrap();
    assert_eq!(again, m);
    assert_eq!(server.requests(), 1);
}

#[tokio::test]
async fn a_garbage_answer_maps_nothing() {
    let (idx, mut p) = setup();
    let asked = unmatched_titles(&p);
    for bad in [
        "this is not json",
        r#"{"mappings": [{"title": "Yield Protection Matters", "entry": "Invented Entry"}]}"#,
        r#"{"mappings": [{"title": "Not Asked", "entry": "Increased Costs"}]}"#,
        r#"{"something": 1}"#,
    ] {
        let server = FakeServer::start(Duration::ZERO, move |_| Reply::content(bad))
            .await
            .unwrap();
        let m = map_titles(&client(&server.base_url()), None, &idx, &asked)
            .await
            .unwrap();
        assert!(m.is_empty(), "{bad}: {m:?}");
        assert_eq!(
            apply_title_mapping(&mut p, &idx, &m, &RouteOptions::default()),
            0
        );
    }
    assert!(map_titles(
        &client("http://127.0.0.1:9/v1"),
        None,
        &idx,
        &[TitleQuery {
            name: "x".into(),
            breadcrumb: "x".into()
        }]
    )
    .await
    .is_err());
}
