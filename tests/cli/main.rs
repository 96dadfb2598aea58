//! The real `podsim` binary, driven as a user would. One integration binary;
//! its modules are the table of contents:
//!
//! - `sweep`: `podsim sweep` and `podsim merge`: grid errors, hand-checked
//!   rows, determinism across thread counts, shards merged back, refusals.

mod sweep;
