//! `podsim serve`'s `/api/advise` (the page's "advise" button) through a
//! real socket: the same advice as `podsim advise`, within the server's
//! budget, refusals as 400s.
//!
//! The scenario is worked by hand as tests/cli/advise.rs's: every node
//! hears of the delete 2 s after it, the kubelet 100 ms after it,
//! kube-proxy syncs at once; the listener, closed at SIGTERM, must outlast
//! the rules: preStop ≥ 2 s − 100 ms, so 2 s on the 1 s grid; the 1 s
//! drain after it fits today's 30 s grace.

use serde_json::json;

use super::advise::{SCENARIO as HAND, without_question};
use super::common::{TempDir, podsim, write};
use super::pictures::{parse, with_class};
use super::serve::{Server, seed};

#[test]
fn the_advise_button_answers_what_podsim_advise_prints() {
    let server = Server::start(&[]);
    let body = json!({ "text": HAND, "workload": 0, "replications": 20 });
    let (status, doc) = server.json("POST", "/api/advise", &body.to_string());
    assert_eq!(status, 200, "{doc}");
    assert_eq!(doc["advice"]["settings"][0]["advised_ms"], 2000);
    assert_eq!(doc["advice"]["settings"][1]["advised_ms"], 30_000);
    let table = doc["table"].as_str().unwrap();
    let row = table
        .lines()
        .find(|l| l.starts_with("preStop sleep (web)"))
        .unwrap();
    assert_eq!(row.split_whitespace().nth(4), Some("2s"), "{table}");
    assert_eq!(
        doc["patch"].as_str().unwrap().lines().last(),
        Some("containers.web.pre_stop = \"2s\"")
    );
    let svg = doc["svg"].as_str().unwrap();
    assert_eq!(with_class(parse(svg).root(), "advised").len(), 1);
    // The same document as the command line's, but for where it came from.
    let dir = TempDir::new();
    let file = write(dir.path(), "hand.toml", HAND);
    let out = podsim()
        .args([
            "advise",
            file.to_str().unwrap(),
            "--replications",
            "20",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let mut cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    cli["source"] = json!("request");
    cli["patch"]["text"] = doc["advice"]["patch"]["text"].clone();
    assert_eq!(doc["advice"], cli);
}

/// The button on a scenario that asks no question: the assumed one, said
/// above the table, and the same 2 s as tests/cli/advise.rs works out.
#[test]
fn the_advise_button_says_what_it_assumed() {
    let server = Server::start(&[]);
    let body = json!({ "text": without_question(), "workload": 0, "replications": 20 });
    let (status, doc) = server.json("POST", "/api/advise", &body.to_string());
    assert_eq!(status, 200, "{doc}");
    assert_eq!(doc["advice"]["settings"][0]["advised_ms"], 2000);
    let table = doc["table"].as_str().unwrap();
    assert!(
        table.starts_with("note: no client sends the Service requests, so advise assumes 50"),
        "{table}"
    );
    assert!(
        table.contains("\nnote: no Pod of the Service is ever deleted, so advise assumes"),
        "{table}"
    );
}

/// The slow Service of serve.rs's budget test (1.8·10⁹ requests) is
/// stopped at `--max-seconds` and answered 503, and the server goes on.
#[test]
fn an_advice_past_the_time_budget_gets_503() {
    let server = Server::start(&["--max-seconds", "1"]);
    let slow = seed("service/no-prestop.toml").replace("rate = 50 ", "rate = 1000000\nduration = \"30m\" ");
    let body = json!({ "text": slow, "workload": 0 });
    let started = std::time::Instant::now();
    let (status, doc) = server.json("POST", "/api/advise", &body.to_string());
    assert_eq!(status, 503, "{doc}");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("time budget of 1 s (--max-seconds)"),
        "{message}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let body = json!({ "text": HAND, "workload": 0, "replications": 5 });
    assert_eq!(server.json("POST", "/api/advise", &body.to_string()).0, 200);
}

#[test]
fn what_cannot_be_advised_is_a_400_that_says_why() {
    let server = Server::start(&[]);
    let refused = |body: serde_json::Value| {
        let (status, doc) = server.json("POST", "/api/advise", &body.to_string());
        assert_eq!(status, 400, "{doc}");
        doc["error"]["message"].as_str().unwrap().to_string()
    };
    let pod = seed("seed-sidecar.toml");
    assert!(
        refused(json!({ "text": pod, "workload": 0 }))
            .starts_with("the preStop sleep and the grace are advised for a Service scenario")
    );
    assert!(refused(json!({ "text": HAND, "workload": 1 })).contains("no workload 1"));
    assert!(
        refused(json!({ "text": HAND, "workload": 0, "replications": 0 }))
            .starts_with("replications must be")
    );
    assert!(refused(json!({ "text": "name = \"x\"\n[pod\n", "workload": 0 })).contains("expected"));
    assert!(refused(json!({ "scenario": HAND })).starts_with("the body must be"));
    assert_eq!(server.request("GET", "/api/advise", b"").0, 405);
}
