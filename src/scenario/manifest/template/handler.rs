//! What a container's handlers say: how long its preStop and postStart
//! hooks last, where the manifest tells it (a `sleep`, an `exec` of
//! `sleep N`), and its probes in the model's units with Kubernetes'
//! defaults (R27).
//!
//! Invariant: a handler Kubernetes would reject (none, or two at once) is
//! refused here, at its place in the file; one whose duration the manifest
//! does not tell is `Hook::Unknown`, for the mapper to assume and notice.

use k8s_openapi::api::core::v1::{Container, LifecycleHandler, Probe as K8sProbe};

use super::command::{base_name, shell_script};
use super::pod::Mapper;
use crate::engine::SimDuration;
use crate::model::Probe;
use crate::scenario::diagnostic::{Diagnostic, Wrong};
use crate::scenario::duration::parse_duration;
use crate::scenario::manifest::yaml::dotted;

/// Which of a container's lifecycle hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handler {
    /// Runs before SIGTERM (R35); the grace period cuts it off (R38).
    PreStop,
    /// Runs right after the start and holds it, with no timeout (R65).
    PostStart,
}

impl Handler {
    /// Both, in the order their notices are told.
    pub const BOTH: [Handler; 2] = [Handler::PreStop, Handler::PostStart];

    /// The field under `lifecycle`.
    pub fn key(self) -> &'static str {
        match self {
            Handler::PreStop => "preStop",
            Handler::PostStart => "postStart",
        }
    }

    /// Its timing key, as annotations and the overlay write it.
    pub fn timing(self) -> &'static str {
        match self {
            Handler::PreStop => "pre_stop",
            Handler::PostStart => "post_start",
        }
    }

    /// `c`'s handler of this hook, if it has one.
    fn of(self, c: &Container) -> Option<&LifecycleHandler> {
        let lifecycle = c.lifecycle.as_ref()?;
        match self {
            Handler::PreStop => lifecycle.pre_stop.as_ref(),
            Handler::PostStart => lifecycle.post_start.as_ref(),
        }
    }
}

/// What a hook says about its own duration.
pub enum Hook {
    Absent,
    /// A `sleep` action or an `exec` of `sleep N`.
    Lasts(SimDuration),
    /// An `httpGet` or another `exec`: how long it takes is not written.
    Unknown(&'static str),
    /// A `tcpSocket` postStart: the kubelet fails it at once (R66).
    Fails,
    /// A postStart `exec` of a command that waits for its own container to
    /// answer (named here), as a mesh proxy's does so that the apps after it
    /// start only once it serves: it lasts until the boot is over.
    UntilBooted(&'static str),
}

/// The commands a mesh injects as its proxy's postStart hook to hold the
/// apps until the proxy is ready: Istio's `holdApplicationUntilProxyStarts`
/// (`pilot-agent wait`, which polls the proxy's readiness) and Linkerd's
/// `config.linkerd.io/proxy-await` (`linkerd-await`, the same).
fn waits_for_itself(command: &[String]) -> Option<&'static str> {
    match command {
        [program, sub, ..] if base_name(program) == "pilot-agent" && sub == "wait" => {
            Some("pilot-agent wait")
        }
        [program, ..] if base_name(program) == "linkerd-await" => Some("linkerd-await"),
        _ => None,
    }
}

impl Mapper<'_> {
    /// A Kubernetes probe in the model's units, Kubernetes' defaults for what
    /// it leaves out (R27); its handler (exec, httpGet, …) does not matter:
    /// the container answers it once healthy.
    pub(super) fn probe(&self, p: &K8sProbe, at: &[&str]) -> Result<Probe, Diagnostic> {
        let handlers = [
            p.exec.is_some(),
            p.http_get.is_some(),
            p.tcp_socket.is_some(),
            p.grpc.is_some(),
        ];
        let problem = match handlers.iter().filter(|set| **set).count() {
            0 => Some("has no handler; give it one of exec, httpGet, tcpSocket, grpc"),
            1 => None,
            _ => Some("has more than one handler; Kubernetes allows one"),
        };
        if let Some(problem) = problem {
            return Err(self.error(at, format!("{}: the probe {problem}", dotted(&self.full(at)))));
        }
        let d = Probe::default();
        let seconds =
            |value: Option<i64>, key: &str, default: SimDuration| -> Result<SimDuration, Diagnostic> {
                match value {
                    None => Ok(default),
                    Some(v) if v < 0 => {
                        let wrong = Wrong::Negative {
                            value: v,
                            write: None,
                        };
                        Err(self.value_error(&[at, &[key]].concat(), wrong))
                    }
                    // Past the clock (an int64 grace): told in `notices`.
                    Some(v) => Ok(SimDuration::from_secs_saturating(v as u64)),
                }
            };
        let count = |value: Option<i32>, key: &str, default: u32| -> Result<u32, Diagnostic> {
            match value {
                None => Ok(default),
                Some(v) if v < 1 => {
                    Err(self.value_error(&[at, &[key]].concat(), format!("{v}: must be at least 1")))
                }
                Some(v) => Ok(v as u32),
            }
        };
        Ok(Probe {
            initial_delay: seconds(
                p.initial_delay_seconds.map(i64::from),
                "initialDelaySeconds",
                d.initial_delay,
            )?,
            period: seconds(p.period_seconds.map(i64::from), "periodSeconds", d.period)?,
            timeout: seconds(p.timeout_seconds.map(i64::from), "timeoutSeconds", d.timeout)?,
            success_threshold: count(p.success_threshold, "successThreshold", d.success_threshold)?,
            failure_threshold: count(p.failure_threshold, "failureThreshold", d.failure_threshold)?,
            termination_grace_period: match p.termination_grace_period_seconds {
                None => None,
                Some(v) => Some(seconds(Some(v), "terminationGracePeriodSeconds", d.timeout)?),
            },
            // What the probe finds is no manifest field: annotations say it.
            outcome: d.outcome,
            pass_after: d.pass_after,
            pass_until: d.pass_until,
        })
    }

    /// The hook's duration where the manifest tells it. The API bounds a
    /// `sleep` by the grace period for both hooks (`validateHandler`, R39).
    pub(super) fn hook(
        &self,
        c: &Container,
        path: &[String],
        which: Handler,
        grace: SimDuration,
    ) -> Result<Hook, Diagnostic> {
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        let path = path.as_slice();
        let Some(handler) = which.of(c) else {
            return Ok(Hook::Absent);
        };
        let key = which.key();
        let at = |rest: &[&'static str]| [path, rest].concat();
        let LifecycleHandler {
            exec,
            http_get,
            sleep,
            tcp_socket,
        } = handler;
        let actions = [
            exec.is_some(),
            http_get.is_some(),
            sleep.is_some(),
            tcp_socket.is_some(),
        ];
        match actions.iter().filter(|set| **set).count() {
            0 => {
                return Err(self.error(
                    &at(&["lifecycle", key]),
                    format!(
                        "container \"{}\": lifecycle.{key} has no action; give it one of exec, httpGet, sleep",
                        c.name
                    ),
                ));
            }
            1 => {}
            _ => {
                return Err(self.error(
                    &at(&["lifecycle", key]),
                    format!(
                        "container \"{}\": lifecycle.{key} has more than one action; Kubernetes allows one",
                        c.name
                    ),
                ));
            }
        }
        if let Some(sleep) = sleep {
            let seconds = sleep.seconds;
            let grace_secs = grace.as_millis() / 1000;
            if seconds < 0 || seconds as u64 > grace_secs {
                return Err(self.value_error(
                    &at(&["lifecycle", key, "sleep", "seconds"]),
                    format!(
                        "container \"{}\": a {key} sleep of {seconds} s is not allowed with \
                         terminationGracePeriodSeconds {grace_secs}; Kubernetes wants 0 to {grace_secs} \
                         seconds (R39)",
                        c.name
                    ),
                ));
            }
            return Ok(Hook::Lasts(SimDuration::from_secs(seconds as u64)));
        }
        if let Some(exec) = exec {
            let command = exec.command.as_deref().unwrap_or_default();
            if which == Handler::PostStart
                && let Some(name) = waits_for_itself(command)
            {
                return Ok(Hook::UntilBooted(name));
            }
            let Some(duration) = sleep_command(command) else {
                return Ok(Hook::Unknown("exec"));
            };
            return Ok(Hook::Lasts(duration));
        }
        if http_get.is_some() {
            return Ok(Hook::Unknown("httpGet"));
        }
        // A tcpSocket, which the kubelet fails at once (told by `hook_notice`).
        Ok(match which {
            Handler::PreStop => Hook::Lasts(SimDuration::ZERO),
            Handler::PostStart => Hook::Fails,
        })
    }

    /// What a valid hook of `c` (as `hook` read it) is worth telling: a
    /// preStop `exec` of a sleep longer than the grace period, which the
    /// kubelet cuts off (R38); a `tcpSocket`, which it fails at once.
    pub(super) fn hook_notice(
        &self,
        c: &Container,
        path: &[String],
        which: Handler,
        grace: SimDuration,
    ) -> Option<Diagnostic> {
        let handler = which.of(c)?;
        let key = which.key();
        let at = |rest: &[&'static str]| {
            let mut at: Vec<&str> = path.iter().map(String::as_str).collect();
            at.extend(rest);
            at
        };
        if let Some(exec) = &handler.exec {
            let command = exec.command.as_deref().unwrap_or_default();
            let duration = sleep_command(command).filter(|d| which == Handler::PreStop && *d > grace)?;
            return Some(self.notice(
                &at(&["lifecycle", key]),
                format!(
                    "container \"{}\": its preStop runs {duration}, longer than the grace period {grace}; \
                     the kubelet stops waiting for it at {grace} (R38)",
                    c.name
                ),
            ));
        }
        handler.tcp_socket.as_ref()?;
        let effect = match which {
            Handler::PreStop => "podsim runs no preStop",
            Handler::PostStart => "the container is killed after every start (FailedPostStartHook, R66)",
        };
        Some(self.notice(
            &at(&["lifecycle", key, "tcpSocket"]),
            format!(
                "container \"{}\": tcpSocket is not a supported hook action; the kubelet fails the hook at \
                 once, so {effect}",
                c.name
            ),
        ))
    }
}

/// How long `command` sleeps, if all it does is `sleep N`: `["sleep", "5"]`,
/// `["/bin/sh", "-c", "sleep 10"]`. N is seconds, or a duration (`"1m"`).
fn sleep_command(command: &[String]) -> Option<SimDuration> {
    let words: Vec<&str> = match shell_script(command) {
        Some(script) => script.split_whitespace().collect(),
        None => command.iter().map(String::as_str).collect(),
    };
    match words.as_slice() {
        [sleep, n] if base_name(sleep) == "sleep" => {
            let unitless = n.bytes().all(|b| b.is_ascii_digit() || b == b'.');
            parse_duration(&if unitless { format!("{n}s") } else { n.to_string() }).ok()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(command: &[&str]) -> Option<u64> {
        let command: Vec<String> = command.iter().map(|s| s.to_string()).collect();
        sleep_command(&command).map(SimDuration::as_millis)
    }

    #[test]
    fn exec_of_sleep_is_read_in_its_usual_spellings() {
        assert_eq!(words(&["/bin/sh", "-c", "sleep 10"]), Some(10_000));
        assert_eq!(words(&["sh", "-c", " sleep  2.5 "]), Some(2_500));
        assert_eq!(words(&["sleep", "5"]), Some(5_000));
        assert_eq!(words(&["/bin/sleep", "1m"]), Some(60_000));
        assert_eq!(words(&["/bin/sh", "-c", "nginx -s quit; sleep 5"]), None);
        assert_eq!(words(&["sleep"]), None);
        assert_eq!(words(&["sleep", "forever"]), None);
    }

    #[test]
    fn a_mesh_proxys_wait_for_itself_is_known_by_its_command() {
        let waits = |command: &[&str]| {
            let command: Vec<String> = command.iter().map(|s| s.to_string()).collect();
            waits_for_itself(&command)
        };
        assert_eq!(waits(&["pilot-agent", "wait"]), Some("pilot-agent wait"));
        assert_eq!(
            waits(&["/usr/local/bin/pilot-agent", "wait", "--timeoutSeconds=60"]),
            Some("pilot-agent wait")
        );
        assert_eq!(
            waits(&["/usr/lib/linkerd/linkerd-await", "--timeout=2m"]),
            Some("linkerd-await")
        );
        assert_eq!(waits(&["pilot-agent", "request", "POST", "drain"]), None);
        assert_eq!(waits(&["sleep", "5"]), None);
    }
}
