//! What a manifest says of when a probe passes: a file probe (`cat
//! /tmp/healthy`, `test -f …`, `ls …`) against the script of the container's
//! own command line that creates and removes the file (kubernetes.io's
//! liveness example, `touch /tmp/healthy; sleep 30; rm -f /tmp/healthy;
//! sleep 600`), and the one server whose health over time its page
//! documents (agnhost's `liveness`, kubernetes.io's HTTP liveness example).
//!
//! Why: podsim runs a probe as passing from the end of the boot unless told
//! otherwise (R53); the most common probe of tutorials and charts says
//! otherwise in the manifest itself. The script's clock is podsim's `run`
//! clock: it starts at the end of the boot (`command::scripted_exit`).
//!
//! Invariant: only what is plain is read: a script `command::commands`
//! reads whole, of `sleep`s with literal durations, `exit`, and the plain
//! commands podsim knows, that creates the file at most once and removes it
//! at most once after. Anything else is `None`: the outcome stays assumed,
//! and the manifest reader says so at the probe.

use k8s_openapi::api::core::v1::{Container, Probe as K8sProbe};

use super::command::{base_name, briefly, commands, shell_script, sleeps};
use crate::engine::SimDuration;

/// When a probe passes, as the manifest says, counted from the end of the
/// boot, and why podsim reads it so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Read {
    /// It passes from this long after the boot ...
    pub after: SimDuration,
    /// ... until this long after it (`None`: for as long as it runs).
    pub until: Option<SimDuration>,
    /// What the manifest says, for the notice, after "passes while":
    /// "/tmp/healthy exists: its command line creates it at 0s and removes
    /// it at 30s".
    pub why: String,
}

/// What `probe` checks, shortened for a notice (`cat /tmp/healthy`,
/// `httpGet /healthz :8080`, `tcpSocket :8080`).
pub fn check(probe: &K8sProbe) -> String {
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    let port = |p: &IntOrString| match p {
        IntOrString::Int(n) => format!(":{n}"),
        IntOrString::String(s) => format!(":{s}"),
    };
    if let Some(exec) = &probe.exec {
        return briefly(exec.command.as_deref().unwrap_or_default());
    }
    if let Some(http) = &probe.http_get {
        return format!(
            "httpGet {} {}",
            http.path.as_deref().unwrap_or("/"),
            port(&http.port)
        );
    }
    if let Some(tcp) = &probe.tcp_socket {
        return format!("tcpSocket {}", port(&tcp.port));
    }
    match &probe.grpc {
        Some(grpc) => format!("grpc :{}", grpc.port),
        None => String::new(),
    }
}

/// When `probe` of container `c` passes, if the manifest makes it plain.
pub fn read(probe: &K8sProbe, c: &Container) -> Option<Read> {
    let argv: Vec<String> = c.command.iter().chain(&c.args).flatten().cloned().collect();
    if let Some(exec) = &probe.exec {
        let file = file_checked(exec.command.as_deref()?)?;
        return file_window(&argv, file);
    }
    agnhost_liveness(probe, c, &argv)
}

/// The file a probe's command tests for existence: `cat F`, `ls F`, `test
/// -e|-f|-s F`, `[ -e|-f|-s F ]`, alone or as a shell's one-command script.
fn file_checked(command: &[String]) -> Option<&str> {
    let words: Vec<&str> = match shell_script(command) {
        Some(script) => match commands(script)?.as_slice() {
            [one] => one.clone(),
            _ => return None,
        },
        None => command.iter().map(String::as_str).collect(),
    };
    let tests = ["-e", "-f", "-s"];
    match words.as_slice() {
        [program, file] if ["cat", "ls"].contains(&base_name(program)) => Some(file),
        [program, test, file] if base_name(program) == "test" && tests.contains(test) => Some(file),
        ["[", test, file, "]"] if tests.contains(test) => Some(file),
        _ => None,
    }
}

/// When `file` exists, as the script of `argv` creates it (`touch F`, `>
/// F`) and removes it (`rm [-f] F`), if it does either and both at most once.
fn file_window(argv: &[String], file: &str) -> Option<Read> {
    let script = shell_script(argv)?;
    let (mut now, mut created, mut removed) = (SimDuration::ZERO, None, None);
    for command in commands(script)? {
        let Some((&program, args)) = command.split_first() else {
            continue;
        };
        let redirected = command
            .windows(2)
            .any(|w| (w[0] == ">" || w[0] == ">>") && w[1] == file)
            || command
                .iter()
                .any(|w| w.strip_prefix(">>").or(w.strip_prefix('>')) == Some(file));
        match base_name(program) {
            "sleep" if args == ["infinity"] => break,
            "sleep" => now = now + sleeps(args.iter().copied())?,
            "exit" => break,
            "touch" if args.contains(&file) => created = Some(once(created, now)?),
            "rm" if args.contains(&file) => removed = Some(once(removed, now)?),
            "echo" | "printf" | "date" | "true" | "hostname" | "env" | "pwd" if redirected => {
                created = Some(once(created, now)?)
            }
            "echo" | "printf" | "date" | "true" | "hostname" | "env" | "pwd" | "touch" | "rm" | "mkdir"
            | "cat" | "ls" | "cp" | ":" => {}
            _ => return None,
        }
    }
    let after = created?;
    let until = match removed {
        Some(at) if at < after => return None,
        other => other,
    };
    let why = match until {
        Some(until) => {
            format!("{file} exists: its command line creates it at {after} and removes it at {until}")
        }
        None => format!("{file} exists: its command line creates it at {after} and never removes it"),
    };
    Some(Read { after, until, why })
}

/// `now`, if nothing was found before it: a file made twice, or removed
/// twice, is more than one window can tell.
fn once(before: Option<SimDuration>, now: SimDuration) -> Option<SimDuration> {
    before.is_none().then_some(now)
}

/// The Kubernetes test image agnhost's `liveness` server answers
/// `/healthz` with 200 for its first 10 s and 500 after (kubernetes/kubernetes
/// `test/images/agnhost/liveness/server.go`; kubernetes.io's
/// "Define a liveness HTTP request" says so of `http-liveness.yaml`).
fn agnhost_liveness(probe: &K8sProbe, c: &Container, argv: &[String]) -> Option<Read> {
    let http = probe.http_get.as_ref()?;
    let image = c.image.as_deref()?;
    let agnhost = image.rsplit('/').next()?.split([':', '@']).next() == Some("agnhost");
    // `args: [liveness]` (the entrypoint is agnhost), or agnhost named.
    let serves = argv.first().map(String::as_str) == Some("liveness")
        || (argv.get(1).map(String::as_str) == Some("liveness") && base_name(&argv[0]) == "agnhost");
    (agnhost && serves && http.path.as_deref() == Some("/healthz")).then(|| Read {
        after: SimDuration::ZERO,
        until: Some(SimDuration::from_secs(10)),
        why: "agnhost's liveness server answers /healthz with 200, for its first 10s (500 after)".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ExecAction;

    fn exec(words: &[&str]) -> K8sProbe {
        K8sProbe {
            exec: Some(ExecAction {
                command: Some(words.iter().map(|w| w.to_string()).collect()),
            }),
            ..K8sProbe::default()
        }
    }

    fn container(args: &[&str]) -> Container {
        Container {
            name: "c".into(),
            args: Some(args.iter().map(|w| w.to_string()).collect()),
            ..Container::default()
        }
    }

    fn window(probe: &[&str], args: &[&str]) -> Option<(u64, Option<u64>)> {
        read(&exec(probe), &container(args)).map(|r| (r.after.as_millis(), r.until.map(|u| u.as_millis())))
    }

    /// kubernetes/website `content/en/examples/pods/probe/exec-liveness.yaml`.
    #[test]
    fn the_liveness_example_passes_while_its_script_keeps_the_file() {
        let script = [
            "/bin/sh",
            "-c",
            "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600",
        ];
        for probe in [
            &["cat", "/tmp/healthy"][..],
            &["test", "-f", "/tmp/healthy"],
            &["/bin/sh", "-c", "test -e /tmp/healthy"],
            &["[", "-f", "/tmp/healthy", "]"],
            &["ls", "/tmp/healthy"],
        ] {
            assert_eq!(window(probe, &script), Some((0, Some(30_000))), "{probe:?}");
        }
    }

    #[test]
    fn a_file_made_later_or_never_removed_opens_a_later_or_endless_window() {
        let cat = ["cat", "/tmp/ready"];
        assert_eq!(
            window(&cat, &["sh", "-c", "sleep 5; echo ok > /tmp/ready; sleep 3600"]),
            Some((5000, None))
        );
        assert_eq!(
            window(
                &cat,
                &["sh", "-c", "sleep 2 && touch /tmp/ready && sleep infinity"]
            ),
            Some((2000, None))
        );
        assert_eq!(
            window(
                &cat,
                &["sh", "-c", "date >>/tmp/ready; sleep 1m; rm /tmp/ready; exit 1"]
            ),
            Some((0, Some(60_000)))
        );
    }

    #[test]
    fn what_is_not_plain_leaves_the_outcome_assumed() {
        let cat = ["cat", "/tmp/healthy"];
        for args in [
            // Another file, or none: the image may hold it.
            &["sh", "-c", "touch /tmp/other; sleep 30"][..],
            &["sh", "-c", "sleep 30; rm -f /tmp/healthy"],
            // Twice made: two windows.
            &[
                "sh",
                "-c",
                "touch /tmp/healthy; sleep 5; rm /tmp/healthy; sleep 5; touch /tmp/healthy",
            ],
            // A loop, a server, a variable sleep.
            &["sh", "-c", "while true; do touch /tmp/healthy; sleep 5; done"],
            &["sh", "-c", "touch /tmp/healthy; nginx"],
            &["sh", "-c", "touch /tmp/healthy; sleep $T; rm /tmp/healthy"],
            // Not a shell script.
            &["nginx"],
        ] {
            assert_eq!(window(&cat, args), None, "{args:?}");
        }
        let script = ["sh", "-c", "touch /tmp/healthy; sleep 30; rm /tmp/healthy"];
        for probe in [
            &["cat", "/tmp/healthy", "/tmp/x"][..],
            &["test", "-d", "/tmp/healthy"],
            &["sh", "-c", "cat /tmp/healthy; exit 0"],
            &["redis-cli", "ping"],
        ] {
            assert_eq!(window(probe, &script), None, "{probe:?}");
        }
    }

    /// kubernetes/website `content/en/examples/pods/probe/http-liveness.yaml`.
    #[test]
    fn agnhosts_liveness_server_is_healthy_for_ten_seconds() {
        use k8s_openapi::api::core::v1::HTTPGetAction;
        use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
        let probe = K8sProbe {
            http_get: Some(HTTPGetAction {
                path: Some("/healthz".into()),
                port: IntOrString::Int(8080),
                ..HTTPGetAction::default()
            }),
            ..K8sProbe::default()
        };
        let agnhost = Container {
            image: Some("registry.k8s.io/e2e-test-images/agnhost:2.40".into()),
            ..container(&["liveness"])
        };
        let read = super::read(&probe, &agnhost).unwrap();
        assert_eq!(
            (read.after, read.until),
            (SimDuration::ZERO, Some(SimDuration::from_secs(10)))
        );
        assert_eq!(check(&probe), "httpGet /healthz :8080");
        let other = Container {
            args: Some(vec!["netexec".into()]),
            ..agnhost.clone()
        };
        assert_eq!(super::read(&probe, &other), None);
    }
}
