#pragma once
// Randomized checks against Bonmin or enumeration (thousands of Ipopt solves) take every
// trial in the main build and every seventh under AddressSanitizer, whose allocator makes
// Ipopt ~30× slower: the sanitizer job still runs each path, CI's 90 minutes hold, and
// `make test` keeps the full sets. 7 is prime to the periods (2 to 5) of the trials' shapes.

namespace graspsim::test {

#if defined(GRASPSIM_TRIAL_STRIDE)  // to try the sanitizer job's subsets in a fast build
inline constexpr int kTrialStride = GRASPSIM_TRIAL_STRIDE;
#elif defined(__SANITIZE_ADDRESS__)
inline constexpr int kTrialStride = 7;
#else
inline constexpr int kTrialStride = 1;
#endif

// How many of the trials 0, kTrialStride, 2 kTrialStride, ... below n there are.
constexpr int trial_count(int n) { return (n + kTrialStride - 1) / kTrialStride; }

}  // namespace graspsim::test
