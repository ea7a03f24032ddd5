#pragma once
// A read-only XML element tree with the file and line of every element, built with
// tinyxml2. MJCF <include file="..."/> elements are replaced by the children of the
// included file's root, as MuJoCo does, so every later pass sees one tree.

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace graspsim {

struct XmlElement {
  std::string tag;
  std::vector<std::pair<std::string, std::string>> attributes;  // in file order
  std::vector<XmlElement> children;
  std::shared_ptr<const std::string> file;  // shared by every element of one file
  int line = 0;

  const std::string* find(const std::string& name) const;
  // "file.xml:12"
  std::string where() const;
};

// Parses `path`; `expand_includes` follows <include file> relative to the top file's
// directory (MuJoCo's rule). Throws InputError "file:line: ..." for malformed XML, a
// missing file or an include cycle.
XmlElement read_xml(const std::string& path, bool expand_includes);

}  // namespace graspsim
