#include "app/cli_commands.h"
#include "app/cli_common.h"

namespace redraw::cli {
// Replaced by the timelapse exporter (issue #5) in this session.
int run_timelapse(const TimelapseCommand&) { throw UsageError("timelapse: not available yet"); }
} // namespace redraw::cli
