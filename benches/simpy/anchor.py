"""The SimPy anchor: the seed Pod (seed_pod.py) over a podsim grid file.

    python3 benches/simpy/anchor.py GRID              # model only: every run, one thread
    python3 benches/simpy/anchor.py GRID --check CSV  # agree with podsim's CSV, run by run

Model only means: read the grid and its base scenario, then for each run
build the parameters, run a fresh simpy.Environment with the Pod's processes
to the end and add its metrics to a checksum (the same one podsim's
`grid_model_only` example prints). Nothing is formatted or written per run.
The seconds printed cover the loop only.

The grid reader knows what the seed Pod needs and refuses the rest: a base
with one init container, one proxy (`proxy = true`, a sidecar or an app) and
one other app, deleted `stop_after_ready`; axes over the proxy's kind, boot,
drain and fails, web's boot and drain, the init container's boot, the
back-off's initial delay and cap, and `pod.stop_after_ready`.
"""

import argparse
import csv
import itertools
import re
import sys
import time
import tomllib
from decimal import Decimal
from pathlib import Path

import seed_pod

UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}
DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")


def millis(text):
    """`"1m30s"`, `"250ms"`, `"4.8s"` -> integer milliseconds (exact, as podsim)."""
    parts = DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text.strip():
        raise ValueError(f"not a duration: {text!r}")
    total = sum(Decimal(n) * UNITS[u] for n, u in parts)
    if total != total.to_integral_value():
        raise ValueError(f"not a whole number of milliseconds: {text!r}")
    return int(total)


def base_parameters(scenario):
    """The seed_pod parameters of a base scenario file's contents."""
    pod = scenario.get("pod", {})
    backoff = pod.get("backoff", {})
    if backoff.get("immediate_first_restart", True):
        raise SystemExit("base: seed_pod models the seed's back-off: set immediate_first_restart = false")
    if pod.get("pre_stop") or any(c.get("pre_stop") for c in scenario["containers"]):
        raise SystemExit("base: seed_pod has no preStop hooks")
    roles = {}
    for c in scenario["containers"]:
        role = "init" if c["kind"] == "init" else "proxy" if c.get("proxy") else "web"
        if role in roles:
            raise SystemExit(f"base: seed_pod has one {role} container; found {roles[role]} and {c['name']}")
        roles[role] = c["name"]
    by_name = {c["name"]: c for c in scenario["containers"]}
    init, proxy, web = (by_name[roles[r]] for r in ("init", "proxy", "web"))
    return roles, {
        "init_boot": millis(init["boot"]),
        "sidecar": proxy["kind"] == "sidecar",
        "proxy_boot": millis(proxy["boot"]),
        "proxy_drain": millis(proxy.get("drain", "0s")),
        "proxy_fails": proxy.get("fails", 0),
        "web_boot": millis(web["boot"]),
        "web_drain": millis(web.get("drain", "0s")),
        "backoff_initial": millis(backoff.get("initial", "10s")),
        "backoff_cap": millis(backoff.get("cap", "300s")),
        "stop_after_ready": millis(pod["stop_after_ready"]) if "stop_after_ready" in pod else None,
    }


PARAMETERS = {"init_boot", "proxy_boot", "proxy_drain", "proxy_fails", "web_boot", "web_drain"}


def axis_key(path, roles):
    """The seed_pod parameter an axis path sets, and how its values read."""
    names = {v: k for k, v in roles.items()}
    parts = path.split(".")
    if parts[0] == "containers" and len(parts) == 3 and parts[1] in names:
        role, field = names[parts[1]], parts[2]
        if field == "kind" and role == "proxy":
            return "sidecar", lambda v: {"sidecar": True, "app": False}[v]
        if f"{role}_{field}" in PARAMETERS:
            return f"{role}_{field}", int if field == "fails" else millis
    if parts[:2] == ["pod", "backoff"] and len(parts) == 3 and parts[2] in ("initial", "cap"):
        return f"backoff_{parts[2]}", millis
    if path == "pod.stop_after_ready":
        return "stop_after_ready", millis
    raise SystemExit(f"axis {path!r}: seed_pod has no such parameter")


def axis_values(value, read):
    """A list, or a range `{from, to, step}` with `to` included when a step lands on it."""
    if isinstance(value, list):
        return [read(v) for v in value]
    start, end, step = (read(value[k]) for k in ("from", "to", "step"))
    return list(range(start, end + 1, step))


def expand(grid_path):
    """The CSV column of each axis, and the parameters and axis cells of every run in run order."""
    grid = tomllib.loads(grid_path.read_text())
    scenario = tomllib.loads((grid_path.parent / grid["base"]).read_text())
    roles, base = base_parameters(scenario)
    axes = []
    for path, value in grid["axes"].items():
        key, read = axis_key(path, roles)
        values = axis_values(value, read)
        # podsim's cells: durations in ms (the column says so), words as written.
        cells = value if key == "sidecar" else [str(v) for v in values]
        axes.append((key, path + ("_ms" if read is millis else ""), values, cells))
    if base["stop_after_ready"] is None and all(a[0] != "stop_after_ready" for a in axes):
        raise SystemExit("seed_pod deletes the Pod stop_after_ready after Ready: set it in the base or an axis")

    def runs():
        for combination in itertools.product(*(range(len(a[2])) for a in axes)):
            p = dict(base)
            for (key, _, values, _), i in zip(axes, combination):
                p[key] = values[i]
            yield p, [cells[i] for (_, _, _, cells), i in zip(axes, combination)]

    return [a[1] for a in axes], runs


def model_only(grid_path):
    _, runs = expand(grid_path)
    total, absent, count = 0, 0, 0
    start = time.perf_counter()
    for p, _ in runs():
        ready, startup, shutdown, termination, restarts = seed_pod.simulate(p)
        for v in (ready, termination):
            if v is None:
                absent += 1
            else:
                total += v
        total += startup + shutdown + restarts
        count += 1
    seconds = time.perf_counter() - start
    print(f"runs={count} checksum={total}/{absent} seconds={seconds:.6f}")


METRICS = ["ready_ms", "exposed_startup_ms", "exposed_shutdown_ms", "exposed_total_ms", "termination_ms", "restarts"]


def check(grid_path, csv_path):
    """Compares every run's axis cells and metrics with podsim's CSV; exit 1 on any difference."""
    columns, runs = expand(grid_path)
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    runs = list(runs())
    if len(rows) != len(runs):
        raise SystemExit(f"{csv_path}: {len(rows)} rows, but the grid has {len(runs)} runs")
    differences = 0
    for run, ((p, cells), row) in enumerate(zip(runs, rows)):
        theirs = [row[c] for c in columns]
        if row["run"] != str(run) or theirs != cells:
            raise SystemExit(f"{csv_path}: row {run} is run {row['run']} with {theirs}; the grid says {cells}")
        ready, startup, shutdown, termination, restarts = seed_pod.simulate(p)
        ours = ["" if v is None else str(v) for v in (ready, startup, shutdown, startup + shutdown, termination, restarts)]
        podsim = [row[m] for m in METRICS]
        if ours != podsim:
            differences += 1
            if differences <= 10:
                print(f"run {run} {dict(zip(columns, cells))}: simpy {ours}, podsim {podsim}")
    if differences:
        raise SystemExit(f"{differences} of {len(runs)} runs differ in {', '.join(METRICS)}")
    print(f"agree: {len(runs)} runs, equal run by run in {', '.join(METRICS)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("grid", type=Path)
    parser.add_argument("--check", type=Path, metavar="CSV", help="podsim's CSV of the same grid")
    args = parser.parse_args()
    if args.check:
        check(args.grid, args.check)
    else:
        model_only(args.grid)


if __name__ == "__main__":
    sys.exit(main())
