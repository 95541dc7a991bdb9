//! Graph stage: merges a document's section extractions into one in-memory
//! graph (petgraph) with resolved entity identities and provenance.
