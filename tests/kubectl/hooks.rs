//! kubectl's STATUS and RESTARTS around postStart hooks and image pulls
//! (R68, R69), each watch worked out by hand in the test's comments.

use super::{line, watch};

#[test]
fn r68_kubectl_shows_err_image_pull_then_image_pull_back_off_a_second_later() {
    // The Pod of the first R67 test: the init container's failures at 0 s
    // and 10 s show Init:ErrImagePull, Init:ImagePullBackOff from the next
    // sync 1 s later; it runs at 30 s (Init:0/1), and web's failures show
    // ErrImagePull at 31 s and 41 s, ImagePullBackOff at 32 s and 42 s.
    let toml = r#"
        horizon = "50s"
        [[containers]]
        name = "init"
        kind = "init"
        boot = "1s"
        image_pull = 2
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        image_pull = "fails"
    "#;
    assert_eq!(
        watch(toml),
        [
            line(0, "Init:ErrImagePull", "0"),
            line(1, "Init:ImagePullBackOff", "0"),
            line(10, "Init:ErrImagePull", "0"),
            line(11, "Init:ImagePullBackOff", "0"),
            line(30, "Init:0/1", "0"),
            line(31, "ErrImagePull", "0"),
            line(32, "ImagePullBackOff", "0"),
            line(41, "ErrImagePull", "0"),
            line(42, "ImagePullBackOff", "0"),
        ]
    );
}

#[test]
fn r68_r69_kubectl_shows_post_start_hook_error_and_restarts_with_their_age() {
    // The Pod of the R66 test without preStop: attempt 1 exits at 4 s and
    // restarts at once (RESTARTS 1, its last termination 4 s: "1 (0s
    // ago)"); attempt 2's hook fails at 6 s, it exits at 8 s and waits 10 s:
    // PostStartHookError at 8 s ("1 (0s ago)": restartCount is still 1,
    // lastState the exit at 8 s), CrashLoopBackOff from the sync at 9 s;
    // attempt 3 starts at 18 s: "2 (10s ago)".
    let toml = r#"
        horizon = "20s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "2s"
        post_start = "2s"
        post_start_fails = true
    "#;
    assert_eq!(
        watch(toml),
        [
            line(4, "ContainerCreating", "1 (0s ago)"),
            line(8, "PostStartHookError", "1 (0s ago)"),
            line(9, "CrashLoopBackOff", "1 (1s ago)"),
            line(18, "ContainerCreating", "2 (10s ago)"),
        ]
    );
}

#[test]
fn r69_a_regular_init_containers_restarts_drop_out_once_the_pod_is_initialized() {
    // init fails twice at the end of its 1 s boot: exits 1 s, restarts at
    // once; exits 2 s, back-off 10 s; completes 12–13 s. While it holds the
    // Pod its restarts count (at 2 s: 1, lastState the exit at 1 s … then
    // the exit at 2 s once it waits); each exit before its restart or
    // back-off is an `Init:Error` row first (R82), counting the restarts
    // before it; from 13 s, initialized, RESTARTS counts web only: 0.
    let toml = r#"
        [[containers]]
        name = "init"
        kind = "init"
        boot = "1s"
        fails = 2
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    let lines = watch(toml);
    assert_eq!(lines[0], line(0, "Init:0/1", "0"));
    assert_eq!(lines[1], line(1, "Init:Error", "0"));
    assert_eq!(lines[2], line(1, "Init:0/1", "1 (0s ago)"));
    assert_eq!(lines[3], line(2, "Init:Error", "1 (1s ago)"));
    assert_eq!(lines[4], line(2, "Init:CrashLoopBackOff", "1 (0s ago)"));
    assert!(lines.contains(&line(12, "Init:0/1", "2 (10s ago)")), "{lines:?}");
    assert_eq!(lines.last(), Some(&line(14, "Running", "0")));
}

#[test]
fn kubectl_shows_the_reason_of_the_first_app_by_name_not_by_spec_order() {
    // web (listed first) exits 1 at 1 + 2 = 3 s, api exits 0 at 1 + 4 = 5 s,
    // under Never. The kubelet sorts the apps' statuses by name (api, web)
    // and kubectl walks them from the last, so api's reason wins: Error
    // while only web has ended (api still runs, unready: NotReady would
    // need a Completed), then Completed once both have, though the phase
    // is Failed.
    let toml = r#"
        [pod]
        restart_policy = "Never"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        run = "2s"
        exit_code = 1
        [[containers]]
        name = "api"
        kind = "app"
        boot = "1s"
        run = "4s"
    "#;
    let lines = watch(toml);
    assert_eq!(lines.last(), Some(&line(5, "Completed", "0")), "{lines:?}");
    assert!(lines.contains(&line(3, "Error", "0")), "{lines:?}");
}
