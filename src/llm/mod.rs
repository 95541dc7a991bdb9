//! The OpenAI-compatible LLM client and what every kind of request shares:
//! its configuration, the retry policy and the on-disk answer cache. It sits
//! below its users (extraction, title mapping, answers) and knows none of
//! them: what to ask, how to check the answer and what to cache is theirs.

pub mod cache;
pub mod client;
pub mod config;
pub mod repetition;
pub mod retry;
pub mod server;
pub mod sse;

pub use client::{CallError, ChatAnswer, LlmClient};
pub use config::LlmConfig;
pub use retry::RetryPolicy;
