//! The grammar against the registry: every key's path, printed in each
//! spelling, parses back to it; and the ambiguous corners of an
//! annotation (a container called like a table, a key of a container
//! written without one) are read as the readers promise.

use super::*;

#[test]
fn every_path_parses_back_to_its_key_in_both_spellings() {
    for field in Field::ALL {
        let place = match field.scope() {
            Scope::Container => Place::Container("web.v2"),
            scope if scope.indexed() => Place::Index(3),
            _ => Place::Table,
        };
        let axis = print(field, place, Spelling::Axis);
        assert_eq!(
            parse(&axis, Spelling::Axis),
            Ok(KeyPath { field, place }),
            "{axis}"
        );
        // An annotation names a container up to the first dot.
        let place = match place {
            Place::Container(_) => Place::Container("web"),
            place => place,
        };
        let annotation = print(field, place, Spelling::Annotation);
        assert_eq!(
            parse(&annotation, Spelling::Annotation),
            Ok(KeyPath { field, place }),
            "{annotation}"
        );
    }
}

#[test]
fn axis_paths_say_which_family_a_misspelt_key_was_meant_for() {
    let unknown = |scope, key| PathError::UnknownKey {
        scope,
        container: None,
        key,
    };
    let axis = |path| parse(path, Spelling::Axis);
    assert_eq!(axis("horizn"), Err(PathError::Unknown));
    assert_eq!(axis("servce.replicas"), Err(PathError::Unknown));
    assert_eq!(axis("pod.backoff.cpa"), Err(unknown(Scope::Pod, "backoff.cpa")));
    assert_eq!(axis("pod.backoff"), Err(PathError::Group(Group::Backoff)));
    assert_eq!(axis("job.backoff_limt"), Err(unknown(Scope::Job, "backoff_limt")));
    assert_eq!(axis("traffic.rat"), Err(unknown(Scope::Traffic, "rat")));
    assert_eq!(axis("actions.0.att"), Err(unknown(Scope::Action, "att")));
    assert_eq!(
        axis("disruptions.first.at"),
        Err(PathError::Index {
            scope: Scope::Disruption,
            index: Some("first"),
            key: "at"
        })
    );
    assert_eq!(
        axis("containers.web.bot"),
        Err(PathError::UnknownKey {
            scope: Scope::Container,
            container: Some("web"),
            key: "bot"
        })
    );
    assert_eq!(
        axis("containers.web.startup_probe"),
        Err(PathError::Group(Group::Probe(crate::model::ProbeKind::Startup)))
    );
}

#[test]
fn an_annotation_reads_a_container_called_like_a_table_as_the_container() {
    let annotation = |path| parse(path, Spelling::Annotation);
    assert_eq!(
        annotation("app.boot").map(|p| p.place),
        Ok(Place::Container("app"))
    );
    assert_eq!(
        annotation("job.boot").map(|p| p.place),
        Ok(Place::Container("job"))
    );
    assert_eq!(
        annotation("app.on_sigterm").map(|p| p.field),
        Ok(Field::OnSigterm)
    );
    assert_eq!(annotation("boot"), Err(PathError::NoContainer(Field::Boot)));
    assert_eq!(
        annotation("backoff.cpa"),
        Err(PathError::UnknownKey {
            scope: Scope::Pod,
            container: None,
            key: "backoff.cpa"
        })
    );
    assert_eq!(
        annotation("disruptions.at"),
        Err(PathError::Index {
            scope: Scope::Disruption,
            index: None,
            key: "at"
        })
    );
}

#[test]
fn family_help_lists_each_family_from_the_registry() {
    use crate::engine::SimDuration;
    use crate::model::{ContainerKind, ContainerSpec, PodSpec, RunSpec};
    let base = RunSpec::new(PodSpec::new(vec![
        ContainerSpec::new("proxy", ContainerKind::Sidecar, SimDuration::ZERO),
        ContainerSpec::new("web", ContainerKind::App, SimDuration::ZERO),
    ]));
    assert_eq!(family_help(Scope::Run, &base), "horizon, seed");
    assert_eq!(family_help(Scope::App, &base), "app.on_sigterm, app.drain_delay");
    assert!(
        family_help(Scope::Pod, &base).ends_with("pod.backoff.{initial,cap,immediate_first_restart}"),
        "{}",
        family_help(Scope::Pod, &base)
    );
    assert!(
        family_help(Scope::Container, &base).ends_with(
            "containers.<name>.<startup|readiness|liveness>_probe.{initial_delay,period,timeout,\
             success_threshold,failure_threshold,termination_grace_period,outcome,pass_after,pass_until}, \
             with <name> one of proxy, web"
        ),
        "{}",
        family_help(Scope::Container, &base)
    );
    assert_eq!(
        family_help(Scope::Action, &base),
        "actions.<index>.{at,after_ready,grace_period,down} (the base has no [[actions]] entry)"
    );
    assert_eq!(
        overview(),
        "horizon, seed, or a key of a table: pod.<key>, containers.<name>.<key>, job.<key>, service.<key>, \
         traffic.<key>, app.<key>, pdb.<key>, hop.<key>, disruptions.<index>.<key>, actions.<index>.<key>, cluster.<key>"
    );
}
