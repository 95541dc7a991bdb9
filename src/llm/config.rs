//! How to reach an OpenAI-compatible chat-completions server: URL, model,
//! key, time limits, retries, breaker and prices. Validation without I/O;
//! every error shows the fix. Used by every kind of LLM request (extraction,
//! title mapping, answers), so it lives below all of them.

use anyhow::{bail, Result};
use std::time::Duration;

pub use crate::secret::Secret;

/// Default wait without progress, in seconds: long enough for a CPU
/// llama.cpp server to read a prompt (it reports progress meanwhile) and
/// short next to a stalled connection.
pub const DEFAULT_IDLE_SECS: u64 = 120;

/// How to reach an OpenAI-compatible chat-completions server.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    /// Base URL without the trailing `/chat/completions`, e.g.
    /// `http://127.0.0.1:8000/v1`.
    pub base_url: String,
    pub model: String,
    pub api_key: Option<Secret>,
    /// The longest wait without progress in one request: for the reply,
    /// for prompt progress or the first token, and between tokens. Not a
    /// bound on the whole answer (`max_tokens` bounds that), so a slow CPU
    /// server that keeps producing is never cut off.
    pub timeout: Duration,
    /// `max_tokens` of every request, overriding the one computed from the
    /// section's size and the model's limits (`--max-tokens`).
    pub max_tokens: Option<u32>,
    /// Largest answer asked for when the server does not say (hosted
    /// models: 16,384, what gpt-4o-mini allows).
    pub output_cap: u32,
    /// The model's context in tokens (`--context-tokens`); otherwise read
    /// from the server (llama.cpp `GET /props`) where it says.
    pub context_tokens: Option<u32>,
    /// Retries after the first attempt for 408/429/5xx/timeouts/connection
    /// errors.
    pub max_retries: u32,
    /// First backoff ceiling; doubles per retry (full jitter below it).
    pub backoff_base: Duration,
    /// Largest backoff and largest honoured `Retry-After`.
    pub backoff_max: Duration,
    /// Bound on the time spent on one section piece, attempts and waits
    /// together (not timeout x attempts): no new attempt or backoff starts
    /// past it. An answer in progress is bounded by `timeout` and
    /// `max_tokens`, not by this.
    pub section_timeout: Duration,
    /// Consecutive transport failures (timeouts, refused or reset
    /// connections) after which the run stops sending: the circuit breaker.
    pub breaker_after: u32,
    /// USD per million prompt tokens (0 when unknown).
    pub price_in_per_mtok: f64,
    /// USD per million completion tokens (0 when unknown).
    pub price_out_per_mtok: f64,
}

impl LlmConfig {
    /// A configuration with default limits (120 s without progress, 4
    /// retries, 500 ms backoff base, 30 s backoff cap, 180 s per section
    /// before a new attempt, breaker after 5 transport failures in a row).
    /// Checks the URL and model.
    pub fn new(base_url: &str, model: &str) -> Result<Self> {
        let base_url = check_url(base_url)?;
        let model = model.trim();
        if model.is_empty() {
            bail!("the model name is empty; set KGROUTE_MODEL or --model, e.g. gpt-4o-mini");
        }
        Ok(LlmConfig {
            base_url,
            model: model.to_string(),
            api_key: None,
            timeout: Duration::from_secs(DEFAULT_IDLE_SECS),
            max_tokens: None,
            output_cap: 16_384,
            context_tokens: None,
            max_retries: 4,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            section_timeout: Duration::from_secs(180),
            breaker_after: 5,
            price_in_per_mtok: 0.0,
            price_out_per_mtok: 0.0,
        })
    }

    /// Builds the configuration from the ingest command's flags, falling
    /// back to `KGROUTE_LLM_URL`, `KGROUTE_MODEL` and `OPENAI_API_KEY`
    /// (prices from `KGROUTE_PRICE_IN` / `KGROUTE_PRICE_OUT`, USD per
    /// million tokens). `None` when no URL is configured: the rules
    /// extractor runs.
    pub fn from_env_and_flags(
        url: Option<String>,
        model: Option<String>,
    ) -> Result<Option<LlmConfig>> {
        Self::from_flags_and(url, model, |k| std::env::var(k).ok())
    }

    /// [`LlmConfig::from_env_and_flags`] with the environment given as a
    /// lookup function (testable without touching the process environment).
    pub fn from_flags_and(
        url: Option<String>,
        model: Option<String>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<LlmConfig>> {
        let env = |k: &str| lookup(k).filter(|v| !v.trim().is_empty());
        let Some(url) = url
            .filter(|u| !u.trim().is_empty())
            .or_else(|| env("KGROUTE_LLM_URL"))
        else {
            return Ok(None);
        };
        let Some(model) = model
            .filter(|m| !m.trim().is_empty())
            .or_else(|| env("KGROUTE_MODEL"))
        else {
            bail!("an LLM URL is configured ({}) but no model; set KGROUTE_MODEL or --model, e.g. gpt-4o-mini", url.trim());
        };
        let mut cfg = LlmConfig::new(&url, &model)?;
        cfg.api_key = env("OPENAI_API_KEY").map(Secret::new);
        cfg.price_in_per_mtok = price(env("KGROUTE_PRICE_IN"), "KGROUTE_PRICE_IN")?;
        cfg.price_out_per_mtok = price(env("KGROUTE_PRICE_OUT"), "KGROUTE_PRICE_OUT")?;
        Ok(Some(cfg))
    }

    /// `{base}/chat/completions`.
    pub fn endpoint(&self) -> String {
        self.url_for("/chat/completions")
    }

    /// `{base}{path}`, the base URL's query (a gateway's `?api-key=...`)
    /// kept after the path rather than before it.
    pub fn url_for(&self, path: &str) -> String {
        join_path(&self.base_url, path)
    }

    /// `{root}{path}`: the server's root is the base URL without a trailing
    /// `/v1` (llama.cpp's `/props`, `/tokenize`), its query kept.
    pub fn root_url_for(&self, path: &str) -> String {
        let (base, query) = split_query(&self.base_url);
        let root = base.strip_suffix("/v1").unwrap_or(base);
        join_path(&format!("{root}{query}"), path)
    }

    /// Cost in USD of the given token counts at the configured prices.
    pub fn cost(&self, tokens_in: u64, tokens_out: u64) -> f64 {
        (tokens_in as f64 * self.price_in_per_mtok + tokens_out as f64 * self.price_out_per_mtok)
            / 1e6
    }
}

fn price(v: Option<String>, name: &str) -> Result<f64> {
    match v {
        None => Ok(0.0),
        Some(s) => match s.trim().parse::<f64>() {
            Ok(p) if p >= 0.0 && p.is_finite() => Ok(p),
            _ => bail!("{name} must be a non-negative number of USD per million tokens, e.g. 0.15; got {s:?}"),
        },
    }
}

/// Checks an LLM base URL: scheme http/https and a host; trailing `/` and a
/// pasted `/chat/completions` are removed.
fn check_url(raw: &str) -> Result<String> {
    let t = raw.trim();
    let example = "e.g. http://127.0.0.1:8000/v1";
    // Echo the value without its query or credentials: either may hold a key.
    let shown = {
        let (base, query) = split_query(t);
        let base = match base.split_once("://") {
            Some((scheme, rest)) => match rest.split_once('@') {
                Some((_, host)) => format!("{scheme}://***@{host}"),
                None => base.to_string(),
            },
            None => base.to_string(),
        };
        if query.is_empty() {
            base
        } else {
            format!("{base}?***")
        }
    };
    let url = match reqwest::Url::parse(t) {
        Ok(u) => u,
        Err(_) => bail!("KGROUTE_LLM_URL must include a scheme and host, {example}; got {shown:?}"),
    };
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        bail!("KGROUTE_LLM_URL must include a scheme and host, {example}; got {shown:?}");
    }
    if !url.username().is_empty() || url.password().is_some() {
        bail!(
            "KGROUTE_LLM_URL must not carry credentials; put the key in OPENAI_API_KEY ({example})"
        );
    }
    let (base, query) = split_query(t);
    let base = base.trim_end_matches('/');
    let base = base.strip_suffix("/chat/completions").unwrap_or(base);
    Ok(format!("{base}{query}"))
}

/// `(before the query, "?query" or "")`.
fn split_query(url: &str) -> (&str, &str) {
    match url.find('?') {
        Some(i) => (&url[..i], &url[i..]),
        None => (url, ""),
    }
}

/// `path` appended to `url`'s path, its query (if any) after it.
fn join_path(url: &str, path: &str) -> String {
    let (base, query) = split_query(url);
    format!("{base}{path}{query}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_never_prints() {
        let mut c = LlmConfig::new("http://127.0.0.1:8000/v1/", "m").unwrap();
        c.api_key = Some(Secret::new("sk-abc123"));
        assert_eq!(c.base_url, "http://127.0.0.1:8000/v1");
        let dbg = format!("{c:?} {}", c.api_key.as_ref().unwrap());
        assert!(!dbg.contains("sk-abc123"), "{dbg}");
        assert!(dbg.contains("***"));
    }

    #[test]
    fn bad_urls_show_the_fix() {
        for bad in [
            "127.0.0.1:8000",
            "ftp://x/v1",
            "not a url",
            "http://user:pw@host/v1",
        ] {
            let e = LlmConfig::new(bad, "m").unwrap_err().to_string();
            assert!(e.contains("e.g. http://127.0.0.1:8000/v1"), "{bad}: {e}");
        }
        assert!(
            LlmConfig::new("http://h/v1/chat/completions", "m")
                .unwrap()
                .endpoint()
                == "http://h/v1/chat/completions"
        );
        assert!(LlmConfig::new("http://h/v1", " ").is_err());
    }

    #[test]
    fn a_key_in_the_query_stays_after_every_path_and_out_of_errors() {
        let c = LlmConfig::new("https://gw.example/v1/?api-key=K123", "m").unwrap();
        assert_eq!(
            c.endpoint(),
            "https://gw.example/v1/chat/completions?api-key=K123"
        );
        assert_eq!(
            c.url_for("/models"),
            "https://gw.example/v1/models?api-key=K123"
        );
        assert_eq!(
            c.root_url_for("/props"),
            "https://gw.example/props?api-key=K123"
        );
        let c = LlmConfig::new("http://h:8080/v1/chat/completions?api-key=K1", "m").unwrap();
        assert_eq!(c.endpoint(), "http://h:8080/v1/chat/completions?api-key=K1");
        for bad in [
            "htp//gw.example/v1?api-key=K123",
            "ftp://gw.example/v1?api-key=K123",
        ] {
            let e = LlmConfig::new(bad, "m").unwrap_err().to_string();
            assert!(!e.contains("K123"), "{e}");
            assert!(e.contains("?***"), "{e}");
        }
    }

    #[test]
    fn flags_win_and_no_url_means_none() {
        // Flags alone decide when given; no env var is read for them.
        let c = LlmConfig::from_env_and_flags(Some("http://h:1/v1".into()), Some("m1".into()))
            .unwrap()
            .unwrap();
        assert_eq!(
            (c.base_url.as_str(), c.model.as_str()),
            ("http://h:1/v1", "m1")
        );
        assert!((c.cost(1_000_000, 0) - c.price_in_per_mtok).abs() < 1e-9);
    }

    #[test]
    fn environment_fills_what_flags_leave_out() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert!(
            LlmConfig::from_flags_and(None, None, env(&[]))
                .unwrap()
                .is_none(),
            "no URL: rules extractor"
        );
        let c = LlmConfig::from_flags_and(
            None,
            None,
            env(&[
                ("KGROUTE_LLM_URL", "http://10.0.0.5:8000/v1"),
                ("KGROUTE_MODEL", "qwen"),
                ("OPENAI_API_KEY", "sk-env"),
                ("KGROUTE_PRICE_IN", "0.15"),
            ]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (c.base_url.as_str(), c.model.as_str()),
            ("http://10.0.0.5:8000/v1", "qwen")
        );
        assert_eq!(c.api_key.as_ref().map(Secret::expose), Some("sk-env"));
        assert!((c.price_in_per_mtok - 0.15).abs() < 1e-12);
        // Flags win over the environment.
        let c = LlmConfig::from_flags_and(
            Some("http://flag:1/v1".into()),
            Some("m".into()),
            env(&[
                ("KGROUTE_LLM_URL", "http://env:2/v1"),
                ("KGROUTE_MODEL", "e"),
            ]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (c.base_url.as_str(), c.model.as_str()),
            ("http://flag:1/v1", "m")
        );
        // A URL without a model, a bad URL and a bad price say what to do.
        let e = LlmConfig::from_flags_and(Some("http://h/v1".into()), None, env(&[]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("set KGROUTE_MODEL or --model"), "{e}");
        let e = LlmConfig::from_flags_and(
            None,
            None,
            env(&[
                ("KGROUTE_LLM_URL", "localhost:8000"),
                ("KGROUTE_MODEL", "m"),
            ]),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("KGROUTE_LLM_URL must include a scheme and host, e.g. http://127.0.0.1:8000/v1; got \"localhost:8000\""), "{e}");
        let e = LlmConfig::from_flags_and(
            Some("http://h/v1".into()),
            Some("m".into()),
            env(&[("KGROUTE_PRICE_OUT", "cheap")]),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("KGROUTE_PRICE_OUT must be a non-negative number"),
            "{e}"
        );
    }
}
