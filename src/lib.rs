//! podsim: a discrete-event simulator of the Kubernetes Pod lifecycle.
//!
//! A scenario (TOML, see `scenario`) describes one Pod: its init containers,
//! native sidecars and app containers with scripted boot, drain, preStop and
//! failure times. The Pod model (`model`) replays the kubelet's rules on the
//! event engine (`engine`) and measures time to Ready and "exposed" time — an
//! app alive while no proxy is. A duration may be a distribution, drawn
//! anew for each container attempt by a counter-based generator keyed by
//! (seed, replication, container, key, attempt), so random runs stay
//! reproducible on any thread. `sweep` runs grids of combinations, each as
//! often as asked, and summarises the replications; `report` turns runs into
//! text, JSON and pictures.
//!
//! ```
//! use podsim::model::simulate_pod;
//! use podsim::scenario::Scenario;
//!
//! let scenario = Scenario::parse(
//!     r#"
//!     [pod]
//!     stop_at = "10s"
//!     [[containers]]
//!     name = "proxy"
//!     kind = "app"
//!     boot = "3s"
//!     drain = "1s"
//!     proxy = true
//!     [[containers]]
//!     name = "web"
//!     kind = "app"
//!     boot = "1s"
//!     drain = "3s"
//!     "#,
//!     "inline",
//! )?;
//! let metrics = simulate_pod(&scenario.run).metrics;
//! // Side by side, web runs 1 s → 3 s before the proxy is up, and 11 s → 13 s
//! // after the proxy has drained.
//! assert_eq!(metrics.ready_ms, Some(3000));
//! assert_eq!((metrics.exposed_startup_ms, metrics.exposed_shutdown_ms), (2000, 2000));
//! # Ok::<(), podsim::scenario::Diagnostic>(())
//! ```

pub mod advise;
pub mod engine;
pub mod model;
pub mod report;
pub mod scenario;
pub mod sweep;

/// The seed chapter's tick loop: the yardstick for tests and benchmarks.
#[doc(hidden)]
pub mod reference;
