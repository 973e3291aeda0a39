#pragma once
/// Entry point of the desktop app (Dear ImGui + GLFW + OpenGL 3.3 core).
/// - app/main.cpp parses the command line and calls run_gui() for `redraw`, `redraw IMAGE` and
///   `redraw gui ...`; nothing else in app/ touches the window.
/// - run_gui() returns the process exit code: 0 normally (and after a successful --screenshot),
///   1 when no window could be opened, the screenshot could not be written, or (with --screenshot)
///   no run could start or step N was not reached within 10 minutes. Errors inside the
///   app (bad image, bad model file, out of memory) are shown in the window, never thrown out.
#include "engine/backend.h"
#include "engine/backend_names.h"
#include "engine/device_interop.h"
#include "ui/testing/frame_hooks.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace redraw {

struct GuiOptions {
  std::string image;                  ///< image to open; empty = the bundled default image
  std::string model;                  ///< a .redraw model to open instead of an image (optional)
  std::string preset;                 ///< preset name or a .json config path; empty = the remembered one
  std::vector<std::string> sets;      ///< --set KEY=VALUE: config fields over that preset (engine/config_fields.h)
  std::string backend = k_auto_backend; ///< a backend_choices() name (engine/backend_names.h)
  std::string precision;              ///< fp32 | tf32 | bf16 on the GPU; empty = the remembered one
  bool autostart = false;             ///< start training as soon as the window opens
  bool show_about = false;            ///< open Help > About at start (a screenshot of it, for one)
  float ui_scale = 0;                 ///< UI scale for this session (times the monitor's); 0 = the setting
  bool show_perf = false;             ///< open the performance panel at start
  double max_image_memory_mb = 0;     ///< the image memory budget for this session (MiB); 0 = the setting
  TestOptions testing;                ///< test and benchmark switches (ui/testing/frame_hooks.h)
  BackendFactory make_backend;        ///< required: builds each run's backend (app/ passes its registry)
  std::shared_ptr<DeviceInterop> interop; ///< the GPU module's preview path, or null (host previews)
  std::string about_version;              ///< Help > About: version, build and backends (app/ fills it)
  std::string about_licences;             ///< Help > About: licences of the assets and libraries (Markdown)
};

int run_gui(const GuiOptions& opts);

} // namespace redraw
