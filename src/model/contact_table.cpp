#include "model/contact_table.h"

#include <algorithm>
#include <stdexcept>

namespace graspsim {

std::vector<int>::const_iterator ContactTable::lower(const ContactKey& key) const {
  return std::lower_bound(sorted_.begin(), sorted_.end(), key,
                          [&](int slot, const ContactKey& k) { return slots_[slot].key < k; });
}

const ContactSlot* ContactTable::find(const ContactKey& key) const {
  const auto it = lower(key);
  if (it == sorted_.end() || !(slots_[*it].key == key)) return nullptr;
  return &slots_[*it];
}

void ContactTable::begin() { touched_.assign(slots_.size(), 0); }

ContactSlot& ContactTable::touch(const ContactKey& key, double t) {
  if (const ContactSlot* s = find(key)) {
    const auto i = static_cast<size_t>(s - slots_.data());
    touched_[i] = 1;
    return slots_[i];
  }
  // A new contact takes the lowest free slot. (A key new twice in one step gets two slots;
  // find() then sees one of them, by key order, and the other is dropped the next step.)
  size_t i = slots_.size();
  if (!free_.empty()) {
    i = static_cast<size_t>(free_.back());
    free_.pop_back();
  } else {
    slots_.emplace_back();
    live_.push_back(0);
    touched_.push_back(0);
  }
  slots_[i] = ContactSlot{key, t, {}};
  touched_[i] = 1;
  return slots_[i];
}

ContactSlot& ContactTable::touch_slot(int index) {
  const auto i = static_cast<size_t>(index);
  if (index < 0 || i >= live_.size() || !live_[i]) throw std::logic_error("contact table: touch_slot of a slot not live");
  touched_[i] = 1;
  return slots_[i];
}

std::pair<std::vector<int>::const_iterator, std::vector<int>::const_iterator> ContactTable::pair_range(
    int geom_a, int geom_b) const {
  auto first = lower({geom_a, geom_b, 0}), last = first;
  while (last != sorted_.end() && slots_[*last].key.geom_a == geom_a && slots_[*last].key.geom_b == geom_b) ++last;
  return {first, last};
}

void ContactTable::touch_pair(int geom_a, int geom_b, std::vector<ContactSlot*>& out) {
  out.clear();
  const auto [first, last] = pair_range(geom_a, geom_b);
  for (auto it = first; it != last; ++it) {
    touched_[static_cast<size_t>(*it)] = 1;
    out.push_back(&slots_[static_cast<size_t>(*it)]);
  }
}

void ContactTable::find_pair(int geom_a, int geom_b, std::vector<const ContactSlot*>& out) const {
  out.clear();
  const auto [first, last] = pair_range(geom_a, geom_b);
  for (auto it = first; it != last; ++it) out.push_back(&slots_[static_cast<size_t>(*it)]);
}

void ContactTable::end() {
  // The key order of the slots that persist is last step's: only the new ones are sorted,
  // then merged in (a resting pile keeps its contacts, so this is linear).
  added_.clear();
  for (size_t i = 0; i < slots_.size(); ++i)
    if (touched_[i] && !live_[i]) added_.push_back(static_cast<int>(i));
  auto by_key = [&](int a, int b) { return slots_[a].key < slots_[b].key; };
  std::sort(added_.begin(), added_.end(), by_key);
  kept_.clear();
  for (int i : sorted_)
    if (touched_[i]) kept_.push_back(i);
  sorted_.resize(kept_.size() + added_.size());
  std::merge(kept_.begin(), kept_.end(), added_.begin(), added_.end(), sorted_.begin(), by_key);
  for (size_t i = 0; i < slots_.size(); ++i) live_[i] = touched_[i];
  // Trailing free slots are released so the table does not keep a past peak's size.
  while (!live_.empty() && !live_.back()) {
    live_.pop_back();
    slots_.pop_back();
  }
  touched_.clear();
  free_.clear();
  for (size_t i = slots_.size(); i-- > 0;)  // free slots descending: the lowest is at the back
    if (!live_[i]) free_.push_back(static_cast<int>(i));
}

void ContactTable::clear() {
  slots_.clear();
  live_.clear();
  touched_.clear();
  sorted_.clear();
  free_.clear();
}

void ContactTable::assign(std::vector<ContactSlot> slots, std::vector<char> live) {
  if (slots.size() != live.size()) throw std::invalid_argument("contact table: slots and live flags differ in size");
  slots_ = std::move(slots);
  live_ = std::move(live);
  touched_.clear();
  reindex();
}

void ContactTable::reindex() {
  sorted_.clear();
  free_.clear();
  for (size_t i = slots_.size(); i-- > 0;)  // free slots descending: the lowest is at the back
    if (!live_[i]) free_.push_back(static_cast<int>(i));
  for (size_t i = 0; i < slots_.size(); ++i)
    if (live_[i]) sorted_.push_back(static_cast<int>(i));
  std::sort(sorted_.begin(), sorted_.end(), [&](int a, int b) { return slots_[a].key < slots_[b].key; });
}

}  // namespace graspsim
