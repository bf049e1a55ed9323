#pragma once
/// \file
/// The typed records live in the public header perfx/records.hpp (namespace
/// perfx::record, shared by the decoder, the encoder and the public API). This header
/// adds what only the library needs.

#include <cstdint>
#include <span>

#include "perfx/records.hpp"

namespace perfx::record {

/// Records whose payload continues past header.size (the "known variable tails"):
/// HEADER_TRACING_DATA and AUXTRACE. Returns the extra bytes that follow, 0 otherwise.
[[nodiscard]] std::uint64_t trailing_payload_size(const Header& h,
                                                  std::span<const std::byte> record,
                                                  bool swap) noexcept;

}  // namespace perfx::record
