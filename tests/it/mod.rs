pub mod util;

mod crash;
mod deploy;
mod doctype;
mod extract;
mod graph_neo4j;
mod index;
mod ingest;
mod ingest_neo4j;
mod llm;
mod llm_titles;
mod names;
mod plan;
mod report;
mod review;
mod routing;
mod shard;
mod tree;
