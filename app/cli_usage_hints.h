#pragma once
/// What a command line that CLI11 refused most likely meant, in words that say how to fix it
/// (app/main.cpp prints them with the parse error).
#include <CLI/CLI.hpp>

#include <string>

namespace redraw::cli {

/// The error for a word before `--` that starts with '-' but is no option of its command and names
/// a file (there is one of that name, or the word has a '.' or '/' in it): "'-dash.png' is not an
/// option of redraw train; a file whose name starts with '-' is given after -- (redraw train
/// [options] -- -dash.png) or as ./-dash.png". "" when no word is like that.
std::string dash_file_error(CLI::App& app, int argc, char** argv);

/// A note for options written after `--`, where every word is taken as a file name; "" when none is.
std::string options_after_dashes_note(CLI::App& app, int argc, char** argv);

} // namespace redraw::cli
