// Mesh files through load_mesh (assimp): the first byte picks the format the file is named
// as (OBJ or STL, ASCII or binary alike), the rest is the file.

#include "collision/mesh_io.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string path = graspsim::fuzz::write_input(data[0] % 2 ? "input.stl" : "input.obj", data + 1, size - 1);
  return graspsim::fuzz::run([&] { graspsim::load_mesh(path, "fuzzed"); });
}
