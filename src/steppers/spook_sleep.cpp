// SPOOK's sleeping of resting islands (SleepOptions): which trees may sleep, which contacts
// are kept from the last step, and which islands sleep this step.

#include <algorithm>
#include <cmath>
#include <tuple>

#include "collision/narrowphase.h"
#include "steppers/spook_scratch.h"

namespace graspsim {
namespace {

enum TreeKind : char { kNeverSleeps = 0, kMaySleep = 1, kFixed = 2 };

int island_of(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

// Whether every dof of the tree [root, end) moves slower than the thresholds.
bool tree_still(const Model& model, const VecX& v, int root, int end, const SleepOptions& o) {
  const double lin2 = o.linear * o.linear, ang2 = o.angular * o.angular;
  for (int b = root; b < end; ++b) {
    const Joint& j = model.joints[model.bodies[b].joint];
    const bool fast = j.type == JointType::Free      ? v.segment<3>(j.vadr).squaredNorm() > lin2 ||
                                                         v.segment<3>(j.vadr + 3).squaredNorm() > ang2
                      : j.type == JointType::Ball      ? v.segment<3>(j.vadr).squaredNorm() > ang2
                      : j.type == JointType::Revolute  ? std::abs(v[j.vadr]) > o.angular
                      : j.type == JointType::Prismatic ? std::abs(v[j.vadr]) > o.linear
                                                       : false;
    if (fast) return false;
  }
  return true;
}

// Whether every dof of the tree [root, end) has exactly zero velocity (an asleep tree's; an
// awake tree at rest keeps some rounding-level motion).
bool tree_v_zero(const Model& model, const VecX& v, int root, int end) {
  for (int b = root; b < end; ++b) {
    const Joint& j = model.joints[model.bodies[b].joint];
    if (!v.segment(j.vadr, j.nv).isZero(0.0)) return false;
  }
  return true;
}

}  // namespace

int tree_end(const Model& model, int root) {
  int end = root + 1;
  while (end < model.nbody() && model.bodies[end].parent != 0) ++end;
  return end;
}

void classify_trees(const Model& model, SpookScratch& sc) {
  const int nb = model.nbody();
  sc.root_of.assign(static_cast<size_t>(nb), 0);
  sc.may_sleep.assign(static_cast<size_t>(nb), kNeverSleeps);
  for (int root = 1; root < nb;) {
    const int end = tree_end(model, root);
    int nv = 0;
    bool driven = false;
    for (int b = root; b < end; ++b) {
      sc.root_of[b] = root;
      nv += model.joints[model.bodies[b].joint].nv;
      driven = driven || model.bodies[b].kinematic;
    }
    sc.may_sleep[root] = nv == 0 ? kFixed : driven ? kNeverSleeps : kMaySleep;
    root = end;
  }
  auto drive = [&](int joint) {
    if (joint >= 0) sc.may_sleep[sc.root_of[model.joints[joint].body]] = kNeverSleeps;
  };
  for (const Actuator& a : model.actuators) {
    drive(a.joint);
    if (a.tendon >= 0)
      for (const TransmissionTerm& t : model.tendons[a.tendon].terms) drive(t.joint);
  }
  for (const Equality& e : model.equalities) {
    for (int b : {e.body_a, e.body_b})
      if (b > 0) sc.may_sleep[sc.root_of[b]] = kNeverSleeps;
    drive(e.joint_a);
    drive(e.joint_b);
  }
}

void mark_frozen(const Model& model, const State& s, SpookScratch& sc) {
  const int nb = model.nbody();
  const bool known = static_cast<int>(sc.asleep.size()) == nb && sc.q_last.size() == s.q.size();
  sc.frozen.assign(static_cast<size_t>(nb), 0);
  sc.frozen[0] = 1;
  for (int root = 1; root < nb;) {
    const int end = tree_end(model, root);
    char f = sc.may_sleep[root] == kFixed ? 1 : 0;
    if (!f && known && sc.asleep[root] && tree_v_zero(model, s.v, root, end)) {
      // (the tree's q is contiguous: [its root's qadr, the next tree's))
      const int qb = model.joints[model.bodies[root].joint].qadr;
      const int qe = end < nb ? model.joints[model.bodies[end].joint].qadr : model.nq;
      if (s.q.segment(qb, qe - qb) == sc.q_last.segment(qb, qe - qb)) f = 2;
    }
    for (int b = root; b < end; ++b) sc.frozen[b] = f;
    root = end;
  }
}

// Adds the last step's sleeping contact sets whose bodies are still frozen, keeping the sets
// ordered by geom pair as collide() makes them (so the order does not depend on whether the
// Workspace saw the last step).
void add_frozen_contacts(const Model& model, SpookScratch& sc) {
  bool added = false;
  for (ContactSet& cs : sc.sleeping_cache) {
    if (!frozen_pair(sc.frozen[model.geoms[cs.geom_a].body], sc.frozen[model.geoms[cs.geom_b].body])) continue;
    sc.contact_sets.push_back(std::move(cs));  // (moved back into the cache at the step's end)
    added = true;
  }
  if (added)
    std::sort(sc.contact_sets.begin(), sc.contact_sets.end(), [](const ContactSet& a, const ContactSet& b) {
      return std::tie(a.geom_a, a.geom_b) < std::tie(b.geom_a, b.geom_b);
    });
}

bool sleeping_pair(const SpookScratch& sc, int a, int b) {
  auto inert = [&](int x) { return x == 0 || sc.asleep[x] || sc.may_sleep[sc.root_of[x]] == kFixed; };
  return (sc.asleep[a] || sc.asleep[b]) && inert(a) && inert(b);
}

// Advances each tree's still time and decides which islands (trees joined by contacts) sleep
// this step: all their trees still for o.time, no asleep tree with a contact new this step,
// and, under gravity, touching something. An asleep tree's velocities are zeroed (SpookScratch::asleep).
void mark_sleeping(const Model& model, State& s, SpookScratch& sc, const SleepOptions& o) {
  const int nb = model.nbody();
  sc.asleep.assign(static_cast<size_t>(nb), 0);
  if (s.sleep_time.size() != nb) s.sleep_time = VecX::Zero(nb);
  if (!o.enabled) {
    s.sleep_time.setZero();
    return;
  }
  const double h = model.options.dt;
  std::vector<int>& parent = sc.island_parent;
  parent.resize(static_cast<size_t>(nb));
  for (int b = 0; b < nb; ++b) parent[b] = b;
  for (int root = 1; root < nb;) {
    const int end = tree_end(model, root);
    const bool still = sc.may_sleep[root] == kMaySleep && tree_still(model, s.v, root, end, o);
    s.sleep_time[root] = still ? s.sleep_time[root] + h : 0.0;
    root = end;
  }
  // Islands, and which of them touch something or have a new contact (both: flags per root,
  // gathered on the island's representative below).
  std::vector<char>& flags = sc.root_flags;  // bit 1: touches, bit 2: a new contact
  flags.assign(static_cast<size_t>(nb), 0);
  auto dynamic = [&](int r) { return r != 0 && sc.may_sleep[r] != kFixed; };
  // Asleep in the last step: still long enough, and v exactly zero (zeroed when it fell asleep).
  auto was_asleep = [&](int r) {
    return dynamic(r) && s.sleep_time[r] >= o.time && tree_v_zero(model, s.v, r, tree_end(model, r));
  };
  for (const ContactSet& cs : sc.contact_sets) {
    if (cs.points.empty()) continue;
    const int ra = sc.root_of[model.geoms[cs.geom_a].body], rb = sc.root_of[model.geoms[cs.geom_b].body];
    if (dynamic(ra) && dynamic(rb)) parent[island_of(parent, ra)] = island_of(parent, rb);
    // A new contact wakes a sleeping tree (one moved by hand onto something else). Only
    // sleeping ones: an awake stack still settling at µm/s gains and loses manifold corners.
    char f = 1;
    const bool kept = !sc.frozen.empty() && frozen_pair(sc.frozen[model.geoms[cs.geom_a].body],
                                                        sc.frozen[model.geoms[cs.geom_b].body]);  // (last step's: nothing new)
    if (!kept && (was_asleep(ra) || was_asleep(rb)))
      for (const ContactPoint& p : cs.points)
        if (!s.contacts.find({cs.geom_a, cs.geom_b, p.feature})) f |= 2;
    flags[ra] |= f;
    flags[rb] |= f;
  }
  // Gathered on each island's representative: bit 1 touches something, bit 2 some tree in it
  // is not ready to sleep.
  std::vector<char>& island = sc.island_flags;
  island.assign(static_cast<size_t>(nb), 0);
  for (int r = 1; r < nb; ++r) {
    if (sc.root_of[r] != r || !dynamic(r)) continue;
    char& f = island[island_of(parent, r)];
    if (flags[r] & 1) f |= 1;
    if (sc.may_sleep[r] != kMaySleep || s.sleep_time[r] < o.time || (flags[r] & 2)) f |= 2;
  }
  const bool gravity = model.options.gravity.squaredNorm() > 0.0;
  for (int b = 1; b < nb; ++b) {
    const int r = sc.root_of[b];
    if (!dynamic(r)) continue;
    const char f = island[island_of(parent, r)];
    sc.asleep[b] = !(f & 2) && ((f & 1) || !gravity);
    if (sc.asleep[b]) {
      const Joint& j = model.joints[model.bodies[b].joint];
      s.v.segment(j.vadr, j.nv).setZero();
    }
  }
}

}  // namespace graspsim
