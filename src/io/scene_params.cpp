// Parameters and ${...} substitution. A scalar that starts with '=' is an expression; a
// scalar containing ${...} is evaluated as an expression if it is one (`${mu} * 2`), else
// the values are pasted in as text (`finger_${i}` -> "finger_2").

#include <algorithm>
#include <cctype>
#include <set>

#include "core/error.h"
#include "io/expr.h"
#include "io/scene_internal.h"

namespace graspsim::scene_detail {
namespace {

// An error that already carries its file:line, so outer expressions do not wrap it again.
class LocatedError : public InputError {
 public:
  using InputError::InputError;
};

// A text parameter used where a number is needed; substitute() then pastes the word.
class TextParameterError : public ExpressionError {
 public:
  using ExpressionError::ExpressionError;
};

// A bare word that is not one of the expression constants is a text value.
bool is_word(const std::string& s) {
  if (s.empty() || s == "pi" || s == "e" || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

class Parameters {
 public:
  explicit Parameters(const YamlNode* section) : section_(section) {
    if (section_)
      for (const auto& e : section_->entries) names_.push_back(e.key);
  }

  // The word of a text parameter, or nullptr for a numeric (or unknown) one.
  const std::string* text(const std::string& name) const {
    const YamlNode* node = section_ ? section_->find(name) : nullptr;
    return node && node->is_scalar() && is_word(node->scalar) ? &node->scalar : nullptr;
  }

  double get(const std::string& name) {
    if (auto it = values_.find(name); it != values_.end()) return it->second;
    if (const std::string* word = text(name))
      throw TextParameterError("parameter '" + name + "' is the word '" + *word + "', not a number");
    const YamlNode* node = section_ ? section_->find(name) : nullptr;
    if (!node) {
      std::string listing;
      for (const auto& n : names_) listing += (listing.empty() ? "" : ", ") + n;
      throw InputError("unknown parameter '" + name + "'" + did_you_mean(name, names_) + " (known: " +
                       (listing.empty() ? "none" : listing) + ")");
    }
    if (!in_progress_.insert(name).second)
      throw LocatedError(node->loc.str() + ": parameter '" + name + "' depends on itself");
    if (node->is_map()) node = &choice(*node, "parameter '" + name + "'");
    if (!node->is_scalar() || node->scalar.empty())
      throw LocatedError(node->loc.str() + ": key '" + name + "': expected a number or an expression");
    const std::string& s = node->scalar;
    const double value = evaluate(s[0] == '=' ? s.substr(1) : s, node->loc, name);
    in_progress_.erase(name);
    values_[name] = value;
    return value;
  }

  // Evaluates `text` written at `loc` under `key`; errors name both.
  double evaluate(const std::string& text, const Location& loc, const std::string& key) {
    try {
      return evaluate_expression(text, [this](const std::string& n) { return get(n); });
    } catch (const LocatedError&) {
      throw;
    } catch (const InputError& e) {
      throw LocatedError(loc.str() + ": key '" + key + "': " + e.what());
    }
  }

  // Pastes parameter values into `text` as numbers.
  std::string paste(const std::string& text, const Location& loc, const std::string& key) {
    std::string out;
    size_t pos = 0;
    for (size_t open; (open = text.find("${", pos)) != std::string::npos;) {
      const size_t close = text.find('}', open);
      if (close == std::string::npos) throw LocatedError(loc.str() + ": key '" + key + "': unterminated '${' in '" + text + "'");
      out += text.substr(pos, open - pos);
      const std::string* word = text_of(text.substr(open + 2, close - open - 2));
      out += word ? *word : format_number(evaluate(text.substr(open, close + 1 - open), loc, key));
      pos = close + 1;
    }
    return out + text.substr(pos);
  }

  ParameterValues all() {
    ParameterValues out;
    for (const auto& n : names_) {
      if (const std::string* word = text(n))
        out.texts[n] = *word;
      else
        get(n);
    }
    out.numbers = values_;
    return out;
  }

  // A value chosen by a text parameter's word: {by: scheme, lcp: 20, miqp: 39}.
  // `what` names the value in errors ("parameter 'x'", "key 'geoms[0]'").
  const YamlNode& choice(const YamlNode& node, const std::string& what) const {
    const YamlNode* by = node.find("by");
    if (!by || !by->is_scalar()) throw LocatedError(node.loc.str() + ": " + what + ": a map needs 'by: <text parameter>'");
    const std::string* word = text(by->scalar);
    if (!word) throw LocatedError(by->loc.str() + ": " + what + ": '" + by->scalar + "' is not a text parameter");
    const YamlNode* value = node.find(*word);
    if (!value) throw LocatedError(node.loc.str() + ": " + what + ": no value for " + by->scalar + " = '" + *word + "'");
    return *value;
  }

 private:
  const YamlNode* section_;
  std::vector<std::string> names_;
  std::map<std::string, double> values_;
  std::set<std::string> in_progress_;

  // `name` (possibly padded with blanks) if it is a text parameter's name.
  const std::string* text_of(const std::string& inner) const {
    const auto b = inner.find_first_not_of(' '), e = inner.find_last_not_of(' ');
    return b == std::string::npos ? nullptr : text(inner.substr(b, e - b + 1));
  }
};

void substitute(YamlNode& node, const std::string& key, Parameters& params) {
  if (node.is_map() && node.find("by")) {  // a value chosen by a word: the chosen one replaces the map
    YamlNode chosen = params.choice(node, "key '" + key + "'");
    node = std::move(chosen);
    substitute(node, key, params);
    return;
  }
  if (node.is_map()) {
    for (auto& e : node.entries) substitute(e.value, e.key, params);
  } else if (node.is_sequence()) {
    for (size_t i = 0; i < node.items.size(); ++i) substitute(node.items[i], key + "[" + std::to_string(i) + "]", params);
  } else if (node.is_scalar() && !node.scalar.empty()) {
    const std::string& s = node.scalar;
    if (s[0] == '=') {
      node = YamlNode::number(params.evaluate(s.substr(1), node.loc, key), node.loc);
    } else if (s.find("${") != std::string::npos) {
      try {
        node = YamlNode::number(evaluate_expression(s, [&](const std::string& n) { return params.get(n); }), node.loc);
      } catch (const ExpressionValueError& e) {
        throw LocatedError(node.loc.str() + ": key '" + key + "': " + e.what());
      } catch (const ExpressionError&) {
        node.scalar = params.paste(s, node.loc, key);
      } catch (const LocatedError&) {
        throw;
      } catch (const InputError& e) {
        throw LocatedError(node.loc.str() + ": key '" + key + "': " + e.what());
      }
    }
  }
}

}  // namespace

ParameterValues evaluate_parameters(const YamlNode& root) {
  const YamlNode* section = root.find("parameters");
  if (section && !section->is_map() && !section->is_null())
    throw InputError(section->loc.str() + ": key 'parameters': expected a map of names to numbers");
  Parameters params(section && section->is_map() ? section : nullptr);
  return params.all();
}

void substitute_parameters(YamlNode& root, const ParameterValues& values) {
  YamlNode* section = root.find("parameters");
  Parameters params(section && section->is_map() ? section : nullptr);
  for (auto& e : root.entries) {
    if (e.key == "parameters") continue;
    substitute(e.value, e.key, params);
  }
  if (section && section->is_map())
    for (auto& e : section->entries)
      if (!values.texts.count(e.key)) e.value = YamlNode::number(values.numbers.at(e.key), e.value.loc);
}

}  // namespace graspsim::scene_detail
