// Scene files (YAML, includes, parameters, expressions, --set paths) through load_scene, which
// also builds the model. The input is main.yaml beside two small files it may include and a
// mesh it may name, so includes and meshes are reached too.

#include "fuzz_input.h"
#include "io/scene.h"

namespace {

void write_text(const std::string& name, const std::string& text) {
  std::ofstream(graspsim::fuzz::work_dir() / name) << text;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  write_text("part.yaml", "parameters: {m: 1, r: 0.05}\nbodies:\n  - {name: b, joint: free, mass: \"${m}\",\n"
                          "     geoms: [{type: sphere, size: [\"${r}\"]}]}\n");
  write_text("ground.yaml", "include: part.yaml\ngeoms: [{name: ground, type: plane}]\n");
  write_text("tet.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = graspsim::fuzz::write_input("main.yaml", data, size);
  return graspsim::fuzz::run([&] { graspsim::load_scene(path, {}); });
}
