#include "engine/model_family.h"

#include "engine/errors.h"
#include "engine/named_enum.h"

#include <array>
#include <cctype>

namespace redraw {

// The families are listed once, in REDRAW_MODEL_FAMILIES (engine/encoding_math.h), each with its
// record (declared in engine/model_family.h); the record lives in the family's own file and says
// its kind, checked against its place.

namespace {
#define REDRAW_FAMILY_ADDRESS(kind_name, Math, record) &record,
constexpr std::array k_family_list = {REDRAW_MODEL_FAMILIES(REDRAW_FAMILY_ADDRESS)};
#undef REDRAW_FAMILY_ADDRESS

/// The records in EncodingKind order; a kind listed twice or missing stops the program at start,
/// before any model is read (the tests check the same, with names).
std::array<const ModelFamily*, k_family_list.size()> families_by_kind() {
  std::array<const ModelFamily*, k_family_list.size()> out{};
  for (const ModelFamily* f : k_family_list) {
    const auto i = size_t(f->kind);
    if (i >= out.size() || out[i]) throw std::logic_error(std::string("model family ") + f->name + ": kind misplaced");
    out[i] = f;
  }
  return out;
}

const std::array<const ModelFamily*, k_family_list.size()>& family_table() {
  static const auto table = families_by_kind();
  return table;
}
} // namespace

const ModelFamily& model_family(EncodingKind kind) {
  const auto& t = family_table();
  const auto i = size_t(int32_t(kind));
  if (int32_t(kind) < 0 || i >= t.size())
    throw ConfigError("model.encoding: kind " + std::to_string(int32_t(kind)) + " is not a known encoding");
  return *t[i];
}

const ModelFamily& model_family_named(const std::string& name) {
  for (const ModelFamily* f : family_table())
    if (iequals(f->name, name)) return *f;
  std::string known;
  for (const ModelFamily* f : family_table()) known += (known.empty() ? "" : ", ") + std::string(f->name);
  throw ConfigError("Encoding '" + name + "' not found (known: " + known + ")");
}

std::span<const ModelFamily* const> model_families() { return family_table(); }

int32_t model_family_count() { return int32_t(k_family_list.size()); }

void size_encoding_to_image(EncodingSpec& enc, int32_t w, int32_t h) {
  if (const ModelFamily& f = model_family(enc.kind); f.size_to_image) f.size_to_image(enc, w, h);
}

std::string model_shape(const ModelSpec& m) {
  const ModelFamily& f = model_family(m.encoding.kind);
  if (f.describe_shape) return f.describe_shape(m);
  return "hidden " + std::to_string(m.hidden.empty() ? 0 : m.hidden.front()) + " wide";
}

LaneStep trained_lane_step(const EncodingSpec& enc) {
  const ModelFamily& f = model_family(enc.kind);
  return f.trained_lanes ? f.trained_lanes(enc) : LaneStep{};
}

std::string family_noun(const ModelFamily& family) {
  std::string s = family.name;
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

} // namespace redraw
