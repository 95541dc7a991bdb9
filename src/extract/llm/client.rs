//! One HTTP attempt at `POST {base}/chat/completions`, classified for the
//! retry policy. Retrying, concurrency and validation live in the caller
//! ([`crate::extract::Extractor`]); this module only speaks the protocol.
//! Error texts never contain the API key (it is redacted from anything a
//! server echoes back).

use super::prompt;
use super::retry::{is_retryable_status, parse_retry_after};
use crate::extract::config::LlmConfig;
use anyhow::{Context, Result};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A model's answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatAnswer {
    /// `choices[0].message.content` (empty when missing).
    pub content: String,
    pub tokens_in: u64,
    pub tokens_out: u64,
}

/// Why one attempt failed, as the retry policy sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// 408/429/5xx or a reply that is not a chat completion: try again later.
    Retryable {
        reason: String,
        retry_after: Option<Duration>,
    },
    /// Timeout, refused or reset connection: try again later; enough of
    /// these in a row open the extractor's circuit breaker.
    Transport(String),
    /// The server rejects `response_format: json_schema`; switch to
    /// `json_object` and try again.
    FormatUnsupported(String),
    /// Any other failure: do not retry.
    Fatal(String),
}

/// An OpenAI-compatible chat-completions client.
#[derive(Debug)]
pub struct LlmClient {
    http: reqwest::Client,
    cfg: LlmConfig,
    json_object_only: AtomicBool,
}

/// Longest piece of a server's error body quoted in an error.
const BODY_QUOTE: usize = 300;

impl LlmClient {
    /// Builds the HTTP client with the per-request timeout.
    pub fn new(cfg: LlmConfig) -> Result<Self> {
        let http = reqwest::Client::builder()
            .timeout(cfg.timeout)
            .connect_timeout(cfg.timeout.min(Duration::from_secs(10)))
            .build()
            .context("building the HTTP client for the LLM")?;
        Ok(LlmClient {
            http,
            cfg,
            json_object_only: AtomicBool::new(false),
        })
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &LlmConfig {
        &self.cfg
    }

    /// True once the server has rejected json_schema output for this run.
    pub fn json_object_only(&self) -> bool {
        self.json_object_only.load(Ordering::Relaxed)
    }

    /// Remembers, for the rest of the run, that the server lacks
    /// json_schema support.
    pub fn use_json_object(&self) {
        self.json_object_only.store(true, Ordering::Relaxed);
    }

    fn redact(&self, s: &str) -> String {
        let s = crate::secret::redact_urls(s);
        match &self.cfg.api_key {
            Some(k) if !k.expose().is_empty() => s.replace(k.expose(), "***"),
            _ => s,
        }
    }

    /// One attempt: sends `messages` (OpenAI `{role, content}` objects).
    pub async fn chat(&self, messages: &[Value]) -> Result<ChatAnswer, CallError> {
        self.chat_within(messages, self.cfg.timeout).await
    }

    /// [`Self::chat`] with this attempt's timeout (at most the configured one).
    pub async fn chat_within(
        &self,
        messages: &[Value],
        timeout: Duration,
    ) -> Result<ChatAnswer, CallError> {
        let timeout = timeout.min(self.cfg.timeout);
        let schema_mode = !self.json_object_only();
        self.send(
            messages,
            prompt::response_format(!schema_mode),
            schema_mode,
            timeout,
        )
        .await
    }

    /// One attempt with a caller's `response_format` (e.g. `{"type":
    /// "json_object"}` for a request that is not an extraction).
    pub async fn chat_with_format(
        &self,
        messages: &[Value],
        response_format: Value,
        schema_mode: bool,
    ) -> Result<ChatAnswer, CallError> {
        self.send(messages, response_format, schema_mode, self.cfg.timeout)
            .await
    }

    /// One attempt, bounded by `timeout`.
    async fn send(
        &self,
        messages: &[Value],
        response_format: Value,
        schema_mode: bool,
        timeout: Duration,
    ) -> Result<ChatAnswer, CallError> {
        let body = json!({
            "model": self.cfg.model,
            "messages": messages,
            "temperature": 0,
            "response_format": response_format,
        });
        let mut req = self
            .http
            .post(self.cfg.endpoint())
            .timeout(timeout)
            .json(&body);
        if let Some(k) = &self.cfg.api_key {
            req = req.bearer_auth(k.expose());
        }
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => return Err(self.transport_error(e, timeout)),
        };
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(parse_retry_after);
        let text = match resp.text().await {
            Ok(t) => t,
            Err(e) => return Err(self.transport_error(e, timeout)),
        };
        if !(200..300).contains(&status) {
            let quote: String = self.redact(text.trim()).chars().take(BODY_QUOTE).collect();
            let reason = self.redact(&format!(
                "HTTP {status} from {}: {quote}",
                self.cfg.endpoint()
            ));
            if is_retryable_status(status) {
                return Err(CallError::Retryable {
                    reason,
                    retry_after,
                });
            }
            let lower = text.to_ascii_lowercase();
            if status == 400
                && schema_mode
                && (lower.contains("response_format") || lower.contains("json_schema"))
            {
                return Err(CallError::FormatUnsupported(reason));
            }
            return Err(CallError::Fatal(reason));
        }
        let v: Value = serde_json::from_str(&text).map_err(|e| CallError::Retryable {
            reason: format!("the server's reply is not a chat-completions JSON body ({e})"),
            retry_after: None,
        })?;
        let content = v
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let tokens = |p: &str| v.pointer(p).and_then(Value::as_u64).unwrap_or(0);
        Ok(ChatAnswer {
            content,
            tokens_in: tokens("/usage/prompt_tokens"),
            tokens_out: tokens("/usage/completion_tokens"),
        })
    }

    /// Checks, before any section is sent, that the endpoint answers, takes
    /// the key and knows the model: `GET {base}/models`. Connection refused,
    /// a timeout, 401/403 and a model missing from the server's list are
    /// errors (the reason, never the key); a server without `/models` (404,
    /// 405) or one that is only busy (429, 5xx) passes, and the run's own
    /// retries and circuit breaker take over.
    pub async fn preflight(&self) -> Result<()> {
        let url = format!("{}/models", self.cfg.base_url);
        let timeout = self.cfg.timeout.min(Duration::from_secs(10));
        let mut req = self.http.get(&url).timeout(timeout);
        if let Some(k) = &self.cfg.api_key {
            req = req.bearer_auth(k.expose());
        }
        let fail = |why: String| {
            let why = self.redact(&why);
            anyhow::anyhow!(
                "the LLM endpoint {} failed the check before any document: {why}; check KGROUTE_LLM_URL / --llm-url, OPENAI_API_KEY and KGROUTE_MODEL / --model",
                crate::secret::redact_urls(&self.cfg.base_url)
            )
        };
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => {
                let why = match self.transport_error(e, timeout) {
                    CallError::Transport(r) | CallError::Fatal(r) => r,
                    CallError::Retryable { reason, .. } => reason,
                    CallError::FormatUnsupported(r) => r,
                };
                return Err(fail(why));
            }
        };
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap_or_default();
        let quote: String = self.redact(text.trim()).chars().take(BODY_QUOTE).collect();
        match status {
            401 | 403 => Err(fail(format!(
                "HTTP {status} (the key is missing, wrong or not allowed): {quote}"
            ))),
            200..=299 => {
                let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                let Some(models) = v.get("data").and_then(Value::as_array) else {
                    return Ok(());
                };
                let ids: Vec<&str> = models
                    .iter()
                    .filter_map(|m| m.get("id").and_then(Value::as_str))
                    .collect();
                if ids.is_empty() || ids.contains(&self.cfg.model.as_str()) {
                    return Ok(());
                }
                let mut shown: Vec<&str> = ids.iter().take(10).copied().collect();
                if ids.len() > 10 {
                    shown.push("...");
                }
                Err(fail(format!(
                    "unknown model `{}`; the server offers: {}",
                    self.cfg.model,
                    shown.join(", ")
                )))
            }
            _ => Ok(()),
        }
    }

    fn transport_error(&self, e: reqwest::Error, timeout: Duration) -> CallError {
        let kind = if e.is_timeout() {
            format!("request timed out after {:.1}s", timeout.as_secs_f64())
        } else if e.is_connect() {
            "could not connect".to_string()
        } else {
            "connection error".to_string()
        };
        let mut detail = String::new();
        let mut src: Option<&dyn std::error::Error> = Some(&e);
        while let Some(s) = src {
            detail.push_str(": ");
            detail.push_str(&s.to_string());
            src = s.source();
        }
        let reason = self.redact(&format!("{kind} ({}){detail}", self.cfg.endpoint()));
        if e.is_builder() {
            CallError::Fatal(reason)
        } else {
            CallError::Transport(reason)
        }
    }
}
