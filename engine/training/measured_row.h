#pragma once
/// The one place a metrics row's measured fields are derived, for the CPU (MetricSampler::measure)
/// and for a backend measuring inside its step (LaggedRows): a metric computed from a row's loss and
/// error goes here once, not once per backend. Defined in metric_sampler.cpp.
#include "engine/metrics.h"

#include <cstdint>

namespace redraw {

/// A history row from what was measured at step count `step`: the mean loss and the mean clamped
/// squared error, over every pixel (`exact`) or the run's pixel sample. lr and seconds are the
/// caller's to fill.
MetricsRow measured_row(int64_t step, double loss, double mse, bool exact);

} // namespace redraw
