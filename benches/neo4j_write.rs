//! Benchmark: neo4j_write (being built; see its issue).
fn main() {}
