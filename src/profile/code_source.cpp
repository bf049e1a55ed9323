#include "profile/code_source.hpp"

#include <fmt/format.h>

#include "symbol/disassembler.hpp"
#include "symbol/dso.hpp"
#include "symbol/machine.hpp"

namespace perfx::profile {

struct CodeSource::Impl {
  Impl(symbol::Disassembler d, symbol::SearchPaths paths)
      : dis(std::move(d)), dsos(std::move(paths)) {}
  symbol::Disassembler dis;
  symbol::DsoCache dsos;
};

CodeSource::CodeSource(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CodeSource::CodeSource(CodeSource&&) noexcept = default;
CodeSource& CodeSource::operator=(CodeSource&&) noexcept = default;
CodeSource::~CodeSource() = default;

Result<CodeSource> CodeSource::open(std::string_view arch, bool intel_syntax, bool demangle,
                                    std::string buildid_dir) {
  auto dis = symbol::Disassembler::open(
      arch, intel_syntax ? symbol::AsmSyntax::kIntel : symbol::AsmSyntax::kAtt);
  if (!dis) return tl::unexpected(dis.error());
  symbol::SearchPaths paths;
  paths.demangle = demangle;
  paths.buildid_dir = std::move(buildid_dir);
  return CodeSource(std::make_unique<Impl>(std::move(*dis), std::move(paths)));
}

namespace {
const symbol::Dso& dso_of(const CodeSymbol& sym) {
  return *static_cast<const symbol::Dso*>(sym.dso);
}
}  // namespace

CodeSymbol CodeSource::lookup(const Frame& f, const std::string& build_id) {
  const auto kind = f.dso_path == "[vdso]" ? symbol::DsoKind::kVdso : symbol::DsoKind::kElf;
  const symbol::Dso& dso = *impl_->dsos.get(f.dso_path, kind, build_id);
  CodeSymbol out;
  out.address = dso.to_symbol_address(f.map_address);
  const symbol::Symbol* sym = dso.find(out.address);
  if (sym == nullptr) {
    // The profile named the frame, but this DSO's lookup finds no symbol there (the file
    // is gone or changed, its build-id does not match).
    const std::string& file = dso.file_path();
    if (!dso.warning().empty()) {
      out.problem =
          fmt::format("no symbol at {:#x} of {}: {}", out.address, f.dso_path, dso.warning());
    } else if (file.empty()) {
      out.problem =
          fmt::format("no symbol at {:#x}: {} could not be opened", out.address, f.dso_path);
    } else {
      out.problem = fmt::format(
          "no symbol at {:#x} in {} ({} symbols): the file differs from "
          "the one recorded?",
          out.address, file, dso.symbol_count());
    }
    return out;
  }
  out.dso = &dso;
  out.name = std::string(sym->name);
  out.start = sym->start;
  out.end = sym->end;
  out.delta = out.address - f.map_address;
  return out;
}

bool CodeSource::read(const CodeSymbol& sym, const std::string& dso_path,
                      std::vector<std::uint8_t>& code, std::string& problem) const {
  const std::uint64_t offset = sym.start - sym.delta;
  if (dso_of(sym).read_file(offset, code.data(), code.size())) return true;
  const std::string& file = dso_of(sym).file_path();
  problem = fmt::format("cannot read {} bytes of code at offset {:#x} of {}", code.size(), offset,
                        file.empty() ? dso_path : file);
  return false;
}

std::vector<CodeInstruction> CodeSource::disassemble(const CodeSymbol& sym,
                                                     std::span<const std::uint8_t> code) const {
  const symbol::Dso& dso = dso_of(sym);
  auto namer = [&dso](std::uint64_t a) -> std::optional<std::string> {
    const symbol::Symbol* s = dso.find(a);
    if (s == nullptr) return std::nullopt;
    if (a == s->start) return std::string(s->name);
    return fmt::format("{}+{:#x}", s->name, a - s->start);
  };
  std::vector<CodeInstruction> out;
  for (auto& in : impl_->dis.disassemble(code, sym.start, namer))
    out.push_back({in.address, in.size, std::move(in.text)});
  return out;
}

std::optional<std::pair<std::string, std::uint32_t>> CodeSource::srcline(
    const CodeSymbol& sym, std::uint64_t address) const {
  return dso_of(sym).srcline(address);
}

const std::string& CodeSource::file_path(const CodeSymbol& sym) const {
  return dso_of(sym).file_path();
}

}  // namespace perfx::profile
