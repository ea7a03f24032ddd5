#include "io/yaml_tree.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "core/error.h"

namespace graspsim {

const YamlNode* YamlNode::find(const std::string& key) const {
  for (const auto& e : entries)
    if (e.key == key) return &e.value;
  return nullptr;
}

YamlNode* YamlNode::find(const std::string& key) {
  for (auto& e : entries)
    if (e.key == key) return &e.value;
  return nullptr;
}

void YamlNode::set(const std::string& key, const Location& key_loc, YamlNode value) {
  for (auto& e : entries)
    if (e.key == key) {
      e.value = std::move(value);
      e.key_loc = key_loc;
      return;
    }
  entries.push_back({key, key_loc, std::move(value)});
}

void YamlNode::erase(const std::string& key) {
  std::erase_if(entries, [&](const Entry& e) { return e.key == key; });
}

YamlNode YamlNode::map(const Location& loc) {
  YamlNode n;
  n.kind = Kind::Map;
  n.loc = loc;
  return n;
}

YamlNode YamlNode::number(double value, const Location& loc) {
  YamlNode n;
  n.kind = Kind::Scalar;
  n.scalar = format_number(value);
  n.loc = loc;
  return n;
}

namespace {

// Aliases are expanded into copies: nine levels of nine aliases make 9^9 nodes from a
// 100-line file. The count of nodes is bounded, and so is the nesting.
constexpr long kMaxNodes = 250'000;  // (a 1000-body scene has ~30k)
constexpr int kMaxDepth = 200;
struct Budget {
  long nodes = 0;
  int depth = 0;
};

// `file` is empty for --set values: then every node takes `fixed`.
YamlNode convert(const YAML::Node& y, const std::string& file, const Location& fixed, Budget& budget) {
  YamlNode n;
  n.loc = file.empty() ? fixed : Location{file, y.Mark().line + 1};
  if (++budget.nodes > kMaxNodes)
    throw InputError(n.loc.str() + ": more than " + std::to_string(kMaxNodes) +
                     " YAML values once aliases are expanded (the limit)");
  if (budget.depth >= kMaxDepth)
    throw InputError(n.loc.str() + ": YAML nested deeper than " + std::to_string(kMaxDepth) + " levels (the limit)");
  struct Level {
    Budget& b;
    explicit Level(Budget& budget) : b(budget) { ++b.depth; }
    ~Level() { --b.depth; }
  } level(budget);
  switch (y.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: n.kind = YamlNode::Kind::Null; break;
    case YAML::NodeType::Scalar:
      n.kind = YamlNode::Kind::Scalar;
      n.scalar = y.Scalar();
      n.quoted = y.Tag() == "!";
      break;
    case YAML::NodeType::Sequence:
      n.kind = YamlNode::Kind::Sequence;
      for (const auto& item : y) n.items.push_back(convert(item, file, fixed, budget));
      break;
    case YAML::NodeType::Map:
      n.kind = YamlNode::Kind::Map;
      for (const auto& kv : y) {
        const Location key_loc = file.empty() ? fixed : Location{file, kv.first.Mark().line + 1};
        if (!kv.first.IsScalar()) throw InputError(key_loc.str() + ": a map key must be a plain name");
        const std::string key = kv.first.Scalar();
        if (n.find(key)) throw InputError(key_loc.str() + ": key '" + key + "' appears twice in the same map");
        YamlNode value = convert(kv.second, file, fixed, budget);
        // yaml-cpp marks an empty value where the next token starts; the key's line is clearer.
        if (value.is_null()) value.loc = key_loc;
        n.entries.push_back({key, key_loc, std::move(value)});
      }
      break;
  }
  return n;
}

std::string syntax_error(const std::string& where, const YAML::Exception& e) {
  return where + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
         ": YAML syntax error: " + e.msg;
}

// Records where a document's first node starts.
class FirstMark : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> mark;
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { note(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { note(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { note(m); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    note(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    note(m);
  }
  void OnMapEnd() override {}

 private:
  void note(const YAML::Mark& m) {
    if (!mark) mark = m;
  }
};

// A scene is one document. yaml-cpp ends the first one silently where a line is indented less
// than the first key (" duration: 1" then "bodies:"), so a second one is an error. The documents
// are walked here, at most two, rather than with YAML::LoadAll: yaml-cpp 0.7's LoadAll loops
// forever, allocating, on a stray ',' before the first node (yaml-cpp issue #1040, fixed after
// 0.7 by PR #1319), since its parser then reports a new empty document without consuming it.
void check_single_document(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  FirstMark first, second;
  if (!parser.HandleNextDocument(first) || !parser.HandleNextDocument(second)) return;
  const YAML::Mark at = second.mark.value_or(YAML::Mark());
  const std::string where = path + ":" + std::to_string(at.line + 1);
  if (first.mark && at.pos == first.mark->pos)
    throw InputError(where + ":" + std::to_string(at.column + 1) +
                     ": YAML syntax error: no YAML node can start here (a stray ',', ']' or '}'?)");
  throw InputError(where +
                   ": the scene's YAML ends before this line (a '---', or the first key indented deeper than "
                   "this one): a scene file holds one document");
}

}  // namespace

YamlNode load_yaml_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open scene file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  try {
    check_single_document(text.str(), path);
    Budget budget;
    return convert(YAML::Load(text.str()), path, {}, budget);
  } catch (const YAML::Exception& e) {
    throw InputError(syntax_error(path, e));
  }
}

YamlNode parse_yaml_string(const std::string& text, const Location& loc) {
  try {
    Budget budget;
    return convert(YAML::Load(text), "", loc, budget);
  } catch (const YAML::Exception& e) {
    throw InputError(loc.str() + ": cannot parse the value as YAML: " + e.msg);
  }
}

std::optional<double> parse_yaml_number(const std::string& text) {
  std::string s = text;
  double sign = 1.0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    sign = s[0] == '-' ? -1.0 : 1.0;
    s.erase(0, 1);
  }
  if (s == ".inf" || s == ".Inf" || s == ".INF") return sign * std::numeric_limits<double>::infinity();
  if ((s == ".nan" || s == ".NaN" || s == ".NAN") && text == s) return std::numeric_limits<double>::quiet_NaN();
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o') && text == s) {
    unsigned long long u = 0;
    const auto [end, ec] = std::from_chars(b + 2, e, u, s[1] == 'x' ? 16 : 8);
    if (ec != std::errc() || end != e) return std::nullopt;
    return static_cast<double>(u);
  }
  // from_chars alone would also accept "inf" and "nan", which YAML reads as strings.
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.')) return std::nullopt;
  double value = 0.0;
  const auto [end, ec] = std::from_chars(b, e, value);
  if (ec != std::errc() || end != e) return std::nullopt;
  return sign * value;
}

std::string format_number(double value) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, end);
}

nlohmann::json to_json(const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::Null: return nullptr;
    case YamlNode::Kind::Scalar: {
      const std::string& s = node.scalar;
      if (node.quoted) return s;
      if (s == "true" || s == "True" || s == "TRUE") return true;
      if (s == "false" || s == "False" || s == "FALSE") return false;
      if (s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
      if (auto x = parse_yaml_number(s)) {
        // Integers (decimal, hex, octal) stay integers in JSON; anything with a point or exponent is a double.
        const bool integral = s.rfind("0x", 0) == 0 || s.rfind("0o", 0) == 0 || s.find_first_of(".eE") == std::string::npos;
        if (integral && std::isfinite(*x) && std::abs(*x) < 9e15) return static_cast<std::int64_t>(*x);
        return *x;
      }
      return s;
    }
    case YamlNode::Kind::Sequence: {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& item : node.items) a.push_back(to_json(item));
      return a;
    }
    case YamlNode::Kind::Map: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& e : node.entries) o[e.key] = to_json(e.value);
      return o;
    }
  }
  return nullptr;
}

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  size_t best_d = 0;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (!best || d < best_d) best = &c, best_d = d;
  }
  // Close means at most a third of the word changed (and at least one edit allowed).
  if (!best || best_d > std::max<size_t>(1, word.size() / 3)) return "";
  return " (did you mean '" + *best + "'?)";
}

}  // namespace graspsim
