#pragma once
/// Picks a Backend by name at run time: "cpu", "cuda", or "auto" (CUDA when a device exists,
/// otherwise the CPU with a one-line notice). Lives outside engine/ so engine never links CUDA.
/// The CUDA backend lives in a module loaded at run time (app/device_plugin_loader.h): the
/// executable itself needs no CUDA library to start.
#include "engine/backend.h"
#include "engine/device_interop.h"

#include <memory>
#include <string>

namespace redraw {

/// Throws ConfigError for an unknown name and BackendError when "cuda" is asked for and no device
/// (or driver, or CUDA module) is there, or the device can't be opened. "auto" falls back to the CPU
/// in both cases and puts the one-line reason in `notice`. `precision` is the GPU's matrix-product
/// precision ("auto", "fp32", "tf32", "bf16"; empty = REDRAW_CUDA_PRECISION or auto): ConfigError for an
/// unknown name or a reduced precision with "cpu"; "auto" on the CPU says it computes in fp32.
std::unique_ptr<Backend> make_backend(const std::string& name, std::string* notice = nullptr,
                                      const std::string& precision = {});
/// Human-readable list of compiled-in backends and the devices found (for `redraw info --backends`).
std::string describe_backends();
/// True when the CUDA module is loaded and a usable device exists.
bool cuda_available();
/// The GPU module's preview interop (for the GUI), or null with the reason in `why`.
std::shared_ptr<DeviceInterop> make_device_interop(std::string* why = nullptr);

/// make_backend as a BackendFactory (engine/backend.h), for open_run and the GUI.
BackendFactory backend_factory();

} // namespace redraw
