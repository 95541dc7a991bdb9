//! Benchmark: llm_concurrency (being built; see its issue).
fn main() {}
