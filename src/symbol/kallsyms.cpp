// Kernel and module symbols: kallsyms text (the running kernel's /proc/kallsyms, or the
// copy perf keeps in its build-id cache for a recorded kernel).
#include <cctype>
#include <charconv>
#include <span>
#include <string>
#include <vector>

#include "core/build_id_note.hpp"
#include "symbol/dso_impl.hpp"

namespace perfx::symbol {

std::string running_kernel_build_id(const std::string& notes_path) {
  if (notes_path.empty()) return {};
  const auto notes = FileText::open(notes_path);
  if (!notes) return {};
  const auto id = core::build_id_from_notes(std::as_bytes(std::span(notes->text())));
  return id ? core::build_id_hex(id->data(), id->size()) : std::string();
}

KallsymsTable parse_kallsyms(std::string_view text) {
  KallsymsTable t;
  // Reserved up front (a line is ~45 bytes, rarely under 24: a short guess only means
  // growing), so the 120k-entry table of a Debian kernel is not moved while it grows.
  t.kernel.reserve(text.size() / 24 + 16);
  std::vector<std::string> mod_names;
  std::vector<SymbolTable> mod_syms;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    // "ffffffff81000000 T _text\t[module]"
    auto sp1 = line.find(' ');
    if (sp1 == std::string_view::npos || sp1 + 3 > line.size()) continue;
    std::uint64_t addr = 0;
    auto [p, ec] = std::from_chars(line.data(), line.data() + sp1, addr, 16);
    if (ec != std::errc{}) continue;
    const char type = static_cast<char>(std::toupper(static_cast<unsigned char>(line[sp1 + 1])));
    if (type != 'T' && type != 'W' && type != 'D' && type != 'B') continue;
    std::string_view rest = line.substr(sp1 + 3);
    std::string_view module;
    auto tab = rest.find('\t');
    if (tab != std::string_view::npos) {
      module = rest.substr(tab + 1);
      rest = rest.substr(0, tab);
      if (module.size() >= 2 && module.front() == '[' && module.back() == ']')
        module = module.substr(1, module.size() - 2);
    }
    Symbol s{addr, addr, rest};
    if (module.empty()) {
      t.kernel.push_back(std::move(s));
    } else {
      std::size_t idx = 0;
      for (; idx < mod_names.size(); ++idx)
        if (mod_names[idx] == module) break;
      if (idx == mod_names.size()) {
        mod_names.emplace_back(module);
        mod_syms.emplace_back();
      }
      mod_syms[idx].push_back(std::move(s));
    }
  }
  finalize_symbols(t.kernel, true);
  for (std::size_t i = 0; i < mod_names.size(); ++i) {
    finalize_symbols(mod_syms[i], true);
    t.modules.emplace_back(std::move(mod_names[i]), std::move(mod_syms[i]));
  }
  return t;
}

void Dso::Impl::load_kernel(const Dso& self) const {
  if (preset) return;
  // perf's dso__load_kernel_sym(): a user's kallsyms or vmlinux is used alone.
  if (!paths.vmlinux.empty() && self.kind_ == DsoKind::kKernel) {
    load_vmlinux();
    return;
  }
  std::optional<FileText> text;
  if (paths.kallsyms_given) text = FileText::open(paths.kallsyms);
  const std::string cached =
      home_debug_dir(paths) + "/[kernel.kallsyms]/" + recorded_build_id + "/kallsyms";
  if (!paths.kallsyms_given && recorded_build_id.size() > 2) text = FileText::open(cached);
  if (!text && !paths.kallsyms_given && self.kind_ == DsoKind::kKernel &&
      recorded_build_id.size() > 2) {
    // A recording of another kernel (perf's dso__find_kallsyms()): the running kernel's
    // symbols would name the wrong functions. Without its kallsyms in the build-id cache,
    // its addresses stay unresolved, as in perf.
    const std::string running = running_kernel_build_id(paths.kernel_notes);
    if (!running.empty() && !same_build_id(running, recorded_build_id)) {
      warning = "the recording's kernel (build-id " + recorded_build_id +
                ") is not the running one (" + running + ") and " + cached +
                " is not there: kernel addresses are left unresolved";
      return;
    }
  }
  if (!text) text = FileText::open(paths.kallsyms);
  if (!text) {
    warning = "cannot read " + paths.kallsyms + ": no kernel symbols";
    return;
  }
  kallsyms = std::move(text);
  auto table = parse_kallsyms(kallsyms->text());
  if (self.kind_ == DsoKind::kKernel) {
    symbols = std::move(table.kernel);
  } else {
    std::string name = self.short_name_.substr(1, self.short_name_.size() - 2);
    for (auto& [mod, syms] : table.modules)
      if (mod == name) symbols = std::move(syms);
  }
  if (symbols.empty()) warning = "no symbols for " + self.short_name_;
}

}  // namespace perfx::symbol
