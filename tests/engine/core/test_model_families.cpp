// The model families' registry (engine/model_family.h, engine/model_families.cpp): every
// EncodingKind has exactly one record, the names are unique and round-trip, the values model files
// store never move, and each record's parts agree with one another and with the per-element math.
#include "engine/errors.h"
#include "engine/model_family.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace redraw;

TEST_CASE("model families: one record per kind, unique names, name <-> kind round trip") {
  const int32_t n = model_family_count();
  REQUIRE(n == int32_t(model_families().size()));
  std::set<std::string> names, lower;
  for (int32_t i = 0; i < n; ++i) {
    const ModelFamily& f = model_family(EncodingKind(i));
    CAPTURE(f.name);
    CHECK(int32_t(f.kind) == i);
    CHECK(model_families()[size_t(i)] == &f);
    CHECK(names.insert(f.name).second);
    CHECK(lower.insert(family_noun(f)).second); // names match case-insensitively: unique so too
    CHECK(&model_family_named(f.name) == &f);
    CHECK(&model_family_named(family_noun(f)) == &f);
    CHECK(parse_encoding(encoding_name(f.kind)) == f.kind);
    CHECK(std::string(encoding_name(f.kind)) == f.name);
  }
  CHECK_THROWS_WITH_AS(model_family(EncodingKind(n)), doctest::Contains("is not a known encoding"), ConfigError);
  CHECK_THROWS_WITH_AS(model_family(EncodingKind(-1)), doctest::Contains("is not a known encoding"), ConfigError);
  CHECK_THROWS_WITH_AS(model_family_named("Octree"),
                       "Encoding 'Octree' not found (known: Identity, Positional, Fourier, HashGrid, Gaussians, Sad)",
                       ConfigError);
}

TEST_CASE("model families: the values model files store never move") {
  // Appending a family keeps these; reordering the list in engine/encoding_math.h would break every
  // saved model, and this fails.
  CHECK(parse_encoding("Identity") == EncodingKind(0));
  CHECK(parse_encoding("Positional") == EncodingKind(1));
  CHECK(parse_encoding("Fourier") == EncodingKind(2));
  CHECK(parse_encoding("HashGrid") == EncodingKind(3));
  CHECK(parse_encoding("Gaussians") == EncodingKind(4));
  CHECK(parse_encoding("Sad") == EncodingKind(5));
  CHECK(k_default_encoding == EncodingKind(0));
}

TEST_CASE("model families: each record's parts agree") {
  for (const ModelFamily* f : model_families()) {
    CAPTURE(f->name);
    REQUIRE(bool(f->device_params));
    // Trainable floats: counted, drawn and named together.
    CHECK((f->trained_count != nullptr) == (f->init != nullptr));
    CHECK((f->trained_count != nullptr) == (f->trained_noun != nullptr));
    // A fixed matrix: counted, drawn and named together.
    CHECK((f->fixed_count != nullptr) == (f->fixed_matrix != nullptr));
    CHECK((f->fixed_count != nullptr) == (f->fixed_noun != nullptr));
    // No neurons to map: the app shows the family's own view instead.
    CHECK((f->no_neurons != nullptr) == (f->insight != InsightView::NeuronMaps));
    for (const FamilyField& field : f->fields) {
      CAPTURE(field.label);
      CHECK((field.i32 != nullptr) + (field.i64 != nullptr) + (field.f32 != nullptr) == 1);
      CHECK(field.lo <= field.hi);
      CHECK((field.widget == FieldWidget::LogSlider) == (field.f32 != nullptr));
    }
    EncodingSpec spec;
    spec.kind = f->kind;
    const EncodingParams p = f->device_params(spec);
    CHECK(p.kind == f->kind);
    CHECK(spec.width() == encoding_width(p));
    if (f->fixed_count) {
      CHECK(int64_t(f->fixed_matrix(spec, 7).size()) == f->fixed_count(spec));
      CHECK(int64_t(fourier_matrix(spec, 7).size()) == f->fixed_count(spec));
    }
  }
}

TEST_CASE("model families: widths and trainable floats against their closed forms") {
  EncodingSpec e;
  e.kind = EncodingKind::Identity;
  CHECK(e.width() == 2);
  CHECK(encoding_parameter_count(e) == 0);
  e.kind = EncodingKind::Positional;
  e.levels = 6;
  CHECK(e.width() == 2 + 4 * 6);
  e.kind = EncodingKind::Fourier;
  e.features = 40;
  CHECK(e.width() == 80);
  CHECK(encoding_parameter_count(e) == 0);
  e.kind = EncodingKind::Gaussians;
  e.gaussians = 1234;
  CHECK(e.width() == 3);
  CHECK(encoding_parameter_count(e) == 1234 * 8);
  e.kind = EncodingKind::Sad;
  e.sites = 321;
  CHECK(e.width() == 3);
  CHECK(encoding_parameter_count(e) == 321 * 10);
  // A grid whose levels are all dense: 16 and 24 cells per side, (N + 1)^2 vertices, 2 floats each.
  e.kind = EncodingKind::HashGrid;
  e.n_levels = 2;
  e.n_features_per_level = 2;
  e.log2_hashmap_size = 12;
  e.base_resolution = 16;
  e.per_level_scale = 1.5f;
  e.finest_resolution = 0;
  CHECK(e.width() == 4);
  CHECK(encoding_parameter_count(e) == (17 * 17 + 25 * 25) * 2);
}
