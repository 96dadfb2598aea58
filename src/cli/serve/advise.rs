//! `POST /api/advise`: the page's "advise" button, `podsim advise` on one
//! workload of the text the user is editing: `{"text": text, "workload":
//! j, "replications": R}` (R optional, `REPLICATIONS` by default, at most
//! `MAX_REPLICATIONS`); the answer is the table as `podsim advise` prints
//! it (`table`), the patch (`patch`), the frontier picture (`svg`) and the
//! JSON document of `--format json` (`advice`).
//!
//! Why the request's budget holds: every run of the search obeys its
//! limits (`advise_within`), so a slow scenario is stopped at
//! `--max-seconds`, or at the event budget of one run, and answered 503
//! as `/api/run` is, and the search stops with its first halted run.

use serde_json::{Value, json};

use podsim::advise::{NotAdvised, Request, Target, advise_within, assume_question};
use podsim::report::advice;

use super::api::{ORIGIN, Reply, read_each};
use super::budget::Budget;

/// Replications per candidate unless the request asks: a tenth of a
/// second per candidate for the bundled race, so a search answers in a
/// second or two, and the p99 is the 99th of 100, not the worst run.
pub const REPLICATIONS: u64 = 100;

/// The most replications a request may ask for (`podsim advise` has no bound).
pub const MAX_REPLICATIONS: u64 = 1000;

/// `POST /api/advise`.
pub fn advise(body: &str, budget: &Budget) -> Reply {
    let v: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) => return Reply::error(400, &format!("the body is not JSON: {e}")),
    };
    let (Some(text), Some(j)) = (
        v.get("text").and_then(Value::as_str),
        v.get("workload").and_then(Value::as_u64),
    ) else {
        return Reply::error(400, "the body must be {\"text\": text, \"workload\": index}");
    };
    let replications = match v.get("replications").map(Value::as_u64) {
        None => REPLICATIONS,
        Some(Some(r @ 1..=MAX_REPLICATIONS)) => r,
        Some(_) => {
            return Reply::error(
                400,
                &format!("replications must be a whole number from 1 to {MAX_REPLICATIONS}"),
            );
        }
    };
    let input = match read_each(text).into_iter().nth(j as usize) {
        Some(Ok(input)) => input,
        Some(Err(d)) => return Reply::input_error(&d),
        None => return Reply::error(400, &format!("the text has no workload {j}")),
    };
    let s = &input.scenario;
    let request = Request::new(Target::FailedP99(0), replications);
    // As `podsim advise` does, a scenario that asks no question is advised
    // for the assumed one; the page shows the assumptions above the table.
    let mut run = s.run.clone();
    let assumed = run
        .service
        .as_deref_mut()
        .map(assume_question)
        .unwrap_or_default();
    let said: String = assumed.iter().map(|a| format!("note: {a}\n")).collect();
    match advise_within(&run, &request, &budget.limits) {
        Err(NotAdvised::Halted(halt)) => budget.exceeded(halt),
        Err(e) => Reply::error(400, &e.to_string()),
        Ok(a) => {
            // The page edits one text: the keys are to be set "in the scenario".
            let patch = advice::patch(&a, s.workload, &s.name, "the scenario");
            Reply::json(&json!({
                "table": said + &advice::text(&s.name, ORIGIN, &a),
                "patch": patch.text,
                "svg": advice::frontier_svg(&s.name, &a),
                "advice": advice::json(&s.name, ORIGIN, &a, &patch),
            }))
        }
    }
}
