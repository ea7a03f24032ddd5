#pragma once
// Counts heap allocations (a steady step must make none): replaces malloc with a counting
// wrapper (glibc forwards every allocation, Eigen's and operator new's, through it).
// Include from exactly one file of a test program. Off under sanitizers, which bring
// their own allocator: GRASPSIM_COUNT_MALLOC is then undefined and tests skip.

#include <cstddef>
#include <cstdlib>

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define GRASPSIM_COUNT_MALLOC 1

namespace {
thread_local bool counting = false;
thread_local long allocations = 0;
}  // namespace

// glibc's own entry points stay exported under these names; replacing the four below is the
// minimal set its manual asks of a replacement malloc.
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t n) {
  if (counting) ++allocations;
  return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t size) {
  if (counting) ++allocations;
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t n) {
  if (counting) ++allocations;
  return __libc_realloc(p, n);
}
void free(void* p) { __libc_free(p); }
}
#endif

#ifdef GRASPSIM_COUNT_MALLOC
namespace graspsim::test {
// Runs fn with allocations counted; returns their number.
template <typename Fn>
long count_allocations(Fn fn) {
  allocations = 0;
  counting = true;
  fn();
  counting = false;
  return allocations;
}
}  // namespace graspsim::test
#endif
