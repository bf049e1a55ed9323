#include "symbol/debug_sections.hpp"

#include <gelf.h>
#include <libdeflate.h>

#include <string_view>
#include <thread>
#include <vector>

#include "core/huge_pages.hpp"
#include "symbol/section_cache.hpp"

namespace perfx::symbol {
namespace {

bool unneeded(std::string_view name) {
  return name == ".debug_loclists" || name == ".debug_loc" || name == ".debug_macro" ||
         name == ".debug_macinfo";
}

// A zlib-compressed section to inflate: its stream and where the result goes.
struct Job {
  Elf_Scn* scn = nullptr;
  std::size_t index = 0;  // of the section
  const unsigned char* in = nullptr;
  std::size_t in_size = 0;
  char* out = nullptr;
  std::size_t out_size = 0;
  std::size_t align = 1;
  bool ok = false;
};

void inflate(Job& job) {
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  if (d == nullptr) return;
  std::size_t actual = 0;
  job.ok = libdeflate_zlib_decompress(d, job.in, job.in_size, job.out, job.out_size, &actual) ==
               LIBDEFLATE_SUCCESS &&
           actual == job.out_size;
  libdeflate_free_decompressor(d);
}

// The section's data becomes `job.out`: libdw reads it through elf_getdata(), which
// returns this same (cached) descriptor, and sees an uncompressed section.
void install(const Job& job) {
  Elf_Data* data = elf_getdata(job.scn, nullptr);
  GElf_Shdr shdr;
  if (data == nullptr || gelf_getshdr(job.scn, &shdr) == nullptr) return;
  shdr.sh_flags &= ~static_cast<GElf_Xword>(SHF_COMPRESSED);
  shdr.sh_size = job.out_size;
  shdr.sh_addralign = job.align;
  if (gelf_update_shdr(job.scn, &shdr) == 0) return;
  data->d_buf = job.out;
  data->d_size = job.out_size;
  data->d_type = ELF_T_BYTE;
  data->d_align = job.align;
  data->d_off = 0;
}

}  // namespace

void DebugSections::prepare(Elf* elf, const std::string& cache_path) {
  std::size_t shstrndx = 0;
  if (elf == nullptr || elf_getshdrstrndx(elf, &shstrndx) != 0) return;
  const int elf_class = gelf_getclass(elf);
  const std::size_t chdr_size = elf_class == ELFCLASS64 ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);
  std::vector<Job> jobs;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type == SHT_NOBITS) continue;
    const char* cname = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (cname == nullptr) continue;
    const std::string_view name(cname);
    if (!name.starts_with(".debug_")) continue;
    if (unneeded(name)) {
      shdr.sh_type = SHT_NOBITS;
      (void)gelf_update_shdr(scn, &shdr);  // a read-only image keeps the section: fine
      continue;
    }
    if ((shdr.sh_flags & SHF_COMPRESSED) == 0) continue;
    GElf_Chdr chdr;
    Elf_Data* raw = elf_rawdata(scn, nullptr);
    if (gelf_getchdr(scn, &chdr) == nullptr || chdr.ch_type != ELFCOMPRESS_ZLIB || raw == nullptr ||
        raw->d_buf == nullptr || raw->d_size < chdr_size || chdr.ch_size == 0 ||
        chdr.ch_size / 1032 > raw->d_size)  // DEFLATE expands at most ~1032:1: a corrupt
      continue;                             // header must not make us allocate its claim
    Job job;
    job.scn = scn;
    job.index = elf_ndxscn(scn);
    job.in = static_cast<const unsigned char*>(raw->d_buf) + chdr_size;
    job.in_size = raw->d_size - chdr_size;
    job.out_size = chdr.ch_size;
    job.align = chdr.ch_addralign == 0 ? 1 : chdr.ch_addralign;
    jobs.push_back(job);
  }
  if (jobs.empty()) return;
  std::vector<CachedSection> cached;
  for (const Job& job : jobs) cached.push_back({job.index, job.in_size, job.out_size, nullptr});
  if (auto file = load_section_cache(cache_path, cached)) {
    cache_ = std::move(file);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      jobs[i].out = const_cast<char*>(cached[i].data);  // libdw only reads it
      install(jobs[i]);
    }
    return;
  }
  // One buffer for all of them (not zeroed): sections under 1 MiB would otherwise each
  // fault in page by page; together they share huge pages.
  auto aligned = [](std::size_t n) { return (n + 63) / 64 * 64; };
  std::size_t total = 0;
  for (const Job& job : jobs) total += aligned(job.out_size);
  buffer_ = core::allocate_huge(total);
  std::size_t at = 0;
  for (Job& job : jobs) {
    job.out = buffer_.get() + at;
    at += aligned(job.out_size);
  }
  // The largest section (.debug_info) on its own thread, the rest here.
  std::size_t big = 0;
  for (std::size_t i = 1; i < jobs.size(); ++i)
    if (jobs[i].out_size > jobs[big].out_size) big = i;
  constexpr std::size_t kWorthAThread = 1 << 20;
  std::thread helper;
  if (jobs[big].out_size >= kWorthAThread) helper = std::thread([&] { inflate(jobs[big]); });
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (i != big || !helper.joinable()) inflate(jobs[i]);
  if (helper.joinable()) helper.join();
  bool all_ok = true;
  for (const Job& job : jobs) {
    if (job.ok) install(job);
    all_ok = all_ok && job.ok;
  }
  // Small debug files inflate in no time: only the big ones are worth a cache file.
  constexpr std::size_t kWorthCaching = 256 << 10;
  if (all_ok && total >= kWorthCaching && !cache_path.empty()) {
    for (std::size_t i = 0; i < jobs.size(); ++i) cached[i].data = jobs[i].out;
    cache_writer_ = std::thread(
        [path = cache_path, sections = std::move(cached)] { store_section_cache(path, sections); });
  }
}

DebugSections::~DebugSections() {
  if (cache_writer_.joinable()) cache_writer_.join();  // before buffer_ goes
}

}  // namespace perfx::symbol
