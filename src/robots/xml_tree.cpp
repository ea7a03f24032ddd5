#include "robots/xml_tree.h"

#include <tinyxml2.h>

#include <filesystem>
#include <set>

#include "core/error.h"

namespace graspsim {
namespace {

namespace fs = std::filesystem;

struct Reader {
  bool expand_includes = false;
  fs::path base_dir;
  std::vector<std::string> open_files;  // include stack, to report cycles

  XmlElement read_root(const fs::path& path, const std::string& included_from) {
    const std::string name = path.string();
    for (const auto& f : open_files)
      if (f == name) throw InputError(included_from + ": <include> of '" + name + "' includes itself (a cycle)");
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      throw InputError((included_from.empty() ? name : included_from + ": included file '" + name + "'") +
                       ": no such file");
    tinyxml2::XMLDocument doc;
    if (doc.LoadFile(name.c_str()) != tinyxml2::XML_SUCCESS) {
      const char* why = doc.ErrorStr();
      throw InputError(name + ":" + std::to_string(doc.ErrorLineNum()) + ": malformed XML: " + (why ? why : "?"));
    }
    const tinyxml2::XMLElement* root = doc.RootElement();
    if (!root) throw InputError(name + ": no root element");
    open_files.push_back(name);
    auto file = std::make_shared<const std::string>(name);
    XmlElement out = convert(*root, file);
    open_files.pop_back();
    return out;
  }

  XmlElement convert(const tinyxml2::XMLElement& e, const std::shared_ptr<const std::string>& file) {
    XmlElement out;
    out.tag = e.Name();
    out.file = file;
    out.line = e.GetLineNum();
    for (const tinyxml2::XMLAttribute* a = e.FirstAttribute(); a; a = a->Next()) out.attributes.emplace_back(a->Name(), a->Value());
    for (const tinyxml2::XMLElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement()) {
      if (expand_includes && std::string(c->Name()) == "include") {
        const char* f = c->Attribute("file");
        const std::string here = *file + ":" + std::to_string(c->GetLineNum());
        if (!f) throw InputError(here + ": <include> needs a file attribute");
        XmlElement inc = read_root(base_dir / f, here);
        for (auto& grandchild : inc.children) out.children.push_back(std::move(grandchild));
        continue;
      }
      out.children.push_back(convert(*c, file));
    }
    return out;
  }
};

}  // namespace

const std::string* XmlElement::find(const std::string& name) const {
  for (const auto& [k, v] : attributes)
    if (k == name) return &v;
  return nullptr;
}

std::string XmlElement::where() const { return (file ? *file : std::string("?")) + ":" + std::to_string(line); }

XmlElement read_xml(const std::string& path, bool expand_includes) {
  Reader r;
  r.expand_includes = expand_includes;
  r.base_dir = fs::path(path).parent_path();
  return r.read_root(path, "");
}

}  // namespace graspsim
