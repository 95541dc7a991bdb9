//! Sinks: where a document's graph is written. Neo4j and the offline
//! import-file writer sit behind one trait.
