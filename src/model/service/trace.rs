//! What `podsim run` keeps of a Service run: its history, in memory that
//! does not grow with the requests. A day of traffic is ten million
//! requests, each sent, routed and answered on a connection opened and
//! closed; a `ServiceTrace` keeps every other change as it came, each
//! failed request among them, and of the answered ones only when they were
//! sent (`SentTimes`), which is all the views draw of them.
//!
//! Invariant: the entries are the history's own, in its order, less the
//! requests' and connections' other changes; every view of a recorded run
//! reads them (and the metrics the meters made of the same history), never
//! the model.

use super::history::{Fate, PodFact, ServiceChange, ServiceEntry, ServiceObserver};
use super::outcome::{Cause, FailedRequest};
use super::sent::SentTimes;
use crate::engine::SimTime;
use crate::model::pod::{Trace, TraceEntry};

/// A Service run's history as `podsim run` keeps it.
#[derive(Clone, Debug, Default)]
pub struct ServiceTrace {
    /// Every change but a request's sending, routing, retry and answer and
    /// a connection's opening and closing, in order.
    entries: Vec<ServiceEntry>,
    /// When the answered requests were sent.
    answered: SentTimes,
    /// When the requests a retry answered were sent (among `answered`).
    retried: SentTimes,
}

impl ServiceObserver for ServiceTrace {
    const KEEPS_HISTORY: bool = true;

    /// Inlined: at each place the model reports a change its kind is
    /// known, and the match folds to one arm (for most requests' changes,
    /// to nothing).
    #[inline]
    fn observe(&mut self, entry: ServiceEntry) {
        match entry.what {
            ServiceChange::Answered { sent, tries, .. } => {
                self.answered.note(sent);
                if tries > 1 {
                    self.retried.note(sent);
                }
            }
            ServiceChange::Counted {
                from, to, n, fate, ..
            } => match fate {
                Fate::Answered => self.answered.note_spread(from, to, n),
                Fate::Failed(_) => self.entries.push(entry),
                Fate::Unfinished => {}
            },
            ServiceChange::RequestSent { .. }
            | ServiceChange::Routed { .. }
            | ServiceChange::Retried { .. }
            | ServiceChange::HopRetried { .. }
            | ServiceChange::HopAnswered { .. }
            | ServiceChange::ConnectionOpened { .. }
            | ServiceChange::ConnectionClosed { .. } => {}
            _ => self.entries.push(entry),
        }
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.answered.clear();
        self.retried.clear();
    }
}

impl ServiceTrace {
    /// The changes kept, in the order of the run.
    pub fn entries(&self) -> &[ServiceEntry] {
        &self.entries
    }

    /// When the answered requests were sent (one by one for a few, else
    /// counted per bucket of time).
    pub fn answered(&self) -> &SentTimes {
        &self.answered
    }

    /// When the requests a retry answered were sent.
    pub fn retried(&self) -> &SentTimes {
        &self.retried
    }

    /// Each failed request, in the order they failed; a counted run's
    /// (`ServiceChange::Counted`) one by one, sent at even steps over
    /// their span (`spread`), so the views place them deterministically.
    pub fn failures(&self) -> impl Iterator<Item = FailedRequest> + '_ {
        self.entries.iter().flat_map(|e| {
            let (one, many) = match e.what {
                ServiceChange::RequestFailed {
                    sent,
                    cause,
                    replica,
                    client,
                    ..
                } => (
                    Some(FailedRequest {
                        at: e.at,
                        sent,
                        cause,
                        replica,
                        client,
                    }),
                    None,
                ),
                ServiceChange::Counted {
                    from,
                    to,
                    n,
                    replica,
                    fate: Fate::Failed(cause),
                } => (None, Some(counted_failures(e.at, from, to, n, replica, cause))),
                _ => (None, None),
            };
            one.into_iter().chain(many.into_iter().flatten())
        })
    }

    /// The failed requests as recorded: each one alone (`n` 1), or a
    /// counted span's `n`, in the order they failed.
    pub fn failure_spans(&self) -> impl Iterator<Item = FailedSpan> + '_ {
        self.entries.iter().filter_map(|e| match e.what {
            ServiceChange::RequestFailed {
                sent,
                cause,
                replica,
                client,
                ..
            } => Some(FailedSpan {
                first: FailedRequest {
                    at: e.at,
                    sent,
                    cause,
                    replica,
                    client,
                },
                to: sent,
                n: 1,
            }),
            ServiceChange::Counted {
                from,
                to,
                n,
                replica,
                fate: Fate::Failed(cause),
            } => counted_failures(e.at, from, to, n, replica, cause)
                .next()
                .map(|first| FailedSpan {
                    first: FailedRequest { sent: from, ..first },
                    to,
                    n,
                }),
            _ => None,
        })
    }

    /// Failed requests, every cause together: the counted ones without
    /// going through them one by one.
    pub fn failed_count(&self) -> u64 {
        (self.entries.iter())
            .map(|e| match e.what {
                ServiceChange::RequestFailed { .. } => 1,
                ServiceChange::Counted {
                    n,
                    fate: Fate::Failed(_),
                    ..
                } => n,
                _ => 0,
            })
            .sum()
    }

    /// Each of the `replicas` replicas' Pod history, as its kubelet reported it.
    pub fn replica_traces(&self, replicas: usize) -> Vec<Trace> {
        let mut traces = vec![Trace::new(); replicas];
        for e in &self.entries {
            if let ServiceChange::Pod {
                replica,
                container,
                change,
            } = e.what
                && let Some(trace) = traces.get_mut(replica as usize)
            {
                trace.push(TraceEntry {
                    at: e.at,
                    container,
                    what: change,
                });
            }
        }
        traces
    }

    /// What the API and the slice showed of each Pod: when, of which
    /// replica, what; in the order of the run.
    pub fn pod_facts(&self) -> impl Iterator<Item = (SimTime, u32, PodFact)> + '_ {
        self.entries.iter().filter_map(|e| match e.what {
            ServiceChange::Api { replica, fact } => Some((e.at, replica, fact)),
            _ => None,
        })
    }

    /// The slice's ready endpoints from the traffic's start: the count
    /// then, and at each change after.
    pub fn ready_endpoints(&self) -> Vec<(SimTime, u32)> {
        let mut ready = 0;
        let mut levels = Vec::new();
        for e in &self.entries {
            match e.what {
                ServiceChange::ReadyEndpoints { ready: now } => {
                    ready = now;
                    if !levels.is_empty() {
                        levels.push((e.at, now));
                    }
                }
                ServiceChange::TrafficStarted { .. } => levels.push((e.at, ready)),
                _ => {}
            }
        }
        levels
    }
}

/// The `n` requests of a counted failure reported at `at`, sent over
/// `from..to`: the i-th at `spread(from, to, n, i)`, failed then plus the
/// wait from `to` to `at` (a timeout's connect timeout), or at `at` if cut
/// in flight. The client is not tracked by the count (0).
fn counted_failures(
    at: SimTime,
    from: SimTime,
    to: SimTime,
    n: u64,
    replica: u32,
    cause: Cause,
) -> impl Iterator<Item = FailedRequest> {
    let wait = at.since(to);
    let replica = (replica != u32::MAX).then_some(replica);
    (0..n).map(move |i| {
        let sent = spread(from, to, n, i);
        FailedRequest {
            at: if cause == Cause::Inflight { at } else { sent + wait },
            sent,
            cause,
            replica,
            client: 0,
        }
    })
}

/// The i-th of `n` instants at even steps over `from..to`, each in the
/// middle of its step (whole milliseconds, rounded down).
pub fn spread(from: SimTime, to: SimTime, n: u64, i: u64) -> SimTime {
    let span = u128::from(to.since(from).as_millis());
    let offset = (span * (2 * u128::from(i) + 1) / (2 * u128::from(n.max(1)))) as u64;
    SimTime(from.as_millis() + offset)
}

/// Failed requests as the trace recorded them: one, or a counted span's
/// `n` sent over `first.sent..to` (at `spread`'s instants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailedSpan {
    /// The first of them, sent at the span's start (its fields hold for all
    /// but the instants).
    pub first: FailedRequest,
    /// The span's end.
    pub to: SimTime,
    /// How many.
    pub n: u64,
}

/// Past this many, a span's requests are visited a millisecond at a time.
const ONE_BY_ONE: u64 = 4096;

impl FailedSpan {
    /// Visits its requests with how many share each: one by one (as
    /// `ServiceTrace::failures` gives them) while few, else grouped per
    /// millisecond of `spread`'s instants, so a span of 10⁸ costs its
    /// milliseconds, not its requests.
    pub fn each(&self, mut visit: impl FnMut(FailedRequest, u64)) {
        let (from, n) = (self.first.sent, self.n);
        let one = |sent: SimTime| {
            let at = match self.first.cause {
                Cause::Inflight => self.first.at,
                _ => sent + self.first.at.since(from),
            };
            FailedRequest {
                at,
                sent,
                ..self.first
            }
        };
        if n <= ONE_BY_ONE {
            return (0..n).for_each(|i| visit(one(spread(from, self.to, n, i)), 1));
        }
        // The first request at or past millisecond k of the span.
        let span = u128::from(self.to.since(from).as_millis());
        let first_in = |k: u128| -> u64 {
            let need = (2 * u128::from(n) * k).saturating_sub(span);
            need.div_ceil(2 * span.max(1)).min(u128::from(n)) as u64
        };
        if span == 0 {
            return visit(one(from), n);
        }
        for k in 0..span {
            let count = first_in(k + 1) - first_in(k);
            if count > 0 {
                visit(
                    one(from + crate::engine::SimDuration::from_millis(k as u64)),
                    count,
                );
            }
        }
    }
}
