//! Published manifests of the tools around Pods: Istio's injector's output
//! with and without native sidecars and with holdApplicationUntilProxyStarts,
//! Linkerd's with native sidecars, the Cloud SQL Auth Proxy's Job, the GCS
//! FUSE CSI driver's batch Job, and a `kubectl get -o json` List.

use podsim::engine::SimDuration;
use podsim::model::{ContainerKind, PodPhase, simulate_pod};
use podsim::scenario::manifest::{Timings, WorkloadKind};
use podsim::scenario::{Problem, Scenario};

use super::{first, kinds, load, one, path, problems};
use crate::picks::*;

#[test]
fn istio_injected_native_sidecars_start_before_the_app_and_never_expose_it() {
    let (s, r) = one("istio-native-sidecar.yaml", None);
    assert_eq!(
        kinds(&s),
        [
            ("istio-init", ContainerKind::Init),
            ("istio-proxy", ContainerKind::Sidecar),
            ("other-sidecar", ContainerKind::Sidecar),
            ("hello", ContainerKind::App),
        ]
    );
    let proxy = &s.run.pod.containers[1];
    assert!(proxy.proxy, "the injector's sidecar.istio.io/status marks it");
    let startup = proxy.probes[0].expect("istio-proxy's startupProbe");
    assert_eq!(
        (startup.period, startup.failure_threshold),
        (SimDuration::from_secs(1), 600)
    );
    let readiness = proxy.probes[1].expect("istio-proxy's readinessProbe");
    assert_eq!(
        (readiness.period, readiness.timeout, readiness.failure_threshold),
        (SimDuration::from_secs(15), SimDuration::from_secs(3), 4)
    );
    // istio-init 0→1 s (default boot); istio-proxy starts at 1 s, answers at
    // 2 s, and its startup probe (a tick every second, R28) sees it then:
    // Started at 2 s (R31), and only then do the next sidecar and the app
    // start (R5).
    assert_eq!(
        first(&s, &r, "istio-init", exit(ExitReason::Completed)),
        Some(1000)
    );
    assert_eq!(first(&s, &r, "istio-proxy", is(Change::Started)), Some(2000));
    assert_eq!(first(&s, &r, "hello", first_start), Some(2000));
    // With the proxy marked and the Pod deleted: the app never runs without
    // it (R36: sidecars stop after the apps), and the pilot-agent drain
    // preStop, an exec that is not `sleep N`, is assumed with a notice.
    let dir = std::env::temp_dir().join(format!("podsim-istio-{}.toml", std::process::id()));
    std::fs::write(
        &dir,
        "[pod]\nstop_after_ready = \"5s\"\n[containers.istio-proxy]\nproxy = true\ndrain = \"2s\"\n",
    )
    .unwrap();
    let timings = Timings::load(&dir).unwrap();
    std::fs::remove_file(&dir).unwrap();
    let path = path("istio-native-sidecar.yaml");
    let deleted = Scenario::load_with(&path, Some(&timings)).unwrap();
    let report = simulate_pod(&deleted.run);
    assert_eq!(report.metrics.exposed_total_ms, 0);
    assert!(report.metrics.termination_ms.is_some());
    let notices: Vec<String> = deleted.notices.iter().map(|n| n.message()).collect();
    assert!(
        notices
            .iter()
            .any(|n| n.contains("how long its exec preStop hook takes")),
        "{notices:?}"
    );
}

#[test]
fn linkerd_injected_native_sidecar_maps_its_three_probes() {
    let (s, r) = one("linkerd-native-sidecar.yaml", None);
    assert_eq!(s.workload, Some(WorkloadKind::Deployment));
    assert_eq!(
        kinds(&s),
        [
            ("linkerd-init", ContainerKind::Init),
            ("linkerd-proxy", ContainerKind::Sidecar),
            ("web-svc", ContainerKind::App),
        ]
    );
    let [startup, readiness, liveness] = s.run.pod.containers[1].probes;
    let (startup, readiness, liveness) = (startup.unwrap(), readiness.unwrap(), liveness.unwrap());
    assert_eq!(
        (startup.period, startup.failure_threshold),
        (SimDuration::from_secs(1), 120)
    );
    assert_eq!(readiness.initial_delay, SimDuration::from_secs(2));
    assert_eq!(liveness.initial_delay, SimDuration::from_secs(10));
    // R27's defaults where the injector leaves them out.
    assert_eq!(
        (liveness.period, liveness.failure_threshold),
        (SimDuration::from_secs(10), 3)
    );
    // replicas: 1 is no notice; the app starts once the proxy is Started.
    assert!(s.notices.iter().all(|n| !n.message().starts_with("replicas")));
    assert_eq!(first(&s, &r, "linkerd-proxy", is(Change::Started)), Some(2000));
    assert_eq!(first(&s, &r, "web-svc", first_start), Some(2000));
    // Linkerd's injector stamped linkerd.io/proxy-version: its proxy is the Pod's.
    assert!(s.run.pod.containers[1].proxy);
    assert!(problems(&s).contains(&&Problem::InjectedProxy {
        container: "linkerd-proxy".into(),
        mesh: "Linkerd",
        annotation: "linkerd.io/proxy-version",
    }));
}

/// R52 on the linkerd-injected Pod, every container booting the assumed
/// 1 s. By hand: linkerd-init runs 0→1 s. linkerd-proxy starts at 1 s (its
/// probes' tickers run from the Pod's creation, 0 s) and answers from 2 s;
/// its startup probe (period 1 s) passes at the 2 s tick: started at 2 s.
/// That result is a sync: the readiness probe is triggered, but
/// `initialDelaySeconds: 2` counts from the start at 1 s, so no run, and
/// its ticker restarts from 2 s (next tick 12 s). web-svc starts in that
/// sync and shows Running at 3 s (no probes: boot is pull, create and
/// postStart, R7): a sync 2 s after the proxy's start, the delay is over,
/// the manual run passes: the proxy is Ready at 3 s, and so is the Pod
/// (web-svc, without a readiness probe, is Ready once started, at 3 s).
/// Before R52 podsim waited for the 12 s tick.
#[test]
fn r52_the_linkerd_proxy_is_ready_at_the_sync_of_the_apps_start() {
    let (s, r) = one("linkerd-native-sidecar.yaml", None);
    assert_eq!(first(&s, &r, "web-svc", is(Change::Started)), Some(3000));
    assert_eq!(
        first(&s, &r, "linkerd-proxy", is(Change::Ready { probed: true })),
        Some(3000)
    );
    assert_eq!(r.metrics.ready_ms, Some(3000));
}

/// Istio's injector without native sidecars: istio-proxy beside hello, so
/// the two start together (R6) and the app can run before its proxy, the
/// seed chapter's hole in a published manifest. The injector's annotation
/// makes istio-proxy the Pod's proxy, with a notice. By hand, with the
/// timings file: istio-init 0→1 s; hello and istio-proxy start at 1 s;
/// hello (no probes) is alive at 2 s; istio-proxy, probed, counts as
/// started at once (R21) and answers from 3.5 s: exposed 2→3.5 s. Its
/// readiness probe (initialDelaySeconds 1, periodSeconds 2, from its start)
/// runs at 2 s, before the answer, and at 4 s: Ready at 4 s, and the Pod
/// with it. Deleted 5 s later, at 9 s: both get SIGTERM at once (R36 orders
/// only sidecars), Envoy exits, hello drains 2 s: exposed again 9→11 s.
#[test]
fn istio_injected_beside_the_app_exposes_it_at_startup_and_shutdown() {
    let (s, r) = one(
        "istio-classic-sidecar.yaml",
        Some("istio-classic-sidecar.timings.toml"),
    );
    assert_eq!(
        kinds(&s),
        [
            ("istio-init", ContainerKind::Init),
            ("hello", ContainerKind::App),
            ("istio-proxy", ContainerKind::App),
        ]
    );
    let proxies: Vec<bool> = s.run.pod.containers.iter().map(|c| c.proxy).collect();
    assert_eq!(proxies, [false, false, true]);
    assert!(
        problems(&s).contains(&&Problem::InjectedProxy {
            container: "istio-proxy".into(),
            mesh: "Istio",
            annotation: "sidecar.istio.io/status",
        }),
        "{:?}",
        s.notices
    );
    assert_eq!(first(&s, &r, "hello", first_start), Some(1000));
    assert_eq!(first(&s, &r, "istio-proxy", first_start), Some(1000));
    assert_eq!(r.metrics.ready_ms, Some(4000));
    assert_eq!(r.metrics.exposed_startup_ms, 1500);
    assert_eq!(r.metrics.exposed_shutdown_ms, 2000);
    assert_eq!(r.metrics.termination_ms, Some(2000));
}

/// The same Deployment as Istio's injector writes it with
/// holdApplicationUntilProxyStarts: istio-proxy first, its postStart hook
/// `pilot-agent wait` returning once the proxy is ready (R65: the sync that
/// starts the apps is held until then). By hand, with the same timings:
/// istio-init 0→1 s; istio-proxy starts at 1 s and is up at 3.5 s, and so
/// its hook returns; hello starts then, up at 4.5 s: never exposed at
/// startup, Ready at 4.5 s (the proxy's readiness runs at the sync of its
/// start, 3.5 s, R52), 0.5 s later than with the proxy beside it. Deleted
/// at 9.5 s: side by side still, both get SIGTERM and hello drains past the
/// proxy: exposed 2 s at shutdown, as before.
#[test]
fn istio_holding_the_application_never_exposes_it_at_startup() {
    let (s, r) = one(
        "istio-hold-application.yaml",
        Some("istio-hold-application.timings.toml"),
    );
    let proxy = &s.run.pod.containers[1];
    assert_eq!(proxy.name, "istio-proxy");
    assert_eq!(proxy.post_start, Some(podsim::model::PostStart::UntilBooted));
    assert_eq!(
        first(
            &s,
            &r,
            "istio-proxy",
            is(Change::PostStartFinished { failed: false })
        ),
        Some(3500)
    );
    assert_eq!(first(&s, &r, "hello", first_start), Some(3500));
    assert_eq!(r.metrics.ready_ms, Some(4500));
    assert_eq!(r.metrics.exposed_startup_ms, 0);
    assert_eq!(r.metrics.exposed_shutdown_ms, 2000);
}

/// What the injector put there the user may still unmark, by annotation or
/// timings file: then nothing is exposed, and no notice says otherwise.
#[test]
fn an_injected_proxy_is_unmarked_by_proxy_false() {
    let text = std::fs::read_to_string(path("istio-classic-sidecar.yaml")).unwrap();
    let unmarked = text.replacen(
        "        sidecar.istio.io/interceptionMode: REDIRECT\n",
        "        sidecar.istio.io/interceptionMode: REDIRECT\n        podsim.dev/istio-proxy.proxy: \"false\"\n        podsim.dev/istio-proxy.boot: 3s\n",
        1,
    );
    assert_ne!(unmarked, text);
    let s = podsim::scenario::manifest::parse(&unmarked, "hello.yaml", None).unwrap();
    assert!(s.run.pod.containers.iter().all(|c| !c.proxy));
    assert!(
        !problems(&s)
            .iter()
            .any(|p| matches!(p, Problem::InjectedProxy { .. })),
        "{:?}",
        s.notices
    );
    // hello is alive from 2 s, istio-proxy only from 4 s: unmarked, no exposure.
    assert_eq!(simulate_pod(&s.run).metrics.exposed_startup_ms, 0);
}

#[test]
fn the_cloud_sql_proxy_job_completes_and_stops_its_sidecar_r44() {
    let (s, r) = one(
        "cloud-sql-proxy-job.yaml",
        Some("cloud-sql-proxy-job.timings.toml"),
    );
    assert_eq!(s.workload, Some(WorkloadKind::Job));
    // The guide's blanks are all in command lines podsim does not read, so
    // they are one notice, at the first (`            - --port=`: column 22).
    let notices: Vec<(Option<(usize, usize)>, String)> =
        s.notices.iter().map(|n| (n.position, n.message())).collect();
    assert_eq!(
        notices,
        [(
            Some((37, 22)),
            "5 placeholders to fill in: line 37 `<DB_PORT>`, line 38 `<DB_USER>`, line 39 `<DB_NAME>`, line 61 \
             `<DB_PORT>`, line 62 `<INSTANCE_CONNECTION_NAME>`; podsim does not read these fields, so the run is \
             the same, but write the real values before kubectl apply"
                .to_string()
        )]
    );
    // proxy 0→2 s; my-application starts at 2 s, started at 3 s (Ready),
    // works 10 s and exits 0 at 13 s; the sidecar then gets SIGTERM (R44)
    // and drains 1 s: the Pod Succeeds at 14 s, never exposed.
    assert_eq!(r.metrics.ready_ms, Some(3000));
    assert_eq!(
        first(&s, &r, "my-application", exit(ExitReason::Completed)),
        Some(13_000)
    );
    assert_eq!(r.metrics.completed_ms, Some(14_000));
    assert_eq!(r.metrics.phase, PodPhase::Succeeded);
    assert_eq!(r.metrics.exposed_total_ms, 0);
}

/// The GCS FUSE CSI driver's batch Job as published: two busybox scripts
/// whose arguments hold a variable and a `$(date)`, neither of which makes
/// `touch`, `echo` or `cat` wait (R81). By hand: writer and reader start
/// together at 0 s (R6), booting the assumed 1 s; each then sleeps 10 s
/// and exits 0 at 11 s (R81: the script's run counts from its boot). With
/// every app done under `restartPolicy: Never` the Pod Succeeds at 11 s
/// (R43), and the Job is Complete with its first Pod. Before, `$` left
/// both runs unknown and the Job ran for ever.
#[test]
fn the_gcs_fuse_job_completes_when_its_scripts_sleeps_are_over_r81() {
    let (s, r) = one("gcs-fuse-csi-job.yaml", None);
    assert_eq!(s.workload, Some(WorkloadKind::Job));
    let scripted: Vec<(&str, u64, i32)> = problems(&s)
        .into_iter()
        .filter_map(|p| match p {
            Problem::ScriptedExit(e) => Some((e.container.as_str(), e.run.as_millis(), e.code)),
            _ => None,
        })
        .collect();
    assert_eq!(scripted, [("writer", 10_000, 0), ("reader", 10_000, 0)]);
    assert_eq!(first(&s, &r, "writer", exit(ExitReason::Completed)), Some(11_000));
    assert_eq!(first(&s, &r, "reader", exit(ExitReason::Completed)), Some(11_000));
    assert_eq!(r.metrics.phase, PodPhase::Succeeded);
    assert_eq!(r.metrics.completed_ms, Some(11_000));
    let figures = r.job.as_ref().unwrap().figures;
    assert_eq!((figures.outcome.name(), figures.pods), ("Complete", 1));
    assert_eq!(figures.outcome.at().map(|t| t.as_millis()), Some(11_000));
}

/// A manifest that asks a webhook for containers it does not have yet is
/// run as written, and told: the GCS FUSE Job's `gke-gcsfuse/volumes`
/// (GKE adds `gke-gcsfuse-sidecar`), and the Vault tutorial's orgchart
/// Deployment (HashiCorp's "Injecting secrets into Kubernetes pods via
/// Vault Agent containers", `deployment-orgchart.yaml` with its patch),
/// whose Pod the cluster shows as `0/2 Init:0/1`: vault-agent-init, then
/// vault-agent beside orgchart. Injected Pods (Istio's, Linkerd's) are not.
#[test]
fn an_injection_asked_for_but_not_yet_done_is_told_at_its_annotation() {
    let (s, _) = one("gcs-fuse-csi-job.yaml", None);
    let notice = s
        .notices
        .iter()
        .find(|n| matches!(n.problem, Problem::NotInjected(_)))
        .expect("the gke-gcsfuse/volumes notice");
    assert_eq!(notice.position, Some((17, 9)));
    assert_eq!(
        notice.message(),
        "annotation gke-gcsfuse/volumes: \"true\" asks GKE's Cloud Storage FUSE CSI driver's webhook to add \
         \"gke-gcsfuse-sidecar\" to the Pod as it is created, and this manifest has none: podsim runs the Pod \
         as written, without it; to simulate what the kubelet runs, give podsim the Pod as created (`kubectl \
         get pod NAME -o yaml`)"
    );
    let orgchart = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orgchart\n  labels:\n    app: \
                    orgchart\nspec:\n  selector:\n    matchLabels:\n      app: orgchart\n  replicas: 1\n  \
                    template:\n    metadata:\n      annotations:\n        vault.hashicorp.com/agent-inject: \
                    'true'\n        vault.hashicorp.com/role: 'internal-app'\n        \
                    vault.hashicorp.com/agent-inject-secret-database-config.txt: \
                    'internal/data/database/config'\n      labels:\n        app: orgchart\n    spec:\n      \
                    serviceAccountName: internal-app\n      containers:\n      - name: orgchart\n        image: \
                    jweissig/app:0.0.1\n";
    let s = podsim::scenario::manifest::parse(orgchart, "orgchart.yaml", None).unwrap();
    let messages: Vec<String> = s.notices.iter().map(|n| n.to_string()).collect();
    assert!(
        messages.contains(
            &"orgchart.yaml:15:9: annotation vault.hashicorp.com/agent-inject: \"true\" asks Vault's webhook to \
              add \"vault-agent-init\" and \"vault-agent\" to the Pod as it is created, and this manifest has \
              none: podsim runs the Pod as written, without them; to simulate what the kubelet runs, give \
              podsim the Pod as created (`kubectl get pod NAME -o yaml`)"
                .to_string()
        ),
        "{messages:?}"
    );
    for injected in ["istio-native-sidecar.yaml", "linkerd-native-sidecar.yaml"] {
        let (s, _) = one(injected, None);
        assert!(
            !problems(&s).iter().any(|p| matches!(p, Problem::NotInjected(_))),
            "{injected}"
        );
    }
}

#[test]
fn a_kubectl_json_list_runs_each_item_at_its_own_lines() {
    let all = load("kubectl-get-list.json", None);
    let names: Vec<_> = all.iter().map(|s| (s.name.as_str(), s.workload)).collect();
    assert_eq!(
        names,
        [
            ("web", Some(WorkloadKind::StatefulSet)),
            ("fluentd-elasticsearch", Some(WorkloadKind::DaemonSet)),
        ]
    );
    // The replicas notice points into the JSON: `"replicas": 2` is line 11.
    let replicas = &all[0].notices[0];
    assert_eq!(replicas.position.map(|p| p.0), Some(11));
}

#[test]
fn where_one_workload_is_needed_a_list_of_two_is_refused_naming_them() {
    let e = Scenario::load(&path("kubectl-get-list.json")).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: 2 workloads in one file (StatefulSet \"web\", DaemonSet \"fluentd-elasticsearch\"); one is \
             needed here: put it in a file of its own",
            path("kubectl-get-list.json").display()
        )
    );
    // One workload in JSON is a scenario like its YAML.
    let dir = std::env::temp_dir().join(format!("podsim-one-{}.json", std::process::id()));
    std::fs::write(&dir, "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p\"}, \"spec\": {\"containers\": [{\"name\": \"web\", \"image\": \"nginx\"}]}}").unwrap();
    let one = Scenario::load(&dir);
    std::fs::remove_file(&dir).unwrap();
    assert_eq!(one.unwrap().name, "p");
}
