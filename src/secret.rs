//! Secrets (the LLM API key, the Neo4j password). `Debug` and `Display`
//! print `***`, so a secret cannot leak through logs, errors or reports by
//! accident; only `expose` gives the value, for the one place that sends it.

/// A secret value from the environment.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(s: impl Into<String>) -> Self {
        Secret(s.into())
    }

    /// The secret itself, for the request header or the login only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

impl std::fmt::Display for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// `text` with the credentials of every URL in it replaced by `***`: the
/// user-info part (`https://user:pass@host` -> `https://***@host`) and
/// query values whose name says key, token, secret, password, signature or
/// auth (`?api-key=abc` -> `?api-key=***`, as some gateways take the key).
/// Every place that shows an endpoint (run lines, summary.md and .json,
/// report-meta.json, errors) passes it through here.
pub fn redact_urls(text: &str) -> String {
    use once_cell::sync::Lazy;
    use regex::Regex;
    static USERINFO: Lazy<Regex> =
        Lazy::new(|| Regex::new(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#@\s]+@").expect("static regex"));
    static QUERY: Lazy<Regex> = Lazy::new(|| {
        Regex::new(
            r"(?i)([?&;][^=&#\s]*(?:key|token|secret|pass|pwd|auth|sig|credential)[^=&#\s]*=)[^&#\s]+",
        )
        .expect("static regex")
    });
    let t = USERINFO.replace_all(text, "${1}***@");
    QUERY.replace_all(&t, "${1}***").into_owned()
}

#[cfg(test)]
mod tests {
    use super::redact_urls;

    #[test]
    fn url_credentials_are_redacted_and_the_rest_kept() {
        assert_eq!(
            redact_urls("LLM m at https://gw.example/v1?api-key=s3cr3t&region=eu (x)"),
            "LLM m at https://gw.example/v1?api-key=***&region=eu (x)"
        );
        assert_eq!(
            redact_urls("Neo4j at bolt://neo4j:hunter2@db:7687 and http://u@h/x?access_token=abc"),
            "Neo4j at bolt://***@db:7687 and http://***@h/x?access_token=***"
        );
        assert_eq!(
            redact_urls("http://127.0.0.1:8000/v1"),
            "http://127.0.0.1:8000/v1"
        );
        assert_eq!(redact_urls("a@b.com ?page=2"), "a@b.com ?page=2");
    }
}
