//! A document's questions through the extractor: one request per batch of
//! questions, under the extractor's concurrency bound, retries, circuit
//! breaker and `--max-cost` gate, answers cached by everything that shapes
//! them. A request's tokens are shared over the sections it asked about,
//! by their number of questions.

use super::apply::{apply, CategoryCheck};
use super::ask::{self, Verdict};
use super::questions::{batches, Question};
use crate::extract::extractor::{ExtractionProfile, Extractor};
use crate::extract::requests::{Gate, Outgoing};
use crate::extract::spend::Spend;
use crate::extract::{SectionExtraction, SectionInput};
use crate::llm::LlmClient;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

/// A verify answer as cached: the raw text (read again on a hit, so a
/// better reader improves old answers) and what it cost.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct CachedVerify {
    content: String,
    tokens_in: u64,
    tokens_out: u64,
    #[serde(default)]
    paid_by: Option<String>,
}

/// One batch's answers and what they cost.
struct BatchAnswers {
    verdicts: Vec<(usize, Verdict)>,
    tokens_in: u64,
    tokens_out: u64,
}

/// What verifying one document found: each asked kind's check, and the
/// model that answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentChecks {
    pub model: String,
    pub kinds: BTreeMap<String, CategoryCheck>,
}

impl Extractor {
    /// Asks the configured model `qs`, questions about `extractions`'
    /// candidate clause kinds (`extractions[i]` read from `inputs[i]`; see
    /// [`super::bill::asked`]), and applies the answers the calibration
    /// trusts. Offline, or with nothing to ask, nothing changes.
    pub async fn verify_document(
        &self,
        extractions: &mut [SectionExtraction],
        qs: Vec<Question>,
        inputs: &[SectionInput],
        profile: &ExtractionProfile,
        spend: &Spend<'_>,
    ) -> Option<DocumentChecks> {
        let client = self.client.as_ref()?;
        let doc_type = inputs.first().map_or("", |i| i.doc_type.as_str());
        let doc_id = inputs.first().map_or("", |i| i.doc_id.as_str());
        let answers: Vec<BatchAnswers> = futures::stream::iter(batches(&qs))
            .map(|idx| {
                let asked: Vec<(usize, &Question)> = idx.iter().map(|&i| (i, &qs[i])).collect();
                self.ask_batch(client, (doc_type, doc_id), asked, profile, spend)
            })
            .buffer_unordered(self.cfg.concurrency.max(1))
            .collect()
            .await;
        let mut verdicts: Vec<Verdict> = vec![Verdict::Unanswered("not asked".into()); qs.len()];
        for a in answers {
            let sections: Vec<usize> = a.verdicts.iter().map(|(i, _)| qs[*i].section).collect();
            share_tokens(extractions, &sections, a.tokens_in, a.tokens_out);
            for (i, v) in a.verdicts {
                verdicts[i] = v;
            }
        }
        let name = client.config().model.clone();
        let kinds = apply(
            extractions,
            &qs,
            &verdicts,
            self.cfg.calibration.as_ref(),
            &name,
        );
        Some(DocumentChecks { model: name, kinds })
    }

    async fn ask_batch(
        &self,
        client: &LlmClient,
        (doc_type, doc_id): (&str, &str),
        asked: Vec<(usize, &Question)>,
        profile: &ExtractionProfile,
        spend: &Spend<'_>,
    ) -> BatchAnswers {
        let refs: Vec<&Question> = asked.iter().map(|(_, q)| *q).collect();
        let user = ask::message(doc_type, &refs, profile.ontology());
        let schema = ask::schema(&refs);
        let model = &client.config().model;
        let key = crate::llm::cache::key(&[
            model,
            ask::VERIFY_PROMPT_VERSION,
            ask::SYSTEM,
            &user,
            &schema.to_string(),
        ]);
        let all = |v: Verdict| {
            asked
                .iter()
                .map(|(i, _)| (*i, v.clone()))
                .collect::<Vec<_>>()
        };
        let by_index = |map: std::collections::HashMap<String, Verdict>| {
            asked
                .iter()
                .map(|(i, q)| {
                    (
                        *i,
                        map.get(&q.id)
                            .cloned()
                            .unwrap_or(Verdict::Unanswered("left out".into())),
                    )
                })
                .collect::<Vec<_>>()
        };
        let payer = self.payer(doc_id);
        if let Some(cache) = self.cache.as_ref() {
            if let Some(hit) = cache.get::<CachedVerify>(&key).await {
                self.counters.cache_hits.fetch_add(1, Ordering::Relaxed);
                let ours = hit.paid_by.is_some() && hit.paid_by == payer;
                return BatchAnswers {
                    verdicts: by_index(ask::read(&hit.content, &refs)),
                    tokens_in: if ours { hit.tokens_in } else { 0 },
                    tokens_out: if ours { hit.tokens_out } else { 0 },
                };
            }
        }
        let gate = Gate::new(spend, format!("{}\n{user}", ask::SYSTEM));
        let mut messages = vec![
            json!({"role": "system", "content": ask::SYSTEM}),
            json!({"role": "user", "content": user}),
        ];
        let mut deadline = None;
        let res = self
            .call_with_retries(
                client,
                Outgoing {
                    messages: &mut messages,
                    schema: &schema,
                    max_tokens: Some(ask::max_tokens(refs.len())),
                    schema_name: ask::SCHEMA_NAME,
                    own_system: true,
                },
                profile,
                &gate,
                &mut deadline,
            )
            .await;
        gate.close();
        let answer = match res {
            Ok(a) => a,
            Err(e) => {
                let why = match e {
                    crate::extract::requests::Ended::Failed(r)
                    | crate::extract::requests::Ended::Stalled(r)
                    | crate::extract::requests::Ended::TooLong(r) => r,
                };
                return BatchAnswers {
                    verdicts: all(Verdict::Unanswered(why)),
                    tokens_in: 0,
                    tokens_out: 0,
                };
            }
        };
        self.counters.count_answer(&answer);
        let verdicts = if answer.cut() || answer.repeated() {
            let counter = if answer.cut() {
                &self.counters.answers_cut
            } else {
                &self.counters.answers_repeated
            };
            counter.fetch_add(1, Ordering::Relaxed);
            // The answers that closed before the cut still count.
            let why = if answer.cut() {
                format!(
                    "the answer was cut at max_tokens {}",
                    ask::max_tokens(refs.len())
                )
            } else {
                "the answer repeated itself and was stopped".to_string()
            };
            by_index(ask::read_partial(&answer.content, &refs, &why))
        } else {
            let read = ask::read(&answer.content, &refs);
            let usable = read.values().any(|v| !matches!(v, Verdict::Unanswered(_)));
            if usable {
                if let Some(cache) = self.cache.as_ref() {
                    let entry = CachedVerify {
                        content: answer.content.clone(),
                        tokens_in: answer.tokens_in,
                        tokens_out: answer.tokens_out,
                        paid_by: payer,
                    };
                    if let Err(e) = cache.put(&key, &entry).await {
                        eprintln!("kgroute: warning: verify answer not cached: {e:#}");
                    }
                }
            }
            by_index(read)
        };
        BatchAnswers {
            verdicts,
            tokens_in: answer.tokens_in,
            tokens_out: answer.tokens_out,
        }
    }
}

/// A request's tokens shared over the sections of its questions (one
/// share per question; the rest of a division to the first).
fn share_tokens(extractions: &mut [SectionExtraction], sections: &[usize], tin: u64, tout: u64) {
    let Some(&first) = sections.first() else {
        return;
    };
    let n = sections.len() as u64;
    for &s in sections {
        extractions[s].tokens_in += tin / n;
        extractions[s].tokens_out += tout / n;
    }
    extractions[first].tokens_in += tin % n;
    extractions[first].tokens_out += tout % n;
}
