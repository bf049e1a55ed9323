#include "profile/dso_preloader.hpp"

namespace perfx::profile {

DsoPreloader::DsoPreloader(bool dwarf, bool inlines)
    : dwarf_(dwarf), inlines_(inlines), worker_([this] { run(); }) {}

DsoPreloader::~DsoPreloader() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_one();
  worker_.join();
}

void DsoPreloader::add(const symbol::Dso* dso) {
  if (dso == nullptr || !seen_.insert(dso).second) return;
  push({dso, 0, false});
}

void DsoPreloader::add_address(const symbol::Dso* dso, std::uint64_t map_addr) {
  if (dso != nullptr && dwarf_) push({dso, map_addr, true});
}

void DsoPreloader::push(const Job& job) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(job);
  }
  wake_.notify_one();
}

void DsoPreloader::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    const Job job = queue_.front();
    queue_.pop_front();
    lock.unlock();
    if (job.address)
      (void)job.dso->srcline(job.dso->to_symbol_address(job.map_addr));
    else if (dwarf_)
      job.dso->prepare_dwarf(inlines_);
    else
      job.dso->load();
    lock.lock();
  }
}

}  // namespace perfx::profile
