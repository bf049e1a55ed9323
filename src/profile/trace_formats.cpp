#include "profile/trace_formats.hpp"

#include "symbol/file_text.hpp"

#ifdef PERFX_HAVE_TRACEEVENT
#include <event-parse.h>
#include <trace-seq.h>
#endif

namespace perfx::profile {

#ifdef PERFX_HAVE_TRACEEVENT

struct TraceFormats::Impl {
  Impl() : tep(tep_alloc()) {
    if (tep != nullptr) tep_set_long_size(tep, 8);
  }
  ~Impl() {
    if (tep != nullptr) tep_free(tep);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  tep_handle* tep;
  std::vector<std::byte> buf;
};

namespace {

// "sys:name" -> {sys, name}; nullopt without a colon.
std::optional<std::pair<std::string, std::string>> split_event(const std::string& event) {
  const auto colon = event.find(':');
  if (colon == std::string::npos) return std::nullopt;
  return std::pair{event.substr(0, colon), event.substr(colon + 1)};
}

}  // namespace

bool TraceFormats::load(const std::string& tracefs, const std::string& event) {
  const auto parts = split_event(event);
  if (impl_->tep == nullptr || !parts) return false;
  const auto& [sys, name] = *parts;
  auto text = symbol::read_text_file(tracefs + "/events/" + sys + "/" + name + "/format");
  if (!text) return false;
  return tep_parse_event(impl_->tep, text->data(), text->size(), sys.c_str()) == TEP_ERRNO__SUCCESS;
}

std::string TraceFormats::format(std::span<const std::byte> raw, int cpu, std::uint64_t time,
                                 bool raw_fields) {
  if (impl_->tep == nullptr || raw.size() < 2) return {};
  tep_record rec{};
  rec.ts = time;
  rec.cpu = cpu;
  rec.size = static_cast<int>(raw.size());
  rec.record_size = rec.size;
  impl_->buf.assign(raw.begin(), raw.end());
  rec.data = impl_->buf.data();
  trace_seq seq;
  trace_seq_init(&seq);
  if (!raw_fields) {
    tep_print_event(impl_->tep, &seq, &rec, "%s", TEP_PRINT_INFO);
  } else if (tep_event* ev = tep_find_event_by_record(impl_->tep, &rec); ev != nullptr) {
    tep_print_fields(&seq, rec.data, rec.size, ev);
  }
  trace_seq_terminate(&seq);
  std::string out(seq.buffer, seq.len);
  trace_seq_destroy(&seq);
  return out;
}

std::optional<std::vector<std::string>> TraceFormats::fields(const std::string& tracefs,
                                                             const std::string& event) {
  const auto parts = split_event(event);
  if (impl_->tep == nullptr || !parts) return std::nullopt;
  const auto& [sys, name] = *parts;
  tep_event* ev = tep_find_event_by_name(impl_->tep, sys.c_str(), name.c_str());
  if (ev == nullptr && load(tracefs, event))
    ev = tep_find_event_by_name(impl_->tep, sys.c_str(), name.c_str());
  if (ev == nullptr) return std::nullopt;
  std::vector<std::string> out;
  for (const tep_format_field* f = ev->format.fields; f != nullptr; f = f->next)
    out.emplace_back(f->name);
  return out;
}

#else

struct TraceFormats::Impl {};

bool TraceFormats::load(const std::string&, const std::string&) { return false; }

std::string TraceFormats::format(std::span<const std::byte>, int, std::uint64_t, bool) {
  return {};
}

std::optional<std::vector<std::string>> TraceFormats::fields(const std::string&,
                                                             const std::string&) {
  return std::nullopt;
}

#endif

TraceFormats::TraceFormats() : impl_(std::make_unique<Impl>()) {}
TraceFormats::~TraceFormats() = default;
TraceFormats::TraceFormats(TraceFormats&&) noexcept = default;
TraceFormats& TraceFormats::operator=(TraceFormats&&) noexcept = default;

}  // namespace perfx::profile
