//! Benchmark: plan (being built; see its issue).
fn main() {}
