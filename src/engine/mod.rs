//! The discrete-event core: virtual time, a typed event queue and a run loop.
//! It knows nothing about Kubernetes; `model` supplies the events and rules.
//!
//! Invariant: the cost of a run grows with the number of events handled,
//! never with the span of simulated time they cover, and the same model fed
//! the same events produces the same run on any machine and thread. A run
//! obeys its `Limits` (a stop request, an event budget) within
//! `limits::CHECK_EVERY` events, and ends `RunEnd::Halted` then.

mod limits;
mod queue;
mod time;

pub use limits::{Halt, Limits, StopFlag};
pub use queue::EventQueue;
pub use time::{SimDuration, SimTime};

/// The default horizon: 24 hours of simulated time.
pub const DEFAULT_HORIZON: SimDuration = SimDuration::from_secs(24 * 3600);

/// A model that runs on the engine: plain state plus a handler per event.
///
/// The engine asks `is_current` before handling, so a model never searches the
/// queue to cancel an event: it bumps an attempt counter and lets events that
/// carry an older attempt fall out as stale.
pub trait Model {
    /// The events this model schedules: small `Copy` values (an index and an
    /// attempt), so the queue moves no heap data.
    type Event: Copy;

    /// False for an event that became stale (it carries an old attempt).
    fn is_current(&self, event: &Self::Event) -> bool;

    /// Applies `event` at `now`; may schedule follow-ups through `scheduler`.
    fn handle(&mut self, now: SimTime, event: Self::Event, scheduler: &mut Scheduler<'_, Self::Event>);
}

/// The handle a model uses to schedule events while it handles one.
pub struct Scheduler<'q, E> {
    now: SimTime,
    queue: &'q mut EventQueue<E>,
}

impl<'q, E: Copy> Scheduler<'q, E> {
    /// A scheduler at `now` over `queue`: how a model that drives other
    /// models on its own queue lets them schedule (it moves their events
    /// over afterwards, in order).
    pub fn over(now: SimTime, queue: &'q mut EventQueue<E>) -> Self {
        Scheduler { now, queue }
    }

    /// The instant being handled.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` `delay` from now; zero means "at this instant, after
    /// everything already scheduled for it".
    pub fn after(&mut self, delay: SimDuration, event: E) {
        self.queue.push(self.now + delay, event);
    }

    /// Schedules `event` at `at`, which must not be in the past; a past
    /// instant is clamped to now (and trips a debug assertion).
    pub fn at(&mut self, at: SimTime, event: E) {
        debug_assert!(at >= self.now, "scheduled in the past: {at:?} < {:?}", self.now);
        self.queue.push(at.max(self.now), event);
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Nothing was left to happen: the queue ran dry.
    Quiet,
    /// A current event lay beyond the horizon (an endless crash loop, say);
    /// stale ones there do not count.
    Horizon,
    /// The run's `Limits` ended it first: its figures are not a result.
    Halted(Halt),
}

/// What one step did.
enum Step {
    /// Handled a current event at this instant.
    Handled(SimTime),
    /// Left the next current event pending, as asked.
    Paused,
    /// Found no event left within the limit.
    Done,
    /// Went no further: the run's `Limits` say so (`halted` says why).
    Halted,
}

impl Step {
    fn handled(self) -> Option<SimTime> {
        match self {
            Step::Handled(at) => Some(at),
            Step::Paused | Step::Done | Step::Halted => None,
        }
    }
}

/// A model, its pending events and the clock.
pub struct Simulation<M: Model> {
    model: M,
    queue: EventQueue<M::Event>,
    now: SimTime,
    horizon: SimTime,
    handled: u64,
    stale: u64,
    limits: Limits,
    /// The count of handled events at which to look at `limits` next.
    check_at: u64,
    /// Handled events between two looks (`limits::CHECK_EVERY` unless the
    /// model's events are heavy: `set_check_every`).
    check_every: u64,
    /// Why the limits halted the current run, if they did.
    halted: Option<Halt>,
}

impl<M: Model> Simulation<M> {
    /// A simulation at time zero with nothing scheduled.
    pub fn new(model: M, horizon: SimDuration) -> Self {
        Simulation {
            model,
            queue: EventQueue::new(),
            now: SimTime::ZERO,
            horizon: SimTime::ZERO + horizon,
            handled: 0,
            stale: 0,
            limits: Limits::default(),
            check_at: 0,
            check_every: limits::CHECK_EVERY,
            halted: None,
        }
    }

    /// Looks at the limits every `events` handled events (at least 1),
    /// for a model whose events cost far more than the usual
    /// microsecond: a stop then still ends its run within milliseconds.
    /// Takes effect at the next `rewind`.
    pub fn set_check_every(&mut self, events: u64) {
        self.check_every = events.clamp(1, limits::CHECK_EVERY);
    }

    /// Runs from now on obey `limits`.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
        self.check_at = 0;
    }

    /// Back to time zero with an empty queue, keeping allocations; the model
    /// resets its own state.
    pub fn rewind(&mut self) {
        self.queue.clear();
        self.now = SimTime::ZERO;
        self.handled = 0;
        self.stale = 0;
        self.check_at = self.first_look();
        self.halted = None;
    }

    /// When a run starting at `handled` events first looks at its limits:
    /// at its first step if a stop was requested before or its budget is
    /// spent, else where `look_at_limits` would have it look next. Worked
    /// out here, per run, so a run without a stop does not call
    /// `look_at_limits` to start (a sweep of short Pod runs felt it).
    #[inline]
    fn first_look(&self) -> u64 {
        let stopped = self.limits.stop.as_ref().is_some_and(StopFlag::is_requested);
        let budget = self.limits.events.unwrap_or(u64::MAX);
        if stopped || self.handled >= budget {
            self.handled
        } else {
            self.handled.saturating_add(self.check_every).min(budget)
        }
    }

    /// The current simulated time: the instant of the last handled event.
    pub fn time(&self) -> SimTime {
        self.now
    }

    /// The instant past which no event is handled.
    pub fn horizon(&self) -> SimTime {
        self.horizon
    }

    /// Ends runs `horizon` after time zero: a crash loop or a Pod never
    /// deleted stops there instead of running forever.
    pub fn set_horizon(&mut self, horizon: SimDuration) {
        self.horizon = SimTime::ZERO + horizon;
    }

    /// The model, to read its state or meters after a run.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The model, to reset it between runs without reallocating.
    pub fn model_mut(&mut self) -> &mut M {
        &mut self.model
    }

    /// Why the limits halted the current run, if they did: then its
    /// figures are no result.
    pub fn halted(&self) -> Option<Halt> {
        self.halted
    }

    /// Events handled so far (stale ones excluded) and stale events dropped.
    pub fn counts(&self) -> (u64, u64) {
        (self.handled, self.stale)
    }

    /// Schedules `event` at `at` from outside a handler (initial events).
    pub fn schedule(&mut self, at: SimTime, event: M::Event) {
        self.queue.push(at.max(self.now), event);
    }

    /// Handles the earliest pending event, advancing time to it; stale events
    /// are dropped on the way. Returns the new time, or `None` (time
    /// unchanged) when the queue is empty or its next event is past the horizon.
    pub fn step(&mut self) -> Option<SimTime> {
        self.step_within(self.horizon, |_, _| false).handled()
    }

    /// Handles every event due at or before `until` (capped at the horizon),
    /// then sets the clock to `until`.
    pub fn step_until(&mut self, until: SimTime) {
        let until = until.min(self.horizon);
        while self.step_within(until, |_, _| false).handled().is_some() {}
        self.now = self.now.max(until);
    }

    /// Handles events until the next current one is one `pause_before`
    /// picks, which stays pending: true then, false if the run came to its
    /// end first (`run` says how, a halt included). A model whose state at
    /// such an event is worth saving (`copy_from`) pauses there.
    pub fn run_until(&mut self, pause_before: impl Fn(&M, &M::Event) -> bool) -> bool {
        loop {
            match self.step_within(self.horizon, &pause_before) {
                Step::Handled(_) => {}
                Step::Paused => return true,
                Step::Done | Step::Halted => return false,
            }
        }
    }

    /// Becomes a copy of `other` in everything but the model, which
    /// `copy_model` copies as it sees fit: a model that keeps its spec
    /// copies only the state of its run. Reuses this simulation's queue.
    pub fn copy_from(&mut self, other: &Self, copy_model: impl FnOnce(&mut M, &M)) {
        copy_model(&mut self.model, &other.model);
        self.queue.copy_from(&other.queue);
        self.now = other.now;
        self.horizon = other.horizon;
        self.handled = other.handled;
        self.stale = other.stale;
        self.check_at = self.first_look();
        self.halted = None;
    }

    /// `step`, for the earliest current event due at or before `limit` only:
    /// one queue access per event, and a stale event never lets a later one
    /// past `limit` slip through. A current event `pause_before` picks is
    /// left pending instead (a `|_, _| false` costs nothing).
    #[inline]
    fn step_within(&mut self, limit: SimTime, pause_before: impl Fn(&M, &M::Event) -> bool) -> Step {
        if self.handled >= self.check_at && self.look_at_limits(limit) {
            return Step::Halted;
        }
        while let Some((at, event)) = self.queue.pop_due(limit) {
            if !self.model.is_current(&event) {
                self.stale += 1;
                continue;
            }
            if pause_before(&self.model, &event) {
                self.queue.put_back();
                return Step::Paused;
            }
            self.now = at;
            self.handled += 1;
            let mut scheduler = Scheduler {
                now: at,
                queue: &mut self.queue,
            };
            self.model.handle(at, event, &mut scheduler);
            return Step::Handled(at);
        }
        Step::Done
    }

    /// Whether the limits halt the run here; if not, when to look again.
    /// A budget halts a run that has used it up with an event due by
    /// `limit` still to come (one that ends on its last budgeted event, or
    /// at the horizon, is not cut short).
    /// Kept out of line and returning a bool, so the event loop around
    /// it stays as small as it was without limits (the model's handlers
    /// are still inlined into it: callgrind counts no more per event).
    #[cold]
    #[inline(never)]
    fn look_at_limits(&mut self, limit: SimTime) -> bool {
        if self.limits.stop.as_ref().is_some_and(StopFlag::is_requested) {
            self.halted = Some(Halt::Stopped);
            return true;
        }
        let budget = self.limits.events.unwrap_or(u64::MAX);
        if self.handled >= budget && self.queue.peek_time().is_some_and(|at| at <= limit) {
            self.halted = Some(Halt::OverBudget(budget));
            return true;
        }
        self.check_at = self
            .handled
            .saturating_add(self.check_every)
            .min(budget.max(self.handled + 1));
        false
    }

    /// The instant a run that ended `how` ended at: its last event, or the
    /// horizon that cut it short.
    pub fn end_time(&self, how: RunEnd) -> SimTime {
        match how {
            RunEnd::Quiet | RunEnd::Halted(_) => self.now,
            RunEnd::Horizon => self.horizon,
        }
    }

    /// Handles events until none is left or the horizon is reached. What
    /// is left lies past the horizon; only a current event there means the
    /// run was cut short: a stale one (a sidecar's turn-wait outlived by its
    /// turn, say) would have changed nothing, so it is dropped, not taken
    /// for a run still under way. A run its limits halt ends `Halted`.
    #[inline]
    pub fn run(&mut self) -> RunEnd {
        while self.step().is_some() {}
        if let Some(halt) = self.halted {
            return RunEnd::Halted(halt);
        }
        while let Some((_, event)) = self.queue.pop() {
            if self.model.is_current(&event) {
                return RunEnd::Horizon;
            }
            self.stale += 1;
        }
        RunEnd::Quiet
    }
}

#[cfg(test)]
mod tests;
