// A read-mostly hash table from byte strings to small integers, for the Punkt model's
// word lists. The splitter looks words up several times per candidate sentence end,
// usually with keys that live in a stack buffer, so lookups take a string_view and
// never allocate; the table itself is one slot array plus one arena of key bytes.
#ifndef STRUCTTEST_TEXT_STRING_TABLE_H_
#define STRUCTTEST_TEXT_STRING_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace structtest::internal {

// 64-bit hash of a byte string (a multiply-xorshift mix, 8 bytes at a time).
inline uint64_t HashBytes(std::string_view s) {
  auto mix = [](uint64_t x) {
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ull;
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ull;
    x ^= x >> 32;
    return x;
  };
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(n) << 48);
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = mix(h ^ w);
    p += 8;
    n -= 8;
  }
  uint64_t w = 0;
  for (size_t i = 0; i < n; ++i) {
    w |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  }
  return mix(h ^ w ^ 0x5A);
}

// Thread-safety: Insert is not; concurrent Find on an unchanging table is.
class StringTable {
 public:
  StringTable() : slots_(16) {}

  // Adds `key` or, when it is already present, replaces its value.
  void Insert(std::string_view key, int32_t value) {
    if ((count_ + 1) * 4 > slots_.size() * 3) Grow();
    const uint64_t h = HashBytes(key);
    Slot* slot = &slots_[ProbeIndex(key, h)];
    if (slot->used) {
      slot->value = value;
      return;
    }
    slot->used = true;
    slot->hash = h;
    slot->offset = arena_.size();
    slot->size = key.size();
    slot->value = value;
    arena_.append(key);
    ++count_;
    if (key.size() > max_key_size_) max_key_size_ = key.size();
  }

  // The value stored for `key`, or nullptr.
  const int32_t* Find(std::string_view key) const {
    if (key.size() > max_key_size_) return nullptr;
    const Slot& slot = slots_[ProbeIndex(key, HashBytes(key))];
    return slot.used ? &slot.value : nullptr;
  }
  bool Contains(std::string_view key) const { return Find(key) != nullptr; }
  int32_t ValueOr(std::string_view key, int32_t fallback) const {
    const int32_t* v = Find(key);
    return v ? *v : fallback;
  }

  size_t size() const { return count_; }
  size_t max_key_size() const { return max_key_size_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    size_t offset = 0;
    size_t size = 0;
    int32_t value = 0;
    bool used = false;
  };

  // Index of the slot holding `key`, or of the empty slot where it would go.
  size_t ProbeIndex(std::string_view key, uint64_t h) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (!s.used) return i;
      if (s.hash == h && s.size == key.size() &&
          (key.empty() || std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0)) {
        return i;
      }
    }
  }

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (!s.used) continue;
      size_t i = s.hash & mask;
      while (slots_[i].used) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;  // size is a power of two, at most 3/4 full
  std::string arena_;        // key bytes, back to back
  size_t count_ = 0;
  size_t max_key_size_ = 0;
};

}  // namespace structtest::internal

#endif  // STRUCTTEST_TEXT_STRING_TABLE_H_
