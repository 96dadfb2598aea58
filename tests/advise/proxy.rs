//! A proxy in front of the app that stops taking connections at SIGTERM
//! (Istio's classic sidecar, istio/istio#34855): no preStop of the app
//! alone keeps the nodes' late connections from being refused, so advise
//! searches the same sleep on the proxy's `pre_stop` too, and the answer
//! is the app's own arithmetic (`super`'s), now on both containers.

use podsim::advise::advise;

use super::{ms, request, three_deletes};

/// `three_deletes`'s web app with a proxy container beside it, which has
/// no hook today and takes no connection once SIGTERMed.
const PROXY: &str = r#"drain = "1s"
        [[containers]]
        name = "envoy"
        kind = "app"
        boot = "1s"
        proxy = true
        drain = "1s""#;

/// Without the bucket every rule drops d = 2 s after its delete, while
/// the proxy closes k = 100 ms after it plus its hook: with no hook on
/// the proxy, no sleep of web helps (the proxy refuses from 100 ms on),
/// so the app's search finds nothing in 0–120 s; with both sleeping p the
/// last listener closes at k + p, safe from p ≥ d − k = 1.9 s: 2 s on a
/// 500 ms grid. With kube-proxy's bucket (M = 2 s) replica 2's rules drop
/// d + M − δ = 3.75 s after its delete (the third sync retried M after
/// the second's end): p ≥ 3.65 s, so 4 s (the arithmetic of
/// `the_pre_stop_covers_the_propagation_and_the_token_bucket`).
#[test]
fn the_proxys_pre_stop_covers_the_propagation_with_the_apps() {
    let no_bucket = three_deletes("0s", "30s", PROXY);
    let advice = advise(&no_bucket.run, &request(20, 500)).expect("a Service is advised");
    let proxy = advice
        .pre_stop
        .proxy
        .as_ref()
        .expect("the proxy's hook is searched");
    assert_eq!(proxy.container, "envoy");
    assert_eq!(proxy.today, None);
    assert_eq!(advice.container, "web");
    assert_eq!(ms(advice.pre_stop.advised), Some(2000));
    assert!(advice.today.failed_percentile(99) > 0);
    assert_eq!(advice.advised.failed_percentile(99), 0);
    // 30 s covers the 2 s hook and the 1 s drains: kept.
    assert_eq!(ms(advice.grace.advised), Some(30_000));
    // The app's search ran too, to the top of its range, and is counted.
    assert!(advice.runs > (advice.pre_stop.searched.evaluated + 1) * 20);

    let bucket = three_deletes("2s", "30s", PROXY);
    let advice = advise(&bucket.run, &request(20, 500)).expect("a Service is advised");
    assert!(advice.pre_stop.proxy.is_some());
    assert_eq!(ms(advice.pre_stop.advised), Some(4000));
}

/// Where the app's sleep alone is enough (no proxy), no proxy is named.
#[test]
fn without_a_proxy_the_apps_sleep_alone_is_advised() {
    let alone = three_deletes("0s", "30s", r#"drain = "1s""#);
    let advice = advise(&alone.run, &request(20, 500)).expect("a Service is advised");
    assert_eq!(advice.pre_stop.proxy, None);
    assert_eq!(ms(advice.pre_stop.advised), Some(2000));
}

/// What the report says of a proxy that is not Istio's (`envoy` here):
/// the grid counts the preStop's 241 values (0–120 s by 500 ms) twice,
/// since the search ran them on web alone and then on both; the "why
/// both" line cites no Istio issue; the keys' header names both
/// `[[containers]]` entries; the frontier draws the candidates of the
/// search on both as diamonds (class `proxy`), those on web alone as
/// dots, and its legend names both.
#[test]
fn the_report_counts_names_and_marks_the_proxys_search() {
    use podsim::report::advice::{frontier_svg, patch, text};
    let advice = advise(&three_deletes("0s", "30s", PROXY).run, &request(20, 500)).expect("advised");
    assert_eq!(advice.pre_stop.searched.values, 241);
    assert_eq!(advice.pre_stop_values(), 482);
    let grace_values = advice.grace.searched.values;
    assert_eq!(advice.grid_runs(), (482 + grace_values) * 20);

    let table = text("t", "t.toml", &advice);
    assert!(table.contains("(482 preStop values (241 on web alone, 241 on it and envoy)"));
    let why = table
        .lines()
        .find(|l| l.starts_with("why both:"))
        .expect("a why-both line");
    assert!(why.contains("\"envoy\" is the Pod's proxy"), "{why}");
    assert!(!table.contains("istio"), "{table}");

    let keys = patch(&advice, None, "t", "t.toml").text;
    assert!(keys.contains("pre_stop in the [[containers]] entries named \"web\" and \"envoy\""));

    let svg = frontier_svg("t", &advice);
    let drawn = |class: &str| svg.matches(&format!("class=\"{class}\"")).count();
    // Every candidate measured on replications 0–19 is drawn once: those
    // of the search on both as diamonds, of web alone as dots.
    let on_base = |proxy: bool| {
        (advice.measured.iter())
            .filter(|m| {
                m.proxy == proxy
                    && m.sample.replications.start == 0
                    && m.sample.runs[0].termination_ms.is_some()
            })
            .count()
    };
    assert!(on_base(true) > 0 && on_base(false) > 0);
    assert_eq!(drawn("p99 proxy"), on_base(true));
    assert_eq!(drawn("p99"), on_base(false));
    // (the apostrophe is escaped in the SVG)
    assert!(svg.contains("diamond: envoy&#39;s too"), "{svg}");
}
