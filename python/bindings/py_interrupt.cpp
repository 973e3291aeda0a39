#include "python/bindings/py_interrupt.h"

#include "engine/errors.h"

namespace redraw::python {

namespace {
// Set under the GIL by the exit hook; read anywhere.
std::atomic<bool> g_stop{false};
// Threads inside an Unlocked region that released the GIL, and run_interruptible's threads.
std::atomic<int> g_unlocked{0};
// Threads inside Python code the module called (CallingPython).
std::atomic<int> g_calling{0};
} // namespace

bool stop_requested() { return g_stop.load(); }

Unlocked::Unlocked() {
  if (g_stop.load()) return; // exiting: keep the GIL (never taken back after finalisation)
  g_unlocked.fetch_add(1);
  m_saved = PyEval_SaveThread();
}

Unlocked::~Unlocked() {
  if (!m_saved) return;
  PyEval_RestoreThread(m_saved); // the exit hook waits for this region, so the interpreter is alive
  g_unlocked.fetch_sub(1);
}

void count_worker(int delta) { g_unlocked.fetch_add(delta); }

CallingPython::CallingPython() { g_calling.fetch_add(1); }
CallingPython::~CallingPython() { g_calling.fetch_sub(1); }

bool stop_or_signal() {
  if (g_stop.load()) return true;
  py::gil_scoped_acquire gil; // inside a counted region: the exit hook has not returned yet
  return PyErr_CheckSignals() != 0;
}

bool StopCheck::operator()() {
  if (g_stop.load()) return true;
  const auto now = std::chrono::steady_clock::now();
  if (now < m_next) return false;
  m_next = now + std::chrono::milliseconds(50);
  return stop_or_signal();
}

void interrupted(const char* what) {
  if (PyErr_Occurred()) throw py::error_already_set();
  throw CancelledError(std::string(what) + ": stopped, the interpreter is exiting");
}

void install_exit_hook(py::module_& m) {
  py::cpp_function hook([] {
    g_stop = true;
    const auto give_up = std::chrono::steady_clock::now() +
                         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             std::chrono::duration<double>(k_exit_callback_wait_s));
    while (g_unlocked.load() > 0 || (g_calling.load() > 0 && std::chrono::steady_clock::now() < give_up)) {
      py::gil_scoped_release wait; // let the threads inside a region finish their piece
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  m.attr("_exit_hook") = hook;
  py::module_::import("atexit").attr("register")(hook);
}

} // namespace redraw::python
