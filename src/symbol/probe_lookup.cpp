// DWARF lookups for perf-probe-style dynamic probes, with libdw.

#include "symbol/probe_lookup.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "core/error_format.hpp"

namespace perfx::symbol {
namespace {

/// An open DWARF file (fd + Dwarf*), closed on destruction.
class DwarfFile {
 public:
  static Result<DwarfFile> open(const std::string& path) {
    DwarfFile f;
    f.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.fd_ < 0) return fail_errno(errno, "opening '" + path + "'");
    f.dw_ = dwarf_begin(f.fd_, DWARF_C_READ);
    if (f.dw_ == nullptr) {
      return fail(Errc::kNotFound,
                  "'{}' has no DWARF debug information (build it with -g): source lines and "
                  "variables cannot be found",
                  path);
    }
    return f;
  }
  DwarfFile(DwarfFile&& o) noexcept : fd_(o.fd_), dw_(o.dw_) {
    o.fd_ = -1;
    o.dw_ = nullptr;
  }
  DwarfFile& operator=(DwarfFile&&) = delete;
  DwarfFile(const DwarfFile&) = delete;
  DwarfFile& operator=(const DwarfFile&) = delete;
  ~DwarfFile() {
    if (dw_ != nullptr) dwarf_end(dw_);
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] Dwarf* get() const { return dw_; }

 private:
  DwarfFile() = default;
  int fd_ = -1;
  Dwarf* dw_ = nullptr;
};

/// Calls fn(cu_die) for every compilation unit until it returns true.
template <typename Fn>
bool for_each_cu(Dwarf* dw, Fn&& fn) {
  Dwarf_Off off = 0;
  Dwarf_Off next = 0;
  std::size_t header_size = 0;
  while (dwarf_nextcu(dw, off, &next, &header_size, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dw, off + header_size, &cu) != nullptr && fn(cu)) return true;
    off = next;
  }
  return false;
}

struct FuncSearch {
  std::string_view name;
  Dwarf_Die die{};
  bool found = false;
};

int match_func(Dwarf_Die* die, void* arg) {
  auto* s = static_cast<FuncSearch*>(arg);
  const char* n = dwarf_diename(die);
  Dwarf_Addr low = 0;
  if (n != nullptr && s->name == n && dwarf_lowpc(die, &low) == 0) {
    s->die = *die;
    s->found = true;
    return DWARF_CB_ABORT;
  }
  return DWARF_CB_OK;
}

std::optional<Dwarf_Die> find_function(Dwarf* dw, std::string_view name, Dwarf_Die* cu_out) {
  FuncSearch s{name};
  for_each_cu(dw, [&](Dwarf_Die& cu) {
    dwarf_getfuncs(&cu, match_func, &s, 0);
    if (s.found) *cu_out = cu;
    return s.found;
  });
  if (!s.found) return std::nullopt;
  return s.die;
}

/// The address after the function's prologue: the second line-table address inside it
/// (what perf probe uses for unoptimized code), or `entry` when there is none.
std::uint64_t after_prologue(Dwarf_Die& cu, Dwarf_Die& func, std::uint64_t entry) {
  Dwarf_Addr high = 0;
  if (dwarf_highpc(&func, &high) != 0) return entry;
  Dwarf_Lines* lines = nullptr;
  std::size_t n = 0;
  if (dwarf_getsrclines(&cu, &lines, &n) != 0) return entry;
  std::vector<Dwarf_Addr> addrs;
  for (std::size_t i = 0; i < n; ++i) {
    Dwarf_Line* l = dwarf_onesrcline(lines, i);
    Dwarf_Addr a = 0;
    bool stmt = false;
    if (l == nullptr || dwarf_lineaddr(l, &a) != 0 || dwarf_linebeginstatement(l, &stmt) != 0)
      continue;
    if (stmt && a > entry && a < high) addrs.push_back(a);
  }
  if (addrs.empty()) return entry;
  return *std::min_element(addrs.begin(), addrs.end());
}

/// DWARF x86-64 register number -> tracefs name.
const char* x86_64_reg(int n) {
  static constexpr const char* kRegs[] = {"%ax",  "%dx",  "%cx",  "%bx", "%si",  "%di",
                                          "%bp",  "%sp",  "%r8",  "%r9", "%r10", "%r11",
                                          "%r12", "%r13", "%r14", "%r15"};
  return n >= 0 && n < 16 ? kRegs[n] : nullptr;
}

/// The tracefs type of a variable: s8..s64 for signed base types, x8..x64 otherwise.
std::string fetch_type(Dwarf_Die* var) {
  Dwarf_Attribute attr;
  Dwarf_Die type;
  Dwarf_Die* t = var;
  for (int depth = 0; depth < 16; ++depth) {
    if (dwarf_attr_integrate(t, DW_AT_type, &attr) == nullptr ||
        dwarf_formref_die(&attr, &type) == nullptr)
      return "x64";
    t = &type;
    const int tag = dwarf_tag(t);
    if (tag == DW_TAG_pointer_type) return "x64";
    if (tag == DW_TAG_base_type || tag == DW_TAG_enumeration_type) {
      const int size = dwarf_bytesize(t);
      Dwarf_Word enc = DW_ATE_unsigned;
      if (dwarf_attr(t, DW_AT_encoding, &attr) != nullptr) dwarf_formudata(&attr, &enc);
      if (size != 1 && size != 2 && size != 4 && size != 8) return "x64";
      // perf's convert_variable_type(): signed types sN, the others hex (xN).
      const bool sign = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
      return fmt::format("{}{}", sign ? 's' : 'x', size * 8);
    }
    if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type)
      return "x64";
  }
  return "x64";
}

/// The parameter or variable `name` of `scope`, searched in its lexical blocks too (the
/// outermost declaration wins, as C scoping does at the function's level).
std::optional<Dwarf_Die> find_variable(Dwarf_Die& scope, std::string_view name, int depth = 0) {
  Dwarf_Die child;
  if (depth > 32 || dwarf_child(&scope, &child) != 0) return std::nullopt;
  std::vector<Dwarf_Die> blocks;
  do {
    const int tag = dwarf_tag(&child);
    if (tag == DW_TAG_lexical_block) blocks.push_back(child);
    if (tag != DW_TAG_formal_parameter && tag != DW_TAG_variable) continue;
    const char* n = dwarf_diename(&child);
    if (n != nullptr && name == n) return child;
  } while (dwarf_siblingof(&child, &child) == 0);
  for (auto& b : blocks) {
    if (auto v = find_variable(b, name, depth + 1)) return v;
  }
  return std::nullopt;
}

/// Where a variable is at `pc`: a register, or an offset from the frame base.
struct VarLocation {
  int reg = -1;
  bool frame = false;
  std::int64_t offset = 0;
};

Result<VarLocation> locate(Dwarf_Die& var, std::uint64_t pc, std::string_view name) {
  Dwarf_Attribute attr;
  if (dwarf_attr_integrate(&var, DW_AT_location, &attr) == nullptr) {
    return fail(Errc::kNotSupported, "variable '{}' has no location (optimized out)", name);
  }
  Dwarf_Op* expr = nullptr;
  std::size_t len = 0;
  if (dwarf_getlocation_addr(&attr, pc, &expr, &len, 1) != 1 || len == 0) {
    return fail(Errc::kNotSupported, "variable '{}' has no location at {:#x} (optimized out)", name,
                pc);
  }
  VarLocation loc;
  const auto atom = expr[0].atom;
  if (len == 1 && atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
    loc.reg = atom - DW_OP_reg0;
  } else if (len == 1 && atom == DW_OP_regx) {
    loc.reg = static_cast<int>(expr[0].number);
  } else if (len == 1 && atom == DW_OP_fbreg) {
    loc.frame = true;
    loc.offset = static_cast<std::int64_t>(expr[0].number);
  } else if (len == 1 && atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
    loc.reg = atom - DW_OP_breg0;
    loc.frame = true;  // memory at reg + offset
    loc.offset = static_cast<std::int64_t>(expr[0].number);
    if (x86_64_reg(loc.reg) == nullptr) {
      return fail(Errc::kNotSupported, "variable '{}': unknown register {}", name, loc.reg);
    }
    return loc;
  } else {
    return fail(Errc::kNotSupported,
                "variable '{}': its DWARF location (op {:#x}, {} ops) is not one a probe can read",
                name, atom, len);
  }
  if (loc.reg >= 0 && x86_64_reg(loc.reg) == nullptr) {
    return fail(Errc::kNotSupported, "variable '{}': unknown register {}", name, loc.reg);
  }
  return loc;
}

}  // namespace

Result<ProbeSite> dwarf_line_site(const std::string& path, std::string_view source,
                                  std::uint32_t line) {
  PERFX_TRY(dw, DwarfFile::open(path));
  std::optional<Dwarf_Addr> best;
  const std::string src(source);
  Dwarf_Line** srcs = nullptr;
  std::size_t nsrcs = 0;
  if (dwarf_getsrc_file(dw.get(), src.c_str(), static_cast<int>(line), 0, &srcs, &nsrcs) == 0) {
    for (std::size_t i = 0; i < nsrcs; ++i) {
      Dwarf_Addr a = 0;
      int l = 0;
      if (dwarf_lineaddr(srcs[i], &a) != 0 || dwarf_lineno(srcs[i], &l) != 0) continue;
      // dwarf_getsrc_file() gives the nearest following line when `line` has no code.
      if (static_cast<std::uint32_t>(l) != line) continue;
      if (!best || a < *best) best = a;
    }
    std::free(srcs);
  }
  if (!best) {
    return fail(Errc::kNotFound, "no code for {}:{} in the line table of '{}'", source, line, path);
  }
  ProbeSite site;
  site.address = *best;
  Dwarf_Die cu;
  if (dwarf_addrdie(dw.get(), *best, &cu) != nullptr) {
    Dwarf_Die* scopes = nullptr;
    const int n = dwarf_getscopes(&cu, *best, &scopes);
    for (int i = 0; i < n; ++i) {
      if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram) continue;
      if (const char* name = dwarf_diename(&scopes[i])) site.function = name;
      Dwarf_Addr low = 0;
      if (dwarf_lowpc(&scopes[i], &low) == 0) site.function_entry = low;
      break;
    }
    std::free(scopes);
  }
  return site;
}

Result<std::vector<std::string>> dwarf_fetch_args(const std::string& path,
                                                  std::string_view function,
                                                  const std::vector<std::string>& args,
                                                  std::uint64_t& site) {
  std::vector<std::string> out;
  bool any_var = false;
  for (const auto& a : args) {
    std::string_view w = a;
    if (auto eq = w.find('='); eq != std::string_view::npos) w.remove_prefix(eq + 1);
    const char c = w.empty() ? '%' : w[0];
    if (!(c == '%' || c == '$' || c == '@' || c == '+' || c == '-' || (c >= '0' && c <= '9')))
      any_var = true;
  }
  if (!any_var) return args;
  PERFX_TRY(dw, DwarfFile::open(path));
  Dwarf_Die cu;
  auto func = find_function(dw.get(), function, &cu);
  if (!func) {
    return fail(Errc::kNotFound, "no function '{}' in the DWARF of '{}'", function, path);
  }
  Dwarf_Addr entry = 0;
  dwarf_lowpc(&*func, &entry);
  bool moved = false;
  for (const auto& a : args) {
    std::string_view w = a;
    std::string_view label;
    if (auto eq = w.find('='); eq != std::string_view::npos) {
      label = w.substr(0, eq);
      w.remove_prefix(eq + 1);
    }
    const char c = w.empty() ? '%' : w[0];
    if (c == '%' || c == '$' || c == '@' || c == '+' || c == '-' || (c >= '0' && c <= '9')) {
      out.push_back(a);
      continue;
    }
    if (label.empty()) label = w;
    auto var = find_variable(*func, w);
    if (!var) {
      return fail(Errc::kNotFound, "function '{}' has no parameter or variable '{}'", function, w);
    }
    PERFX_TRY(loc, locate(*var, site != 0 ? site : entry, w));
    std::string fetch;
    if (loc.frame && loc.reg < 0) {
      // A frame-base offset (unoptimized code, DW_OP_call_frame_cfa): the value is
      // stored there by the prologue, so probe after it, where CFA = %bp + 16.
      if ((site == 0 || site == entry) && !moved) {
        site = after_prologue(cu, *func, entry);
        moved = true;
      }
      Dwarf_Attribute fb;
      Dwarf_Op* fexpr = nullptr;
      std::size_t flen = 0;
      if (dwarf_attr_integrate(&*func, DW_AT_frame_base, &fb) == nullptr ||
          dwarf_getlocation_addr(&fb, site != 0 ? site : entry, &fexpr, &flen, 1) != 1 ||
          flen != 1) {
        return fail(Errc::kNotSupported, "function '{}': no usable frame base for '{}'", function,
                    w);
      }
      std::int64_t base = 0;
      if (fexpr[0].atom == DW_OP_call_frame_cfa) {
        base = 16;
      } else if (fexpr[0].atom != DW_OP_reg6) {
        return fail(Errc::kNotSupported, "function '{}': frame base op {:#x} is not supported",
                    function, fexpr[0].atom);
      }
      fetch = fmt::format("{:+}(%bp)", base + loc.offset);
    } else if (loc.frame) {
      fetch = fmt::format("{:+}({})", loc.offset, x86_64_reg(loc.reg));
    } else {
      fetch = x86_64_reg(loc.reg);
    }
    out.push_back(fmt::format("{}={}:{}", label, fetch, fetch_type(&*var)));
  }
  return out;
}

}  // namespace perfx::symbol
