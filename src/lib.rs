//! kgroute: turns corpora of long contracts into a knowledge graph while
//! paying an LLM for as little text as possible.
//!
//! Stages, each a module that hands one data type to the next:
//! tree ([`tree::DocTree`]) -> index/route ([`route::RoutePlan`]) ->
//! extract ([`extract::SectionExtraction`]) -> graph -> sink -> report.
//! See ARCHITECTURE.md.

pub mod ask;
pub mod atomic_file;
pub mod clause_model;
pub mod cli;
pub mod cmd;
pub mod contracts;
pub mod extract;
pub mod graph;
pub mod index;
pub mod llm;
pub mod lock;
pub mod neo4j;
pub mod pipeline;
pub mod register;
pub mod report;
pub mod review;
pub mod route;
pub mod saved_docs;
pub mod search;
pub mod secret;
pub mod shard;
pub mod sink;
pub mod stdout;
pub mod tree;
