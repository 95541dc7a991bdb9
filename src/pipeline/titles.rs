//! The optional LLM title mapping of one document inside a batch: the
//! titles the offline matcher left unmatched go to the LLM in one request
//! (or come from the cache), and the plan is re-routed by the answer.
//!
//! Never fails the document: a refused budget, an open circuit breaker or a
//! failed call leave the titles unmatched (new, so sent) and say why in
//! [`TitleMappingUse::error`]. The request is retried by the section
//! requests' policy (408/429/5xx, timeouts, dropped connections), each
//! attempt takes a permit of the extractor's one concurrency bound, is
//! counted in the heartbeat's requests and moves the circuit breaker like a
//! section's, and its price counts against `--max-cost`.

use super::budget::Budget;
use crate::extract::extractor::SideCall;
use crate::extract::Extractor;
use crate::index::llm_titles::{self, TitleCallFailed, TitleMappingUse};
use crate::index::GraphabilityIndex;
use crate::llm::retry::worth_retrying;
use crate::llm::{CallError, RetryPolicy};
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
    // Only entries of the skipped tiers are offered (see
    // `llm_titles::messages`): an index without any has nothing to ask.
    if asked.is_empty() || index.entries().iter().all(|e| e.tier.is_sent()) {
        return used;
    }
    let cache = extractor.cache_dir();
    let model = &client.config().model;
    if let Some(mapping) = llm_titles::cached(cache, model, index, &asked) {
        used.cache_hits = 1;
        used.mapped = apply_title_mapping(plan, index, &mapping, route);
        return used;
    }
    // The answer can only save the text of the sections it would route to
    // a skipped tier: at most the unmatched sections' text. A question
    // that costs more than that is not worth asking.
    let could_save = unmatched_chars(plan);
    let question = llm_titles::request_chars(index, &asked);
    if could_save < question {
        used.not_asked = Some(format!(
            "the {} unmatched titles head {could_save} chars of text, less than the {question}-char question; they stay new (sent)",
            asked.len()
        ));
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
    let (answer, sent_requests) = ask_with_retries(extractor, client, index, &asked).await;
    used.calls = sent_requests;
    match answer {
        Ok(a) => {
            let actual = cost
                .prices()
                .map_or(0.0, |p| p.cost(a.tokens_in, a.tokens_out));
            budget.settle(estimate, actual);
            // Another document may have cached the same titles meanwhile.
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

/// One title-mapping request, retried as a section's is (408/429/5xx,
/// timeouts, dropped connections; `Retry-After` honoured), each attempt a
/// side request so the breaker and the concurrency bound see every one;
/// the answer (or why there is none) and the requests sent.
async fn ask_with_retries(
    extractor: &Extractor,
    client: &crate::llm::LlmClient,
    index: &GraphabilityIndex,
    asked: &[llm_titles::TitleQuery],
) -> (Result<llm_titles::TitleAnswer, String>, u64) {
    let cache = extractor.cache_dir();
    let cfg = client.config();
    let policy = RetryPolicy::of(cfg);
    // One time bound over every attempt and wait, a section's
    // (`--section-timeout`): a hung endpoint held title mapping for 303 s
    // (six attempts of the request timeout, and the waits between).
    let deadline = tokio::time::Instant::now() + cfg.section_timeout;
    let out_of_time = || {
        format!(
            "the title mapping's time bound of {} s (--section-timeout) passed",
            cfg.section_timeout.as_secs()
        )
    };
    let mut sent_requests = 0u64;
    let answer = loop {
        let attempt = extractor
            .side_request(async {
                let answer = match tokio::time::timeout_at(
                    deadline,
                    llm_titles::map_titles(client, cache, index, asked),
                )
                .await
                {
                    Ok(a) => a,
                    Err(_) => Err(anyhow::Error::new(TitleCallFailed(CallError::Transport(
                        out_of_time(),
                    )))),
                };
                let failure = answer
                    .as_ref()
                    .err()
                    .and_then(|e| e.downcast_ref::<TitleCallFailed>())
                    .map(|f| f.0.clone());
                let call = match (&answer, &failure) {
                    (Ok(a), _) if a.cached => SideCall::NotSent,
                    (_, Some(f)) => SideCall::Failed(f.clone()),
                    _ => SideCall::Answered,
                };
                ((answer.map_err(|e| format!("{e:#}")), failure), call)
            })
            .await;
        match attempt {
            Ok((Err(e), Some(failure))) => {
                sent_requests += 1;
                let Some(retry_after) = worth_retrying(&failure) else {
                    break Err(e);
                };
                let retry = sent_requests as u32 - 1;
                if retry >= policy.max_retries {
                    break Err(format!("{e} (gave up after {sent_requests} attempts)"));
                }
                let wait = policy.backoff(retry, retry_after);
                if tokio::time::Instant::now() + wait >= deadline {
                    break Err(format!(
                        "{e} (gave up after {sent_requests} attempts: {})",
                        out_of_time()
                    ));
                }
                // Shown in the heartbeat's `retries`, as a section's are.
                extractor
                    .counters()
                    .retries
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(wait).await;
            }
            Ok((answer, _)) => {
                sent_requests += u64::from(!answer.as_ref().is_ok_and(|a| a.cached));
                break answer;
            }
            Err(e) if sent_requests == 0 => break Err(format!("LLM title mapping not sent: {e}")),
            Err(e) => {
                break Err(format!(
                    "LLM title mapping stopped after {sent_requests} attempts: {e}"
                ))
            }
        }
    };
    (answer, sent_requests)
}

/// Characters of the sections whose titles are asked about (sent as new).
fn unmatched_chars(plan: &RoutePlan) -> usize {
    let asked: std::collections::HashSet<String> =
        unmatched_titles(plan).into_iter().map(|t| t.name).collect();
    plan.sections
        .iter()
        .filter(|s| {
            s.route == crate::route::Route::Llm
                && s.predicted_tier.is_none()
                && crate::route::mapping_name(s).is_some_and(|n| asked.contains(&n))
        })
        .map(|s| s.chars)
        .sum()
}

/// A document that `--resume` redoes after the interrupted run mapped its
/// titles finds the answer in the cache. It reports the request and tokens
/// that run spent (`recorded`, from the manifest) rather than a cache hit
/// for nothing, so the batch counts the request once, as an uninterrupted
/// run does.
pub(super) fn as_first_run(
    now: TitleMappingUse,
    recorded: Option<&TitleMappingUse>,
) -> TitleMappingUse {
    match recorded {
        Some(r)
            if now.calls == 0
                && now.cache_hits == 1
                && r.error.is_none()
                && r.asked == now.asked =>
        {
            TitleMappingUse {
                calls: r.calls,
                cache_hits: r.cache_hits,
                tokens_in: r.tokens_in,
                tokens_out: r.tokens_out,
                ..now
            }
        }
        _ => now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache_hit() -> TitleMappingUse {
        TitleMappingUse {
            asked: 2,
            mapped: 1,
            cache_hits: 1,
            ..TitleMappingUse::default()
        }
    }

    #[test]
    fn a_redone_document_reports_the_request_its_first_run_made() {
        let first = TitleMappingUse {
            calls: 1,
            cache_hits: 0,
            tokens_in: 10,
            tokens_out: 5,
            ..cache_hit()
        };
        assert_eq!(as_first_run(cache_hit(), Some(&first)), first);
        // No record (an older manifest, or another batch's cache): the hit.
        assert_eq!(as_first_run(cache_hit(), None), cache_hit());
        // A first run whose call failed spent nothing to report.
        let failed = TitleMappingUse {
            error: Some("LLM title mapping failed: HTTP 500".into()),
            ..first.clone()
        };
        assert_eq!(as_first_run(cache_hit(), Some(&failed)), cache_hit());
        // A request sent now is reported as it is.
        assert_eq!(as_first_run(first.clone(), Some(&cache_hit())), first);
    }
}
