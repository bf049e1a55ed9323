#include "symbol/disassembler.hpp"

// bfd.h (included by dis-asm.h) insists on a package's config.h first.
#define PACKAGE "perfx"
#define PACKAGE_VERSION "0"
#include <dis-asm.h>
#include <fmt/format.h>

#include <cstdarg>
#include <cstdio>

#include "core/error_format.hpp"

namespace perfx::symbol {

struct Disassembler::Impl {
  enum bfd_architecture arch = bfd_arch_unknown;
  unsigned long mach = 0;
  const char* options = nullptr;  // "intel" for -M intel
};

Disassembler::Disassembler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Disassembler::Disassembler(Disassembler&&) noexcept = default;
Disassembler& Disassembler::operator=(Disassembler&&) noexcept = default;
Disassembler::~Disassembler() = default;

Result<Disassembler> Disassembler::open(std::string_view arch, AsmSyntax syntax) {
  if (arch.empty()) {
#if defined(__aarch64__)
    arch = "aarch64";
#else
    arch = "x86_64";
#endif
  }
  auto impl = std::make_unique<Impl>();
  if (arch == "x86_64") {
    impl->arch = bfd_arch_i386;
    impl->mach = bfd_mach_x86_64;
    if (syntax == AsmSyntax::kIntel) impl->options = "intel";
  } else if (arch == "aarch64" || arch == "arm64") {
    impl->arch = bfd_arch_aarch64;
    impl->mach = bfd_mach_aarch64;
  } else {
    return fail(Errc::kNotSupported,
                "cannot disassemble code of arch '{}' (perfx annotates x86_64 and aarch64)", arch);
  }
  if (disassembler(impl->arch, false, impl->mach, nullptr) == nullptr)
    return fail(Errc::kNotSupported, "libopcodes has no disassembler for arch '{}'", arch);
  return Disassembler(std::move(impl));
}

namespace {

// What libopcodes prints for one instruction, and how its addresses are named.
struct Sink {
  std::string text;
  const AddressNamer* namer = nullptr;
};

void append(Sink& sink, const char* format, std::va_list args) {
  char buf[256];
  std::va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(buf, sizeof buf, format, copy);
  va_end(copy);
  if (n < 0) return;
  if (static_cast<std::size_t>(n) < sizeof buf) {
    sink.text.append(buf, static_cast<std::size_t>(n));
    return;
  }
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  std::vsnprintf(big.data(), big.size(), format, args);
  big.pop_back();
  sink.text += big;
}

int print_plain(void* stream, const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  append(*static_cast<Sink*>(stream), format, args);
  va_end(args);
  return 0;
}

int print_styled(void* stream, enum disassembler_style, const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  append(*static_cast<Sink*>(stream), format, args);
  va_end(args);
  return 0;
}

// objdump's objdump_print_addr(): "1197 <hot_loop+0x2e>", or the bare hex address.
void print_address(bfd_vma addr, struct disassemble_info* info) {
  auto& sink = *static_cast<Sink*>(info->stream);
  sink.text += fmt::format("{:x}", addr);
  if (sink.namer != nullptr && *sink.namer) {
    if (auto name = (*sink.namer)(addr)) sink.text += fmt::format(" <{}>", *name);
  }
}

}  // namespace

std::vector<Instruction> Disassembler::disassemble(std::span<const std::uint8_t> code,
                                                   std::uint64_t address,
                                                   const AddressNamer& namer) const {
  std::vector<Instruction> out;
  if (code.empty()) return out;
  Sink sink;
  sink.namer = &namer;
  disassemble_info info{};
  init_disassemble_info(&info, &sink, print_plain, print_styled);
  info.arch = impl_->arch;
  info.mach = impl_->mach;
  info.disassembler_options = impl_->options;
  // libopcodes reads through info.buffer and never writes it.
  info.buffer = const_cast<bfd_byte*>(code.data());
  info.buffer_vma = address;
  info.buffer_length = code.size();
  info.print_address_func = print_address;
  disassemble_init_for_target(&info);
  const disassembler_ftype print_insn = disassembler(impl_->arch, false, impl_->mach, nullptr);
  std::uint64_t pc = address;
  const std::uint64_t end = address + code.size();
  while (pc < end) {
    sink.text.clear();
    int size = print_insn(pc, &info);
    if (size <= 0) {  // nothing decoded: one byte, as objdump's "(bad)"
      size = 1;
      sink.text = "(bad)";
    }
    while (!sink.text.empty() && (sink.text.back() == ' ' || sink.text.back() == '\t'))
      sink.text.pop_back();
    out.push_back({pc, static_cast<std::uint32_t>(size), sink.text});
    pc += static_cast<std::uint64_t>(size);
  }
  disassemble_free_target(&info);
  return out;
}

}  // namespace perfx::symbol
