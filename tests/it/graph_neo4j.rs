//! Integration tests: graph_neo4j.
