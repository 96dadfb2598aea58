#!/usr/bin/env bash
# The SimPy anchor end to end (BENCHMARKS.md, "Against SimPy"): podsim's CSV
# of the grid checked run by run against SimPy, then both sides' model-only
# loops over the same grid on one thread, and their ratio.
#
#   python3 -m pip install -r benches/simpy/requirements.txt   # once: simpy==4.1.2
#   bash benches/simpy/compare.sh [GRID]                        # default: benches/grids/simpy-anchor.toml
#
# Exits 1 if the two disagree on any run. The ratio is of the loops' own
# timings (each side times its loop only), taken one after the other.
set -euo pipefail
cd "$(dirname "$0")/../.."
grid=${1:-benches/grids/simpy-anchor.toml}
csv=$(mktemp --suffix=.csv)
trap 'rm -f "$csv" "$csv.manifest.json"' EXIT

cargo build --release --quiet --bin podsim --example grid_model_only
target/release/podsim sweep --grid "$grid" --out "$csv" --force --threads 1
python3 benches/simpy/anchor.py "$grid" --check "$csv"

podsim=$(target/release/examples/grid_model_only "$grid")
simpy=$(python3 benches/simpy/anchor.py "$grid")
echo "podsim: $podsim"
echo "simpy:  $simpy"
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"$2"; }
if [[ $(field checksum "$podsim") != $(field checksum "$simpy") ]]; then
    echo "the checksums differ: the model-only runs disagree" >&2
    exit 1
fi
awk -v p="$(field seconds "$podsim")" -v s="$(field seconds "$simpy")" \
    'BEGIN { printf "podsim is %.0f times as fast as SimPy on this grid (model only, one thread)\n", s / p }'
