#include "io/expr.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <numbers>
#include <vector>

namespace graspsim {
namespace {

// Recursive descent over the grammar
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '/') unary)*
//   unary   := ('-' | '+') unary | power
//   power   := primary ('^' unary)?
//   primary := number | '${' name '}' | name | name '(' sum (',' sum)* ')' | '(' sum ')'
class Parser {
 public:
  static constexpr int kMaxDepth = 200;
  static constexpr size_t kQuoted = 200;

  Parser(const std::string& text, const VariableLookup& lookup) : s_(text), lookup_(lookup) {}

  double parse() {
    const double value = sum();
    skip_space();
    if (pos_ < s_.size()) fail(std::string("unexpected '") + s_[pos_] + "'");
    if (!std::isfinite(value)) throw ExpressionValueError(quoted() + ": the result is not finite");
    return value;
  }

 private:
  // (a machine-made expression can be long: messages quote its start)
  std::string quoted() const { return "in expression '" + (s_.size() <= kQuoted ? s_ : s_.substr(0, kQuoted) + "...") + "'"; }
  [[noreturn]] void fail_at(size_t pos, const std::string& what) const {
    throw ExpressionError(quoted() + ": " + what + " at position " + std::to_string(pos + 1));
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(pos_, what); }

  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) {
      if (pos_ >= s_.size()) fail(std::string("expected '") + c + "' but the expression ended");
      fail(std::string("expected '") + c + "', got '" + s_[pos_] + "'");
    }
  }

  double sum() {
    double value = product();
    for (;;) {
      if (accept('+')) value += product();
      else if (accept('-')) value -= product();
      else return value;
    }
  }
  double product() {
    double value = unary();
    for (;;) {
      if (accept('*')) value *= unary();
      else if (accept('/')) value /= unary();
      else return value;
    }
  }
  // Every level of nesting (parentheses, function calls, signs, powers) passes through
  // here: the depth is bounded so a hostile expression gets an error, not a stack overflow.
  double unary() {
    if (++depth_ > kMaxDepth)
      fail("nested deeper than " + std::to_string(kMaxDepth) + " levels (the limit for expressions)");
    double value;
    if (accept('-')) value = -unary();
    else if (accept('+')) value = unary();
    else value = power();
    --depth_;
    return value;
  }
  double power() {
    const double base = primary();
    if (accept('^')) return std::pow(base, unary());
    return base;
  }

  double primary() {
    skip_space();
    if (pos_ >= s_.size()) fail("expected a value but the expression ended");
    const char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (c == '$') return variable();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return named();
    if (accept('(')) {
      const double value = sum();
      expect(')');
      return value;
    }
    fail(std::string("unexpected '") + c + "'");
  }

  double number() {
    // digits [. digits] [(e|E) [+-] digits]; the exponent is taken only when digits follow,
    // so "2*e" still reads the constant e.
    const size_t start = pos_;
    auto digits = [&] {
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    };
    digits();
    if (pos_ < s_.size() && s_[pos_] == '.') ++pos_, digits();
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      size_t k = pos_ + 1;
      if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
      if (k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k]))) {
        pos_ = k;
        digits();
      }
    }
    double value = 0.0;
    const auto [end, ec] = std::from_chars(s_.data() + start, s_.data() + pos_, value);
    if (ec != std::errc() || end != s_.data() + pos_) fail_at(start, "malformed number '" + s_.substr(start, pos_ - start) + "'");
    return value;
  }

  double variable() {
    const size_t start = pos_;
    if (s_.compare(pos_, 2, "${") != 0) fail("expected '${' to start a parameter reference");
    const size_t close = s_.find('}', pos_);
    if (close == std::string::npos) fail("unterminated '${'");
    const std::string name = s_.substr(pos_ + 2, close - pos_ - 2);
    if (name.empty()) fail_at(start, "empty parameter name");
    pos_ = close + 1;
    return lookup_(name);
  }

  std::string identifier() {
    const size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    return s_.substr(start, pos_ - start);
  }

  double named() {
    const size_t start = pos_;
    const std::string name = identifier();
    skip_space();
    if (pos_ >= s_.size() || s_[pos_] != '(') {
      if (name == "pi") return std::numbers::pi;
      if (name == "e") return std::numbers::e;
      fail_at(start, "unknown name '" + name + "' (parameters are written ${" + name + "})");
    }
    expect('(');
    std::vector<double> args{sum()};
    while (accept(',')) args.push_back(sum());
    expect(')');
    return call(name, args, start);
  }

  double call(const std::string& f, const std::vector<double>& a, size_t at) const {
    using Fn1 = double (*)(double);
    static constexpr std::pair<const char*, Fn1> kUnary[] = {
        {"sin", [](double x) { return std::sin(x); }},   {"cos", [](double x) { return std::cos(x); }},
        {"tan", [](double x) { return std::tan(x); }},   {"asin", [](double x) { return std::asin(x); }},
        {"acos", [](double x) { return std::acos(x); }}, {"atan", [](double x) { return std::atan(x); }},
        {"sqrt", [](double x) { return std::sqrt(x); }}, {"abs", [](double x) { return std::abs(x); }},
        {"exp", [](double x) { return std::exp(x); }},   {"log", [](double x) { return std::log(x); }},
        {"deg2rad", [](double x) { return x * std::numbers::pi / 180.0; }},
    };
    auto arity = [&](size_t n) {
      if (a.size() != n)
        fail_at(at, f + "() takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") + ", got " +
                        std::to_string(a.size()));
    };
    for (const auto& [name, fn] : kUnary)
      if (f == name) {
        arity(1);
        return fn(a[0]);
      }
    if (f == "atan2") {
      arity(2);
      return std::atan2(a[0], a[1]);
    }
    if (f == "min" || f == "max") {
      if (a.size() < 2) fail_at(at, f + "() takes at least 2 arguments");
      double r = a[0];
      for (double x : a) r = f == "min" ? std::min(r, x) : std::max(r, x);
      return r;
    }
    fail_at(at, "unknown function '" + f + "'");
  }

  const std::string& s_;
  const VariableLookup& lookup_;
  size_t pos_ = 0;
  int depth_ = 0;  // current nesting (unary)
};

}  // namespace

double evaluate_expression(const std::string& text, const VariableLookup& lookup) {
  return Parser(text, lookup).parse();
}

}  // namespace graspsim
