//! The LLM side of extraction: an OpenAI-compatible chat-completions client
//! with its retry policy, the prompt, the content-addressed answer cache,
//! and a loopback test double of such a server.

pub mod cache;
pub mod client;
pub mod fake_server;
pub mod prompt;
pub mod retry;
