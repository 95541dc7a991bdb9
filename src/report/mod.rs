//! Report stage: the mismatch CSV, summaries, suggestions and history that
//! reviewers use to refine the index between batches.
