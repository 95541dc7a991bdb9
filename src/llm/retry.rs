//! When and how long to wait before retrying an LLM request: 408, 429, 5xx,
//! timeouts and connection errors are retried with exponential backoff and
//! full jitter, honouring `Retry-After`; other 4xx never are.

use super::client::CallError;
use super::config::LlmConfig;
use rand::Rng;
use std::time::Duration;

/// Bounded exponential backoff with full jitter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// Ceiling of the first wait; doubles per retry.
    pub base: Duration,
    /// Largest wait, also the cap on `Retry-After`.
    pub max: Duration,
}

impl RetryPolicy {
    /// The policy a configuration asks for (`--max-retries` and the
    /// backoff bounds).
    pub fn of(cfg: &LlmConfig) -> Self {
        RetryPolicy {
            max_retries: cfg.max_retries,
            base: cfg.backoff_base,
            max: cfg.backoff_max,
        }
    }

    /// The wait before retry number `retry` (0-based): a uniform random
    /// duration in `[0, min(max, base * 2^retry)]`, or the server's
    /// `Retry-After` (capped at `max`) when it gave one.
    pub fn backoff(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(ra) = retry_after {
            return ra.min(self.max);
        }
        let ceiling = self
            .base
            .saturating_mul(2u32.saturating_pow(retry.min(20)))
            .min(self.max);
        let ms = ceiling.as_millis() as u64;
        if ms == 0 {
            return Duration::ZERO;
        }
        Duration::from_millis(rand::rng().random_range(0..=ms))
    }
}

/// Whether a failed attempt is worth another, and the wait the server
/// asked for: retryable statuses, stalls and transport failures (a
/// keep-alive connection the server closed as the request went out is
/// one) are; a refused format, a prompt too long or a fatal error are not.
pub fn worth_retrying(failure: &CallError) -> Option<Option<Duration>> {
    match failure {
        CallError::Retryable { retry_after, .. } => Some(*retry_after),
        CallError::Transport(_) | CallError::Stalled(_) => Some(None),
        CallError::Fatal(_) | CallError::FormatUnsupported(_) | CallError::TooLong(_) => None,
    }
}

/// Statuses worth retrying: 408, 429 and every 5xx.
pub fn is_retryable_status(status: u16) -> bool {
    status == 408 || status == 429 || (500..600).contains(&status)
}

/// `Retry-After` in seconds (the HTTP-date form is not honoured).
pub fn parse_retry_after(v: &str) -> Option<Duration> {
    v.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retryable_statuses() {
        for s in [408, 429, 500, 502, 503, 599] {
            assert!(is_retryable_status(s), "{s}");
        }
        for s in [200, 400, 401, 403, 404, 422] {
            assert!(!is_retryable_status(s), "{s}");
        }
    }

    #[test]
    fn backoff_is_bounded_and_honours_retry_after() {
        let p = RetryPolicy {
            max_retries: 5,
            base: Duration::from_millis(100),
            max: Duration::from_millis(1000),
        };
        for retry in 0..10 {
            let ceiling = Duration::from_millis((100u64 << retry).min(1000));
            for _ in 0..50 {
                assert!(p.backoff(retry, None) <= ceiling);
            }
        }
        assert_eq!(
            p.backoff(0, Some(Duration::from_millis(700))),
            Duration::from_millis(700)
        );
        assert_eq!(
            p.backoff(0, Some(Duration::from_secs(90))),
            Duration::from_millis(1000)
        );
        assert_eq!(parse_retry_after(" 2 "), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }

    #[test]
    fn jitter_spreads() {
        let p = RetryPolicy {
            max_retries: 5,
            base: Duration::from_millis(1000),
            max: Duration::from_secs(10),
        };
        let waits: std::collections::HashSet<Duration> =
            (0..50).map(|_| p.backoff(2, None)).collect();
        assert!(waits.len() > 10, "full jitter gives varied waits");
    }
}
