//! postStart hooks and image pulls as sweep axes (R65–R67): the words and
//! numbers of the axes reach the CSV as written, and each row's figure is
//! the one worked out by hand.

use super::common::{TempDir, podsim, sweep_csv, write};

#[test]
fn post_start_and_image_pull_are_sweep_axes_with_rows_worked_by_hand() {
    let dir = TempDir::new();
    // proxy, a native sidecar up 1 s after its start; web up 1 s after its.
    write(
        dir.path(),
        "base.toml",
        "horizon = \"120s\"\n[[containers]]\nname = \"proxy\"\nkind = \"sidecar\"\nboot = \"1s\"\n\
         [[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n",
    );
    let grid = write(
        dir.path(),
        "grid.toml",
        "base = \"base.toml\"\n[axes]\n\"containers.proxy.image_pull\" = [0, 2, \"fails\"]\n\
         \"containers.proxy.post_start\" = [\"0s\", \"2s\"]\n",
    );
    let csv = sweep_csv(&grid);
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').take(4).collect()).collect();
    assert_eq!(
        rows[0],
        [
            "run",
            "containers.proxy.image_pull",
            "containers.proxy.post_start_ms",
            "ready_ms"
        ]
    );
    // Pulled at once: the proxy is started at 1 s (its boot) or 2 s (its
    // hook), web 1 s later. Two failed pulls (0 s, 10 s) move it all 30 s
    // later (R67); an image that never pulls leaves the Pod never Ready.
    let expected = [
        ["0", "0", "0", "2000"],
        ["1", "0", "2000", "3000"],
        ["2", "2", "0", "32000"],
        ["3", "2", "2000", "33000"],
        ["4", "fails", "0", ""],
        ["5", "fails", "2000", ""],
    ];
    assert_eq!(&rows[1..], expected.map(|r| r.to_vec()));
}

/// `post_start = "until-booted"` as an axis value beside durations: the
/// word reaches the CSV as written. By hand (proxy a native sidecar, web up
/// 1 s after its start, which waits for the proxy to be started, R5): a 2 s
/// hook on a 1 s boot starts the proxy at 2 s, web is up at 3 s; until
/// booted it is started at 1 s, web up at 2 s. With a 3 s boot the proxy
/// is started at 3 s either way (a 2 s hook is over before the boot, R7),
/// web up at 4 s.
#[test]
fn a_hook_until_booted_is_an_axis_value_beside_durations() {
    let dir = TempDir::new();
    write(
        dir.path(),
        "base.toml",
        "[[containers]]\nname = \"proxy\"\nkind = \"sidecar\"\nboot = \"1s\"\n\
         [[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n",
    );
    let grid = write(
        dir.path(),
        "grid.toml",
        "base = \"base.toml\"\n[axes]\n\"containers.proxy.boot\" = [\"1s\", \"3s\"]\n\
         \"containers.proxy.post_start\" = [\"2s\", \"until-booted\"]\n",
    );
    let csv = String::from_utf8(super::sweep::sweep_stdout(&grid, &[])).unwrap();
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').take(4).collect()).collect();
    assert_eq!(
        rows,
        [
            [
                "run",
                "containers.proxy.boot_ms",
                "containers.proxy.post_start_ms",
                "ready_ms"
            ],
            ["0", "1000", "2000", "3000"],
            ["1", "1000", "until-booted", "2000"],
            ["2", "3000", "2000", "4000"],
            ["3", "3000", "until-booted", "4000"],
        ]
    );
}

#[test]
fn json_events_carry_the_pulls_back_off_and_whether_the_hook_failed() {
    let dir = TempDir::new();
    // proxy's first pull fails at 0 s: the next in 10 s (R67), then its 1 s
    // boot; web starts at 11 s and its 2 s postStart hook fails at 13 s.
    let file = write(
        dir.path(),
        "hooks.toml",
        "horizon = \"60s\"\n[[containers]]\nname = \"proxy\"\nkind = \"sidecar\"\nboot = \"1s\"\nimage_pull = 1\n\
         [[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\npost_start = \"2s\"\npost_start_fails = true\n",
    );
    let out = podsim()
        .args(["run", "--format", "json"])
        .arg(&file)
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let events = doc["events"].as_array().unwrap();
    let of = |kind: &str| events.iter().find(|e| e["type"] == kind).unwrap().clone();
    let pull = of("image_pull_failed");
    assert_eq!(
        (pull["at_ms"].as_u64(), pull["back_off_ms"].as_u64()),
        (Some(0), Some(10_000))
    );
    let hook = of("post_start_finished");
    assert_eq!(
        (hook["at_ms"].as_u64(), hook["container"].as_str()),
        (Some(13_000), Some("web"))
    );
    assert_eq!(hook["failed"], true);
}
