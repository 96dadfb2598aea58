//! The manifest reader on inline YAML: kinds, mapping, refusals and notices,
//! each message checked word for word where its wording is the point.

use super::*;
use crate::engine::SimDuration;
use crate::model::{ContainerKind, Deletion, Drain, PodMode, RestartPolicy};

mod documents;
mod kinds;

/// A Pod with every kind of container; lines are numbered for the
/// positions the tests expect.
const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: demo
  annotations:
    podsim.dev/migrate.boot: \"2s\"
    podsim.dev/proxy.boot: \"3s\"
    podsim.dev/proxy.drain: \"1s\"
    podsim.dev/proxy.proxy: \"true\"
    podsim.dev/web.boot: \"1s\"
    podsim.dev/web.drain: \"3s\"
    podsim.dev/stop_at: \"10s\"
spec:
  terminationGracePeriodSeconds: 20
  initContainers:
  - name: migrate
    image: busybox
  - name: proxy
    image: envoy
    restartPolicy: Always
  containers:
  - name: web
    image: nginx
    lifecycle:
      preStop:
        exec:
          command: [\"/bin/sh\", \"-c\", \"sleep 5\"]
";

fn scenario(text: &str) -> Scenario {
    parse(text, "pod.yaml", None).unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> String {
    parse(text, "pod.yaml", None).unwrap_err().to_string()
}

#[test]
fn maps_kinds_hooks_grace_and_annotations() {
    let s = scenario(POD);
    assert_eq!((s.name.as_str(), s.workload), ("demo", Some(WorkloadKind::Pod)));
    assert!(s.notices.is_empty(), "{:?}", s.notices);
    let spec = &s.run.pod;
    assert_eq!(spec.termination_grace_period, SimDuration::from_secs(20));
    assert_eq!(spec.deletion, Deletion::At(SimDuration::from_secs(10)));
    assert_eq!(spec.restart_policy, RestartPolicy::Always);
    let kinds: Vec<_> = spec
        .containers
        .iter()
        .map(|c| (c.name.as_str(), c.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("migrate", ContainerKind::Init),
            ("proxy", ContainerKind::Sidecar),
            ("web", ContainerKind::App)
        ]
    );
    let (proxy, web) = (&spec.containers[1], &spec.containers[2]);
    assert!(proxy.proxy);
    assert_eq!(
        (&proxy.boot, &proxy.drain),
        (
            &SimDuration::from_secs(3).into(),
            &SimDuration::from_secs(1).into()
        )
    );
    assert_eq!(web.pre_stop, Some(SimDuration::from_secs(5).into()));
}

#[test]
fn the_overlay_wins_over_annotations() {
    let overlay = Timings::parse(
        "[pod]\nstop_after_ready = \"1s\"\n[containers.web]\nboot = \"7s\"\n",
        "t.toml",
    )
    .unwrap();
    let s = parse(POD, "pod.yaml", Some(&overlay)).unwrap();
    assert_eq!(s.run.pod.containers[2].boot, SimDuration::from_secs(7));
    assert_eq!(s.run.pod.containers[2].drain, SimDuration::from_secs(3).into());
    assert_eq!(
        s.run.pod.deletion,
        Deletion::AfterReady(SimDuration::from_secs(1))
    );
    let overlay = Timings::parse("[containers.wbe]\nboot = \"7s\"\n", "t.toml").unwrap();
    assert_eq!(
        parse(POD, "pod.yaml", Some(&overlay)).unwrap_err().to_string(),
        "t.toml:1:13: [containers.wbe]: in pod.yaml's Pod \"demo\": unknown container \"wbe\"; did you mean \
         \"web\"? expected one of migrate, proxy, web"
    );
}

#[test]
fn missing_timings_get_defaults_and_a_notice() {
    let text = POD.replace("    podsim.dev/web.boot: \"1s\"\n", "");
    let s = scenario(&text);
    assert_eq!(s.run.pod.containers[2].boot, pod::DEFAULT_BOOT);
    let notices: Vec<String> = s.notices.iter().map(ToString::to_string).collect();
    assert_eq!(
        notices,
        [
            "pod.yaml:21:5: container \"web\": podsim assumes boot 1s (annotate podsim.dev/web.boot or give a timings file)"
        ]
    );
}

#[test]
fn an_http_pre_stop_needs_a_timing_or_gets_the_default_with_a_notice() {
    let text = POD.replace(
        "        exec:\n          command: [\"/bin/sh\", \"-c\", \"sleep 5\"]\n",
        "        httpGet:\n          port: 80\n",
    );
    let s = scenario(&text);
    assert_eq!(s.run.pod.containers[2].pre_stop, Some(pod::DEFAULT_HOOK.into()));
    assert!(
        s.notices[0]
            .to_string()
            .contains("how long its httpGet preStop hook takes"),
        "{:?}",
        s.notices
    );
    let timed = text.replace(
        "podsim.dev/stop_at",
        "podsim.dev/web.pre_stop: \"4s\"\n    podsim.dev/stop_at",
    );
    let s = scenario(&timed);
    assert_eq!(
        s.run.pod.containers[2].pre_stop,
        Some(SimDuration::from_secs(4).into())
    );
    assert!(s.notices.is_empty());
}

#[test]
fn r39_a_pre_stop_sleep_longer_than_the_grace_period_is_refused() {
    let text = POD.replace(
        "        exec:\n          command: [\"/bin/sh\", \"-c\", \"sleep 5\"]\n",
        "        sleep:\n          seconds: 21\n",
    );
    assert_eq!(
        error(&text),
        "pod.yaml:27:20: spec.containers[0].lifecycle.preStop.sleep.seconds: container \"web\": a preStop \
             sleep of 21 s is not allowed with terminationGracePeriodSeconds 20; Kubernetes wants 0 to 20 \
             seconds (R39)"
    );
    // Equal is allowed (the check is `seconds > grace`).
    assert_eq!(
        scenario(&text.replace("21", "20")).run.pod.containers[2].pre_stop,
        Some(SimDuration::from_secs(20).into())
    );
    // R58: zero seconds is a hook that returns at once, not no hook.
    assert_eq!(
        scenario(&text.replace("21", "0")).run.pod.containers[2].pre_stop,
        Some(SimDuration::ZERO.into())
    );
}

#[test]
fn an_init_containers_restart_policy_is_always_on_failure_or_never() {
    let text = POD.replace(
        "    image: busybox\n",
        "    image: busybox\n    restartPolicy: Sometimes\n",
    );
    assert_eq!(
        error(&text),
        "pod.yaml:18:20: spec.initContainers[0].restartPolicy: init container \"migrate\": restartPolicy \
             \"Sometimes\" is not allowed; an init container's restartPolicy is Always (a native sidecar), \
             OnFailure or Never, or left out"
    );
    // R60: OnFailure is the regular init container's own policy.
    let own = POD.replace(
        "    image: busybox\n",
        "    image: busybox\n    restartPolicy: OnFailure\n",
    );
    let scenario = parse(&own, "pod.yaml", None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        scenario.run.pod.containers[0].restart_policy,
        Some(RestartPolicy::OnFailure)
    );
    let text = POD.replace("restartPolicy: Always", "restartPolicy: always");
    assert!(error(&text).contains("did you mean \"Always\"?"));
}

#[test]
fn r8_an_ordinary_init_container_has_no_hooks() {
    let text = POD.replace(
        "    image: busybox\n",
        "    image: busybox\n    lifecycle:\n      preStop:\n        sleep:\n          seconds: 1\n",
    );
    assert_eq!(
        error(&text),
        "pod.yaml:18:5: init container \"migrate\": lifecycle is not allowed on an init container (it runs \
             to completion); add restartPolicy: Always to make it a native sidecar"
    );
}

#[test]
fn r8_proxy_does_not_apply_to_an_ordinary_init_container_but_r57_drain_does() {
    let text = POD.replace(
        "podsim.dev/migrate.boot: \"2s\"",
        "podsim.dev/migrate.proxy: \"true\"",
    );
    // At the annotation that set it: that line is what the user drops.
    assert_eq!(
        error(&text),
        "pod.yaml:6:5: init container \"migrate\": proxy does not apply to an init container (it runs to \
             completion); drop podsim.dev/migrate.proxy (or its entry in the timings file), or add \
             restartPolicy: Always to make it a native sidecar"
    );
    let text = POD.replace("podsim.dev/migrate.boot", "podsim.dev/migrate.drain");
    let s = scenario(&text);
    assert_eq!(s.run.pod.containers[0].drain, SimDuration::from_secs(2).into());
}

#[test]
fn an_app_containers_restart_policy_is_its_own_and_a_typo_is_refused() {
    let text = POD.replace(
        "    image: nginx\n",
        "    image: nginx\n    restartPolicy: Alway\n",
    );
    let e = error(&text);
    assert!(
        e.starts_with("pod.yaml:24:20: spec.containers[0].restartPolicy: container \"web\": restartPolicy"),
        "{e}"
    );
    assert!(e.contains("did you mean \"Always\"?"), "{e}");
    let own = POD.replace(
        "    image: nginx\n",
        "    image: nginx\n    restartPolicy: Never\n",
    );
    let scenario = parse(&own, "pod.yaml", None).unwrap_or_else(|e| panic!("{e}"));
    let web = scenario
        .run
        .pod
        .containers
        .iter()
        .find(|c| c.name == "web")
        .unwrap();
    assert_eq!(web.restart_policy, Some(RestartPolicy::Never));
}

#[test]
fn names_are_unique_across_init_and_app_containers() {
    let text = POD.replace("  - name: migrate", "  - name: web");
    assert_eq!(
        error(&text),
        "pod.yaml:22:5: duplicate container name \"web\"; names must be unique in a Pod"
    );
}

const KINDS: &str =
    "Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob";

#[test]
fn kinds_podsim_cannot_run_are_named() {
    assert_eq!(
        error(&POD.replace("kind: Pod", "kind: Pdo")),
        format!("pod.yaml:2:7: unknown kind \"Pdo\"; did you mean \"Pod\"? expected one of {KINDS}")
    );
    assert!(error(&POD.replace("kind: Pod", "kind: Service")).contains("unknown kind \"Service\""));
}

#[test]
fn custom_resources_are_named_with_their_api_version_and_what_is_read() {
    let knative = "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata:\n  name: hello\nspec:\n  \
                   template:\n    spec:\n      containers:\n      - image: ghcr.io/knative/helloworld-go\n";
    assert_eq!(
        error(knative),
        format!(
            "pod.yaml:2:7: Knative Service (serving.knative.dev/v1) is a custom resource, which podsim does \
             not read; podsim reads {KINDS}: write its Pod template as one of them (a Deployment, say) to \
             simulate it"
        )
    );
    // Argo's hello-world Workflow (argoproj/argo-workflows
    // examples/hello-world.yaml): its step runs to completion, as a Job's
    // Pod does; a Deployment would restart it.
    let workflow = "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata:\n  generateName: hello-world-\n\
                    spec:\n  entrypoint: whalesay\n  templates:\n  - name: whalesay\n    container:\n      \
                    image: docker/whalesay:latest\n      command: [cowsay]\n";
    assert_eq!(
        error(workflow),
        format!(
            "pod.yaml:2:7: Argo Workflow (argoproj.io/v1alpha1) is a custom resource, which podsim does not \
             read; podsim reads {KINDS}: write its Pod template as one of them (a Job: its Pods run to \
             completion) to simulate it"
        )
    );
    // One that holds no containers, beside a workload, is only skipped.
    let monitor = "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: m\n";
    let s = scenario(&format!("{monitor}---\n{POD}"));
    assert_eq!(
        s.notices[0].to_string(),
        "pod.yaml:2:1: skipped ServiceMonitor (monitoring.coreos.com/v1) \"m\": not a workload"
    );
    // One that does is refused, and the workload beside it still runs.
    let all = parse_all(&format!("{POD}---\n{knative}"), "pod.yaml", Syntax::Yaml, None);
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].as_ref().map(|s| s.name.as_str()), Ok("demo"));
    assert!(
        all[1]
            .as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("pod.yaml:30:7: Knative Service")
    );
}

/// R80: a `sleep` as PID 1 ignores SIGTERM: drain "never", with a notice at the
/// container's name, worded in full. Not for an init container (its drain
/// is not the model's concern), not under another stop signal, and not
/// where a drain is set.
#[test]
fn a_pid_1_without_a_sigterm_handler_drains_never_unless_told_otherwise() {
    let sleeping = POD.replace(
        "  - name: web\n    image: nginx\n",
        "  - name: web\n    image: busybox\n    command: [sleep, \"3600\"]\n",
    );
    let s = scenario(&sleeping.replace("    podsim.dev/web.drain: \"3s\"\n", ""));
    let web = &s.run.pod.containers[2];
    assert_eq!(web.drain, Drain::Never);
    assert_eq!(s.notices.len(), 1, "{:?}", s.notices);
    assert_eq!(
        s.notices[0].to_string(),
        "pod.yaml:21:5: container \"web\": its PID 1 (`sleep 3600`) has no SIGTERM handler, and Linux \
         delivers no unhandled signal to a container's PID 1, so podsim keeps it running until SIGKILL at \
         the end of the grace period (drain \"never\"); if its image's entrypoint forwards signals (tini, \
         dumb-init), annotate podsim.dev/web.drain: \"0s\" (or write drain under [containers.web] in a \
         timings file)"
    );
    // The sleep ends too, after an hour: exit 0 (R81). Deleted at 10 s,
    // the Pod never gets there, so that is not told; never deleted, it is.
    assert_eq!(
        (web.run.clone(), web.exit_code),
        (Some(SimDuration::from_secs(3600).into()), 0)
    );
    let kept = sleeping
        .replace("    podsim.dev/web.drain: \"3s\"\n", "")
        .replace("    podsim.dev/stop_at: \"10s\"\n", "");
    let s = scenario(&kept);
    assert_eq!(s.notices.len(), 2, "{:?}", s.notices);
    assert!(matches!(
        s.notices[1].problem,
        crate::scenario::Problem::NeverDeleted { .. }
    ));
    assert_eq!(
        s.notices[0].to_string(),
        "pod.yaml:20:5: container \"web\": its command line (`sleep 3600`) exits 0 after sleeping 1h, so \
         podsim runs it for run = \"1h\" after its boot, with exit_code 0; annotate podsim.dev/web.run (or \
         write run under [containers.web] in a timings file) to change it"
    );
    // A run set for it wins, and silences that notice.
    let timed = kept.replace(
        "  annotations:\n",
        "  annotations:\n    podsim.dev/web.run: \"10s\"\n",
    );
    let s = scenario(&timed);
    assert_eq!(
        s.run.pod.containers[2].run,
        Some(SimDuration::from_secs(10).into())
    );
    assert_eq!(s.notices.len(), 1, "{:?}", s.notices);
    // kubernetes/website's two-container Pod: a script that ends as it
    // starts is gone before any stop, so its missing handler is not told.
    let at_once = kept.replace(
        "command: [sleep, \"3600\"]",
        "command: [sh, -c, \"echo Hi > /pod-data/index.html\"]",
    );
    let s = scenario(&at_once.replace(
        "  annotations:\n",
        "  annotations:\n    podsim.dev/stop_at: \"10s\"\n",
    ));
    assert!(
        matches!(&s.notices[..], [n] if matches!(&n.problem, crate::scenario::Problem::ScriptedExit(x) if x.run == SimDuration::ZERO)),
        "{:?}",
        s.notices
    );
    // (Line 21: the web.drain annotation line is gone.) POD's own
    // annotation sets web's drain: it wins, and nothing is told.
    let s = scenario(&sleeping);
    assert_eq!(s.run.pod.containers[2].drain, SimDuration::from_secs(3).into());
    assert!(s.notices.is_empty(), "{:?}", s.notices);
    // An init container, or another stop signal: left as written.
    let init = POD.replace(
        "    image: busybox\n",
        "    image: busybox\n    command: [sleep, \"5\"]\n",
    );
    assert_eq!(
        scenario(&init).run.pod.containers[0].drain,
        SimDuration::ZERO.into()
    );
    let quit = sleeping.replace(
        "  terminationGracePeriodSeconds: 20\n",
        "  terminationGracePeriodSeconds: 20\n  os:\n    name: linux\n",
    );
    let quit = quit.replace(
        "    command: [sleep, \"3600\"]\n    lifecycle:\n",
        "    command: [sleep, \"3600\"]\n    lifecycle:\n      stopSignal: SIGQUIT\n",
    );
    assert_ne!(quit, sleeping);
    assert_eq!(
        scenario(&quit).run.pod.containers[2].drain,
        SimDuration::from_secs(3).into()
    );
}

#[test]
fn a_wrong_value_is_told_after_its_path_at_the_value() {
    // Line 14 is `  terminationGracePeriodSeconds: 20`: 33 characters before the value.
    let negative = POD.replace("GracePeriodSeconds: 20", "GracePeriodSeconds: -5");
    assert_eq!(
        error(&negative),
        "pod.yaml:14:34: spec.terminationGracePeriodSeconds: -5 is negative; write 0 or more seconds"
    );
    // Line 15, after `  restartPolicy: `.
    let misspelt = POD.replace(
        "GracePeriodSeconds: 20\n",
        "GracePeriodSeconds: 20\n  restartPolicy: Allways\n",
    );
    assert_eq!(
        error(&misspelt),
        "pod.yaml:15:18: spec.restartPolicy: unknown restartPolicy \"Allways\"; did you mean \"Always\"? \
         expected one of Always, OnFailure, Never"
    );
}
