#pragma once
/// Shared by the CUDA test files: every case needs a device; without one it prints
/// "SKIPPED: no CUDA device: <why>" (doctest MESSAGE and stdout, which ctest turns into a skip)
/// and checks nothing, so a CPU-only run shows what was not tested.
#include "cuda/cuda_backend.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#define REDRAW_REQUIRE_CUDA_DEVICE()                                                                                 \
  do {                                                                                                               \
    std::string why_;                                                                                                \
    if (::redraw::cuda_device_count(&why_) == 0) {                                                                   \
      MESSAGE("SKIPPED: no CUDA device: " << why_);                                                                  \
      std::printf("SKIPPED: no CUDA device: %s\n", why_.c_str());                                                    \
      return;                                                                                                        \
    }                                                                                                                \
  } while (0)
