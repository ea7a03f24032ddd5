// MCube push files: the set-up from the file name, the three streams from HDF5 or JSON.

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/error.h"
#include "io/mcube.h"

namespace graspsim::mcube {
namespace {

constexpr const char* kStreams[] = {"tip_pose", "object_pose", "ft_wrench"};

constexpr double kMaxTimeStepBack = 1.0;  // s
constexpr double kMaxPosition = 10.0;     // m
constexpr hsize_t kMaxRows = 1'000'000;   // per stream
constexpr hsize_t kMaxChunkBytes = hsize_t{64} << 20;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError("MCube file '" + path + "': " + what);
}

Stream& stream_of(PushFile& f, const std::string& name) {
  if (name == "tip_pose") return f.tip_pose;
  if (name == "object_pose") return f.object_pose;
  return f.ft_wrench;
}

// Appends one row; the time column must be finite and non-decreasing, the rest finite.
void push_row(Stream& s, const double* row, const std::string& path, const std::string& name) {
  for (int k = 0; k < 4; ++k)
    if (!std::isfinite(row[k])) fail(path, "'" + name + "' row " + std::to_string(s.size()) + " is not finite");
  s.t.push_back(row[0]);
  s.a.push_back(row[1]);
  s.b.push_back(row[2]);
  s.c.push_back(row[3]);
}

// What a recording of a push on a table can hold: at least two rows, time running forward
// (the real files step back by up to ~10 ms in places, from the trackers' clocks; a second
// is no clock jitter), and poses within 10 m of the tracker's origin.
void check_stream(const Stream& s, const std::string& path, const std::string& name) {
  if (s.size() < 2) fail(path, "'" + name + "' has " + std::to_string(s.size()) + " rows (need at least 2)");
  if (!(s.t.back() > s.t.front()))
    fail(path, "'" + name + "' ends at t = " + show(s.t.back()) + " s, not after it starts (" + show(s.t.front()) + " s)");
  for (size_t i = 1; i < s.size(); ++i)
    if (s.t[i] < s.t[i - 1] - kMaxTimeStepBack)
      fail(path, "'" + name + "' row " + std::to_string(i) + " steps back in time by " + show(s.t[i - 1] - s.t[i]) +
                     " s (more than " + show(kMaxTimeStepBack) + " s)");
  if (name == "ft_wrench") return;
  for (size_t i = 0; i < s.size(); ++i)
    if (std::abs(s.a[i]) > kMaxPosition || std::abs(s.b[i]) > kMaxPosition)
      fail(path, "'" + name + "' row " + std::to_string(i) + " lies " + show(std::max(std::abs(s.a[i]), std::abs(s.b[i]))) +
                     " m from the origin (more than " + show(kMaxPosition) + " m: not a push on a table)");
}

// ---- HDF5 ------------------------------------------------------------------------------------

// Silences the HDF5 library's own error printing for the lifetime of the guard (our messages
// replace it) and restores the previous handler afterwards.
class QuietHdf5 {
 public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// Closes an HDF5 handle with the matching H5?close when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void read_h5_dataset(hid_t file, const std::string& name, PushFile& f) {
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) <= 0) fail(f.path, "no '" + name + "' dataset");
  Handle set(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!set.ok()) fail(f.path, "cannot open dataset '" + name + "'");
  Handle space(H5Dget_space(set.get()), H5Sclose);
  hsize_t dims[2] = {0, 0};
  if (!space.ok() || H5Sget_simple_extent_ndims(space.get()) != 2 || H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 2 ||
      dims[1] != 4)
    fail(f.path, "dataset '" + name + "' is not an N x 4 array");
  // A damaged header can declare billions of rows (found by fuzz_mcube: 3 GB of fill values);
  // a push of a few seconds at up to 1 kHz has thousands.
  if (dims[0] > kMaxRows)
    fail(f.path, "dataset '" + name + "' declares " + std::to_string(dims[0]) + " rows (more than " +
                     std::to_string(kMaxRows) + ": not one push)");
  // Nor may its element type or chunks make HDF5 allocate gigabytes while it reads (fuzz_mcube:
  // a damaged chunk size asked for 4 GB): numbers of at most 8 bytes, chunks of at most 64 MB.
  Handle type(H5Dget_type(set.get()), H5Tclose);
  if (!type.ok() || (H5Tget_class(type.get()) != H5T_FLOAT && H5Tget_class(type.get()) != H5T_INTEGER) ||
      H5Tget_size(type.get()) > 8)
    fail(f.path, "dataset '" + name + "' does not hold numbers");
  Handle plist(H5Dget_create_plist(set.get()), H5Pclose);
  if (plist.ok() && H5Pget_layout(plist.get()) == H5D_CHUNKED) {
    hsize_t chunk[2] = {0, 0};
    if (H5Pget_chunk(plist.get(), 2, chunk) != 2 || chunk[0] * chunk[1] * H5Tget_size(type.get()) > kMaxChunkBytes)
      fail(f.path, "dataset '" + name + "' has chunks larger than 64 MB (a damaged header?)");
  }
  std::vector<double> data(dims[0] * 4);
  if (!data.empty() && H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0)
    fail(f.path, "cannot read dataset '" + name + "' (truncated or corrupt file?)");
  Stream& s = stream_of(f, name);
  for (hsize_t r = 0; r < dims[0]; ++r) push_row(s, &data[4 * r], f.path, name);
}

void read_h5(PushFile& f) {
  QuietHdf5 quiet;
  Handle file(H5Fopen(f.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) fail(f.path, "cannot open as HDF5 (truncated or corrupt?)");
  for (const char* name : kStreams) read_h5_dataset(file.get(), name, f);
}

// ---- JSON ------------------------------------------------------------------------------------

void read_json(PushFile& f) {
  std::ifstream in(f.path, std::ios::binary);
  if (!in) fail(f.path, "cannot open");
  nlohmann::json doc;
  try {
    in >> doc;
  } catch (const nlohmann::json::exception& e) {
    fail(f.path, std::string("invalid JSON (truncated?): ") + e.what());
  }
  if (!doc.is_object()) fail(f.path, "top level is not a JSON object");
  for (const char* name : kStreams) {
    auto it = doc.find(name);
    if (it == doc.end()) fail(f.path, std::string("no '") + name + "'");
    if (!it->is_array()) fail(f.path, std::string("'") + name + "' is not a list of rows");
    Stream& s = stream_of(f, name);
    for (const auto& row : *it) {
      if (!row.is_array() || row.size() != 4)
        fail(f.path, std::string("'") + name + "' row " + std::to_string(s.size()) + " is not a 4-element list");
      double v[4];
      for (int k = 0; k < 4; ++k) {
        if (!row[k].is_number()) fail(f.path, std::string("'") + name + "' row " + std::to_string(s.size()) + " holds a non-number");
        v[k] = row[k].get<double>();
      }
      push_row(s, v, f.path, name);
    }
  }
}

double parse_number(const std::string& text, const std::string& path, const char* key) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  fail(path, std::string("bad value '") + text + "' for " + key + " in the file name");
}

}  // namespace

PushFile parse_push_name(const std::string& path) {
  static const std::regex kName(
      R"(motion_surface=([A-Za-z0-9]+)_shape=([A-Za-z0-9]+)_a=([-+.0-9eE]+)_v=([-+.0-9eE]+)_i=([-+.0-9eE]+)_s=([-+.0-9eE]+)_t=([-+.0-9eE]+))");
  const std::string stem = std::filesystem::path(path).stem().string();
  std::smatch m;
  if (!std::regex_match(stem, m, kName))
    fail(path, "file name is not motion_surface=<surface>_shape=<shape>_a=<a>_v=<v>_i=<i>_s=<s>_t=<t>.{h5,json}");
  PushFile f;
  f.path = path;
  f.surface = m[1];
  f.shape = m[2];
  try {
    object_info(f.shape);
  } catch (const InputError& e) {
    fail(path, e.what());
  }
  f.acceleration = parse_number(m[3], path, "a");
  f.speed_mm_s = parse_number(m[4], path, "v");
  const double side = parse_number(m[5], path, "i");
  if (side < 0 || side != std::floor(side)) fail(path, "side i=" + std::string(m[5]) + " is not a non-negative integer");
  f.side = static_cast<int>(side);
  f.position = parse_number(m[6], path, "s");
  if (f.position < 0 || f.position > 1) fail(path, "position s=" + std::string(m[6]) + " is outside [0, 1]");
  f.angle_rad = parse_number(m[7], path, "t");
  if (f.speed_mm_s <= 0) fail(path, "speed v=" + std::string(m[4]) + " is not positive");
  return f;
}

PushFile read_push_file(const std::string& path) {
  PushFile f = parse_push_name(path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    fail(path, ec && ec != std::errc::no_such_file_or_directory ? "cannot open (" + ec.message() + ")" : "no such file");
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".h5" || ext == ".hdf5")
    read_h5(f);
  else if (ext == ".json")
    read_json(f);
  else
    fail(path, "unknown extension '" + ext + "' (expected .h5 or .json)");
  for (const char* name : kStreams) check_stream(stream_of(f, name), path, name);
  return f;
}

}  // namespace graspsim::mcube
