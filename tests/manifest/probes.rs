//! Probes that read the manifest: kubernetes.io's three liveness examples
//! and ingress-nginx's chart-rendered controller, as published, each run
//! as its page describes, with the timeline worked out by hand from the
//! kubelet rules (docs/kubelet-rules.md) and every probe podsim assumes
//! told at its own line.

use podsim::engine::SimDuration;
use podsim::model::{ExitReason, PodReport, ProbeKind};
use podsim::scenario::{Problem, Scenario};

use super::one;
use crate::picks::*;

/// When `who` had each change that `pick` picks, in ms.
fn when(s: &Scenario, r: &PodReport, who: &str, pick: impl Fn(Change) -> bool) -> Vec<u64> {
    history(r, &s.run.pod)
        .into_iter()
        .filter(|(_, c, what)| c == who && pick(*what))
        .map(|(t, _, _)| t)
        .collect()
}

/// Each probe notice: (line, container, scenario key, what podsim read
/// as its window in ms, `None` where it assumes the probe passes).
type Told<'a> = (usize, &'a str, &'a str, Option<(u64, Option<u64>)>);

fn probe_notices(s: &Scenario) -> Vec<Told<'_>> {
    s.notices
        .iter()
        .filter_map(|n| match &n.problem {
            Problem::ProbeOutcome(told) => Some((
                n.position.map_or(0, |(line, _)| line),
                told.container.as_str(),
                told.key,
                told.read
                    .as_ref()
                    .map(|(_, after, until)| (after.as_millis(), until.map(SimDuration::as_millis))),
            )),
            _ => None,
        })
        .collect()
}

/// kubernetes.io "Define a liveness command" (`exec-liveness.yaml`, without
/// a timings file): the script creates /tmp/healthy, sleeps 30 s, removes
/// it. By hand: liveness only, so started at its start, 0 s (R21); the
/// assumed boot ends at 1 s, when the script starts: the file exists from
/// 1 s to 31 s. The liveness worker ticks every 5 s from the Pod's
/// creation (R28) and skips ticks before `initialDelaySeconds: 5` (R29):
/// 5 … 30 s pass, 35, 40, 45 s fail, the third reaches the default
/// failureThreshold 3 (R30): killed at 45 s (R31), the page's "Liveness
/// probe failed … will be restarted" (its events show the kill about 43 s
/// after the start). The shell as PID 1 ignores SIGTERM (R80): SIGKILL at
/// 45 + 30 s (the default grace) = 75 s, and the first restart is at once
/// (R15): attempt 2 at 75 s, booted at 76 s, the file gone at 106 s; ticks
/// from 80 s pass to 105 s, 110, 115, 120 s fail: killed at 120 s, SIGKILL
/// at 150 s, and the second restart waits the 10 s back-off: 160 s.
#[test]
fn the_exec_liveness_example_is_killed_when_its_script_removes_the_file() {
    let (s, r) = one("exec-liveness.yaml", None);
    assert_eq!(
        probe_notices(&s),
        [(18, "liveness", "liveness_probe", Some((0, Some(30_000))))]
    );
    let kills = when(&s, &r, "liveness", probe_failed(ProbeKind::Liveness));
    assert_eq!(kills[..2], [45_000, 120_000]);
    let sigkills = when(&s, &r, "liveness", exit(ExitReason::Killed));
    assert_eq!(sigkills[..2], [75_000, 150_000]);
    assert_eq!(when(&s, &r, "liveness", attempt(2)), [75_000]);
    assert_eq!(when(&s, &r, "liveness", attempt(3)), [160_000]);
}

/// kubernetes.io "Define a liveness HTTP request" (`http-liveness.yaml`):
/// agnhost's `liveness` server answers /healthz with 200 for its first
/// 10 s, then 500. By hand: started at 0 s (R21), up at 1 s (assumed
/// boot), healthy until 11 s; ticks every 3 s from creation, the first at
/// `initialDelaySeconds: 3`: 3, 6, 9 s pass, 12, 15, 18 s fail: killed at
/// 18 s, the page's "after 10 seconds, the health checks will fail, and
/// the kubelet will kill and restart the container". agnhost handles
/// SIGTERM: it exits at once (drain 0 s), restarts at once (R15), healthy
/// 19–29 s; ticks 21, 24, 27 s pass, 30, 33, 36 s fail: killed at 36 s,
/// restarted after the 10 s back-off, at 46 s.
#[test]
fn the_http_liveness_example_fails_ten_seconds_after_its_start() {
    let (s, r) = one("http-liveness.yaml", None);
    assert_eq!(
        probe_notices(&s),
        [(21, "liveness", "liveness_probe", Some((0, Some(10_000))))]
    );
    let kills = when(&s, &r, "liveness", probe_failed(ProbeKind::Liveness));
    assert_eq!(kills[..2], [18_000, 36_000]);
    assert_eq!(when(&s, &r, "liveness", attempt(2)), [18_000]);
    assert_eq!(when(&s, &r, "liveness", attempt(3)), [46_000]);
}

/// kubernetes.io "Define a TCP liveness probe" (`tcp-liveness-readiness.yaml`):
/// goproxy listens for as long as it runs, which the manifest cannot say,
/// so both probes are assumed to pass, each told at its line. By hand:
/// the readiness worker's grid is 0, 10, 20 s from creation (R28) and the
/// page's "15 seconds after the container starts" skips 10 s (R29): the
/// 20 s tick passes, Ready at 20 s; nothing restarts.
#[test]
fn the_tcp_example_is_ready_at_the_first_tick_after_its_delay_and_says_what_it_assumes() {
    let (s, r) = one("tcp-liveness-readiness.yaml", None);
    assert_eq!(
        probe_notices(&s),
        [
            (16, "goproxy", "readiness_probe", None),
            (21, "goproxy", "liveness_probe", None)
        ]
    );
    assert_eq!(r.metrics.ready_ms, Some(20_000));
    assert_eq!(r.metrics.restarts, 0);
}

/// ingress-nginx 1.7.0's controller Deployment as its chart renders it:
/// both probes ask /healthz of a controller the manifest says nothing
/// more of: assumed, told in the order written (liveness first). By
/// hand: readiness `initialDelaySeconds: 10`, `periodSeconds: 10`: the
/// tick at 10 s is the first not skipped (R29) and passes: Ready at 10 s.
#[test]
fn ingress_nginxs_controller_is_ready_at_ten_seconds_on_its_assumed_probes() {
    let (s, r) = one("ingress-nginx-controller.yaml", None);
    assert_eq!(
        probe_notices(&s),
        [
            (62, "controller", "liveness_probe", None),
            (83, "controller", "readiness_probe", None)
        ]
    );
    assert_eq!(r.metrics.ready_ms, Some(10_000));
    assert_eq!(r.metrics.restarts, 0);
}

/// A probe whose outcome a setting gives is not told: the liveness
/// example's timings file sets `pass_until`.
#[test]
fn a_probe_the_timings_file_sets_is_not_told() {
    let (s, _) = one("exec-liveness.yaml", Some("exec-liveness.timings.toml"));
    assert_eq!(probe_notices(&s), []);
}
