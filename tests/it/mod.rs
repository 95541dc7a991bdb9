pub mod util;

mod crash;
mod extract;
mod graph_neo4j;
mod index;
mod ingest;
mod ingest_neo4j;
mod llm;
mod plan;
mod report;
mod tree;
