// The CUDA module as `cmake --install` leaves it: RUNPATH $ORIGIN only (Debian policy), so cuBLAS
// comes from the library path or from the toolkit folders the loader knows. tests/project/install_check.sh
// runs this case with REDRAW_TEST_INSTALLED_MODULE set to the installed file (and, where it may,
// with the library cache hidden so that only the loader's own search can find cuBLAS); on its own
// the case checks nothing.
#include "app/device_plugin_loader.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

using namespace redraw;

#if REDRAW_HAVE_CUDA
TEST_CASE("cuda module: an installed module loads and finds cuBLAS (run by tests/project/install_check.sh)") {
  const char* path = std::getenv("REDRAW_TEST_INSTALLED_MODULE");
  if (!path || !*path) return;
  const DevicePlugin p = load_device_plugin(path, false); // no driver needed to load and link
  REQUIRE_MESSAGE(p.api != nullptr, p.why);
  CHECK(std::string(p.api->name) == "cuda");
  CHECK(std::string(p.api->signature) == device_plugin_signature());
}
#endif
