//! The staged batch pipeline behind `kgroute ingest`.
