// The hints app/main.cpp adds to a parse error (cli_usage_hints.h).
#include "app/cli_usage_hints.h"

#include <filesystem>
#include <vector>

namespace redraw::cli {

namespace {

/// The subcommand named on the command line (the first word that is one), else the app itself.
CLI::App& command_of(CLI::App& app, int argc, char** argv) {
  const std::vector<CLI::App*> commands = app.get_subcommands([](CLI::App*) { return true; });
  for (int i = 1; i < argc; ++i)
    for (CLI::App* c : commands)
      if (c->get_name() == argv[i]) return *c;
  return app;
}

/// True when `word` is one of `cmd`'s options or the app's: "--out", "--out=dir", or a short
/// option with its value attached ("-ofile.png" is -o).
bool is_option(const CLI::App& app, const CLI::App& cmd, const std::string& word) {
  const std::string name = word.rfind("--", 0) == 0 ? word.substr(0, word.find('=')) : word.substr(0, 2);
  return cmd.get_option_no_throw(name) != nullptr || app.get_option_no_throw(name) != nullptr;
}

/// How to write the command in the hint: `redraw IMAGE` opens the app, whose command is gui.
std::string command_words(const CLI::App& app, const CLI::App& cmd) {
  return "redraw " + (&cmd == &app ? std::string("gui") : cmd.get_name());
}

} // namespace

std::string dash_file_error(CLI::App& app, int argc, char** argv) {
  const CLI::App& cmd = command_of(app, argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;
    if (word.size() < 2 || word[0] != '-' || is_option(app, cmd, word)) continue;
    std::error_code ec;
    const bool exists = std::filesystem::exists(word, ec);
    if (!exists && word.find_first_of("./") == std::string::npos) continue; // a mistyped option: CLI11 says so
    const std::string command = command_words(app, cmd);
    return "'" + word + "' is not an option of " + command + "; a file whose name starts with '-' is given after -- (" +
           command + " [options] -- " + word + ") or as ./" + word +
           (exists ? "" : " (and no file of that name is here either)");
  }
  return "";
}

std::string options_after_dashes_note(CLI::App& app, int argc, char** argv) {
  const CLI::App& cmd = command_of(app, argc, argv);
  bool after = false;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (!after) {
      after = word == "--";
      continue;
    }
    if (word.rfind("--", 0) == 0 && word.size() > 2 && is_option(app, cmd, word))
      return "'" + word + "' comes after --, where every word is taken as a file name; give the options before --";
  }
  return "";
}

} // namespace redraw::cli
