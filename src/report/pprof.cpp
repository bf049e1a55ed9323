#include "report/pprof.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>
#include <libdeflate.h>
#include <zlib.h>

#include "core/error_format.hpp"
#include "core/utf8.hpp"
#include "report/export_util.hpp"
#include "report/pprof_proto.hpp"

namespace perfx::report {
namespace {

class StringTable {
 public:
  explicit StringTable(pb::Profile& p) : p_(p) { intern(""); }
  // proto3 strings must be UTF-8 (readers reject the profile otherwise): ill-formed
  // bytes in a comm or a symbol become U+FFFD here, where every string goes through.
  std::int64_t intern(const std::string& s) {
    auto [it, inserted] = index_.try_emplace(s, static_cast<std::int64_t>(index_.size()));
    if (inserted) {
      if (core::is_valid_utf8(s)) {
        p_.add_string_table(s);
      } else {
        p_.add_string_table(core::to_valid_utf8(s));
      }
    }
    return it->second;
  }

 private:
  pb::Profile& p_;
  std::unordered_map<std::string, std::int64_t> index_;
};

bool is_clock(const profile::Event& e) { return e.unit == "nanoseconds"; }

}  // namespace

Result<std::string> build_pprof(const profile::Profile& profile, const ExportOptions& options) {
  PERFX_CHECK(profile::check_indices(profile));
  // An arena makes building and dropping the (large) message cheap.
  google::protobuf::Arena arena;
  pb::Profile& p = *google::protobuf::Arena::CreateMessage<pb::Profile>(&arena);
  StringTable strings(p);

  // Which events are exported: options.event alone, or all of them.
  std::vector<profile::Event> events = profile.events;
  if (events.empty()) events.push_back({"samples", "events"});
  std::vector<int> column(events.size(), -1);  // event -> first value column
  int ncols = 0;
  for (std::size_t e = 0; e < events.size(); ++e) {
    if (options.event >= 0 && static_cast<std::size_t>(options.event) != e) continue;
    column[e] = ncols;
    ncols += 2;
  }
  if (ncols == 0) {
    return fail(Errc::kInvalidArgument, "event index {} out of range: the profile has {} events",
                options.event, events.size());
  }
  const bool single = ncols == 2;
  std::int64_t default_type = 0;
  for (std::size_t e = 0; e < events.size(); ++e) {
    if (column[e] < 0) continue;
    const auto& ev = events[e];
    auto* count = p.add_sample_type();
    count->set_type(strings.intern(single ? "samples" : ev.name + "_samples"));
    count->set_unit(strings.intern("count"));
    auto* value = p.add_sample_type();
    // A clock event holding off-CPU intervals is wall time (on- plus off-CPU ns).
    const std::string type =
        is_clock(ev) ? (single ? (ev.off_cpu ? "wall" : "cpu") : ev.name) : ev.name;
    const std::string unit = is_clock(ev) ? "nanoseconds" : (ev.unit.empty() ? "count" : ev.unit);
    value->set_type(strings.intern(type));
    value->set_unit(strings.intern(unit == "events" ? "count" : unit));
    if (default_type == 0) {
      default_type = value->type();
      p.mutable_period_type()->set_type(value->type());
      p.mutable_period_type()->set_unit(value->unit());
    }
  }
  p.set_default_sample_type(default_type);

  // Mappings. pprof treats mapping[0] as the main binary ("File:" in its reports): put
  // the user-space mapping with the most sampled leaf frames first, keep the rest in
  // order. mapping_id[i] is the pprof id of profile mapping i.
  bool any_lines = false;
  bool any_inline = false;
  for (const auto& f : profile.frames) {
    any_lines |= f.line != 0;
    any_inline |= f.inlined;
  }
  std::vector<std::uint64_t> leaf_samples(profile.mappings.size(), 0);
  for (const auto& smp : profile.samples) {
    if (smp.stack >= profile.stacks.size() || profile.stacks[smp.stack].empty()) continue;
    const std::uint32_t leaf = profile.stacks[smp.stack].back();
    if (leaf >= profile.frames.size()) continue;
    const auto& f = profile.frames[leaf];
    if (f.kind == profile::FrameKind::kUser && f.mapping >= 0 &&
        static_cast<std::size_t>(f.mapping) < leaf_samples.size()) {
      leaf_samples[static_cast<std::size_t>(f.mapping)] += smp.count;
    }
  }
  std::vector<std::size_t> mapping_order(profile.mappings.size());
  for (std::size_t i = 0; i < mapping_order.size(); ++i) mapping_order[i] = i;
  if (!mapping_order.empty()) {
    const auto main_it = std::max_element(leaf_samples.begin(), leaf_samples.end());
    const auto main_index = static_cast<std::size_t>(main_it - leaf_samples.begin());
    std::rotate(mapping_order.begin(),
                mapping_order.begin() + static_cast<std::ptrdiff_t>(main_index),
                mapping_order.begin() + static_cast<std::ptrdiff_t>(main_index) + 1);
  }
  std::vector<std::uint64_t> mapping_id(profile.mappings.size(), 0);
  for (std::size_t pos = 0; pos < mapping_order.size(); ++pos)
    mapping_id[mapping_order[pos]] = pos + 1;
  for (std::size_t pos = 0; pos < mapping_order.size(); ++pos) {
    const auto& m = profile.mappings[mapping_order[pos]];
    auto* pm = p.add_mapping();
    pm->set_id(pos + 1);
    pm->set_memory_start(m.start);
    pm->set_memory_limit(m.limit);
    pm->set_file_offset(m.offset);
    pm->set_filename(strings.intern(m.file));
    pm->set_build_id(strings.intern(m.build_id));
    pm->set_has_functions(true);
    pm->set_has_filenames(any_lines);
    pm->set_has_line_numbers(any_lines);
    pm->set_has_inline_frames(any_inline && options.inline_frames);
  }

  // Functions: one per (name, source file); cached per profile frame. An unresolved
  // address is its own function, named by its map-relative address as perf shows it
  // ("0x000000000001a2b3"), one per (mapping, address): a single "[unknown]" would lump
  // every library's unsymbolized code into one line.
  std::map<std::tuple<std::string, std::string, std::int32_t>, std::uint64_t> function_ids;
  std::vector<std::uint64_t> function_of_frame(profile.frames.size(), 0);
  auto function_id = [&](std::uint32_t frame) {
    if (function_of_frame[frame]) return function_of_frame[frame];
    const auto& f = profile.frames[frame];
    const bool unresolved = f.function.empty() || f.function == "[unknown]";
    std::string name = unresolved ? fmt::format("0x{:016x}", f.map_address) : f.function;
    auto [it, inserted] = function_ids.try_emplace({name, f.file, unresolved ? f.mapping : -2},
                                                   function_ids.size() + 1);
    if (inserted) {
      auto* fn = p.add_function();
      fn->set_id(it->second);
      fn->set_name(strings.intern(name));
      fn->set_system_name(fn->name());
      fn->set_filename(strings.intern(f.file));
    }
    function_of_frame[frame] = it->second;
    return it->second;
  };

  // Locations: a physical frame plus the inline frames expanded from it (which follow
  // it in a root-first stack) share one address; they become one Location whose Line
  // entries list the innermost inline callee first and the physical function last.
  // A lone frame's Location is cached by frame index; inline groups by their indices.
  std::vector<std::uint64_t> location_of_frame(profile.frames.size(), 0);
  std::map<std::vector<std::uint32_t>, std::uint64_t> group_locations;
  std::uint64_t next_location = 1;
  auto new_location = [&](std::span<const std::uint32_t> group) {  // root-first group
    const auto& phys = profile.frames[group.front()];
    auto* loc = p.add_location();
    loc->set_id(next_location);
    loc->set_address(phys.address);
    if (phys.mapping >= 0 && static_cast<std::size_t>(phys.mapping) < profile.mappings.size()) {
      loc->set_mapping_id(mapping_id[static_cast<std::size_t>(phys.mapping)]);
    }
    for (auto fi = group.rbegin(); fi != group.rend(); ++fi) {  // innermost first
      auto* line = loc->add_line();
      line->set_function_id(function_id(*fi));
      line->set_line(profile.frames[*fi].line);
    }
    return next_location++;
  };
  auto add_locations = [&](std::uint32_t stack_index, pb::Sample* ps) {
    const auto& stack = profile.stacks[stack_index];
    // Walk leaf to root; each group is [physical frame, inline frames...] root-first.
    std::size_t i = stack.size();
    while (i > 0) {
      std::size_t end = i;  // one past the group's last (innermost) frame
      if (!options.inline_frames) {
        while (end > 0 && profile.frames[stack[end - 1]].inlined) --end;
        if (end == 0) break;
        i = end - 1;
      } else {
        std::size_t j = end - 1;
        while (j > 0 && profile.frames[stack[j]].inlined) --j;
        i = j;
      }
      const std::span<const std::uint32_t> group(stack.data() + i, end - i);
      std::uint64_t id = 0;
      if (group.size() == 1) {
        id = location_of_frame[group[0]];
        if (!id) id = location_of_frame[group[0]] = new_location(group);
      } else {
        std::vector<std::uint32_t> key(group.begin(), group.end());
        auto it = group_locations.find(key);
        id = it != group_locations.end() ? it->second
                                         : (group_locations[std::move(key)] = new_location(group));
      }
      ps->add_location_id(id);
    }
  };

  // Samples aggregated per (stack, thread); values in one flat array, ncols per row.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> aggs;  // (stack, thread)
  std::vector<std::int64_t> values;
  std::unordered_map<std::uint64_t, std::size_t> agg_index;
  agg_index.reserve(profile.stacks.size());
  const auto cols = static_cast<std::size_t>(ncols);
  for (const auto& s : profile.samples) {
    const std::size_t e = events.size() == 1 && profile.events.empty() ? 0 : s.event;
    if (e >= column.size() || column[e] < 0) continue;
    const std::uint64_t key = (static_cast<std::uint64_t>(s.thread) << 32) | s.stack;
    auto [it, inserted] = agg_index.try_emplace(key, aggs.size());
    if (inserted) {
      aggs.emplace_back(s.stack, s.thread);
      values.resize(values.size() + cols, 0);
    }
    const std::size_t at = it->second * cols + static_cast<std::size_t>(column[e]);
    values[at] += static_cast<std::int64_t>(s.count);  // > 1 for an aggregated profile
    values[at + 1] += static_cast<std::int64_t>(s.period);
  }
  const std::int64_t k_pid = strings.intern("pid");
  const std::int64_t k_tid = strings.intern("tid");
  const std::int64_t k_comm = strings.intern("comm");
  std::vector<std::int64_t> comm_string(profile.threads.size(), -1);
  p.mutable_sample()->Reserve(static_cast<int>(aggs.size()));
  for (std::size_t a = 0; a < aggs.size(); ++a) {
    const auto [stack, thread] = aggs[a];
    auto* ps = p.add_sample();
    add_locations(stack, ps);
    for (std::size_t c = 0; c < cols; ++c) ps->add_value(values[a * cols + c]);
    if (thread < profile.threads.size()) {
      const auto& t = profile.threads[thread];
      if (comm_string[thread] < 0) comm_string[thread] = strings.intern(t.comm);
      auto* l = ps->add_label();
      l->set_key(k_pid);
      l->set_num(t.pid);
      l = ps->add_label();
      l->set_key(k_tid);
      l->set_num(t.tid);
      l = ps->add_label();
      l->set_key(k_comm);
      l->set_str(comm_string[thread]);
    }
  }

  if (profile.end_time_ns > profile.start_time_ns) {
    p.set_duration_nanos(static_cast<std::int64_t>(profile.end_time_ns - profile.start_time_ns));
  }
  if (!profile.command_line.empty()) p.add_comment(strings.intern(profile.command_line));
  if (!profile.hostname.empty()) p.add_comment(strings.intern("host: " + profile.hostname));
  if (profile.lost_samples) {
    p.add_comment(strings.intern("lost samples: " + std::to_string(profile.lost_samples)));
  }
  std::string bytes;
  if (!p.SerializeToString(&bytes)) {
    return fail(Errc::kInvalidArgument, "serializing the pprof profile failed");
  }
  return bytes;
}

Result<std::string> gzip_compress(std::string_view data) {
  // gzip (RFC 1952) as pprof expects, with libdeflate: twice as fast as zlib at level 1.
  // Level 1: several times faster than the default 6 on a profile's varints and strings,
  // a slightly larger file; every gzip reader takes any level.
  std::unique_ptr<libdeflate_compressor, decltype(&libdeflate_free_compressor)> c(
      libdeflate_alloc_compressor(1), &libdeflate_free_compressor);
  if (!c) return fail(Errc::kResourceLimit, "libdeflate: no memory for a compressor");
  std::string out(libdeflate_gzip_compress_bound(c.get(), data.size()), '\0');
  const std::size_t n =
      libdeflate_gzip_compress(c.get(), data.data(), data.size(), out.data(), out.size());
  if (n == 0) return fail(Errc::kResourceLimit, "libdeflate: gzip compression failed");
  out.resize(n);
  return out;
}

Result<std::string> gzip_decompress(std::string_view data) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK)
    return fail(Errc::kResourceLimit, "zlib: inflateInit2 failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      return fail(Errc::kMalformedData, "gzip data is corrupt at input offset {} (zlib {})",
                  zs.total_in, rc);
    }
    out.append(buf, sizeof buf - zs.avail_out);
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
      inflateEnd(&zs);
      return fail(Errc::kMalformedData, "gzip data is truncated after {} bytes", data.size());
    }
  }
  inflateEnd(&zs);
  return out;
}

Result<void> write_pprof(const profile::Profile& profile, std::ostream& out,
                         const ExportOptions& options) {
  PERFX_TRY(bytes, build_pprof(profile, options));
  PERFX_TRY(compressed, gzip_compress(bytes));
  return detail::write_all(out, compressed);
}

}  // namespace perfx::report
