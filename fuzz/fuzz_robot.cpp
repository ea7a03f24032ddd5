// Robot files through load_robot: the first byte picks MJCF (.xml) or URDF (.urdf); the
// rest is the file. A mesh it names is looked up beside it (tet.obj and tet.stl exist).

#include "fuzz_input.h"
#include "robots/robot_file.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const auto dir = graspsim::fuzz::work_dir();
  std::ofstream(dir / "tet.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
  std::ofstream(dir / "tet.stl") << "solid t\nfacet normal 0 0 -1\nouter loop\nvertex 0 0 0\nvertex 0 1 0\n"
                                    "vertex 1 0 0\nendloop\nendfacet\nendsolid t\n";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string path = graspsim::fuzz::write_input(data[0] % 2 ? "robot.urdf" : "robot.xml", data + 1, size - 1);
  return graspsim::fuzz::run([&] { graspsim::load_robot(path); });
}
