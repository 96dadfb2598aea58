//! The key registry's own tables: every field found by its name, every
//! value through an axis's encoding and back.

use super::unit::*;
use super::*;
use crate::engine::SimDuration;
use crate::model::service::{Rate, Scaled};
use crate::model::{ContainerKind, ContainerSpec, ImagePull, KubeVersion, PodSpec, Probability};

#[test]
fn every_field_is_listed_once_and_found_by_its_name() {
    for field in Field::ALL {
        assert_eq!(
            Field::find(field.scope(), &field.name()),
            Some(field),
            "{field:?}"
        );
    }
    let mut seen = std::collections::HashSet::new();
    assert!(Field::ALL.iter().all(|f| seen.insert(*f)));
}

#[test]
fn every_scalar_value_survives_encoding() {
    let mut run = RunSpec::new(PodSpec::new(vec![ContainerSpec::new(
        "web",
        ContainerKind::App,
        SimDuration::ZERO,
    )]));
    for field in Field::ALL {
        let unit = field.unit().axis();
        let value = match unit {
            Unit::Millis | Unit::Dist => Value::Millis(SimDuration::from_millis(1500)),
            Unit::Probability => Value::Probability(Probability::new(0.25).unwrap()),
            Unit::Count => Value::Count(2),
            Unit::Flag => Value::Flag(true),
            Unit::Word { .. } => Value::Word(1),
            Unit::Version => Value::Version(KubeVersion(33)),
            Unit::DistList => unreachable!("an axis unit is never a list"),
            Unit::Rate => Value::Rate(Rate::new(8.5).unwrap()),
            Unit::Propagation => Value::Preset(1),
            Unit::Scaled => Value::Scaled(Scaled::Percent(30)),
            Unit::DistOrWord { .. } => Value::TheWord,
            Unit::Pulls => Value::Pulls(ImagePull::FailsFirst(2)),
            // Never encoded: an axis holds each list whole (its own test below).
            Unit::PriorityGroups => continue,
        };
        assert_eq!(unit.decode(value.encode().unwrap()), value, "{field:?}");
        if unit == Unit::Pulls {
            for pulls in [ImagePull::Pulls, ImagePull::Fails] {
                assert_eq!(
                    unit.decode(Value::Pulls(pulls).encode().unwrap()),
                    Value::Pulls(pulls)
                );
            }
        }
        Key::container(field, 0).set(&mut run, &value);
    }
    let web = &run.pod.containers[0];
    assert_eq!(
        (web.boot.fixed().map(|d| d.as_millis()), web.fails, web.proxy),
        (Some(1500), 2, true)
    );
    assert_eq!(web.crash_after, [SimDuration::from_millis(1500)]);
    assert_eq!(web.drain, crate::model::Drain::Never);
    assert_eq!(web.fail_probability.get(), 0.25);
    assert_eq!(run.stream.seed, 2);
    assert_eq!(run.pod.kubernetes, KubeVersion(33));
    assert_eq!(run.horizon, SimDuration::from_millis(1500));
    assert_eq!(
        (&web.post_start, web.post_start_fails, web.image_pull),
        (
            &Some(crate::model::PostStart::UntilBooted),
            true,
            ImagePull::FailsFirst(2)
        )
    );
}

#[test]
fn r55_a_drain_is_a_duration_a_distribution_or_never() {
    let drain = Field::Drain.unit();
    assert_eq!(drain.parse_text("drain", "never"), Ok(Value::TheWord));
    assert_eq!(
        drain.parse_text("drain", "2s"),
        Ok(Value::Millis(SimDuration::from_secs(2)))
    );
    let encoded = Value::TheWord.encode().unwrap();
    assert_eq!(drain.describe(encoded), "\"never\"");
    let mut cell = Vec::new();
    drain.cell(encoded, &mut cell);
    assert_eq!(cell, b"never");
    let wrong = drain.parse_text("drain", "nevr").unwrap_err();
    assert!(
        wrong.ends_with("or write \"never\" for a process that ignores SIGTERM"),
        "{wrong}"
    );
}

#[test]
fn the_service_field_pattern_is_the_services_scopes() {
    for field in Field::ALL {
        let listed = matches!(field, service_field!());
        assert_eq!(listed, Scope::SERVICE.contains(&field.scope()), "{field:?}");
    }
}

#[test]
fn priority_groups_read_sorted_and_bad_ones_say_what_to_write() {
    use crate::model::service::PriorityGroup;
    let unit = Field::ShutdownGracePeriodByPodPriority.unit();
    let key = "shutdown_grace_period_by_pod_priority";
    let group = |priority, s| PriorityGroup {
        priority,
        seconds: SimDuration::from_secs(s),
    };
    // Sorted by priority, as the kubelet sorts them.
    assert_eq!(
        unit.parse_text(key, "2000000000:10s, 0:20s,100000:1m"),
        Ok(Value::PriorityGroups(
            vec![group(0, 20), group(100_000, 60), group(2_000_000_000, 10)].into()
        ))
    );
    let why = |text: &str| unit.parse_text(key, text).unwrap_err();
    let head = "shutdown_grace_period_by_pod_priority must be priority:seconds groups between commas, \
                such as \"0:20s, 2000000000:10s\" (the kubelet's shutdownGracePeriodByPodPriority), not";
    assert_eq!(
        why("0=20s"),
        format!("{head} \"0=20s\": \"0=20s\" has no ':' between a priority and its seconds")
    );
    assert_eq!(
        why("-1:20s"),
        format!("{head} \"-1:20s\": \"-1\" is no priority: write a whole number, 0 or more")
    );
    assert_eq!(
        why("0:1500ms"),
        format!("{head} \"0:1500ms\": \"1.5s\" is not whole seconds, as the kubelet's are")
    );
    assert_eq!(
        why("0:20s, 0:10s"),
        format!("{head} \"0:20s, 0:10s\": priority 0 has two groups; give each priority one")
    );
}
