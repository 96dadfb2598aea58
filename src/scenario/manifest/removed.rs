//! API versions Kubernetes no longer serves for the kinds podsim reads, and
//! the release that removed each, so an old manifest is told "removed in
//! Kubernetes 1.25" with the version to write instead of a bare mismatch.
//!
//! Source: the Deprecated API Migration Guide
//! (<https://kubernetes.io/docs/reference/using-api/deprecation-guide/>),
//! sections v1.16 (DaemonSet, Deployment, StatefulSet, ReplicaSet in
//! `extensions/v1beta1`, `apps/v1beta1`, `apps/v1beta2`) and v1.25
//! (CronJob `batch/v1beta1`, PodDisruptionBudget `policy/v1beta1`).
//! Invariant: one row per (kind, removed apiVersion), written once here.

/// `(kind, apiVersion, the Kubernetes 1.x release that stopped serving it)`.
const REMOVED: [(&str, &str, u32); 12] = [
    ("DaemonSet", "extensions/v1beta1", 16),
    ("DaemonSet", "apps/v1beta2", 16),
    ("Deployment", "extensions/v1beta1", 16),
    ("Deployment", "apps/v1beta1", 16),
    ("Deployment", "apps/v1beta2", 16),
    ("StatefulSet", "apps/v1beta1", 16),
    ("StatefulSet", "apps/v1beta2", 16),
    ("ReplicaSet", "extensions/v1beta1", 16),
    ("ReplicaSet", "apps/v1beta1", 16),
    ("ReplicaSet", "apps/v1beta2", 16),
    ("CronJob", "batch/v1beta1", 25),
    ("PodDisruptionBudget", "policy/v1beta1", 25),
];

/// Why `written` is not `kind`'s apiVersion, and what to write: `written`
/// is `None` where the manifest has none.
pub(super) fn wrong_version(kind: &str, written: Option<&str>, expected: &str) -> String {
    let Some(written) = written else {
        return format!("apiVersion is missing; write apiVersion: {expected}");
    };
    match REMOVED.iter().find(|(k, v, _)| *k == kind && *v == written) {
        Some((_, _, minor)) => format!(
            "apiVersion \"{written}\" of {kind} was removed in Kubernetes 1.{minor}; write apiVersion: {expected}"
        ),
        None => format!("apiVersion \"{written}\" is not the {kind}'s; write apiVersion: {expected}"),
    }
}

#[cfg(test)]
mod tests {
    use super::wrong_version;

    #[test]
    fn each_removed_version_names_its_release_and_the_others_do_not() {
        let cron = wrong_version("CronJob", Some("batch/v1beta1"), "batch/v1");
        assert_eq!(
            cron,
            "apiVersion \"batch/v1beta1\" of CronJob was removed in Kubernetes 1.25; write apiVersion: batch/v1"
        );
        let deployment = wrong_version("Deployment", Some("extensions/v1beta1"), "apps/v1");
        assert!(
            deployment.contains("was removed in Kubernetes 1.16"),
            "{deployment}"
        );
        // apps/v1beta1 never served DaemonSet: a plain mismatch, no release.
        let daemon = wrong_version("DaemonSet", Some("apps/v1beta1"), "apps/v1");
        assert_eq!(
            daemon,
            "apiVersion \"apps/v1beta1\" is not the DaemonSet's; write apiVersion: apps/v1"
        );
        assert_eq!(
            wrong_version("Pod", None, "v1"),
            "apiVersion is missing; write apiVersion: v1"
        );
    }
}
