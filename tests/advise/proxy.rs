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
/// d + M − 2δ = 3.5 s after its delete: p ≥ 3.4 s, so 3.5 s (the
/// arithmetic of `the_pre_stop_covers_the_propagation_and_the_token_bucket`).
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
    assert_eq!(ms(advice.pre_stop.advised), Some(3500));
}

/// Where the app's sleep alone is enough (no proxy), no proxy is named.
#[test]
fn without_a_proxy_the_apps_sleep_alone_is_advised() {
    let alone = three_deletes("0s", "30s", r#"drain = "1s""#);
    let advice = advise(&alone.run, &request(20, 500)).expect("a Service is advised");
    assert_eq!(advice.pre_stop.proxy, None);
    assert_eq!(ms(advice.pre_stop.advised), Some(2000));
}
