#!/usr/bin/env bash
# The HTML report in a real browser. Headless Chromium (Debian's package,
# installed here when missing) opens `podsim report` of the seed scenarios
# (and of results/*.csv, when there are any) with name resolution cut off,
# and must:
#   - take a screenshot that is a PNG of real content (not a blank page);
#   - render the page's inline SVG (the DOM it dumps holds the pictures);
#   - record, in its network log, no request for anything but the file itself.
#
# Usage: tests/browser/check.sh [PODSIM_BINARY]   (default target/release/podsim)
# KEEP=shot.png keeps the screenshot there, to look at.
# Exit: 0 passed, or skipped because Chromium cannot be had here (not root,
# no apt-get, or the install failed; said on stderr): `cargo test`'s
# structural HTML test still stands; 1 the report failed in the browser.
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=${1:-target/release/podsim}
if [ ! -x "$bin" ]; then
    cargo build --release --quiet
fi

skip() {
    echo "browser check: SKIPPED: $*" >&2
    exit 0
}
fail() {
    echo "browser check: FAILED: $*" >&2
    exit 1
}

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get > /dev/null; then
        skip "no chromium, and installing it needs root and apt-get"
    fi
    echo "browser check: installing chromium from Debian's packages" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! { timeout 300 apt-get update -qq && timeout 600 apt-get install -y -qq chromium; } > /dev/null 2>&1; then
        skip "apt-get install chromium failed"
    fi
    browser=$(command -v chromium) || skip "chromium installed but not on PATH"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inputs=(scenarios/seed-sidecar.toml scenarios/seed-side-by-side.toml)
shopt -s nullglob
inputs+=(results/*.csv)
"$bin" report "${inputs[@]}" --out "$work/report.html" > /dev/null
page="file://$work/report.html"

chromium_run() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-default-apps --disable-extensions --host-resolver-rules="${RESOLVER:-MAP * ~NOTFOUND}" \
        --user-data-dir="$(mktemp -d -p "$work")" "$@" 2> "$work/stderr.txt" \
        || fail "chromium exited non-zero: $(tail -3 "$work/stderr.txt")"
}

# URLs a page asked for, from a network log: requests with an initiator
# (the page's origin, "null" for file://); Chromium's own background requests
# carry "not an origin" and never leave the machine (names do not resolve).
page_requests() {
    grep '"initiator"' "$1" | grep -v '"initiator":"not an origin"' | grep -o '"url":"[^"]*"' | sort -u || true
}

# First prove the detector works on this Chromium: a page that fetches an image.
echo '<html><body><img src="http://example.invalid/x.png"/></body></html>' > "$work/fetching.html"
chromium_run --log-net-log="$work/fetching.json" --dump-dom "file://$work/fetching.html" > /dev/null
page_requests "$work/fetching.json" | grep -q 'example.invalid/x.png' \
    || fail "the network log does not show a page's requests; cannot check the report"

chromium_run --window-size=1100,2400 --log-net-log="$work/net.json" --screenshot="$work/shot.png" "$page"
[ -s "$work/shot.png" ] || fail "no screenshot"
[ "$(head -c 8 "$work/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
    || fail "the screenshot is not a PNG"
# A blank 1100x2400 page compresses to a few KB; the report's is well over 50.
size=$(wc -c < "$work/shot.png")
[ "$size" -gt 50000 ] || fail "the screenshot is nearly empty ($size bytes)"
requested=$(page_requests "$work/net.json")
[ -z "$requested" ] || fail "the report made requests: $requested"

chromium_run --dump-dom "$page" > "$work/dom.html"
svgs=$(grep -o '<svg' "$work/dom.html" | wc -l)
# The timelines, the scenarios' trade-off, one plot per sweep.
want=$((${#inputs[@]}))
[ "$svgs" -ge "$want" ] || fail "the page shows $svgs pictures, expected $want"

# Table headers wrap between words only: a line may end after a space, a
# dot or an underscore (`pod.stop_after_ready_ms` carries <wbr/> there),
# never between two letters. The page has no script; a copy gets one that
# finds, in every <th>, each character that starts a new line, at the
# page's 1100 px and at a phone's 390 px.
{
    grep -v '^</body>$' "$work/report.html" | grep -v '^</html>$'
    cat << 'SCRIPT'
<script>
const cut = [];
for (const th of document.querySelectorAll("th")) {
  const text = th.textContent;
  const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
  let top = null, prev = "";
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const r = document.createRange();
      r.setStart(node, i);
      r.setEnd(node, i + 1);
      const rect = r.getClientRects()[0];
      const ch = node.data[i];
      if (!rect) continue;
      if (top !== null && rect.top > top + 2 && !/[\s._]/.test(prev) && !/\s/.test(ch)) cut.push(text);
      top = rect.top;
      prev = ch;
    }
  }
}
const verdict = document.createElement("p");
verdict.id = "headers";
verdict.textContent = "HEADERS " + (cut.length ? "CUT " + [...new Set(cut)].join(" / ") : "WHOLE");
document.body.append(verdict);
</script>
</body>
</html>
SCRIPT
} > "$work/headers.html"
for width in 1100 390; do
    chromium_run --window-size=$width,2400 --dump-dom "file://$work/headers.html" > "$work/headers-dom.html"
    headers=$(grep -o 'id="headers">HEADERS [^<]*' "$work/headers-dom.html" || echo "no verdict")
    [ "$headers" = 'id="headers">HEADERS WHOLE' ] || fail "table headers break inside a word at $width px: $headers"
done

[ -z "${KEEP:-}" ] || cp "$work/shot.png" "$KEEP"
echo "browser check: ok ($svgs pictures, screenshot $size bytes, no request beyond the file)"

# podsim serve: the page drives itself as a user would (?selftest: the seed's
# figures, a cursor step and kubectl's status, the "fail the first init
# container once" what-if, the sweep's plot, the busy state, a 413 and a
# 503 shown and clearing the old result, an older answer never drawn over
# a newer one, a syntax error shown at its line) and must say
# SELFTEST PASS; it may request nothing but its own server. Screenshots at
# a laptop's and a phone's width land in target/browser/ for a look; then
# the same for a Service scenario (below).
"$bin" serve --port 0 > "$work/serve.txt" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -qs listening "$work/serve.txt" && break; sleep 0.1; done
url=$(grep -o 'http://[0-9.:]*/' "$work/serve.txt") || fail "podsim serve did not start: $(cat "$work/serve.txt")"
# Names still resolve nowhere; only the server's own address is reachable.
export RESOLVER="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
chromium_run --virtual-time-budget=20000 --log-net-log="$work/serve-net.json" --dump-dom "${url}?selftest" > "$work/serve-dom.html"
verdict=$(grep -o 'id="selftest">SELFTEST [A-Z]*[^<]*' "$work/serve-dom.html" || echo "no verdict")
[ "$verdict" = 'id="selftest">SELFTEST PASS' ] || fail "podsim serve's page: $verdict"
others=$(page_requests "$work/serve-net.json" | grep -v "\"url\":\"${url}" || true)
[ -z "$others" ] || fail "podsim serve's page made requests elsewhere: $others"
mkdir -p target/browser
chromium_run --virtual-time-budget=8000 --hide-scrollbars --window-size=1280,1400 --screenshot=target/browser/serve-1280.png "$url" > /dev/null
chromium_run --virtual-time-budget=8000 --hide-scrollbars --window-size=390,1600 --screenshot=target/browser/serve-390.png "$url" > /dev/null
[ -s target/browser/serve-1280.png ] && [ -s target/browser/serve-390.png ] || fail "no screenshot of podsim serve"

# The Service view: a second server opened with a bundled Service scenario;
# ?selftest=service checks the picture of the race is drawn, the failed
# count shown equals /api/run's and is red, its "advise" button gives the
# advice (below), "add a 5 s preStop" brings it to
# a "0 failed" that is not red, the Service's what-ifs write its TOML tables,
# and every picture fits the page or scrolls with a hint saying so: at a
# laptop's width and at a phone's (390 px).
"$bin" serve --port 0 scenarios/service/no-prestop.toml > "$work/serve-service.txt" 2>&1 &
service_server=$!
trap 'kill $server $service_server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -qs listening "$work/serve-service.txt" && break; sleep 0.1; done
service_url=$(grep -o 'http://[0-9.:]*/' "$work/serve-service.txt") \
    || fail "podsim serve (Service) did not start: $(cat "$work/serve-service.txt")"
for width in 1280 390; do
    chromium_run --virtual-time-budget=20000 --window-size=$width,1600 --log-net-log="$work/service-net.json" \
        --dump-dom "${service_url}?selftest=service" > "$work/service-dom.html"
    verdict=$(grep -o 'id="selftest">SELFTEST [A-Z]*[^<]*' "$work/service-dom.html" || echo "no verdict")
    [ "$verdict" = 'id="selftest">SELFTEST PASS' ] || fail "podsim serve's Service view at $width px: $verdict"
    others=$(page_requests "$work/service-net.json" | grep -v "\"url\":\"${service_url}" || true)
    [ -z "$others" ] || fail "podsim serve's Service view made requests elsewhere: $others"
done
chromium_run --virtual-time-budget=8000 --hide-scrollbars --window-size=1280,1600 --screenshot=target/browser/serve-service-1280.png "$service_url" > /dev/null
chromium_run --virtual-time-budget=8000 --hide-scrollbars --window-size=390,1600 --screenshot=target/browser/serve-service-390.png "$service_url" > /dev/null
[ -s target/browser/serve-service-1280.png ] && [ -s target/browser/serve-service-390.png ] \
    || fail "no screenshot of podsim serve's Service view"

# The "advise" button of the same Service (?selftest=advise, also a part of
# ?selftest=service above): a 503 shown where the advice goes, then the
# advice of the race (preStop 2 s, the patch, the frontier with the advised
# point), kept when the same text is drawn again; the screenshot shows it.
chromium_run --virtual-time-budget=30000 --window-size=1280,2200 --log-net-log="$work/advise-net.json" \
    --dump-dom "${service_url}?selftest=advise" > "$work/advise-dom.html"
verdict=$(grep -o 'id="selftest">SELFTEST [A-Z]*[^<]*' "$work/advise-dom.html" || echo "no verdict")
[ "$verdict" = 'id="selftest">SELFTEST PASS' ] || fail "podsim serve's advise button: $verdict"
others=$(page_requests "$work/advise-net.json" | grep -v "\"url\":\"${service_url}" || true)
[ -z "$others" ] || fail "podsim serve's advise button made requests elsewhere: $others"
chromium_run --virtual-time-budget=30000 --hide-scrollbars --window-size=1280,2200 \
    --screenshot=target/browser/serve-advise-1280.png "${service_url}?selftest=advise" > /dev/null
[ -s target/browser/serve-advise-1280.png ] || fail "no screenshot of podsim serve's advice"

# Manifests: five files (YAML and JSON, a file of two workloads, a
# Deployment behind its Service, notices) at /?selftest=manifests: every
# workload of every file shown, notices worded for the page and not in
# error red, the what-ifs editing the manifests as manifests (annotations in
# place, a native sidecar moved to initContainers and back, a preStop as
# lifecycle.preStop.sleep), a what-if that cannot apply said plainly, and
# past eight workloads the rest said to be left out.
"$bin" serve --port 0 scenarios/service/rollout.yaml tests/manifests/kubectl-get-list.json \
    tests/manifests/deployment-sidecar.yaml tests/manifests/istio-classic-sidecar.yaml \
    scenarios/blog-cloudsql-job.yaml > "$work/serve-manifests.txt" 2>&1 &
manifests_server=$!
trap 'kill $server $service_server $manifests_server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -qs listening "$work/serve-manifests.txt" && break; sleep 0.1; done
manifests_url=$(grep -o 'http://[0-9.:]*/' "$work/serve-manifests.txt") \
    || fail "podsim serve (manifests) did not start: $(cat "$work/serve-manifests.txt")"
chromium_run --virtual-time-budget=30000 --window-size=1280,1600 --log-net-log="$work/manifests-net.json" \
    --dump-dom "${manifests_url}?selftest=manifests" > "$work/manifests-dom.html"
verdict=$(grep -o 'id="selftest">SELFTEST [A-Z]*[^<]*' "$work/manifests-dom.html" || echo "no verdict")
[ "$verdict" = 'id="selftest">SELFTEST PASS' ] || fail "podsim serve's manifests: $verdict"
others=$(page_requests "$work/manifests-net.json" | grep -v "\"url\":\"${manifests_url}" || true)
[ -z "$others" ] || fail "podsim serve's manifests made requests elsewhere: $others"
chromium_run --virtual-time-budget=8000 --hide-scrollbars --window-size=1280,1600 --screenshot=target/browser/serve-manifests-1280.png "$manifests_url" > /dev/null
[ -s target/browser/serve-manifests-1280.png ] || fail "no screenshot of podsim serve with manifests"
echo "browser check: podsim serve ok (self-tests passed, no request beyond its server, screenshots in target/browser/)"
