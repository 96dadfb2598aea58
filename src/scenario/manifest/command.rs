//! What a command line says about the process it starts: the script a
//! shell runs, and whether a container's first process is one that has no
//! handler for SIGTERM, so that it keeps running after the kubelet's stop.
//!
//! Why it matters (R80): the runtime sends the stop signal to the container's
//! PID 1 alone, and Linux delivers a signal to a PID namespace's init
//! process from outside only if that process handles it (SIGKILL and
//! SIGSTOP excepted; pid_namespaces(7)). A shell script or a bare `sleep`
//! as PID 1 handles nothing, so SIGTERM does nothing and the container
//! runs until SIGKILL at the end of the grace period: the "my Pod takes
//! 30 s to delete" of so many published examples.
//!
//! Invariant: only what the command line makes plain is recognised; a
//! script that traps a signal or `exec`s another program, or one whose
//! last command could be a server with its own handler, is left to the
//! default drain.

/// The shells whose `-c` script podsim reads.
const SHELLS: [&str; 4] = ["sh", "bash", "ash", "dash"];

/// Commands that, ending a script, leave no program with a SIGTERM handler
/// as PID 1: the shell's own builtins and loops (the shell stays PID 1)
/// and the waiting programs a shell may `exec` as its last command.
const HANDLERLESS_ENDS: [&str; 7] = ["sleep", "tail", "done", "wait", "exit", "echo", "true"];

/// Programs that, as PID 1, handle no signal.
const HANDLERLESS_PROGRAMS: [&str; 2] = ["sleep", "tail"];

/// A program's name without its directory (`/bin/sh` → `sh`).
pub fn base_name(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// The script of `sh -c SCRIPT` (also `bash -ec SCRIPT`, `bash --login -c
/// SCRIPT`, `bash -c -- SCRIPT`, and with `$0` and arguments after it), if
/// `argv` runs one.
pub fn shell_script(argv: &[String]) -> Option<&str> {
    let (shell, rest) = argv.split_first()?;
    if !SHELLS.contains(&base_name(shell)) {
        return None;
    }
    let mut command = false;
    let mut words = rest.iter();
    for word in words.by_ref() {
        match word.as_str() {
            "--" => break,
            long if long.starts_with("--") => {}
            short if short.starts_with('-') => command |= short.contains('c'),
            script => return command.then_some(script),
        }
    }
    words.next().filter(|_| command).map(String::as_str)
}

/// The command line of a container that starts with `argv`, shortened for
/// a notice, if its first process plainly has no SIGTERM handler: a bare
/// `sleep` or `tail`, or a shell script with no `trap` and no `exec` whose
/// last command is one of `HANDLERLESS_ENDS`.
pub fn unhandled_sigterm(argv: &[String]) -> Option<String> {
    let plain = match shell_script(argv) {
        Some(script) => {
            let words = script.split(|c: char| c.is_whitespace() || ";&|()".contains(c));
            let handles = words.clone().any(|w| w == "trap" || w == "exec");
            let last = script
                .split(|c: char| ";&|\n".contains(c))
                .map(str::trim)
                .rfind(|command| !command.is_empty())
                .and_then(|command| command.split_whitespace().next());
            !handles && last.is_some_and(|w| HANDLERLESS_ENDS.contains(&base_name(w)))
        }
        None => argv
            .first()
            .is_some_and(|program| HANDLERLESS_PROGRAMS.contains(&base_name(program))),
    };
    plain.then(|| shortened(&shown(argv)))
}

/// `argv` as a shell would take it back: a word with spaces in quotes.
fn shown(argv: &[String]) -> String {
    let words: Vec<String> = argv
        .iter()
        .map(|w| match w.contains(char::is_whitespace) {
            true => format!("'{w}'"),
            false => w.clone(),
        })
        .collect();
    words.join(" ")
}

/// `text` cut to 40 characters, an ellipsis marking the cut.
fn shortened(text: &str) -> String {
    const MAX: usize = 40;
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() <= MAX && line.len() == text.len() {
        return text.to_string();
    }
    let cut: String = line.chars().take(MAX).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_shells_script_is_found_after_its_flags() {
        assert_eq!(
            shell_script(&argv(&["/bin/sh", "-c", "sleep 10"])),
            Some("sleep 10")
        );
        assert_eq!(shell_script(&argv(&["bash", "-e", "-c", "x", "name"])), Some("x"));
        assert_eq!(shell_script(&argv(&["bash", "-ec", "x"])), Some("x"));
        assert_eq!(shell_script(&argv(&["/bin/bash", "-c", "--", "x"])), Some("x"));
        assert_eq!(shell_script(&argv(&["bash", "--login", "-c", "x"])), Some("x"));
        assert_eq!(shell_script(&argv(&["bash", "-o", "pipefail", "-c", "x"])), None);
        assert_eq!(shell_script(&argv(&["sh", "script.sh"])), None);
        assert_eq!(shell_script(&argv(&["sh", "-e", "script.sh"])), None);
        assert_eq!(shell_script(&argv(&["sh", "--noprofile"])), None);
        assert_eq!(shell_script(&argv(&["python", "-c", "x"])), None);
        assert_eq!(shell_script(&argv(&["sh", "-c"])), None);
    }

    /// The Kubernetes website's examples: kubernetes/website
    /// `content/en/examples/pods/probe/exec-liveness.yaml` (args, busybox),
    /// `application/deployment-sidecar.yaml` (a loop, a `tail -F`), and the
    /// many `sleep 3600` Pods.
    #[test]
    fn a_script_or_a_sleep_as_pid_1_has_no_handler() {
        for words in [
            &[
                "/bin/sh",
                "-c",
                "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600",
            ][..],
            &[
                "sh",
                "-c",
                "while true; do echo \"logging\" >> /opt/logs.txt; sleep 1; done",
            ],
            &["sh", "-c", "tail -F /opt/logs.txt"],
            &["sh", "-c", "echo The app is running! && sleep 3600"],
            &["sh", "-c", "server &\nwait\n"],
            // The "keep the Pod running" of many a question and answer.
            &["/bin/bash", "-c", "--", "while true; do sleep 30; done;"],
            &["sleep", "3600"],
            &["/usr/bin/tail", "-f", "/dev/null"],
        ] {
            assert!(unhandled_sigterm(&argv(words)).is_some(), "{words:?}");
        }
    }

    #[test]
    fn a_trap_an_exec_or_a_server_last_may_handle_sigterm() {
        for words in [
            &["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"][..],
            &["sh", "-c", "envsubst < t > c && exec nginx -g 'daemon off;'"],
            &["sh", "-c", "migrate && python app.py"],
            &["nginx", "-g", "daemon off;"],
            &["sh", "script.sh"],
            &[],
        ] {
            assert_eq!(unhandled_sigterm(&argv(words)), None, "{words:?}");
        }
    }

    #[test]
    fn a_long_or_multi_line_command_is_shortened_for_the_notice() {
        let shown = unhandled_sigterm(&argv(&[
            "sh",
            "-c",
            "while true; do echo \"logging\" >> /opt/logs.txt; sleep 1; done",
        ]))
        .unwrap();
        assert_eq!(shown, "sh -c 'while true; do echo \"logging\" >>…");
        assert_eq!(
            unhandled_sigterm(&argv(&["sleep", "3600"])).unwrap(),
            "sleep 3600"
        );
        assert_eq!(shortened("sh -c a\nsleep 1"), "sh -c a…");
    }
}
