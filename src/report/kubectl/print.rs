//! How kubectl prints the watch lines: the names the API server gives a
//! Job's Pods (`generateName`'s five characters), the AGE column
//! (`duration.HumanDuration`) and the table padded to fit every Pod.
//!
//! Apart from the fold in `kubectl` because it is kubectl's and the API
//! server's wording, not the Pod's status: the Service's watch names its
//! replicas and prints its rows with it too.

use std::fmt::Write;

use super::{WatchLine, watch};
use crate::engine::SimTime;
use crate::model::{PodReport, PodSpec, name_hash};

/// `k8s.io/apimachinery/pkg/util/rand`'s alphabet: no vowels, no 0, 1, 3.
pub(crate) const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// The five characters the API server adds to a `generateName`, drawn from
/// `seed` where the server draws at random, so a name is the same on every
/// run.
pub fn name_suffix(seed: &str) -> String {
    let mut h = name_hash(seed);
    (0..5)
        .map(|_| {
            let c = ALPHANUMS[(h % ALPHANUMS.len() as u64) as usize] as char;
            h /= ALPHANUMS.len() as u64;
            c
        })
        .collect()
}

/// Every Pod of `report` (a run of `spec`, named `name`) with its watch
/// lines: the Pod, or each Pod a Job made, named as the Job controller's
/// `generateName` and the API server name them (`<job>-<5 chars>`), each
/// line's AGE from that Pod's creation. The Job's Pods come one after
/// another, so Pod by Pod is the order `kubectl get pods -w` prints.
pub fn pods(name: &str, spec: &PodSpec, report: &PodReport) -> Vec<(String, Vec<WatchLine>)> {
    let Some(job) = &report.job else {
        return vec![(name.to_string(), watch(spec, &report.trace))];
    };
    std::iter::once(&report.trace)
        .chain(&job.later)
        .enumerate()
        .map(|(n, trace)| {
            (
                format!("{name}-{}", name_suffix(&format!("{name}/{n}"))),
                watch(spec, trace),
            )
        })
        .collect()
}

/// kubectl's AGE column (`duration.HumanDuration`).
pub fn human_age(at: SimTime) -> String {
    let seconds = at.as_millis() / 1000;
    let (minutes, hours) = (seconds / 60, seconds / 3600);
    match () {
        _ if seconds < 120 => format!("{seconds}s"),
        _ if minutes < 10 && seconds.is_multiple_of(60) => format!("{minutes}m"),
        _ if minutes < 10 => format!("{minutes}m{}s", seconds % 60),
        _ if minutes < 180 => format!("{minutes}m"),
        _ if hours < 8 && minutes.is_multiple_of(60) => format!("{hours}h"),
        _ if hours < 8 => format!("{hours}h{}m", minutes % 60),
        _ if hours < 48 => format!("{hours}h"),
        _ if hours.is_multiple_of(24) || hours >= 24 * 8 => format!("{}d", hours / 24),
        _ => format!("{}d{}h", hours / 24, hours % 24),
    }
}

/// The lines of several Pods as kubectl prints them: one header, columns
/// padded to fit every Pod.
pub fn watch_text(pods: &[(String, Vec<WatchLine>)]) -> String {
    let name_width = pods.iter().map(|(n, _)| n.len()).max().unwrap_or(0).max(4);
    let status_width = pods
        .iter()
        .flat_map(|(_, l)| l)
        .map(|l| l.status.len())
        .max()
        .unwrap_or(0)
        .max(6);
    let restarts_width = pods
        .iter()
        .flat_map(|(_, l)| l)
        .map(|l| l.restarts_column().len())
        .max()
        .unwrap_or(0)
        .max(8);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<name_width$}   READY   {:<status_width$}   {:<restarts_width$}   AGE",
        "NAME", "STATUS", "RESTARTS"
    );
    for (name, lines) in pods {
        for l in lines {
            let (ready, status, restarts, age) = (&l.ready, &l.status, l.restarts_column(), human_age(l.at));
            let _ = writeln!(
                out,
                "{name:<name_width$}   {ready:<5}   {status:<status_width$}   {restarts:<restarts_width$}   {age}"
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_like_kubectl() {
        let age = |s: u64| human_age(SimTime(s * 1000));
        assert_eq!(
            [
                age(4),
                age(119),
                age(120),
                age(150),
                age(600),
                age(3 * 3600),
                age(3 * 3600 + 120),
                age(50 * 3600)
            ],
            ["4s", "119s", "2m", "2m30s", "10m", "3h", "3h2m", "2d2h"]
        );
    }
}
