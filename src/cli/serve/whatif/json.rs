//! A what-if's edits made on a JSON manifest's values, which are then
//! written out again, indented as the text was (JSON keeps no comment to
//! lose, and `serde_json` keeps each object's keys in the order written).

use serde::Serialize;
use serde_json::{Map, Value, json};

use podsim::model::ContainerKind;
use podsim::scenario::manifest::Placed;

use super::{Edit, annotation};

/// `text` (one JSON value or several in a row) with `edits` made on the
/// workload `placed`.
pub fn apply(text: &str, placed: &Placed, edits: &[Edit]) -> Result<String, String> {
    let mut values = serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .collect::<Result<Vec<Value>, _>>()
        .map_err(|e| e.to_string())?;
    let mut template = values.get_mut(placed.document).ok_or("no such document")?;
    for segment in &placed.template {
        template = match template {
            Value::Array(items) => segment.parse().ok().and_then(|i: usize| items.get_mut(i)),
            Value::Object(fields) => fields.get_mut(segment),
            _ => None,
        }
        .ok_or("the Pod template is not where it was read")?;
    }
    for edit in edits {
        let key = annotation(edit).unwrap_or_default();
        match edit {
            Edit::Pod(_, None) => {
                if let Ok(annotations) = object_at(template, &["metadata", "annotations"]) {
                    annotations.remove(&key);
                }
            }
            Edit::Pod(_, Some(value)) | Edit::Container(_, _, value) | Edit::Service(_, _, value) => {
                object_at(template, &["metadata", "annotations"])?.insert(key, Value::String(value.text()));
            }
            Edit::PreStop(name, seconds) => {
                let container = container(template, name)?;
                let container = container
                    .as_object_mut()
                    .ok_or("a container that is not an object")?;
                let hook = object_at_map(container, &["lifecycle", "preStop"])?;
                hook.insert("sleep".into(), json!({ "seconds": seconds }));
            }
            Edit::Layout(name, to) => move_container(template, name, *to)?,
        }
    }
    let indent = text
        .lines()
        .find_map(|l| {
            (l.starts_with(' ') || l.starts_with('\t')).then(|| &l[..l.len() - l.trim_start().len()])
        })
        .unwrap_or("  ");
    let mut out = Vec::new();
    for value in &values {
        let mut writer = serde_json::Serializer::with_formatter(
            &mut out,
            serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes()),
        );
        value.serialize(&mut writer).map_err(|e| e.to_string())?;
        out.push(b'\n');
    }
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// The object at `path` under `value`, made (empty) where missing.
fn object_at<'v>(value: &'v mut Value, path: &[&str]) -> Result<&'v mut Map<String, Value>, String> {
    let object = value.as_object_mut().ok_or("the Pod template is not an object")?;
    object_at_map(object, path)
}

fn object_at_map<'v>(
    object: &'v mut Map<String, Value>,
    path: &[&str],
) -> Result<&'v mut Map<String, Value>, String> {
    let Some((first, rest)) = path.split_first() else {
        return Ok(object);
    };
    let slot = object.entry(first.to_string()).or_insert(Value::Null);
    if slot.is_null() {
        *slot = Value::Object(Map::new());
    }
    let inner = slot
        .as_object_mut()
        .ok_or_else(|| format!("{first} is not an object"))?;
    object_at_map(inner, rest)
}

/// The container `name` of the Pod template's spec.
fn container<'v>(template: &'v mut Value, name: &str) -> Result<&'v mut Value, String> {
    let spec = template.get_mut("spec").ok_or("the Pod template has no spec")?;
    let spec = spec.as_object_mut().ok_or("spec is not an object")?;
    spec.iter_mut()
        .filter(|(k, _)| *k == "initContainers" || *k == "containers")
        .filter_map(|(_, list)| list.as_array_mut())
        .flatten()
        .find(|c| c.get("name").and_then(Value::as_str) == Some(name))
        .ok_or_else(|| format!("no container \"{name}\" in the Pod template"))
}

/// Moves container `name` to the end of `initContainers` as a native
/// sidecar, or to the front of `containers`, as the YAML editor does.
fn move_container(template: &mut Value, name: &str, to: ContainerKind) -> Result<(), String> {
    let spec = template
        .get_mut("spec")
        .and_then(Value::as_object_mut)
        .ok_or("the Pod template has no spec")?;
    let (from, into) = match to {
        ContainerKind::Sidecar => ("containers", "initContainers"),
        _ => ("initContainers", "containers"),
    };
    let list = spec
        .get_mut(from)
        .and_then(Value::as_array_mut)
        .ok_or("no such list")?;
    let at = list
        .iter()
        .position(|c| c.get("name").and_then(Value::as_str) == Some(name))
        .ok_or_else(|| format!("no container \"{name}\" in {from}"))?;
    let mut item = list.remove(at);
    if list.is_empty() && from == "initContainers" {
        spec.remove(from);
    }
    let fields = item.as_object_mut().ok_or("a container that is not an object")?;
    match to {
        ContainerKind::Sidecar => fields.insert("restartPolicy".into(), json!("Always")),
        _ => fields.remove("restartPolicy"),
    };
    let target = spec.entry(into).or_insert_with(|| json!([]));
    let target = target
        .as_array_mut()
        .ok_or_else(|| format!("{into} is not a list"))?;
    match to {
        ContainerKind::Sidecar => target.push(item),
        _ => target.insert(0, item),
    }
    Ok(())
}
