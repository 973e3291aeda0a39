// The hash table's Adam sweep eight parameters at a time with AVX2 (cpu/cpu_passes.h).
// Built for the x86-64 baseline like the rest of the engine: only the function marked
// target("avx2") uses AVX2, and it is called only where the CPU has it. Lane by lane it makes
// adam_update's IEEE operations (engine/optimizer_math.h) in adam_update's order, without FMA
// ("avx2" alone does not enable it), so it gives the baseline build's bits for every input (a NaN
// may come out with another NaN's sign or payload).
#include "cpu/cpu_passes.h"

#include <immintrin.h>

namespace redraw::cpu {

__attribute__((target("avx2"))) int64_t adam_clear_rows_avx2(const AdamParams& a, AdamStep s, float* params,
                                                             float* grads, float* first, float* second, int64_t i0,
                                                             int64_t i1) {
  const __m256 beta1 = _mm256_set1_ps(a.beta1), beta2 = _mm256_set1_ps(a.beta2);
  const __m256 one_minus_beta1 = _mm256_set1_ps(1.0f - a.beta1), one_minus_beta2 = _mm256_set1_ps(1.0f - a.beta2);
  const __m256 weight_decay = _mm256_set1_ps(a.weight_decay), epsilon = _mm256_set1_ps(a.epsilon);
  const __m256 step_size = _mm256_set1_ps(s.step_size), inv_sqrt_bias2 = _mm256_set1_ps(s.inv_sqrt_bias2);
  const __m256 zero = _mm256_setzero_ps();
  int64_t i = i0;
  for (; i + 8 <= i1; i += 8) {
    const __m256 p = _mm256_loadu_ps(params + i);
    // g = grad + weight_decay * param
    const __m256 g = _mm256_add_ps(_mm256_loadu_ps(grads + i), _mm256_mul_ps(weight_decay, p));
    // m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
    const __m256 m = _mm256_add_ps(_mm256_mul_ps(beta1, _mm256_loadu_ps(first + i)), _mm256_mul_ps(one_minus_beta1, g));
    const __m256 v = _mm256_add_ps(_mm256_mul_ps(beta2, _mm256_loadu_ps(second + i)),
                                   _mm256_mul_ps(_mm256_mul_ps(one_minus_beta2, g), g));
    // param -= step_size * m / (sqrt(v) * inv_sqrt_bias2 + epsilon)
    const __m256 denom = _mm256_add_ps(_mm256_mul_ps(_mm256_sqrt_ps(v), inv_sqrt_bias2), epsilon);
    _mm256_storeu_ps(params + i, _mm256_sub_ps(p, _mm256_div_ps(_mm256_mul_ps(step_size, m), denom)));
    _mm256_storeu_ps(first + i, m);
    _mm256_storeu_ps(second + i, v);
    _mm256_storeu_ps(grads + i, zero);
  }
  return i;
}

} // namespace redraw::cpu
