//! What is wrong with an input, as typed data with the words that tell
//! it: one `Problem` per kind of refusal or notice, worded here once, so a
//! reader says what it found and the words stay the same wherever it is
//! found.
//!
//! Invariant: every kind's words are written in `message` (or, for those
//! that mention the timings file, `message_with`); a reader builds a
//! variant with its data, or, for what has no kind yet, `Message`. The
//! kinds of a TOML file's layout are in `written`, a grid axis's in `axis`.

use super::axis::{AtAxis, AxisWrong};
use super::unknown_word;
use super::written::{Expected, Found, Layout, Missing, NotLaidOut};

/// The kinds of file podsim reads, for "cannot read …".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// A scenario (TOML) or a Kubernetes manifest.
    Scenario,
    /// A sweep's grid file.
    Grid,
    /// A timings overlay for manifests.
    Timings,
}

impl Input {
    fn name(self) -> &'static str {
        match self {
            Input::Scenario => "scenario",
            Input::Grid => "grid",
            Input::Timings => "timings",
        }
    }
}

/// What is wrong, with the data each kind of problem needs to be told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The file could not be read; the `io::Error` is the diagnostic's source.
    Unreadable(Input),
    /// A grid file was given where a scenario belongs (it has `base`/`axes`).
    GridNotScenario {
        /// The key that gave it away.
        key: String,
    },
    /// A word that is not one of the valid ones: a key, a kind, a container name.
    Unknown(Box<Unknown>),
    /// A manifest left timings out, so podsim used its defaults: told once
    /// for the Pod, not once per container.
    AssumedTimings {
        /// Each key with the default used (`boot` 1 s, `drain` 0 s) and the
        /// containers it was used for.
        assumed: Vec<(String, crate::engine::SimDuration, Vec<String>)>,
    },
    /// A manifest's Pod never shuts down (no deletion, and its apps do not
    /// finish by themselves), so drains and preStop hooks never run.
    NeverDeleted {
        /// For a Job's Pod, which could also finish by its apps' `run`:
        /// the apps that never exit by themselves (empty where every app
        /// exits but one is restarted for ever); `None` for any other Pod.
        job: Option<Vec<String>>,
    },
    /// A Deployment behind a Service whose Pods nothing disrupts: no
    /// request can fail by a Pod's going away.
    NeverDisrupted,
    /// A Deployment behind a Service that no client sends requests to: its
    /// request counts are all 0, which reads as safe when nothing was tried.
    NoTraffic,
    /// A mesh's injector put this container in the Pod as its proxy, so
    /// podsim takes it as one: told, since it moves the exposure figures,
    /// with how to undo it.
    InjectedProxy {
        /// The proxy container's name.
        container: String,
        /// The mesh whose injector put it there.
        mesh: &'static str,
        /// The Pod annotation that says so.
        annotation: &'static str,
    },
    /// The Pod asks an admission webhook for containers it does not have
    /// yet (a manifest as written, before its injection): podsim runs it
    /// as written, and says so.
    NotInjected(Box<Injector>),
    /// The container's first process has no SIGTERM handler (a shell
    /// script, a `sleep`), so podsim lets it run until SIGKILL: told, since
    /// it moves the termination figures, with how to undo it.
    UnhandledSigterm {
        /// The container's name.
        container: String,
        /// Its command line, shortened.
        command: String,
    },
    /// The container's command line ends by itself (a `sleep 60; exit 88`
    /// script, a bare `sleep 3600`), so podsim reads its `run` and
    /// `exit_code` from it: told, since it moves every figure after it.
    ScriptedExit(Box<Scripted>),
    /// When a probe passes, as podsim runs it: read from the manifest, or
    /// assumed (from the end of the boot on) where it says nothing: told at
    /// the probe, since it decides kills and readiness.
    ProbeOutcome(Box<ProbeTold>),
    /// A field's value that is wrong, told after the field's path
    /// (`spec.replicas: …`).
    AtValue(Box<AtValue>),
    /// A key whose value is not the table, or list of tables, its format wants.
    NotLaidOut(Box<NotLaidOut>),
    /// A value of another type or shape than its key takes.
    Expected(Box<Expected>),
    /// A key that must be written and is not.
    Missing(Box<Missing>),
    /// What is wrong with one axis of a grid, told after its path.
    AtAxis(Box<AtAxis>),
    /// Anything else, in the reader's words (a broken rule, a syntax error
    /// from the TOML or YAML parser).
    Message(String),
}

impl From<String> for Problem {
    fn from(message: String) -> Problem {
        Problem::Message(message)
    }
}

impl From<&str> for Problem {
    fn from(message: &str) -> Problem {
        Problem::Message(message.to_string())
    }
}

/// A field's value that is wrong (boxed in `Problem`, as `Unknown` is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtValue {
    /// The field's path in its document, dotted (`spec.template.spec.containers[0].name`).
    pub path: String,
    /// What is wrong with its value.
    pub wrong: Wrong,
}

/// What is wrong with a field's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wrong {
    /// A number below 0 where the API wants 0 or more.
    Negative {
        /// The number written.
        value: i64,
        /// What to write instead (`0 or more seconds`), where the message says.
        write: Option<&'static str>,
    },
    /// A percentage above 100, which the API refuses.
    OverAHundred(u32),
    /// A word that is none of the valid ones.
    Unknown {
        /// What the word should have been (`restartPolicy`, `stop signal`).
        what: &'static str,
        /// The word as written.
        word: String,
        /// The words it could have been.
        valid: &'static [&'static str],
    },
    /// Anything else, in the reader's words.
    Message(String),
}

impl From<String> for Wrong {
    fn from(message: String) -> Wrong {
        Wrong::Message(message)
    }
}

impl From<&str> for Wrong {
    fn from(message: &str) -> Wrong {
        Wrong::Message(message.to_string())
    }
}

/// An admission webhook that adds containers to a Pod as it is created,
/// when an annotation of the Pod asks for them, as `Problem::NotInjected`
/// tells it (the manifest reader's table of webhooks is of these).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Injector {
    /// Whose webhook, as its users call it.
    pub project: &'static str,
    /// The annotation that asks for the injection ...
    pub annotation: &'static str,
    /// ... with this value.
    pub value: &'static str,
    /// The containers it adds, by the names it gives them.
    pub containers: &'static [&'static str],
    /// The command that writes the injected manifest, where the project has one.
    pub command: Option<&'static str>,
}

/// A command line that ends by itself, as `Problem::ScriptedExit` tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scripted {
    /// The container's name.
    pub container: String,
    /// Its command line, shortened.
    pub command: String,
    /// The sum of its sleeps.
    pub run: crate::engine::SimDuration,
    /// What its `exit` says, 0 without one.
    pub code: i32,
}

/// A probe's outcome over time, as `Problem::ProbeOutcome` tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeTold {
    /// The container's name.
    pub container: String,
    /// The probe's key in a scenario (`liveness_probe`).
    pub key: &'static str,
    /// What it checks, shortened (`cat /tmp/healthy`).
    pub check: String,
    /// What the manifest says and the window read from it (from, until
    /// after the boot); `None` where podsim assumes it passes.
    pub read: Option<(
        String,
        crate::engine::SimDuration,
        Option<crate::engine::SimDuration>,
    )>,
}

impl Problem {
    /// The message of a problem that mentions the timings file, with `flag`
    /// as the way to give one (the CLI names its flag; the library, `None`,
    /// says "a timings file"); `None` for the other problems.
    pub fn message_with(&self, flag: Option<&str>) -> Option<String> {
        let file = flag.unwrap_or("a timings file");
        match self {
            Problem::AssumedTimings { assumed } => {
                let one = match assumed.as_slice() {
                    [(_, _, names), rest @ ..] if names.len() == 1 => {
                        rest.iter().all(|(_, _, n)| n == names).then(|| names[0].clone())
                    }
                    _ => None,
                };
                let keys: Vec<String> = assumed
                    .iter()
                    .map(|(k, d, names)| match &one {
                        Some(_) => format!("{k} {d}"),
                        None => format!("{k} {d} for {}", names.join(", ")),
                    })
                    .collect();
                let container = one.as_deref().unwrap_or("<container>");
                let annotations: Vec<String> = assumed
                    .iter()
                    .map(|(k, _, _)| format!("podsim.dev/{container}.{k}"))
                    .collect();
                let whose = one.map_or(String::new(), |name| format!("container \"{name}\": "));
                Some(format!(
                    "{whose}podsim assumes {} (annotate {} or {})",
                    keys.join("; "),
                    annotations.join(", "),
                    match flag {
                        Some(flag) => format!("use {flag}"),
                        None => format!("give {file}"),
                    }
                ))
            }
            Problem::NeverDeleted { job } => Some(format!(
                "the Pod is never deleted{}; add podsim.dev/stop_after_ready (or [pod] stop_after_ready in \
                 {file}) to see shutdown",
                match job.as_deref() {
                    None => String::new(),
                    Some([]) =>
                        " and its apps never finish (give each a podsim.dev/<container>.run to see the \
                                 Job complete)"
                            .to_string(),
                    Some(apps) => {
                        let names: Vec<String> = apps.iter().map(|a| format!("\"{a}\"")).collect();
                        let runs: Vec<String> = apps.iter().map(|a| format!("podsim.dev/{a}.run")).collect();
                        format!(
                            " and its {} {} never {} (annotate {} to see the Job complete)",
                            if apps.len() == 1 { "app" } else { "apps" },
                            names.join(", "),
                            if apps.len() == 1 { "exits" } else { "exit" },
                            runs.join(", ")
                        )
                    }
                }
            )),
            Problem::NeverDisrupted => Some(format!(
                "no Pod of the Service is ever deleted, so no request fails by one going away; annotate \
                 podsim.dev/disruptions.0.after_ready: \"10s\" and podsim.dev/disruptions.0.delete: \"1\" (or \
                 write [[disruptions]] in {file}) to see one go"
            )),
            Problem::NoTraffic => Some(format!(
                "no client sends the Service requests, so none can fail; annotate podsim.dev/traffic.rate: \"50\" \
                 (requests per second; or [traffic] rate = 50 in {file}) to count them"
            )),
            Problem::InjectedProxy {
                container,
                mesh,
                annotation,
            } => Some(format!(
                "container \"{container}\": taken as the Pod's proxy ({mesh}'s injector put it there, \
                 annotation {annotation}), so an app alive while it is not counts as exposed; if it carries \
                 none of the apps' traffic, annotate podsim.dev/{container}.proxy: \"false\" (or write \
                 proxy = false under [containers.{container}] in {file})"
            )),
            Problem::UnhandledSigterm { container, command } => Some(format!(
                "container \"{container}\": its PID 1 (`{command}`) has no SIGTERM handler, and Linux \
                 delivers no unhandled signal to a container's PID 1, so podsim keeps it running until \
                 SIGKILL at the end of the grace period (drain \"never\"); if its image's entrypoint \
                 forwards signals (tini, dumb-init), annotate podsim.dev/{container}.drain: \"0s\" (or \
                 write drain under [containers.{container}] in {file})"
            )),
            Problem::ScriptedExit(scripted) => Some(format!(
                "container \"{container}\": its command line (`{command}`) exits {code} {after}, so podsim runs \
                 it for run = \"{run}\" after its boot, with exit_code {code}; annotate \
                 podsim.dev/{container}.run (or write run under [containers.{container}] in {file}) to change it",
                container = scripted.container,
                command = scripted.command,
                code = scripted.code,
                run = scripted.run,
                after = if scripted.run == crate::engine::SimDuration::ZERO {
                    "without sleeping".to_string()
                } else {
                    format!("after sleeping {}", scripted.run)
                }
            )),
            Problem::ProbeOutcome(told) => {
                let ProbeTold {
                    container,
                    key,
                    check,
                    read,
                } = told.as_ref();
                let how = format!(
                    "annotate podsim.dev/{container}.{key}.outcome, .pass_after or .pass_until (or write \
                     {key} = {{ pass_until = \"30s\" }} under [containers.{container}] in {file}) to change it"
                );
                let probe = match *key {
                    "startup_probe" => "startupProbe",
                    "readiness_probe" => "readinessProbe",
                    _ => "livenessProbe",
                };
                Some(match read {
                    None => format!(
                        "container \"{container}\": nothing in the manifest tells when its {probe} (`{check}`) \
                         fails, so podsim assumes it passes from the end of the boot on; {how}"
                    ),
                    Some((why, after, until)) => format!(
                        "container \"{container}\": its {probe} (`{check}`) passes while {why}, so podsim passes it \
                         from {after} {} after the boot; {how}",
                        until.map_or("on".to_string(), |until| format!("until {until}"))
                    ),
                })
            }
            _ => None,
        }
    }
}

/// A word that is not one of `valid` (boxed in `Problem`: it is the
/// largest kind, and diagnostics travel in every `Result` of the readers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unknown {
    /// Where the word was written, as a prefix (`container "web": `), or empty.
    pub context: String,
    /// What the word should have been (`key`, `kind`, `container`).
    pub what: String,
    /// The word as written.
    pub word: String,
    /// The words it could have been, for the suggestion and the list.
    pub valid: Vec<String>,
}

impl Problem {
    /// `word` is not one of `valid`, the `what` of this place.
    pub fn unknown(context: impl Into<String>, what: &str, word: &str, valid: Vec<String>) -> Problem {
        Problem::Unknown(Box::new(Unknown {
            context: context.into(),
            what: what.into(),
            word: word.into(),
            valid,
        }))
    }
}

impl Problem {
    /// `key`'s value is not laid out as `layout`; `write` shows how it is.
    pub fn not_laid_out(key: impl Into<String>, layout: Layout, write: impl Into<String>) -> Problem {
        Problem::NotLaidOut(Box::new(NotLaidOut {
            key: key.into(),
            layout,
            write: write.into(),
        }))
    }

    /// `key`'s value (after `context`) is not what it takes, `expected`;
    /// `found` tells what it is instead, where the reader knows.
    pub fn expected(
        context: impl Into<String>,
        key: impl Into<String>,
        expected: impl Into<String>,
        found: Option<Found>,
    ) -> Problem {
        Problem::Expected(Box::new(Expected {
            context: context.into(),
            key: key.into(),
            expected: expected.into(),
            found,
            then: "",
        }))
    }

    /// `key` (after `context`) must be written; `hint` says what it may be, or is empty.
    pub fn missing(context: impl Into<String>, key: impl Into<String>, hint: impl Into<String>) -> Problem {
        Problem::Missing(Box::new(Missing {
            context: context.into(),
            key: key.into(),
            hint: hint.into(),
        }))
    }

    /// What is wrong with the grid's axis at `path`.
    pub fn at_axis(path: impl Into<String>, wrong: AxisWrong) -> Problem {
        Problem::AtAxis(Box::new(AtAxis {
            path: path.into(),
            wrong,
        }))
    }

    /// The text after `origin:line:col: `.
    pub fn message(&self) -> String {
        match self {
            // The cause is the source: `{:#}` (anyhow's chain) prints it after.
            Problem::Unreadable(what) => format!("cannot read {}", what.name()),
            Problem::AssumedTimings { .. }
            | Problem::NeverDeleted { .. }
            | Problem::NeverDisrupted
            | Problem::NoTraffic
            | Problem::InjectedProxy { .. }
            | Problem::UnhandledSigterm { .. }
            | Problem::ScriptedExit(_)
            | Problem::ProbeOutcome(_) => self.message_with(None).unwrap_or_default(),
            Problem::NotInjected(injector) => {
                let containers: Vec<String> =
                    injector.containers.iter().map(|c| format!("\"{c}\"")).collect();
                let how = injector
                    .command
                    .map_or(String::new(), |command| format!(", or `{command}`"));
                format!(
                    "annotation {}: \"{}\" asks {}'s webhook to add {} to the Pod as it is created, and this \
                     manifest has none: podsim runs the Pod as written, without {}; to simulate what the kubelet \
                     runs, give podsim the Pod as created (`kubectl get pod NAME -o yaml`{how})",
                    injector.annotation,
                    injector.value,
                    injector.project,
                    containers.join(" and "),
                    if containers.len() == 1 { "it" } else { "them" },
                )
            }
            Problem::GridNotScenario { key } => {
                format!("unknown key \"{key}\": this looks like a grid file, not a scenario")
            }
            Problem::Unknown(u) => {
                let valid: Vec<&str> = u.valid.iter().map(String::as_str).collect();
                format!("{}{}", u.context, unknown_word(&u.what, &u.word, &valid))
            }
            Problem::AtValue(at) => {
                let path = &at.path;
                match &at.wrong {
                    Wrong::Negative { value, write } => {
                        let write = write.map_or(String::new(), |w| format!("; write {w}"));
                        format!("{path}: {value} is negative{write}")
                    }
                    Wrong::OverAHundred(p) => {
                        format!("{path}: \"{p}%\" is above 100%; write \"100%\" at most")
                    }
                    Wrong::Unknown { what, word, valid } => {
                        format!("{path}: {}", unknown_word(what, word, valid))
                    }
                    Wrong::Message(message) => format!("{path}: {message}"),
                }
            }
            Problem::NotLaidOut(n) => n.to_string(),
            Problem::Expected(e) => e.to_string(),
            Problem::Missing(m) => m.to_string(),
            Problem::AtAxis(a) => a.to_string(),
            Problem::Message(message) => message.clone(),
        }
    }
}
