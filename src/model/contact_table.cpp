#include "model/contact_table.h"

#include <algorithm>
#include <stdexcept>

namespace graspsim {

const ContactSlot* ContactTable::find(const ContactKey& key) const {
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), key,
                             [&](int slot, const ContactKey& k) { return slots_[slot].key < k; });
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
  // A new contact: the lowest free slot (found slots stay findable only through sorted_,
  // which end() rebuilds; a key touched twice in one step is looked up linearly below).
  for (size_t i = 0; i < slots_.size(); ++i)
    if (touched_[i] && slots_[i].key == key) return slots_[i];
  size_t i = 0;
  while (i < slots_.size() && (live_[i] || touched_[i])) ++i;
  if (i == slots_.size()) {
    slots_.emplace_back();
    live_.push_back(0);
    touched_.push_back(0);
  }
  slots_[i] = ContactSlot{key, t, {}};
  touched_[i] = 1;
  return slots_[i];
}

void ContactTable::end() {
  for (size_t i = 0; i < slots_.size(); ++i) live_[i] = touched_[i];
  // Trailing free slots are released so the table does not keep a past peak's size.
  while (!live_.empty() && !live_.back()) {
    live_.pop_back();
    slots_.pop_back();
  }
  touched_.clear();
  reindex();
}

void ContactTable::clear() {
  slots_.clear();
  live_.clear();
  touched_.clear();
  sorted_.clear();
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
  for (size_t i = 0; i < slots_.size(); ++i)
    if (live_[i]) sorted_.push_back(static_cast<int>(i));
  std::sort(sorted_.begin(), sorted_.end(), [&](int a, int b) { return slots_[a].key < slots_[b].key; });
}

}  // namespace graspsim
