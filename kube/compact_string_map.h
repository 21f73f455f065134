// A small string-to-string map stored in ONE heap block: [u32 key length][key][u32 value length][value]...
// Labels, annotations and condition statuses of cached objects are a handful of short pairs; a
// vector of std::string pairs costs one allocation per long string plus 64 bytes per pair, which is
// what dominated the per-pod memory of the informer cache. Insertion order is kept; lookups are linear
// (sets are small).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace gangplank::kube {

class CompactStringMap {
 public:
  // Appends a pair (no duplicate check: the source JSON objects have unique keys).
  void Add(std::string_view key, std::string_view value) {
    Append(key);
    Append(value);
    ++size_;
  }
  // Releases spare capacity once filling is done.
  void Shrink() { data_.shrink_to_fit(); }
  void Reserve(size_t bytes) { data_.reserve(bytes); }
  void clear() {
    data_.clear();
    size_ = 0;
  }
  // A copy whose storage is exactly one allocation of the used size. Decoders fill a scratch map (whose
  // growth allocations are reused) and keep only this copy, so long-lived caches carry no heap holes.
  CompactStringMap ExactCopy() const {
    CompactStringMap out;
    out.data_.assign(data_.data(), data_.size());
    out.size_ = size_;
    return out;
  }

  std::optional<std::string_view> find(std::string_view key) const {
    for (auto [k, v] : *this) {
      if (k == key) return v;
    }
    return std::nullopt;
  }
  bool contains(std::string_view key) const { return find(key).has_value(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  class iterator {
   public:
    using value_type = std::pair<std::string_view, std::string_view>;
    iterator(const char* p) : p_(p) {}
    value_type operator*() const {
      std::string_view k = Read(p_);
      std::string_view v = Read(p_ + 4 + k.size());
      return {k, v};
    }
    iterator& operator++() {
      std::string_view k = Read(p_);
      std::string_view v = Read(p_ + 4 + k.size());
      p_ = v.data() + v.size();
      return *this;
    }
    bool operator!=(const iterator& other) const { return p_ != other.p_; }
    bool operator==(const iterator& other) const { return p_ == other.p_; }

   private:
    static std::string_view Read(const char* p) {
      uint32_t n;
      std::memcpy(&n, p, 4);
      return {p + 4, n};
    }
    const char* p_;
  };
  iterator begin() const { return iterator(data_.data()); }
  iterator end() const { return iterator(data_.data() + data_.size()); }

  bool operator==(const CompactStringMap& other) const { return data_ == other.data_; }

 private:
  void Append(std::string_view s) {
    auto n = static_cast<uint32_t>(s.size());
    char len[4];
    std::memcpy(len, &n, 4);
    data_.append(len, 4);
    data_.append(s);
  }
  std::string data_;
  uint32_t size_ = 0;
};

}  // namespace gangplank::kube
