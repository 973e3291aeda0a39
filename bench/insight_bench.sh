#!/usr/bin/env bash
# What the insight views cost the training (the floor: throughput with a view open must stay
# >= 90% of the same run without it): bench/gui_throughput_bench.sh without its headless run
# (no view, Spectrum, Neuron maps, both; see there for what each column means).
#   bench/insight_bench.sh [BUILD_DIR] [ROUNDS] [SECONDS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/gui_throughput_bench.sh" "${1:-$here/../build}" "${2:-2}" "${3:-30}" none spectrum neuron_maps both
