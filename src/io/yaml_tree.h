#pragma once
// A YAML document as a plain tree in which every node remembers the file and line it came
// from. Scene files are merged from several files (include:) and edited by --set overrides,
// so yaml-cpp's marks (a line without a file) are not enough for error messages.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace graspsim {

// "file:line" for nodes read from a file; for --set values `line` is 0 and `file`
// describes the override, e.g. "--set 'bodies.box.mass=2'".
struct Location {
  std::string file;
  int line = 0;
  std::string str() const { return line > 0 ? file + ":" + std::to_string(line) : file; }
};

struct YamlNode {
  enum class Kind { Null, Scalar, Sequence, Map };
  struct Entry;

  Kind kind = Kind::Null;
  std::string scalar;
  bool quoted = false;           // "..." or '...': always a string, never a number
  std::vector<YamlNode> items;   // Sequence
  std::vector<Entry> entries;    // Map, in file order (keys are unique)
  Location loc;

  bool is_null() const { return kind == Kind::Null; }
  bool is_scalar() const { return kind == Kind::Scalar; }
  bool is_sequence() const { return kind == Kind::Sequence; }
  bool is_map() const { return kind == Kind::Map; }

  const YamlNode* find(const std::string& key) const;
  YamlNode* find(const std::string& key);
  // Replaces the value of `key` (keeping its place) or appends it.
  void set(const std::string& key, const Location& key_loc, YamlNode value);
  void erase(const std::string& key);

  static YamlNode map(const Location& loc);
  static YamlNode number(double value, const Location& loc);
};

struct YamlNode::Entry {
  std::string key;
  Location key_loc;
  YamlNode value;
};

// Parses a file. Throws InputError "FILE:LINE[:COL]: ..." on syntax errors, duplicate keys
// and non-scalar keys (anchors and aliases are expanded by yaml-cpp).
YamlNode load_yaml_file(const std::string& path);
// Parses text; every node gets `loc` (used for --set values).
YamlNode parse_yaml_string(const std::string& text, const Location& loc);

// A plain scalar as a YAML 1.2 core-schema number (decimal, 0x hex, 0o octal, .inf, .nan).
std::optional<double> parse_yaml_number(const std::string& text);
// Shortest text that reads back as exactly `value`.
std::string format_number(double value);

// The tree as JSON: plain scalars become numbers, booleans or null where they read as such.
nlohmann::json to_json(const YamlNode& node);

// " (did you mean 'x'?)" for the candidate closest to `word` by edit distance, if close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace graspsim
