#pragma once
/// The names a backend is chosen by (a config's, a sweep's, --backend): "auto" takes the GPU when
/// one is usable, else the CPU. (A header of its own, so a list that grows touches few files.)

namespace redraw {

inline constexpr const char* k_backend_choices[] = {"auto", "cpu", "cuda"};

} // namespace redraw
