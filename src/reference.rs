//! The seed chapter's tick-loop simulator, rewritten from its description:
//! the yardstick the event engine is checked against, not part of the API.
//!
//! The rules it keeps (chapter `000_…`, "init container と sidecar"):
//! - the gate (init and sidecar slots, in order) admits one container at a
//!   time: an init passes when done, a sidecar when running;
//! - a container begun at tick t does not progress at t ("begin, then
//!   progress from the next tick"), so declaration order becomes time order;
//! - once the gate is through, every app begins at that tick;
//! - a scripted failure waits 1, 2, 4, 8 … ticks (capped) before retrying;
//! - on deletion, apps drain first, sidecars only once every app is done;
//!   anything waiting, booting or failed is dropped at once;
//! - after each tick, "exposed" is counted when an app is running or draining
//!   while no proxy is.
//!
//! Invariant: its cost is one step per tick of simulated time — which is the
//! very cost the event engine exists to avoid (see benches/time_scale.rs).

use crate::engine::SimDuration;
use crate::model::{ContainerKind, Deletion, PodSpec};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Waiting,
    Booting,
    Running,
    Failed,
    Draining,
    Done,
}

#[derive(Clone, Debug)]
struct Slot {
    kind: ContainerKind,
    proxy: bool,
    boot: u64,
    drain: u64,
    fails: u32,
    phase: Phase,
    left: u64,
    backoff: u64,
    attempts: u32,
}

/// What the tick loop measured, in ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TickResult {
    pub ready: Option<u64>,
    pub exposed_startup: u64,
    pub exposed_shutdown: u64,
    pub restarts: u32,
    /// The tick at which every container was done after deletion.
    pub terminated_at: Option<u64>,
    /// Ticks simulated: the loop's cost.
    pub ticks: u64,
}

/// The seed's back-off: `initial`, doubling, capped, in ticks (no free first retry).
fn backoff_for(attempts: u32, initial: u64, cap: u64) -> u64 {
    let mut delay = initial;
    for _ in 1..attempts {
        delay = delay.saturating_mul(2);
        if delay >= cap {
            return cap;
        }
    }
    delay.min(cap)
}

struct TickPod {
    slots: Vec<Slot>,
    gate: Vec<usize>,
    main: Vec<usize>,
    idx: usize,
    restarts: u32,
    initial: u64,
    cap: u64,
}

impl TickPod {
    fn begin(&mut self, i: usize) {
        let c = &mut self.slots[i];
        c.phase = Phase::Booting;
        c.left = c.boot;
        if c.left == 0 {
            self.settle(i);
        }
    }

    fn progress(&mut self, i: usize) {
        let c = &mut self.slots[i];
        match c.phase {
            Phase::Failed => {
                c.backoff = c.backoff.saturating_sub(1);
                if c.backoff == 0 {
                    c.phase = Phase::Booting;
                    c.left = c.boot;
                    self.restarts += 1;
                }
            }
            Phase::Booting => {
                c.left = c.left.saturating_sub(1);
                if c.left == 0 {
                    self.settle(i);
                }
            }
            _ => {}
        }
    }

    fn settle(&mut self, i: usize) {
        let (initial, cap) = (self.initial, self.cap);
        let c = &mut self.slots[i];
        if c.attempts < c.fails {
            c.attempts += 1;
            c.phase = Phase::Failed;
            c.backoff = backoff_for(c.attempts, initial, cap);
        } else if c.kind == ContainerKind::Init {
            c.phase = Phase::Done;
        } else {
            c.phase = Phase::Running;
        }
    }

    fn start_step(&mut self) {
        while self.idx < self.gate.len() {
            let i = self.gate[self.idx];
            if self.slots[i].phase == Phase::Waiting {
                self.begin(i);
                return;
            }
            self.progress(i);
            let c = &self.slots[i];
            if c.phase == Phase::Done || (c.kind == ContainerKind::Sidecar && c.phase == Phase::Running) {
                self.idx += 1;
                continue;
            }
            return;
        }
        for k in 0..self.main.len() {
            let i = self.main[k];
            if self.slots[i].phase == Phase::Waiting {
                self.begin(i);
                continue;
            }
            self.progress(i);
        }
    }

    fn drain(&mut self, i: usize) {
        let c = &mut self.slots[i];
        match c.phase {
            Phase::Running => {
                c.phase = Phase::Draining;
                c.left = c.drain;
                if c.left == 0 {
                    c.phase = Phase::Done;
                }
            }
            Phase::Draining => {
                c.left = c.left.saturating_sub(1);
                if c.left == 0 {
                    c.phase = Phase::Done;
                }
            }
            Phase::Waiting | Phase::Booting | Phase::Failed => c.phase = Phase::Done,
            Phase::Done => {}
        }
    }

    fn terminate_step(&mut self) {
        for k in 0..self.gate.len() {
            let i = self.gate[k];
            if self.slots[i].kind == ContainerKind::Init {
                self.drain(i);
            }
        }
        for k in 0..self.main.len() {
            self.drain(self.main[k]);
        }
        if self.main.iter().any(|&i| self.slots[i].phase != Phase::Done) {
            return;
        }
        for k in 0..self.gate.len() {
            let i = self.gate[k];
            if self.slots[i].kind == ContainerKind::Sidecar {
                self.drain(i);
            }
        }
    }

    fn exposed(&self) -> bool {
        let alive = |c: &Slot| matches!(c.phase, Phase::Running | Phase::Draining);
        let gateway = self.slots.iter().any(|c| c.proxy && alive(c));
        let live = self
            .slots
            .iter()
            .any(|c| !c.proxy && c.kind == ContainerKind::App && alive(c));
        live && !gateway
    }

    fn ready(&self) -> bool {
        self.slots
            .iter()
            .all(|c| c.kind == ContainerKind::Init || c.phase == Phase::Running)
    }
}

/// Runs `spec` one tick at a time, `tick` long each, for at most `max_ticks`.
/// Durations are rounded down to whole ticks; restart policy, preStop, the
/// grace period and `drain = "never"` (R55) are outside the seed's model and
/// ignored (a drain that is not a fixed duration counts as none).
pub fn run_ticks(spec: &PodSpec, tick: SimDuration, max_ticks: u64) -> TickResult {
    let ticks = |d: SimDuration| d.as_millis() / tick.as_millis().max(1);
    let slots: Vec<Slot> = spec
        .containers
        .iter()
        .map(|c| Slot {
            kind: c.kind,
            proxy: c.proxy,
            boot: ticks(c.boot.fixed().unwrap_or_default()),
            drain: ticks(c.drain.fixed().unwrap_or_default()),
            fails: c.fails,
            phase: Phase::Waiting,
            left: 0,
            backoff: 0,
            attempts: 0,
        })
        .collect();
    let mut pod = TickPod {
        gate: (0..slots.len())
            .filter(|&i| slots[i].kind != ContainerKind::App)
            .collect(),
        main: (0..slots.len())
            .filter(|&i| slots[i].kind == ContainerKind::App)
            .collect(),
        slots,
        idx: 0,
        restarts: 0,
        initial: ticks(spec.backoff.initial),
        cap: ticks(spec.backoff.cap),
    };
    let mut stop_at = match spec.deletion {
        Deletion::At(at) => Some(ticks(at)),
        Deletion::Never | Deletion::AfterReady(_) => None,
    };
    let mut result = TickResult {
        ready: None,
        exposed_startup: 0,
        exposed_shutdown: 0,
        restarts: 0,
        terminated_at: None,
        ticks: 0,
    };
    for t in 0..max_ticks {
        result.ticks = t + 1;
        let deleting = stop_at.is_some_and(|s| t >= s);
        if deleting {
            pod.terminate_step();
        } else {
            pod.start_step();
        }
        if pod.exposed() {
            if deleting {
                result.exposed_shutdown += 1;
            } else {
                result.exposed_startup += 1;
            }
        }
        if !deleting && result.ready.is_none() && pod.ready() {
            result.ready = Some(t);
            if let Deletion::AfterReady(after) = spec.deletion {
                stop_at = Some(t + ticks(after));
            }
        }
        if deleting && pod.slots.iter().all(|c| c.phase == Phase::Done) {
            result.terminated_at = Some(t);
            break;
        }
        if stop_at.is_none() && result.ready.is_some() {
            break;
        }
    }
    result.restarts = pod.restarts;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn seed(file: &str) -> PodSpec {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(file);
        Scenario::load(&path).unwrap().run.pod
    }

    #[test]
    fn the_tick_loop_reproduces_the_chapter_table() {
        let second = SimDuration::from_secs(1);
        let sidecar = run_ticks(&seed("seed-sidecar.toml"), second, 1000);
        assert_eq!(
            (sidecar.ready, sidecar.exposed_startup, sidecar.exposed_shutdown),
            (Some(6), 0, 0)
        );
        assert_eq!(sidecar.terminated_at, Some(14));
        let side = run_ticks(&seed("seed-side-by-side.toml"), second, 1000);
        assert_eq!(
            (side.ready, side.exposed_startup, side.exposed_shutdown),
            (Some(5), 2, 2)
        );
        assert_eq!(side.terminated_at, Some(13));
    }

    #[test]
    fn the_seed_backoff_is_1_2_4_8_capped() {
        let curve: Vec<u64> = (1..=6).map(|a| backoff_for(a, 1, 8)).collect();
        assert_eq!(curve, [1, 2, 4, 8, 8, 8]);
    }
}
