// include: merging. Included files come first: their list sections are prepended, and
// map sections (parameters, options, recording, default_contact) are merged key by key
// with the including file's keys winning; other values are replaced.

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "io/scene_internal.h"

namespace graspsim::scene_detail {
namespace {

namespace fs = std::filesystem;

bool is_list_section(const std::string& key) {
  static const char* const kLists[] = {"materials", "contact_materials", "meshes", "geoms", "bodies", "actuators", "equalities", "exclude"};
  return std::any_of(std::begin(kLists), std::end(kLists), [&](const char* k) { return key == k; });
}

void merge_into(YamlNode& dst, const YamlNode& src) {
  for (const auto& e : src.entries) {
    YamlNode* existing = dst.find(e.key);
    if (!existing || existing->is_null()) {
      dst.set(e.key, e.key_loc, e.value);
    } else if (e.value.is_null()) {
      continue;  // an empty section adds nothing
    } else if (is_list_section(e.key)) {
      for (const YamlNode* n : {static_cast<const YamlNode*>(existing), &e.value})
        if (!n->is_sequence()) throw InputError(n->loc.str() + ": key '" + e.key + "': expected a list");
      existing->items.insert(existing->items.end(), e.value.items.begin(), e.value.items.end());
    } else if (existing->is_map() && e.value.is_map()) {
      for (const auto& sub : e.value.entries) existing->set(sub.key, sub.key_loc, sub.value);
    } else {
      dst.set(e.key, e.key_loc, e.value);
    }
  }
}

struct IncludeChain {
  std::vector<fs::path> canonical;
  std::vector<std::string> shown;
  int loads = 0;  // files read so far, a file included twice counting twice
};

// Includes that fan out without a cycle (a file including the next one twice, 30 levels)
// would read 2^30 files: the total is bounded instead.
constexpr int kMaxIncludedFiles = 256;

YamlNode load_file(const std::string& path, IncludeChain& chain, const Location& from);

YamlNode load_included(const YamlNode& item, const fs::path& dir, IncludeChain& chain) {
  if (item.is_map()) {
    const YamlNode* model = item.find("model");
    if (model && model->is_scalar()) {
      const std::string ext = fs::path(model->scalar).extension().string();
      if (ext == ".urdf" || ext == ".xml")
        throw InputError(item.loc.str() + ": robot files are loaded under 'robots:' ({file: " + model->scalar +
                         "}), not included");
      throw InputError(model->loc.str() + ": key 'model': expected a .urdf or .xml file, got '" + model->scalar + "'");
    }
  }
  if (!item.is_scalar() || item.scalar.empty())
    throw InputError(item.loc.str() + ": key 'include': expected a scene file name or {model: FILE.urdf, ...}");
  const fs::path p = fs::path(item.scalar).is_absolute() ? fs::path(item.scalar) : dir / item.scalar;
  return load_file(p.lexically_normal().string(), chain, item.loc);
}

YamlNode load_file(const std::string& path, IncludeChain& chain, const Location& from) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(path, ec);
  if (std::find(chain.canonical.begin(), chain.canonical.end(), canonical) != chain.canonical.end()) {
    std::string cycle;
    for (const auto& s : chain.shown) cycle += s + " -> ";
    throw InputError(from.str() + ": include cycle: " + cycle + path);
  }
  if (++chain.loads > kMaxIncludedFiles)
    throw InputError(from.str() + ": more than " + std::to_string(kMaxIncludedFiles) +
                     " scene files read through includes (the limit; a file included twice counts twice)");
  // (the error_code overload: a name too long for the file system is a message, not a throw)
  if (!fs::is_regular_file(path, ec))
    throw InputError((from.file.empty() ? "" : from.str() + ": ") + "cannot open scene file '" + path + "'" +
                     (ec && ec != std::errc::no_such_file_or_directory ? " (" + ec.message() + ")" : ""));
  YamlNode root = load_yaml_file(path);
  if (root.is_null()) root = YamlNode::map({path, 1});
  if (!root.is_map()) throw InputError(root.loc.str() + ": a scene file must be a map of sections");

  chain.canonical.push_back(canonical);
  chain.shown.push_back(path);
  YamlNode merged = YamlNode::map(root.loc);
  if (const YamlNode* inc = root.find("include")) {
    const fs::path dir = fs::path(path).parent_path();
    if (inc->is_sequence()) {
      for (const auto& item : inc->items) merge_into(merged, load_included(item, dir, chain));
    } else if (!inc->is_null()) {
      merge_into(merged, load_included(*inc, dir, chain));
    }
  }
  root.erase("include");
  merge_into(merged, root);
  chain.canonical.pop_back();
  chain.shown.pop_back();
  return merged;
}

}  // namespace

YamlNode load_with_includes(const std::string& path) {
  IncludeChain chain;
  return load_file(path, chain, {});
}

}  // namespace graspsim::scene_detail
