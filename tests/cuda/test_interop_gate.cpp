// The headless interop check's decision (tests/cuda/interop_gate.h), on the CPU: an EGL device
// that names CUDA device 0 goes on to the registration even when cudaGLGetDevices rejects the
// context, as it may for an EGL device-platform context.
#include "interop_gate.h"

#include <doctest/doctest.h>

using redraw::test::interop_gate;

TEST_CASE("interop gate: either sign that GL runs on the CUDA device lets the registration decide") {
  const auto both = interop_gate(true, true, "");
  CHECK(both.proceed);
  CHECK(both.note.empty());
  const auto gl_only = interop_gate(false, true, "");
  CHECK(gl_only.proceed);
  const auto egl_only = interop_gate(true, false, "cudaGLGetDevices: cudaErrorUnknown");
  CHECK(egl_only.proceed);
  CHECK(egl_only.note.find("cudaErrorUnknown") != std::string::npos);
  CHECK(egl_only.note.find("registration decides") != std::string::npos);
  const auto neither = interop_gate(false, false, "cudaGLGetDevices: cudaErrorNoDevice");
  CHECK_FALSE(neither.proceed);
  CHECK(neither.note.find("cudaErrorNoDevice") != std::string::npos);
}
