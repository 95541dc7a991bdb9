//! What the server says about itself, where it says it: llama.cpp's
//! `GET /props` (context size per slot, parallel slots) and `POST
//! /tokenize` (the model's own token count). Other servers have neither;
//! every probe answers `None` then and the caller falls back to its flags
//! and the configured tokenizer.

use super::client::LlmClient;
use serde_json::{json, Value};
use std::time::Duration;

/// Limits the server reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServerInfo {
    /// Context of one slot, in tokens (prompt and answer together).
    pub context_tokens: Option<u32>,
    /// Requests the server runs at once; more wait in its queue, making no
    /// progress.
    pub slots: Option<u32>,
}

/// Sends a probe (with the key, when one is set) and reads its JSON body;
/// `None` for any failure: a server without the endpoint is not an error.
async fn answer_json(
    cfg: &crate::llm::LlmConfig,
    mut req: reqwest::RequestBuilder,
) -> Option<Value> {
    if let Some(k) = &cfg.api_key {
        req = req.bearer_auth(k.expose());
    }
    let resp = req.send().await.ok()?;
    if !resp.status().is_success() {
        return None;
    }
    resp.json().await.ok()
}

/// A probe waits at most this long (or the idle timeout, when shorter).
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

fn probe_timeout(client: &LlmClient) -> Duration {
    client.config().timeout.min(PROBE_TIMEOUT)
}

/// `GET {root}/props`; `None` when the server has no such endpoint.
pub async fn probe(client: &LlmClient) -> Option<ServerInfo> {
    let cfg = client.config();
    let req = client
        .http()
        .get(cfg.root_url_for("/props"))
        .timeout(probe_timeout(client));
    let v = answer_json(cfg, req).await?;
    let n = |p: &str| {
        v.pointer(p)
            .and_then(Value::as_u64)
            .filter(|&n| n > 0)
            .map(|n| n.min(u64::from(u32::MAX)) as u32)
    };
    let info = ServerInfo {
        context_tokens: n("/default_generation_settings/n_ctx"),
        slots: n("/total_slots"),
    };
    (info != ServerInfo::default()).then_some(info)
}

/// The model's token count of `text` (`POST {root}/tokenize`), `None` when
/// the server does not offer it.
pub async fn count_tokens(client: &LlmClient, text: &str) -> Option<u64> {
    let cfg = client.config();
    let req = client
        .http()
        .post(cfg.root_url_for("/tokenize"))
        .timeout(probe_timeout(client))
        .json(&json!({"content": text, "add_special": false}));
    let v = answer_json(cfg, req).await?;
    v.get("tokens")
        .and_then(Value::as_array)
        .map(|t| t.len() as u64)
}

#[cfg(test)]
mod tests {
    #[test]
    fn root_drops_v1() {
        let root = |base: &str| {
            crate::llm::LlmConfig::new(base, "m")
                .unwrap()
                .root_url_for("/props")
        };
        assert_eq!(root("http://h:1/v1"), "http://h:1/props");
        assert_eq!(root("http://h:1/api"), "http://h:1/api/props");
    }
}
