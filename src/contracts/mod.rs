//! `kgroute contracts`: the batch's register as something to query. The
//! rows come from `register.jsonl` ([`crate::register`]); [`category`]
//! reads what people type as a CUAD category, [`query`] filters and groups
//! the rows, [`render`] prints them. `ask --contracts` answers with the
//! same engine.

pub mod category;
pub mod query;
pub mod render;
