#pragma once
// What contact formulations remember of each touching pair between steps, in State.
//
// A slot per (geom pair, collision feature): created when the contact is first made, kept
// at the same index while it persists, dropped the step it is no longer reported. New
// contacts take the lowest free index, so the layout depends only on the sequence of
// contacts, never on addresses or threads: a saved table restarts bit-identically.
// Each formulation keeps its own per-pair numbers in `values` (its layout is private to
// that stepper: SPOOK's warm start and friction memory; the penalty stepper's filter
// states; the quasistatic stepper's previous penetration).

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace graspsim {

struct ContactKey {
  int geom_a = -1, geom_b = -1;
  std::uint64_t feature = 0;
  auto tie() const { return std::tie(geom_a, geom_b, feature); }
  bool operator<(const ContactKey& o) const { return tie() < o.tie(); }
  bool operator==(const ContactKey& o) const { return tie() == o.tie(); }
};

struct ContactSlot {
  static constexpr int kValues = 12;
  ContactKey key;
  double since = 0.0;                   // time the contact was first made (s)
  std::array<double, kValues> values{};  // the formulation's own numbers (zero when created)
};

class ContactTable {
 public:
  // The slot of `key`, or null. Valid until the next call that changes the table.
  const ContactSlot* find(const ContactKey& key) const;

  // A step's update: begin(), then touch() every contact seen this step (creating slots
  // for new ones, at time t), then end(), which drops the slots not touched.
  void begin();
  ContactSlot& touch(const ContactKey& key, double t);
  // touch() of a live slot already found (by find or find_pair since begin()): no search.
  ContactSlot& touch_slot(int index);
  int index_of(const ContactSlot& slot) const { return static_cast<int>(&slot - slots_.data()); }
  void end();
  // touch() for every existing slot of the geom pair (a, b) (a pair kept unchanged from the
  // last step, e.g. asleep): one search for the pair instead of one per point. `out` receives
  // the pair's slots (valid until the table changes).
  void touch_pair(int geom_a, int geom_b, std::vector<ContactSlot*>& out);
  // The live slots of the geom pair (a, b), without touching them.
  void find_pair(int geom_a, int geom_b, std::vector<const ContactSlot*>& out) const;

  // The live slots in index order (deterministic), and their number.
  template <typename Fn>
  void for_each(Fn fn) const {
    for (std::size_t i = 0; i < slots_.size(); ++i)
      if (live_[i]) fn(slots_[i]);
  }
  int size() const { return static_cast<int>(sorted_.size()); }
  void clear();

  // Raw access for checkpoints: every slot (live or free) and the live flags.
  const std::vector<ContactSlot>& slots() const { return slots_; }
  const std::vector<char>& live() const { return live_; }
  void assign(std::vector<ContactSlot> slots, std::vector<char> live);  // throws on a size mismatch

 private:
  void reindex();
  // sorted_'s first entry not below `key`; the range of the geom pair (a, b) in sorted_.
  std::vector<int>::const_iterator lower(const ContactKey& key) const;
  std::pair<std::vector<int>::const_iterator, std::vector<int>::const_iterator> pair_range(int geom_a,
                                                                                          int geom_b) const;
  std::vector<ContactSlot> slots_;
  std::vector<char> live_;     // slot in use
  std::vector<char> touched_;  // seen in the current step
  std::vector<int> sorted_;    // live slot indices ordered by key, for find()
  std::vector<int> free_;      // free slot indices, descending (the next new contact takes the back)
  std::vector<int> added_, kept_;  // end()'s scratch
};

}  // namespace graspsim
