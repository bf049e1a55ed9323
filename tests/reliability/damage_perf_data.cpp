// perfx_damage: writes damaged variants of a valid perf.data (file mode) for the
// damaged-input tests (tests/cli/reliability_damaged_inputs.sh, docs/reliability.md).
//
//   perfx_damage INPUT OUTDIR [MAX_VARIANTS]
//
// Variants (deterministic, fixed seed): truncations at many offsets; single bit flips and
// byte smashes; header section offsets/sizes that lie (past the end, overflowing, zero);
// attr_size and attr.size lies; feature bitmap and feature-section lies; record sizes of
// 0, < 8 and past the end; unknown record types; huge counts (callchain nr, read-format
// group nr, attr id arrays); strings without a NUL (COMM, MMAP filenames, feature strings).
// Each variant is OUTDIR/<nnn>-<what>.data; the list is printed on stdout.
//
// The tool is standalone (no libperfx): it must not share bugs with the reader it tests.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace {

using Bytes = std::vector<unsigned char>;

constexpr std::uint64_t kMagic = 0x32454c4946524550ULL;  // "PERFILE2"
constexpr std::size_t kHeaderSize = 104;
constexpr std::size_t kAttrsOff = 24;  // perf_file_header.attrs
constexpr std::size_t kDataOff = 40;   // perf_file_header.data
constexpr std::size_t kTypesOff = 56;  // perf_file_header.event_types
constexpr std::size_t kFeatOff = 72;   // adds_features bitmap (4 x u64)

std::uint64_t get64(const Bytes& b, std::size_t off) {
  std::uint64_t v = 0;
  if (off + 8 <= b.size()) std::memcpy(&v, b.data() + off, 8);
  return v;
}
std::uint32_t get32(const Bytes& b, std::size_t off) {
  std::uint32_t v = 0;
  if (off + 4 <= b.size()) std::memcpy(&v, b.data() + off, 4);
  return v;
}
std::uint16_t get16(const Bytes& b, std::size_t off) {
  std::uint16_t v = 0;
  if (off + 2 <= b.size()) std::memcpy(&v, b.data() + off, 2);
  return v;
}
void put64(Bytes& b, std::size_t off, std::uint64_t v) {
  if (off + 8 <= b.size()) std::memcpy(b.data() + off, &v, 8);
}
void put32(Bytes& b, std::size_t off, std::uint32_t v) {
  if (off + 4 <= b.size()) std::memcpy(b.data() + off, &v, 4);
}
void put16(Bytes& b, std::size_t off, std::uint16_t v) {
  if (off + 2 <= b.size()) std::memcpy(b.data() + off, &v, 2);
}

struct Record {
  std::size_t offset;  // in the file
  std::uint32_t type;
  std::uint16_t size;
};

struct Layout {
  std::uint64_t attr_size = 0, attrs_off = 0, attrs_size = 0;
  std::uint64_t data_off = 0, data_size = 0;
  std::uint64_t sample_type = 0, read_format = 0;
  std::vector<Record> records;
  std::vector<std::size_t> feature_sections;  // file offsets of the perf_file_section entries
};

Layout parse(const Bytes& b) {
  Layout l;
  l.attr_size = get64(b, 16);
  l.attrs_off = get64(b, kAttrsOff);
  l.attrs_size = get64(b, kAttrsOff + 8);
  l.data_off = get64(b, kDataOff);
  l.data_size = get64(b, kDataOff + 8);
  if (l.attrs_off + 40 <= b.size()) {
    l.sample_type = get64(b, static_cast<std::size_t>(l.attrs_off) + 24);
    l.read_format = get64(b, static_cast<std::size_t>(l.attrs_off) + 32);
  }
  std::uint64_t pos = l.data_off;
  const std::uint64_t end = std::min<std::uint64_t>(l.data_off + l.data_size, b.size());
  while (pos + 8 <= end) {
    auto p = static_cast<std::size_t>(pos);
    Record r{p, get32(b, p), get16(b, p + 6)};
    if (r.size < 8 || pos + r.size > end) break;
    l.records.push_back(r);
    pos += r.size;
  }
  std::uint64_t feat = l.data_off + l.data_size;
  for (unsigned bit = 0; bit < 256; ++bit) {
    if ((get64(b, kFeatOff + 8 * (bit / 64)) >> (bit % 64)) & 1U) {
      if (feat + 16 <= b.size()) l.feature_sections.push_back(static_cast<std::size_t>(feat));
      feat += 16;
    }
  }
  return l;
}

// Offset of the callchain `nr` in a PERF_RECORD_SAMPLE at `rec`, or 0 if unknown.
std::size_t callchain_nr_offset(const Bytes& b, const Layout& l, const Record& rec) {
  const std::uint64_t st = l.sample_type;
  if (!(st & (1U << 5))) return 0;
  std::size_t p = rec.offset + 8;
  for (unsigned bit : {16U, 0U, 1U, 2U, 3U, 6U, 9U, 7U, 8U}) {
    if (st & (1ULL << bit)) p += 8;
  }
  if (st & (1U << 4)) {  // READ
    const std::uint64_t rf = l.read_format;
    const std::size_t per_value = 8 * (1 + ((rf >> 2) & 1) + ((rf >> 4) & 1));
    if (rf & (1U << 3)) {  // GROUP
      const std::uint64_t nr = get64(b, p);
      if (nr > 1024) return 0;
      p += 8 + 8 * (((rf >> 0) & 1) + ((rf >> 1) & 1)) + static_cast<std::size_t>(nr) * per_value;
    } else {
      p += per_value + 8 * (((rf >> 0) & 1) + ((rf >> 1) & 1));
    }
  }
  return p + 8 <= rec.offset + rec.size ? p : 0;
}

// Emits variants. Systematic variants are generated twice: a counting pass, then a pass
// that keeps an evenly spread subset when there are more than `max`, so a small budget
// still covers every kind of damage. Random damage fills the rest of the budget.
class Writer {
 public:
  Writer(std::string dir, std::size_t max) : dir_(std::move(dir)), max_(max) {}
  void start_counting() {
    counting_ = true;
    seen_ = 0;
  }
  void start_emitting() {
    systematic_ = seen_;
    counting_ = false;
    seen_ = 0;
  }
  bool full() const { return count_ >= max_; }
  void emit(const Bytes& b, const std::string& what) {
    const std::size_t i = seen_++;
    if (counting_ || full()) return;
    if (systematic_ > max_ && (i * max_) / systematic_ == ((i + 1) * max_) / systematic_) return;
    write(b, what);
  }
  void emit_random(const Bytes& b, const std::string& what) {
    if (!full()) write(b, what);
  }

 private:
  void write(const Bytes& b, const std::string& what) {
    char name[64];
    std::snprintf(name, sizeof name, "%03zu-", count_);
    std::string path = dir_ + "/" + name + what + ".data";
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    if (!out) {
      std::fprintf(stderr, "perfx_damage: cannot write %s\n", path.c_str());
      std::exit(1);
    }
    std::printf("%s\n", path.c_str());
    ++count_;
  }

  std::string dir_;
  std::size_t max_;
  std::size_t count_ = 0;
  std::size_t seen_ = 0;
  std::size_t systematic_ = 0;
  bool counting_ = false;
};

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Picks up to n records of the given type (0xffffffff = any), spread over the file.
std::vector<Record> pick(const Layout& l, std::uint32_t type, std::size_t n) {
  std::vector<Record> all;
  for (const auto& r : l.records)
    if (type == 0xffffffffU || r.type == type) all.push_back(r);
  if (all.size() <= n) return all;
  std::vector<Record> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(all[i * (all.size() - 1) / (n - 1 ? n - 1 : 1)]);
  return out;
}

void systematic(const Bytes& orig, const Layout& l, Writer& w) {
  const std::uint64_t fsize = orig.size();
  // 1. Truncations: inside the header, the attrs, at and around record boundaries, spread.
  std::vector<std::size_t> cuts = {0, 1, 7, 8, 16, 23, 24, 40, 56, 71, 72, 103, 104};
  cuts.push_back(static_cast<std::size_t>(l.attrs_off) + 1);
  cuts.push_back(static_cast<std::size_t>(l.attrs_off + l.attrs_size / 2));
  for (const auto& r : pick(l, 0xffffffffU, 12)) {
    cuts.push_back(r.offset + 4);
    cuts.push_back(r.offset + r.size - 1);
  }
  for (std::size_t i = 1; i <= 16; ++i) cuts.push_back(static_cast<std::size_t>(fsize * i / 17));
  cuts.push_back(static_cast<std::size_t>(l.data_off + l.data_size));
  cuts.push_back(static_cast<std::size_t>(fsize - 1));
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  for (std::size_t c : cuts) {
    if (c >= fsize) continue;
    Bytes b(orig.begin(), orig.begin() + static_cast<std::ptrdiff_t>(c));
    w.emit(b, "truncate-at-" + std::to_string(c));
  }

  // 2. Header lies.
  struct Lie {
    std::size_t off;
    std::uint64_t value;
    const char* what;
  };
  const std::uint64_t big = 0xffffffffffffffffULL;
  std::vector<Lie> lies = {
      {8, 0, "header-size-0"},
      {8, 4096, "header-size-4096"},
      {16, 0, "attr-size-0"},
      {16, 8, "attr-size-8"},
      {16, 1U << 20, "attr-size-1M"},
      {16, big, "attr-size-huge"},
      {kAttrsOff, fsize, "attrs-offset-eof"},
      {kAttrsOff, big - 7, "attrs-offset-huge"},
      {kAttrsOff + 8, 0, "attrs-size-0"},
      {kAttrsOff + 8, fsize, "attrs-size-filesize"},
      {kAttrsOff + 8, big, "attrs-size-huge"},
      {kAttrsOff + 8, l.attr_size - 1, "attrs-size-not-multiple"},
      {kDataOff, fsize, "data-offset-eof"},
      {kDataOff, fsize + 4096, "data-offset-past-eof"},
      {kDataOff, big - 15, "data-offset-overflow"},
      {kDataOff, 0, "data-offset-0"},
      {kDataOff, l.data_off + 4, "data-offset-misaligned"},
      {kDataOff + 8, 0, "data-size-0"},
      {kDataOff + 8, fsize, "data-size-filesize"},
      {kDataOff + 8, big, "data-size-huge"},
      {kDataOff + 8, l.data_size + 9, "data-size-plus9"},
      {kTypesOff, fsize + 100, "event-types-past-eof"},
      {kTypesOff + 8, big, "event-types-size-huge"},
      {kFeatOff, big, "features-all-set-0"},
      {kFeatOff + 8, big, "features-all-set-1"},
      {kFeatOff + 24, big, "features-all-set-3"},
  };
  for (const auto& lie : lies) {
    Bytes b = orig;
    put64(b, lie.off, lie.value);
    w.emit(b, lie.what);
  }
  {
    Bytes b = orig;
    put64(b, 0, 0x5045524649524550ULL);  // "PERFILE2" spelt wrong
    w.emit(b, "bad-magic");
    b = orig;
    put64(b, 0, 0x50455246494c4532ULL);  // byte-swapped: claims big-endian
    w.emit(b, "magic-big-endian");
    b = orig;
    put64(b, 0, 0x454c494652455000ULL | 0x31);  // "PERFILE1"-ish
    w.emit(b, "magic-perfile1");
  }

  // 3. Attr lies (first attr) and its id array.
  if (l.attrs_off + l.attr_size <= fsize && l.attr_size >= 16 + 64) {
    const auto a = static_cast<std::size_t>(l.attrs_off);
    const std::size_t ids = a + static_cast<std::size_t>(l.attr_size) - 16;
    struct ALie {
      std::size_t off;
      std::uint64_t value;
      int width;
      const char* what;
    };
    const ALie alies[] = {
        {a + 4, 0, 4, "attr-struct-size-0"},
        {a + 4, 1, 4, "attr-struct-size-1"},
        {a + 4, 4096, 4, "attr-struct-size-4096"},
        {a + 4, 0xffffffffU, 4, "attr-struct-size-huge"},
        {a + 0, 0xffffffffU, 4, "attr-type-huge"},
        {a + 24, big, 8, "attr-sample-type-all"},
        {a + 24, 0, 8, "attr-sample-type-none"},
        {a + 24, l.sample_type | (1U << 4), 8, "attr-sample-type-plus-read"},
        {a + 24, l.sample_type | (1U << 10) | (1U << 11), 8, "attr-sample-type-plus-raw-branch"},
        {a + 24, l.sample_type | (1U << 12) | (1U << 13), 8, "attr-sample-type-plus-regs-stack"},
        {a + 32, big, 8, "attr-read-format-all"},
        {a + 40, big, 8, "attr-flags-all"},
        {a + 40, 0, 8, "attr-flags-none"},
        {ids, fsize, 8, "attr-ids-offset-eof"},
        {ids, big - 3, 8, "attr-ids-offset-huge"},
        {ids + 8, big, 8, "attr-ids-size-huge"},
        {ids + 8, fsize, 8, "attr-ids-size-filesize"},
        {ids + 8, 7, 8, "attr-ids-size-7"},
    };
    for (const auto& lie : alies) {
      Bytes b = orig;
      if (lie.width == 4)
        put32(b, lie.off, static_cast<std::uint32_t>(lie.value));
      else
        put64(b, lie.off, lie.value);
      w.emit(b, lie.what);
    }
  }

  // 4. Feature sections that lie.
  for (std::size_t i = 0; i < l.feature_sections.size() && i < 12; ++i) {
    const std::size_t s = l.feature_sections[i];
    Bytes b = orig;
    put64(b, s + 8, big);
    w.emit(b, "feature" + std::to_string(i) + "-size-huge");
    b = orig;
    put64(b, s, fsize + 8);
    w.emit(b, "feature" + std::to_string(i) + "-offset-past-eof");
    b = orig;
    // Content: the first u32 is a count or string length in most features.
    const std::uint64_t off = get64(orig, s);
    if (off + 4 <= fsize) {
      put32(b, static_cast<std::size_t>(off), 0xffffffffU);
      w.emit(b, "feature" + std::to_string(i) + "-count-huge");
      b = orig;
      put32(b, static_cast<std::size_t>(off), 0x7fffffffU);
      w.emit(b, "feature" + std::to_string(i) + "-count-2g");
    }
    // No NUL anywhere in the feature's content (string features).
    const std::uint64_t size = get64(orig, s + 8);
    if (off + size <= fsize && size > 4) {
      b = orig;
      for (std::uint64_t k = off + 4; k < off + size; ++k)
        if (b[static_cast<std::size_t>(k)] == 0) b[static_cast<std::size_t>(k)] = 'A';
      w.emit(b, "feature" + std::to_string(i) + "-no-nul");
    }
  }

  // 5. Record sizes: 0, below the header, past the end; unknown types.
  const std::uint16_t bad_sizes[] = {0, 1, 7, 0xffff};
  for (const auto& r : pick(l, 0xffffffffU, 8)) {
    for (std::uint16_t s : bad_sizes) {
      Bytes b = orig;
      put16(b, r.offset + 6, s);
      w.emit(b, "record-at-" + std::to_string(r.offset) + "-size-" + std::to_string(s));
    }
    Bytes b = orig;
    put16(b, r.offset + 6, static_cast<std::uint16_t>(r.size + 8));
    w.emit(b, "record-at-" + std::to_string(r.offset) + "-size-plus8");
  }
  {
    // The last record's size runs past the end of the data section and the file.
    if (!l.records.empty()) {
      Bytes b = orig;
      put16(b, l.records.back().offset + 6, 0xfff8);
      w.emit(b, "last-record-size-past-eof");
    }
  }
  const std::uint32_t bad_types[] = {0, 30, 63, 80, 99, 4096, 0xffff, 0x7fffffff, 0xffffffffU};
  for (const auto& r : pick(l, 0xffffffffU, 5)) {
    for (std::uint32_t t : bad_types) {
      Bytes b = orig;
      put32(b, r.offset, t);
      w.emit(b, "record-at-" + std::to_string(r.offset) + "-type-" + hex(t));
    }
  }
  // Known user types (>= 64) with garbage bodies: every one perf defines.
  if (l.records.size() > 2) {
    const Record& r = l.records[l.records.size() / 2];
    for (std::uint32_t t = 64; t <= 83; ++t) {
      Bytes b = orig;
      put32(b, r.offset, t);
      w.emit(b, "record-at-" + std::to_string(r.offset) + "-as-user-type-" + std::to_string(t));
    }
    for (std::uint32_t t = 1; t <= 21; ++t) {  // kernel types with a sample's body
      Bytes b = orig;
      put32(b, r.offset, t);
      w.emit(b, "record-at-" + std::to_string(r.offset) + "-as-type-" + std::to_string(t));
    }
  }

  // 6. Huge counts inside samples: callchain nr.
  for (const auto& r : pick(l, 9, 6)) {
    const std::size_t nr = callchain_nr_offset(orig, l, r);
    if (nr == 0) continue;
    const std::uint64_t values[] = {big, 1ULL << 32, std::uint64_t{r.size} / 8 + 1, 0};
    for (std::uint64_t v : values) {
      Bytes b = orig;
      put64(b, nr, v);
      w.emit(b, "sample-at-" + std::to_string(r.offset) + "-callchain-nr-" + hex(v));
    }
    // Callchain entries that are context markers only / all ones.
    Bytes b = orig;
    const std::uint64_t n = get64(orig, nr);
    for (std::uint64_t k = 0; k < n && nr + 8 + 8 * k + 8 <= r.offset + r.size; ++k)
      put64(b, static_cast<std::size_t>(nr + 8 + 8 * k), k % 2 ? big : 0xfffffffffffffe00ULL);
    w.emit(b, "sample-at-" + std::to_string(r.offset) + "-callchain-markers");
  }
  // Sample fields all ones (pid/tid, time, ip, period).
  for (const auto& r : pick(l, 9, 4)) {
    Bytes b = orig;
    for (std::size_t k = r.offset + 8; k + 8 <= r.offset + r.size && k < r.offset + 48; k += 8)
      put64(b, k, big);
    w.emit(b, "sample-at-" + std::to_string(r.offset) + "-fields-all-ones");
  }

  // 7. Strings without a NUL: COMM (3), MMAP (1), MMAP2 (10) bodies.
  for (std::uint32_t type : {3U, 1U, 10U}) {
    for (const auto& r : pick(l, type, 4)) {
      Bytes b = orig;
      // The string runs to the end of the record (sample_id_all tail included).
      const std::size_t from = r.offset + (type == 3 ? 16 : type == 1 ? 40 : 64);
      for (std::size_t k = from; k < r.offset + r.size; ++k)
        if (b[k] == 0) b[k] = 'B';
      w.emit(b, "record-type" + std::to_string(type) + "-at-" + std::to_string(r.offset) +
                    "-string-no-nul");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: perfx_damage INPUT OUTDIR [MAX_VARIANTS]\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "perfx_damage: cannot read %s\n", argv[1]);
    return 1;
  }
  const Bytes orig{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (orig.size() < kHeaderSize || get64(orig, 0) != kMagic) {
    std::fprintf(stderr, "perfx_damage: %s is not a little-endian file-mode perf.data\n", argv[1]);
    return 1;
  }
  const std::size_t max = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 400;
  Writer w(argv[2], max);
  const Layout l = parse(orig);
  const std::uint64_t fsize = orig.size();
  std::mt19937_64 rng(0x9e3779b97f4a7c15ULL);

  w.start_counting();
  systematic(orig, l, w);
  w.start_emitting();
  systematic(orig, l, w);

  // 8. Random damage: single bit flips, byte smashes, runs of 0xff (fixed seed).
  while (!w.full()) {
    Bytes b = orig;
    const auto kind = rng() % 4;
    std::string what;
    if (kind == 0 || kind == 1) {
      // Bias half of the flips to the header + attrs + first records.
      const std::uint64_t span =
          kind == 0 ? fsize : std::min<std::uint64_t>(fsize, l.data_off + 512);
      const auto off = static_cast<std::size_t>(rng() % span);
      const auto bit = static_cast<unsigned>(rng() % 8);
      b[off] = static_cast<unsigned char>(b[off] ^ (1U << bit));
      what = "bitflip-" + std::to_string(off) + "-" + std::to_string(bit);
    } else if (kind == 2) {
      const auto off = static_cast<std::size_t>(rng() % fsize);
      const std::size_t n = std::min<std::size_t>(1 + rng() % 16, b.size() - off);
      for (std::size_t k = 0; k < n; ++k) b[off + k] = static_cast<unsigned char>(rng());
      what = "smash-" + std::to_string(off) + "-" + std::to_string(n);
    } else {
      const auto off = static_cast<std::size_t>(rng() % fsize);
      const std::size_t n = std::min<std::size_t>(8 * (1 + rng() % 4), b.size() - off);
      std::fill(b.begin() + static_cast<std::ptrdiff_t>(off),
                b.begin() + static_cast<std::ptrdiff_t>(off + n), 0xff);
      what = "ones-" + std::to_string(off) + "-" + std::to_string(n);
    }
    w.emit_random(b, what);
  }
  return 0;
}
