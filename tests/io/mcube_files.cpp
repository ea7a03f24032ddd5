// MCube push files: both formats parse, the name encodes the set-up, broken input is an InputError
// naming the file.

#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "io_test_util.h"
#include "io/mcube.h"
#include "mcube_util.h"

namespace graspsim {
namespace {

using mcube::read_push_file;
using test::mcube_file;

const std::string kAbsRect = "abs_shape=rect1_a=0_v=75_i=2.000_s=0.800_t=0.000.h5";
const std::string kPlyRect = "plywood_shape=rect1_a=0_v=100_i=0.000_s=0.000_t=0.000.json";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(McubeFiles, Hdf5Parses) {
  const auto f = read_push_file(mcube_file("abs/train", kAbsRect));
  EXPECT_EQ(f.surface, "abs");
  EXPECT_EQ(f.shape, "rect1");
  EXPECT_EQ(f.acceleration, 0);
  EXPECT_EQ(f.speed_mm_s, 75);
  EXPECT_EQ(f.side, 2);
  EXPECT_DOUBLE_EQ(f.position, 0.8);
  EXPECT_DOUBLE_EQ(f.angle_rad, 0.0);
  // README: tip ~228-260 Hz and ft ~250 Hz over a v=75 recording of 1.1-1.25 s, object 98-254 Hz.
  EXPECT_GT(f.tip_pose.size(), 200u);
  EXPECT_GT(f.ft_wrench.size(), 200u);
  EXPECT_GT(f.object_pose.size(), 100u);
  for (const auto* s : {&f.tip_pose, &f.object_pose, &f.ft_wrench}) {
    EXPECT_EQ(s->a.size(), s->size());
    EXPECT_EQ(s->c.size(), s->size());
    EXPECT_GT(s->t.front(), 1.4e9);  // Unix time (2014-2017 recordings)
    const double duration = s->t.back() - s->t.front();
    EXPECT_GT(duration, 1.0);
    EXPECT_LT(duration, 1.4);
  }
}

TEST(McubeFiles, JsonParses) {
  const auto f = read_push_file(mcube_file("plywood/rect1", kPlyRect));
  EXPECT_EQ(f.surface, "plywood");
  EXPECT_EQ(f.speed_mm_s, 100);
  EXPECT_EQ(f.side, 0);
  // Counted in the file with an independent reader (python json): 282 / 140 / 284 rows.
  EXPECT_EQ(f.tip_pose.size(), 282u);
  EXPECT_EQ(f.object_pose.size(), 140u);
  EXPECT_EQ(f.ft_wrench.size(), 284u);
  EXPECT_DOUBLE_EQ(f.tip_pose.a[0], 0.35059300000000004);
  EXPECT_DOUBLE_EQ(f.object_pose.c[0], -1.7798591226021583);
  EXPECT_DOUBLE_EQ(f.ft_wrench.a[0], -1.5334079999999999);
}

TEST(McubeFiles, EveryVendoredFileParses) {
  int n = 0;
  for (const std::string folder : {"abs/train", "plywood/rect1"})
    for (const auto& path : test::mcube_files(folder)) {
      EXPECT_NO_THROW(read_push_file(path)) << path;
      ++n;
    }
  EXPECT_EQ(n, 50 + 32);  // README table
}

TEST(McubeFiles, TruncatedHdf5NamesTheFile) {
  test::TempDir dir;
  const std::string bytes = slurp(mcube_file("abs/train", kAbsRect));
  ASSERT_GT(bytes.size(), 1000u);
  for (const std::size_t keep : {bytes.size() / 2, std::size_t{100}}) {
    const std::string path = dir.write("motion_surface=" + kAbsRect, bytes.substr(0, keep));
    const std::string msg = test::input_error([&] { read_push_file(path); });
    EXPECT_CONTAINS(msg, path);
  }
}

// A header that declares a billion rows (fuzz_mcube found one: 3 GB of fill values read
// before anything was checked) is refused before its data is read.
TEST(McubeFiles, Hdf5DeclaringHugeDatasetsIsRefused) {
  test::TempDir dir;
  const std::string path = dir.path("motion_surface=" + kAbsRect);
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hsize_t dims[2] = {1'000'000'000, 4};
  const hid_t space = H5Screate_simple(2, dims, nullptr);
  for (const char* name : {"tip_pose", "object_pose", "ft_wrench"})  // declared, never written: the file stays small
    H5Dclose(H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Sclose(space);
  H5Fclose(file);
  EXPECT_CONTAINS(test::input_error([&] { read_push_file(path); }), "declares 1000000000 rows (more than 1000000");

  // Chunks of 128 MB over 10 rows: HDF5 would allocate a chunk to read them.
  const hid_t file2 = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t rows[2] = {10, 4}, unlimited[2] = {H5S_UNLIMITED, 4}, chunk[2] = {hsize_t{1} << 22, 4};
  const hid_t space2 = H5Screate_simple(2, rows, unlimited);
  const hid_t plist = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(plist, 2, chunk);
  for (const char* name : {"tip_pose", "object_pose", "ft_wrench"})
    H5Dclose(H5Dcreate2(file2, name, H5T_NATIVE_DOUBLE, space2, H5P_DEFAULT, plist, H5P_DEFAULT));
  H5Pclose(plist);
  H5Sclose(space2);
  H5Fclose(file2);
  EXPECT_CONTAINS(test::input_error([&] { read_push_file(path); }), "has chunks larger than 64 MB");
}

TEST(McubeFiles, JsonWithoutObjectPoseNamesTheFileAndKey) {
  test::TempDir dir;
  const std::string path = dir.write("motion_surface=" + kPlyRect,
                                     R"({"tip_pose": [[1, 0, 0, 0], [2, 0, 0, 0]], "ft_wrench": [[1, 0, 0, 0], [2, 0, 0, 0]]})");
  const std::string msg = test::input_error([&] { read_push_file(path); });
  EXPECT_CONTAINS(msg, path);
  EXPECT_CONTAINS(msg, "no 'object_pose'");
}

TEST(McubeFiles, UnknownShapeNamesTheFileAndTheKnownShapes) {
  test::TempDir dir;
  const std::string path = dir.write("motion_surface=abs_shape=blob_a=0_v=20_i=0.000_s=0.500_t=0.000.json", slurp(mcube_file("plywood/rect1", kPlyRect)));
  const std::string msg = test::input_error([&] { read_push_file(path); });
  EXPECT_CONTAINS(msg, path);
  EXPECT_CONTAINS(msg, "'blob'");
  EXPECT_CONTAINS(msg, "rect1, ellip1, ellip3, hex, butter");
}

TEST(McubeFiles, OtherBrokenInputNamesTheFile) {
  test::TempDir dir;
  const std::string good_rows = R"([[1, 0, 0, 0], [2, 0, 0, 0]])";
  const auto json_with = [&](const std::string& object_pose) {
    return R"({"tip_pose": )" + good_rows + R"(, "ft_wrench": )" + good_rows + R"(, "object_pose": )" + object_pose + "}";
  };
  const std::string name = "motion_surface=" + kPlyRect;
  const std::pair<std::string, std::string> cases[] = {
      {json_with(R"([[1, 0, 0], [2, 0, 0]])"), "4-element"},
      {json_with(R"([[1, 0, 0, 0]])"), "at least 2"},
      {json_with(R"([[1, 0, 0, 0], [2, "x", 0, 0]])"), "non-number"},
      {json_with(good_rows).substr(0, 40), "invalid JSON"},
      // (issue 18: both were accepted and simulated)
      {json_with(R"([[1, 0, 0, 0], [2, 1e300, 0, 0]])"), "'object_pose' row 1 lies 1e+300 m from the origin"},
      {json_with(R"([[2, 0, 0, 0], [1, 0, 0, 0]])"), "'object_pose' ends at t = 1 s, not after it starts (2 s)"},
      {json_with(R"([[1, 0, 0, 0], [5, 0, 0, 0], [3, 0, 0, 0], [6, 0, 0, 0]])"), "row 2 steps back in time by 2 s"},
  };
  for (const auto& [text, wanted] : cases) {
    const std::string path = dir.write(name, text);
    const std::string msg = test::input_error([&] { read_push_file(path); });
    EXPECT_CONTAINS(msg, path);
    EXPECT_CONTAINS(msg, wanted);
  }
  EXPECT_CONTAINS(test::input_error([&] { read_push_file(dir.path("motion_surface=" + kAbsRect)); }), "no such file");
  EXPECT_CONTAINS(test::input_error([&] { read_push_file(dir.write("push.json", good_rows)); }), "push.json");
  EXPECT_CONTAINS(test::input_error([&] { mcube::parse_push_name("motion_surface=abs_shape=rect1_a=0_v=20_i=1.5_s=0.5_t=0.json"); }),
                  "i=1.5");
}

TEST(McubeFiles, ObjectTableHoldsTheReadmeValues) {
  EXPECT_DOUBLE_EQ(mcube::object_info("rect1").mass_kg, 0.8374);
  EXPECT_DOUBLE_EQ(mcube::object_info("rect1").izz, 0.001131);
  EXPECT_DOUBLE_EQ(mcube::object_info("butter").mass_kg, 1.1974);
  EXPECT_DOUBLE_EQ(mcube::object_info("ellip3").izz, 0.002973);
  EXPECT_CONTAINS(test::input_error([] { mcube::object_info("tri1"); }), "known: rect1, ellip1, ellip3, hex, butter");
}

TEST(McubeFiles, OutlinesAreCounterClockwiseInTheObjectFrame) {
  const std::string objects = test::mcube_dir() + "/objects";
  const auto rect = mcube::object_outline(mcube::object_info("rect1"), objects);
  ASSERT_EQ(rect.size(), 4u);
  for (const auto& p : rect) EXPECT_NEAR(std::max(std::abs(p.x()), std::abs(p.y())), 0.045, 1e-12);
  // hex: the .npy has its corners on the y axis at +-60.537 mm; a quarter turn puts them on x.
  const auto hex = mcube::object_outline(mcube::object_info("hex"), objects);
  ASSERT_EQ(hex.size(), 6u);
  double max_x = 0;
  for (const auto& p : hex) max_x = std::max(max_x, std::abs(p.x()));
  EXPECT_NEAR(max_x, 0.060537, 1e-9);
  double area2 = 0;
  for (std::size_t i = 0; i < hex.size(); ++i) {
    const auto& p = hex[i];
    const auto& q = hex[(i + 1) % hex.size()];
    area2 += p.x() * q.y() - q.x() * p.y();
  }
  // Regular hexagon with circumradius R: area 3 sqrt(3)/2 R^2.
  EXPECT_NEAR(0.5 * area2, 1.5 * std::sqrt(3.0) * 0.060537 * 0.060537, 1e-6);
  EXPECT_CONTAINS(test::input_error([&] { mcube::object_outline(mcube::object_info("hex"), "/nonexistent"); }), "hex_ext.npy");
}

}  // namespace
}  // namespace graspsim
