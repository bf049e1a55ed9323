#pragma once
// Move-only owner of an mmap'ed region.

#include <sys/mman.h>

#include <cstddef>
#include <utility>

namespace perfx::sys {

class Mapping {
 public:
  Mapping() = default;
  Mapping(void* addr, std::size_t size) noexcept : addr_(addr), size_(size) {}
  Mapping(Mapping&& o) noexcept
      : addr_(std::exchange(o.addr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  Mapping& operator=(Mapping&& o) noexcept {
    if (this != &o) {
      reset();
      addr_ = std::exchange(o.addr_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() { reset(); }

  [[nodiscard]] void* data() const noexcept { return addr_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool valid() const noexcept { return addr_ != nullptr; }
  void reset() noexcept {
    if (addr_ != nullptr) ::munmap(addr_, size_);
    addr_ = nullptr;
    size_ = 0;
  }

 private:
  void* addr_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace perfx::sys
