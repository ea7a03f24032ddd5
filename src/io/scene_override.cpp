// --set overrides: "parameters.NAME=value" or a dotted path through maps and lists (list
// items by `name`, or by index), with the value parsed as YAML.

#include <algorithm>
#include <cctype>

#include "core/error.h"
#include "io/scene_internal.h"

namespace graspsim::scene_detail {
namespace {

std::vector<std::string> split_path(const std::string& path, const Location& loc) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t dot = path.find('.', start);
    out.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (out.back().empty()) throw InputError(loc.str() + ": empty name in the path '" + path + "'");
    if (dot == std::string::npos) return out;
    start = dot + 1;
  }
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// The item called `key`, else the item at index `key`; null if neither.
YamlNode* find_item(YamlNode& list, const std::string& key) {
  for (auto& item : list.items)
    if (const YamlNode* name = item.is_map() ? item.find("name") : nullptr; name && name->is_scalar() && name->scalar == key)
      return &item;
  if (all_digits(key) && key.size() < 10 && std::stoul(key) < list.items.size()) return &list.items[std::stoul(key)];
  return nullptr;
}

[[noreturn]] void unknown_item(const YamlNode& list, const std::string& key, const std::string& walked,
                               const std::string& path, const Location& loc) {
  std::vector<std::string> names;
  std::string listing;
  for (size_t i = 0; i < list.items.size(); ++i) {
    const YamlNode* name = list.items[i].is_map() ? list.items[i].find("name") : nullptr;
    names.push_back(name && name->is_scalar() ? name->scalar : std::to_string(i));
    listing += (i ? ", " : "") + names.back();
  }
  throw InputError(loc.str() + ": unknown path '" + path + "': no item named '" + key + "' in '" + walked + "'" +
                   did_you_mean(key, names) + " (items: " + (listing.empty() ? "none" : listing) + ")");
}

void set_parameter(YamlNode& root, const std::string& name, YamlNode value, const Location& loc) {
  YamlNode* params = root.find("parameters");
  if (!params || !params->is_map() || !params->find(name)) {
    std::vector<std::string> known;
    std::string listing;
    if (params && params->is_map())
      for (const auto& e : params->entries) known.push_back(e.key), listing += (listing.empty() ? "" : ", ") + e.key;
    throw InputError(loc.str() + ": unknown parameter '" + name + "'" + did_you_mean(name, known) +
                     " (known: " + (listing.empty() ? "none" : listing) + ")");
  }
  params->set(name, loc, std::move(value));
}

}  // namespace

void apply_override(YamlNode& root, const std::string& text, const std::string& origin) {
  const Location loc{origin.empty() ? "--set '" + text + "'" : origin, 0};
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError(loc.str() + ": expected KEY.PATH=VALUE");
  const std::string path = text.substr(0, eq);
  const std::vector<std::string> keys = split_path(path, loc);
  YamlNode value = parse_yaml_string(text.substr(eq + 1), loc);
  if (keys.size() == 2 && keys[0] == "parameters") return set_parameter(root, keys[1], std::move(value), loc);

  YamlNode* node = &root;
  std::string walked;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string& key = keys[i];
    const bool last = i + 1 == keys.size();
    if (node->is_null()) *node = YamlNode::map(loc);  // e.g. `options:` left empty
    if (node->is_map()) {
      if (last) return node->set(key, loc, std::move(value));
      // A missing map key is created; the schema check later rejects it if it is misspelled.
      if (!node->find(key)) node->set(key, loc, YamlNode::map(loc));
      node = node->find(key);
    } else if (node->is_sequence()) {
      YamlNode* item = find_item(*node, key);
      if (!item) unknown_item(*node, key, walked, path, loc);
      if (last) {
        *item = std::move(value);
        return;
      }
      node = item;
    } else {
      throw InputError(loc.str() + ": unknown path '" + path + "': '" + walked + "' is a single value (" +
                       node->loc.str() + "), not a map or list");
    }
    walked += (walked.empty() ? "" : ".") + key;
  }
}

}  // namespace graspsim::scene_detail
