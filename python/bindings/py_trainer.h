#pragma once
/// redraw.Trainer: one training run driven from Python, through the engine's Trainer as the CLI
/// drives it (open_run, step, the checkpoint writer). docs/python.md has the API.
/// - Threading: the GIL is released while steps run, in slices of about 0.1 s; between slices
///   Python's signals are checked, so Ctrl+C stops training within a slice and one step
///   (KeyboardInterrupt; the run keeps its last finished step and stays usable).
/// - One owner at a time (py_claim.h): train and step own the trainer, a second thread's train is
///   refused; while train's callback runs, read-only calls (render, predict, save, export_weights,
///   metrics) may use it as guests. At interpreter exit training stops at its next step
///   (py_interrupt.h).
#include <pybind11/pybind11.h>

namespace redraw::python {

void bind_trainer(pybind11::module_& m);

} // namespace redraw::python
