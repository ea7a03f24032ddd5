#pragma once
// Errors. InputError is the user's to fix (bad scene, unknown name, NaN): the CLI exits 2.
// Anything else that escapes is an internal failure: the CLI exits 1.

#include <cstdio>
#include <stdexcept>
#include <string>

namespace graspsim {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The simulation of valid input diverged (a non-finite state): the scene asks for more than
// the stepper can integrate at its time step (too stiff, too fast, too large a dt). Bad input
// as far as the CLI is concerned (exit 2), and the message says what to change.
class DivergenceError : public InputError {
 public:
  using InputError::InputError;
};

// A number for a message: 6 significant digits (std::to_string would print 1e300 as 301
// digits and 1e-9 as 0.000000).
inline std::string show(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

// Throws InputError("<where>: <what>") unless cond holds.
inline void require(bool cond, const std::string& where, const std::string& what) {
  if (!cond) throw InputError(where.empty() ? what : where + ": " + what);
}

}  // namespace graspsim
