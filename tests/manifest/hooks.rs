//! `lifecycle.postStart` and `podsim.dev/` image pulls in manifests (R65–R67):
//! where the manifest tells the hook's duration, where an annotation must,
//! and what a hook Kubernetes fails at once does.

use podsim::engine::SimDuration;
use podsim::model::{ImagePull, PostStart, simulate_pod};
use podsim::scenario::manifest::parse;

/// A Pod whose app has the postStart handler `hook` (YAML under `postStart:`)
/// and the annotations `extra`, deleted 30 s after Ready.
fn pod(hook: &str, extra: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: demo\n  annotations:\n    podsim.dev/web.boot: \"1s\"\n    \
         podsim.dev/helper.boot: \"1s\"\n    podsim.dev/stop_after_ready: \"30s\"\n{extra}spec:\n  containers:\n  \
         - name: web\n    image: nginx\n    lifecycle:\n      postStart:\n{hook}  - name: helper\n    image: busybox\n"
    )
}

/// A hook of this fixed length.
fn lasts(d: SimDuration) -> Option<PostStart> {
    Some(PostStart::For(d.into()))
}

#[test]
fn r65_a_sleep_post_start_holds_the_next_container_for_its_seconds() {
    // web's hook sleeps 4 s: helper starts at 4 s, up at 5 s; web is
    // started at 4 s: the Pod is Ready at 5 s.
    let s = parse(
        &pod("        sleep:\n          seconds: 4\n", ""),
        "pod.yaml",
        None,
    )
    .unwrap();
    let web = &s.run.pod.containers[0];
    assert_eq!(web.post_start, lasts(SimDuration::from_secs(4)));
    assert!(!web.post_start_fails);
    assert_eq!(simulate_pod(&s.run).metrics.ready_ms, Some(5000));
    // An exec of `sleep 2` says 2 s.
    let exec = pod(
        "        exec:\n          command: [\"sh\", \"-c\", \"sleep 2\"]\n",
        "",
    );
    let s = parse(&exec, "pod.yaml", None).unwrap();
    assert_eq!(simulate_pod(&s.run).metrics.ready_ms, Some(3000));
}

#[test]
fn r65_an_http_post_start_is_assumed_1s_with_a_notice_unless_annotated() {
    let http = "        httpGet:\n          port: 80\n";
    let s = parse(&pod(http, ""), "pod.yaml", None).unwrap();
    let web = &s.run.pod.containers[0];
    assert_eq!(web.post_start, lasts(SimDuration::from_secs(1)));
    let notices: Vec<String> = s.notices.iter().map(|n| n.to_string()).collect();
    assert!(
        notices
            .iter()
            .any(|n| n.contains("how long its httpGet postStart hook takes")
                && n.contains("podsim.dev/web.post_start")),
        "{notices:?}"
    );
    let timed = pod(
        http,
        "    podsim.dev/web.post_start: \"6s\"\n    podsim.dev/web.post_start_fails: \"true\"\n",
    );
    let s = parse(&timed, "pod.yaml", None).unwrap();
    let web = &s.run.pod.containers[0];
    assert_eq!(web.post_start, lasts(SimDuration::from_secs(6)));
    assert!(web.post_start_fails);
    assert!(s.notices.iter().all(|n| !n.to_string().contains("postStart")));
}

#[test]
fn r66_a_tcp_socket_post_start_fails_at_once() {
    // `Run` knows no tcpSocket action: the hook fails at the start, the
    // container is killed and never started.
    let s = parse(
        &pod("        tcpSocket:\n          port: 80\n", ""),
        "pod.yaml",
        None,
    )
    .unwrap();
    let web = &s.run.pod.containers[0];
    assert_eq!(web.post_start, lasts(SimDuration::ZERO));
    assert!(web.post_start_fails);
    assert!(
        s.notices
            .iter()
            .any(|n| n.to_string().contains("FailedPostStartHook"))
    );
    assert_eq!(simulate_pod(&s.run).metrics.ready_ms, None);
}

#[test]
fn a_post_start_timing_without_a_hook_is_refused_and_image_pull_is_an_annotation() {
    let no_hook = pod("", "    podsim.dev/helper.post_start: \"2s\"\n");
    let e = parse(
        &no_hook.replace("    lifecycle:\n      postStart:\n", ""),
        "pod.yaml",
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("container \"helper\": a post_start timing") && e.contains("no lifecycle.postStart"),
        "{e}"
    );
    let pulls = pod(
        "        sleep:\n          seconds: 1\n",
        "    podsim.dev/helper.image_pull: \"fails\"\n    podsim.dev/web.image_pull: \"2\"\n",
    );
    let s = parse(&pulls, "pod.yaml", None).unwrap();
    let images: Vec<ImagePull> = s.run.pod.containers.iter().map(|c| c.image_pull).collect();
    assert_eq!(images, [ImagePull::FailsFirst(2), ImagePull::Fails]);
}

/// Istio's `pilot-agent wait` (holdApplicationUntilProxyStarts) and
/// Linkerd's `linkerd-await` poll their own proxy until it is ready: the
/// hook lasts until web's boot is over, whatever the boot, so helper starts
/// when web answers. By hand: web boots 1 s, hook over at 1 s, helper up at
/// 2 s: Ready at 2 s; with web's boot at 3 s, helper starts at 3 s and the
/// Pod is Ready at 4 s. A post_start timing still wins.
#[test]
fn r65_a_hook_that_waits_for_its_container_lasts_until_the_boot_is_over() {
    for command in [
        "[\"pilot-agent\", \"wait\"]",
        "[\"/usr/lib/linkerd/linkerd-await\", \"--timeout=2m\"]",
    ] {
        let hook = format!("        exec:\n          command: {command}\n");
        let s = parse(&pod(&hook, ""), "pod.yaml", None).unwrap();
        assert_eq!(s.run.pod.containers[0].post_start, Some(PostStart::UntilBooted));
        assert!(
            s.notices
                .iter()
                .any(|n| n.to_string().contains("runs it until the boot is over")),
            "{:?}",
            s.notices
        );
        assert_eq!(simulate_pod(&s.run).metrics.ready_ms, Some(2000), "{command}");
        let slow = pod(&hook, "    podsim.dev/web.boot: \"3s\"\n").replacen(
            "    podsim.dev/web.boot: \"1s\"\n",
            "",
            1,
        );
        let s = parse(&slow, "pod.yaml", None).unwrap();
        assert_eq!(simulate_pod(&s.run).metrics.ready_ms, Some(4000), "{command}");
        let timed = pod(&hook, "    podsim.dev/web.post_start: \"6s\"\n");
        let s = parse(&timed, "pod.yaml", None).unwrap();
        assert_eq!(
            s.run.pod.containers[0].post_start,
            lasts(SimDuration::from_secs(6))
        );
        assert_eq!(simulate_pod(&s.run).metrics.ready_ms, Some(7000), "{command}");
    }
}
