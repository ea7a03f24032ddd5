#include "io/state_file.h"

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <locale>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "core/error.h"
#include "io/atomic_file.h"

namespace graspsim {
namespace {

constexpr char kMagic[16] = {'g', 'r', 'a', 's', 'p', 's', 'i', 'm', ' ', 's', 't', 'a', 't', 'e', '\n', '\0'};
constexpr std::size_t kMagicSize = sizeof(kMagic);
constexpr std::size_t kHeaderSize = kMagicSize + 4 + 8;  // magic, version, size
constexpr std::size_t kChecksumSize = 8;

std::uint64_t fnv1a64(const char* data, std::size_t n) {
  std::uint64_t h = 14695981039346656037ull;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ull;
  }
  return h;
}

// Little-endian encoding into a byte buffer.
struct Writer {
  std::string buf;
  void u8(std::uint8_t x) { buf.push_back(static_cast<char>(x)); }
  void u32(std::uint32_t x) {
    for (int i = 0; i < 4; ++i) buf.push_back(static_cast<char>((x >> (8 * i)) & 0xffu));
  }
  void u64(std::uint64_t x) {
    for (int i = 0; i < 8; ++i) buf.push_back(static_cast<char>((x >> (8 * i)) & 0xffu));
  }
  void i32(std::int32_t x) { u32(static_cast<std::uint32_t>(x)); }
  void f64(double x) { u64(std::bit_cast<std::uint64_t>(x)); }
  void str(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    buf += s;
  }
  void vec(const VecX& x) {
    u32(static_cast<std::uint32_t>(x.size()));
    for (Eigen::Index i = 0; i < x.size(); ++i) f64(x[i]);
  }
};

// Bounds-checked little-endian decoding of data[pos, end); running past `end` is a
// truncated file.
class Reader {
 public:
  Reader(const std::string& data, std::size_t pos, std::size_t end, const std::string& file)
      : data_(data), pos_(pos), end_(end), file_(file) {}

  std::size_t left() const { return end_ - pos_; }
  [[noreturn]] void truncated(const char* what) const {
    throw InputError(file_ + ": truncated state file (it ends inside " + what + ")");
  }
  const char* take(std::size_t n, const char* what) {
    if (left() < n) truncated(what);
    const char* p = data_.data() + pos_;
    pos_ += n;
    return p;
  }
  std::uint8_t u8(const char* what) { return static_cast<std::uint8_t>(*take(1, what)); }
  std::uint32_t u32(const char* what) {
    const char* p = take(4, what);
    std::uint32_t x = 0;
    for (int i = 0; i < 4; ++i) x |= static_cast<std::uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    return x;
  }
  std::uint64_t u64(const char* what) {
    const char* p = take(8, what);
    std::uint64_t x = 0;
    for (int i = 0; i < 8; ++i) x |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    return x;
  }
  std::int32_t i32(const char* what) { return static_cast<std::int32_t>(u32(what)); }
  double f64(const char* what) { return std::bit_cast<double>(u64(what)); }
  std::string str(const char* what) {
    const std::uint32_t n = u32(what);
    const char* p = take(n, what);
    return std::string(p, n);
  }
  VecX vec(const char* what) {
    const std::uint32_t n = u32(what);
    if (left() / 8 < n) truncated(what);
    VecX x(static_cast<Eigen::Index>(n));
    for (std::uint32_t i = 0; i < n; ++i) x[i] = f64(what);
    return x;
  }

 private:
  const std::string& data_;
  std::size_t pos_, end_;
  const std::string& file_;
};

// ---- the model's fingerprint ------------------------------------------------------------

using Fingerprint = StateFingerprint;

Fingerprint fingerprint(const Model& m) {
  Fingerprint f;
  f.nq = static_cast<std::uint32_t>(m.nq);
  f.nv = static_cast<std::uint32_t>(m.nv);
  f.nact = static_cast<std::uint32_t>(m.actuators.size());
  f.nbody = static_cast<std::uint32_t>(m.nbody());
  f.njoint = static_cast<std::uint32_t>(m.njoint());
  f.ngeom = static_cast<std::uint32_t>(m.ngeom());
  Writer structure;  // what the hash covers: names, types and how the parts hang together
  for (const Body& b : m.bodies) {
    f.bodies.push_back(b.name);
    structure.str(b.name);
    structure.i32(b.parent);
    structure.i32(b.joint);
    structure.u8(b.kinematic ? 1 : 0);
  }
  for (const Joint& j : m.joints) {
    f.joints.push_back(j.name);
    f.joint_types.push_back(static_cast<std::uint8_t>(j.type));
    structure.str(j.name);
    structure.u8(static_cast<std::uint8_t>(j.type));
    for (int x : {j.body, j.qadr, j.vadr, j.nq, j.nv}) structure.i32(x);
  }
  for (const Geom& g : m.geoms) {
    f.geoms.push_back(g.name);
    f.geom_types.push_back(static_cast<std::uint8_t>(g.type));
    structure.str(g.name);
    structure.u8(static_cast<std::uint8_t>(g.type));
    structure.i32(g.body);
  }
  for (const Actuator& a : m.actuators) {
    f.actuators.push_back(a.name);
    structure.str(a.name);
    structure.i32(a.joint);
    structure.i32(a.dof);
  }
  f.hash = fnv1a64(structure.buf.data(), structure.buf.size());
  return f;
}

void write_fingerprint(Writer& w, const Fingerprint& f) {
  for (std::uint32_t n : {f.nq, f.nv, f.nact, f.nbody, f.njoint, f.ngeom}) w.u32(n);
  w.u64(f.hash);
  for (const std::string& s : f.bodies) w.str(s);
  for (std::size_t i = 0; i < f.joints.size(); ++i) {
    w.str(f.joints[i]);
    w.u8(f.joint_types[i]);
  }
  for (std::size_t i = 0; i < f.geoms.size(); ++i) {
    w.str(f.geoms[i]);
    w.u8(f.geom_types[i]);
  }
  for (const std::string& s : f.actuators) w.str(s);
}

Fingerprint read_fingerprint(Reader& r) {
  Fingerprint f;
  for (std::uint32_t* n : {&f.nq, &f.nv, &f.nact, &f.nbody, &f.njoint, &f.ngeom}) *n = r.u32("the model fingerprint");
  f.hash = r.u64("the model fingerprint");
  auto names = [&](std::uint32_t n, std::vector<std::string>& out, std::vector<std::uint8_t>* types) {
    // (every name takes at least 4 bytes: a count beyond the file is a truncation)
    if (r.left() / 4 < n) r.truncated("the model fingerprint");
    for (std::uint32_t i = 0; i < n; ++i) {
      out.push_back(r.str("the model fingerprint"));
      if (types) types->push_back(r.u8("the model fingerprint"));
    }
  };
  names(f.nbody, f.bodies, nullptr);
  names(f.njoint, f.joints, &f.joint_types);
  names(f.ngeom, f.geoms, &f.geom_types);
  names(f.nact, f.actuators, nullptr);
  return f;
}

template <NamedEnum E>
std::string type_name(std::uint8_t code) {
  for (const auto& [e, name] : EnumNames<E>::table)
    if (static_cast<std::uint8_t>(e) == code) return name;
  return "type " + std::to_string(code);
}

// Throws InputError if the state file's model (`f`) is not `model`, naming what differs.
void check_model(const Fingerprint& f, const Model& model, const std::string& file) {
  const Fingerprint m = fingerprint(model);
  const std::string prefix = file + ": the state belongs to another model: ";
  const std::pair<const char*, std::pair<std::uint32_t, std::uint32_t>> sizes[] = {
      {"nq (positions)", {f.nq, m.nq}},      {"nv (velocities)", {f.nv, m.nv}},
      {"actuators", {f.nact, m.nact}},       {"bodies (with the world)", {f.nbody, m.nbody}},
      {"joints", {f.njoint, m.njoint}},      {"geoms", {f.ngeom, m.ngeom}}};
  for (const auto& [what, n] : sizes)
    if (n.first != n.second)
      throw InputError(prefix + "it has " + std::to_string(n.first) + " " + what + ", this model " +
                       std::to_string(n.second));
  auto names = [&](const char* what, const std::vector<std::string>& a, const std::vector<std::string>& b) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i])
        throw InputError(prefix + what + " " + std::to_string(i) + " is '" + a[i] + "' in the state file, '" + b[i] +
                         "' in this model");
  };
  names("body", f.bodies, m.bodies);
  names("joint", f.joints, m.joints);
  names("geom", f.geoms, m.geoms);
  names("actuator", f.actuators, m.actuators);
  for (std::size_t i = 0; i < f.joint_types.size(); ++i)
    if (f.joint_types[i] != m.joint_types[i])
      throw InputError(prefix + "joint '" + m.joints[i] + "' is " + type_name<JointType>(f.joint_types[i]) +
                       " in the state file, " + type_name<JointType>(m.joint_types[i]) + " in this model");
  for (std::size_t i = 0; i < f.geom_types.size(); ++i)
    if (f.geom_types[i] != m.geom_types[i])
      throw InputError(prefix + "geom '" + m.geoms[i] + "' is a " + type_name<GeomType>(f.geom_types[i]) +
                       " in the state file, a " + type_name<GeomType>(m.geom_types[i]) + " in this model");
  if (f.hash != m.hash)
    throw InputError(prefix + "sizes and names agree, but its structure (body parents, joint addresses, geom bodies "
                              "or actuator joints) differs from this model's");
}

// ---- files ------------------------------------------------------------------------------

std::string read_file(const std::filesystem::path& path) { return read_whole_file(path, "state file"); }

void require_finite(double x, const std::string& file, const std::string& what) {
  if (!std::isfinite(x)) throw InputError(file + ": " + what + " is not finite");
}

void require_finite(const VecX& x, const std::string& file, const char* name) {
  for (Eigen::Index i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i])) throw InputError(file + ": " + name + "[" + std::to_string(i) + "] is not finite");
}

}  // namespace

void save_state(const std::filesystem::path& path, const Model& model, const State& state) {
  Writer w;
  w.buf.assign(kMagic, kMagicSize);
  w.u32(kStateFileVersion);
  w.u64(0);  // size, filled in below
  write_fingerprint(w, fingerprint(model));
  w.f64(state.t);
  w.u64(state.step);
  w.vec(state.q);
  w.vec(state.v);
  w.vec(state.act);
  w.f64(state.step_size);
  // (a State made by hand may lack sleep_time: all trees awake)
  w.vec(state.sleep_time.size() == model.nbody() ? state.sleep_time : VecX::Zero(model.nbody()));
  w.vec(state.constraint_forces.size() == constraint_slots(model).size ? state.constraint_forces : VecX());
  const std::vector<ContactSlot>& slots = state.contacts.slots();
  const std::vector<char>& live = state.contacts.live();
  w.u32(ContactSlot::kValues);
  w.u64(slots.size());
  for (const ContactSlot& s : slots) {
    w.i32(s.key.geom_a);
    w.i32(s.key.geom_b);
    w.u64(s.key.feature);
    w.f64(s.since);
    for (double x : s.values) w.f64(x);
  }
  for (char l : live) w.u8(l ? 1 : 0);
  std::ostringstream rng;
  rng.imbue(std::locale::classic());
  rng << state.rng;
  w.u64(rng.str().size());
  w.buf += rng.str();
  const std::uint64_t size = w.buf.size() - kHeaderSize;
  for (int i = 0; i < 8; ++i) w.buf[kMagicSize + 4 + i] = static_cast<char>((size >> (8 * i)) & 0xffu);
  w.u64(fnv1a64(w.buf.data(), w.buf.size()));
  write_atomically(path, w.buf);
}

SavedState read_state(const std::filesystem::path& path) {
  const std::string file = path.string();
  const std::string data = read_file(path);

  // Header: magic, version, size; then the checksum over everything before it.
  const std::size_t head = std::min(data.size(), kMagicSize);
  if (data.compare(0, head, kMagic, head) != 0) throw InputError(file + ": not a graspsim state file");
  if (data.size() < kHeaderSize)
    throw InputError(file + ": truncated state file (" + std::to_string(data.size()) +
                     " bytes, shorter than its header)");
  Reader header(data, kMagicSize, kHeaderSize, file);
  const std::uint32_t version = header.u32("the header");
  if (version < 1 || version > kStateFileVersion)
    throw InputError(file + ": state file format version " + std::to_string(version) +
                     ", this graspsim reads versions 1 to " + std::to_string(kStateFileVersion));
  const std::uint64_t size = header.u64("the header");
  const std::uint64_t body = data.size() - kHeaderSize;
  if (body < kChecksumSize || size > body - kChecksumSize)
    throw InputError(file + ": truncated state file (" + std::to_string(data.size()) + " bytes; its header announces " +
                     std::to_string(size) + " bytes of state and a checksum after the " +
                     std::to_string(kHeaderSize) + "-byte header)");
  if (size < body - kChecksumSize)
    throw InputError(file + ": " + std::to_string(body - kChecksumSize - size) +
                     " bytes after the end of the state (a corrupt file)");
  const std::size_t end = kHeaderSize + static_cast<std::size_t>(size);
  Reader sum(data, end, data.size(), file);
  if (sum.u64("the checksum") != fnv1a64(data.data(), end))
    throw InputError(file + ": checksum mismatch: the state file is corrupt");

  Reader r(data, kHeaderSize, end, file);
  SavedState saved;
  saved.file = file;
  saved.fingerprint = read_fingerprint(r);
  State& s = saved.state;
  s.t = r.f64("t");
  s.step = r.u64("the step count");
  s.q = r.vec("q");
  s.v = r.vec("v");
  s.act = r.vec("act");
  if (version >= 2) s.step_size = r.f64("the step size");
  s.sleep_time = version >= 3 ? r.vec("sleep_time") : VecX::Zero(saved.fingerprint.nbody);
  if (version >= 4) s.constraint_forces = r.vec("constraint_forces");
  const StateFingerprint& f = saved.fingerprint;
  auto check_size = [&](const VecX& x, const char* name, std::uint32_t n) {
    if (x.size() != static_cast<Eigen::Index>(n))
      throw InputError(file + ": " + name + " has " + std::to_string(x.size()) + " entries, its model " +
                       std::to_string(n));
  };
  check_size(s.q, "q", f.nq);
  check_size(s.v, "v", f.nv);
  check_size(s.act, "act", f.nact);
  check_size(s.sleep_time, "sleep_time", f.nbody);
  require_finite(s.t, file, "t");
  require_finite(s.q, file, "q");
  require_finite(s.v, file, "v");
  require_finite(s.act, file, "act");
  require_finite(s.constraint_forces, file, "constraint_forces");
  for (Eigen::Index i = 0; i < s.sleep_time.size(); ++i)
    if (!(s.sleep_time[i] >= 0.0) || !std::isfinite(s.sleep_time[i]))
      throw InputError(file + ": sleep_time[" + std::to_string(i) + "] is " + std::to_string(s.sleep_time[i]) +
                       ", it must be finite and >= 0");
  if (!(s.step_size >= 0.0) || !std::isfinite(s.step_size))
    throw InputError(file + ": step_size is " + std::to_string(s.step_size) + ", it must be finite and >= 0");

  const std::uint32_t nvalues = r.u32("the contact table");
  if (nvalues != static_cast<std::uint32_t>(ContactSlot::kValues))
    throw InputError(file + ": its contact slots hold " + std::to_string(nvalues) + " values, this graspsim's " +
                     std::to_string(ContactSlot::kValues));
  const std::uint64_t nslots = r.u64("the contact table");
  constexpr std::size_t kSlotBytes = 4 + 4 + 8 + 8 + 8 * ContactSlot::kValues + 1;
  if (r.left() / kSlotBytes < nslots) r.truncated("the contact table");
  std::vector<ContactSlot> slots(static_cast<std::size_t>(nslots));
  std::vector<char> live(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    ContactSlot& c = slots[i];
    c.key.geom_a = r.i32("the contact table");
    c.key.geom_b = r.i32("the contact table");
    c.key.feature = r.u64("the contact table");
    c.since = r.f64("the contact table");
    for (double& x : c.values) x = r.f64("the contact table");
    require_finite(c.since, file, "contact slot " + std::to_string(i) + " 'since'");
    for (int k = 0; k < ContactSlot::kValues; ++k)
      require_finite(c.values[k], file, "contact slot " + std::to_string(i) + " value " + std::to_string(k));
  }
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const std::uint8_t l = r.u8("the contact table");
    if (l > 1)
      throw InputError(file + ": contact slot " + std::to_string(i) + " has a live flag of " + std::to_string(l));
    live[i] = static_cast<char>(l);
    const ContactKey& k = slots[i].key;
    const auto ngeom = static_cast<std::int32_t>(f.ngeom);
    if (l && (k.geom_a < 0 || k.geom_a >= ngeom || k.geom_b < 0 || k.geom_b >= ngeom))
      throw InputError(file + ": contact slot " + std::to_string(i) + " refers to geoms " + std::to_string(k.geom_a) +
                       " and " + std::to_string(k.geom_b) + ", its model has " + std::to_string(ngeom));
  }
  s.contacts.assign(std::move(slots), std::move(live));

  const std::uint64_t nrng = r.u64("the random generator state");
  if (nrng > r.left()) r.truncated("the random generator state");
  const char* text = r.take(static_cast<std::size_t>(nrng), "the random generator state");
  std::istringstream rng(std::string(text, static_cast<std::size_t>(nrng)));
  rng.imbue(std::locale::classic());
  rng >> s.rng;
  if (rng.fail() || !(rng >> std::ws).eof())
    throw InputError(file + ": the random generator state is not readable");
  if (r.left() != 0)
    throw InputError(file + ": " + std::to_string(r.left()) + " unread bytes before the checksum (a corrupt file)");
  return saved;
}

State bind_state(SavedState saved, const Model& model) {
  check_model(saved.fingerprint, model, saved.file);
  const Eigen::Index n = saved.state.constraint_forces.size(), slots = constraint_slots(model).size;
  if (n != 0 && n != slots)
    throw InputError(saved.file + ": constraint_forces has " + std::to_string(n) + " entries, its model " +
                     std::to_string(slots));
  return std::move(saved.state);
}

State load_state(const std::filesystem::path& path, const Model& model) { return bind_state(read_state(path), model); }

}  // namespace graspsim
