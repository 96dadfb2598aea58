//! The engine's own tests: a toy model (a ticker with generations) run
//! through the clock, stale events, pauses, copies and the limits, and
//! `SimTime::nearest`'s rounding. Apart from `mod.rs` so the run loop
//! reads without them.

use super::*;

/// A toy model: a ping-pong that reschedules itself every `period`, with
/// generation numbers to show stale events are dropped.
struct Ticker {
    generation: u32,
    period: SimDuration,
    seen: Vec<(SimTime, u32)>,
}

#[derive(Clone, Copy)]
struct Tick(u32);

impl Model for Ticker {
    type Event = Tick;
    fn is_current(&self, event: &Tick) -> bool {
        event.0 == self.generation
    }
    fn handle(&mut self, now: SimTime, event: Tick, s: &mut Scheduler<'_, Tick>) {
        self.seen.push((now, event.0));
        s.after(self.period, event);
    }
}

fn ticker(period_ms: u64) -> Simulation<Ticker> {
    Simulation::new(
        Ticker {
            generation: 0,
            period: SimDuration(period_ms),
            seen: Vec::new(),
        },
        SimDuration(1000),
    )
}

#[test]
fn an_endless_loop_ends_at_the_horizon() {
    let mut sim = ticker(300);
    sim.schedule(SimTime::ZERO, Tick(0));
    assert_eq!(sim.run(), RunEnd::Horizon);
    let times: Vec<u64> = sim.model().seen.iter().map(|(t, _)| t.0).collect();
    assert_eq!(times, [0, 300, 600, 900]);
    assert_eq!(sim.time(), SimTime(900));
}

#[test]
fn stale_events_are_dropped_not_handled() {
    let mut sim = ticker(300);
    sim.schedule(SimTime(100), Tick(0));
    sim.schedule(SimTime(200), Tick(1));
    sim.model_mut().generation = 1;
    sim.step();
    assert_eq!(sim.model().seen, [(SimTime(200), 1)]);
    assert_eq!(sim.counts(), (1, 1));
}

#[test]
fn step_until_stops_between_events_and_moves_the_clock() {
    let mut sim = ticker(300);
    sim.schedule(SimTime::ZERO, Tick(0));
    sim.step_until(SimTime(650));
    assert_eq!(sim.model().seen.len(), 3);
    assert_eq!(sim.time(), SimTime(650));
}

#[test]
fn step_until_does_not_handle_past_until_after_a_stale_event() {
    let mut sim = ticker(300);
    sim.schedule(SimTime(100), Tick(0));
    sim.schedule(SimTime(700), Tick(1));
    sim.model_mut().generation = 1;
    sim.step_until(SimTime(500));
    assert!(sim.model().seen.is_empty());
    assert_eq!(sim.time(), SimTime(500));
}

#[test]
fn a_stale_event_past_the_horizon_does_not_cut_the_run_short() {
    let mut sim = ticker(300);
    sim.schedule(SimTime(5000), Tick(0));
    sim.model_mut().generation = 1;
    assert_eq!(sim.run(), RunEnd::Quiet);
    assert_eq!(sim.counts(), (0, 1));
    // A current event there does: something was still to happen.
    let mut sim = ticker(300);
    sim.schedule(SimTime(5000), Tick(0));
    assert_eq!(sim.run(), RunEnd::Horizon);
}

#[test]
fn a_run_paused_before_an_event_goes_on_alike_from_a_copy() {
    let mut sim = ticker(300);
    sim.schedule(SimTime::ZERO, Tick(0));
    // Pause before the third tick: it is still pending.
    assert!(sim.run_until(|m, _| m.seen.len() == 2));
    assert_eq!((sim.time(), sim.counts()), (SimTime(300), (2, 0)));
    let mut copy = ticker(300);
    copy.copy_from(&sim, |m, saved| m.seen.clone_from(&saved.seen));
    for run in [&mut sim, &mut copy] {
        assert_eq!(run.run(), RunEnd::Horizon);
        let times: Vec<u64> = run.model().seen.iter().map(|(t, _)| t.0).collect();
        assert_eq!(times, [0, 300, 600, 900]);
    }
    // A pause that never comes runs to the end.
    let mut sim = ticker(300);
    sim.schedule(SimTime::ZERO, Tick(0));
    assert!(!sim.run_until(|_, _| false));
    assert_eq!(sim.model().seen.len(), 4);
}

/// A ticker every millisecond for an hour: 3.6 million events.
fn long_ticker() -> Simulation<Ticker> {
    let mut sim = ticker(1);
    sim.set_horizon(SimDuration::from_secs(3600));
    sim.schedule(SimTime::ZERO, Tick(0));
    sim
}

#[test]
fn a_budget_halts_the_run_that_needs_more_events_and_only_it() {
    let mut sim = long_ticker();
    sim.set_limits(Limits {
        stop: None,
        events: Some(10_000),
    });
    assert_eq!(sim.run(), RunEnd::Halted(Halt::OverBudget(10_000)));
    assert_eq!(sim.counts().0, 10_000);
    assert_eq!(sim.halted(), Some(Halt::OverBudget(10_000)));
    // Until the halt the run is the one without limits: tick n at n ms.
    assert!(
        sim.model()
            .seen
            .iter()
            .enumerate()
            .all(|(n, &(t, _))| t == SimTime(n as u64))
    );
    // The horizon's four ticks fit a budget of four.
    let mut sim = ticker(300);
    sim.set_limits(Limits {
        stop: None,
        events: Some(4),
    });
    sim.schedule(SimTime::ZERO, Tick(0));
    assert_eq!(sim.run(), RunEnd::Horizon);
    assert_eq!(sim.halted(), None);
}

#[test]
fn a_model_of_heavy_events_looks_at_a_stop_more_often() {
    let stop = StopFlag::new();
    let mut sim = long_ticker();
    sim.set_limits(Limits::stopped_by(&stop));
    sim.set_check_every(10);
    sim.rewind();
    sim.schedule(SimTime::ZERO, Tick(0));
    sim.step_until(SimTime(1_000));
    stop.request();
    assert_eq!(sim.run(), RunEnd::Halted(Halt::Stopped));
    // Looks after every 10 events: the stop is seen within 10 more.
    let (handled, _) = sim.counts();
    assert!((1_001..=1_011).contains(&handled), "{handled}");
}

#[test]
fn a_stop_request_halts_a_run_within_a_check_and_the_next_at_once() {
    let stop = StopFlag::new();
    let mut sim = long_ticker();
    sim.set_limits(Limits::stopped_by(&stop));
    sim.step_until(SimTime(100_000));
    stop.request();
    assert_eq!(sim.run(), RunEnd::Halted(Halt::Stopped));
    let (handled, _) = sim.counts();
    assert!(
        (100_001..=100_001 + limits::CHECK_EVERY).contains(&handled),
        "{handled}"
    );
    assert_eq!(sim.end_time(RunEnd::Halted(Halt::Stopped)), sim.time());
    // The flag stays raised: the next run handles nothing.
    sim.rewind();
    sim.schedule(SimTime::ZERO, Tick(0));
    assert_eq!(sim.run(), RunEnd::Halted(Halt::Stopped));
    assert_eq!(sim.counts(), (0, 0));
}

#[test]
fn a_quiet_run_reports_quiet() {
    let mut sim = ticker(300);
    assert_eq!(sim.run(), RunEnd::Quiet);
    assert_eq!(sim.time(), SimTime::ZERO);
}

#[test]
fn nearest_rounds_as_f64_round_does() {
    // The reference is the expression it replaces; the edge cases are the
    // ones a shortcut gets wrong: just below a half (floor(x + 0.5) gives
    // 1 for 0.49999999999999994), halves, past 2^52 (every float an
    // integer or a half) and 2^53, past u64, negatives, NaN, infinities.
    let reference = |x: f64| x.round().max(0.0) as u64;
    let edges = [
        0.0,
        -0.0,
        0.49999999999999994,
        0.5,
        1.5,
        2.5,
        4_503_599_627_370_495.5,
        4_503_599_627_370_497.0,
        9_007_199_254_740_993.0,
        1.8446744073709552e19,
        1e30,
        -0.5,
        -0.49999999999999994,
        -7.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
    ];
    for x in edges {
        assert_eq!(SimTime::nearest(x), SimTime(reference(x)), "{x}");
    }
    // Arbitrary bit patterns of positive floats (exponent bits a subset
    // of 2^59's), and instants of a day in ms with random fractions.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..200_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let bits = f64::from_bits((state >> 2) & 0x43B0_0000_0000_0000_u64.wrapping_sub(1));
        let day = (state >> 11) as f64 / (1u64 << 53) as f64 * 86_400_000.0;
        for x in [bits, day] {
            assert_eq!(SimTime::nearest(x), SimTime(reference(x)), "{x}");
        }
    }
}
