//! The registry against every reader: each key is accepted by a TOML
//! scenario, as a grid axis, and by annotations and the timings overlay
//! (or refused there with the manifest field to edit), and the key
//! reference (`docs/keys.md`) is the one the registry writes. A key added
//! to the registry but missed by a reader fails here, and the reference
//! cannot be left behind.

use std::path::Path;

use super::key::{DisruptionKind, Field, Scope, Unit};
use super::manifest::{self, Timings};
use super::*;
use crate::sweep::Grid;

/// The key that names the kind of a disruption's setting (`None` for
/// none): a setting alone is refused (`rules::service::named_by`); a spot
/// reclaim's own for its provider and notice.
fn naming_key(field: Field) -> Option<&'static str> {
    match (field, rules::service::named_by(field)) {
        (Field::Provider | Field::Notice, _) => Some("spot_reclaim"),
        (_, named) => named.map(|n| n[0].leaf()),
    }
}

/// A node shutdown's setting, swept over a base that shuts node 0 down.
fn named_by_shutdown(field: Field) -> bool {
    rules::service::named_by(field) == Some(&[Field::NodeShutdown][..])
}

/// A value of `field` as TOML and as annotation text, valid for the Pod below.
fn sample(field: Field) -> (&'static str, &'static str) {
    match field.unit() {
        Unit::Millis => match field {
            // Not below the critical Pods' 10 s share it holds.
            Field::ShutdownGracePeriod => ("\"30s\"", "30s"),
            _ => ("\"2s\"", "2s"),
        },
        Unit::Dist => ("\"2s\"", "2s"),
        Unit::DistList => ("[\"30s\"]", "30s"),
        Unit::Probability => ("0.5", "0.5"),
        Unit::Count => match field {
            // Non-zero needs `run`, which the manifest's app lacks.
            Field::ExitCode => ("0", "0"),
            // The one node of the sample Service.
            Field::NodeShutdown | Field::ScaleDownNode => ("0", "0"),
            _ => ("1", "1"),
        },
        Unit::Flag => ("true", "true"),
        Unit::Word { .. } => match field {
            Field::RestartPolicy | Field::ContainerRestartPolicy => ("\"Never\"", "Never"),
            Field::Mode => ("\"job\"", "job"),
            Field::Arrival => ("\"constant\"", "constant"),
            Field::Connections => ("\"keep-alive\"", "keep-alive"),
            Field::Retry => ("\"once\"", "once"),
            Field::Client => ("\"go-net-http\"", "go-net-http"),
            Field::OnClosed => ("\"fails-next\"", "fails-next"),
            Field::HopKind => ("\"envoy\"", "envoy"),
            Field::HopBalance => ("\"least-request\"", "least-request"),
            Field::TrafficModel => ("\"counting\"", "counting"),
            Field::OnSigterm => ("\"ignore\"", "ignore"),
            Field::Rollout => ("\"Recreate\"", "Recreate"),
            Field::UnhealthyPodEvictionPolicy => ("\"AlwaysAllow\"", "AlwaysAllow"),
            Field::Probe(_, key::ProbeField::Outcome) => ("\"hangs\"", "hangs"),
            Field::StopSignal | Field::DrainsOn => ("\"SIGQUIT\"", "SIGQUIT"),
            Field::Provider => ("\"gcp\"", "gcp"),
            Field::ProxyMode => ("\"nftables\"", "nftables"),
            _ => ("\"app\"", "app"),
        },
        Unit::Version => ("\"1.33\"", "1.33"),
        Unit::Rate => ("8.3", "8.3"),
        Unit::Propagation => ("\"medium\"", "medium"),
        Unit::Scaled => ("\"50%\"", "50%"),
        Unit::DistOrWord { .. } => match field {
            Field::PostStart => ("\"until-booted\"", "until-booted"),
            _ => ("\"never\"", "never"),
        },
        Unit::Pulls => ("2", "2"),
        Unit::PriorityGroups => ("\"0:20s, 2000000000:10s\"", "0:20s, 2000000000:10s"),
    }
}

/// A Pod every key fits: a Job-ready policy, an app that runs and
/// exits, with a postStart hook to fail; readiness-probe grace alone
/// breaks a rule wherever it is set.
const BASE: &str = "[pod]\nrestart_policy = \"Never\"\n[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\nrun = \"10s\"\npost_start = \"1s\"\n";

/// The action a key of `[[actions]]` belongs to, as its line.
fn action_kind(field: Field) -> &'static str {
    match field {
        Field::ActionDown => "node_reboot = true\n",
        _ => "delete = true\n",
    }
}

fn breaks_a_rule_by_design(field: Field) -> bool {
    matches!(
        field,
        Field::Probe(
            crate::model::ProbeKind::Readiness,
            key::ProbeField::TerminationGracePeriod
        )
    )
}

fn accepted(field: Field, result: Result<(), String>) {
    match result {
        Ok(()) => assert!(!breaks_a_rule_by_design(field), "{field:?}"),
        Err(e) if breaks_a_rule_by_design(field) => assert!(e.contains("readiness probe"), "{e}"),
        Err(e) => panic!("{field:?} refused: {e}"),
    }
}

#[test]
fn every_key_is_read_by_toml_and_swept_as_an_axis() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    for field in Field::ALL {
        let (toml_value, _) = sample(field);
        // The key itself comes out of the base, to be written once.
        let base: String = BASE
            .lines()
            .filter(|l| field == Field::Kind || !l.starts_with(&format!("{} = ", field.name())))
            .map(|l| format!("{l}\n"))
            .collect();
        let text = match (field.scope(), field.group()) {
            (Scope::Run, _) => format!("{} = {toml_value}\n{base}", field.name()),
            (Scope::Pod, None) => {
                base.replace("[pod]\n", &format!("[pod]\n{} = {toml_value}\n", field.name()))
            }
            (Scope::Pod, Some(g)) => base.replace(
                "[pod]\n",
                &format!("[pod]\n{} = {{ {} = {toml_value} }}\n", g.name(), field.leaf()),
            ),
            (Scope::Container, None) if field == Field::Kind => base.clone(),
            (Scope::Container, None) => format!("{base}{} = {toml_value}\n", field.name()),
            (Scope::Container, Some(g)) => {
                format!("{base}{} = {{ {} = {toml_value} }}\n", g.name(), field.leaf())
            }
            (Scope::Job, _) => format!("{base}[job]\n{} = {toml_value}\n", field.name()),
            // A delete action (a reboot for its down time), said when
            // unless the key says it.
            (Scope::Action, _) => {
                let when = match field {
                    Field::ActionAt | Field::ActionAfterReady => "",
                    _ => "at = \"1s\"\n",
                };
                let kind = action_kind(field);
                format!("{base}[[actions]]\n{kind}{when}{} = {toml_value}\n", field.name())
            }
            // A Service around the Pod, with the key in its own table.
            (scope, _) => {
                let line = format!("{} = {toml_value}\n", field.name());
                let table = |s: Scope, rest: &str| {
                    if s == scope {
                        format!("{rest}{line}")
                    } else {
                        rest.to_string()
                    }
                };
                let when = match field {
                    Field::At | Field::AfterReady => String::new(),
                    _ => {
                        let named = naming_key(field).map(|k| format!("{k} = 0\n"));
                        format!("after_ready = \"1s\"\n{}", named.unwrap_or_default())
                    }
                };
                let rate = if field == Field::Rate { "" } else { "rate = 1\n" };
                format!(
                    "[service]\n{}[traffic]\n{}[app]\n{}[pdb]\n{}{}[cluster]\n{}[[disruptions]]\n{}{}",
                    table(Scope::Service, ""),
                    table(Scope::Traffic, rate),
                    table(Scope::App, ""),
                    table(Scope::Pdb, ""),
                    // A hop only where its key is: any `[hop]` makes one.
                    match scope {
                        Scope::Hop => format!("[hop]\n{line}"),
                        _ => String::new(),
                    },
                    table(Scope::Cluster, ""),
                    table(Scope::Disruption, &when),
                    base.replace("restart_policy = \"Never\"\n", "")
                )
            }
        };
        accepted(
            field,
            Scenario::parse(&text, "k.toml")
                .map(|_| ())
                .map_err(|e| e.to_string()),
        );
        let path = match field.scope() {
            Scope::Run => field.name(),
            Scope::Pod => format!("pod.{}", field.name()),
            Scope::Container => format!("containers.web.{}", field.name()),
            Scope::Disruption => format!("disruptions.0.{}", field.name()),
            Scope::Action => format!("actions.0.{}", field.name()),
            scope => format!("{}.{}", scope.table(), field.name()),
        };
        let axis_value = match toml_value {
            "[\"30s\"]" => "\"30s\"",
            v => v,
        };
        let grid = format!("base = \"x.toml\"\n[axes]\n\"{path}\" = [{axis_value}]\n");
        // A disruption's axis sweeps a disruption of its own kind.
        // (A disruption that names none of these is a delete.)
        let kind = match field.disruption_kind() {
            Some(DisruptionKind::Rollout) => "rollout = \"RollingUpdate\"\n",
            Some(DisruptionKind::Drain) => "drain = 0\n",
            // A spot reclaim's own keys would make a node failure one.
            Some(DisruptionKind::Node)
                if matches!(field, Field::SpotReclaim | Field::Provider | Field::Notice) =>
            {
                "spot_reclaim = 0\n"
            }
            Some(DisruptionKind::Node) => "node_failure = 0\n",
            Some(DisruptionKind::Crash) => "crash = 0\n",
            Some(DisruptionKind::ScaleDown) => "scale_down_node = 0\n",
            Some(DisruptionKind::Delete) | None if named_by_shutdown(field) => "node_shutdown = 0\n",
            Some(DisruptionKind::Delete) | None => "",
        };
        let service_base = format!(
            "[service]\n[traffic]\nrate = 1\n[[disruptions]]\nafter_ready = \"1s\"\n{kind}{}",
            BASE.replace("restart_policy = \"Never\"\n", "")
        );
        let job_base = BASE.replace("[pod]\n", "[pod]\nmode = \"job\"\n");
        let action_base = format!("{BASE}[[actions]]\nat = \"1s\"\n{}", action_kind(field));
        let base_text = match field.scope() {
            scope if Scope::SERVICE.contains(&scope) => service_base.as_str(),
            Scope::Job => job_base.as_str(),
            Scope::Action => action_base.as_str(),
            _ => BASE,
        };
        let base = Scenario::parse(base_text, "base.toml").unwrap();
        let result = Grid::parse(&grid, "g.toml", base, &folder)
            .map(|_| ())
            .map_err(|e| e.to_string());
        accepted(field, result);
    }
}

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: k\n  annotations:\n    KEY: \"VALUE\"\nspec:\n  restartPolicy: Never\n  containers:\n  - name: web\n    image: nginx\n    lifecycle:\n      postStart:\n        httpGet:\n          port: 80\n      preStop:\n        httpGet:\n          port: 80\n";

#[test]
fn every_key_is_read_by_annotations_and_the_overlay_or_sent_to_the_manifest() {
    for field in Field::ALL {
        // Actions have no manifest field and no annotation: TOML only.
        if field.scope() == Scope::Action {
            continue;
        }
        let (toml_value, text) = sample(field);
        let name = field.name();
        // A Service key's annotation path is its grid axis's path; a
        // traffic key needs a rate with it, a disruption's a when.
        let (annotation, table, with) = match field.scope() {
            Scope::Container => (format!("podsim.dev/web.{name}"), "[containers.web]".into(), None),
            Scope::Traffic if field != Field::Rate => (
                format!("podsim.dev/traffic.{name}"),
                "[traffic]".into(),
                Some(("traffic.rate", "rate", "1")),
            ),
            Scope::Disruption if !matches!(field, Field::At | Field::AfterReady) => (
                format!("podsim.dev/disruptions.0.{name}"),
                "[disruptions.0]".into(),
                Some(("disruptions.0.after_ready", "after_ready", "\"1s\"")),
            ),
            Scope::Disruption => (
                format!("podsim.dev/disruptions.0.{name}"),
                "[disruptions.0]".into(),
                None,
            ),
            scope @ (Scope::Service
            | Scope::Traffic
            | Scope::App
            | Scope::Pdb
            | Scope::Hop
            | Scope::Cluster) => (
                format!("podsim.dev/{}.{name}", scope.table()),
                format!("[{}]", scope.table()),
                None,
            ),
            Scope::Run | Scope::Pod => (format!("podsim.dev/{name}"), "[pod]".into(), None),
            Scope::Job => (format!("podsim.dev/job.{name}"), "[job]".into(), None),
            Scope::Action => unreachable!("skipped above"),
        };
        let mut yaml = POD.replace("KEY", &annotation).replace("VALUE", text);
        let mut overlay = format!("{table}\n{name} = {toml_value}\n");
        if let Some((path, key, value)) = with {
            let line = format!("    podsim.dev/{path}: '{}'\n", value.trim_matches('"'));
            yaml = yaml.replace("spec:\n", &format!("{line}spec:\n"));
            overlay.push_str(&format!("{key} = {value}\n"));
        }
        if let (Scope::Disruption, Some(named)) = (field.scope(), naming_key(field)) {
            let line = format!("    podsim.dev/disruptions.0.{named}: '0'\n");
            yaml = yaml.replace("spec:\n", &format!("{line}spec:\n"));
            overlay.push_str(&format!("{named} = 0\n"));
        }
        let by_annotation = manifest::parse(&yaml, "k.yaml", None)
            .map(|_| ())
            .map_err(|e| e.to_string());
        let by_overlay = Timings::parse(&overlay, "t.toml")
            .and_then(|t| manifest::parse(&POD.replace("    KEY: \"VALUE\"\n", ""), "k.yaml", Some(&t)))
            .map(|_| ())
            .map_err(|e| e.to_string());
        for result in [by_annotation, by_overlay] {
            match field.manifest_field() {
                None => accepted(field, result),
                Some(k8s) => {
                    let e = result.expect_err(&format!("{field:?} is the manifest's"));
                    assert!(e.contains("comes from the manifest") && e.contains(&k8s), "{e}");
                }
            }
        }
    }
}

/// `docs/keys.md` is the registry's reference, byte for byte; every key
/// is in it with its axis path and its meaning.
#[test]
fn the_key_reference_is_generated_from_the_registry() {
    let generated = key::reference::markdown();
    for field in Field::ALL {
        let row = format!("| `{}` | ", field.name());
        let axis = format!(
            "`{}`",
            key::path::print(field, key::Place::Table, key::Spelling::Axis)
        );
        assert!(
            generated
                .lines()
                .any(|l| l.starts_with(&row) && l.contains(field.doc()) && l.contains(&axis)),
            "the reference lacks `{}` with its meaning and {axis}",
            field.name()
        );
    }
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/keys.md");
    if std::env::var_os("PODSIM_BLESS").is_some() {
        std::fs::write(&page, &generated).expect("docs/keys.md written");
    }
    let committed = std::fs::read_to_string(&page).unwrap_or_default();
    if committed != generated {
        let line = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or(committed.lines().count().min(generated.lines().count()), |i| i)
            + 1;
        panic!(
            "docs/keys.md differs from the key registry from line {line} on; regenerate it with {}",
            key::reference::REGENERATE
        );
    }
}

/// A key Kubernetes bounds is refused one past its bound, and taken at
/// it, by every reader: TOML, a grid axis (a list or a range), an
/// annotation and a timings file, each pointing at the value with the
/// limit and its source.
#[test]
fn every_bounded_key_is_refused_past_its_limit_by_every_reader() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let pod = BASE.replace("restart_policy = \"Never\"\n", "");
    let base = Scenario::parse(&format!("[service]\n[traffic]\nrate = 1\n{pod}"), "b.toml").unwrap();
    let bounded: Vec<Field> = Field::ALL.into_iter().filter(|f| f.limit().is_some()).collect();
    assert_eq!(
        bounded,
        [
            Field::Replicas,
            Field::Nodes,
            Field::Clients,
            Field::ClusterServices,
            Field::ClusterEndpoints,
            Field::Rolling
        ]
    );
    for field in bounded {
        let max = field.limit().unwrap().max;
        let (table, name) = (field.scope().table(), field.name());
        let toml = |n: u64| match field.scope() {
            Scope::Traffic => format!("[service]\n[traffic]\n{name} = {n}\nrate = 1\n{pod}"),
            Scope::Cluster => format!("[service]\n[cluster]\n{name} = {n}\n{pod}"),
            _ => format!("[{table}]\n{name} = {n}\n{pod}"),
        };
        let axis = |values: String| format!("base = \"b.toml\"\n[axes]\n\"{table}.{name}\" = {values}\n");
        let annotation = |n: u64| {
            let rate = match field.scope() {
                Scope::Traffic => "    podsim.dev/traffic.rate: \"1\"\n",
                _ => "",
            };
            POD.replace("KEY", &format!("podsim.dev/{table}.{name}"))
                .replace("VALUE", &n.to_string())
                .replace("spec:\n", &format!("{rate}spec:\n"))
        };
        let overlay = |n: u64| {
            let rate = if field.scope() == Scope::Traffic {
                "rate = 1\n"
            } else {
                ""
            };
            let plain = POD.replace("    KEY: \"VALUE\"\n", "");
            Timings::parse(&format!("[{table}]\n{name} = {n}\n{rate}"), "t.toml")
                .and_then(|t| manifest::parse(&plain, "k.yaml", Some(&t)))
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        let grid = |values: String| {
            Grid::parse(&axis(values), "g.toml", base.clone(), &folder)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        let results = |n: u64| {
            [
                Scenario::parse(&toml(n), "k.toml")
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                grid(format!("[1, {n}]")),
                grid(format!("{{ from = 1, to = {n}, step = 1 }}")),
                manifest::parse(&annotation(n), "k.yaml", None)
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                overlay(n),
            ]
        };
        for result in results(max) {
            accepted(field, result);
        }
        for result in results(max + 1) {
            let e = result.expect_err(&format!("{field:?} = {} taken", max + 1));
            let limit = format!(
                "{} is over Kubernetes' limit of {} ",
                max + 1,
                numbers::grouped(max)
            );
            assert!(e.contains(&limit) && e.contains("cluster-large"), "{e}");
            assert!(e.contains(&name), "the key is named: {e}");
        }
    }
}
