//! The EndpointSlice (KEP-1672) and what kube-proxy makes of it (KEP-1669):
//! each endpoint is `serving` (its Pod is Ready), `terminating` (the Pod
//! has a deletion timestamp) and `ready` (serving and not terminating); a
//! node's rules are the ready endpoints, else the serving terminating ones,
//! else none (REJECT).
//!
//! Invariant: every change to the slice is a new version, and a version
//! never changes afterwards, so a node that syncs late installs exactly what
//! the control plane had published by the last change it was told of.
//!
//! Cost grows with the changes, never with replicas × versions: a version
//! is kept as the changes it made to the rules of the one before (a
//! Deployment whose R replicas become Ready one by one publishes R
//! versions, and keeping each one's rules whole cost R²/2 entries: 1.8 GB
//! at 30,000 replicas), and an update looks only at the endpoints touched
//! since the last one, all of them only when the rules switch between the
//! ready and the terminating endpoints.

/// One replica's endpoint as the slice lists it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Endpoint {
    /// Listed at all: the Pod has been Ready once and its object is not gone.
    pub listed: bool,
    pub serving: bool,
    pub terminating: bool,
}

impl Endpoint {
    pub fn ready(self) -> bool {
        self.listed && self.serving && !self.terminating
    }

    /// Used when no endpoint is ready.
    fn fallback(self) -> bool {
        self.listed && self.serving && self.terminating
    }
}

/// A change to the rules: the replica, and whether they gained it.
pub type RuleChange = (u32, bool);

/// The slice now, and every version a node may still sync to.
#[derive(Clone, Debug, Default)]
pub struct Slice {
    endpoints: Vec<Endpoint>,
    /// Per endpoint: the newest version's rules list it.
    ruled: Vec<bool>,
    /// Endpoints whose state may have changed since they were last published.
    touched: Vec<u32>,
    /// Ready endpoints now, and as last reported (`ServiceChange::ReadyEndpoints`).
    ready_now: u32,
    ready: u32,
    /// The newest version lists the ready endpoints (else the fallback).
    picks_ready: bool,
    /// Each version's changes to the rules of the one before, in replica
    /// order: version `v`'s are `changes[ends[v - 1]..ends[v]]`; version 0
    /// lists nothing.
    changes: Vec<RuleChange>,
    ends: Vec<usize>,
    /// Scratch: the net changes across several versions.
    net: Vec<RuleChange>,
}

impl Slice {
    /// A slice of `replicas` unlisted endpoints, keeping allocations.
    pub fn reset(&mut self, replicas: usize) {
        self.endpoints.clear();
        self.endpoints.resize(replicas, Endpoint::default());
        self.ruled.clear();
        self.ruled.resize(replicas, false);
        self.touched.clear();
        self.ready_now = 0;
        self.ready = 0;
        self.picks_ready = false;
        self.changes.clear();
        self.ends.clear();
        self.ends.push(0);
    }

    /// A new, unlisted endpoint (a Pod the controller made).
    pub fn push(&mut self) {
        self.endpoints.push(Endpoint::default());
        self.ruled.push(false);
    }

    /// Endpoint `r`'s Pod changed what the slice shows of it: looked at by
    /// the next `update`.
    pub fn touch(&mut self, r: usize) {
        self.touched.push(r as u32);
    }

    /// Endpoint `r`'s Pod got its deletion timestamp.
    pub fn terminate(&mut self, r: usize) {
        let e = self.endpoints[r];
        self.write(
            r,
            Endpoint {
                terminating: true,
                ..e
            },
        );
        self.touch(r);
    }

    /// The touched endpoints take their Pods' state, `state(r)` giving
    /// (serving, object gone); `each` is told, in replica order, of each
    /// one whose serving changed. Returns the ready endpoints if their
    /// number changed since it was last returned.
    pub fn update(
        &mut self,
        state: impl Fn(usize) -> (bool, bool),
        mut each: impl FnMut(u32, bool),
    ) -> Option<u32> {
        self.touched.sort_unstable();
        self.touched.dedup();
        for k in 0..self.touched.len() {
            let r = self.touched[k] as usize;
            let (serving, gone) = state(r);
            let e = self.endpoints[r];
            let listed = (e.listed || serving) && !gone;
            self.write(r, Endpoint { listed, serving, ..e });
            if e.serving != serving {
                each(r as u32, serving);
            }
        }
        (self.ready_now != self.ready).then(|| {
            self.ready = self.ready_now;
            self.ready
        })
    }

    /// Publishes the endpoints as they are now, if that changes the rules
    /// they give; returns whether a new version was published.
    pub fn publish(&mut self) -> bool {
        let start = self.changes.len();
        let picks_ready = self.ready_now > 0;
        if picks_ready != self.picks_ready {
            self.picks_ready = picks_ready;
            (0..self.endpoints.len()).for_each(|r| self.rule(r));
        } else {
            self.touched.sort_unstable();
            self.touched.dedup();
            for k in 0..self.touched.len() {
                self.rule(self.touched[k] as usize);
            }
        }
        self.touched.clear();
        if self.changes.len() == start {
            return false;
        }
        self.ends.push(self.changes.len());
        true
    }

    /// The current version.
    pub fn version(&self) -> u32 {
        (self.ends.len() - 1) as u32
    }

    /// What takes the rules of version `from` to those of the later `to`:
    /// each replica they gain or lose, once, in replica order.
    pub fn changes(&mut self, from: u32, to: u32) -> &[RuleChange] {
        let span = self.ends[from as usize]..self.ends[to as usize];
        if to <= from + 1 {
            return &self.changes[span];
        }
        // Each replica's changes alternate (a change is a flip); a stable
        // sort keeps them in version order, and they add up to one change
        // exactly when the first and the last are the same flip.
        self.net.clear();
        self.net.extend_from_slice(&self.changes[span]);
        self.net.sort_by_key(|&(r, _)| r);
        let (mut kept, mut k) = (0, 0);
        while k < self.net.len() {
            let (r, first) = self.net[k];
            let mut last = first;
            k += 1;
            while k < self.net.len() && self.net[k].0 == r {
                last = self.net[k].1;
                k += 1;
            }
            if first == last {
                self.net[kept] = (r, last);
                kept += 1;
            }
        }
        self.net.truncate(kept);
        &self.net
    }

    /// Endpoint `r` becomes `e`, the ready count following.
    fn write(&mut self, r: usize, e: Endpoint) {
        let was = std::mem::replace(&mut self.endpoints[r], e);
        self.ready_now = self.ready_now + u32::from(e.ready()) - u32::from(was.ready());
    }

    /// Endpoint `r` goes into or out of the newest rules, as the choice
    /// of KEP-1669 now says: the ready endpoints, else the serving
    /// terminating ones.
    fn rule(&mut self, r: usize) {
        let e = self.endpoints[r];
        let want = if self.picks_ready { e.ready() } else { e.fallback() };
        if want != self.ruled[r] {
            self.ruled[r] = want;
            self.changes.push((r as u32, want));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules of `version`, rebuilt from version 0.
    fn rules(slice: &mut Slice, version: u32) -> Vec<u32> {
        slice
            .changes(0, version)
            .iter()
            .map(|&(r, added)| {
                assert!(added, "from nothing, rules only gain");
                r
            })
            .collect()
    }

    /// Sets endpoint `r` to (serving, object gone) and updates the slice.
    fn set(slice: &mut Slice, states: &mut [(bool, bool)], r: usize, state: (bool, bool)) {
        states[r] = state;
        slice.touch(r);
        slice.update(|i| states[i], |_, _| {});
    }

    #[test]
    fn terminating_endpoints_are_used_only_when_no_ready_one_is_left() {
        let mut slice = Slice::default();
        slice.reset(2);
        let mut states = [(false, false); 2];
        set(&mut slice, &mut states, 0, (true, false));
        set(&mut slice, &mut states, 1, (true, false));
        assert!(slice.publish());
        assert_eq!(rules(&mut slice, 1), [0, 1]);
        // 0 terminates: 1 alone is ready.
        slice.terminate(0);
        slice.update(|i| states[i], |_, _| {});
        assert!(slice.publish());
        assert_eq!(slice.changes(1, 2), [(0, false)]);
        // 1 terminates too: both serving terminating ones are used.
        slice.terminate(1);
        slice.update(|i| states[i], |_, _| {});
        assert!(slice.publish());
        assert_eq!(rules(&mut slice, 3), [0, 1]);
        // Terminating and no longer serving (a container exited): never used.
        set(&mut slice, &mut states, 0, (false, false));
        assert!(slice.publish());
        assert_eq!(rules(&mut slice, 4), [1]);
        // 0 came back and went again since version 2: no change.
        assert!(slice.changes(2, 4).is_empty());
    }

    #[test]
    fn a_change_that_leaves_the_rules_alone_publishes_nothing() {
        let mut slice = Slice::default();
        slice.reset(2);
        let mut states = [(false, false); 2];
        set(&mut slice, &mut states, 0, (true, false));
        assert!(slice.publish());
        // Terminating but still the only serving endpoint: the rules stay.
        slice.terminate(0);
        assert_eq!(slice.update(|i| states[i], |_, _| {}), Some(0));
        assert!(!slice.publish());
        assert_eq!((slice.version(), rules(&mut slice, 1)), (1, vec![0]));
    }

    #[test]
    fn changes_across_versions_cancel_out_and_come_in_replica_order() {
        let mut slice = Slice::default();
        slice.reset(4);
        let mut states = [(false, false); 4];
        let mut serving = Vec::new();
        // Version 1: 3 ready; 2: 1 too; 3: 3 no longer; 4: 0.
        for (r, on) in [(3, true), (1, true), (3, false), (0, true)] {
            states[r] = (on, false);
            slice.touch(r);
            slice.update(|i| states[i], |r, on| serving.push((r, on)));
            assert!(slice.publish());
        }
        assert_eq!(serving, [(3, true), (1, true), (3, false), (0, true)]);
        // 3 came and went: no change; 0 and 1 came, in replica order.
        assert_eq!(slice.changes(0, 4), [(0, true), (1, true)]);
        assert_eq!(slice.changes(1, 3), [(1, true), (3, false)]);
        assert!(slice.changes(4, 4).is_empty());
    }
}
