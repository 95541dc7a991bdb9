//! Integration tests, built into one binary. Each area has its own module
//! under `tests/it/`; `it::util` gives every test its own temp directory and
//! paths to the fixtures and the shared corpus.

mod it;
