#pragma once
/// Who may use a Trainer from Python: one owner at a time, and guests while train lends it to its
/// callback (docs/python.md, Threads).
/// - States: Idle, Owned (train, step, or a read-only call), Lent (train's callback is running),
///   Guest (a read-only call inside a lent trainer: the callback's live view, or another thread).
/// - Claim takes Idle -> Owned, or (read-only) Lent -> Guest, and gives back only what it took;
///   anything else is refused with ValueError, so a second train never joins a running one.
/// - Lend (train, around its callback) takes Owned -> Lent, and back Lent -> Owned after, waiting
///   with the GIL released while a guest is inside. Only the owner ever ends the ownership.
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace redraw::python {

enum class TrainerUse : int { Idle, Owned, Lent, Guest };

class Claim {
public:
  /// read_only: may enter a trainer lent by train's callback as a guest.
  Claim(std::atomic<TrainerUse>& use, bool read_only) : m_use(use) {
    TrainerUse from = TrainerUse::Idle;
    if (m_use.compare_exchange_strong(from, TrainerUse::Owned)) {
      m_back = TrainerUse::Idle;
      return;
    }
    from = TrainerUse::Lent;
    if (read_only && m_use.compare_exchange_strong(from, TrainerUse::Guest)) {
      m_back = TrainerUse::Lent;
      return;
    }
    throw pybind11::value_error("Trainer: another thread is using this trainer");
  }
  ~Claim() { m_use.store(m_back); }
  Claim(const Claim&) = delete;
  Claim& operator=(const Claim&) = delete;

private:
  std::atomic<TrainerUse>& m_use;
  TrainerUse m_back = TrainerUse::Idle;
};

/// The owner's trainer lent for the lifetime of this object (train's callback), then taken back.
class Lend {
public:
  explicit Lend(std::atomic<TrainerUse>& use) : m_use(use) { m_use.store(TrainerUse::Lent); }
  ~Lend() {
    for (;;) {
      TrainerUse lent = TrainerUse::Lent;
      if (m_use.compare_exchange_strong(lent, TrainerUse::Owned)) return;
      // A guest is inside (it gives back Lent when done); it may need the GIL to finish.
      pybind11::gil_scoped_release wait;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  Lend(const Lend&) = delete;
  Lend& operator=(const Lend&) = delete;

private:
  std::atomic<TrainerUse>& m_use;
};

} // namespace redraw::python
