// Fuzz target: the record decoder (record::decode_record / decode_sample /
// decode_sample_id), the attr copy (attr_from_bytes), the encoder round trip, and the
// feature-section decoder (decode_feature + format_header).
//
// Input layout:
//   byte 0: flags. bit0 = other byte order; bit1 = feature mode; bit2 = a second attr;
//           bit3 = decode with the first attr's layout instead of the attr table.
//   byte 1: record mode: length of the first attr's bytes (mod 137: attrs shorter than the
//           struct are zero-filled, as in perf.data); feature mode: the feature bit.
//   record mode: attr bytes, [1 length byte + second attr bytes], then records back to back.
//   feature mode: the rest is the feature section.
// Invariants: no crash; a decoded record's views lie inside the input; a record that
// decodes and re-encodes decodes again to the same type.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "record/decoder.hpp"
#include "record/encoder.hpp"
#include "record/features.hpp"
#include "record/sample_layout.hpp"

namespace {

using perfx::record::AttrTable;
using perfx::record::Record;

void check(bool cond) {
  if (!cond) __builtin_trap();
}

struct Bounds {
  const std::byte* lo;
  const std::byte* hi;
  bool inside(std::span<const std::byte> s) const {
    return s.empty() || (s.data() >= lo && s.data() + s.size() <= hi);
  }
};

// Reads every byte a decoded record points at (ASan checks the reads).
std::uint64_t touch(const Record& rec, const Bounds& b) {
  std::uint64_t sum = 0;
  if (const auto* s = rec.get<perfx::record::Sample>()) {
    for (std::size_t i = 0; i < s->callchain.size(); ++i) sum += s->callchain[i];
    check(b.inside(s->raw) && b.inside(s->aux) && b.inside(s->stack_user.data));
    for (auto byte : s->raw) sum += static_cast<std::uint8_t>(byte);
    for (auto byte : s->stack_user.data) sum += static_cast<std::uint8_t>(byte);
  } else if (const auto* m = rec.get<perfx::record::Mmap>()) {
    for (char c : m->filename) sum += static_cast<unsigned char>(c);
  } else if (const auto* m2 = rec.get<perfx::record::Mmap2>()) {
    for (char c : m2->filename) sum += static_cast<unsigned char>(c);
  } else if (const auto* c = rec.get<perfx::record::Comm>()) {
    for (char ch : c->comm) sum += static_cast<unsigned char>(ch);
  } else if (const auto* u = rec.get<perfx::record::Unknown>()) {
    check(b.inside(u->payload));
  } else if (const auto* eu = rec.get<perfx::record::EventUpdate>()) {
    check(b.inside(eu->data));
    sum += eu->text().size() + eu->cpus().cpus().size() + (eu->scale() != 0.0 ? 1 : 0);
  }
  return sum;
}

void round_trip(const Record& rec, const perfx::record::SampleLayout& layout, bool swap) {
  if (swap) return;  // the encoder writes native byte order only
  std::vector<std::byte> out;
  if (!perfx::record::encode_record(rec, layout, out)) return;
  // (user records such as COMPRESSED need not be 8-byte multiples)
  check(out.size() >= 8 && out.size() <= 0xffff);
  auto again = perfx::record::decode_record(out, layout);
  check(again.has_value());
  check(again->header.type == rec.header.type);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint8_t flags = data[0];
  const bool swap = (flags & 1) != 0;
  std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data), size);
  const Bounds bounds{in.data(), in.data() + in.size()};

  if (flags & 2) {
    perfx::record::Features features;
    const int bit = data[1] % 40;
    if (perfx::record::decode_feature(bit, in.subspan(2), swap, 0x100, features)) {
      (void)perfx::record::format_header(features, {}, {});
      (void)perfx::record::encode_feature(bit, features);
    }
    return 0;
  }

  std::size_t pos = 2;
  AttrTable attrs;
  auto add_attr = [&](std::size_t len) {
    len = std::min(len, size - pos);
    const auto attr = perfx::record::attr_from_bytes(in.subspan(pos, len), swap);
    pos += len;
    const std::uint64_t ids[] = {attrs.size() + 1, 100 + attrs.size()};
    attrs.add(attr, ids, "fuzz");
  };
  add_attr(data[1] % 137);
  if ((flags & 4) && pos < size) {
    const std::size_t len = static_cast<std::size_t>(data[pos]) % 137;
    ++pos;
    add_attr(len);
  }
  const auto& layout = attrs[0].layout;

  std::span<const std::byte> rest = in.subspan(pos);
  std::uint64_t offset = pos;
  while (rest.size() >= 8) {
    const auto h = perfx::record::peek_header(rest, swap);
    check(h.has_value());
    const perfx::record::DecodeOptions opts{swap, offset};
    auto rec = (flags & 8) ? perfx::record::decode_record(rest, layout, opts)
                           : perfx::record::decode_record(rest, attrs, opts);
    if (rec) {
      (void)touch(*rec, bounds);
      round_trip(*rec, layout, swap);
    } else {
      check(!rec.error().message().empty());
    }
    if (h->size >= 8 && h->size <= rest.size()) {
      const auto whole = rest.first(h->size);
      if (h->type == 9) {
        if (auto s = perfx::record::decode_sample(whole, layout, opts)) {
          for (std::size_t i = 0; i < s->callchain.size(); ++i) (void)s->callchain[i];
        }
      } else {
        (void)perfx::record::decode_sample_id(whole, layout, opts);
      }
      (void)perfx::record::trailing_payload_size(*h, whole, swap);
    }
    const std::size_t step = h->size >= 8 ? h->size : 8;
    if (step > rest.size()) break;
    rest = rest.subspan(step);
    offset += step;
  }
  return 0;
}
