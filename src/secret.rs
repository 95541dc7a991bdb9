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
/// user-info part (`https://user:pass@host` -> `https://***@host`) and the
/// value of every query parameter and the fragment (`?code=abc&region=eu`
/// -> `?code=***&region=***`). A gateway may take its key under any name
/// (`code`, `sig`, `k`), so no list of names can be complete; what a reader
/// needs from a shown endpoint is its scheme, host and path. Every place
/// that shows an endpoint (run lines, summary.md and .json,
/// report-meta.json, errors) passes it through here. Some gateways take the
/// key as a path segment (`/key/sk-.../v1`): a segment that looks like a
/// key (see [`key_like_segment`]) or follows one named like a key is
/// replaced too.
pub fn redact_urls(text: &str) -> String {
    use once_cell::sync::Lazy;
    use regex::Regex;
    static URL: Lazy<Regex> =
        Lazy::new(|| Regex::new(r#"(?i)\b[a-z][a-z0-9+.-]*://[^\s"'<>`]+"#).expect("static regex"));
    URL.replace_all(text, |c: &regex::Captures<'_>| redact_url(&c[0]))
        .into_owned()
}

/// One URL with its user-info, query values and fragment replaced by `***`.
pub fn redact_url(url: &str) -> String {
    let (head, fragment) = match url.split_once('#') {
        Some((h, _)) => (h, Some("***")),
        None => (url, None),
    };
    let (base, query) = match head.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (head, None),
    };
    let mut out = match base.split_once("://") {
        Some((scheme, rest)) => {
            let authority_end = rest.find('/').unwrap_or(rest.len());
            let path = redact_path(&rest[authority_end..]);
            let authority = &rest[..authority_end];
            match authority.rfind('@') {
                Some(at) => format!("{scheme}://***@{}{path}", &authority[at + 1..]),
                None => format!("{scheme}://{authority}{path}"),
            }
        }
        None => base.to_string(),
    };
    if let Some(q) = query {
        out.push('?');
        let parts: Vec<String> = q
            .split(['&', ';'])
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) => format!("{name}=***"),
                None if pair.is_empty() => String::new(),
                None => "***".to_string(),
            })
            .collect();
        out.push_str(&parts.join("&"));
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// Segments a gateway names before the key in its path.
const KEY_SEGMENT_NAMES: [&str; 8] = [
    "key", "keys", "apikey", "api-key", "api_key", "token", "secret", "auth",
];

/// A URL path with every key-like segment (and every segment after one
/// named in [`KEY_SEGMENT_NAMES`]) replaced by `***`.
fn redact_path(path: &str) -> String {
    let mut after_name = false;
    path.split('/')
        .map(|seg| {
            let hide = !seg.is_empty() && (after_name || key_like_segment(seg));
            after_name = KEY_SEGMENT_NAMES.contains(&seg.to_ascii_lowercase().as_str());
            if hide {
                "***".to_string()
            } else if seg.contains('=') {
                // `/apikey=SECRET/v1`, `/v1;token=SECRET`: parameters in the
                // path, their values hidden as a query's are.
                seg.split(';')
                    .map(|p| match p.split_once('=') {
                        Some((name, _)) => format!("{name}=***"),
                        None => p.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(";")
            } else {
                seg.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// A path segment that is a key rather than a name: a provider's key prefix
/// (`sk-`, `hf_`, ...), or 24 or more characters of letters, digits, `-`
/// and `_` with both letters and digits (a token; a path's words have no
/// run that long). A model name so shaped is hidden too: a shown endpoint
/// may lose a word, never a key.
pub fn key_like_segment(seg: &str) -> bool {
    const PREFIXES: [&str; 7] = ["sk-", "sk_", "pk-", "hf_", "gsk_", "xai-", "AIza"];
    let token_chars = seg
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    token_chars
        && (PREFIXES
            .iter()
            .any(|p| seg.starts_with(p) && seg.len() > p.len() + 8)
            || (seg.len() >= 24
                && seg.chars().any(|c| c.is_ascii_digit())
                && seg.chars().any(|c| c.is_ascii_alphabetic())))
}

#[cfg(test)]
mod tests {
    use super::redact_urls;

    /// A key written into the path as a parameter is hidden, the path's
    /// other words kept.
    #[test]
    fn a_key_as_a_path_parameter_is_redacted() {
        assert_eq!(
            redact_urls("LLM at http://gw.example/apikey=SECRET/v1 (x)"),
            "LLM at http://gw.example/apikey=***/v1 (x)"
        );
        assert_eq!(
            redact_urls("http://gw.example/v1;token=abc;region=eu/chat"),
            "http://gw.example/v1;token=***;region=***/chat"
        );
        assert_eq!(
            redact_urls("http://127.0.0.1:8080/v1"),
            "http://127.0.0.1:8080/v1"
        );
    }

    #[test]
    fn url_credentials_are_redacted_and_the_rest_kept() {
        assert_eq!(
            redact_urls("LLM m at https://gw.example/v1?api-key=s3cr3t&region=eu (x)"),
            "LLM m at https://gw.example/v1?api-key=***&region=*** (x)"
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

    #[test]
    fn a_key_in_the_urls_path_is_redacted_and_the_words_kept() {
        assert_eq!(
            redact_urls("LLM m at https://gw.example/key/sk-abcdef1234567890XYZ/v1 (x)"),
            "LLM m at https://gw.example/key/***/v1 (x)"
        );
        assert_eq!(
            redact_urls("http://gw/token/plainwordsecret/v1"),
            "http://gw/token/***/v1"
        );
        assert_eq!(
            redact_urls("http://gw/a1b2c3d4e5f6a7b8c9d0e1f2a3b4/v1/chat"),
            "http://gw/***/v1/chat"
        );
        assert_eq!(
            redact_urls("http://u:p@gw/hf_abcdefghijklmnop/v1?k=1"),
            "http://***@gw/***/v1?k=***"
        );
        for kept in [
            "http://127.0.0.1:8000/v1",
            "https://api.example.com/openai/deployments/chat/v1/",
            "http://gw/v1/chat/completions",
        ] {
            assert_eq!(redact_urls(kept), kept);
        }
    }

    #[test]
    fn every_query_value_and_the_fragment_are_redacted_whatever_their_name() {
        // Issue 37: `code` is on no list of secret names.
        assert_eq!(
            redact_urls("extractor: LLM m at http://host/v1?code=SECRET (concurrency 4)"),
            "extractor: LLM m at http://host/v1?code=*** (concurrency 4)"
        );
        assert_eq!(
            redact_urls("\"url\":\"bolt://db:7687?password=hunter2&x=1#tok\""),
            "\"url\":\"bolt://db:7687?password=***&x=***#***\""
        );
        assert_eq!(redact_urls("http://h/p?SECRET"), "http://h/p?***");
        assert_eq!(
            redact_urls("neo4j://u:p@db:7687/x@y"),
            "neo4j://***@db:7687/x@y"
        );
        for shown in [
            redact_urls("http://host/v1?code=SECRET"),
            redact_urls("see http://host/v1?a=1&code=SECRET;k=SECRET"),
        ] {
            assert!(!shown.contains("SECRET"), "{shown}");
        }
    }
}
