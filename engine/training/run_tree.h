#pragma once
/// The branches of one run: "Resume training from here" keeps the abandoned future as a line the
/// user can switch back to, so no training is ever dropped without a word.
/// - A RunTree holds the lines of the run a Trainer trains. One line is active: it lives in the
///   Trainer. Every other line is stored whole, as an in-memory Checkpoint (weights, optimizer
///   state, update count, curves, frames with their optimizer states), so switching to it brings
///   back exactly what it had, and training it further continues it exactly.
/// - Memory: the frame memory cap (set_cap_bytes, the timelapse's cap) covers every line. The
///   stored lines use at most half of it: each gets an equal share for its frames, thinned as the
///   timelapse thins (optimizer states first, then frames, keeping its first and newest); when
///   that is not enough, the least recently active stored line is dropped (never the newest
///   one) and a notice says so. The active line's frames get the cap minus what the stored
///   lines hold (at least half of it).
/// - Lines are not saved in .redraw files: a saved model is the active line.
/// - Threading: none; the training thread owns it with the Trainer.
#include "engine/model_files/checkpoint.h"
#include "engine/frames/timelapse.h"
#include "engine/training/trainer.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace redraw {

/// One line of the run tree, as the UI lists it.
struct RunLine {
  int32_t id = 0;        ///< 0 = main
  int32_t parent = -1;   ///< the line it branched from (-1 for main)
  int64_t fork_step = 0; ///< the step it branched at (0 for main)
  int64_t end_step = 0;  ///< its newest step
  bool active = false;   ///< the line the trainer holds now
  bool exact = true;     ///< it continued with the optimizer state of its frame (else the optimizer restarted)
  size_t bytes = 0;      ///< memory a stored line holds (0 for the active one: the timelapse counts it)
  /// "main: steps 0..2000" or "branch at 400: steps 400..900".
  std::string label() const;
};

class RunTree {
public:
  /// A new run (load, reset): one line, "main", active, none stored.
  void reset();
  /// The frame memory cap for every line together; thins and drops stored lines to fit it, and
  /// sets the trainer's timelapse cap to what is left. Returns notices (lines dropped).
  std::vector<std::string> set_cap_bytes(Trainer& t, size_t cap_bytes);
  size_t cap_bytes() const { return m_cap; }

  struct BranchResult {
    bool exact = false;               ///< the optimizer state was restored (Trainer::branch_from_snapshot)
    std::vector<std::string> notices; ///< stored lines dropped to make room
  };
  /// Branches at frame `frame` of the active line: the active line is stored as it stands and a
  /// new line from that frame's step becomes active. std::out_of_range for a bad frame.
  BranchResult branch(Trainer& t, size_t frame);
  /// Makes line `id` active: the active line is stored, `id` is restored into the trainer.
  /// False (nothing changed) for an unknown id or the active one. Notices as for branch().
  bool switch_to(Trainer& t, int32_t id, std::vector<std::string>& notices);

  /// Every line, by id (main first); end_step of the active one is the trainer's step.
  std::vector<RunLine> lines(const Trainer& t) const;
  size_t line_count() const { return m_stored.size() + 1; }
  /// Memory the stored lines hold.
  size_t stored_bytes() const;

private:
  struct Stored {
    RunLine line;
    Checkpoint state;
  };
  static size_t bytes_of(const Checkpoint& c);
  /// Fits the stored lines into half the cap and gives the rest to the trainer's timelapse.
  std::vector<std::string> fit(Trainer& t);
  void store_active(Trainer& t);

  std::vector<Stored> m_stored; ///< least recently active first
  RunLine m_active{0, -1, 0, 0, true, true, 0};
  int32_t m_next_id = 1;
  size_t m_cap = k_default_snapshot_cap_bytes;
};

} // namespace redraw
