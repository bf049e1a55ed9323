// The public decoding facade (include/perfx/records.hpp): RecordDecoder is an AttrTable
// plus decode_record(); RingRecordReader is a RingReader pass that decodes each record it
// walks. No decoding logic of its own: the record module does it.
#include <utility>

#include "perfx/records.hpp"
#include "record/decoder.hpp"
#include "record/ring_reader.hpp"
#include "record/sample_layout.hpp"

namespace perfx {

struct RecordDecoder::Impl {
  record::AttrTable attrs;
};

RecordDecoder::RecordDecoder() : impl_(std::make_unique<Impl>()) {}
RecordDecoder::RecordDecoder(RecordDecoder&&) noexcept = default;
RecordDecoder& RecordDecoder::operator=(RecordDecoder&&) noexcept = default;
RecordDecoder::~RecordDecoder() = default;

int RecordDecoder::add(const raw::EventAttr& attr, std::span<const std::uint64_t> ids,
                       std::string name) {
  return impl_->attrs.add(attr, ids, std::move(name));
}

std::size_t RecordDecoder::size() const noexcept { return impl_->attrs.size(); }

const raw::EventAttr& RecordDecoder::attr(std::size_t index) const noexcept {
  return impl_->attrs[index].attr;
}

const std::string& RecordDecoder::name(std::size_t index) const noexcept {
  return impl_->attrs[index].name;
}

Result<void> RecordDecoder::decode(std::span<const std::byte> bytes, record::Record& out, bool swap,
                                   std::uint64_t offset) const {
  return record::decode_record(bytes, impl_->attrs, {.swap = swap, .offset = offset}, out);
}

struct RingRecordReader::Impl {
  Impl(std::span<const std::byte> data, const RecordDecoder& d) : ring(data), decoder(&d) {}
  record::RingReader ring;
  const RecordDecoder* decoder;
  record::Record rec;
  std::span<const std::byte> bytes;
  std::uint64_t decoded = 0;
  std::uint64_t malformed = 0;
  std::string last_error;
};

RingRecordReader::RingRecordReader(std::span<const std::byte> data, const RecordDecoder& decoder)
    : impl_(std::make_unique<Impl>(data, decoder)) {}
RingRecordReader::RingRecordReader(RingRecordReader&&) noexcept = default;
RingRecordReader& RingRecordReader::operator=(RingRecordReader&&) noexcept = default;
RingRecordReader::~RingRecordReader() = default;

void RingRecordReader::begin(std::uint64_t head, std::uint64_t tail) noexcept {
  impl_->bytes = {};
  impl_->ring.begin(head, tail);
}

const record::Record* RingRecordReader::next() {
  Impl& m = *impl_;
  for (;;) {
    const std::uint64_t at = m.ring.position();
    auto bytes = m.ring.next();
    if (!bytes) {
      m.bytes = {};
      return nullptr;
    }
    m.bytes = *bytes;
    auto ok = m.decoder->decode(*bytes, m.rec, false, at);
    if (ok) {
      ++m.decoded;
      return &m.rec;
    }
    // The header was sane (the ring reader checked it), so the walk goes on after it.
    ++m.malformed;
    m.last_error = ok.error().message();
  }
}

std::span<const std::byte> RingRecordReader::bytes() const noexcept { return impl_->bytes; }

std::uint64_t RingRecordReader::position() const noexcept { return impl_->ring.position(); }

RingRecordStats RingRecordReader::stats() const noexcept {
  const record::RingCounters& c = impl_->ring.counters();
  RingRecordStats s;
  s.records = impl_->decoded;
  s.samples = c.samples;
  s.bytes = c.bytes;
  s.lost_records = c.lost_records;
  s.lost_samples = c.lost_samples;
  s.throttle = c.throttle;
  s.unthrottle = c.unthrottle;
  s.wrapped_records = c.wrapped_records;
  s.malformed_records = impl_->malformed;
  s.corrupt_events = c.corrupt_events;
  s.dropped_bytes = c.dropped_bytes;
  return s;
}

const std::string& RingRecordReader::last_error() const noexcept { return impl_->last_error; }

}  // namespace perfx
