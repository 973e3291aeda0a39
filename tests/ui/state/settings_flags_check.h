#pragma once
/// For the tests of the rooms from ui/state/ up: a Settings flag is remembered.
#include "test_support.h"

#include "ui/state/settings_store.h"

#include <doctest/doctest.h>

#include <initializer_list>

namespace redraw::test {

/// In fresh config and data folders: each of `flags` is off in the default settings, and saved on,
/// loads back on.
inline void check_flags_remembered(std::initializer_list<bool Settings::*> flags) {
  TempDir dir;
  ScopedEnv env("XDG_CONFIG_HOME", dir.path.string());
  ScopedEnv data("XDG_DATA_HOME", dir.path.string());
  Settings s = load_settings();
  for (bool Settings::*flag : flags) CHECK(!(s.*flag));
  for (bool Settings::*flag : flags) s.*flag = true;
  CHECK(save_settings(s).empty());
  const Settings back = load_settings();
  for (bool Settings::*flag : flags) CHECK(back.*flag);
}

} // namespace redraw::test
