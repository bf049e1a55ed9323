// format_lock_contention(): perf lock contention's table (include/perfx/lock.hpp).

#include <fmt/format.h>

#include "perfx/lock.hpp"

namespace perfx {
namespace {

// perf's lock_stat_key_print_time: the largest unit the time reaches, two decimals.
void print_time(std::string& out, std::uint64_t ns, int len) {
  static constexpr struct {
    float base;  // float as perf's table: the quotient is rounded as perf prints it
    const char* unit;
  } kUnits[] = {{1e9F * 3600, "h "}, {1e9F * 60, "m "}, {1e9F, "s "}, {1e6F, "ms"}, {1e3F, "us"}};
  for (const auto& u : kUnits) {
    if (static_cast<float>(ns) < u.base) continue;
    const float v = static_cast<float>(ns) / u.base;
    out += fmt::format("{:>{}.2f} {}", static_cast<double>(v), len - 3, u.unit);
    return;
  }
  out += fmt::format("{:>{}} ns", ns, len - 3);
}

}  // namespace

std::string format_lock_contention(const LockContention& c, bool verbose) {
  std::string out = fmt::format("{:>10} {:>12} {:>12} {:>12} ", "contended", "total wait",
                                "max wait", "avg wait");
  switch (c.by) {
    case LockAggregation::kThread:
      out += fmt::format("  {:>10}   {}\n\n", "pid", "comm");
      break;
    case LockAggregation::kAddress:
      out += fmt::format("  {:>16}   {}\n\n", "address", "symbol");
      break;
    case LockAggregation::kCaller:
      out += fmt::format("  {:>10}   {}\n\n", "type", "caller");
      break;
  }
  for (const auto& r : c.rows) {
    out += fmt::format("{:>10} ", r.contended);
    print_time(out, r.wait_total_ns, 12);
    out += ' ';
    print_time(out, r.wait_max_ns, 12);
    out += ' ';
    print_time(out, r.wait_avg_ns, 12);
    out += ' ';
    switch (c.by) {
      case LockAggregation::kThread:
        out += fmt::format("  {:>10}   {}\n", r.key, r.name);
        break;
      case LockAggregation::kAddress:
        out += fmt::format("  {:016x}   {}\n", r.key, r.name);
        break;
      case LockAggregation::kCaller:
        out += fmt::format("  {:>10}   {}\n", r.type, r.name);
        if (verbose) {
          for (const auto& frame : r.callstack) out += fmt::format("\t\t\t{}\n", frame);
        }
        break;
    }
  }
  return out;
}

}  // namespace perfx
