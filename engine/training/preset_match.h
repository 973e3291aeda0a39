#pragma once
/// Which preset a run's config is: the name a config carries is only where it started (a GUI edit
/// or a copied preset file keeps "siren"), so `redraw info` and the train log compare the recipe.
#include "engine/run_config.h"

#include <string>

namespace redraw {

/// True when `a` and `b` train the same network the same way: encoding, layers, activations,
/// init, loss, optimizer, schedule and batch. What sizes a run rather than its recipe is ignored:
/// the name, steps, seed, metrics interval, the data section and the output channels.
bool same_recipe(const RunConfig& a, const RunConfig& b);

/// "siren" when the config is the preset it is named after (sizes aside); "custom (from siren)"
/// when it was edited; the config's own name when no preset has that name.
std::string preset_label(const RunConfig& c);

} // namespace redraw
