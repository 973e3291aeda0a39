#!/usr/bin/env bash
# Installs every Debian 12 package Redraw needs to build, test and run. Safe to run twice:
# it only calls apt-get when something is missing. Uses sudo when not root.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  ninja-build  # the generator scripts/build.sh and scripts/sanitize.sh give a new build folder
  libstb-dev libpng-dev libopenblas-dev nlohmann-json3-dev libcli11-dev doctest-dev zlib1g-dev
  libzstd-dev  # packed chunks in .redraw model files (engine/model_files/checkpoint_codec.cpp)
  libgif-dev libkissfft-dev
  libvips-dev libopenexr-dev libtiff-dev  # decoding: libvips 8.14 (PNG, JPEG, WebP, TIFF, HEIF/AVIF), OpenEXR; TIFF export
  libglfw3-dev libimgui-dev python3-glad libgl-dev libegl-dev libgl1-mesa-dri
  xvfb xauth libx11-dev  # libx11-dev: the close-button GUI test (tests/gui/x11_close_request.c)
  pybind11-dev python3-dev python3-numpy python3-pytest  # the Python module (python/) and its tests
  time  # /usr/bin/time: peak memory in tests/cli/aspect_ratios.sh and the benchmarks
  # installing and packaging, and their checks (tests/project/packaging.cmake)
  help2man dpkg-dev file lintian desktop-file-utils appstream libxml2-utils shared-mime-info bash-completion
  # the sanitizer and fuzzing stage (scripts/sanitize.sh)
  clang libclang-rt-14-dev libomp-14-dev llvm
  # `redraw sweep`'s tests: a one-node Slurm cluster (tests/cli/sweep_slurm.sh) and the report
  # opened in headless Chromium (tests/cli/sweep_report.sh)
  slurm-wlm munge chromium
  # `redraw bench`'s test (tests/cli/bench.sh): ImageMagick's `compare -metric PSNR` checks the
  # table's 8-bit PSNR, numpy (listed above) its MS-SSIM
  imagemagick
)
# clang, its sanitizer and libFuzzer runtimes (libclang-rt-14-dev), its OpenMP (libomp-14-dev) and
# llvm-symbolizer (llvm) are for scripts/sanitize.sh: the ASan/UBSan build and the fuzz targets.

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#packages[@]} packages present"
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "install_deps: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# ffmpeg is optional (MP4 timelapse export); never fail for it.
if ! command -v ffmpeg >/dev/null 2>&1 && [ "${REDRAW_WITH_FFMPEG:-0}" = "1" ]; then
  ${sudo:-} apt-get install -y -q --no-install-recommends ffmpeg || echo "install_deps: ffmpeg not installed (MP4 export disabled)"
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install_deps: no CUDA toolkit found; building the CPU backend only"
fi
