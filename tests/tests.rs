//! Integration tests, built into one binary. Each area has its own module
//! under `tests/it/`; `it::util` gives every test its own temp directory and
//! paths to the fixtures and the shared corpus.

mod it;

/// The loopback OpenAI-compatible test server (shared with the benches).
#[path = "support/fake_server.rs"]
#[allow(dead_code)]
pub mod fake_server;
