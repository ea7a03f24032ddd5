#pragma once
// Reader for the MIT MCube planar-push recordings (Yu et al., IROS 2016) as vendored in
// shared/data/mcube-push (see its README): raw files, the push set-up encoded in the file
// name, the object table, and the recorded motion re-expressed in the initial object frame.
//
// Frames and units: SI (m, s, rad, N). "World" is the recordings' fixed planar frame.
// The object frame is the frame of `object_pose` (origin = the shape's centre, the origin
// of its mesh in objects/). "Initial object frame" = the object frame at the push start.

#include <string>
#include <vector>

#include <Eigen/Core>

namespace graspsim::mcube {

using Vec2 = Eigen::Vector2d;

// One recorded stream, column-wise: rows of (t, x, y, yaw) or (t, fx, fy, tz); t is Unix time (s).
struct Stream {
  std::vector<double> t, a, b, c;
  std::size_t size() const { return t.size(); }
};

// One push recording. The set-up fields come from the file name
// motion_surface=<surface>_shape=<shape>_a=<a>_v=<v>_i=<i>_s=<s>_t=<t>.{h5,json}.
struct PushFile {
  std::string path, surface, shape;
  double acceleration = 0;  // a (0 = constant-velocity push)
  double speed_mm_s = 0;    // v, mm/s
  int side = 0;             // i, 0-based polygon side
  double position = 0;      // s in [0, 1] along the side
  double angle_rad = 0;     // t, push angle from the inward side normal
  Stream tip_pose, object_pose, ft_wrench;
};

// The set-up encoded in a file name (directories and extension are ignored). The returned
// PushFile has empty streams. InputError naming `path` when the name does not follow the format
// or names a shape not in the object table.
PushFile parse_push_name(const std::string& path);

// Rows are kept in file order: object_pose timestamps step back by up to ~10 ms in many files
// (stamp jitter; the poses themselves progress in row order), so times are not sorted or checked
// for monotonicity. Reads an .h5 (datasets tip_pose, object_pose, ft_wrench: N x 4 float64) or .json (same keys,
// lists of 4-element rows) file. InputError naming the file on any problem: missing, truncated or
// not HDF5/JSON, a missing array ("no 'object_pose'"), a wrong shape, fewer than 2 rows, non-finite
// or a name not in the format above.
PushFile read_push_file(const std::string& path);

// Pusher: a cylinder of this radius (README, from pnpush probe_db.py).
inline constexpr double kPusherRadius = 0.00475;

// Known MCube shapes (README "Objects", from pnpush shape_db.py).
struct ObjectInfo {
  std::string shape;
  double mass_kg;
  double izz;              // kg m^2 about the vertical axis through the object origin
  double thickness;        // m (extrusion height of the mesh)
  std::string mesh;        // file name in shared/data/mcube-push/objects/
  std::string outline;     // file name of the outline (N x 2 float64 .npy) in the same folder
  double outline_yaw;      // rad: rotate the outline/mesh by this about z to get the object frame
  // How a file name's side i and position s locate the contact (see push_geometry).
  enum class Sides { Polygon, Ellipse, Unknown } sides;
};

// The table entry for `shape`; InputError listing the known shapes for an unknown one.
const ObjectInfo& object_info(const std::string& shape);
const std::vector<ObjectInfo>& known_objects();

// The shape's outline polygon in the object frame (counter-clockwise, metres): read from
// `objects_dir`/<outline>.npy and rotated by outline_yaw. InputError naming the file on problems.
std::vector<Vec2> object_outline(const ObjectInfo& info, const std::string& objects_dir);

// The push set-up in the object frame (m): the contact point on side i at position s, the side's
// outward unit normal, the initial tip centre (contact + kPusherRadius * normal), and the unit push
// direction (-Rz(t) * normal). Only polygons whose side numbering is known: rect1, per the README
// (V = [(a,b), (-a,b), (-a,-b), (a,-b)], a = b = 45 mm, side i from V[i] to V[i+1]). Other shapes:
// InputError saying the convention is unknown.
struct PushGeometry {
  Vec2 contact, normal, tip_start, direction;
};
PushGeometry push_geometry(const PushFile& f);

// The same for any shape whose convention is known, given its outline in the object frame
// (object_outline()). Conventions, checked against the recorded tip starts (tests/io):
// - Polygon (rect1, hex): the vertices counter-clockwise from the first one at a polar angle >= 0;
//   side i runs from V[i] to V[i+1] (rect1: the README's V).
// - Ellipse (ellip1, ellip3): one side (i = 0); s is the fraction of the ellipse's parameter angle
//   from the object's +x axis, counter-clockwise: p = (A cos 2 pi s, B sin 2 pi s) with the semi-axes
//   A, B of the outline.
// - butter: unknown (no recordings to check it on): InputError.
PushGeometry push_geometry(const PushFile& f, const std::vector<Vec2>& outline);

// When the push starts and ends, on the tip stream's clock (Unix s): the instants the tip leaves /
// reaches its rest positions (first/last sample 0.2 mm away from them, extrapolated at speed v).
// When the tip is already moving in its first sample (the stream began mid-push), the start is
// dated from the missing part of the nominal 50 mm travel and started_before_recording is set.
struct PushWindow {
  double start, end;
  bool started_before_recording;
};
PushWindow push_window(const PushFile& f);

// A planar trajectory in the initial object frame: t from the push start (s; negative before it),
// x, y (m), yaw (rad, unwrapped, 0 = initial object orientation).
struct Trajectory {
  std::vector<double> t, x, y, yaw;
  int yaw_jumps_fixed = 0;  // tracking jumps (multiples of 90 deg within one sample) removed
};

// The object's motion: its origin and yaw relative to its pose at rest before the push (the mean
// of the samples before the push start), so it starts at (0, 0, 0). All samples, pre-push included.
Trajectory object_motion(const PushFile& f);

// The pusher tip's centre in the initial object frame (origin = object origin at rest), so at
// t = 0 it sits near push_geometry(f).tip_start. yaw is the tip's yaw relative to the object's.
Trajectory tip_motion(const PushFile& f);

// The pusher force (N) in the initial object frame, t from the push start, with the baseline (the
// mean of the samples before the push) removed. `usable` is false, with the reason in why_not, when
// the channel is frozen (few distinct rows or long constant runs) or has no pre-push samples.
struct ForceSeries {
  std::vector<double> t, fx, fy;
  int baseline_samples = 0;  // samples averaged into the baseline
  bool usable = true;
  std::string why_not;
};
ForceSeries pusher_force(const PushFile& f);

}  // namespace graspsim::mcube
