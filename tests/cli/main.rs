//! The real `podsim` binary, driven as a user would. One integration binary;
//! its modules are the table of contents:
//!
//! - `run`: `podsim run` on the seed scenarios, text and JSON;
//! - `errors`: every kind of bad input gets a clear message and exit 1.

mod common;
mod errors;
mod run;
