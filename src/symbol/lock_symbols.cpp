// perfx::LockSymbols (include/perfx/lock.hpp): kernel symbols from kallsyms for naming
// lock callers, and the scheduler/lock text bounds perf skips lock functions by.

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <variant>

#include "core/error_format.hpp"
#include "perfx/lock.hpp"
#include "symbol/dso.hpp"
#include "symbol/file_text.hpp"

namespace perfx {

struct LockSymbols::Impl {
  std::variant<std::string, symbol::FileText> text;
  std::vector<symbol::Symbol> syms;  // kernel and module symbols, by start
  std::uint64_t sched_start = 0, sched_end = 0, lock_start = 0, lock_end = 0;

  [[nodiscard]] std::string_view view() const {
    if (const auto* s = std::get_if<std::string>(&text)) return *s;
    return std::get<symbol::FileText>(text).text();
  }

  void load() {
    const std::string_view t = view();
    symbol::KallsymsTable table = symbol::parse_kallsyms(t);
    syms.assign(table.kernel.begin(), table.kernel.end());
    for (auto& [name, mod] : table.modules) syms.insert(syms.end(), mod.begin(), mod.end());
    std::stable_sort(
        syms.begin(), syms.end(),
        [](const symbol::Symbol& a, const symbol::Symbol& b) { return a.start < b.start; });
    // The section markers, looked up by name (they share addresses with functions).
    for (const symbol::Symbol& s : table.kernel) {
      if (s.name == "__sched_text_start") sched_start = s.start;
      if (s.name == "__sched_text_end") sched_end = s.start;
      if (s.name == "__lock_text_start") lock_start = s.start;
      if (s.name == "__lock_text_end") lock_end = s.start;
    }
  }

  // The symbol holding addr.
  [[nodiscard]] const symbol::Symbol* find(std::uint64_t addr) const {
    auto it =
        std::upper_bound(syms.begin(), syms.end(), addr,
                         [](std::uint64_t a, const symbol::Symbol& s) { return a < s.start; });
    if (it == syms.begin()) return nullptr;
    --it;  // the last symbol starting there: finalize_symbols gave it the range
    if (addr < it->end || it->start == addr) return &*it;
    return nullptr;
  }
};

LockSymbols::LockSymbols(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LockSymbols::LockSymbols(LockSymbols&&) noexcept = default;
LockSymbols& LockSymbols::operator=(LockSymbols&&) noexcept = default;
LockSymbols::~LockSymbols() = default;

Result<LockSymbols> LockSymbols::from_kallsyms(const std::string& path) {
  auto text = symbol::FileText::open(path);
  if (!text) return fail(Errc::kNotFound, "cannot read kernel symbols from {}", path);
  auto impl = std::make_unique<Impl>();
  impl->text = std::move(*text);
  impl->load();
  return LockSymbols(std::move(impl));
}

LockSymbols LockSymbols::from_text(std::string text) {
  auto impl = std::make_unique<Impl>();
  impl->text = std::move(text);
  impl->load();
  return LockSymbols(std::move(impl));
}

std::optional<std::string> LockSymbols::name(std::uint64_t addr) const {
  const symbol::Symbol* s = impl_->find(addr);
  if (s == nullptr) return std::nullopt;
  const std::uint64_t off = addr - s->start;
  if (off == 0) return std::string(s->name);
  return fmt::format("{}+{:#x}", s->name, off);
}

std::optional<std::string> LockSymbols::data_name(std::uint64_t addr) const {
  const symbol::Symbol* s = impl_->find(addr);
  if (s == nullptr || s->start != addr) return std::nullopt;
  return std::string(s->name);
}

bool LockSymbols::is_lock_function(std::uint64_t addr) const noexcept {
  if (impl_->sched_start == 0) return false;  // no kernel symbols: nothing is skipped (perf)
  if (impl_->sched_start <= addr && addr < impl_->sched_end) return true;
  return impl_->lock_start <= addr && addr < impl_->lock_end;
}

}  // namespace perfx
