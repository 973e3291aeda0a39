// The batch scripts of `redraw sweep --slurm` (engine/sweep/slurm_script.h): no value can end an
// #SBATCH line and start a command, names with spaces, apostrophes and % reach Slurm as they are.
// tests/cli/sweep_slurm.sh submits such a folder to a real one-node Slurm.
#include "engine/errors.h"
#include "engine/sweep/slurm_script.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

using namespace redraw;

namespace {
SlurmJob job_in(const std::string& dir) {
  SlurmJob j;
  j.redraw = "/usr/bin/redraw";
  j.dir = dir;
  j.cells = 8;
  j.partition = "debug";
  j.time = "00:05:00";
  return j;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string script_refusal(const SlurmJob& j) {
  try {
    check_slurm_job(j);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return {};
}
} // namespace

TEST_CASE("slurm script: a newline or other control character in any value is refused, naming the option") {
  SlurmJob j = job_in("/data/run");
  CHECK(script_refusal(j).empty());
  j.partition = "debug\n#SBATCH --wrap=touch /tmp/pwned";
  CHECK(script_refusal(j).find("--partition: the partition holds a control character") == 0);
  j = job_in("/data/run");
  j.time = "1\ntouch /tmp/pwned";
  CHECK(script_refusal(j).find("--time: ") == 0);
  j = job_in("/data/run\nrm -rf ~");
  CHECK(script_refusal(j).find("--out: the sweep's folder holds a control character") == 0);
  j = job_in("/data/ru\tn");
  CHECK(script_refusal(j).find("--out: ") == 0);
  j = job_in("/data/\"quoted\"");
  CHECK(script_refusal(j).find("double quote") != std::string::npos);
  j = job_in("/data/back\\slash");
  CHECK(script_refusal(j).find("backslash") != std::string::npos);
}

TEST_CASE("slurm script: every #SBATCH line is one quoted value; % is literal; the commands are shell words") {
  const SlurmJob j = job_in("/data/my sweep's 100%");
  REQUIRE(script_refusal(j).empty());
  for (const std::string& script : {slurm_cells_script(j), slurm_collect_script(j)}) {
    CAPTURE(script);
    int commands = 0;
    for (const std::string& line : lines_of(script)) {
      if (line.rfind("#", 0) == 0) continue; // #! and #SBATCH lines, and comments
      ++commands;
      CHECK(line.rfind("exec '/usr/bin/redraw' sweep --", 0) == 0);
      CHECK(line.find("'/data/my sweep'\\''s 100%'") != std::string::npos); // single-quoted, ' as '\''
    }
    CHECK(commands == 1);
    CHECK(script.find("#SBATCH --partition=\"debug\"\n") != std::string::npos);
    CHECK(script.find("#SBATCH --time=\"00:05:00\"\n") != std::string::npos);
  }
  CHECK(slurm_cells_script(j).find("#SBATCH --output=\"/data/my sweep's 100%%/slurm/cell-%a.out\"\n") !=
        std::string::npos);
  CHECK(slurm_collect_script(j).find("#SBATCH --output=\"/data/my sweep's 100%%/slurm/collect.out\"\n") !=
        std::string::npos);
  CHECK(slurm_cells_script(j).find("#SBATCH --array=0-7\n") != std::string::npos);
  CHECK(slurm_literal_path("a%b%%c") == "a%%b%%%%c");
}
