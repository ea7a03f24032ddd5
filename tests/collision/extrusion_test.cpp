// Extruded outlines split into convex pieces: the pieces tile the outline exactly.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

#include "collision/extrusion.h"
#include "core/error.h"
#include "model/mass_properties.h"

namespace graspsim {
namespace {

// 60 x 40 mm L: the notch [0.02, 0.06] x [0.01, 0.04] cut from the bounding rectangle.
Outline l_shape() { return {{0, 0}, {0.06, 0}, {0.06, 0.01}, {0.02, 0.01}, {0.02, 0.04}, {0, 0.04}}; }

// A dog bone like MCube's butter: two lobes and a waist half as wide (100 points).
Outline dog_bone() {
  Outline o;
  for (int i = 0; i < 100; ++i) {
    const double t = 2 * std::numbers::pi * i / 100;
    o.emplace_back(0.08 * std::cos(t), 0.05 * std::sin(t) * (1 + 0.5 * std::cos(2 * t)));
  }
  return o;
}

bool is_outline_point(const Vec2& p, const Outline& o) {
  for (const Vec2& q : o)
    if (p == q) return true;
  return false;
}

// Every piece is convex and counter-clockwise, made of outline points, within the size limit, and
// the areas add up to the outline's (the pieces tile it: they only meet along diagonals).
void expect_exact_partition(const Outline& outline, const std::vector<Outline>& pieces) {
  double area = 0;
  for (const Outline& piece : pieces) {
    EXPECT_TRUE(is_convex(piece));
    EXPECT_GT(signed_area(piece), 0);
    EXPECT_LE(piece.size(), kMaxPieceVertices);
    for (const Vec2& p : piece) EXPECT_TRUE(is_outline_point(p, outline)) << p.transpose();
    area += signed_area(piece);
  }
  EXPECT_NEAR(area, signed_area(outline), 1e-12 * std::abs(signed_area(outline)));
}

TEST(Extrusion, LShapeIsTwoConvexPiecesThatTileIt) {
  const Outline l = simple_outline(l_shape());
  EXPECT_FALSE(is_convex(l));
  const auto pieces = convex_pieces(l);
  EXPECT_EQ(pieces.size(), 2u);  // the optimum for one reflex vertex
  expect_exact_partition(l, pieces);
  EXPECT_NEAR(signed_area(l), 0.06 * 0.04 - 0.04 * 0.03, 1e-15);
}

TEST(Extrusion, DogBoneIsTiledByFewConvexPieces) {
  const Outline bone = simple_outline(dog_bone());
  EXPECT_FALSE(is_convex(bone));
  const auto pieces = convex_pieces(bone);
  // Each reflex vertex needs a diagonal and a diagonal ends at two, so an optimal partition
  // without new points has between r/2 + 1 and r + 1 pieces for r reflex vertices (the waist's
  // sampled concave arcs are all reflex).
  std::size_t reflex = 0;
  for (std::size_t i = 0; i < bone.size(); ++i) {
    const Vec2 a = bone[(i + bone.size() - 1) % bone.size()], b = bone[i], c = bone[(i + 1) % bone.size()];
    const Vec2 u = b - a, v = c - b;
    reflex += u.x() * v.y() - u.y() * v.x() < 0;
  }
  EXPECT_GE(reflex, 2u);
  EXPECT_GE(pieces.size(), (reflex + 1) / 2 + 1);
  EXPECT_LE(pieces.size(), reflex + 1);
  expect_exact_partition(bone, pieces);
}

TEST(Extrusion, ClockwiseRepeatedAndCollinearPointsAreCleaned) {
  Outline cw = {{0, 0}, {0, 0.04}, {0, 0.04}, {0.02, 0.04}, {0.02, 0.01}, {0.06, 0.01}, {0.06, 0}, {0.03, 0}, {0, 0}};
  const Outline o = simple_outline(cw);
  EXPECT_EQ(o.size(), 6u);  // the repeat, the closing point and (0.03, 0) on a side are gone
  EXPECT_GT(signed_area(o), 0);
  EXPECT_NEAR(signed_area(o), signed_area(simple_outline(l_shape())), 1e-15);
}

TEST(Extrusion, ConvexOutlineIsOnePieceUnlessLargerThanAFaceMayBe) {
  Outline square = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  EXPECT_EQ(convex_pieces(simple_outline(square)).size(), 1u);
  Outline circle;
  for (int i = 0; i < 200; ++i) circle.emplace_back(std::cos(2 * std::numbers::pi * i / 200), std::sin(2 * std::numbers::pi * i / 200));
  const Outline c = simple_outline(circle);
  const auto pieces = convex_pieces(c);
  EXPECT_EQ(pieces.size(), 4u);  // 200 points in pieces of at most 60
  expect_exact_partition(c, pieces);
}

TEST(Extrusion, BadOutlinesAreRefusedSayingWhy) {
  const auto message = [](const Outline& o) {
    try {
      simple_outline(o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message({{0, 0}, {1, 1}, {1, 0}, {0, 1}}).find("crosses or touches itself"), std::string::npos);
  EXPECT_NE(message({{0, 0}, {1, 0}, {2, 0}}).find("at least 3 points"), std::string::npos);
  EXPECT_NE(message({{0, 0}, {1, 0}}).find("at least 3 points"), std::string::npos);
  EXPECT_NE(message({{0, 0}, {1, 0}, {std::nan(""), 1}}).find("non-finite"), std::string::npos);
  EXPECT_NE(message(Outline(kMaxOutlinePoints + 1, Vec2::Zero())).find("the limit is 4096"), std::string::npos);
}

TEST(Extrusion, PrismIsClosedWithTheOutlinesVolumeAndCentroid) {
  for (const Outline& piece : convex_pieces(simple_outline(l_shape()))) {
    const Mesh m = extrude(piece, 0.01, "piece");
    std::map<std::pair<int, int>, int> edges;  // a closed, consistently wound mesh uses each
    for (const auto& f : m.faces)              // directed edge once, and its reverse once
      for (int k = 0; k < 3; ++k) ++edges[{f[k], f[(k + 1) % 3]}];
    for (const auto& [e, count] : edges) {
      EXPECT_EQ(count, 1);
      EXPECT_EQ(edges.count({e.second, e.first}), 1u);
    }
    const MassProperties mp = mesh_mass_properties(m, 1000.0);
    EXPECT_NEAR(mp.mass, 1000.0 * signed_area(piece) * 0.01, 1e-12);
    EXPECT_NEAR(mp.com.z(), 0.0, 1e-12);
  }
}

TEST(Extrusion, SignedDistanceToANonConvexOutline) {
  // The L: a 60 x 10 mm foot and a 20 x 40 mm stem; either orientation.
  for (bool reversed : {false, true}) {
    Outline l = l_shape();
    if (reversed) std::reverse(l.begin(), l.end());
    Vec2 away;
    EXPECT_NEAR(outline_signed_distance(l, {0.04, 0.02}, &away), 0.01, 1e-15);  // in the notch, inside the hull
    EXPECT_NEAR((away - Vec2(0, 1)).norm(), 0.0, 1e-12);
    EXPECT_FALSE(outline_contains(l, {0.04, 0.02}));
    EXPECT_NEAR(outline_signed_distance(l, {0.025, 0.015}), 0.005, 1e-15);  // off the inner corner: the stem's edge
    EXPECT_NEAR(outline_signed_distance(l, {0.065, 0.015}, &away), 0.005 * std::sqrt(2.0), 1e-15);  // off the foot's corner
    EXPECT_NEAR((away - Vec2(1, 1).normalized()).norm(), 0.0, 1e-12);
    EXPECT_NEAR(outline_signed_distance(l, {0.005, 0.03}, &away), -0.005, 1e-15);  // inside the stem
    EXPECT_NEAR((away - Vec2(-1, 0)).norm(), 0.0, 1e-12);
    EXPECT_TRUE(outline_contains(l, {0.005, 0.03}));
    EXPECT_NEAR(outline_signed_distance(l, {0.05, 0.003}), -0.003, 1e-15);  // inside the foot
    EXPECT_NEAR(outline_signed_distance(l, {-0.003, -0.004}), 0.005, 1e-15);  // off the outer corner
  }
}

}  // namespace
}  // namespace graspsim
