#pragma once
/// \file
/// The system lookups the event parser needs, behind an interface so the parser stays
/// pure: PMUs from sysfs, tracepoint ids from tracefs, uprobe symbol offsets from ELF
/// files. The real implementation is sys::SystemResolver (src/sys/event_resolver.hpp);
/// unit tests use a fake with canned data.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfx/error.hpp"

namespace perfx::event {

/// Which attr word a sysfs format field writes.
enum class ConfigWord : std::uint8_t { kConfig, kConfig1, kConfig2, kConfig3 };

/// The attr word a PMU term or format file names: "config", "config1", "config2" or
/// "config3"; nullopt for any other name.
[[nodiscard]] std::optional<ConfigWord> config_word(std::string_view name) noexcept;

/// One sysfs `format/<name>` file: "config:0-7,32-35" = field `name` occupies bits 0..7
/// then 32..35 of attr.config (low bits of the value go to the first range).
struct FormatField {
  std::string name;
  ConfigWord word = ConfigWord::kConfig;
  /// Inclusive bit ranges {lo, hi}, lowest value bits first. Each 0 <= lo <= hi <= 63.
  std::vector<std::pair<unsigned, unsigned>> ranges;

  /// Total width in bits (sum of the ranges).
  [[nodiscard]] unsigned width() const noexcept;
};

/// Parses the text of a sysfs format file ("config:0-63", "config1:0-7,32-40",
/// "config:5"). Errors (kMalformedData) name the field and the bad text.
Result<FormatField> parse_format_field(std::string_view name, std::string_view text);

/// Writes `value` into `field`'s bits of the matching config word of `words` (indexed by
/// ConfigWord). Fails (kInvalidArgument) when the value does not fit the field's width.
Result<void> apply_format_field(const FormatField& field, std::uint64_t value,
                                std::uint64_t (&words)[4]);

/// One sysfs `events/<name>` alias: "tsc" -> "event=0x00".
struct PmuAlias {
  std::string name;
  std::string terms;        ///< the file's content, trimmed ("event=0x00")
  std::string unit;         ///< events/<name>.unit, if present
  std::string scale;        ///< events/<name>.scale, if present
  std::string description;  ///< free text, may be empty
};

/// A dynamic PMU in /sys/bus/event_source/devices/<name>.
struct PmuInfo {
  std::string name;
  std::uint32_t type = 0;           ///< the `type` file: attr.type for this PMU
  std::vector<FormatField> format;  ///< format/*, sorted by name
  std::vector<PmuAlias> aliases;    ///< events/* (without .unit/.scale files), by name
};

/// A tracepoint as found in tracefs events/<subsys>/<name>/.
struct TracepointName {
  std::string subsys;
  std::string name;
};

/// System lookups for the event parser. Implementations must be usable from one
/// thread at a time; results may be cached.
class Resolver {
 public:
  virtual ~Resolver() = default;

  /// The PMU called `name`. kNotFound when there is none (message names it).
  [[nodiscard]] virtual Result<PmuInfo> find_pmu(std::string_view name) const = 0;
  /// Names of every PMU on the system, sorted.
  [[nodiscard]] virtual std::vector<std::string> pmu_names() const = 0;

  /// The tracefs id of `subsys:name`. kNotFound for an unknown tracepoint; when tracefs
  /// is not mounted, kNotFound with a message saying how to mount it.
  [[nodiscard]] virtual Result<std::uint64_t> tracepoint_id(std::string_view subsys,
                                                            std::string_view name) const = 0;
  /// Every tracepoint, sorted by subsys then name (for globs and `perfx list`).
  [[nodiscard]] virtual Result<std::vector<TracepointName>> tracepoints() const = 0;

  /// File offset of `symbol` in the ELF file at `path` (the value uprobes take in
  /// config2). kNotFound for a missing file or symbol, kMalformedData for a non-ELF file.
  [[nodiscard]] virtual Result<std::uint64_t> uprobe_offset(std::string_view path,
                                                            std::string_view symbol) const = 0;
};

}  // namespace perfx::event
