//! Integration tests: tree.
