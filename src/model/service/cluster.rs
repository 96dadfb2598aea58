//! The cluster around the Service (`[cluster]`, issue 39 item 3): the other
//! Services whose rules every node's one kube-proxy keeps too, their
//! endpoints' churn, the Deployments rolling with ours, and how long a
//! sync takes for that many rules in each proxy mode.
//!
//! kube-proxy syncs every Service through one `BoundedFrequencyRunner` per
//! node (pkg/util/async/bounded_frequency_runner.go; the proxiers in
//! pkg/proxy/iptables, nftables and ipvs make it with `minSyncPeriod` and
//! burst 2). Its `fn` runs inside the runner's loop: a `Run()` while a sync
//! runs leaves one token in the `run` channel (more are dropped), read when
//! the sync returns, and `tryRun` then asks the token bucket again; with no
//! token it retries `minSyncPeriod` after that sync's end (`proxy`). So a
//! change of ours heard while another Service's sync runs waits for that
//! sync's end, then for a token or `minSyncPeriod` more: the wait a
//! Service alone never sees.
//!
//! A sync writes lines (rules and chains). `iptables-save` of a ClusterIP
//! Service counts 3 lines for the Service (its `KUBE-SERVICES` jump, its
//! `KUBE-SVC-` chain and masquerade rule) and 4 per endpoint (the
//! `KUBE-SEP-` chain, the jump to it, its masquerade and DNAT rules). What
//! a sync writes depends on the mode:
//!
//! - `iptables-full` (before 1.26, or `MinimizeIPTablesRestore` off): every
//!   line, every sync;
//! - `iptables` (1.27+, KEP-3453): `KUBE-SERVICES` whole (a line per
//!   Service) and the chains of the Services that changed since the last
//!   sync: still O(Services) a sync, "with a noticeably smaller constant"
//!   (kubernetes.io blog, 2025-02-28, "NFTables mode for kube-proxy");
//! - `nftables` (KEP-3866) and `ipvs`: only what changed ("O(n) in the
//!   number of Services and endpoints that have changed since the last
//!   sync", same post; IPVS updates each virtual server by netlink).
//!
//! A line costs 18 µs: `iptables-restore` of a 695,992-line dump took
//! 12.77 s (kubernetes#96018), 18.3 µs a line. With it, a full restore of
//! 5,000 Services of 12 endpoints (255,000 lines) takes 4.6 s: the "iptables
//! runs 4-5 seconds each" reported from large clusters (kubernetes#92836).
//! Both the cost and the whole duration can be overridden (`line_cost`,
//! `sync_time`).
//!
//! The periodic full resync. Since kubernetes#129329 the iptables and
//! nftables proxiers rewrite every line on the first sync more than
//! `FullSyncPeriod` (pkg/proxy/util, one hour) after their last full one
//! (`doFullSync`); the runner's `maxInterval` (`time.Hour` up to 1.33,
//! `FullSyncPeriod` since) runs one if nothing else did for that long.
//! (1.36 skips the periodic full sync in "large cluster mode", above 1,000
//! endpoints; `--iptables-sync-period`, 30 s, is only the canary check's
//! period there, kubernetes#81517.) A run of minutes meets one at most, at
//! an instant that depends on when the node last did one: `full_sync`
//! names it, and every node's runner then runs a sync that writes every
//! line, taking its slot and its token like any other. IPVS has no partial
//! sync to fall back from (each sync walks every virtual server, its
//! runner's `maxInterval` is `syncPeriod`), and podsim counts its syncs by
//! what changed, so there a full sync writes only the changes.
//!
//! Simplified: a background change is one Service's endpoint added or
//! removed, heard by each node after the Service's own propagation delay;
//! and each change counts a distinct Service as changed.

use super::spec::Rate;
use crate::engine::SimDuration;

/// The cluster around the Service: what every node's kube-proxy syncs besides it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClusterSpec {
    /// Other Services, each with `endpoints` endpoints, on every node's rules.
    pub services: u32,
    /// Endpoints of each other Service.
    pub endpoints: u32,
    /// Endpoint changes per second across the other Services (a Poisson
    /// process); `None`: they never change.
    pub churn: Option<Rate>,
    /// Other Deployments shaped like ours whose endpoints change whenever
    /// ours do: the rollouts of several Deployments at once.
    pub rolling: u32,
    /// Deployment k (from 1) changes k × this after ours: Deployments
    /// rolled one after another, not all in the same instant.
    pub stagger: SimDuration,
    /// The proxy mode, which decides what a sync writes.
    pub mode: ProxyMode,
    /// Every sync takes this long, whatever it writes (overrides the lines).
    pub sync_time: Option<SimDuration>,
    /// The cost of 1,000 lines (18 ms: kubernetes#96018).
    pub line_cost: SimDuration,
    /// When every node's hourly full resync falls in the run; `None`: not
    /// in it.
    pub full_sync: Option<SimDuration>,
}

impl Default for ClusterSpec {
    fn default() -> Self {
        ClusterSpec {
            services: 0,
            endpoints: 10,
            churn: None,
            rolling: 0,
            stagger: SimDuration::ZERO,
            mode: ProxyMode::Iptables,
            sync_time: None,
            line_cost: SimDuration::from_millis(18),
            full_sync: None,
        }
    }
}

/// kube-proxy's mode on Linux, as `--proxy-mode` names it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ProxyMode {
    /// iptables with partial restores (KEP-3453, default since 1.27).
    #[default]
    Iptables,
    /// iptables rewriting every rule each sync (before 1.26).
    IptablesFull,
    /// nftables (KEP-3866, GA in 1.33): only what changed.
    Nftables,
    /// IPVS: only what changed.
    Ipvs,
}

impl ProxyMode {
    crate::model::words::words! {
        /// The spellings.
        Iptables => "iptables",
        IptablesFull => "iptables-full",
        Nftables => "nftables",
        Ipvs => "ipvs",
    }
}

/// Lines of one Service's chains: 3, and 4 per endpoint.
fn service_lines(endpoints: u32) -> u64 {
    3 + 4 * u64::from(endpoints)
}

/// What changed since a node's last sync started: what its next one writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changed {
    /// Our Service's endpoints.
    pub ours: bool,
    /// Changes heard of the Deployments rolling with ours.
    pub rolling: u32,
    /// Changes heard of the other Services' endpoints.
    pub churned: u32,
    /// The periodic full resync is due: every line is written.
    pub full: bool,
}

impl ClusterSpec {
    /// How long a sync takes on a node whose rules hold our Service of
    /// `replicas` endpoints and the cluster's, `changed` having changed.
    pub fn sync_time(&self, replicas: u32, changed: Changed) -> SimDuration {
        if let Some(d) = self.sync_time {
            return d;
        }
        let ours = service_lines(replicas);
        let theirs = service_lines(self.endpoints);
        let all = ours * (1 + u64::from(self.rolling)) + theirs * u64::from(self.services);
        let services = 1 + u64::from(self.rolling) + u64::from(self.services);
        let dirty = ours * (u64::from(changed.ours) + u64::from(changed.rolling.min(self.rolling)))
            + theirs * u64::from(changed.churned.min(self.services));
        let lines = match (self.mode, changed.full) {
            (ProxyMode::IptablesFull, _) | (ProxyMode::Iptables | ProxyMode::Nftables, true) => all,
            (ProxyMode::Iptables, false) => services + dirty,
            (ProxyMode::Nftables, false) | (ProxyMode::Ipvs, _) => dirty,
        };
        // The cost is per 1,000 lines, in ms: lines × cost µs, rounded up.
        SimDuration((lines * self.line_cost.as_millis()).div_ceil(1000))
    }
}

/// One node's runner beside its rules (`Proxy`): whether its sync runs,
/// a request that came meanwhile, and what the next sync will write.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Runner {
    /// A sync runs (started, its rules not yet written).
    pub running: bool,
    /// A sync was asked for while one ran: asked again at its end.
    pub queued: bool,
    /// The slice version the running sync writes (heard when it started).
    pub taking: u32,
    /// What changed since the running (or last) sync started.
    pub changed: Changed,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(mode: ProxyMode) -> ClusterSpec {
        ClusterSpec {
            services: 1000,
            endpoints: 10,
            rolling: 4,
            mode,
            ..ClusterSpec::default()
        }
    }

    #[test]
    fn a_sync_takes_the_lines_it_writes_at_18_us_each() {
        // Ours has 3 replicas: 3 + 4·3 = 15 lines; each other Service
        // 3 + 4·10 = 43. Services: 1 + 4 rolling + 1000 = 1005.
        let one = Changed {
            ours: true,
            ..Changed::default()
        };
        let busy = Changed {
            ours: true,
            rolling: 4,
            churned: 2,
            full: false,
        };
        // Full: 15·5 + 43·1000 = 43,075 lines × 18 µs = 775.35 ms → 776.
        let full = cluster(ProxyMode::IptablesFull);
        assert_eq!(full.sync_time(3, one), SimDuration(776));
        assert_eq!(full.sync_time(3, busy), SimDuration(776));
        // Partial: 1005 + 15 = 1020 lines → 18.36 ms → 19; with four
        // rolling and two churned: 1005 + 15·5 + 43·2 = 1166 → 20.988 → 21.
        let partial = cluster(ProxyMode::Iptables);
        assert_eq!(partial.sync_time(3, one), SimDuration(19));
        assert_eq!(partial.sync_time(3, busy), SimDuration(21));
        // nftables, ipvs: 15 lines → 0.27 ms → 1; 161 → 2.898 → 3.
        for mode in [ProxyMode::Nftables, ProxyMode::Ipvs] {
            assert_eq!(cluster(mode).sync_time(3, one), SimDuration(1));
            assert_eq!(cluster(mode).sync_time(3, busy), SimDuration(3));
            assert_eq!(cluster(mode).sync_time(3, Changed::default()), SimDuration::ZERO);
        }
    }

    #[test]
    fn the_full_resync_writes_every_line_but_in_ipvs() {
        // Every line: 15·5 + 43·1000 = 43,075 → 776 ms, as iptables-full;
        // IPVS writes what changed: ours, 15 lines → 1 ms.
        let full = Changed {
            ours: true,
            full: true,
            ..Changed::default()
        };
        for mode in [ProxyMode::Iptables, ProxyMode::Nftables, ProxyMode::IptablesFull] {
            assert_eq!(cluster(mode).sync_time(3, full), SimDuration(776));
        }
        assert_eq!(cluster(ProxyMode::Ipvs).sync_time(3, full), SimDuration(1));
    }

    #[test]
    fn a_large_full_restore_takes_the_reported_seconds() {
        // 5,000 Services of 12 endpoints: 5,000·51 + ours 15 = 255,015
        // lines × 18 µs = 4,590.27 ms (kubernetes#92836: 4-5 s).
        let c = ClusterSpec {
            services: 5000,
            endpoints: 12,
            mode: ProxyMode::IptablesFull,
            ..ClusterSpec::default()
        };
        assert_eq!(c.sync_time(3, Changed::default()), SimDuration(4591));
    }

    #[test]
    fn changes_count_no_more_services_than_there_are() {
        let c = cluster(ProxyMode::Nftables);
        let many = Changed {
            rolling: 40,
            churned: 5000,
            ..Changed::default()
        };
        // At most 4 rolling (15 lines each) and 1000 churned (43 each):
        // 60 + 43,000 = 43,060 lines → 775.08 ms → 776.
        assert_eq!(c.sync_time(3, many), SimDuration(776));
    }

    #[test]
    fn a_fixed_sync_time_overrides_the_lines() {
        let c = ClusterSpec {
            sync_time: Some(SimDuration(250)),
            ..cluster(ProxyMode::IptablesFull)
        };
        assert_eq!(c.sync_time(3, Changed::default()), SimDuration(250));
    }
}
