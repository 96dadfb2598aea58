//! `deploy/`: the files a cluster operator applies, checked as Kubernetes
//! would read them, and the scale-out they describe run locally:
//!
//! - every document of every `deploy/*.yaml` is a Kubernetes object with no
//!   field the API server would not know (kubectl's strict validation);
//! - the sweep Job's command line, run once per index with
//!   `JOB_COMPLETION_INDEX` set, then the merge Job's, give byte for byte the
//!   CSV of an unsharded sweep; also when a Pod is replaced part-way through
//!   its shard (it resumes from its checkpoint) or after finishing it.

use std::fs;
use std::path::{Path, PathBuf};

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::PersistentVolumeClaim;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::cli::common::{TempDir, podsim};

fn deploy_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy")
}

/// The documents of a YAML stream (split at `---` lines), as JSON values.
fn documents(path: &Path) -> Vec<Value> {
    let text = fs::read_to_string(path).unwrap();
    text.split("\n---")
        .map(|doc| doc.trim_start_matches("---"))
        .filter(|doc| {
            doc.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        })
        .map(|doc| serde_saphyr::from_str(doc).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}

/// `value` as a `T`, failing on any field `T` does not have.
fn strict<T: DeserializeOwned>(value: &Value, origin: &str) -> T {
    let mut unknown = Vec::new();
    let parsed = serde_ignored::deserialize(value.clone(), |path| unknown.push(path.to_string()))
        .unwrap_or_else(|e| panic!("{origin}: {e}"));
    assert!(
        unknown.is_empty(),
        "{origin}: fields Kubernetes does not know: {unknown:?}"
    );
    parsed
}

fn jobs() -> Vec<Job> {
    let mut jobs = Vec::new();
    for path in yaml_files() {
        for doc in documents(&path) {
            if doc["kind"] == "Job" {
                jobs.push(strict(&doc, &path.display().to_string()));
            }
        }
    }
    jobs
}

fn yaml_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(deploy_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_deploy_yaml_is_a_valid_kubernetes_object() {
    let files = yaml_files();
    assert!(files.len() >= 2, "{files:?}");
    for path in files {
        let origin = path.display().to_string();
        for doc in documents(&path) {
            let api = (doc["apiVersion"].as_str(), doc["kind"].as_str());
            match api {
                (Some("v1"), Some("PersistentVolumeClaim")) => {
                    strict::<PersistentVolumeClaim>(&doc, &origin);
                }
                (Some("batch/v1"), Some("Job")) => {
                    strict::<Job>(&doc, &origin);
                }
                other => panic!("{origin}: {other:?} is not an object this test knows"),
            }
        }
    }
    // A field misspelt in a manifest is caught.
    let typo: Value =
        serde_saphyr::from_str("apiVersion: batch/v1\nkind: Job\nspec:\n  completion: 8\n").unwrap();
    let result = std::panic::catch_unwind(|| strict::<Job>(&typo, "typo"));
    assert!(result.is_err());
}

#[test]
fn the_sweep_job_fails_fast_on_input_errors_and_retries_per_index() {
    let sweep = jobs()
        .into_iter()
        .find(|j| j.metadata.name.as_deref() == Some("podsim-sweep"))
        .unwrap();
    let spec = sweep.spec.unwrap();
    assert_eq!(spec.completion_mode.as_deref(), Some("Indexed"));
    assert_eq!(spec.pod_replacement_policy.as_deref(), Some("Failed"));
    assert!(spec.backoff_limit_per_index.is_some());
    let rules = spec.pod_failure_policy.unwrap().rules;
    let fail_job = rules.iter().find(|r| r.action == "FailJob").unwrap();
    let codes = fail_job.on_exit_codes.as_ref().unwrap();
    // podsim's exit codes: 1 an input error, 2 a usage error.
    assert_eq!(
        (codes.operator.as_str(), codes.values.as_slice()),
        ("In", &[1, 2][..])
    );
    assert_eq!(codes.container_name.as_deref(), Some("sweep"));
}

/// A container's arguments with the Job's mount points moved into `root`.
fn local_args(job: &Job, root: &Path) -> Vec<String> {
    let spec = job.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
    let args = spec.containers[0].args.clone().unwrap();
    let root = root.display().to_string();
    args.iter()
        .map(|a| {
            a.replace("/grid/", &format!("{root}/grid/"))
                .replace("/results/", &format!("{root}/results/"))
        })
        .collect()
}

/// The Jobs' volumes in a fresh folder: the ConfigMap (the grid and its
/// base side by side) at `grid/`, an empty `results/`.
fn volumes() -> TempDir {
    let dir = TempDir::new();
    let root = dir.path();
    fs::create_dir_all(root.join("grid")).unwrap();
    fs::create_dir_all(root.join("results")).unwrap();
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    fs::copy(scenarios.join("seed-grid.toml"), root.join("grid/grid.toml")).unwrap();
    fs::copy(
        scenarios.join("seed-sidecar.toml"),
        root.join("grid/seed-sidecar.toml"),
    )
    .unwrap();
    dir
}

fn named<'a>(jobs: &'a [Job], name: &str) -> &'a Job {
    jobs.iter()
        .find(|j| j.metadata.name.as_deref() == Some(name))
        .unwrap()
}

/// Runs the sweep Job's Pod of `index` in `root`.
fn shard_pod(sweep: &Job, root: &Path, index: i32) -> assert_cmd::assert::Assert {
    podsim()
        .args(local_args(sweep, root))
        .env("JOB_COMPLETION_INDEX", index.to_string())
        .assert()
        .success()
}

/// Runs the merge Job in `root`, and checks its CSV and manifest against an
/// unsharded sweep's.
fn merge_gives_the_unsharded_csv(jobs: &[Job], root: &Path) {
    podsim()
        .args(local_args(named(jobs, "podsim-merge"), root))
        .assert()
        .success();
    let whole = root.join("whole.csv");
    podsim()
        .args(["sweep", "--grid"])
        .arg(root.join("grid/grid.toml"))
        .arg("--out")
        .arg(&whole)
        .assert()
        .success();
    let merged = root.join("results/sweep.csv");
    assert!(fs::read(&merged).unwrap() == fs::read(&whole).unwrap());
    let manifest = |p: &Path| fs::read_to_string(format!("{}.manifest.json", p.display())).unwrap();
    assert_eq!(manifest(&merged), manifest(&whole));
}

#[test]
fn the_indexed_job_and_the_merge_give_the_unsharded_csv() {
    let dir = volumes();
    let jobs = jobs();
    let sweep = named(&jobs, "podsim-sweep");
    let completions = sweep.spec.as_ref().unwrap().completions.unwrap();
    for index in 0..completions {
        shard_pod(sweep, dir.path(), index);
    }
    merge_gives_the_unsharded_csv(&jobs, dir.path());
}

#[test]
fn a_replaced_shard_pod_continues_its_shard_and_a_finished_one_is_kept() {
    let dir = volumes();
    let root = dir.path();
    let jobs = jobs();
    let sweep = named(&jobs, "podsim-sweep");
    let completions = sweep.spec.as_ref().unwrap().completions.unwrap();
    for index in 0..completions {
        shard_pod(sweep, root, index);
    }
    // Pod 3 lost with its node after a checkpoint at run 9000 of its runs
    // 8100..10800 (21,600 runs in 8 slices), rubbish written after it.
    let shard = root.join("results/sweep.shard-3-of-8.csv");
    super::cli::resume::stopped_at(&shard, None, 9000, b"9000,app,\0\0");
    let replaced = shard_pod(sweep, root, 3);
    let stderr = String::from_utf8_lossy(&replaced.get_output().stderr).into_owned();
    assert!(
        stderr.contains("at run 9000: 900 of 2,700 rows kept from its checkpoint"),
        "{stderr}"
    );
    // Pod 5 finished, but its exit was lost: the replacement leaves the shard be.
    let finished = root.join("results/sweep.shard-5-of-8.csv");
    let before = fs::metadata(&finished).unwrap().modified().unwrap();
    shard_pod(sweep, root, 5).stdout(predicates::str::contains("is complete already (2,700 rows)"));
    assert_eq!(fs::metadata(&finished).unwrap().modified().unwrap(), before);
    merge_gives_the_unsharded_csv(&jobs, root);
}
