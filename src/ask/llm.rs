//! The optional LLM steps of `ask`: re-ranking the candidate sections by
//! their breadcrumbs and titles (the method's step: the model sees where a
//! section is, not its text), and an answer written from the whole sections
//! only, citing `[doc §node lines a-b]` for every claim. Citations that do
//! not name a given section are reported, never trusted.

use super::{FoundSection, SectionHit};
use crate::llm::retry::worth_retrying;
use crate::llm::{LlmClient, RetryPolicy};
use serde_json::{json, Value};

/// Answer bounds: a ranking is a short list of numbers; an answer a few
/// paragraphs with citations.
const RERANK_TOKENS: u32 = 256;
const ANSWER_TOKENS: u32 = 1024;

/// The citation label of a section: `[doc §node lines a-b]`.
pub fn citation(s: &FoundSection) -> String {
    let p = &s.pointer;
    format!(
        "[{} §{} lines {}-{}]",
        p.doc_name, p.node_id, p.start_line, p.end_line
    )
}

/// The candidates in the order the model puts them (indices it does not
/// give keep their retrieval order after the ones it gives).
pub async fn rerank(
    client: &LlmClient,
    question: &str,
    candidates: Vec<SectionHit>,
) -> anyhow::Result<Vec<SectionHit>> {
    let list: Vec<String> = candidates
        .iter()
        .enumerate()
        .map(|(i, h)| format!("{i}. {} | {}", h.pointer.doc_name, h.pointer.breadcrumb))
        .collect();
    let messages = [
        json!({"role": "system", "content": "You rank contract sections for a question by their location (document and breadcrumb of headings). Reply with JSON {\"order\": [candidate numbers, most useful first]}."}),
        json!({"role": "user", "content": format!("Question: {question}\n\nCandidates:\n{}", list.join("\n"))}),
    ];
    let v = call_json(client, &messages, RERANK_TOKENS).await?;
    let mut order: Vec<usize> = v["order"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_u64())
                .map(|x| x as usize)
                .collect()
        })
        .unwrap_or_default();
    order.retain(|&i| i < candidates.len());
    let mut seen = vec![false; candidates.len()];
    order.retain(|&i| !std::mem::replace(&mut seen[i], true));
    order.extend((0..candidates.len()).filter(|&i| !seen[i]));
    let mut slots: Vec<Option<SectionHit>> = candidates.into_iter().map(Some).collect();
    Ok(order.into_iter().filter_map(|i| slots[i].take()).collect())
}

/// An answer from the whole sections, and the citations in it that name
/// no given section.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LlmAnswer {
    pub text: String,
    pub unknown_citations: Vec<String>,
}

/// Asks the model to answer from `sections` only, citing each claim.
pub async fn answer(
    client: &LlmClient,
    question: &str,
    sections: &[FoundSection],
) -> anyhow::Result<LlmAnswer> {
    let mut context = String::new();
    for s in sections {
        context.push_str(&format!(
            "{} {}\n{}\n\n",
            citation(s),
            s.pointer.breadcrumb,
            s.text.trim()
        ));
    }
    let messages = [
        json!({"role": "system", "content": "Answer the question from the given contract sections only. Cite the section label, exactly as given in square brackets (e.g. [doc §0003 lines 10-20]), after every claim. If the sections do not answer it, say so. Reply with JSON {\"answer\": \"...\"}."}),
        json!({"role": "user", "content": format!("Question: {question}\n\nSections:\n\n{context}")}),
    ];
    let v = call_json(client, &messages, ANSWER_TOKENS).await?;
    let text = v["answer"].as_str().unwrap_or_default().trim().to_string();
    if text.is_empty() {
        anyhow::bail!("the LLM's reply has no `answer`");
    }
    let known: Vec<String> = sections.iter().map(citation).collect();
    let unknown_citations = cited(&text)
        .into_iter()
        .filter(|c| !known.contains(c))
        .collect();
    Ok(LlmAnswer {
        text,
        unknown_citations,
    })
}

/// The `[... §...]` citations in a text.
pub fn cited(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(a) = rest.find('[') {
        let Some(b) = rest[a..].find(']') else { break };
        let c = &rest[a..a + b + 1];
        if c.contains('§') {
            out.push(c.to_string());
        }
        rest = &rest[a + b + 1..];
    }
    out
}

/// One JSON answer of at most `max_tokens` tokens; a cut answer is an error
/// (its JSON would be incomplete), not retried as is. Failures worth
/// another attempt (a busy server, a dropped connection) are retried with
/// the configured backoff, as section requests are, all within the
/// configured timeout (`ask --timeout`): a server that accepts and never
/// answers holds a question that long, not once per attempt.
async fn call_json(
    client: &LlmClient,
    messages: &[Value],
    max_tokens: u32,
) -> anyhow::Result<Value> {
    let cfg = client.config();
    let policy = RetryPolicy::of(cfg);
    let deadline = tokio::time::Instant::now() + cfg.timeout;
    let out_of_time = |attempts: u32| {
        anyhow::anyhow!(
            "LLM: no answer within {} s (--timeout; {attempts} attempt(s))",
            cfg.timeout.as_secs_f64()
        )
    };
    let mut retry = 0u32;
    let reply = loop {
        let attempt = client.chat_with_format(
            messages,
            json!({"type": "json_object"}),
            false,
            Some(max_tokens),
        );
        let failure = match tokio::time::timeout_at(deadline, attempt).await {
            Err(_) => return Err(out_of_time(retry + 1)),
            Ok(Ok(reply)) => break reply,
            Ok(Err(e)) => e,
        };
        let Some(retry_after) = worth_retrying(&failure) else {
            anyhow::bail!("LLM: {}", failure.reason());
        };
        if retry >= policy.max_retries {
            anyhow::bail!(
                "LLM: {} (gave up after {} attempts)",
                failure.reason(),
                retry + 1
            );
        }
        let wait = policy.backoff(retry, retry_after);
        if tokio::time::Instant::now() + wait >= deadline {
            anyhow::bail!(
                "LLM: {} (gave up after {} attempts: --timeout {} s would pass)",
                failure.reason(),
                retry + 1,
                cfg.timeout.as_secs_f64()
            );
        }
        tokio::time::sleep(wait).await;
        retry += 1;
    };
    if reply.finish_reason.as_deref() == Some("length") {
        // `ask` has no token flag: the bounds above are the whole budget.
        anyhow::bail!("LLM: the reply was cut at its {max_tokens}-token limit (not valid JSON)");
    }
    serde_json::from_str(reply.content.trim())
        .map_err(|e| anyhow::anyhow!("LLM reply is not JSON ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_are_found_and_other_brackets_ignored() {
        let t = "Delaware law governs [a.txt §0012 lines 3-5]; see also [note] and [b.txt §0001 lines 1-2].";
        assert_eq!(
            cited(t),
            vec!["[a.txt §0012 lines 3-5]", "[b.txt §0001 lines 1-2]"]
        );
    }
}
