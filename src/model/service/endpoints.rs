//! The EndpointSlice (KEP-1672) and what kube-proxy makes of it (KEP-1669):
//! each endpoint is `serving` (its Pod is Ready), `terminating` (the Pod
//! has a deletion timestamp) and `ready` (serving and not terminating); a
//! node's rules are the ready endpoints, else the serving terminating ones,
//! else none (REJECT).
//!
//! Invariant: every change to the slice is a new version, and a version
//! never changes afterwards, so a node that syncs late installs exactly what
//! the control plane had published by the last change it was told of.

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
}

/// The slice now, and every version a node may still sync to.
#[derive(Clone, Debug, Default)]
pub struct Slice {
    pub endpoints: Vec<Endpoint>,
    /// Ready endpoints as last counted (`ServiceChange::ReadyEndpoints`).
    pub ready: u32,
    /// The rules each version gives, by version; version 0 lists nothing.
    versions: Vec<Vec<u32>>,
}

impl Slice {
    /// A slice of `replicas` unlisted endpoints, keeping allocations.
    pub fn reset(&mut self, replicas: usize) {
        self.endpoints.clear();
        self.endpoints.resize(replicas, Endpoint::default());
        self.ready = 0;
        self.versions.clear();
        self.versions.push(Vec::new());
    }

    /// The current version.
    pub fn version(&self) -> u32 {
        (self.versions.len() - 1) as u32
    }

    /// Publishes the endpoints as they are now, if that changes the rules
    /// they give; returns whether a new version was published.
    pub fn publish(&mut self) -> bool {
        let rules = rules_of(&self.endpoints);
        if self.versions.last() == Some(&rules) {
            return false;
        }
        self.versions.push(rules);
        true
    }

    /// The rules of `version`.
    pub fn rules(&self, version: u32) -> &[u32] {
        &self.versions[version as usize]
    }
}

/// KEP-1669: the ready endpoints; if none, the serving terminating ones.
fn rules_of(endpoints: &[Endpoint]) -> Vec<u32> {
    let pick = |keep: fn(&Endpoint) -> bool| -> Vec<u32> {
        (0..endpoints.len() as u32)
            .filter(|&i| keep(&endpoints[i as usize]))
            .collect()
    };
    let ready = pick(|e| e.ready());
    if !ready.is_empty() {
        return ready;
    }
    pick(|e| e.listed && e.serving && e.terminating)
}

#[cfg(test)]
mod tests {
    use super::*;

    const READY: Endpoint = Endpoint {
        listed: true,
        serving: true,
        terminating: false,
    };

    #[test]
    fn terminating_endpoints_are_used_only_when_no_ready_one_is_left() {
        let dying = Endpoint {
            terminating: true,
            ..READY
        };
        assert_eq!(rules_of(&[dying, READY]), [1]);
        assert_eq!(rules_of(&[dying, dying]), [0, 1]);
        // Terminating and no longer serving (a container exited): never used.
        let gone = Endpoint {
            serving: false,
            ..dying
        };
        assert!(rules_of(&[gone]).is_empty());
    }

    #[test]
    fn a_change_that_leaves_the_rules_alone_publishes_nothing() {
        let mut slice = Slice::default();
        slice.reset(2);
        slice.endpoints[0] = READY;
        assert!(slice.publish());
        // Terminating but still the only serving endpoint: the rules stay.
        slice.endpoints[0].terminating = true;
        assert!(!slice.publish());
        assert_eq!((slice.version(), slice.rules(1)), (1, &[0][..]));
    }
}
