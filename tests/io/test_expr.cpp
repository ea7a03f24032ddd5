#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numbers>

#include "io/expr.h"
#include "io_test_util.h"

namespace graspsim {
namespace {

constexpr double pi = std::numbers::pi;

double eval(const std::string& text) {
  const std::map<std::string, double> vars{{"a", 30.0}, {"b", 1.5}, {"neg", -2.0}};
  return evaluate_expression(text, [&](const std::string& name) {
    if (!vars.count(name)) throw InputError("unknown parameter '" + name + "'");
    return vars.at(name);
  });
}

// Expected values are computed with the same operations in the same order, so equality is exact.
TEST(Expression, EvaluatesTableOfCases) {
  const std::vector<std::pair<std::string, double>> cases = {
      {"42", 42.0},
      {" 3 ", 3.0},
      {".5", 0.5},
      {"5.", 5.0},
      {"1.5e3", 1500.0},
      {"2.5E-2", 0.025},
      {"1e+2", 100.0},
      {"1 + 2 * 3", 7.0},
      {"(1 + 2) * 3", 9.0},
      {"10 / 4", 2.5},
      {"10 - 4 - 3", 3.0},
      {"12 / 3 / 2", 2.0},
      {"2^10", 1024.0},
      {"2^3^2", 512.0},  // right-associative
      {"-2^2", -4.0},    // ^ binds tighter than unary minus
      {"2^-1", 0.5},
      {"--3", 3.0},
      {"+4", 4.0},
      {"pi", pi},
      {"e", std::numbers::e},
      {"2*e", 2.0 * std::numbers::e},
      {"${a}", 30.0},
      {"${b} * 2", 3.0},
      {"-${neg}", 2.0},
      {"${b}^2", 2.25},
      {"cos(${a} * pi / 180)", std::cos(30.0 * pi / 180.0)},
      {"sin(deg2rad(${a}))", std::sin(30.0 * pi / 180.0)},
      {"tan(0.3)", std::tan(0.3)},
      {"asin(0.5)", std::asin(0.5)},
      {"acos(0.5)", std::acos(0.5)},
      {"atan(2)", std::atan(2.0)},
      {"atan2(1, -1)", std::atan2(1.0, -1.0)},
      {"sqrt(16)", 4.0},
      {"abs(-2.5)", 2.5},
      {"min(3, 1, 2)", 1.0},
      {"max(-1, -5)", -1.0},
      {"exp(1)", std::exp(1.0)},
      {"log(10)", std::log(10.0)},
      {"4 / 3 * pi * 0.02^3 * 1000", 4.0 / 3.0 * pi * std::pow(0.02, 3.0) * 1000.0},
      {"max(1, min(5, 2 * ${b}))", 3.0},
  };
  for (const auto& [text, expected] : cases) EXPECT_EQ(eval(text), expected) << text;
}

TEST(Expression, SyntaxErrorsQuoteTheExpressionAndPosition) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1 +", "expected a value but the expression ended at position 4"},
      {"(1 + 2", "expected ')' but the expression ended at position 7"},
      {"1 2", "unexpected '2' at position 3"},
      {"2e", "unexpected 'e' at position 2"},
      {"foo(1)", "unknown function 'foo' at position 1"},
      {"x + 1", "unknown name 'x'"},
      {"sin(1, 2)", "sin() takes 1 argument, got 2"},
      {"atan2(1)", "atan2() takes 2 arguments, got 1"},
      {"min(1)", "min() takes at least 2 arguments"},
      {"${a", "unterminated '${'"},
      {"1 / 0", "the result is not finite"},
      {"sqrt(-1)", "the result is not finite"},
      {"1 * # 2", "unexpected '#' at position 5"},
  };
  for (const auto& [text, wanted] : cases) {
    try {
      eval(text);
      ADD_FAILURE() << "no error for " << text;
    } catch (const ExpressionError& e) {
      EXPECT_CONTAINS(e.what(), "in expression '" + text + "'");
      EXPECT_CONTAINS(e.what(), wanted);
    }
  }
}

TEST(Expression, UnknownVariableErrorComesFromTheLookup) {
  const std::string msg = test::input_error([] { eval("${nope} + 1"); });
  EXPECT_CONTAINS(msg, "unknown parameter 'nope'");
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// A hostile expression nested 20,000 deep (parentheses, calls, signs, powers) is an
// ExpressionError naming the limit, not a stack overflow; 100 levels still evaluate.
TEST(Expression, NestingIsBounded) {
  const int deep = 20000;
  for (const auto& [open, close] : std::vector<std::pair<std::string, std::string>>{
           {"(", ")"}, {"abs(", ")"}, {"-", ""}, {"2^", ""}}) {
    std::string text;
    for (int i = 0; i < deep; ++i) text += open;
    text += "1";
    for (int i = 0; i < deep; ++i) text += close;
    try {
      eval(text);
      ADD_FAILURE() << open << " nested " << deep << " deep was accepted";
    } catch (const ExpressionError& e) {
      EXPECT_NE(std::string(e.what()).find("nested deeper than"), std::string::npos) << e.what();
      EXPECT_LT(std::string(e.what()).size(), 400u) << "the message quotes the whole expression";
    }
  }
  std::string ok;
  for (int i = 0; i < 100; ++i) ok += "(";
  ok += "1";
  for (int i = 0; i < 100; ++i) ok += ")";
  EXPECT_EQ(eval(ok), 1.0);
}

}  // namespace
}  // namespace graspsim
