#pragma once
/// Test hook: a scripted-input mode for the GUI tests under Xvfb (`redraw gui --test-script FILE`).
/// A script is a text file of commands, one a line (`#` starts a comment). Commands run in order,
/// as many per frame as do not wait; the app exits 0 after the last one, 1 at the first failure
/// (the line and why on stderr).
///   key SPEC            press and release a key this frame: a letter, digit, space, escape,
///                       enter, period, with "ctrl+" in front for Ctrl (key ctrl+o)
///   drop PATH           a file dropped on the window (what drag & drop does)
///   scrub STEP          the timelapse slider moved to the frame at or before STEP
///   resume_here         the "Resume training from here" button
///   accept_budget       the image memory offer's "Open with N MiB" button
///   switch_line ID      a run-tree line chosen (RunLine::id)
///   open_run_tree       the run-tree popup opened
///   compare KIND VALUE  Training > Compare with...: KIND preset|activation|omega_0|lr_max
///   compare_pace same_step|same_second  Training > Compare at the same step (on, off)
///   close_compare [LETTER]  the comparison closed, keeping run A (default) or the run of that letter
///   save PATH           File > Save model to PATH (and run B to PATH-B when comparing)
///   export_compare PATH W H  File > Export, "Runs side by side", each run's picture W x H
///   open_sweep DIR      File > Open sweep with DIR (a `redraw sweep` folder)
///   sweep_sort COLUMN asc|desc  the sweep browser sorted by a column (psnr_db, seconds, ...)
///   sweep_click K       cell K's tile clicked (its model opens); sweep_select K: Ctrl+clicked
///   sweep_compare       "Compare selected" (the two selected cells as runs A and B)
///   exec COMMAND        run a shell command and wait for it (fail unless it exits 0), e.g. the
///                       test helper that sends the window manager's close request
///   owner_map MODE [A]  the Sites window's owner map: off, colours (each site's) or distinct, at
///                       opacity A; outline on|off: the Gaussians or Sites window's outlines
///   pointer FX FY       the pointer at (FX, FY), fractions of the window, until `pointer off`:
///                       hovering and the picture's pixel tooltip as under a user's pointer
///   mouse down|up       the left button pressed or released at that pointer
///   frames N            let N frames pass
///   wait COND           wait until COND holds (at most 120 s, then fail)
///   expect COND         fail unless COND holds now
///   screenshot FILE     write the window as PNG after this frame (and FILE.json, as --screenshot)
///   expect_quit         the window must close within 30 s (a confirmed Quit); the script ends there
///   pace real           from here on frames follow the pacing rule of a user's session
///                       (ui/session/frame_pacing.h) instead of coming at every wake-up; a scripted key
///                       counts as input. Commands still run once per drawn frame.
///   idle SECONDS        let that much time pass (frames as the pacing gives them)
///   wait_within S COND  wait until COND holds, failing after S seconds
///   expect_fps_at_most N  fail when more than N frames were drawn in the last second
/// Conditions: hover_has TEXT (the picture's pixel tooltip drawn last frame holds TEXT), no_hover
/// (none was drawn), has_run (a run is loaded and its picture shown), prompt, no_prompt, budget_offer (an
/// image over the memory budget is offered), running, paused, unsaved, saved,
/// scrubbed, live, frame_shown (the scrubbed frame's picture has arrived), sharp, not_sharp (the
/// sharp zoom's render is drawn), zoom_step<=N (the step of the weights that render drew), step>=N, step<=N, lines==N, shown>=N (the canvas shows the live picture of step N or later),
/// history_last>=N, history_last<=N (the curves' last step), frames>=N, frame_last>=N (the
/// timelapse), preview_w>=N (the width of the live run's host preview; -1 before one),
/// truth_w>=N (the training image's width), truth_texels (the ground truth's GL texture, read
/// back, holds exactly the training image as RGBA8), source_has TEXT, message_has TEXT (a message of this session holds TEXT), file_exists PATH, discarded_copies>=N (ConfirmState::keep_folder),
/// sweep_cells==N, sweep_thumbs>=N (the sweep browser's cells, and those with a thumbnail),
/// gaussians_outlined>=N (the Gaussians view's ellipses drawn over run A's picture last frame),
/// gaussians_step>=N (the step of the parameters it shows, Gaussians or sites; -1 before any),
/// owner_map_step>=N (the step of the owner map drawn; -1 before any), sites_idle<=N (the sites
/// that own no pixel of it; -1 for a model without sites),
/// edited_carrier==N, run_carrier==N (the Gaussians' cosine carrier, 1 or 0, in the controls' edited
/// settings and in run A's model), growth_events>=N (run A's growth events, training.grow), growth_marks>=N (the marks of them
/// drawn on the loss plot last frame), growth_ticks>=N (the ticks on the timelapse slider),
/// scrubbed_step==N (the step of the timelapse frame chosen while scrubbed; -1 when live),
/// comparing, not_comparing, runs_shown>=N (the runs side by side), compare_step>=N,
/// compare_shown>=N (run B), compare_gap<=N (A's step and B's apart, either way), compare_frame<=N
/// (B's timelapse frame on screen while A's is scrubbed; -1 when none); the same for each further
/// run with its letter, run_C_step>=N, run_D_shown>=N, ...; compare_differs (every two runs shown
/// show different pictures and none is blank). They read each run by its place in UiState::runs.
/// Every comparison takes >=, <= or ==.
/// GUI thread only; nothing here runs without --test-script.
#include "ui/state/ui_state.h"

#include <deque>
#include <string>
#include <vector>

namespace redraw {

struct TestScript {
  std::vector<std::string> lines;
  size_t next = 0;
  int32_t frames_left = 0;
  double wait_started = -1; ///< ui.now when the current `wait` began
  std::string screenshot;   ///< write this after the current frame is drawn
  std::string failure;      ///< set: the test failed
  bool finished = false;    ///< every command ran
  bool expecting_quit = false;
  bool paced = false;        ///< `pace real`: frames as in a user's session
  std::deque<double> drawn;  ///< ui.now of the frames drawn in the last second
};

/// Reads `path` into `out`; returns an error message ("" on success).
std::string load_test_script(const std::string& path, TestScript& out);
/// Runs this frame's due commands (before the frame reads its input). GUI thread.
void run_test_script(TestScript& script, UiState& ui);
/// True when condition `cond` holds (the grammar above); `error` is set for an unknown one.
bool test_condition(const UiState& ui, const std::string& cond, std::string& error);

} // namespace redraw
