#include "report/folded.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "report/export_util.hpp"

namespace perfx::report {
namespace {

std::string sanitize(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == ';') c = ':';
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (out.empty()) out = "[unknown]";
  return out;
}

FoldedKind folded_kind(profile::FrameKind kind) {
  switch (kind) {
    case profile::FrameKind::kUser:
      return FoldedKind::kUser;
    case profile::FrameKind::kKernel:
      return FoldedKind::kKernel;
    case profile::FrameKind::kJit:
      return FoldedKind::kJit;
    case profile::FrameKind::kOffCpu:
      return FoldedKind::kOffCpu;
    case profile::FrameKind::kUnknown:
      break;
  }
  return FoldedKind::kUnknown;
}

class NameTable {
 public:
  explicit NameTable(FoldedProfile& folded) : folded_(folded) {}
  std::uint32_t intern(std::string name, FoldedKind kind) {
    std::string key = name;
    key.push_back('\0');
    key.push_back(static_cast<char>('0' + static_cast<int>(kind)));
    auto [it, inserted] =
        index_.try_emplace(std::move(key), static_cast<std::uint32_t>(folded_.names.size()));
    if (inserted) {
      folded_.names.push_back(std::move(name));
      folded_.kinds.push_back(kind);
    }
    return it->second;
  }

 private:
  FoldedProfile& folded_;
  std::unordered_map<std::string, std::uint32_t> index_;
};

}  // namespace

Result<FoldedProfile> fold(const profile::Profile& profile, const ExportOptions& options) {
  PERFX_CHECK(profile::check_indices(profile));
  PERFX_TRY(event, detail::select_event(profile, options));
  FoldedProfile folded;
  folded.event = event;
  folded.weighted = event < profile.events.size() && profile.events[event].off_cpu;
  NameTable names(folded);

  // Frame index -> name index (kNone for frames that are dropped).
  constexpr std::uint32_t kNone = 0xffffffffu;
  std::vector<std::uint32_t> frame_name(profile.frames.size(), kNone);
  for (std::size_t i = 0; i < profile.frames.size(); ++i) {
    const auto& f = profile.frames[i];
    if (f.inlined && !options.inline_frames) continue;
    // An unresolved frame in a known DSO is named after the DSO file ("[libc.so.6]",
    // "[perf-42.map]": the basename of perf script's path), as stackcollapse-perf.pl does.
    std::string label;
    if ((f.function.empty() || f.function == "[unknown]") && !f.dso.empty() &&
        f.dso != "[unknown]") {
      const std::string& path = f.dso_path.empty() ? f.dso : f.dso_path;
      const auto slash = path.front() == '[' ? std::string::npos : path.rfind('/');
      label = "[" + sanitize(slash == std::string::npos ? path : path.substr(slash + 1)) + "]";
    } else {
      label = sanitize(f.function);
    }
    if (options.annotate_kernel && f.kind == profile::FrameKind::kKernel) label += "_[k]";
    if (options.annotate_kernel && f.kind == profile::FrameKind::kJit) label += "_[j]";
    FoldedKind kind = folded_kind(f.kind);
    if (kind == FoldedKind::kOffCpu && f.function == "[run-queue]") kind = FoldedKind::kRunQueue;
    frame_name[i] = names.intern(std::move(label), kind);
  }
  // Threads -> comm name index (threads with the same comm merge, as stackcollapse).
  std::vector<std::uint32_t> thread_name(profile.threads.size(), kNone);
  if (options.include_comm) {
    for (std::size_t i = 0; i < profile.threads.size(); ++i) {
      thread_name[i] = names.intern(sanitize(profile.threads[i].comm), FoldedKind::kComm);
    }
  }

  // (comm name, stack) -> index into folded.stacks.
  std::unordered_map<std::uint64_t, std::uint32_t> by_key;
  for (const auto& s : profile.samples) {
    if (s.event != event) continue;
    std::uint32_t comm = kNone;
    if (options.include_comm && s.thread < thread_name.size()) comm = thread_name[s.thread];
    const std::uint64_t key = (static_cast<std::uint64_t>(comm) << 32) | s.stack;
    auto [it, inserted] = by_key.try_emplace(key, static_cast<std::uint32_t>(folded.stacks.size()));
    if (inserted) {
      FoldedStack stack;
      if (comm != kNone) stack.names.push_back(comm);
      for (std::uint32_t frame : profile.stacks[s.stack]) {
        if (frame_name[frame] != kNone) stack.names.push_back(frame_name[frame]);
      }
      const auto& st = profile.stacks[s.stack];
      if (!st.empty() && profile.frames[st.back()].kind == profile::FrameKind::kOffCpu) {
        (profile.frames[st.back()].function == "[run-queue]" ? stack.run_queue : stack.off_cpu) =
            true;
      }
      folded.stacks.push_back(std::move(stack));
    }
    auto& stack = folded.stacks[it->second];
    stack.samples += s.count;  // > 1 when the profile was loaded aggregated
    stack.weight += s.period;
    folded.total_samples += s.count;
    folded.total_weight += s.period;
  }

  // Different profile stacks can collapse to the same label sequence (dropped inline
  // frames, same-named functions in different DSOs): merge them, sorted like
  // stackcollapse-perf.pl's output.
  const auto& n = folded.names;
  std::sort(folded.stacks.begin(), folded.stacks.end(),
            [&n](const FoldedStack& a, const FoldedStack& b) {
              return std::lexicographical_compare(
                  a.names.begin(), a.names.end(), b.names.begin(), b.names.end(),
                  [&n](std::uint32_t x, std::uint32_t y) { return n[x] < n[y]; });
            });
  std::vector<FoldedStack> merged;
  merged.reserve(folded.stacks.size());
  for (auto& s : folded.stacks) {
    if (!merged.empty() && merged.back().names == s.names) {
      merged.back().samples += s.samples;
      merged.back().weight += s.weight;  // same labels: the same marker leaf too
    } else {
      merged.push_back(std::move(s));
    }
  }
  folded.stacks = std::move(merged);
  return folded;
}

Result<void> write_folded(const profile::Profile& profile, std::ostream& out,
                          const ExportOptions& options) {
  PERFX_TRY(folded, fold(profile, options));
  detail::TextSink text(out);
  for (const auto& s : folded.stacks) {
    bool first = true;
    for (std::uint32_t name : s.names) {
      if (!first) text.push_back(';');
      first = false;
      text += folded.names[name];
    }
    if (first) text += "[unknown]";  // an empty stack still counts
    fmt::format_to(std::back_inserter(text), " {}\n", s.value(folded.weighted));
  }
  return text.finish();
}

std::vector<FlameNode> build_flame_tree(const FoldedProfile& folded, bool inverted) {
  std::vector<FlameNode> nodes(1);
  std::unordered_map<std::uint64_t, std::uint32_t> child_of;  // (parent<<32|name) -> node
  for (const auto& s : folded.stacks) {
    std::uint32_t cur = 0;
    const std::uint64_t v = s.value(folded.weighted);
    const std::uint64_t off = s.off_cpu ? v : 0;
    const std::uint64_t rq = s.run_queue ? v : 0;
    nodes[0].value += v;
    nodes[0].off_cpu += off;
    nodes[0].run_queue += rq;
    const std::size_t n = s.names.size();
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t name = s.names[inverted ? n - 1 - i : i];
      const std::uint64_t key = (static_cast<std::uint64_t>(cur) << 32) | name;
      auto [it, inserted] = child_of.try_emplace(key, static_cast<std::uint32_t>(nodes.size()));
      if (inserted) {
        FlameNode node;
        node.name = name;
        node.parent = cur;
        nodes[cur].children.push_back(it->second);
        nodes.push_back(std::move(node));
      }
      cur = it->second;
      nodes[cur].value += v;
      nodes[cur].off_cpu += off;
      nodes[cur].run_queue += rq;
    }
    nodes[cur].self += v;
  }
  for (auto& node : nodes) {
    std::sort(node.children.begin(), node.children.end(), [&](std::uint32_t a, std::uint32_t b) {
      return folded.names[nodes[a].name] < folded.names[nodes[b].name];
    });
  }
  return nodes;
}

}  // namespace perfx::report
