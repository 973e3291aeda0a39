#pragma once
/// Why a path cannot be reached, in words that name the real cause: "no such file", "a symbolic
/// link loop", "<part> is a file, not a folder", "the name is too long", "permission denied".
#include <filesystem>
#include <string>

namespace redraw {

/// "" when `path` exists (following links); else the reason it cannot be reached.
std::string path_problem(const std::filesystem::path& path);
/// `path` made absolute (lexically normal; links are kept), or `path` itself when that fails.
std::string absolute_path(const std::string& path);
/// For a file about to be created: "" when its folder exists and is a folder; else why not.
std::string folder_problem(const std::filesystem::path& file);

} // namespace redraw
