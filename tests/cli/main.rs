//! The `podsim` binary end to end, one file per concern:
//!
//! - `pictures`: `run --svg`, `plot` and `report` (SVG, PNG, HTML).

mod pictures;
