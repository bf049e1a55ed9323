// Replay driver for the fuzz targets in builds without libFuzzer (gcc, `make test`).
//
// Every fuzz/<name>_fuzzer.cpp defines LLVMFuzzerTestOneInput. With clang + PERFX_FUZZ it
// links against libFuzzer; everywhere else it links against this main, which feeds it
// every file of the directories (or files) named on the command line, so each corpus and
// every regression input runs in every `make test`. A crash names the input that caused it.

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

// The input being run, for the crash handler (async-signal-safe: a fixed buffer).
char g_current[4096] = "";

void write_str(const char* s) {
  std::size_t n = std::strlen(s);
  while (n > 0) {
    ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<std::size_t>(w);
  }
}

void on_fatal_signal(int sig) {
  write_str("fuzz replay: crashed (signal) on input: ");
  write_str(g_current);
  write_str("\n");
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

bool read_file(const std::filesystem::path& p, std::vector<std::uint8_t>& out) {
  std::FILE* f = std::fopen(p.c_str(), "rb");
  if (f == nullptr) return false;
  out.clear();
  std::uint8_t buf[65536];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
  const bool ok = std::ferror(f) == 0;
  std::fclose(f);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) std::signal(sig, on_fatal_signal);

  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg, ec)) {
        if (entry.is_regular_file(ec) && entry.path().filename().string()[0] != '.')
          inputs.push_back(entry.path());
      }
    } else if (std::filesystem::is_regular_file(arg, ec)) {
      inputs.push_back(arg);
    }
    // A missing directory is fine: a target may have no regressions yet.
  }
  std::sort(inputs.begin(), inputs.end());

  std::size_t total_bytes = 0;
  for (const auto& p : inputs) {
    std::vector<std::uint8_t> bytes;
    if (!read_file(p, bytes)) {
      std::fprintf(stderr, "fuzz replay: cannot read %s\n", p.c_str());
      return 1;
    }
    std::snprintf(g_current, sizeof g_current, "%s", p.c_str());
    // An exact-size heap copy, so a sanitizer build catches a read one past the end.
    auto copy = std::make_unique<std::uint8_t[]>(std::max<std::size_t>(bytes.size(), 1));
    if (!bytes.empty()) std::memcpy(copy.get(), bytes.data(), bytes.size());
    LLVMFuzzerTestOneInput(bytes.empty() ? nullptr : copy.get(), bytes.size());
    total_bytes += bytes.size();
  }
  // The empty input too: every parser must accept zero bytes.
  std::snprintf(g_current, sizeof g_current, "%s", "<empty input>");
  LLVMFuzzerTestOneInput(nullptr, 0);
  std::printf("fuzz replay: %zu inputs (%zu bytes) + the empty input, no crash\n", inputs.size(),
              total_bytes);
  return 0;
}
