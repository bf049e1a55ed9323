#include "profile/location_frames.hpp"

#include <string>
#include <unordered_map>

namespace perfx::profile {

void add_location_frames(const LocationTable& table,
                         std::span<const std::vector<std::uint32_t>* const> loc_stacks,
                         Profile& prof, bool dwarf_names) {
  // Mappings: one per DSO.
  std::unordered_map<const symbol::Dso*, std::int32_t> mapping_index;
  for (std::uint32_t id = 0; id < table.size(); ++id) {
    const auto* dso = table.location(id).dso;
    if (dso == nullptr || mapping_index.count(dso)) continue;
    mapping_index[dso] = static_cast<std::int32_t>(prof.mappings.size());
    // The memory range and file offset of the map the DSO was first seen in (a DSO mapped
    // at several places keeps its first one; frames' addresses are rebased to it).
    const MapRange& r = table.map_range(id);
    Mapping m;
    m.start = r.start;
    m.limit = r.end;
    m.offset = r.identity ? 0 : r.pgoff;
    m.file = dso->long_name();
    m.build_id = dso->file_build_id();
    if (m.build_id.empty()) m.build_id = dso->recorded_build_id();  // the kernel's
    prof.mappings.push_back(std::move(m));
    if (!dso->warning().empty()) prof.warnings.push_back(dso->warning());
  }

  // Frames: one per location, plus one per inline level (outer first in loc_frames).
  std::vector<std::vector<std::uint32_t>> loc_frames(table.size());
  for (std::uint32_t id = 0; id < table.size(); ++id) {
    const Location& loc = table.location(id);
    const Resolved& res = table.resolved(id);
    // Another process's sighting of a resolved address: the same frames.
    if (const std::uint32_t canon = table.canonical(id); canon != id && res.sym != nullptr) {
      loc_frames[id] = loc_frames[canon];
      continue;
    }
    Frame f;
    f.dso = loc.dso != nullptr ? loc.dso->short_name() : "[unknown]";
    f.dso_path = loc.dso != nullptr ? loc.dso->long_name() : "[unknown]";
    f.map_address = loc.map_addr;
    f.address = loc.map_addr;
    f.unwound = loc.unwound;
    if (loc.dso != nullptr) {
      f.mapping = mapping_index[loc.dso];
      // The runtime address in the DSO's export mapping: map_ip() undone with its range.
      const Mapping& m = prof.mappings[static_cast<std::size_t>(f.mapping)];
      const MapRange& r = table.map_range(id);
      if (!r.identity && m.limit > m.start) f.address = loc.map_addr - m.offset + m.start;
      if (loc.bias != 0) f.process_address = loc.map_addr + loc.bias;
    }
    f.kind = loc.kernel                                    ? FrameKind::kKernel
             : loc.dso == nullptr                          ? FrameKind::kUnknown
             : loc.dso->kind() == symbol::DsoKind::kJitMap ? FrameKind::kJit
                                                           : FrameKind::kUser;
    f.function = res.sym != nullptr ? res.sym->name : "[unknown]";
    f.symbol_offset = res.sym != nullptr ? res.sym_addr - res.sym->start : 0;
    f.symbol_size = res.sym != nullptr ? res.sym->end - res.sym->start : 0;
    f.file = res.srcfile;
    f.line = res.line;
    f.addr2line_function = res.addr2line_function;
    // perf's new_inline_sym(): the outermost scope is the symbol itself when DWARF names
    // it alike; else (a glibc alias such as __GI___clock_gettime for clock_gettime) an
    // inline frame of that name stands for it in callchains.
    const bool renamed = dwarf_names && res.sym != nullptr && !res.inlines.empty() &&
                         res.inlines.back().function != f.function;
    if (res.inlines.size() > 1 || renamed) {
      // inlines: innermost first; the last one is the real function (res.sym).
      Frame outer = f;
      outer.file = res.inlines.back().file;
      outer.line = res.inlines.back().line;
      outer.sample_only = renamed;
      loc_frames[id].push_back(static_cast<std::uint32_t>(prof.frames.size()));
      prof.frames.push_back(std::move(outer));
      for (std::size_t k = res.inlines.size() - (renamed ? 0 : 1); k-- > 0;) {
        Frame in = f;
        in.function = res.inlines[k].function;
        in.file = res.inlines[k].file;
        in.line = res.inlines[k].line;
        in.inlined = true;
        in.symbol_offset = 0;
        loc_frames[id].push_back(static_cast<std::uint32_t>(prof.frames.size()));
        prof.frames.push_back(std::move(in));
      }
    } else {
      loc_frames[id].push_back(static_cast<std::uint32_t>(prof.frames.size()));
      prof.frames.push_back(std::move(f));
    }
  }
  prof.stacks.resize(loc_stacks.size());
  for (std::size_t i = 0; i < loc_stacks.size(); ++i) {
    const auto& ls = *loc_stacks[i];
    auto& st = prof.stacks[i];
    st.reserve(ls.size());
    for (std::size_t k = ls.size(); k-- > 0;)
      for (auto fi : loc_frames[ls[k]]) st.push_back(fi);
  }
}

}  // namespace perfx::profile
