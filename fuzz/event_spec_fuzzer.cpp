// Fuzz target: the event syntax parser (event::parse_event_list / parse_event) and the
// sysfs format-field parser, against a fake Resolver with canned PMUs, tracepoints and
// one uprobe symbol (no sysfs/tracefs access, so runs are deterministic).
//
// Input: the whole input is an event list ("cs,{page-faults:u,msr/tsc/}:S"). When it
// contains a newline, the text before it is also parsed as a sysfs format file name and
// the text after it as the file's content ("config:0-7,32-35"), then applied to a value.
// Invariants: never crash; every failure has a non-empty message; every success has at
// least one group, no empty group, and attr.size set.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error_format.hpp"
#include "event/parse.hpp"
#include "event/resolver.hpp"

namespace {

using perfx::Errc;
using perfx::Result;
using perfx::event::ConfigWord;
using perfx::event::FormatField;
using perfx::event::PmuAlias;
using perfx::event::PmuInfo;
using perfx::event::TracepointName;

void check(bool cond) {
  if (!cond) __builtin_trap();
}

FormatField field(std::string name, ConfigWord word, std::vector<std::pair<unsigned, unsigned>> r) {
  FormatField f;
  f.name = std::move(name);
  f.word = word;
  f.ranges = std::move(r);
  return f;
}

class FakeResolver final : public perfx::event::Resolver {
 public:
  FakeResolver() {
    PmuInfo cpu{"cpu", 4, {}, {}};
    cpu.format = {field("any", ConfigWord::kConfig, {{21, 21}}),
                  field("cmask", ConfigWord::kConfig, {{24, 31}}),
                  field("edge", ConfigWord::kConfig, {{18, 18}}),
                  field("event", ConfigWord::kConfig, {{0, 7}, {32, 35}}),
                  field("inv", ConfigWord::kConfig, {{23, 23}}),
                  field("ldlat", ConfigWord::kConfig1, {{0, 15}}),
                  field("umask", ConfigWord::kConfig, {{8, 15}})};
    cpu.aliases = {PmuAlias{"cache-misses", "event=0x2e,umask=0x41", "", "", ""},
                   PmuAlias{"mem-loads", "event=0xcd,umask=0x1,ldlat=3", "", "", ""},
                   PmuAlias{"topdown-slots", "event=0x00,umask=0x4", "", "", ""}};
    PmuInfo msr{"msr", 9, {field("event", ConfigWord::kConfig, {{0, 63}})}, {}};
    msr.aliases = {PmuAlias{"aperf", "event=0x01", "", "", ""},
                   PmuAlias{"tsc", "event=0x00", "", "", ""}};
    PmuInfo software{"software", 1, {}, {}};
    PmuInfo tracepoint{"tracepoint", 2, {}, {}};
    PmuInfo breakpoint{"breakpoint", 5, {}, {}};
    PmuInfo uprobe{"uprobe", 8, {field("retprobe", ConfigWord::kConfig, {{0, 0}})}, {}};
    PmuInfo kprobe{"kprobe", 7, {field("retprobe", ConfigWord::kConfig, {{0, 0}})}, {}};
    PmuInfo odd{"odd_pmu",
                42,
                {field("a", ConfigWord::kConfig2, {{0, 0}, {63, 63}}),
                 field("b", ConfigWord::kConfig3, {{10, 20}})},
                {PmuAlias{"x", "a=1,b=0x7ff", "", "", ""}, PmuAlias{"loop", "loop", "", "", ""}}};
    pmus_ = {breakpoint, cpu, kprobe, msr, odd, software, tracepoint, uprobe};
  }

  Result<PmuInfo> find_pmu(std::string_view name) const override {
    for (const auto& p : pmus_)
      if (p.name == name) return p;
    return perfx::fail(Errc::kNotFound, "no PMU '{}'", name);
  }
  std::vector<std::string> pmu_names() const override {
    std::vector<std::string> out;
    for (const auto& p : pmus_) out.push_back(p.name);
    return out;
  }
  Result<std::uint64_t> tracepoint_id(std::string_view subsys,
                                      std::string_view name) const override {
    std::uint64_t id = 300;
    for (const auto& t : kTracepoints) {
      if (t.subsys == subsys && t.name == name) return id;
      ++id;
    }
    return perfx::fail(Errc::kNotFound, "no tracepoint '{}:{}'", subsys, name);
  }
  Result<std::vector<TracepointName>> tracepoints() const override {
    return std::vector<TracepointName>(std::begin(kTracepoints), std::end(kTracepoints));
  }
  Result<std::uint64_t> uprobe_offset(std::string_view path,
                                      std::string_view symbol) const override {
    if (path == "/bin/true" && (symbol == "main" || symbol == "_start")) return 0x1234;
    return perfx::fail(Errc::kNotFound, "no symbol '{}' in '{}'", symbol, path);
  }

 private:
  inline static const TracepointName kTracepoints[] = {
      {"irq", "irq_handler_entry"}, {"irq", "irq_handler_exit"},     {"sched", "sched_switch"},
      {"sched", "sched_wakeup"},    {"sched", "sched_process_exec"}, {"syscalls", "sys_enter_read"},
      {"syscalls", "sys_exit_read"}};
  std::vector<PmuInfo> pmus_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;  // event lists are short; longer inputs only slow the fuzzer
  static const FakeResolver resolver;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  auto list = perfx::event::parse_event_list(text, resolver);
  if (list) {
    check(!list->empty());
    for (const auto& group : *list) {
      check(!group.events.empty());
      for (const auto& ev : group.events) {
        check(ev.attr.size != 0);
        (void)perfx::event::describe_attr(ev.attr);
        (void)ev.attr_for_open();
      }
    }
  } else {
    check(!list.error().message().empty());
  }
  auto one = perfx::event::parse_event(text, resolver);
  if (!one) check(!one.error().message().empty());

  const auto nl = text.find('\n');
  if (nl != std::string_view::npos) {
    auto f = perfx::event::parse_format_field(text.substr(0, nl), text.substr(nl + 1));
    if (f) {
      for (const auto& [lo, hi] : f->ranges) check(lo <= hi && hi <= 63);
      std::uint64_t words[4] = {0, 0, 0, 0};
      const std::uint64_t value = size;
      (void)perfx::event::apply_format_field(*f, value, words);
      (void)perfx::event::apply_format_field(*f, ~std::uint64_t{0}, words);
      (void)f->width();
    } else {
      check(!f.error().message().empty());
    }
  }
  return 0;
}
