#pragma once
/// Ctrl+C and interpreter exit for the module's long calls (docs/python.md, Threads).
/// - Engine work runs inside an Unlocked region (the GIL released). Such work checks
///   stop_or_signal() between pieces (a render's band, a predict's chunk, a training step); the
///   caller then throws interrupted() once the GIL is back: the KeyboardInterrupt Python's handler
///   raised, or CancelledError when the interpreter is exiting.
/// - At interpreter exit (an atexit hook, which runs after the non-daemon threads are joined and
///   before daemon threads are stopped), stop_requested() becomes true and the hook waits until no
///   thread is inside an Unlocked region; from then on Unlocked keeps the GIL, so no thread of the
///   module ever takes the GIL back after the interpreter started finalising (which would end the
///   thread inside a destructor: "terminate called without an active exception").
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

namespace redraw::python {

namespace py = pybind11;

/// True once the interpreter started exiting; training stops at its next step, renders at their
/// next band. Any thread may call it.
bool stop_requested();

/// Releases the GIL for its lifetime (counted for the exit hook), unless the interpreter is exiting.
/// Construct with the GIL held.
class Unlocked {
public:
  Unlocked();
  ~Unlocked();
  Unlocked(const Unlocked&) = delete;
  Unlocked& operator=(const Unlocked&) = delete;

private:
  PyThreadState* m_saved = nullptr;
};

/// From inside an Unlocked region: true when the interpreter is exiting, or when Python's signal
/// handlers raised (Ctrl+C in the main thread; the error stays set for interrupted()). Takes the
/// GIL for the check, so call it between pieces of work of about 0.1 s or more.
bool stop_or_signal();

/// stop_or_signal() at most every 50 ms (the stop flag at each call): cheap between small pieces.
class StopCheck {
public:
  bool operator()();

private:
  std::chrono::steady_clock::time_point m_next = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
};

/// With the GIL held, after stop_or_signal() said true: throws the pending Python error
/// (KeyboardInterrupt) or, when there is none, CancelledError naming `what`.
[[noreturn]] void interrupted(const char* what);

/// Registers the exit hook (module init).
void install_exit_hook(py::module_& m);

/// Counts a thread of run_interruptible's while it runs: the exit hook waits for it too.
void count_worker(int delta);

/// Held while the module calls Python code (train's callback). The exit hook waits, GIL released,
/// until no thread holds one (at most k_exit_callback_wait_s): a daemon thread the interpreter ends
/// inside Python code called from the module would unwind through the module's frames without the
/// GIL (their Python objects released unlocked: a crash at exit). A callback that returns sees the
/// stop and train returns, so the thread leaves the module before the interpreter finalises.
class CallingPython {
public:
  CallingPython();
  ~CallingPython();
  CallingPython(const CallingPython&) = delete;
  CallingPython& operator=(const CallingPython&) = delete;
};
inline constexpr double k_exit_callback_wait_s = 10.0;

/// Runs `work()` on a thread of its own while the caller, GIL released, checks signals every
/// 50 ms: Ctrl+C raises KeyboardInterrupt at once and the result is dropped when the work ends.
/// `work` must own everything it touches (it may outlive the call), and must not touch Python.
template <class T, class Work> T run_interruptible(Work work, const char* what) {
  auto task = std::make_shared<std::packaged_task<T()>>(std::move(work));
  std::future<T> result = task->get_future();
  count_worker(1);
  std::thread([task] {
    (*task)();
    count_worker(-1);
  }).detach();
  bool stop = false;
  {
    Unlocked unlocked;
    while (result.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready)
      if ((stop = stop_or_signal())) break;
  }
  if (stop) interrupted(what);
  return result.get();
}

} // namespace redraw::python
