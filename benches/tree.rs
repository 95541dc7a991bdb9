//! Benchmark: tree (being built; see its issue).
fn main() {}
