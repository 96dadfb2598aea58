//! The field names Kubernetes knows at a place in a workload, so that an
//! unknown field (`livenesProbe`) can be answered with the one meant
//! (`livenessProbe`).
//!
//! The names come from k8s-openapi's own types, not from a copy: each type's
//! `Deserialize` hands its field list to `deserialize_struct`, so a
//! deserializer that only listens (and then refuses) learns it. What is
//! written here is only which type sits at which place.

use k8s_openapi::api::apps::v1::{
    DaemonSetSpec, DeploymentSpec, DeploymentStrategy, ReplicaSetSpec, RollingUpdateDeployment,
    StatefulSetSpec,
};
use k8s_openapi::api::batch::v1::{
    CronJobSpec, JobSpec, JobTemplateSpec, PodFailurePolicy, PodFailurePolicyRule,
};
use k8s_openapi::api::core::v1::{
    Container, ContainerPort, ContainerRestartRule, EnvVar, EphemeralContainer, ExecAction, GRPCAction,
    HTTPGetAction, Lifecycle, LifecycleHandler, Pod, PodSpec, PodTemplateSpec, Probe,
    ReplicationControllerSpec, ResourceRequirements, ServicePort, ServiceSpec, SleepAction, TCPSocketAction,
};
use k8s_openapi::api::policy::v1::PodDisruptionBudgetSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

/// The fields of the object at `parents` (field names from the object's
/// root, list indices left out) in an object of `kind`; `None` where
/// podsim does not know the type (a map, or a part it never reads).
pub(super) fn known_fields(kind: &str, parents: &[&str]) -> Option<&'static [&'static str]> {
    let (last, before) = match parents {
        [] => return Some(names::<Pod>()),
        [before @ .., last] => (*last, before.last().copied()),
    };
    let names = match (last, before) {
        ("metadata", _) => names::<ObjectMeta>(),
        ("spec", None) => return spec_of(kind),
        ("spec", Some("template")) => names::<PodSpec>(),
        ("spec", Some("jobTemplate")) => names::<JobSpec>(),
        ("template", _) => names::<PodTemplateSpec>(),
        ("jobTemplate", _) => names::<JobTemplateSpec>(),
        ("containers" | "initContainers", _) => names::<Container>(),
        ("ephemeralContainers", _) => names::<EphemeralContainer>(),
        ("livenessProbe" | "readinessProbe" | "startupProbe", _) => names::<Probe>(),
        ("lifecycle", _) => names::<Lifecycle>(),
        ("preStop" | "postStart", _) => names::<LifecycleHandler>(),
        ("httpGet", _) => names::<HTTPGetAction>(),
        ("exec", _) => names::<ExecAction>(),
        ("tcpSocket", _) => names::<TCPSocketAction>(),
        ("grpc", _) => names::<GRPCAction>(),
        ("sleep", _) => names::<SleepAction>(),
        ("ports", Some("spec")) => names::<ServicePort>(),
        ("ports", _) => names::<ContainerPort>(),
        ("env", _) => names::<EnvVar>(),
        ("resources", _) => names::<ResourceRequirements>(),
        ("restartPolicyRules", _) => names::<ContainerRestartRule>(),
        ("strategy", _) => names::<DeploymentStrategy>(),
        ("rollingUpdate", Some("strategy")) => names::<RollingUpdateDeployment>(),
        ("podFailurePolicy", _) => names::<PodFailurePolicy>(),
        ("rules", Some("podFailurePolicy")) => names::<PodFailurePolicyRule>(),
        _ => return None,
    };
    Some(names)
}

/// The `spec` of a top-level object of `kind`.
fn spec_of(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "Pod" => names::<PodSpec>(),
        "Deployment" => names::<DeploymentSpec>(),
        "StatefulSet" => names::<StatefulSetSpec>(),
        "DaemonSet" => names::<DaemonSetSpec>(),
        "ReplicaSet" => names::<ReplicaSetSpec>(),
        "ReplicationController" => names::<ReplicationControllerSpec>(),
        "Job" => names::<JobSpec>(),
        "CronJob" => names::<CronJobSpec>(),
        "PodDisruptionBudget" => names::<PodDisruptionBudgetSpec>(),
        "Service" => names::<ServiceSpec>(),
        _ => return None,
    })
}

/// The field list `T` asks `deserialize_struct` for.
fn names<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut heard: &'static [&'static str] = &[];
    // The listener always refuses, so the result is always an error.
    let _ = T::deserialize(Listener(&mut heard));
    heard
}

/// A deserializer that notes the field list of the struct asked for and
/// refuses to give any value.
struct Listener<'a>(&'a mut &'static [&'static str]);

impl<'de> Deserializer<'de> for Listener<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(de::Error::custom("only listening"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::known_fields;

    #[test]
    fn the_names_are_the_apis_own() {
        let container = known_fields("Pod", &["spec", "containers"]).unwrap();
        assert!(container.contains(&"livenessProbe") && container.contains(&"restartPolicy"));
        let spec = known_fields("Deployment", &["spec", "template", "spec"]).unwrap();
        assert!(spec.contains(&"terminationGracePeriodSeconds"));
        assert!(
            known_fields("Deployment", &["spec"])
                .unwrap()
                .contains(&"minReadySeconds")
        );
        let job = known_fields("CronJob", &["spec", "jobTemplate", "spec"]).unwrap();
        assert!(job.contains(&"backoffLimit"));
        assert!(known_fields("Pod", &[]).unwrap().contains(&"apiVersion"));
        // A map's keys are anyone's: no list to suggest from.
        assert_eq!(known_fields("Pod", &["metadata", "labels"]), None);
    }
}
