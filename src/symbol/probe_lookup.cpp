// DWARF lookups for perf-probe-style dynamic probes, with libdw.

#include "symbol/probe_lookup.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <optional>

#include "core/error_format.hpp"
#include "symbol/probe_prologue.hpp"

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
  Dwarf_Addr entry = 0;
  if (n != nullptr && s->name == n && dwarf_entrypc(die, &entry) == 0) {
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

/// DWARF x86-64 register number -> tracefs name.
const char* x86_64_reg(unsigned n) {
  static constexpr const char* kRegs[] = {"%ax",  "%dx",  "%cx",  "%bx", "%si",  "%di",
                                          "%bp",  "%sp",  "%r8",  "%r9", "%r10", "%r11",
                                          "%r12", "%r13", "%r14", "%r15"};
  return n < 16 ? kRegs[n] : nullptr;
}

/// The type of `die` with typedefs and qualifiers stripped (perf's die_get_real_type()).
bool real_type(Dwarf_Die* die, Dwarf_Die* out) {
  Dwarf_Die* t = die;
  for (int depth = 0; depth < 16; ++depth) {
    Dwarf_Attribute attr;
    if (dwarf_attr_integrate(t, DW_AT_type, &attr) == nullptr ||
        dwarf_formref_die(&attr, out) == nullptr)
      return false;
    t = out;
    const int tag = dwarf_tag(t);
    if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
        tag != DW_TAG_restrict_type && tag != DW_TAG_shared_type)
      return true;
  }
  return false;
}

/// The tracefs type of a variable, perf's convert_variable_type(): `sN` for signed base
/// types, `xN` otherwise, N = the type's size in bits (at most 64); none ("") when the
/// type has no DW_AT_byte_size (clang's pointer types), so tracefs' default applies.
std::string fetch_type(Dwarf_Die* var) {
  Dwarf_Die type;
  if (!real_type(var, &type)) return "";
  const int size = dwarf_bytesize(&type);
  if (size <= 0) return "";
  Dwarf_Attribute attr;
  Dwarf_Word enc = DW_ATE_unsigned;
  if (dwarf_attr(&type, DW_AT_encoding, &attr) == nullptr || dwarf_formudata(&attr, &enc) != 0)
    enc = DW_ATE_unsigned;
  const bool sign = enc == DW_ATE_signed || enc == DW_ATE_signed_char || enc == DW_ATE_signed_fixed;
  return fmt::format(":{}{}", sign ? 's' : 'x', std::min(size * 8, 64));
}

/// The parameter or variable `name` visible at `pc` in `scope`: depth first, entering only
/// the blocks that hold `pc`, the first one with a location (perf's die_find_variable_at()).
std::optional<Dwarf_Die> find_variable(Dwarf_Die& scope, std::string_view name, Dwarf_Addr pc,
                                       int depth = 0) {
  Dwarf_Die child;
  if (depth > 64 || dwarf_child(&scope, &child) != 0) return std::nullopt;
  do {
    const int tag = dwarf_tag(&child);
    Dwarf_Attribute attr;
    const char* n = dwarf_diename(&child);
    if ((tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) && n != nullptr && name == n &&
        (dwarf_attr(&child, DW_AT_external, &attr) != nullptr ||
         dwarf_attr(&child, DW_AT_location, &attr) != nullptr ||
         dwarf_attr(&child, DW_AT_const_value, &attr) != nullptr))
      return child;
    if (dwarf_haspc(&child, pc) == 1) {
      if (auto v = find_variable(child, name, pc, depth + 1)) return v;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  return std::nullopt;
}

/// A register, or memory at a register plus an offset.
struct RegRef {
  unsigned reg = 0;
  bool ref = false;
  std::int64_t offset = 0;
};

/// One location op as perf's convert_variable_location() reads it: DW_OP_regN/regx, or
/// DW_OP_bregN/bregx (memory at the register + offset, added to `offset`).
std::optional<RegRef> reg_op(const Dwarf_Op& op, RegRef r) {
  const auto a = op.atom;
  if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
    r.reg = a - DW_OP_breg0;
    r.offset += static_cast<std::int64_t>(op.number);
    r.ref = true;
  } else if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
    r.reg = a - DW_OP_reg0;
  } else if (a == DW_OP_bregx) {
    r.reg = static_cast<unsigned>(op.number);
    r.offset += static_cast<std::int64_t>(op.number2);
    r.ref = true;
  } else if (a == DW_OP_regx) {
    r.reg = static_cast<unsigned>(op.number);
  } else {
    return std::nullopt;
  }
  return r;
}

/// The ops of `func`'s frame base at `pc` (none when it has none); DW_OP_call_frame_cfa
/// becomes the CFA rule of the call frame information at `pc` (.eh_frame first, as perf),
/// e.g. DW_OP_breg6 16.
Result<std::vector<Dwarf_Op>> frame_base(Dwarf* dw, Dwarf_Die& func, Dwarf_Addr pc) {
  Dwarf_Attribute fb;
  Dwarf_Op* ops = nullptr;
  std::size_t n = 0;
  if (dwarf_attr(&func, DW_AT_frame_base, &fb) == nullptr ||
      dwarf_getlocation_addr(&fb, pc, &ops, &n, 1) <= 0 || n == 0)
    return std::vector<Dwarf_Op>{};
  if (n != 1 || ops[0].atom != DW_OP_call_frame_cfa) return std::vector<Dwarf_Op>(ops, ops + n);
  // The .eh_frame CFI is ours to end; the .debug_frame one belongs to `dw`.
  std::unique_ptr<Dwarf_CFI, decltype(&dwarf_cfi_end)> eh(dwarf_getcfi_elf(dwarf_getelf(dw)),
                                                          &dwarf_cfi_end);
  for (Dwarf_CFI* cfi : {eh.get(), dwarf_getcfi(dw)}) {
    Dwarf_Frame* frame = nullptr;
    if (cfi == nullptr || dwarf_cfi_addrframe(cfi, pc, &frame) != 0) continue;
    Dwarf_Op* cfa = nullptr;
    std::size_t cn = 0;
    std::vector<Dwarf_Op> out;
    const int rc = dwarf_frame_cfa(frame, &cfa, &cn);
    if (rc == 0) out.assign(cfa, cfa + cn);  // the ops live in `frame`, ours to free
    std::free(frame);
    if (rc == 0) return out;
  }
  return fail(Errc::kNotSupported, "no call frame information at {:#x} for the frame base of '{}'",
              pc, dwarf_diename(&func));
}

/// The tracefs fetch of `var` at `pc` (perf's convert_variable_location()): `%di`,
/// `-20(%bp)`, `+8(%sp)` or `@name+0` for a static variable (which tracefs takes for
/// kprobes only, as perf writes it).
Result<std::string> locate(Dwarf* dw, Dwarf_Die& func, Dwarf_Die& var, Dwarf_Addr pc,
                           std::string_view name) {
  Dwarf_Attribute attr;
  if (dwarf_attr(&var, DW_AT_external, &attr) != nullptr) return fmt::format("@{}+0", name);
  if (dwarf_attr(&var, DW_AT_location, &attr) == nullptr) {
    return fail(Errc::kNotSupported, "variable '{}' has no location (optimized out)", name);
  }
  Dwarf_Op* expr = nullptr;
  std::size_t len = 0;
  if (dwarf_getlocation_addr(&attr, pc, &expr, &len, 1) <= 0) {
    // A parameter at the entry: its location may start a little later (perf: "fuzzed by
    // fentry mcount"); take the earliest one in the function.
    Dwarf_Addr entry = 0;
    Dwarf_Addr high = 0;
    bool found = false;
    if (dwarf_tag(&var) == DW_TAG_formal_parameter && dwarf_entrypc(&func, &entry) == 0 &&
        entry == pc && dwarf_highpc(&func, &high) == 0) {
      for (Dwarf_Addr a = pc + 1; a <= high && !found; ++a)
        found = dwarf_getlocation_addr(&attr, a, &expr, &len, 1) > 0;
    }
    if (!found) {
      return fail(Errc::kNotSupported, "variable '{}' has no location at {:#x} (optimized out)",
                  name, pc);
    }
  }
  if (len == 0) {
    return fail(Errc::kNotSupported, "variable '{}' has no location at {:#x} (optimized out)", name,
                pc);
  }
  if (expr[0].atom == DW_OP_addr) return fmt::format("@{}+0", name);
  RegRef r;
  const Dwarf_Op* op = &expr[0];
  std::vector<Dwarf_Op> fb;
  if (op->atom == DW_OP_fbreg) {
    PERFX_TRY(ops, frame_base(dw, func, pc));
    fb = std::move(ops);
    if (fb.empty()) {
      return fail(Errc::kNotSupported, "function '{}': no usable frame base for '{}'",
                  dwarf_diename(&func), name);
    }
    r.ref = true;
    r.offset = static_cast<std::int64_t>(op->number);
    op = &fb[0];
  }
  auto reg = reg_op(*op, r);
  if (!reg) {
    return fail(Errc::kNotSupported,
                "variable '{}': its DWARF location (op {:#x}, {} ops) is not one a probe can read",
                name, op->atom, len);
  }
  const char* rname = x86_64_reg(reg->reg);
  if (rname == nullptr) {
    return fail(Errc::kNotSupported, "variable '{}': unknown register {}", name, reg->reg);
  }
  if (!reg->ref) return std::string(rname);
  return fmt::format("{:+}({})", reg->offset, rname);
}

/// perf's is_c_varname(): a PROBEDEF argument naming a variable, not a raw fetch.
bool is_variable_arg(std::string_view arg) {
  if (auto eq = arg.find('='); eq != std::string_view::npos) arg.remove_prefix(eq + 1);
  return !arg.empty() && (std::isalpha(static_cast<unsigned char>(arg[0])) != 0 || arg[0] == '_');
}

/// `file` names `source`: equal, or ending in "/" + source.
bool same_source(std::string_view file, std::string_view source) {
  if (file == source) return true;
  return file.size() > source.size() && file.ends_with(source) &&
         file[file.size() - source.size() - 1] == '/';
}

/// The first is_stmt row of `line` in `source` in `cu`'s line table (perf's
/// die_walk_lines() order), or nullopt.
std::optional<Dwarf_Addr> first_line_row(Dwarf_Die& cu, std::string_view source,
                                         std::uint32_t line) {
  Dwarf_Lines* lines = nullptr;
  std::size_t n = 0;
  if (dwarf_getsrclines(&cu, &lines, &n) != 0) return std::nullopt;
  for (std::size_t i = 0; i < n; ++i) {
    Dwarf_Line* l = dwarf_onesrcline(lines, i);
    int lno = 0;
    Dwarf_Addr a = 0;
    bool flag = false;
    if (l == nullptr || dwarf_lineno(l, &lno) != 0 || static_cast<std::uint32_t>(lno) != line ||
        dwarf_lineaddr(l, &a) != 0)
      continue;
    if (dwarf_lineendsequence(l, &flag) != 0 || flag) continue;
    if (dwarf_linebeginstatement(l, &flag) != 0 || !flag) continue;
    const char* file = dwarf_linesrc(l, nullptr, nullptr);
    if (file != nullptr && same_source(file, source)) return a;
  }
  return std::nullopt;
}

/// The function (DW_TAG_subprogram) of `cu` holding `pc`, inlined bodies resolved to the
/// function they are inlined into.
std::optional<Dwarf_Die> function_at(Dwarf_Die& cu, Dwarf_Addr pc) {
  Dwarf_Die* scopes = nullptr;
  const int n = dwarf_getscopes(&cu, pc, &scopes);
  std::optional<Dwarf_Die> out;
  for (int i = 0; i < n && !out; ++i) {
    if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) out = scopes[i];
  }
  std::free(scopes);
  return out;
}

}  // namespace

Result<ProbeSite> dwarf_line_site(const std::string& path, std::string_view source,
                                  std::uint32_t line) {
  PERFX_TRY(dw, DwarfFile::open(path));
  // Every unit's own line table, not dwarf_getsrc_file()/dwarf_addrdie(): those need
  // .debug_aranges, which clang does not emit.
  std::optional<ProbeSite> site;
  for_each_cu(dw.get(), [&](Dwarf_Die& cu) {
    auto addr = first_line_row(cu, source, line);
    if (!addr) return false;
    site = ProbeSite{*addr, "", 0};
    if (auto func = function_at(cu, *addr)) {
      if (const char* name = dwarf_diename(&*func)) site->function = name;
      Dwarf_Addr low = 0;
      if (dwarf_entrypc(&*func, &low) == 0) site->function_entry = low;
    }
    return true;
  });
  if (!site) {
    return fail(Errc::kNotFound, "no code for {}:{} in the line table of '{}'", source, line, path);
  }
  return *site;
}

Result<std::vector<std::string>> dwarf_fetch_args(const std::string& path,
                                                  std::string_view function,
                                                  const std::vector<std::string>& args,
                                                  std::uint64_t& site) {
  if (std::none_of(args.begin(), args.end(), [](const auto& a) { return is_variable_arg(a); }))
    return args;
  PERFX_TRY(dw, DwarfFile::open(path));
  Dwarf_Die cu;
  auto func = find_function(dw.get(), function, &cu);
  if (!func) {
    return fail(Errc::kNotFound, "no function '{}' in the DWARF of '{}'", function, path);
  }
  Dwarf_Addr entry = 0;
  if (dwarf_entrypc(&*func, &entry) != 0) {
    return fail(Errc::kNotFound, "function '{}' has no entry address in the DWARF of '{}'",
                function, path);
  }
  // perf's skip_prologue(): a function's arguments in an unoptimized unit are read after
  // the prologue that stores them ("Target program is compiled without optimization").
  if (site == 0 && !cu_is_optimized(cu)) site = after_prologue(cu, *func, entry);
  const Dwarf_Addr pc = site != 0 ? site : entry;
  std::vector<std::string> out;
  for (const auto& a : args) {
    if (!is_variable_arg(a)) {
      out.push_back(a);
      continue;
    }
    std::string_view w = a;
    std::string_view label = w;
    if (auto eq = w.find('='); eq != std::string_view::npos) {
      label = w.substr(0, eq);
      w.remove_prefix(eq + 1);
    }
    auto var = find_variable(*func, w, pc);
    if (!var) var = find_variable(cu, w, 0);  // a global of the unit, as perf
    if (!var) {
      return fail(Errc::kNotFound, "function '{}' has no parameter or variable '{}'", function, w);
    }
    PERFX_TRY(fetch, locate(dw.get(), *func, *var, pc, w));
    out.push_back(fmt::format("{}={}{}", label, fetch, fetch_type(&*var)));
  }
  return out;
}

}  // namespace perfx::symbol
