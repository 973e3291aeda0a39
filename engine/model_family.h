#pragma once
/// A model family (an encoding: identity, positional, Fourier, hash grid, Gaussians) is one record:
/// everything the house asks of a family is a field or a function of its ModelFamily, so nothing
/// outside the family's own files branches on EncodingKind.
/// - Each family defines its record in its own file (engine/<name>_family.cpp) and is listed once,
///   on one line with its kind and per-element math, in REDRAW_MODEL_FAMILIES
///   (engine/encoding_math.h); engine/model_families.cpp makes the table, indexed by EncodingKind
///   and checked complete (tests/engine/core/test_model_families.cpp).
/// - A closed-form family is encoded by every backend element by element (encoding_value), or by
///   an encoder of the backend's own. A family whose encoding reads trainable floats (hash grid,
///   Gaussians, sad) has kernels behind each backend's interface for them (cpu::CpuTrainedEncoding,
///   cuda::CudaTrainedEncoding), which the backend's step calls without asking which family it is;
///   a backend without a trained family's kernels refuses it by name (the CUDA backend and sad).
///   Each backend registers its kernels in one table keyed by the record
///   (cpu/cpu_family_encoders.cpp, cuda/trained_encodings.cu).
/// - Functions left null mean "nothing to do" (no trained floats, no fixed matrix, ...), as each
///   field's comment says.
#include "engine/model_spec.h"
#include "engine/optimizer_math.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace redraw {

struct GrowSpec;
struct GrowthPicture;
struct OptimizerState;

/// How the app's controls show one of a family's fields (ui/panels/controls_panel.cpp draws them).
enum class FieldWidget : int32_t {
  Slider,    ///< an int slider over [lo, hi]
  Input,     ///< an int or int64 input, +-step, checked against [lo, hi]
  LogSlider, ///< a float slider over [lo, hi], logarithmic
  PowerOfTwo ///< an int chosen among the powers of two in [lo, hi]
};

/// One field of a family's config the app shows. Exactly one of i32, i64, f32 is set.
struct FamilyField {
  const char* label;
  FieldWidget widget;
  int32_t EncodingSpec::*i32 = nullptr;
  int64_t EncodingSpec::*i64 = nullptr;
  float EncodingSpec::*f32 = nullptr;
  double lo = 0, hi = 0, step = 1;
};

/// What a family adds to the app's controls after its fields: nothing, or the hash grid's table
/// group (table size, base and finest resolution, interpolation, each with its auto choice).
enum class FamilyPanel : int32_t { None, HashGridTable };
/// Which insight view the app shows for a family's runs.
enum class InsightView : int32_t {
  NeuronMaps, ///< its units, layer by layer (engine/insight/neuron_maps.h)
  Gaussians,  ///< no neurons to map: its Gaussians (engine/insight/primitive_view.h)
  Sites       ///< no neurons to map: its sites and their owner map (engine/insight/primitive_view.h)
};

/// One tensor of the weights export (safetensors), its values borrowed.
struct FamilyTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::span<const float> values;
};
/// A family's part of the weights export: the metadata the reference decoder
/// (python/redraw_reference.py) reads, and its tensors, ahead of the dense layers'.
struct FamilyExport {
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<FamilyTensor> tensors;
  std::vector<float> owned; ///< values a tensor borrows that are not parameters (the Fourier matrix)
};

struct ModelFamily {
  EncodingKind kind;
  const char* name;            ///< configs' and model files' "otype" ("HashGrid")
  const char* trained_noun;    ///< its trainable floats in words ("hash table"), null when it has none
  const char* fixed_noun;      ///< its fixed input matrix in words ("fourier matrix"), null when none
  InsightView insight;         ///< what the app's insight view maps for it
  const char* no_neurons;      ///< null: neuron maps draw its units; else why it has none to map
  const char* fused_refusal;   ///< null: the fused GPU path takes it; else why not ("the gaussians encoding")
  bool passes_coordinates;     ///< its output is the coordinates themselves (no encoding pass)
  bool budget_sizes_grid;      ///< a parameter budget chooses its levels and table beside the width
  std::span<const FamilyField> fields; ///< what the app's controls show, in order
  FamilyPanel panel;                   ///< the controls' group after the fields

  /// Its per-element view for encoding_width / encoding_value (engine/encoding_math.h).
  EncodingParams (*device_params)(const EncodingSpec&);
  /// Throws ConfigError naming the field when its own fields are invalid (null: nothing to check).
  void (*validate)(const EncodingSpec&);
  /// Trainable floats leading the parameter array (null: none).
  int64_t (*trained_count)(const EncodingSpec&);
  /// Draws its trainable floats into p[0, trained_count) from `seed`; returns true when it also set
  /// the dense layers (the Gaussians' colour head). Null: none.
  bool (*init)(const ModelSpec&, const std::vector<DenseLayer>&, uint64_t seed, float* p);
  /// Floats of its fixed matrix and the matrix itself, drawn from the run's seed (null: none).
  int64_t (*fixed_count)(const EncodingSpec&);
  std::vector<float> (*fixed_matrix)(const EncodingSpec&, uint64_t run_seed);
  /// Whether two specs of this family build the same network (requires_new_trainer); the common
  /// fields (levels, features, sigma, seed) are compared by the caller. Null: they do.
  bool (*same_fields)(const EncodingSpec&, const EncodingSpec&);
  /// Writes the fields only it has into a config's model.encoding and model objects (null: none).
  void (*write_config)(const EncodingSpec&, nlohmann::json& encoding, nlohmann::json& model);
  /// Resolves its image-sized fields for a w x h training image (null: none).
  void (*size_to_image)(EncodingSpec&, int32_t w, int32_t h);
  /// Its weights-export rule: metadata and tensors (params: the whole parameter array). Null: none.
  void (*export_rule)(const EncodingSpec&, uint64_t run_seed, std::span<const float> params, FamilyExport&);
  /// The shape in a few words, for a bench plan ("30000 Gaussians"). Null: "hidden W wide".
  std::string (*describe_shape)(const ModelSpec&);
  /// Flops its encoding adds per sample beyond the dense layers (forward and back), for estimates
  /// (null: none worth counting).
  double (*encode_flops)(const EncodingSpec&);
  /// Sizes the model to a parameter budget by its own knob and returns the count (null: the
  /// hidden width, and the grid when budget_sizes_grid).
  int64_t (*size_to_budget)(ModelSpec&, int64_t budget);
  /// Empty, or why `params` cannot be rendered in bounded time (the Gaussians' coverage bound).
  /// Null: any finite parameters render.
  std::string (*params_problem)(const ModelSpec&, std::span<const float> params);
  /// A host encoder of one point for the neuron maps, prepared once for `params` (the whole
  /// parameter array): writes encoding_width floats to out. Null: encoding_value's closed form
  /// (engine/encoding_math.h) with the fixed matrix.
  std::function<void(float x, float y, float* out)> (*host_encoder)(const EncodingSpec&, std::span<const float> params);
  /// A CPU minibatch of `batch` samples defers its floats' gradient and update to the next step
  /// (the hash grid's table): the floats it keeps instead of a gradient array, for the app's
  /// memory estimate. Null: no deferral (a gradient array beside the floats).
  int64_t (*deferred_update_floats)(const EncodingSpec&, int64_t batch);
  /// A learning-rate factor on some lanes of its trainable floats (the Gaussians' means step in
  /// cells, engine/gaussian_math.h), which both backends' optimizer updates apply. Null: none.
  LaneStep (*trained_lanes)(const EncodingSpec&) = nullptr;
  /// Its primitives relocate where the error is under training.grow (engine/growth.h): how many
  /// it has (what GrowSpec::fraction is a fraction of), and one relocation of them in `params`
  /// (the whole parameter array; a linear colour head, as grow_problem requires) on `picture`,
  /// from (seed, step), zeroing the moved ones' entries of `moments`: returns how many moved
  /// (engine/gaussian_growth.h, engine/sad_growth.h). Null: a config that asks for growth is refused.
  int64_t (*primitives)(const EncodingSpec&) = nullptr;
  int64_t (*grow)(const ModelSpec&, const GrowSpec&, uint64_t seed, int64_t step, const GrowthPicture& picture,
                  std::span<float> params, OptimizerState& moments) = nullptr;
  /// Its primitives may take the cosine carrier (model.encoding.carrier, engine/gaussian_math.h:
  /// the Gaussians); false: a config that asks for it is refused.
  bool carries = false;
};

/// Every family's record, by the name REDRAW_MODEL_FAMILIES gives it (k_gaussians_family): a
/// backend's table of kernels is keyed by them (cpu/cpu_family_encoders.cpp,
/// cuda/trained_encodings.cu).
#define REDRAW_DECLARE_FAMILY(kind_name, Math, record) extern const ModelFamily record;
REDRAW_MODEL_FAMILIES(REDRAW_DECLARE_FAMILY)
#undef REDRAW_DECLARE_FAMILY

/// The record of `kind` (every EncodingKind has one); ConfigError for a value outside the enum.
const ModelFamily& model_family(EncodingKind kind);
/// The record named `name` (case-insensitive); ConfigError listing the known names otherwise.
const ModelFamily& model_family_named(const std::string& name);
/// Every family, in EncodingKind order.
std::span<const ModelFamily* const> model_families();
/// How many families there are (EncodingKind values 0 .. count-1).
int32_t model_family_count();
/// Resolves the encoding's image-sized fields for a w x h training image (a hash grid's "auto"
/// table and finest resolution); other families have none.
void size_encoding_to_image(EncodingSpec& enc, int32_t w, int32_t h);
/// The model's shape in a few words, as its family says ("30000 Gaussians"; "hidden 64 wide" by
/// default).
std::string model_shape(const ModelSpec& model);
/// The learning-rate factor on lanes of the encoding's trainable floats (ModelFamily::trained_lanes),
/// or none.
LaneStep trained_lane_step(const EncodingSpec& enc);
/// The family's name in lower case, as messages say it: "a gaussians model".
std::string family_noun(const ModelFamily& family);

} // namespace redraw
