#pragma once
// Errors. InputError is the user's to fix (bad scene, unknown name, NaN): the CLI exits 2.
// Anything else that escapes is an internal failure: the CLI exits 1.

#include <stdexcept>
#include <string>

namespace graspsim {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws InputError("<where>: <what>") unless cond holds.
inline void require(bool cond, const std::string& where, const std::string& what) {
  if (!cond) throw InputError(where.empty() ? what : where + ": " + what);
}

}  // namespace graspsim
