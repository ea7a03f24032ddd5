// The per-pair contact table: stable slots while a contact persists, lowest free slot for a
// new one, dropped the step it is not reported, lookups by key.

#include <gtest/gtest.h>

#include "model/contact_table.h"

namespace graspsim {
namespace {

ContactKey key(int a, int b, std::uint64_t f) { return ContactKey{a, b, f}; }

// One step that reports `keys` at time t; returns their slot indices.
std::vector<long> report(ContactTable& table, const std::vector<ContactKey>& keys, double t) {
  std::vector<long> slots;
  table.begin();
  for (const ContactKey& k : keys) {
    ContactSlot& s = table.touch(k, t);
    slots.push_back(&s - table.slots().data());
  }
  table.end();
  return slots;
}

TEST(ContactTable, SlotsAreStableCreatedOnContactAndDroppedOnSeparation) {
  ContactTable table;
  EXPECT_EQ(report(table, {key(1, 2, 7), key(0, 3, 1), key(1, 2, 8)}, 0.0), (std::vector<long>{0, 1, 2}));
  table.begin();
  table.touch(key(0, 3, 1), 0.1).values[0] = 42.0;  // a formulation writes its values
  table.touch(key(1, 2, 8), 0.1);
  table.end();
  // (1, 2, 7) separated: dropped; the others keep their slots, their values and first time.
  EXPECT_EQ(table.size(), 2);
  EXPECT_EQ(table.find(key(1, 2, 7)), nullptr);
  ASSERT_NE(table.find(key(0, 3, 1)), nullptr);
  EXPECT_EQ(table.find(key(0, 3, 1)) - table.slots().data(), 1);
  EXPECT_EQ(table.find(key(0, 3, 1))->values[0], 42.0);
  EXPECT_EQ(table.find(key(1, 2, 8))->since, 0.0);
  // A new contact takes the lowest free slot (0), with zero values and its own time.
  const auto slots = report(table, {key(0, 3, 1), key(1, 2, 8), key(5, 6, 0)}, 0.2);
  EXPECT_EQ(slots, (std::vector<long>{1, 2, 0}));
  EXPECT_EQ(table.find(key(5, 6, 0))->since, 0.2);
  EXPECT_EQ(table.find(key(5, 6, 0))->values[0], 0.0);
  // Trailing free slots are released; for_each visits live slots in index order.
  report(table, {key(5, 6, 0)}, 0.3);
  EXPECT_EQ(table.slots().size(), 1u);
  int n = 0;
  table.for_each([&](const ContactSlot& s) {
    EXPECT_EQ(s.key, key(5, 6, 0));
    ++n;
  });
  EXPECT_EQ(n, 1);
}

// touch_pair keeps every slot of one geom pair, and only those, as touching each would.
TEST(ContactTable, TouchPairKeepsThePairsSlots) {
  ContactTable table;
  report(table, {key(1, 2, 7), key(1, 3, 1), key(1, 2, 8), key(0, 2, 5)}, 0.0);
  table.begin();
  std::vector<ContactSlot*> pair;
  table.touch_pair(1, 2, pair);
  ASSERT_EQ(pair.size(), 2u);
  EXPECT_EQ(pair[0]->key, key(1, 2, 7));
  EXPECT_EQ(pair[1]->key, key(1, 2, 8));
  table.touch_pair(4, 5, pair);  // no slot: nothing kept, nothing made
  EXPECT_TRUE(pair.empty());
  table.end();
  EXPECT_EQ(table.size(), 2);
  EXPECT_NE(table.find(key(1, 2, 7)), nullptr);
  EXPECT_NE(table.find(key(1, 2, 8)), nullptr);
  EXPECT_EQ(table.find(key(1, 3, 1)), nullptr);
  EXPECT_EQ(table.find(key(0, 2, 5)), nullptr);
}

// The layout depends only on the sequence of reports, so a table restored from its slots
// and live flags behaves exactly like the original.
TEST(ContactTable, AssignedTableContinuesLikeTheOriginal) {
  ContactTable a;
  report(a, {key(1, 2, 1), key(1, 2, 2), key(3, 4, 1), key(3, 4, 2)}, 0.0);
  report(a, {key(1, 2, 2), key(3, 4, 2)}, 0.1);
  ContactTable b;
  b.assign(a.slots(), a.live());
  const std::vector<ContactKey> next{key(9, 9, 9), key(3, 4, 2), key(8, 8, 8)};
  EXPECT_EQ(report(a, next, 0.2), report(b, next, 0.2));
  EXPECT_THROW(b.assign(a.slots(), {}), std::invalid_argument);
}

// Many new contacts in one step cost O(log n) each (a pile's first step), and lookups work.
TEST(ContactTable, ManyContactsAreFoundByKey) {
  ContactTable table;
  std::vector<ContactKey> keys;
  for (int i = 0; i < 20000; ++i) keys.push_back(key(i % 97, 1000 + i / 97, static_cast<std::uint64_t>(i)));
  report(table, keys, 0.0);
  EXPECT_EQ(table.size(), 20000);
  for (int i = 0; i < 20000; i += 123) {
    const ContactSlot* s = table.find(keys[i]);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->key, keys[i]);
  }
}

}  // namespace
}  // namespace graspsim
