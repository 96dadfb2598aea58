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

use crate::engine::SimDuration;

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
    plain.then(|| briefly(argv))
}

/// `argv` for a notice: as a shell would take it back, shortened.
pub fn briefly(argv: &[String]) -> String {
    shortened(&shown(argv))
}

/// Commands that take no time worth simulating and, as podsim reads them,
/// succeed: what a script runs between its sleeps, or a container runs
/// alone (`rev /input/data.txt`, the website's Indexed Job's worker).
const INSTANT: [&str; 15] = [
    "echo", "printf", "date", "touch", "rm", "cat", "true", ":", "mkdir", "cp", "ls", "env", "hostname",
    "pwd", "rev",
];

/// How a process that runs only plain commands and `sleep`s ends: `code`
/// after `run`, the sum of its sleeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptedExit {
    pub run: SimDuration,
    pub code: i32,
}

/// How the first process of `argv` ends, if its command line says so
/// plainly: a bare `sleep N` or `INSTANT` program (`:` is the shell's
/// alone), or a shell script of commands from `INSTANT`,
/// `sleep`s with literal durations and an `exit K`, joined by `;`, `&&` or
/// new lines (`echo "Hello world!" && sleep 5 && exit 42`). A variable or
/// a substitution of an `INSTANT` command may stand in an argument
/// (`touch /data/${MY_POD_NAME} && echo $(date) >> /data/${MY_POD_NAME}`):
/// neither makes a plain command wait, and in a `sleep`'s or an `exit`'s
/// argument or as the program it is no literal, so the run is unknown.
/// Anything else — a loop, a pipe, another substitution, `||`, a
/// background job, `sleep infinity`, a program podsim does not know — may
/// run for ever: `None`.
pub fn scripted_exit(argv: &[String]) -> Option<ScriptedExit> {
    let Some(script) = shell_script(argv) else {
        return match argv.split_first() {
            Some((program, args)) if base_name(program) == "sleep" => {
                sleeps(args.iter().map(String::as_str)).map(|run| ScriptedExit { run, code: 0 })
            }
            Some((program, _)) if base_name(program) != ":" && INSTANT.contains(&base_name(program)) => {
                Some(ScriptedExit {
                    run: SimDuration::ZERO,
                    code: 0,
                })
            }
            _ => None,
        };
    };
    let mut run = SimDuration::ZERO;
    for command in commands(script)? {
        let Some((&program, args)) = command.split_first() else {
            continue;
        };
        match base_name(program) {
            "sleep" => run = run + sleeps(args.iter().copied())?,
            "exit" => {
                let code = args.first().map_or(Some(0), |c| c.parse::<i32>().ok())?;
                return (0..=255).contains(&code).then_some(ScriptedExit { run, code });
            }
            instant if INSTANT.contains(&instant) => {}
            _ => return None,
        }
    }
    Some(ScriptedExit { run, code: 0 })
}

/// The commands of `script`, each as its words (quoted ones kept whole,
/// their quotes dropped), if it has none of the syntax `scripted_exit`
/// leaves alone.
pub(super) fn commands(script: &str) -> Option<Vec<Vec<&str>>> {
    let mut commands = vec![Vec::new()];
    let mut chars = script.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            c if c.is_whitespace() && c != '\n' => {}
            ';' | '\n' => commands.push(Vec::new()),
            '&' if chars.next_if(|&(_, c)| c == '&').is_some() => commands.push(Vec::new()),
            '$' | '`' => {
                let end = at + expansion(&script[at..])?;
                commands.last_mut()?.push(&script[at..end]);
                while chars.next_if(|&(i, _)| i < end).is_some() {}
            }
            '|' | '&' | '(' | ')' | '{' | '}' | '\\' => return None,
            '"' | '\'' => {
                let end = script[at + 1..].find(c)? + at + 1;
                let quoted = &script[at + 1..end];
                if c == '"' && !plain_within_quotes(quoted) {
                    return None;
                }
                commands.last_mut()?.push(quoted);
                while chars.next_if(|&(i, _)| i <= end).is_some() {}
            }
            _ => {
                let end = script[at..]
                    .find(|c: char| c.is_whitespace() || ";&|()`$\"'".contains(c))
                    .map_or(script.len(), |n| at + n);
                commands.last_mut()?.push(&script[at..end]);
                while chars.next_if(|&(i, _)| i < end).is_some() {}
            }
        }
    }
    let loops = [
        "while", "until", "for", "if", "do", "done", "then", "fi", "case", "trap", "exec",
    ];
    let has_loop = commands.iter().flatten().any(|w| loops.contains(w));
    (!has_loop).then_some(commands)
}

/// The length of the expansion that opens `text` (at a `$` or a
/// backquote), if it cannot make a plain command wait: a variable (`$HOME`,
/// `${MY_POD_NAME}`, `$1`, `$?`) or a substitution whose commands are all
/// `INSTANT` (`$(date)`, `` `hostname` ``). What it expands to is kept as
/// one word starting with `$` or a backquote, which no program name,
/// `sleep` duration or `exit` code reads as its own.
fn expansion(text: &str) -> Option<usize> {
    let instant = |inner: &str| {
        commands(inner).is_some_and(|commands| {
            commands
                .iter()
                .filter_map(|c| c.first())
                .all(|program| INSTANT.contains(&base_name(program)))
        })
    };
    let rest = &text[1..];
    if text.starts_with('`') {
        let end = rest.find('`')?;
        return instant(&rest[..end]).then_some(end + 2);
    }
    if let Some(inner) = rest.strip_prefix('(') {
        // `$((` is arithmetic; a nested `(` is left alone.
        let end = inner.find(['(', ')'])?;
        let closed = inner[end..].starts_with(')');
        return (closed && instant(&inner[..end])).then_some(end + 3);
    }
    if let Some(inner) = rest.strip_prefix('{') {
        let end = inner.find('}')?;
        return is_name(&inner[..end]).then_some(end + 3);
    }
    let name = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    match rest[name..].chars().next() {
        _ if name > 0 => Some(name + 1),
        Some(special) if "@*#?$!-".contains(special) => Some(2),
        _ => None,
    }
}

/// A shell variable's name (`MY_POD_NAME`, `1`).
fn is_name(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether a double-quoted string expands only what `expansion` takes:
/// inside double quotes a shell still runs `$(...)` and backquotes.
fn plain_within_quotes(quoted: &str) -> bool {
    let mut at = 0;
    while let Some(n) = quoted[at..].find(['$', '`']) {
        match expansion(&quoted[at + n..]) {
            Some(len) => at += n + len,
            None => return false,
        }
    }
    true
}

/// The time `sleep ARGS` sleeps: the sum of its arguments, each a number
/// of seconds with an optional `s`, `m`, `h` or `d` (GNU and busybox).
pub(super) fn sleeps<'a>(args: impl Iterator<Item = &'a str>) -> Option<SimDuration> {
    let mut total = 0.0;
    let mut any = false;
    for arg in args {
        let (number, unit) = match arg.char_indices().last()? {
            (i, 's') => (&arg[..i], 1.0),
            (i, 'm') => (&arg[..i], 60.0),
            (i, 'h') => (&arg[..i], 3600.0),
            (i, 'd') => (&arg[..i], 86_400.0),
            _ => (arg, 1.0),
        };
        let seconds: f64 = number.parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0)?;
        total += seconds * unit;
        any = true;
    }
    let ms = (total * 1000.0).round();
    (any && ms < 1e15).then(|| SimDuration::from_millis(ms as u64))
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

    fn exits(words: &[&str]) -> Option<(u64, i32)> {
        scripted_exit(&argv(words)).map(|e| (e.run.as_millis(), e.code))
    }

    /// kubernetes/website's restart-all-containers watcher, its Pod
    /// failure policy Job, its CronJob and its many `sleep 3600` Pods.
    #[test]
    fn a_script_of_sleeps_and_plain_commands_ends_when_its_sleeps_are_over() {
        assert_eq!(exits(&["sh", "-c", "sleep 60; exit 88"]), Some((60_000, 88)));
        assert_eq!(
            exits(&["bash", "-c", "echo \"Hello world!\" && sleep 5 && exit 42"]),
            Some((5000, 42))
        );
        assert_eq!(
            exits(&["/bin/sh", "-c", "date; echo Hello from the Kubernetes cluster"]),
            Some((0, 0))
        );
        assert_eq!(
            exits(&["sh", "-c", "echo 'a; b' && sleep 1.5\nsleep 2m"]),
            Some((121_500, 0))
        );
        assert_eq!(exits(&["sleep", "3600"]), Some((3_600_000, 0)));
        // kubernetes/website `application/job/indexed-job.yaml`'s worker.
        assert_eq!(exits(&["rev", "/input/data.txt"]), Some((0, 0)));
        assert_eq!(exits(&["/bin/echo", "hello"]), Some((0, 0)));
        assert_eq!(exits(&["sleep", "1h", "30"]), Some((3_630_000, 0)));
        assert_eq!(exits(&["sh", "-c", "exit"]), Some((0, 0)));
        // `exit` ends the script: what follows never runs.
        assert_eq!(
            exits(&["sh", "-c", "sleep 1; exit 3; sleep 100"]),
            Some((1000, 3))
        );
    }

    /// GoogleCloudPlatform/gcs-fuse-csi-driver `examples/batch-job/job.yaml`:
    /// a variable or a `$(date)` in a plain command's arguments makes it no
    /// slower (POSIX.1-2017 2.6.2, 2.6.3: expansions replace the word; only
    /// the substituted command runs).
    #[test]
    fn a_variable_or_a_plain_substitution_in_an_argument_keeps_the_script_plain() {
        assert_eq!(
            exits(&[
                "/bin/sh",
                "-c",
                "touch /data/${MY_POD_NAME} && echo $(date) >> /data/${MY_POD_NAME} && sleep 10",
            ]),
            Some((10_000, 0))
        );
        assert_eq!(
            exits(&["/bin/sh", "-c", "sleep 10 && cat /data/${MY_POD_NAME}"]),
            Some((10_000, 0))
        );
        assert_eq!(
            exits(&["sh", "-c", "echo \"$HOSTNAME at `date +%s`: $1 $?\"; exit 2"]),
            Some((0, 2))
        );
    }

    /// What an expansion could make wait, or where it stands for a number
    /// podsim must read, leaves the run unknown.
    #[test]
    fn a_substitution_that_may_wait_or_a_variable_podsim_must_read_has_no_end_to_read() {
        for script in [
            "sleep $DELAY",
            "sleep ${DELAY}",
            "sleep \"$DELAY\"",
            "exit $CODE",
            "$CMD --serve",
            "${CMD}",
            "echo $(curl -s http://config)",
            "echo \"$(sleep 100)\"",
            "echo `wget x`",
            "echo $((1 + 2))",
            "echo ${X:-$(serve)}",
            "echo $(for i in 1 2; do date; done)",
            "echo $",
        ] {
            assert_eq!(exits(&["sh", "-c", script]), None, "{script}");
        }
    }

    #[test]
    fn a_loop_a_pipe_a_server_or_an_endless_sleep_has_no_end_to_read() {
        for words in [
            &["sh", "-c", "while true; do sleep 1; done"][..],
            &["sh", "-c", "sleep infinity"],
            &["sleep", "infinity"],
            &["sleep"],
            // `:` is a shell builtin, no program the runtime can start.
            &[":"],
            &["sh", "-c", "tail -F /var/log/app.log"],
            &["sh", "-c", "cat /config/app.conf | grep x"],
            &["sh", "-c", "sleep $DELAY"],
            &["sh", "-c", "sleep 1 || exit 1"],
            &["sh", "-c", "server & sleep 5"],
            &["sh", "-c", "migrate && python app.py"],
            &["sh", "-c", "if [ -f /x ]; then exit 0; fi"],
            &["sh", "-c", "exit 300"],
            &["sh", "-c", "echo \"unclosed"],
            &["nginx"],
            &[],
        ] {
            assert_eq!(exits(words), None, "{words:?}");
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
