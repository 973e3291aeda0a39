#pragma once
/// Picks a Backend by name at run time: a record's of engine/backend_names.h, or "auto" (a GPU when a
/// device exists, otherwise the CPU with a one-line notice). Holds each record's factory; lives
/// outside engine/ so engine never links CUDA.
/// The CUDA backend lives in a module loaded at run time (app/device_plugin_loader.h): the
/// executable itself needs no CUDA library to start.
#include "engine/backend.h"
#include "engine/device_interop.h"

#include <memory>
#include <string>
#include <vector>

namespace redraw {

/// Throws ConfigError for an unknown name and BackendError when a GPU backend is asked for and no
/// device (or driver, or module) is there, or the device can't be opened. "auto" falls back to the
/// CPU in both cases and puts the one-line reason in `notice`. `precision` is one of
/// precision_choices() (empty = REDRAW_CUDA_PRECISION or auto): ConfigError for an unknown one or
/// one the named backend does not compute in; "auto" on the CPU says it computes in fp32.
std::unique_ptr<Backend> make_backend(const std::string& name, std::string* notice = nullptr,
                                      const std::string& precision = {});
/// Human-readable list of compiled-in backends and the devices found (for `redraw info --backends`).
std::string describe_backends();
/// True when the CUDA module is loaded and a usable device exists.
bool cuda_available();
/// True when `requested` ("auto" or a backend's name) would train on a GPU here: a GPU backend
/// with a usable device.
bool gpu_usable_for(const std::string& requested);
/// The name of the backend `requested` takes here: itself, or for "auto" the first GPU backend
/// with a usable device, else the CPU's.
std::string backend_taken_by(const std::string& requested);
/// The names of the records that have a factory here, in k_backends' order (tests: every record has one).
std::vector<std::string> backend_makers();
/// The GPU module's preview interop (for the GUI), or null with the reason in `why`.
std::shared_ptr<DeviceInterop> make_device_interop(std::string* why = nullptr);

/// make_backend as a BackendFactory (engine/backend.h), for open_run and the GUI.
BackendFactory backend_factory();

} // namespace redraw
