#include "profile/dso_preloader.hpp"

namespace perfx::profile {

DsoPreloader::DsoPreloader(bool dwarf) : dwarf_(dwarf), worker_([this] { run(); }) {}

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
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(dso);
  }
  wake_.notify_one();
}

void DsoPreloader::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    const symbol::Dso* dso = queue_.front();
    queue_.pop_front();
    lock.unlock();
    if (dwarf_)
      dso->prepare_dwarf();
    else
      dso->load();
    lock.lock();
  }
}

}  // namespace perfx::profile
