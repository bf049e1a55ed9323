#include "symbol/unwind.hpp"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

namespace perfx::symbol {

bool UserRegs::get(core::X86Reg reg, std::uint64_t& out) const noexcept {
  const auto bit = static_cast<unsigned>(reg);
  if (abi == core::kRegsAbiNone || bit >= 64 || (mask & (1ULL << bit)) == 0) return false;
  const auto index = static_cast<std::size_t>(std::popcount(mask & ((1ULL << bit) - 1)));
  if (index >= values.size()) return false;
  out = values[index];
  return true;
}

namespace {

char* g_debuginfo_path = nullptr;  // libdwfl's default search path (as perf)

const Dwfl_Callbacks kOfflineCallbacks = {
    .find_elf = nullptr,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &g_debuginfo_path,
};

// One address space: its Dwfl (modules reported so far, attached once) and, while a
// sample is being unwound, that sample's registers, stack and frames.
struct Space {
  std::shared_ptr<MapSet> maps;  // keeps the key alive (no address reuse)
  Dwfl* dwfl = nullptr;
  bool attached = false;
  std::uint64_t last_use = 0;

  // The sample being unwound.
  const UserRegs* regs = nullptr;
  std::span<const std::byte> stack;
  std::uint64_t sp = 0;
  std::vector<std::uint64_t> frames;
  std::size_t budget = 0;
  bool conflict = false;  // a module at another bias or of another file: rebuild

  Space() = default;
  Space(const Space&) = delete;
  Space& operator=(const Space&) = delete;
  ~Space() { reset(); }

  void reset() {
    if (dwfl != nullptr) dwfl_end(dwfl);
    dwfl = nullptr;
    attached = false;
  }
};

// perf's __report_module(): makes sure the file mapped at `ip` is reported at its bias.
// 0 = reported, or nothing to report (no map / no file: the frame is kept as unknown);
// -1 = the file cannot be reported (unreadable, vdso image from memory ...).
int report_module(Space& s, std::uint64_t ip) {
  const Map* map = s.maps->find(ip);
  if (map == nullptr || map->dso == nullptr || map->identity) return 0;
  const Dso& dso = *map->dso;
  if (dso.is_kernel()) return 0;
  const std::uint64_t base = map->start - map->pgoff;
  const std::string& path = dso.file_path();
  Dwfl_Module* mod = dwfl_addrmodule(s.dwfl, ip);
  if (mod != nullptr) {
    Dwarf_Addr start = 0;
    const char* main_file = nullptr;
    dwfl_module_info(mod, nullptr, &start, nullptr, nullptr, nullptr, &main_file, nullptr);
    // A module of another file or bias at this address: the process remapped it
    // (dlclose + dlopen). libdwfl cannot drop one module, so the Dwfl is rebuilt.
    if (start != base || (main_file != nullptr && path != main_file)) {
      s.conflict = true;
      return -1;
    }
    return 0;
  }
  if (path.empty()) return -1;
  mod = dwfl_report_elf(s.dwfl, dso.short_name().c_str(), path.c_str(), -1, base, false);
  return mod != nullptr && dwfl_addrmodule(s.dwfl, ip) == mod ? 0 : -1;
}

pid_t next_thread(Dwfl* dwfl, void* arg, void** thread_argp) {
  if (*thread_argp != nullptr) return 0;  // one thread: the sampled one
  *thread_argp = arg;
  return dwfl_pid(dwfl);
}

// perf's memory_read(): inside the stack copy, else the file mapped at `addr`.
bool memory_read(Dwfl* /*dwfl*/, Dwarf_Addr addr, Dwarf_Word* result, void* arg) {
  auto& s = *static_cast<Space*>(arg);
  constexpr std::uint64_t kWord = sizeof(Dwarf_Word);
  if (addr + kWord < addr) return false;
  if (addr >= s.sp && addr - s.sp <= s.stack.size() && s.stack.size() - (addr - s.sp) >= kWord) {
    std::memcpy(result, s.stack.data() + (addr - s.sp), kWord);
    return true;
  }
  const Map* map = s.maps->find(addr);
  if (map == nullptr || map->dso == nullptr || map->identity || map->dso->is_kernel()) return false;
  return map->dso->read_file(map->map_ip(addr), result, kWord);
}

bool set_initial_registers(Dwfl_Thread* thread, void* arg) {
  const auto& s = *static_cast<Space*>(arg);
  const UserRegs& r = *s.regs;
  auto reg = [&](core::X86Reg which) -> Dwarf_Word {
    std::uint64_t v = 0;
    (void)r.get(which, v);  // absent from the mask: 0, as perf
    return v;
  };
  using R = core::X86Reg;
  if (r.abi == core::kRegsAbi64) {
    // DWARF x86_64 numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip(RA column).
    const std::array<Dwarf_Word, 17> dw = {
        reg(R::kAx),  reg(R::kDx),  reg(R::kCx),  reg(R::kBx),  reg(R::kSi),  reg(R::kDi),
        reg(R::kBp),  reg(R::kSp),  reg(R::kR8),  reg(R::kR9),  reg(R::kR10), reg(R::kR11),
        reg(R::kR12), reg(R::kR13), reg(R::kR14), reg(R::kR15), reg(R::kIp)};
    return dwfl_thread_state_registers(thread, 0, dw.size(), dw.data());
  }
  if (r.abi == core::kRegsAbi32) {
    // DWARF i386 numbering: eax ecx edx ebx esp ebp esi edi eip.
    const std::array<Dwarf_Word, 9> dw = {reg(R::kAx), reg(R::kCx), reg(R::kDx),
                                          reg(R::kBx), reg(R::kSp), reg(R::kBp),
                                          reg(R::kSi), reg(R::kDi), reg(R::kIp)};
    return dwfl_thread_state_registers(thread, 0, dw.size(), dw.data());
  }
  return false;
}

const Dwfl_Thread_Callbacks kThreadCallbacks = {
    .next_thread = next_thread,
    .get_thread = nullptr,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
    .detach = nullptr,
    .thread_detach = nullptr,
};

// perf's frame_callback(): one entry per frame, callers' pcs moved inside the call.
int frame_callback(Dwfl_Frame* state, void* arg) {
  auto& s = *static_cast<Space*>(arg);
  Dwarf_Addr pc = 0;
  if (!dwfl_frame_pc(state, &pc, nullptr)) return DWARF_CB_ABORT;
  // Report the module before asking isactivation (it needs the module's CFI).
  (void)report_module(s, pc);
  bool activation = false;
  if (!dwfl_frame_pc(state, &pc, &activation)) return DWARF_CB_ABORT;
  if (!activation) --pc;
  if (report_module(s, pc) != 0) return DWARF_CB_ABORT;
  s.frames.push_back(pc);
  return --s.budget == 0 ? DWARF_CB_ABORT : DWARF_CB_OK;
}

}  // namespace

struct Unwinder::Impl {
  // Few processes are live at once: a linear search over a small vector.
  std::vector<std::unique_ptr<Space>> spaces;
  std::uint64_t clock = 0;
  // Each Dwfl holds the opened ELF files and parsed CFI of one process: bound them
  // (system-wide recordings see thousands of processes).
  static constexpr std::size_t kMaxSpaces = 64;

  Space& space_for(const std::shared_ptr<MapSet>& maps) {
    Space* found = nullptr;
    for (auto& s : spaces)
      if (s->maps == maps) found = s.get();
    if (found == nullptr) {
      auto s = std::make_unique<Space>();
      s->maps = maps;
      if (spaces.size() >= kMaxSpaces) {
        auto oldest = std::min_element(
            spaces.begin(), spaces.end(),
            [](const auto& a, const auto& b) { return a->last_use < b->last_use; });
        *oldest = std::move(s);
        found = oldest->get();
      } else {
        spaces.push_back(std::move(s));
        found = spaces.back().get();
      }
    }
    found->last_use = ++clock;
    return *found;
  }

  // One attempt; false when a module conflict asks for a rebuilt Dwfl.
  bool attempt(Space& s, std::int32_t tid, std::uint64_t ip) {
    s.conflict = false;
    s.frames.clear();
    if (s.dwfl == nullptr) {
      s.dwfl = dwfl_begin(&kOfflineCallbacks);
      if (s.dwfl == nullptr) return true;
    }
    if (report_module(s, ip) != 0) return !s.conflict;
    if (!s.attached) {
      // Needs one reported module (its ELF machine picks the unwinder's backend).
      if (!dwfl_attach_state(s.dwfl, nullptr, tid > 0 ? tid : 1, &kThreadCallbacks, &s))
        return true;
      s.attached = true;
    }
    const int err = dwfl_getthread_frames(s.dwfl, dwfl_pid(s.dwfl), frame_callback, &s);
    if (s.conflict) return false;
    // Unwinding usually ends in an error past the outermost frame: keep what was found,
    // as perf does, unless nothing was.
    if (err != 0 && s.frames.empty()) s.frames.clear();
    return true;
  }
};

Unwinder::Unwinder() : impl_(std::make_unique<Impl>()) {}
Unwinder::~Unwinder() = default;

std::size_t Unwinder::cached_spaces() const noexcept { return impl_->spaces.size(); }

std::size_t Unwinder::unwind(const std::shared_ptr<MapSet>& maps, std::int32_t tid,
                             const UserRegs& regs, std::span<const std::byte> stack,
                             std::vector<std::uint64_t>& out, std::size_t max_frames) {
  if (maps == nullptr || max_frames == 0) return 0;
  if (regs.abi != core::kRegsAbi64 && regs.abi != core::kRegsAbi32) return 0;
  std::uint64_t ip = 0;
  std::uint64_t sp = 0;
  if (!regs.get(core::X86Reg::kIp, ip) || !regs.get(core::X86Reg::kSp, sp)) return 0;
  if (sp + stack.size() < sp) stack = {};  // a copy that would wrap: unusable
  Space& s = impl_->space_for(maps);
  s.regs = &regs;
  s.stack = stack;
  s.sp = sp;
  s.budget = max_frames;
  if (!impl_->attempt(s, tid, ip)) {
    s.reset();
    s.budget = max_frames;
    if (!impl_->attempt(s, tid, ip)) s.frames.clear();
  }
  s.regs = nullptr;
  s.stack = {};
  std::size_t n = 0;
  for (std::uint64_t pc : s.frames) {
    if (pc == 0) continue;
    out.push_back(pc);
    ++n;
  }
  s.frames.clear();
  return n;
}

}  // namespace perfx::symbol
