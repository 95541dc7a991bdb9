//! The optional LLM title mapping of one document inside a batch: the
//! titles the offline matcher left unmatched go to the LLM in one request
//! (or come from the cache), and the plan is re-routed by the answer.
//!
//! Never fails the document: a refused budget, an open circuit breaker or a
//! failed call leave the titles unmatched (new, so sent) and say why in
//! [`TitleMappingUse::error`]. The request takes a permit of the
//! extractor's one concurrency bound and its price counts against
//! `--max-cost`, like a section's.

use super::budget::Budget;
use crate::extract::Extractor;
use crate::index::llm_titles::{self, TitleMappingUse};
use crate::index::GraphabilityIndex;
use crate::route::cost::CostModel;
use crate::route::{apply_title_mapping, unmatched_titles, RouteOptions, RoutePlan};

/// Maps `plan`'s unmatched titles against `index` and re-routes the mapped
/// sections; what it did and cost.
pub(super) async fn map_plan_titles(
    extractor: &Extractor,
    index: &GraphabilityIndex,
    plan: &mut RoutePlan,
    route: &RouteOptions,
    budget: &Budget,
    cost: &CostModel,
) -> TitleMappingUse {
    let asked = unmatched_titles(plan);
    let mut used = TitleMappingUse {
        asked: asked.len(),
        ..TitleMappingUse::default()
    };
    let Some(client) = extractor.llm_client() else {
        return used;
    };
    if asked.is_empty() || index.entries().is_empty() {
        return used;
    }
    let cache = extractor.cache_dir();
    let model = &client.config().model;
    if let Some(mapping) = llm_titles::cached(cache, model, index, &asked) {
        used.cache_hits = 1;
        used.mapped = apply_title_mapping(plan, index, &mapping, route);
        return used;
    }
    let prompt = serde_json::to_string(&llm_titles::messages(index, &asked)).unwrap_or_default();
    let estimate = cost.estimate(&prompt).usd.unwrap_or(0.0);
    if !budget.try_reserve(estimate) {
        used.error = Some(format!(
            "not asked: --max-cost ${:.2} would be passed",
            budget.limit().unwrap_or_default()
        ));
        return used;
    }
    let answer = match extractor.side_permit().await {
        Ok(_permit) => {
            used.calls = 1;
            llm_titles::map_titles(client, cache, index, &asked)
                .await
                .map_err(|e| format!("{e:#}"))
        }
        Err(e) => Err(format!("LLM title mapping not sent: {e}")),
    };
    match answer {
        Ok(a) => {
            let actual = cost
                .prices()
                .map_or(0.0, |p| p.cost(a.tokens_in, a.tokens_out));
            budget.settle(estimate, actual);
            // Another document may have cached the same titles meanwhile.
            used.calls = u64::from(!a.cached);
            used.cache_hits = u64::from(a.cached);
            used.tokens_in = a.tokens_in;
            used.tokens_out = a.tokens_out;
            used.mapped = apply_title_mapping(plan, index, &a.mapping, route);
        }
        Err(e) => {
            budget.settle(estimate, 0.0);
            used.error = Some(e);
        }
    }
    used
}
