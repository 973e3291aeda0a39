#!/usr/bin/env bash
# Configures and builds Redraw into build/ (Release). Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null 2>&1; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
# A new build folder gets Ninja: on 2 cores it compiles a target's files while the libraries that
# target links are still being built, where make waits for them (the first build took 520 s, not
# 640). A folder configured before keeps the generator it has (CMake cannot change it in place).
generator=()
[ -f build/CMakeCache.txt ] || generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j"$(nproc)"
