#pragma once
/// Why a path cannot be reached, in words that name the real cause: "no such file", "a symbolic
/// link loop", "<part> is a file, not a folder", "the name is too long", "permission denied".
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace redraw {

/// "" when `path` exists (following links); else the reason it cannot be reached.
std::string path_problem(const std::filesystem::path& path);
/// `path` made absolute (lexically normal; links are kept), or `path` itself when that fails.
std::string absolute_path(const std::string& path);
/// For a file about to be created: "" when its folder exists and is a folder; else why not.
std::string folder_problem(const std::filesystem::path& file);

/// Reads the whole of a file the user named, or that others could have put in a folder, into
/// `out`. Only a regular file is read: it is opened without blocking (a FIFO waits for no writer)
/// and checked on the open descriptor, so a FIFO, a device (/dev/zero) or a socket at the name,
/// or a link to one, is refused before a byte is read. "" on success; else the reason, with the
/// file's name first: it cannot be reached (path_problem), is a folder ("is a directory, not
/// <what>"), is not a regular file ("is a FIFO (named pipe), not <what> ..."), is over max_bytes
/// ("the file is N MiB, over the <limit> limit"), or cannot be read.
std::string read_user_file(const std::filesystem::path& file, uint64_t max_bytes, const char* what, const char* limit,
                           std::vector<uint8_t>& out);
/// The same for a text file.
std::string read_user_text(const std::filesystem::path& file, uint64_t max_bytes, const char* what, const char* limit,
                           std::string& out);

} // namespace redraw
