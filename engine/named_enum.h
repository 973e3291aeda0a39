#pragma once
/// Factory-by-name lookups in the tiny-cuda-nn style: names match case-insensitively, and an unknown
/// name throws ConfigError("Loss 'Foo' not found (known: MSE, L1, Huber, BCE)").
#include "engine/errors.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace redraw {

bool iequals(std::string_view a, std::string_view b);

template <class E> using NameTable = std::vector<std::pair<const char*, E>>;

template <class E> E lookup_name(std::string_view what, std::string_view name, const NameTable<E>& table) {
  for (const auto& [n, e] : table)
    if (iequals(n, name)) return e;
  std::string known;
  for (const auto& [n, e] : table) known += (known.empty() ? "" : ", ") + std::string(n);
  throw ConfigError(std::string(what) + " '" + std::string(name) + "' not found (known: " + known + ")");
}

template <class E> const char* name_of(E value, const NameTable<E>& table) {
  for (const auto& [n, e] : table)
    if (e == value) return n;
  return "?";
}

} // namespace redraw
