#!/usr/bin/env bash
# Builds tiny-cuda-nn's image benchmark (benchmarks/image/bench_ours.cu: fully fused MLP + hash grid),
# bench_image_ours, for sm_90, for `scripts/gpu_check.py pack --tcnn-bin PATH`. Manual tool: it downloads
# nothing and CI does not run it.
#
# Usage: scripts/build_tcnn.sh SRC [BUILD]      (BUILD defaults to SRC/../build; prints the binary's path last)
#
# SRC is a tiny-cuda-nn checkout with its three submodules in place (outside this repository), e.g.
#   git clone https://github.com/NVlabs/tiny-cuda-nn SRC && git -C SRC submodule update --init
# Built and checked with NVlabs/tiny-cuda-nn 6ee3546bda615f51abe684ce9edefeb414689135 and its pins:
#   dependencies/cutlass 82f5075946e2569589439d500733b700a3141374 (only include/, tools/util/include/ and
#                        CMakeLists.txt are read), dependencies/fmt fa2eb2d2e3ec5c21629f8ccd88ae05ec40b963fa,
#   dependencies/cmrc 952ffddba731fc110bd50409e8d2b8a06abbd237; CUDA 13.0, GCC 12, CMake 3.25.
# Two source changes, made here in SRC, idempotently: bench_ours.cu's batch list is cut to {1 << 18}, the
# batch gpu_check.py measures (the stock list trains 2^21, 2^20, 2^19 first, with 10 s pauses), and
# src/rtc_kernel.cu's stub for builds without RTC gets the CudaRtcKernel::set it lacks (an undefined
# reference at link time otherwise; never called, as no RTC kernel can be constructed).
# Configuration:
#   -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DTCNN_CUDA_ARCHITECTURES=90
#   -DTCNN_BUILD_BENCHMARK=ON -DTCNN_BUILD_EXAMPLES=OFF -DTCNN_BUILD_TESTS=OFF
#   -DTCNN_BUILD_WITH_RTC=OFF      (no libnvrtc, 105 MiB, in the pack; the benchmark does not use JIT fusion)
#   -DCMAKE_EXE_LINKER_FLAGS='-Wl,--as-needed -static-libstdc++ -static-libgcc'
#                                  (drops the unused cuBLAS link; gpu_check runs the binary without the
#                                  pack's LD_LIBRARY_PATH, so it needs only glibc and the driver's libcuda)
# and only the target bench_image_ours. Environment: JOBS (default 2), NICE (default 19).
set -euo pipefail

src=${1:?usage: scripts/build_tcnn.sh SRC [BUILD]}
src=$(cd "$src" && pwd)
build=${2:-$(dirname "$src")/build}
bench="$src/benchmarks/image/bench_ours.cu"

for f in "$bench" "$src/dependencies/cutlass/CMakeLists.txt" "$src/dependencies/cutlass/include/cutlass/cutlass.h" \
         "$src/dependencies/fmt/CMakeLists.txt" "$src/dependencies/cmrc/CMakeRC.cmake"; do
    [[ -f $f ]] || { echo "build_tcnn: $f is missing (tiny-cuda-nn checkout with its submodules?)" >&2; exit 1; }
done

stock='std::vector<uint32_t> batch_sizes = {1 << 21, 1 << 20, 1 << 19, 1 << 18, 1 << 17, 1 << 16, 1 << 15, 1 << 14};'
cut='std::vector<uint32_t> batch_sizes = {1 << 18}; // Redraw: cut to the batch scripts/gpu_check.py measures'
if grep -qF "$stock" "$bench"; then
    sed -i "s|$stock|$cut|" "$bench"
elif ! grep -qF "$cut" "$bench"; then
    echo "build_tcnn: $bench has neither the stock batch list nor the cut one" >&2
    exit 1
fi

rtc="$src/src/rtc_kernel.cu"
stub='void CudaRtcKernel::clear() {}'
set_stub='void CudaRtcKernel::set(CUfunction_attribute, int) {} // Redraw: missing from the stub without RTC'
if ! grep -qF "$set_stub" "$rtc"; then
    [[ $(grep -cxF "$stub" "$rtc") == 1 ]] || { echo "build_tcnn: $rtc: no single '$stub' to patch" >&2; exit 1; }
    sed -i "s|^$stub\$|$stub\n$set_stub|" "$rtc"
fi

nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
unset TCNN_CUDA_ARCHITECTURES  # it would override the architectures below
nice -n "${NICE:-19}" cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$nvcc" \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DTCNN_CUDA_ARCHITECTURES=90 \
    -DTCNN_BUILD_BENCHMARK=ON -DTCNN_BUILD_EXAMPLES=OFF -DTCNN_BUILD_TESTS=OFF -DTCNN_BUILD_WITH_RTC=OFF \
    "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed -static-libstdc++ -static-libgcc" >&2
nice -n "${NICE:-19}" cmake --build "$build" -j"${JOBS:-2}" --target bench_image_ours >&2
bin="$build/bench_image_ours"
[[ -x $bin ]] || { echo "build_tcnn: $bin was not built" >&2; exit 1; }
echo "$bin"
