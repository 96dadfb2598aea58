//! Why a setting is what it is, in words under the table: what keeps a
//! setting from being safe when no value in range is (the failures left at
//! the top, SIGKILL at every grace), what decides an advised preStop that
//! is not the endpoint race, why the proxy sleeps with the app, and the
//! disruption that overrides the grace.
//!
//! Why a room of its own: these lines explain causes (the model's rules,
//! the cited issues), where the table only reports figures; they grow with
//! every new cause or proxy, the table does not.

use super::{number, rollout};
use crate::advise::{Advice, GraceAdvice, PreStopAdvice, Target};
use crate::engine::SimDuration;
use crate::model::service::Cause;

/// What keeps a setting from being safe, when one is not, and the
/// disruption that overrides the grace.
pub fn limits(advice: &Advice) -> Vec<String> {
    let mut lines = Vec::new();
    let (p, g) = (&advice.pre_stop, &advice.grace);
    match p.advised {
        None => lines.extend(pre_stop_limit(p, advice.request.target)),
        Some(a) => lines.extend(pre_stop_decided(p, a, advice.request.step)),
    }
    if let Some(proxy) = &p.proxy {
        lines.extend(proxy_lines(&advice.container, &proxy.container));
    }
    if g.kills_remain {
        lines.push(grace_limit(g, advice.request.replications));
    }
    let budget = advice.request.max_rollout;
    lines.extend(advice.rollout.as_ref().and_then(|ro| rollout::limit(ro, budget)));
    if g.overridden {
        lines.push(
            "note: a disruption's grace_period (kubectl delete --grace-period) overrides the Pod's grace for the \
             Pod it deletes"
                .into(),
        );
    }
    lines
}

/// Why the proxy's hook is advised with the app's, and what else would do.
/// Istio's sidecar is the case the issue names (istio-proxy takes no new
/// inbound connection once SIGTERMed, istio/istio#34855), and its ways
/// out are Istio's settings, so both are cited only for a container
/// named `istio-proxy`; any other proxy gets the same reasoning in
/// general words (podsim does not know that proxy's settings). Neither
/// way out is simulated: their timing is the proxy's, not the kubelet's.
fn proxy_lines(app: &str, proxy: &str) -> Vec<String> {
    let behind = format!(
        "so no preStop of \"{app}\" alone helps; the proxy must outlive the endpoint race and \"{app}\" must keep \
         listening behind it, so both sleep the advised time"
    );
    match proxy {
        ISTIO_PROXY => vec![
            format!("why both: \"{proxy}\" stops taking new connections at SIGTERM (istio/istio#34855), {behind}"),
            "instead (not simulated): a native sidecar (Istio 1.19+, ENABLE_NATIVE_SIDECARS=true; \
             istio.io/latest/blog/2023/native-sidecars/), or proxy.istio.io/config with terminationDrainDuration or \
             EXIT_ON_ZERO_ACTIVE_CONNECTIONS (istio.io/latest/docs/reference/config/istio.mesh.v1alpha1/#ProxyConfig)"
                .into(),
        ],
        _ => vec![
            format!(
                "why both: \"{proxy}\" is the Pod's proxy and, with no preStop of its own, stops taking new \
                 connections when SIGTERMed, {behind}"
            ),
            format!(
                "instead (not simulated): make \"{proxy}\" a native sidecar (an initContainers entry with \
                 restartPolicy: Always, KEP-753: the kubelet stops it after the apps), or have it keep accepting \
                 connections for a while after SIGTERM"
            ),
        ],
    }
}

/// The container name Istio's injector gives its sidecar.
const ISTIO_PROXY: &str = "istio-proxy";

fn pre_stop_limit(p: &PreStopAdvice, target: Target) -> Vec<String> {
    if let Some(c) = p.searched.checked.filter(|c| !c.held) {
        let bisected = p.searched.bisected.unwrap_or_default();
        return vec![format!(
            "what limits it: {bisected} met {} ≤ {} on replications 0 to R-1 but not on fresh ones, nor did the \
             {} steps above it: the answer is at the edge of what these replications tell; try more \
             --replications",
            target.name(),
            number(target.bound()),
            c.walked
        )];
    }
    let mut lines = vec![format!(
        "what limits it: at {}s of preStop these failures remain (mean per run):",
        crate::advise::PRE_STOP_TOP.as_millis() / 1000
    )];
    for &(cause, mean) in &p.left_at_top {
        lines.push(format!(
            "  {} {}: {}",
            cause.name(),
            number(mean),
            why_left(cause)
        ));
    }
    lines
}

/// What decides an advised preStop when it is not the endpoint race (no
/// refused or timed-out connection one step below): the failures there,
/// and why a longer hook removes them.
fn pre_stop_decided(p: &PreStopAdvice, advised: SimDuration, step: SimDuration) -> Option<String> {
    let race = |c: Cause| matches!(c, Cause::Refused | Cause::Timeout);
    if p.decided_by.is_empty() || p.decided_by.iter().any(|&(c, _)| race(c)) {
        return None;
    }
    let left: Vec<String> = (p.decided_by.iter())
        .map(|&(c, mean)| format!("{} {}", c.name(), number(mean)))
        .collect();
    let why = match p.keeps_busy {
        true => {
            "the app keeps kept-alive connections serving after SIGTERM until they sit idle 5 s (on_sigterm = \
             \"close-keep-busy\", Node's server.close()) and the clients keep them busy, so a Pod still holding \
             them is SIGKILLed with requests in flight; the preStop only gives the clients' pools time to drop \
             the connections pinned to the deleted Pod (conntrack) before SIGTERM, so its length is how long \
             that takes, not the endpoint race. The lever is the app: close each connection after its \
             response at SIGTERM (\"close-then-drain\", Go's Server.Shutdown)"
        }
        false => {
            "not the endpoint race: requests cut while served or kept-alive connections closed under a \
             request; the preStop holds SIGTERM back until the deleted Pod's connections have wound down"
        }
    };
    Some(format!(
        "what decides it: at {} (one step below) the failures left are {} (mean per run): {why}",
        SimDuration(advised.as_millis().saturating_sub(step.as_millis())),
        left.join(", ")
    ))
}

/// Why a cause survives the longest preStop.
fn why_left(cause: Cause) -> &'static str {
    match cause {
        Cause::Refused | Cause::Timeout => {
            "new connections still sent to the Pod after its listener closed or its IP went: its rules drop \
             it later than that, or keep it for want of another endpoint (KEP-1669)"
        }
        Cause::NoEndpoints => {
            "no ready endpoint is left (too few replicas, or a Recreate): a preStop adds none"
        }
        Cause::Inflight => {
            "requests cut while served: the process is killed busy (a drain longer than the grace, or an app \
             that keeps busy connections until SIGKILL); a preStop cannot remove them"
        }
        Cause::Reset | Cause::KeepaliveRace => {
            "kept-alive connections closed under a request: the client's pool, not the endpoint race"
        }
        Cause::Unreachable => "requests to a lost node's Pods: no preStop runs on a node that is gone",
    }
}

fn grace_limit(g: &GraceAdvice, replications: u64) -> String {
    format!(
        "what limits it: at a grace of {} a container is still SIGKILLed in {} of {replications} runs: an app \
         that never exits on SIGTERM (drain = \"never\", on_sigterm = \"ignore\") or keeps busy connections \
         open{}",
        g.top,
        g.killed_at_top,
        match g.advised {
            Some(_) => "",
            None => "; today's grace is kept",
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Istio's issue and settings are cited for Istio's sidecar only.
    #[test]
    fn the_istio_issue_is_cited_for_istio_proxy_alone() {
        let istio = proxy_lines("nginx", "istio-proxy").join("\n");
        assert!(istio.contains("istio/istio#34855") && istio.contains("ENABLE_NATIVE_SIDECARS"));
        let other = proxy_lines("web", "linkerd-proxy").join("\n");
        assert!(!other.contains("istio"), "{other}");
        assert!(other.contains("\"linkerd-proxy\" is the Pod's proxy") && other.contains("KEP-753"));
    }
}
