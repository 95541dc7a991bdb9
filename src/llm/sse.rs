//! Reading a streamed chat completion (server-sent events): the content
//! deltas, the finish reason, the server's `usage` and (llama.cpp) its own
//! timings, fed chunk by chunk as the bytes arrive. Comment lines (`: ping`)
//! are not progress; prompt-progress events are.

use super::client::ChatAnswer;
use serde_json::Value;
use std::time::Duration;

/// The answer as far as it has streamed.
#[derive(Debug, Default)]
pub struct SseAnswer {
    buf: Vec<u8>,
    pub content: String,
    pub finish_reason: Option<String>,
    pub usage: Option<(u64, u64)>,
    /// Prompt tokens from the server's prefix cache, where an event said.
    pub cached: Option<u64>,
    /// llama.cpp's `timings`: prompt and generation milliseconds.
    pub server_ms: Option<f64>,
    /// Events that carried progress (a token or prompt progress).
    pub deltas: u64,
    /// Content deltas (about one token each on llama.cpp).
    pub content_deltas: u64,
    /// `data: [DONE]` was seen.
    pub done: bool,
    /// An `error` object the server sent inside the stream.
    pub error: Option<String>,
}

impl SseAnswer {
    /// Feeds the next bytes; complete lines are parsed at once.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.buf.extend_from_slice(bytes);
        while let Some(nl) = self.buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=nl).collect();
            let line = String::from_utf8_lossy(&line);
            self.line(line.trim_end_matches(['\r', '\n']))?;
        }
        Ok(())
    }

    fn line(&mut self, line: &str) -> Result<(), String> {
        let Some(data) = line.strip_prefix("data:") else {
            // Blank separators, comments (`: ping`), `event:` and `id:` lines.
            return Ok(());
        };
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let v: Value = serde_json::from_str(data)
            .map_err(|e| format!("a streamed event is not JSON ({e}): {}", quote(data)))?;
        if let Some(e) = v.get("error") {
            self.error = Some(
                e.get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| quote(&e.to_string()), quote),
            );
            self.done = true;
            return Ok(());
        }
        let mut progress = v.get("prompt_progress").is_some();
        if let Some(c) = v
            .pointer("/choices/0/delta/content")
            .and_then(Value::as_str)
        {
            if !c.is_empty() {
                self.content.push_str(c);
                self.content_deltas += 1;
                progress = true;
            }
        }
        if let Some(f) = v
            .pointer("/choices/0/finish_reason")
            .and_then(Value::as_str)
        {
            self.finish_reason = Some(f.to_string());
            progress = true;
        }
        let cached = super::client::cached_prompt_tokens(&v);
        if cached > 0 {
            self.cached = Some(cached);
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            self.usage = Some((n("prompt_tokens"), n("completion_tokens")));
        }
        if let Some(t) = v.get("timings") {
            let ms = |k: &str| t.get(k).and_then(Value::as_f64).unwrap_or(0.0);
            self.server_ms = Some(ms("prompt_ms") + ms("predicted_ms"));
        }
        if progress {
            self.deltas += 1;
        }
        Ok(())
    }

    /// The finished answer. Without the server's `usage`, the completion
    /// tokens are the content deltas and the prompt tokens are unknown (0);
    /// `usage_reported` says which.
    pub fn into_answer(self, elapsed: Duration) -> ChatAnswer {
        let (tokens_in, tokens_out, usage_reported) = match self.usage {
            Some((i, o)) => (i, o, true),
            None => (0, self.content_deltas, false),
        };
        ChatAnswer {
            content: self.content,
            tokens_in,
            tokens_out,
            tokens_cached: self.cached.unwrap_or(0).min(tokens_in),
            finish_reason: self.finish_reason,
            usage_reported,
            elapsed,
            server_time: self
                .server_ms
                .map(|ms| Duration::from_secs_f64(ms / 1000.0)),
        }
    }
}

fn quote(s: &str) -> String {
    s.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_deltas_finish_usage_and_timings_across_chunk_borders() {
        let stream = concat!(
            ": ping\n\n",
            "data: {\"choices\":[],\"prompt_progress\":{\"processed\":10}}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"{\\\"a\\\"\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\":1}\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2},\"timings\":{\"prompt_ms\":5.0,\"predicted_ms\":15.0,\"cache_n\":4}}\n\n",
            "data: [DONE]\n\n"
        );
        let mut a = SseAnswer::default();
        // Split at every 7th byte: lines cross chunk borders.
        for chunk in stream.as_bytes().chunks(7) {
            a.feed(chunk).unwrap();
        }
        assert!(a.done);
        assert_eq!(
            a.deltas, 4,
            "prompt progress, two tokens, finish; not the ping"
        );
        let ans = a.into_answer(Duration::from_millis(30));
        assert_eq!(ans.content, "{\"a\":1}");
        assert_eq!(ans.finish_reason.as_deref(), Some("length"));
        assert_eq!(
            (ans.tokens_in, ans.tokens_out, ans.usage_reported),
            (7, 2, true)
        );
        assert_eq!(ans.server_time, Some(Duration::from_millis(20)));
        assert_eq!(ans.tokens_cached, 4, "llama.cpp's cache_n");
        let openai = serde_json::json!({"usage": {"prompt_tokens": 2000,
            "prompt_tokens_details": {"cached_tokens": 1536}}, "timings": {"cache_n": 9}});
        assert_eq!(super::super::client::cached_prompt_tokens(&openai), 1536);
    }

    #[test]
    fn without_usage_the_deltas_are_counted_and_errors_are_kept() {
        let mut a = SseAnswer::default();
        a.feed(b"data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\r\n\r\ndata: {\"choices\":[{\"delta\":{\"content\":\"y\"}}]}\n")
            .unwrap();
        let ans = a.into_answer(Duration::ZERO);
        assert_eq!(
            (ans.tokens_in, ans.tokens_out, ans.usage_reported),
            (0, 2, false)
        );
        let mut b = SseAnswer::default();
        b.feed(b"data: {\"error\":{\"message\":\"slot crashed\"}}\n")
            .unwrap();
        assert_eq!(b.error.as_deref(), Some("slot crashed"));
        assert!(SseAnswer::default().feed(b"data: {nope\n").is_err());
    }
}
