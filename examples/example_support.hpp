#pragma once
// Helpers the examples share (not part of the library): a workload that burns this
// thread's CPU time, the perf.data an example reads (its argument, or a temporary file it
// records first), and that recording of the example itself.

#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <system_error>
#include <utility>

#include "perfx/perf_data.hpp"
#include "perfx/sampler.hpp"

namespace example {

// Milliseconds of this thread's CPU time.
inline long thread_cpu_ms() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

// Burns `ms` of this thread's CPU time, calling `between()` after each slice of work (to
// drain a ring buffer, say); stops early when it returns false.
template <typename F>
void burn_cpu(long ms, F&& between) {
  const long start = thread_cpu_ms();
  volatile unsigned x = 0;
  do {
    for (int i = 0; i < 100000; ++i) x = x + 1;
    if (!between()) return;
  } while (thread_cpu_ms() - start < ms);
}
inline void burn_cpu(long ms) {
  burn_cpu(ms, [] { return true; });
}

// The perf.data an example reads: argv[1] when given, else perf.data in a new temporary
// directory (/tmp/<prefix>_XXXXXX) made by `record(path)`, which goes away with this object.
class InputPerfData {
 public:
  using Recorder = std::function<perfx::Result<void>(const std::string&)>;

  InputPerfData(int argc, char** argv, const char* prefix, const Recorder& record) {
    if (argc > 1) {
      path_ = argv[1];
      return;
    }
    std::string tmpl = "/tmp/" + std::string(prefix) + "_XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) {
      problem_ = "cannot make a temporary directory";
      return;
    }
    dir_ = tmpl;
    path_ = dir_ + "/perf.data";
    if (auto recorded = record(path_); !recorded) {
      problem_ = "recording: " + recorded.error().message();
    } else {
      std::printf("(no file given: recorded %s)\n", path_.c_str());
    }
  }
  InputPerfData(const InputPerfData&) = delete;
  InputPerfData& operator=(const InputPerfData&) = delete;
  ~InputPerfData() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  [[nodiscard]] const std::string& path() const { return path_; }
  // True with a file to read; else prints "<example>: <why not>" to stderr.
  [[nodiscard]] bool ready(const char* example) const {
    if (problem_.empty()) return true;
    std::fprintf(stderr, "%s: %s\n", example, problem_.c_str());
    return false;
  }

 private:
  std::string path_;
  std::string dir_;
  std::string problem_;
};

// Samples this thread with one event (`name`, `attr`) while it runs `work()`, into a new
// perf.data at `path`. `first(writer)`, when given, writes the records that go before the
// samples (the executable's maps, say).
inline perfx::Result<void> record_self(
    const std::string& path, const char* name, const perfx::raw::EventAttr& attr,
    const std::function<void()>& work,
    const std::function<perfx::Result<void>(perfx::PerfDataWriter&)>& first = {}) {
  perfx::SamplerOptions opt;
  opt.events.push_back({name, attr});
  opt.pids = {0};   // this thread
  opt.cpus = {-1};  // on any cpu
  PERFX_TRY(sampler, perfx::Sampler::open(std::move(opt)));
  const auto& ev = sampler.options().events[0];
  PERFX_TRY(writer, perfx::PerfDataWriter::create(path, {{ev.name, ev.attr, sampler.ids(0)}}));
  if (first) PERFX_CHECK(first(writer));
  auto to_file = [&](std::span<const std::byte> a, std::span<const std::byte> b,
                     int) -> perfx::Result<void> {
    PERFX_CHECK(writer.write_bytes(a));
    return writer.write_bytes(b);
  };
  PERFX_CHECK(sampler.enable());
  work();
  PERFX_CHECK(sampler.disable());
  PERFX_CHECK(sampler.drain(to_file));
  return writer.finalize();
}

}  // namespace example
