//! kubectl's STATUS and RESTARTS across a node reboot (R79), worked out
//! by hand in the test's comments.

use super::{line, watch_from};
use crate::model::reboot::{TWO_INITS, reboot_at};

#[test]
fn r79_kubectl_shows_unknown_then_init_statuses_then_running_with_restarts() {
    // The R77 Pod. At 20 s web is terminated, reason Unknown. At 50 s the
    // new sandbox's Initialized condition is False (no app of it has
    // started): Init:0/2, RESTARTS the init containers' up to the one
    // running: setup 1, its last termination at 2 s: "1 (48s ago)". At 52 s
    // Init:1/2: setup 1 + migrate 1, the latest at 5 s: "2 (47s ago)". At
    // 55 s web is created (waiting, PodInitializing, as at 5 s) and the
    // apps' count is shown: web 1, its exit at 20 s; Running at 56 s.
    let toml = reboot_at(TWO_INITS, "20s", "");
    assert_eq!(
        watch_from(&toml, 20),
        [
            line(20, "Unknown", "0"),
            line(50, "Init:0/2", "1 (48s ago)"),
            line(52, "Init:1/2", "2 (47s ago)"),
            line(55, "PodInitializing", "1 (35s ago)"),
            line(56, "Running", "1 (36s ago)"),
        ]
    );
}
