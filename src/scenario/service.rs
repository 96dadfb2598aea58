//! The rules of a Service scenario (`[service]`, `[traffic]`, `[app]`,
//! `[[disruptions]]`), checked after reading, whatever wrote the values: a
//! scenario file or a grid axis.
//!
//! Invariant: a `RunSpec` with a `service` that passes `check_service` runs
//! without surprises: at least one replica and one node, disruptions that
//! name a replica that exists, one way to say when, no Pod-level deletion
//! competing with them, and at most one rollout, alone, whose fenceposts
//! the API would accept.

use crate::model::service::{Budget, Scaled, ServiceSpec};
use crate::model::{Deletion, RunSpec};

use super::key::Field;

/// A rule a Service breaks: the field to point at (with the disruption's
/// index for a disruption's field) and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceProblem {
    /// The key to point at.
    pub field: Field,
    /// The disruption's index, for a disruption's key.
    pub index: Option<usize>,
    /// What is wrong, and what would do.
    pub message: String,
}

fn problem(field: Field, index: Option<usize>, message: String) -> Result<(), ServiceProblem> {
    Err(ServiceProblem {
        field,
        index,
        message,
    })
}

/// Checks the Service of `run`, if it has one.
pub fn check_service(run: &RunSpec) -> Result<(), ServiceProblem> {
    let Some(service) = run.service.as_deref() else {
        return Ok(());
    };
    let ServiceSpec { replicas, nodes, .. } = *service;
    if replicas == 0 {
        return problem(Field::Replicas, None, "replicas must be 1 or more".into());
    }
    if nodes == 0 {
        return problem(Field::Nodes, None, "nodes must be 1 or more".into());
    }
    if let Some(t) = &service.traffic
        && t.clients == 0
    {
        return problem(Field::Clients, None, "clients must be 1 or more".into());
    }
    let deletion = match run.pod.deletion {
        Deletion::Never => None,
        Deletion::At(_) => Some(Field::StopAt),
        Deletion::AfterReady(_) => Some(Field::StopAfterReady),
    };
    if let Some(field) = deletion {
        return problem(
            field,
            None,
            format!(
                "{}: a Service scenario deletes Pods with [[disruptions]] (at or after_ready, delete = <replica>); \
                 remove it from [pod]",
                field.name()
            ),
        );
    }
    check_drains(service)?;
    check_rollouts(service)?;
    check_budget(service)?;
    for (i, d) in service.disruptions.iter().enumerate() {
        if d.every == Some(crate::engine::SimDuration::ZERO) {
            return problem(
                Field::Every,
                Some(i),
                format!(
                    "disruption {i}: every must be above 0s: write the time between two deletions, such as \"10m\""
                ),
            );
        }
        if d.rollout.is_some() || d.drain.is_some() {
            continue;
        }
        if d.replica >= replicas {
            return problem(
                Field::Delete,
                Some(i),
                format!(
                    "disruption {i}: delete = {} is beyond the replicas: with replicas = {replicas}, delete one of 0 to {}",
                    d.replica,
                    replicas - 1
                ),
            );
        }
        if let Some(j) = service.disruptions[..i]
            .iter()
            .position(|e| e.replica == d.replica)
        {
            return problem(
                Field::Delete,
                Some(i),
                format!(
                    "disruption {i}: replica {} is already deleted by disruption {j}",
                    d.replica
                ),
            );
        }
    }
    Ok(())
}

/// Drains: of nodes that exist, each node once, and not beside a rollout
/// or a delete (the ReplicaSet that replaces evicted Pods would replace
/// deleted ones too, which a delete-only scenario does not).
fn check_drains(service: &ServiceSpec) -> Result<(), ServiceProblem> {
    let Some(first) = service.disruptions.iter().position(|d| d.drain.is_some()) else {
        return Ok(());
    };
    for (i, d) in service.disruptions.iter().enumerate() {
        let Some(node) = d.drain else {
            let field = if d.rollout.is_some() {
                Field::Rollout
            } else {
                Field::Delete
            };
            return problem(
                field,
                Some(i),
                format!(
                    "disruption {i}: a {} beside the drain of disruption {first}: a scenario with a drain \
                     drains nodes only (one disruption per node); drop one of the two",
                    if d.rollout.is_some() {
                        "rollout"
                    } else {
                        "kubectl delete"
                    }
                ),
            );
        };
        if node >= service.nodes {
            return problem(
                Field::DrainNode,
                Some(i),
                format!(
                    "disruption {i}: drain = {node} is beyond the nodes: with nodes = {}, drain one of 0 to {}",
                    service.nodes,
                    service.nodes - 1
                ),
            );
        }
        if let Some(j) = service.disruptions[..i]
            .iter()
            .position(|e| e.drain == Some(node))
        {
            return problem(
                Field::DrainNode,
                Some(i),
                format!("disruption {i}: node {node} is already drained by disruption {j}"),
            );
        }
    }
    Ok(())
}

/// A rollout: one per scenario, no hand deletion beside it, and the
/// fenceposts the API accepts.
fn check_rollouts(service: &ServiceSpec) -> Result<(), ServiceProblem> {
    let rollouts: Vec<usize> = (service.disruptions.iter().enumerate())
        .filter(|(_, d)| d.rollout.is_some())
        .map(|(i, _)| i)
        .collect();
    let Some(&first) = rollouts.first() else {
        return Ok(());
    };
    if let Some(&second) = rollouts.get(1) {
        return problem(
            Field::Rollout,
            Some(second),
            format!(
                "disruption {second}: disruption {first} is already a rollout, and a scenario has one \
                 rollout; sweep the two as an axis instead"
            ),
        );
    }
    if let Some(i) = service.disruptions.iter().position(|d| d.rollout.is_none()) {
        return problem(
            Field::Delete,
            Some(i),
            format!(
                "disruption {i}: a kubectl delete beside the rollout of disruption {first}: with a rollout \
                 the Pods are the Deployment's, whose ReplicaSet would replace the deleted one; \
                 drop one of the two"
            ),
        );
    }
    let Some(r) = &service.disruptions[first].rollout else {
        return Ok(());
    };
    if r.max_surge.is_zero() && r.max_unavailable.is_zero() {
        return problem(
            Field::MaxUnavailable,
            Some(first),
            format!(
                "disruption {first}: max_unavailable may not be 0 when max_surge is 0 (the API refuses it: \
                 no Pod could ever be replaced); make one of them 1 or more"
            ),
        );
    }
    if let Scaled::Percent(p) = r.max_unavailable
        && p > 100
    {
        return problem(
            Field::MaxUnavailable,
            Some(first),
            format!("disruption {first}: max_unavailable = \"{p}%\" is above 100%; write \"100%\" at most"),
        );
    }
    Ok(())
}

/// What a budget with neither field does (`Budget::Unset`), after its
/// name, the fields named as the input names them: the API takes such a
/// budget, and it blocks every drain.
pub fn neither_budget(min: &str, max: &str) -> String {
    format!(
        "sets neither {min} nor {max}: the disruption controller then allows no disruption (expectedCount 0), \
         so the eviction of every Ready Pod is refused (HTTP 429) and a drain of its node never ends; \
         write {min} or {max}"
    )
}

/// A budget's percentage is at most 100%, on either field, as the API has
/// it (`IsNotMoreThan100Percent` in `ValidatePodDisruptionBudgetSpec`).
fn check_budget(service: &ServiceSpec) -> Result<(), ServiceProblem> {
    let (field, n) = match service.pdb.map(|p| p.budget) {
        Some(Budget::MinAvailable(n)) => (Field::MinAvailable, n),
        Some(Budget::MaxUnavailable(n)) => (Field::PdbMaxUnavailable, n),
        Some(Budget::Unset) | None => return Ok(()),
    };
    match n {
        Scaled::Percent(p) if p > 100 => problem(
            field,
            None,
            format!(
                "[pdb] {} = \"{p}%\" is above 100%; write \"100%\" at most (the API refuses more)",
                field.leaf()
            ),
        ),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

    const POD: &str = "[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n";

    fn error_of(service: &str) -> String {
        Scenario::parse(&format!("{service}{POD}"), "s.toml")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn bad_service_input_is_refused_where_it_is_written() {
        assert_eq!(
            error_of("[service]\nreplicas = 0\n"),
            "s.toml:2:12: replicas must be 1 or more"
        );
        assert_eq!(
            error_of("[service]\nreplicas = 2\n[[disruptions]]\nat = \"5s\"\ndelete = 2\n"),
            "s.toml:5:10: disruption 0: delete = 2 is beyond the replicas: with replicas = 2, delete one of 0 to 1"
        );
        let e = error_of("[service]\n[traffic]\nrate = 0\n");
        assert!(e.starts_with("s.toml:3:8: ") && e.contains("above 0"), "{e}");
        let e = error_of("[service]\n[traffic]\nrate = -2.5\n");
        assert!(e.starts_with("s.toml:3:8: ") && e.contains("above 0"), "{e}");
        let e = error_of("[service]\npropagation = \"tinny\"\n");
        assert!(
            e.starts_with("s.toml:2:15: ")
                && e.contains("did you mean \"tiny\"")
                && e.contains("tiny, medium, large, gcp-lb, azure-lb, nlb-ip"),
            "{e}"
        );
        assert_eq!(
            error_of("[traffic]\nrate = 5\n"),
            "s.toml:1:2: [traffic] needs a [service] to send to: add [service] (replicas, nodes, propagation, …)"
        );
        assert_eq!(
            error_of("[service]\n[[disruptions]]\nat = \"5s\"\nevery = \"0s\"\n"),
            "s.toml:4:9: disruption 0: every must be above 0s: write the time between two deletions, such as \"10m\""
        );
        let e = error_of("[service]\n[[disruptions]]\ndelete = 0\n");
        assert!(e.contains("say when with one of at"), "{e}");
    }

    #[test]
    fn a_rollout_reads_into_the_spec_with_its_new_template() {
        let text = format!(
            "[service]\nreplicas = 4\n[[disruptions]]\nafter_ready = \"5s\"\nrollout = \"RollingUpdate\"\n\
             max_surge = 2\nmax_unavailable = \"50%\"\nmin_ready_seconds = \"3s\"\n\
             [disruptions.template.web]\nboot = \"4s\"\n{POD}"
        );
        let s = Scenario::parse(&text, "s.toml").unwrap();
        use crate::model::service::*;
        let r = s.run.service.as_deref().unwrap().disruptions[0]
            .rollout
            .clone()
            .unwrap();
        assert_eq!(
            (
                r.strategy,
                r.max_surge,
                r.max_unavailable,
                r.min_ready.as_millis()
            ),
            (
                Strategy::RollingUpdate,
                Scaled::Count(2),
                Scaled::Percent(50),
                3000
            )
        );
        let template = r.template.unwrap();
        assert_eq!(template.containers[0].boot.fixed().unwrap().as_millis(), 4000);
        // The old template is untouched.
        assert_eq!(s.run.pod.containers[0].boot.fixed().unwrap().as_millis(), 1000);
    }

    #[test]
    fn a_bad_rollout_is_refused_where_it_is_written() {
        let rollout = "[service]\n[[disruptions]]\nat = \"5s\"\n";
        assert_eq!(
            error_of("[[disruptions]]\nat = \"5s\"\nrollout = \"Recreate\"\n"),
            "s.toml:1:3: [disruptions] needs a [service] whose replicas it disrupts: add [service] (replicas, nodes, propagation, …)"
        );
        let e = error_of(&format!("{rollout}rollout = \"Recreate\"\ndelete = 1\n"));
        assert!(
            e.starts_with("s.toml:5:1: disruption 0: delete is a kubectl delete's"),
            "{e}"
        );
        let e = error_of(&format!("{rollout}rollout = \"Recreate\"\nmax_surge = 1\n"));
        assert!(
            e.starts_with("s.toml:5:1: disruption 0: max_surge belongs to a RollingUpdate"),
            "{e}"
        );
        let e = error_of(&format!("{rollout}max_surge = 0\nmax_unavailable = \"0%\"\n"));
        assert!(
            e.starts_with("s.toml:5:19: disruption 0: max_unavailable may not be 0 when max_surge is 0"),
            "{e}"
        );
        let e = error_of(&format!("{rollout}max_surge = \"a%\"\n"));
        assert!(
            e.starts_with("s.toml:4:13: ") && e.contains("not a percentage"),
            "{e}"
        );
        let e = error_of(&format!("{rollout}rollout = \"Rolling\"\n"));
        assert!(
            e.starts_with("s.toml:4:11: ") && e.contains("RollingUpdate, Recreate"),
            "{e}"
        );
        let e = error_of(&format!(
            "{rollout}rollout = \"Recreate\"\n[[disruptions]]\nat = \"9s\"\nrollout = \"Recreate\"\n"
        ));
        assert!(
            e.starts_with("s.toml:7:11: disruption 1: disruption 0 is already a rollout"),
            "{e}"
        );
        let e = error_of(&format!(
            "{rollout}rollout = \"Recreate\"\n[[disruptions]]\nat = \"9s\"\ndelete = 0\n"
        ));
        assert!(
            e.starts_with("s.toml:7:10: disruption 1: a kubectl delete beside the rollout"),
            "{e}"
        );
        let e = error_of(&format!("{rollout}[disruptions.template.wbe]\nboot = \"2s\"\n"));
        assert!(
            e.starts_with("s.toml:4:23: ") && e.contains("did you mean \"web\""),
            "{e}"
        );
        let e = error_of(&format!("{rollout}[disruptions.template.web]\nkind = \"init\"\n"));
        assert!(
            e.starts_with("s.toml:5:1: disruption 0: template.web: kind shapes the Pod"),
            "{e}"
        );
        let e = error_of(&format!("{rollout}[disruptions.template.web]\nbot = \"2s\"\n"));
        assert!(
            e.starts_with("s.toml:5:1: ") && e.contains("did you mean \"boot\""),
            "{e}"
        );
    }

    #[test]
    fn a_drain_and_its_budget_read_into_the_spec_and_bad_ones_are_refused() {
        use crate::model::service::*;
        let ok = format!(
            "[service]\nnodes = 2\n[pdb]\nmax_unavailable = \"25%\"\nunhealthy_pod_eviction_policy = \"AlwaysAllow\"\n\
             [[disruptions]]\nat = \"5s\"\ndrain = 1\n{POD}"
        );
        let s = Scenario::parse(&ok, "s.toml").unwrap();
        let service = s.run.service.as_deref().unwrap();
        assert_eq!(service.disruptions[0].drain, Some(1));
        assert_eq!(
            service.pdb,
            Some(Pdb {
                budget: Budget::MaxUnavailable(Scaled::Percent(25)),
                unhealthy_pod_eviction_policy: EvictionPolicy::AlwaysAllow,
            })
        );
        let e = error_of("[service]\n[pdb]\nmin_available = 2\nmax_unavailable = 1\n");
        assert!(
            e.starts_with(
                "s.toml:4:1: [pdb] max_unavailable: a budget has min_available or max_unavailable, not both"
            ),
            "{e}"
        );
        let e = error_of("[service]\nnodes = 2\n[[disruptions]]\nat = \"5s\"\ndrain = 2\n");
        assert_eq!(
            e,
            "s.toml:5:9: disruption 0: drain = 2 is beyond the nodes: with nodes = 2, drain one of 0 to 1"
        );
        let e = error_of("[service]\n[[disruptions]]\nat = \"5s\"\ndrain = 0\ndelete = 1\n");
        assert!(e.starts_with("s.toml:5:1: disruption 0: delete is a kubectl delete's, and drain makes this disruption a kubectl drain"), "{e}");
        let e = error_of("[service]\n[[disruptions]]\nat = \"5s\"\ndrain = 0\nrollout = \"Recreate\"\n");
        assert!(
            e.starts_with(
                "s.toml:4:1: disruption 0: drain makes this disruption a kubectl drain, and rollout a rollout"
            ),
            "{e}"
        );
        let e = error_of(
            "[service]\n[[disruptions]]\nat = \"5s\"\ndrain = 0\n[[disruptions]]\nat = \"6s\"\ndelete = 1\n",
        );
        assert!(
            e.starts_with("s.toml:7:10: disruption 1: a kubectl delete beside the drain of disruption 0"),
            "{e}"
        );
        let e = error_of("[pdb]\nmin_available = 1\n");
        assert!(e.starts_with("s.toml:1:2: [pdb] needs a [service]"), "{e}");
    }

    #[test]
    fn a_service_scenario_reads_into_the_spec() {
        let text = format!(
            "seed = 4\n[service]\nreplicas = 2\npropagation = \"gcp-lb\"\n[traffic]\nrate = 8.3\n\
             connections = \"keep-alive\"\n[app]\non_sigterm = \"ignore\"\n[[disruptions]]\n\
             after_ready = \"10s\"\ndelete = 1\ngrace_period = \"5s\"\n{POD}"
        );
        let s = Scenario::parse(&text, "s.toml").unwrap();
        let service = s.run.service.as_deref().unwrap();
        use crate::model::service::*;
        assert_eq!(service.replicas, 2);
        assert_eq!(service.propagation, Propagation::Preset(Preset::GcpLb));
        let t = service.traffic.as_ref().unwrap();
        assert_eq!((t.rate.get(), t.connections), (8.3, Connections::KeepAlive));
        assert_eq!(service.app.on_sigterm, OnSigterm::Ignore);
        assert_eq!(
            service.disruptions,
            [Disruption {
                when: When::AfterReady(crate::engine::SimDuration::from_secs(10)),
                replica: 1,
                grace_period: Some(crate::engine::SimDuration::from_secs(5)),
                every: None,
                rollout: None,
                drain: None,
            }]
        );
        assert_eq!(s.run.stream.seed, 4);
    }
}
