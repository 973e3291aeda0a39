#pragma once
/// The slot bookkeeping of a triple-buffered frame hand-over between one writer thread and one
/// reader thread (the GPU preview ring). Pure logic, no locking: the owner holds its mutex around
/// each call. Three slots are always a permutation of {writing, ready, reading}:
/// - the writer fills `writing`; publish() swaps it with `ready` and marks a fresh frame;
/// - take() swaps `ready` into `reading` when a fresh frame waits, and marks the reader busy;
/// - release() ends the read. A slot the reader holds is never `writing`, so the writer never
///   overwrites (or reallocates) a frame that is being copied out; and take() refuses to run while
///   the previous read is unreleased, so a reader cannot hand its busy slot back to the writer.
#include <cstdint>
#include <utility>

namespace redraw {

class FrameRingState {
public:
  /// The slot the writer may fill now.
  int writing() const { return m_writing; }
  /// The slot the reader holds (valid between take() and release()).
  int reading() const { return m_reading; }
  bool reader_busy() const { return m_reader_busy; }
  bool fresh() const { return m_fresh; }

  /// Writer: the frame in writing() is complete; it becomes the newest.
  void publish() {
    std::swap(m_writing, m_ready);
    m_fresh = true;
  }
  /// Reader: takes the newest frame. False (and nothing changes) when none is fresh or the reader
  /// still holds the previous one.
  bool take() {
    if (!m_fresh || m_reader_busy) return false;
    std::swap(m_reading, m_ready);
    m_fresh = false;
    m_reader_busy = true;
    return true;
  }
  /// Reader: done with reading().
  void release() { m_reader_busy = false; }

private:
  int m_writing = 0, m_ready = 1, m_reading = 2;
  bool m_fresh = false;
  bool m_reader_busy = false;
};

} // namespace redraw
