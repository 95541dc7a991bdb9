//! Integration tests: extract.
