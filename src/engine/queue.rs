//! The event queue: a binary heap ordered by (time, insertion sequence).
//!
//! Invariant: events pop in time order, and events scheduled for the same
//! instant pop in the order they were scheduled (FIFO ties), so a run never
//! depends on heap internals.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::time::SimTime;

/// One scheduled event with its ordering key.
///
/// The key packs the instant into the high 64 bits and the insertion
/// sequence into the low 64, so "earlier, then scheduled first" is a single
/// integer comparison: the heap compares keys on every level of every push
/// and pop, and a two-field tuple comparison costs a second branch each time.
#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn new(at: SimTime, seq: u64, event: E) -> Self {
        Entry {
            key: (u128::from(at.0) << 64) | u128::from(seq),
            event,
        }
    }

    fn at(&self) -> SimTime {
        SimTime((self.key >> 64) as u64)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest entry.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// A priority queue of events keyed by simulated time with FIFO ties.
///
/// Push and pop cost O(log n) in the number of pending events; `clear` keeps
/// the allocation so a sweep reuses one queue for millions of runs.
///
/// Popping is lazy. A handler nearly always schedules a follow-up to the event
/// it handles (a boot finishes, a back-off starts), so `pop` leaves the entry
/// at the top of the heap and only marks it taken; the next `push` overwrites
/// it in place, one sift down instead of a pop's sift plus a push's sift. Any
/// other call removes the taken entry first, so callers never see it.
#[derive(Clone, Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    /// The top entry was returned by `pop` and is no longer pending.
    top_taken: bool,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
            top_taken: false,
        }
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue; it grows once to the largest a run needs and is then reused.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at `at`, after everything already scheduled for `at`.
    /// Inlined: every handler schedules through it, and a call cost a
    /// sweep's run more than the push's own work. `always`, since the
    /// run loop grew its limits check: a plain `#[inline]` was then
    /// declined (bar-100k-from-creation 4,727 instructions a row against
    /// 4,590 inlined).
    #[inline(always)]
    pub fn push(&mut self, at: SimTime, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let entry = Entry::new(at, seq, event);
        if self.top_taken {
            self.top_taken = false;
            let mut top = self.heap.peek_mut().expect("a taken entry stays in the heap");
            // Dropping `top` sifts the new entry down to its place.
            *top = entry;
        } else {
            self.heap.push(entry);
        }
    }

    /// Removes and returns the earliest event.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.pop_due(SimTime(u64::MAX))
    }

    /// Removes and returns the earliest event if it is due at or before `limit`.
    #[inline]
    pub fn pop_due(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        self.remove_taken();
        let top = self.heap.peek()?;
        if top.at() > limit {
            return None;
        }
        self.top_taken = true;
        Some((top.at(), top.event))
    }

    /// The time of the earliest event, without removing it; `&mut` because
    /// it first finishes a lazy `pop`.
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.remove_taken();
        self.heap.peek().map(Entry::at)
    }

    /// Events waiting, stale ones included (they fall out when popped).
    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.top_taken)
    }

    /// True when no event waits: the run is over.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every pending event and restarts the tie counter; keeps capacity.
    pub fn clear(&mut self) {
        self.heap.clear();
        self.next_seq = 0;
        self.top_taken = false;
    }

    /// Makes the event the last `pop_due` returned pending again, first in
    /// line as before: a run that pauses before an event leaves it queued.
    /// Only right after a `pop_due` that returned an event.
    pub fn put_back(&mut self) {
        debug_assert!(self.top_taken, "put_back without a pop");
        self.top_taken = false;
    }

    /// Becomes a copy of `other`, reusing this queue's allocation (a derived
    /// `clone_from` would allocate a new heap each time).
    pub fn copy_from(&mut self, other: &Self) {
        self.heap.clone_from(&other.heap);
        self.next_seq = other.next_seq;
        self.top_taken = other.top_taken;
    }

    /// Really removes the entry the last `pop` returned, if nothing replaced it.
    #[inline]
    fn remove_taken(&mut self) {
        if self.top_taken {
            self.heap.pop();
            self.top_taken = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn pops_earliest_first() {
        let mut q = EventQueue::new();
        q.push(SimTime(30), 'c');
        q.push(SimTime(10), 'a');
        q.push(SimTime(20), 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, ['a', 'b', 'c']);
    }

    #[test]
    fn simultaneous_events_pop_in_schedule_order() {
        let mut q = EventQueue::new();
        for name in ["first", "second", "third"] {
            q.push(SimTime(5), name);
        }
        q.push(SimTime(1), "earlier");
        let order: Vec<&str> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, ["earlier", "first", "second", "third"]);
    }

    #[test]
    fn clear_forgets_events_and_tie_order() {
        let mut q = EventQueue::new();
        q.push(SimTime(1), 1);
        q.clear();
        assert!(q.is_empty());
        q.push(SimTime(2), 2);
        assert_eq!(q.pop(), Some((SimTime(2), 2)));
    }

    #[test]
    fn a_put_back_event_pops_again_and_a_copy_pops_the_same() {
        let mut q = EventQueue::new();
        q.push(SimTime(5), 'b');
        q.push(SimTime(1), 'a');
        assert_eq!(q.pop_due(SimTime(9)), Some((SimTime(1), 'a')));
        q.put_back();
        assert_eq!(q.len(), 2);
        let mut copy = EventQueue::new();
        copy.push(SimTime(0), 'x');
        copy.copy_from(&q);
        // The tie counter is copied too: a later push at 5 comes after 'b'.
        for queue in [&mut q, &mut copy] {
            queue.push(SimTime(5), 'c');
            let order: Vec<char> = std::iter::from_fn(|| queue.pop()).map(|(_, e)| e).collect();
            assert_eq!(order, ['a', 'b', 'c']);
        }
    }

    proptest! {
        /// Pops come out sorted by time, and equal times keep insertion order.
        #[test]
        fn prop_pops_sorted_with_fifo_ties(times in proptest::collection::vec(0u64..20, 0..200)) {
            let mut q = EventQueue::new();
            for (i, &t) in times.iter().enumerate() {
                q.push(SimTime(t), i);
            }
            let popped: Vec<(SimTime, usize)> = std::iter::from_fn(|| q.pop()).collect();
            prop_assert_eq!(popped.len(), times.len());
            for pair in popped.windows(2) {
                let ((t0, i0), (t1, i1)) = (pair[0], pair[1]);
                prop_assert!(t0 < t1 || (t0 == t1 && i0 < i1), "{:?} then {:?}", pair[0], pair[1]);
            }
        }

        /// Any interleaving of pushes, pops and peeks (so pushes that do and
        /// do not follow a pop) matches a sorted list of (time, schedule order).
        #[test]
        fn prop_interleaved_operations_match_a_sorted_list(
            ops in proptest::collection::vec((0u8..10, 0u64..20), 0..300),
        ) {
            let mut q = EventQueue::new();
            let mut reference = std::collections::BTreeSet::new();
            for (i, (op, t)) in ops.into_iter().enumerate() {
                match op {
                    0..=5 => {
                        q.push(SimTime(t), i);
                        reference.insert((SimTime(t), i));
                    }
                    6..=8 => prop_assert_eq!(q.pop(), reference.pop_first()),
                    _ => prop_assert_eq!(q.peek_time(), reference.first().map(|&(t, _)| t)),
                }
                prop_assert_eq!(q.len(), reference.len());
            }
        }
    }
}
