// A pool of reusable objects that are expensive to build and not thread-safe (simdjson parsers,
// memoising scoring policies). Take() lends one for the caller's scope; it returns on destruction.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace gangplank::extender {

template <typename T>
class ObjectPool {
 public:
  class Lease {
   public:
    Lease(ObjectPool* pool, std::unique_ptr<T> object, std::uint64_t generation)
        : pool_(pool), object_(std::move(object)), generation_(generation) {}
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) noexcept = default;
    ~Lease() {
      if (object_) pool_->Return(std::move(object_), generation_);
    }
    T& operator*() const { return *object_; }
    T* operator->() const { return object_.get(); }

   private:
    ObjectPool* pool_;
    std::unique_ptr<T> object_;
    std::uint64_t generation_;
  };

  // make() builds a fresh object when the pool has none for the current generation.
  explicit ObjectPool(std::function<std::unique_ptr<T>()> make) : make_(std::move(make)) {}

  // Objects of an older generation are dropped instead of reused (e.g. memo keyed by old node ids).
  Lease Take(std::uint64_t generation = 0) {
    {
      std::lock_guard lock(mu_);
      if (generation != generation_) {
        free_.clear();
        generation_ = generation;
      }
      if (!free_.empty()) {
        std::unique_ptr<T> object = std::move(free_.back());
        free_.pop_back();
        return Lease(this, std::move(object), generation);
      }
    }
    return Lease(this, make_(), generation);
  }

 private:
  void Return(std::unique_ptr<T> object, std::uint64_t generation) {
    std::lock_guard lock(mu_);
    if (generation == generation_ && free_.size() < kMaxIdle) free_.push_back(std::move(object));
  }

  static constexpr size_t kMaxIdle = 64;
  std::function<std::unique_ptr<T>()> make_;
  std::mutex mu_;
  std::vector<std::unique_ptr<T>> free_;
  std::uint64_t generation_ = 0;
};

}  // namespace gangplank::extender
