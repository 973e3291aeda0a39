#include "cpu/flushed_team.h"

#include <omp.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace redraw {

namespace {
#if defined(__x86_64__) || defined(__i386__)
constexpr unsigned k_flush_bits = 0x8000u | 0x0040u; // MXCSR's FTZ and DAZ
unsigned long read_mode() { return _mm_getcsr(); }
void write_mode(unsigned long m) { _mm_setcsr(unsigned(m)); }
#elif defined(__aarch64__)
constexpr unsigned long k_flush_bits = 1ul << 24; // FPCR's FZ
unsigned long read_mode() {
  unsigned long m;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(m));
  return m;
}
void write_mode(unsigned long m) { __asm__ __volatile__("msr fpcr, %0" : : "r"(m)); }
#else
constexpr unsigned long k_flush_bits = 0;
unsigned long read_mode() { return 0; }
void write_mode(unsigned long) {}
#endif

void flush_here() {
  const unsigned long m = read_mode();
  if ((m & k_flush_bits) != k_flush_bits) write_mode(m | k_flush_bits);
}
} // namespace

FlushedTeam::FlushedTeam(int team) : m_saved(read_mode()) {
  flush_here();
#pragma omp parallel num_threads(team > 0 ? team : 1)
  flush_here();
}

FlushedTeam::~FlushedTeam() { write_mode(m_saved); }

FlushedTeam use_team(int team) {
  omp_set_num_threads(team);
  return FlushedTeam(team);
}

TeamFlushProbe probe_team_flush(int team) {
  int threads = 0, not_flushed = 0;
#pragma omp parallel num_threads(team > 0 ? team : 1) reduction(+ : threads, not_flushed)
  {
    volatile float tiny = 1e-20f;
    threads += 1;
    not_flushed += tiny * tiny == 0.0f ? 0 : 1;
  }
  return {threads, not_flushed};
}

bool subnormals_flushed_here() { return k_flush_bits != 0 && (read_mode() & k_flush_bits) == k_flush_bits; }

} // namespace redraw
