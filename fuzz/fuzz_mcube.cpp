// MCube push recordings through read_push_file: the first byte picks .json or .h5 (HDF5 via
// libhdf5), the rest is the file, under a valid dataset file name.

#include "fuzz_input.h"
#include "io/mcube.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string name = std::string("motion_surface=abs_shape=rect1_a=0_v=20_i=0.000_s=0.500_t=0.000") +
                           (data[0] % 2 ? ".h5" : ".json");
  const std::string path = graspsim::fuzz::write_input(name, data + 1, size - 1);
  return graspsim::fuzz::run([&] { graspsim::mcube::read_push_file(path); });
}
