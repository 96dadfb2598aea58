//! Tests of `yaml`.

use super::*;
use k8s_openapi::api::core::v1::Pod;

const TWO: &str = "# leading comment\napiVersion: v1\nkind: Service\n---\napiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: web\n    image: nginx\n";

fn yaml(text: &str) -> Stream<'_> {
    Stream::parse(text, "x.yaml", Syntax::Yaml).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn finds_documents_and_the_place_of_every_node() {
    let s = yaml(TWO);
    assert_eq!(s.documents.len(), 2);
    assert_eq!(s.documents[0].scalar(&["kind"]), Some("Service"));
    let pod = &s.documents[1];
    assert_eq!(pod.scalar(&["spec", "containers", "0", "name"]), Some("web"));
    assert_eq!(
        s.line_col(pod.offset(&["spec", "containers", "0", "name"])),
        "9:5"
    );
    assert_eq!(
        s.line_col(pod.value_offset(&["spec", "containers", "0", "name"])),
        "9:11"
    );
    // Not written: the nearest ancestor that was.
    assert_eq!(
        s.line_col(pod.offset(&["spec", "containers", "0", "lifecycle"])),
        "9:5"
    );
}

#[test]
fn a_document_parses_with_the_positions_of_the_whole_stream() {
    let text = TWO.replace("image: nginx", "image: [nginx");
    let e = Stream::parse(&text, "x.yaml", Syntax::Yaml)
        .map(|_| ())
        .unwrap_err();
    assert!(e.to_string().starts_with("x.yaml:1"), "{e}");
    let text = TWO.replace("containers:\n", "containers: 3\n  x:\n");
    let s = yaml(&text);
    let e = s.parse_node::<Pod>(&s.documents[1], &[]).map(|_| ()).unwrap_err();
    assert!(e.to_string().starts_with("x.yaml:8:"), "{e}");
}

#[test]
fn unknown_fields_come_back_as_paths() {
    let text = TWO.replace("image: nginx", "imgae: nginx");
    let s = yaml(&text);
    let (_, unknown) = s.parse_node::<Pod>(&s.documents[1], &[]).unwrap();
    assert_eq!(dotted(&unknown[0]), "spec.containers[0].imgae");
}

/// `kubectl get -o yaml` of two Pods: each item parses alone, at its
/// own lines, its unknown fields under `items[i]`.
const LIST: &str = "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  spec:\n    containers:\n    - name: a\n      image: nginx\n- apiVersion: v1\n  kind: Pod\n  spec:\n    containers:\n    - name: b\n      imgae: nginx\nkind: List\n";

#[test]
fn an_item_of_a_list_parses_on_its_own_with_its_paths() {
    let s = yaml(LIST);
    let doc = &s.documents[0];
    let (first, unknown) = s.parse_node::<Pod>(doc, &["items", "0"]).unwrap();
    assert_eq!(first.spec.unwrap().containers[0].name, "a");
    assert!(unknown.is_empty());
    let (second, unknown) = s.parse_node::<Pod>(doc, &["items", "1"]).unwrap();
    assert_eq!(second.spec.unwrap().containers[0].name, "b");
    assert_eq!(dotted(&unknown[0]), "items[1].spec.containers[0].imgae");
    assert_eq!(
        s.line_col(doc.offset(&["items", "1", "spec", "containers", "0", "imgae"])),
        "14:7"
    );
}

#[test]
fn json_values_are_documents_with_the_positions_of_the_file() {
    let text = "{\"kind\": \"Pod\",\n \"spec\": {\"containers\": [{\"name\": \"a\", \"image\": \"x\"}]}}\n{\"kind\":\"Job\"}\n";
    let s = Stream::parse(text, "x.json", Syntax::Json).unwrap();
    assert_eq!(s.documents.len(), 2);
    assert_eq!(s.documents[1].scalar(&["kind"]), Some("Job"));
    let (pod, _) = s.parse_node::<Pod>(&s.documents[0], &[]).unwrap();
    assert_eq!(pod.spec.unwrap().containers[0].image.as_deref(), Some("x"));
    assert_eq!(
        s.line_col(s.documents[0].value_offset(&["spec", "containers", "0", "name"])),
        "2:35"
    );
    let e = Stream::parse("{\"kind\": \"Pod\",\n}", "x.json", Syntax::Json)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.json:2:1: invalid JSON: a comma before a closing bracket (JSON allows no trailing comma)"
    );
}

/// serde_json counts columns in bytes: `é` is two of them, one column.
#[test]
fn issue_16_a_json_error_after_a_multibyte_character_is_placed_in_characters() {
    let ascii = Stream::parse("{\"a\": \"xx\n\"}", "x.json", Syntax::Json)
        .map(|_| ())
        .unwrap_err();
    let accent = Stream::parse("{\"a\": \"é\n\"}", "x.json", Syntax::Json)
        .map(|_| ())
        .unwrap_err();
    // Both point at the string's last character, before the line break.
    assert_eq!((ascii.position, accent.position), (Some((1, 9)), Some((1, 8))));
}

#[test]
fn type_errors_name_the_field_and_what_to_write() {
    let text = TWO.replace(
        "  containers:",
        "  terminationGracePeriodSeconds: 2.5\n  containers:",
    );
    let s = yaml(&text);
    let e = s.parse_node::<Pod>(&s.documents[1], &[]).map(|_| ()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.yaml:8:34: spec.terminationGracePeriodSeconds: 2.5 is not a whole number of seconds; \
         Kubernetes keeps terminationGracePeriodSeconds in whole seconds: write 2 or 3"
    );
    let text = TWO.replace(
        "  containers:",
        "  terminationGracePeriodSeconds: soon\n  containers:",
    );
    let s = yaml(&text);
    let e = s.parse_node::<Pod>(&s.documents[1], &[]).map(|_| ()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.yaml:8:34: spec.terminationGracePeriodSeconds: expected a whole number, not \"soon\""
    );
    let text = TWO.replace("  containers:\n", "  containers: web\n  x:\n");
    let s = yaml(&text);
    let e = s.parse_node::<Pod>(&s.documents[1], &[]).map(|_| ()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.yaml:8:15: spec.containers: expected a list here (lines of `- item`, or [a, b])"
    );
}

#[test]
fn an_unrendered_helm_template_is_told_as_one() {
    let helm = "Helm template ({{ ... }}), not a manifest: run `helm template` first";
    for text in [
        "kind: Pod\nmetadata:\n  name: {{ .Release.Name }}\n",
        "kind: Pod\nspec:\n  {{- if .Values.x }}\n  a: [\n",
        "kind: Pod\nmetadata:\n  name: \"{{ .Values.name }}\"\n",
    ] {
        let e = Stream::parse(text, "x.yaml", Syntax::Yaml)
            .map(|_| ())
            .unwrap_err();
        assert!(e.to_string().starts_with("x.yaml:3:"), "{e}");
        assert!(e.to_string().contains(helm), "{e}");
    }
    // A Vault agent's template in an annotation is a plain string.
    let vault = "kind: Pod\nmetadata:\n  annotations:\n    a: \"{{- with secret \\\"db\\\" }}{{ .Data }}{{ end }}\"\n";
    assert!(Stream::parse(vault, "x.yaml", Syntax::Yaml).is_ok());
}
