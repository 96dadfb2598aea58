//! The manifest reader on every workload kind: templates, the kinds podsim
//! cannot run, and what Kubernetes itself rejects.

use super::*;

/// A minimal object of `kind` around a Pod template whose spec is `spec`
/// (indented for the template's place).
fn object(kind: WorkloadKind, spec: &str) -> String {
    let template: String = spec.lines().map(|l| format!("      {l}\n")).collect();
    let head = format!(
        "apiVersion: {}\nkind: {}\nmetadata:\n  name: w\n",
        kind.api_version(),
        kind.name()
    );
    match kind {
        WorkloadKind::Pod => format!(
            "{head}spec:\n{}",
            spec.lines().map(|l| format!("  {l}\n")).collect::<String>()
        ),
        WorkloadKind::CronJob => format!(
            "{head}spec:\n  schedule: \"* * * * *\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n{}",
            spec.lines()
                .map(|l| format!("          {l}\n"))
                .collect::<String>()
        ),
        _ => format!("{head}spec:\n  replicas: 1\n  template:\n    spec:\n{template}").replace(
            "  replicas: 1\n",
            if kind == WorkloadKind::DaemonSet || kind.completes() {
                ""
            } else {
                "  replicas: 1\n"
            },
        ),
    }
}

#[test]
fn every_kind_with_a_pod_template_is_read_with_its_restart_rules() {
    let spec = |policy: &str| format!("restartPolicy: {policy}\ncontainers:\n- name: web\n  image: nginx\n");
    for kind in WorkloadKind::ALL {
        let ok = if kind.completes() { "Never" } else { "Always" };
        let s = scenario(&object(kind, &spec(ok)));
        assert_eq!((s.name.as_str(), s.workload), ("w", Some(kind)), "{kind:?}");
        assert_eq!(s.run.pod.containers[0].name, "web");
        let mode = if kind.completes() {
            PodMode::Job
        } else {
            PodMode::Service
        };
        assert_eq!(s.run.pod.mode, mode, "{kind:?}");
        let wrong = if kind.completes() { "Always" } else { "Never" };
        let result = parse(&object(kind, &spec(wrong)), "pod.yaml", None);
        match kind {
            WorkloadKind::Pod => assert!(result.is_ok()),
            _ => {
                let e = result.unwrap_err().to_string();
                assert!(e.contains(&format!("a {}'s Pod", kind.name())), "{e}");
            }
        }
    }
}

#[test]
fn a_cronjob_is_read_from_its_job_template_and_annotations_belong_to_the_pod_template() {
    let text = object(
        WorkloadKind::CronJob,
        "restartPolicy: OnFailure\ncontainers:\n- name: hello\n  image: busybox\n",
    );
    let s = scenario(&text);
    assert_eq!(s.run.pod.restart_policy, RestartPolicy::OnFailure);
    let misplaced = text.replace(
        "  jobTemplate:\n",
        "  jobTemplate:\n    metadata:\n      annotations:\n        podsim.dev/hello.boot: \"2s\"\n",
    );
    assert_eq!(
        error(&misplaced),
        "pod.yaml:10:9: annotation \"podsim.dev/hello.boot\" is on the CronJob \
         (spec.jobTemplate.metadata.annotations); podsim reads its annotations from the Pod template: move it \
         to spec.jobTemplate.spec.template.metadata.annotations"
    );
}

#[test]
fn replicas_other_than_one_are_a_notice_for_every_kind_that_has_them() {
    let spec = "containers:\n- name: web\n  image: nginx\n";
    let text = object(WorkloadKind::StatefulSet, spec).replace("replicas: 1", "replicas: 3");
    assert_eq!(
        scenario(&text).notices[0].to_string(),
        "pod.yaml:6:13: replicas: 3; podsim simulates one Pod of the StatefulSet"
    );
}

#[test]
fn the_api_version_must_be_the_kinds() {
    assert_eq!(
        error(&POD.replace("apiVersion: v1", "apiVersion: apps/v1")),
        "pod.yaml:1:1: apiVersion \"apps/v1\" is not the Pod's; write apiVersion: v1"
    );
    assert_eq!(
        error(&POD.replace("apiVersion: v1\n", "")),
        "pod.yaml:1:1: apiVersion is missing; write apiVersion: v1"
    );
}

#[test]
fn a_pod_needs_containers() {
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers: []\n";
    assert_eq!(
        error(text),
        "pod.yaml:6:3: spec.containers: the Pod has no containers; Kubernetes needs at least one"
    );
}

#[test]
fn unknown_fields_are_refused_like_kubectl_does() {
    let e = error(&POD.replace("restartPolicy: Always", "restartPolicyy: Always"));
    assert_eq!(
        e,
        "pod.yaml:20:5: unknown field \"spec.initContainers[1].restartPolicyy\" (Kubernetes rejects it); \
             did you mean \"restartPolicy\"? `kubectl explain pod.spec.initContainers` lists the valid ones"
    );
    // The names are the API's for the place: a probe's, a Deployment's spec.
    let e = error(&POD.replace(
        "restartPolicy: Always",
        "restartPolicy: Always\n    startupProbe:\n      periodSecond: 1\n      exec: {command: [\"true\"]}",
    ));
    assert!(e.contains("did you mean \"periodSeconds\"?"), "{e}");
    // An ephemeral container's fields are its API type's (`kubectl debug`).
    let e = error(&format!(
        "{POD}  ephemeralContainers:\n  - name: debugger\n    image: busybox\n    targetContainername: web\n"
    ));
    assert!(e.contains("did you mean \"targetContainerName\"?"), "{e}");
    // Nothing close: no guess, only where to look.
    let e = error(&POD.replace("restartPolicy: Always", "restartPolicy: Always\n    colour: blue"));
    assert!(
        !e.contains("did you mean") && e.contains("`kubectl explain pod.spec.initContainers`"),
        "{e}"
    );
}

#[test]
fn annotation_typos_suggest_the_key_or_the_container() {
    assert_eq!(
        error(&POD.replace("podsim.dev/web.boot", "podsim.dev/web.bot")),
        "pod.yaml:10:5: annotation \"podsim.dev/web.bot\": unknown timing key \"bot\"; did you mean \
             \"boot\"? expected one of boot, drain, pre_stop, fails, fail_probability, proxy, crash_after, run, exit_code, startup_probe.outcome, startup_probe.pass_after, startup_probe.pass_until, readiness_probe.outcome, readiness_probe.pass_after, readiness_probe.pass_until, liveness_probe.outcome, liveness_probe.pass_after, liveness_probe.pass_until, exit_code_on_sigterm, drains_on, post_start, post_start_fails, image_pull"
    );
    assert_eq!(
        error(&POD.replace("podsim.dev/web.boot", "podsim.dev/wbe.boot")),
        "pod.yaml:10:5: annotation \"podsim.dev/wbe.boot\": unknown container \"wbe\"; did you mean \
             \"web\"? expected one of migrate, proxy, web"
    );
    assert_eq!(
        error(&POD.replace("\"10s\"", "\"10\"")),
        "pod.yaml:12:25: annotation \"podsim.dev/stop_at\": duration \"10\" needs a unit: ms, s, m or h \
             (e.g. \"10s\")"
    );
    assert_eq!(
        error(&POD.replace("stop_at", "stop-at")),
        "pod.yaml:12:5: annotation \"podsim.dev/stop-at\": unknown pod key \"stop-at\"; did you mean \
             \"stop_at\"? expected one of horizon, seed, stop_at, stop_after_ready, backoff.initial, backoff.cap, \
             backoff.immediate_first_restart, kubernetes"
    );
    assert_eq!(
        error(&POD.replace("podsim.dev/web.boot", "podsim.dev/boot")),
        "pod.yaml:10:5: annotation \"podsim.dev/boot\": boot belongs to a container: write \
             \"podsim.dev/<container>.boot\""
    );
    assert_eq!(
        error(&POD.replace("podsim.dev/web.boot", "podsim.io/web.boot")),
        "pod.yaml:10:5: annotation \"podsim.io/web.boot\": podsim reads annotations that start with \
             \"podsim.dev/\""
    );
}

pub(super) const JOB: &str = "\
apiVersion: batch/v1
kind: Job
metadata:
  name: batch
spec:
  template:
    metadata:
      annotations:
        podsim.dev/work.boot: \"20s\"
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox
";

#[test]
fn a_job_is_read_from_its_template_and_recorded_as_a_job() {
    let s = scenario(JOB);
    assert_eq!((s.name.as_str(), s.workload), ("batch", Some(WorkloadKind::Job)));
    assert_eq!(s.run.pod.restart_policy, RestartPolicy::Never);
    assert_eq!(s.run.pod.containers[0].boot, SimDuration::from_secs(20));
}

#[test]
fn a_job_may_not_restart_always() {
    let expected = "a Job's Pod template needs restartPolicy Never or OnFailure \
                        (Kubernetes rejects Always, the default)";
    let e = error(&JOB.replace("Never", "Always"));
    assert_eq!(
        e,
        format!("pod.yaml:11:7: spec.template.spec.restartPolicy: {expected}")
    );
    let e = error(&JOB.replace("      restartPolicy: Never\n", ""));
    assert_eq!(
        e,
        format!("pod.yaml:10:5: spec.template.spec.restartPolicy: {expected}")
    );
}

#[test]
fn a_deployment_is_read_from_its_template() {
    let text = JOB
        .replace("batch/v1", "apps/v1")
        .replace("kind: Job", "kind: Deployment")
        .replace("restartPolicy: Never", "restartPolicy: Always");
    let s = scenario(&text);
    assert_eq!(s.workload, Some(WorkloadKind::Deployment));
    let s = scenario(&text.replace("spec:\n  template:", "spec:\n  replicas: 3\n  template:"));
    assert_eq!(
        s.notices[0].to_string(),
        "pod.yaml:6:13: replicas: 3; podsim simulates one Pod of the Deployment"
    );
    let e = error(&text.replace("restartPolicy: Always", "restartPolicy: Never"));
    assert!(
        e.starts_with("pod.yaml:11:22: spec.template.spec.restartPolicy: a Deployment's Pods"),
        "{e}"
    );
}

#[test]
fn what_kubernetes_rejects_is_refused_with_the_field_and_what_to_write() {
    assert_eq!(
        error(&POD.replace("    image: nginx\n", "")),
        "pod.yaml:22:5: spec.containers[0]: container \"web\" has no image; Kubernetes requires one: add \
         image: <name:tag> (podsim does not pull it, any image will do)"
    );
    assert_eq!(
        error(&POD.replace("  name: demo", "  name: My_App")),
        "pod.yaml:4:9: metadata.name: \"My_App\" is not a name Kubernetes accepts (lowercase letters, \
         digits, '-' and '.', starting and ending with a letter or digit, at most 253); write one such as my-app"
    );
    // A placeholder left from a guide: every one of the file, in one error.
    let copied = POD
        .replace("  name: demo", "  name: <YOUR-APP>")
        .replace("image: nginx", "image: gcr.io/<YOUR-PROJECT>/web:v1");
    assert_eq!(
        error(&copied),
        "pod.yaml:4:9: 2 placeholders to fill in: line 4 `<YOUR-APP>`, line 23 `<YOUR-PROJECT>`; Kubernetes \
         refuses one in a name, and the kubelet one in an image (InvalidImageName): write the real values"
    );
    assert!(error(&POD.replace("- name: web", "- name: Web")).starts_with(
        "pod.yaml:22:11: spec.containers[0].name: \"Web\" is not a container name Kubernetes accepts"
    ));
    let probe = POD.replace(
        "    image: nginx\n",
        "    image: nginx\n    readinessProbe:\n      periodSeconds: 3\n",
    );
    assert_eq!(
        error(&probe),
        "pod.yaml:24:5: spec.containers[0].readinessProbe: the probe has no handler; give it one of exec, \
         httpGet, tcpSocket, grpc"
    );
    let exit = POD.replace(
        "    podsim.dev/web.boot",
        "    podsim.dev/web.run: \"2s\"\n    podsim.dev/web.exit_code: \"256\"\n    podsim.dev/web.boot",
    );
    assert!(
        error(&exit)
            .ends_with("container \"web\": exit_code 256 is not an exit code; a process exits with 0 to 255"),
        "{}",
        error(&exit)
    );
    assert!(scenario(&exit.replace("\"256\"", "\"255\"")).run.pod.containers[2].exit_code == 255);
}

#[test]
fn a_pod_never_deleted_gets_one_notice_and_no_drain_assumed() {
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: web\n    image: nginx\n  - name: proxy\n    image: envoy\n";
    let notices: Vec<String> = scenario(text).notices.iter().map(ToString::to_string).collect();
    assert_eq!(
        notices,
        [
            "pod.yaml:7:5: podsim assumes boot 1s for web, proxy (annotate podsim.dev/<container>.boot or give \
             a timings file)",
            "pod.yaml:1:1: the Pod is never deleted; add podsim.dev/stop_after_ready (or [pod] stop_after_ready \
             in a timings file) to see shutdown",
        ]
    );
    // Deleted, drain matters: one line still, per key the containers concerned.
    let deleted = text.replace(
        "  name: p\n",
        "  name: p\n  annotations:\n    podsim.dev/stop_at: \"9s\"\n    podsim.dev/proxy.drain: \"1s\"\n",
    );
    let notices: Vec<String> = scenario(&deleted)
        .notices
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        notices,
        [
            "pod.yaml:10:5: podsim assumes boot 1s for web, proxy; drain 0s for web (annotate \
          podsim.dev/<container>.boot, podsim.dev/<container>.drain or give a timings file)"
        ]
    );
    // Never deleted, but a liveness probe that fails from 9 s kills web
    // (R31): its drain runs then, so it is told; proxy's never runs.
    let killed = text
        .replace(
            "    image: nginx\n",
            "    image: nginx\n    livenessProbe:\n      exec:\n        command: [\"true\"]\n",
        )
        .replace(
            "  name: p\n",
            "  name: p\n  annotations:\n    podsim.dev/web.liveness_probe.pass_until: \"9s\"\n",
        );
    let notices: Vec<String> = scenario(&killed)
        .notices
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        notices[0],
        "pod.yaml:9:5: podsim assumes boot 1s for web, proxy; drain 0s for web (annotate \
         podsim.dev/<container>.boot, podsim.dev/<container>.drain or give a timings file)"
    );
    assert!(notices[1].contains("the Pod is never deleted"), "{notices:?}");
}

#[test]
fn r59_lifecycle_stop_signal_is_read_and_needs_spec_os_name() {
    let signalled = POD.replace("    lifecycle:\n", "    lifecycle:\n      stopSignal: SIGQUIT\n");
    let e = error(&signalled);
    assert!(
        e.ends_with(
            "spec.containers[0].lifecycle.stopSignal: the API refuses lifecycle.stopSignal without \
             spec.os.name; add spec.os.name: linux"
        ),
        "{e}"
    );
    let linux = signalled.replace("spec:\n", "spec:\n  os:\n    name: linux\n");
    let s = scenario(&linux);
    assert_eq!(s.run.pod.containers[2].stop_signal, crate::model::Signal::Quit);
    let windows = signalled.replace("spec:\n", "spec:\n  os:\n    name: windows\n");
    assert!(
        error(&windows)
            .ends_with("a Windows Pod may stop its containers with SIGTERM or SIGKILL only, not SIGQUIT")
    );
    let typo = linux.replace("SIGQUIT", "SIGQUTI");
    assert!(
        error(&typo).contains("unknown stop signal \"SIGQUTI\"; did you mean \"SIGQUIT\"?"),
        "{}",
        error(&typo)
    );
}

#[test]
fn r61_a_restart_all_containers_rule_is_read_from_the_manifest() {
    let text = POD.replace(
        "    image: nginx\n",
        "    image: nginx\n    restartPolicy: Never\n    restartPolicyRules:\n    - action: RestartAllContainers\n      \
         exitCodes:\n        operator: In\n        values: [42]\n",
    );
    let s = scenario(&text);
    let rules = &s.run.pod.containers[2].restart_rules;
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].action, crate::model::RuleAction::RestartAllContainers);
    assert!(rules[0].exit_codes.matches(42) && !rules[0].exit_codes.matches(1));
}

#[test]
fn an_unquoted_number_or_boolean_in_labels_or_annotations_is_refused_as_the_api_server_does() {
    // Line 9: `podsim.dev/proxy.proxy: true`, the value at column 29.
    assert_eq!(
        error(&POD.replace("proxy.proxy: \"true\"", "proxy.proxy: true")),
        "pod.yaml:9:29: annotation \"podsim.dev/proxy.proxy\": true is a boolean, and annotations are \
         strings: the API server refuses it (\"cannot unmarshal boolean into ... of type string\"); quote \
         it: \"true\""
    );
    // Any label or annotation, podsim's or not; in a template too.
    let e = error(&POD.replace("  name: demo\n", "  name: demo\n  labels:\n    version: 1.10\n"));
    assert!(
        e.starts_with("pod.yaml:6:14: label \"version\": 1.10 is a number"),
        "{e}"
    );
    let deployment = object(
        WorkloadKind::Deployment,
        "containers:\n- name: web\n  image: nginx\n",
    )
    .replace(
        "template:\n",
        "template:\n    metadata:\n      annotations:\n        prometheus.io/port: 8080\n",
    );
    assert!(error(&deployment).contains("annotation \"prometheus.io/port\": 8080 is a number"));
    // Quoted, or a word that only looks like one, is a string.
    let text = POD.replace(
        "  name: demo\n",
        "  name: demo\n  labels:\n    version: \"1.10\"\n    tier: v1\n",
    );
    assert!(scenario(&text).run.pod.containers.len() == 3);
}
