#pragma once
// A small arithmetic evaluator for scene scalars: numbers (with exponents), ${name}
// references, + - * / ^ (right-associative, binds tighter than unary minus, so -2^2 = -4),
// parentheses, the constants pi and e, and the functions sin cos tan asin acos atan atan2
// sqrt abs min max exp log deg2rad.

#include <functional>
#include <string>

#include "core/error.h"

namespace graspsim {

// A malformed expression: the message quotes it and gives the 1-based character position.
class ExpressionError : public InputError {
 public:
  using InputError::InputError;
};

// A well-formed expression whose value is not finite (1 / 0, 1e308 * 10): not a text that
// merely looks like one, so scene substitution reports it instead of pasting the text.
class ExpressionValueError : public ExpressionError {
 public:
  using ExpressionError::ExpressionError;
};

// Returns the value of `${name}`; throws InputError when the name is unknown.
using VariableLookup = std::function<double(const std::string& name)>;

// Evaluates `text`. Throws ExpressionError on syntax errors, unknown functions or constants,
// and a non-finite result; lets InputError from `lookup` through unchanged.
double evaluate_expression(const std::string& text, const VariableLookup& lookup);

}  // namespace graspsim
