//! One HTTP attempt at `POST {base}/chat/completions`, classified for the
//! retry policy. Retrying, concurrency and validation live in the callers
//! (extraction, title mapping); this module only speaks the protocol.
//! Error texts never contain the API key (it is redacted from anything a
//! server echoes back).

use super::config::LlmConfig;
use super::retry::{is_retryable_status, parse_retry_after};
use super::sse::SseAnswer;
use anyhow::{Context, Result};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The finish reason of an answer kgroute stopped because it looped.
pub const REPEATED: &str = "repetition";

/// A model's answer to one request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatAnswer {
    /// The answer's text (`choices[0].message.content`, or the streamed
    /// deltas); empty when missing.
    pub content: String,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// Of `tokens_in`, the prompt tokens the server took from its prefix
    /// cache ([`cached_prompt_tokens`]); 0 when it does not say.
    pub tokens_cached: u64,
    /// `stop`, `length` (cut at `max_tokens`: the answer is incomplete), ...
    pub finish_reason: Option<String>,
    /// The tokens are the server's own `usage` figures (not an estimate).
    pub usage_reported: bool,
    /// From sending the request to the answer's end, as the client saw it.
    pub elapsed: Duration,
    /// The server's own prompt + generation time, where it reports it
    /// (llama.cpp `timings`).
    pub server_time: Option<Duration>,
}

impl ChatAnswer {
    /// True when the answer was cut at the output limit.
    pub fn cut(&self) -> bool {
        self.finish_reason.as_deref() == Some("length")
    }

    /// The answer fell into a loop and was stopped there
    /// ([`super::repetition`]): its content is what came before the loop.
    pub fn repeated(&self) -> bool {
        self.finish_reason.as_deref() == Some(REPEATED)
    }

    /// Reads a non-streamed chat-completions body.
    pub fn from_body(v: &Value) -> ChatAnswer {
        let content = v
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let tokens = |p: &str| v.pointer(p).and_then(Value::as_u64);
        let usage_reported = v.get("usage").is_some_and(Value::is_object);
        let ms = |k: &str| v.pointer(&format!("/timings/{k}")).and_then(Value::as_f64);
        ChatAnswer {
            content,
            tokens_in: tokens("/usage/prompt_tokens").unwrap_or(0),
            tokens_out: tokens("/usage/completion_tokens").unwrap_or(0),
            tokens_cached: cached_prompt_tokens(v),
            finish_reason: v
                .pointer("/choices/0/finish_reason")
                .and_then(Value::as_str)
                .map(str::to_string),
            usage_reported,
            elapsed: Duration::ZERO,
            server_time: ms("prompt_ms")
                .zip(ms("predicted_ms"))
                .map(|(a, b)| Duration::from_secs_f64((a + b) / 1000.0)),
        }
    }
}

/// The prompt tokens a chat-completions body (or a stream's last event)
/// says came from the server's prefix cache: OpenAI-style
/// `usage.prompt_tokens_details.cached_tokens`, else llama.cpp's
/// `timings.cache_n` (tokens of the prompt reused from the slot's cache).
pub fn cached_prompt_tokens(v: &Value) -> u64 {
    v.pointer("/usage/prompt_tokens_details/cached_tokens")
        .and_then(Value::as_u64)
        .or_else(|| v.pointer("/timings/cache_n").and_then(Value::as_u64))
        .unwrap_or(0)
}

/// Why one attempt failed, as the retry policy sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// 408/429/5xx or a reply that is not a chat completion: try again later.
    Retryable {
        reason: String,
        retry_after: Option<Duration>,
    },
    /// Refused or reset connection: try again later; enough of these in a
    /// row open the extractor's circuit breaker.
    Transport(String),
    /// No progress (no reply, no token) within the idle timeout. Re-sending
    /// the same request as is rarely helps a slow server: the caller splits
    /// the piece or retries it once. Counts toward the breaker like a
    /// transport failure.
    Stalled(String),
    /// The server says the request does not fit its context: split the
    /// piece, never re-send it.
    TooLong(String),
    /// The server rejects `response_format: json_schema`; switch to
    /// `json_object` and try again.
    FormatUnsupported(String),
    /// Any other failure: do not retry.
    Fatal(String),
}

impl CallError {
    /// The reason, whatever the kind.
    pub fn reason(&self) -> &str {
        match self {
            CallError::Retryable { reason, .. } => reason,
            CallError::Transport(r)
            | CallError::Stalled(r)
            | CallError::TooLong(r)
            | CallError::FormatUnsupported(r)
            | CallError::Fatal(r) => r,
        }
    }
}

/// An OpenAI-compatible chat-completions client.
#[derive(Debug)]
pub struct LlmClient {
    http: reqwest::Client,
    cfg: LlmConfig,
    json_object_only: AtomicBool,
    /// The server is llama.cpp (it answered `GET /props`).
    llama_cpp: AtomicBool,
    /// Streamed events that carried progress, over every request: the
    /// heartbeat's tokens per second.
    streamed: AtomicU64,
}

/// `response_format` for strict JSON-schema output, or plain JSON mode for
/// servers without json_schema support.
pub fn response_format(name: &str, schema: &Value, json_object_only: bool) -> Value {
    if json_object_only {
        json!({"type": "json_object"})
    } else {
        json!({
            "type": "json_schema",
            "json_schema": {"name": name, "strict": true, "schema": schema}
        })
    }
}

/// Longest piece of a server's error body quoted in an error.
const BODY_QUOTE: usize = 300;

impl LlmClient {
    /// Builds the HTTP client. No total timeout: each attempt is bounded
    /// by the time without progress ([`LlmConfig::timeout`]).
    pub fn new(cfg: LlmConfig) -> Result<Self> {
        let http = reqwest::Client::builder()
            .connect_timeout(cfg.timeout.min(Duration::from_secs(10)))
            // llama.cpp's server closes a keep-alive connection after 5 s
            // idle; one reused just as it closes fails the request with
            // "connection closed before message completed". Dropping idle
            // connections first costs a reconnect, not an attempt.
            .pool_idle_timeout(Duration::from_secs(4))
            .build()
            .context("building the HTTP client for the LLM")?;
        Ok(LlmClient {
            http,
            cfg,
            json_object_only: AtomicBool::new(false),
            llama_cpp: AtomicBool::new(false),
            streamed: AtomicU64::new(0),
        })
    }

    /// Streamed events with progress so far (tokens, on llama.cpp).
    pub fn streamed(&self) -> u64 {
        self.streamed.load(Ordering::Relaxed)
    }

    /// Marks the server as llama.cpp (asks for prompt progress events).
    pub fn set_llama_cpp(&self) {
        self.llama_cpp.store(true, Ordering::Relaxed);
    }

    /// True once the server answered as llama.cpp: it turns a schema into
    /// a grammar (not billed as prompt) and keeps a prompt cache per slot.
    pub fn is_llama_cpp(&self) -> bool {
        self.llama_cpp.load(Ordering::Relaxed)
    }

    /// The HTTP client, for the server probes ([`super::server`]).
    pub fn http(&self) -> &reqwest::Client {
        &self.http
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

    /// One attempt asking for JSON output that matches `schema` (named
    /// `name` on the wire): strict `json_schema` output, or plain
    /// `json_object` once the server has rejected that; `max_tokens` bounds
    /// the answer (`None`: the server's default).
    pub async fn chat_structured(
        &self,
        messages: &[Value],
        name: &str,
        schema: &Value,
        max_tokens: Option<u32>,
    ) -> Result<ChatAnswer, CallError> {
        let schema_mode = !self.json_object_only();
        self.send(
            messages,
            response_format(name, schema, !schema_mode),
            schema_mode,
            self.cfg.timeout,
            max_tokens,
        )
        .await
    }

    /// One attempt with a caller's `response_format` (e.g. `{"type":
    /// "json_object"}` for a request that is not an extraction), its answer
    /// bounded by `max_tokens` (`--max-tokens` when given wins, since a
    /// server without a bound may generate until its context is full).
    pub async fn chat_with_format(
        &self,
        messages: &[Value],
        response_format: Value,
        schema_mode: bool,
        max_tokens: Option<u32>,
    ) -> Result<ChatAnswer, CallError> {
        self.send(
            messages,
            response_format,
            schema_mode,
            self.cfg.timeout,
            self.cfg.max_tokens.or(max_tokens),
        )
        .await
    }

    /// One attempt. The answer is streamed (server-sent events) and
    /// `idle` bounds the time without progress (the reply's headers, then
    /// each event), not the whole answer: a slow server that keeps
    /// producing tokens is never cut off; `max_tokens` bounds its length.
    /// A server that ignores `stream` and answers with one JSON body is
    /// read as such.
    async fn send(
        &self,
        messages: &[Value],
        response_format: Value,
        schema_mode: bool,
        idle: Duration,
        max_tokens: Option<u32>,
    ) -> Result<ChatAnswer, CallError> {
        let mut body = json!({
            "model": self.cfg.model,
            "messages": messages,
            "temperature": 0,
            "response_format": response_format,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if let Some(m) = max_tokens {
            body["max_tokens"] = json!(m);
        }
        if self.llama_cpp.load(Ordering::Relaxed) {
            // llama.cpp reports prompt-processing progress, so a long
            // prompt on a CPU server shows progress before the first token.
            body["return_progress"] = json!(true);
            // Reuse the slot's cached prefix (the system message every
            // request of a type shares); its default on recent servers,
            // said for older ones.
            body["cache_prompt"] = json!(true);
        }
        let mut req = self.http.post(self.cfg.endpoint()).json(&body);
        if let Some(k) = &self.cfg.api_key {
            req = req.bearer_auth(k.expose());
        }
        let started = Instant::now();
        let resp = match tokio::time::timeout(idle, req.send()).await {
            Err(_) => return Err(self.stalled(idle, "no reply")),
            Ok(Err(e)) => return Err(self.transport_error(e, idle)),
            Ok(Ok(r)) => r,
        };
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(parse_retry_after);
        let event_stream = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !(200..300).contains(&status) || !event_stream {
            let text = match tokio::time::timeout(idle, resp.text()).await {
                Err(_) => return Err(self.stalled(idle, "no reply body")),
                Ok(Err(e)) => return Err(self.transport_error(e, idle)),
                Ok(Ok(t)) => t,
            };
            if !(200..300).contains(&status) {
                return Err(self.http_error(status, &text, retry_after, schema_mode));
            }
            let v: Value = serde_json::from_str(&text).map_err(|e| CallError::Retryable {
                reason: format!("the server's reply is not a chat-completions JSON body ({e})"),
                retry_after: None,
            })?;
            let mut a = ChatAnswer::from_body(&v);
            a.elapsed = started.elapsed();
            return Ok(a);
        }
        let mut resp = resp;
        let mut sse = SseAnswer::default();
        let mut checked_at = 0;
        // Bytes that are no progress (comment pings) do not restart the
        // clock: only tokens and prompt progress do.
        let mut progress_at = Instant::now();
        loop {
            let left = idle.saturating_sub(progress_at.elapsed());
            let chunk = match tokio::time::timeout(left, resp.chunk()).await {
                Err(_) => {
                    let what = if sse.content.is_empty() {
                        "no token"
                    } else {
                        "the answer stopped"
                    };
                    return Err(self.stalled(idle, what));
                }
                Ok(Err(e)) => return Err(self.transport_error(e, idle)),
                Ok(Ok(None)) => break,
                Ok(Ok(Some(c))) => c,
            };
            let before = sse.deltas;
            sse.feed(&chunk).map_err(|reason| CallError::Retryable {
                reason,
                retry_after: None,
            })?;
            let new = sse.deltas - before;
            if new > 0 {
                self.streamed.fetch_add(new, Ordering::Relaxed);
                progress_at = Instant::now();
            }
            if sse.done {
                break;
            }
            if sse.content.len() >= checked_at + super::repetition::CHECK_EVERY {
                checked_at = sse.content.len();
                if let Some(at) = super::repetition::loop_start(&sse.content) {
                    // Dropping the response closes the connection, which
                    // stops the server's generation too.
                    sse.content.truncate(at);
                    sse.finish_reason = Some(REPEATED.to_string());
                    let mut a = sse.into_answer(started.elapsed());
                    if !a.usage_reported {
                        // The usage event never came: the prompt as
                        // characters / 4, so the bill is not zero.
                        a.tokens_in = messages
                            .iter()
                            .map(|m| m.to_string().len() as u64 / 4)
                            .sum();
                    }
                    return Ok(a);
                }
            }
        }
        if let Some(err) = sse.error.take() {
            return Err(CallError::Retryable {
                reason: format!("the server reported an error mid-answer: {err}"),
                retry_after: None,
            });
        }
        Ok(sse.into_answer(started.elapsed()))
    }

    fn stalled(&self, idle: Duration, what: &str) -> CallError {
        CallError::Stalled(self.redact(&format!(
            "{what} for {}s ({}); the server made no progress",
            idle.as_secs_f64(),
            self.cfg.endpoint()
        )))
    }

    fn http_error(
        &self,
        status: u16,
        text: &str,
        retry_after: Option<Duration>,
        schema_mode: bool,
    ) -> CallError {
        let quote: String = self.redact(text.trim()).chars().take(BODY_QUOTE).collect();
        let reason = self.redact(&format!(
            "HTTP {status} from {}: {quote}",
            self.cfg.endpoint()
        ));
        if is_retryable_status(status) {
            return CallError::Retryable {
                reason,
                retry_after,
            };
        }
        let lower = text.to_ascii_lowercase();
        if status == 400
            && schema_mode
            && (lower.contains("response_format") || lower.contains("json_schema"))
        {
            return CallError::FormatUnsupported(reason);
        }
        if status == 400
            && (lower.contains("context") || lower.contains("too long") || lower.contains("exceed"))
        {
            return CallError::TooLong(reason);
        }
        CallError::Fatal(reason)
    }

    /// Checks, before any section is sent, that the endpoint answers, takes
    /// the key and knows the model: `GET {base}/models`. Connection refused,
    /// a timeout, 401/403, a 2xx answer that is not JSON (an HTML page) and
    /// a model missing from the server's list are errors (the reason, never
    /// the key); a server without `/models` (404,
    /// 405) or one that is only busy (429, 5xx) passes, and the run's own
    /// retries and circuit breaker take over.
    pub async fn preflight(&self) -> Result<()> {
        let url = self.cfg.url_for("/models");
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
                let why = self.transport_error(e, timeout).reason().to_string();
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
                // Garbage or an HTML page (a proxy's, a web server's) is
                // no model server: every section would fail after it.
                let Ok(v) = serde_json::from_str::<Value>(&text) else {
                    return Err(fail(format!(
                        "HTTP {status} with an answer that is not JSON, so not an OpenAI-compatible \
                         /models list (is the URL the API's, ending in /v1?): {quote}"
                    )));
                };
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
