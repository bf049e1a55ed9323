#include "report/flamegraph_svg.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/export_util.hpp"
#include "report/folded.hpp"

namespace perfx::report {
namespace {

constexpr double kFrameHeight = 16.0;
constexpr double kFontSize = 12.0;
constexpr double kFontWidth = 0.59;  // average glyph width / font size (Verdana)
constexpr double kPadX = 10.0;
constexpr double kPadTop = 48.0;
constexpr double kPadBottom = 24.0;
constexpr double kMinWidth = 0.1;  // px: narrower frames are not drawn

double name_hash(std::string_view s) {
  std::uint32_t h = 0;
  for (char c : s) h = h * 31u + static_cast<unsigned char>(c);
  return static_cast<double>(h % 1000u) / 1000.0;
}

std::string colour(FoldedKind kind, std::string_view name) {
  const double h = name_hash(name);
  auto c = [](double base, double span, double t) {
    return static_cast<int>(std::lround(base + span * t));
  };
  switch (kind) {
    // FlameGraph's --color=java palette: user red, kernel orange, JIT green.
    case FoldedKind::kUser:
      return fmt::format("rgb({},{},{})", c(200, 55, h), c(50, 80, h), c(50, 80, h));
    case FoldedKind::kKernel:
      return fmt::format("rgb({},{},0)", c(190, 65, h), c(90, 65, h));
    case FoldedKind::kJit:
      return fmt::format("rgb({},{},{})", c(50, 60, h), c(170, 60, h), c(50, 50, h));
    case FoldedKind::kComm:
      return fmt::format("rgb({},{},{})", c(120, 40, h), c(160, 40, h), c(220, 30, h));
    case FoldedKind::kUnknown:
      break;
  }
  return fmt::format("rgb({0},{0},{0})", c(170, 30, h));
}

}  // namespace

Result<void> write_flamegraph_svg(const profile::Profile& profile, std::ostream& out,
                                  const ExportOptions& options) {
  ExportOptions fold_options = options;
  fold_options.annotate_kernel = false;
  PERFX_TRY(folded, fold(profile, fold_options));
  const std::vector<FlameNode> nodes = build_flame_tree(folded, false);

  // Depth of each node (parents come before children in `nodes`).
  std::vector<std::uint32_t> depth(nodes.size(), 0);
  std::uint32_t max_depth = 0;
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    depth[i] = depth[nodes[i].parent] + 1;
    max_depth = std::max(max_depth, depth[i]);
  }
  const double width = std::max<double>(200.0, options.width);
  const double chart_width = width - 2 * kPadX;
  const double height = kPadTop + kPadBottom + (max_depth + 1) * kFrameHeight;
  const double total = static_cast<double>(std::max<std::uint64_t>(nodes[0].value, 1));
  const double scale = chart_width / total;
  const std::string title = detail::display_title(profile, options);

  std::string svg;
  fmt::format_to(std::back_inserter(svg),
                 "<?xml version=\"1.0\" standalone=\"no\"?>\n"
                 "<svg version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                 "xmlns=\"http://www.w3.org/2000/svg\">\n"
                 "<style>text {{ font-family: Verdana, sans-serif; font-size: {2}px; "
                 "fill: rgb(0,0,0); }} rect {{ stroke: white; stroke-width: 0.5; }}</style>\n"
                 "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"rgb(248,248,248)\" "
                 "stroke=\"none\"/>\n"
                 "<text x=\"{3}\" y=\"24\" text-anchor=\"middle\" "
                 "style=\"font-size:17px\">",
                 width, height, kFontSize, width / 2);
  detail::append_xml_escaped(svg, title);
  const std::string event_name =
      folded.event < profile.events.size() ? profile.events[folded.event].name : "samples";
  svg += "</text>\n";
  fmt::format_to(std::back_inserter(svg),
                 "<text x=\"{}\" y=\"40\" text-anchor=\"middle\" fill=\"rgb(80,80,80)\">event ",
                 width / 2);
  detail::append_xml_escaped(svg, event_name);
  fmt::format_to(std::back_inserter(svg), ": {} samples</text>\n", folded.total_samples);

  // Lay out children left to right inside their parent, as flamegraph.pl does.
  std::vector<double> x(nodes.size(), 0.0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    double cx = x[i];
    for (std::uint32_t child : nodes[i].children) {
      x[child] = cx;
      cx += static_cast<double>(nodes[child].value) * scale;
    }
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    const double w = static_cast<double>(node.value) * scale;
    if (w < kMinWidth) continue;
    const double level = options.inverted ? depth[i] : max_depth - depth[i];
    const double y = kPadTop + level * kFrameHeight;
    const std::string_view name = i == 0 ? std::string_view("all") : folded.names[node.name];
    const FoldedKind kind = i == 0 ? FoldedKind::kUnknown : folded.kinds[node.name];
    svg += "<g><title>";
    detail::append_xml_escaped(svg, name);
    fmt::format_to(std::back_inserter(svg), " ({} samples, {:.2f}%)</title>", node.value,
                   100.0 * static_cast<double>(node.value) / total);
    fmt::format_to(std::back_inserter(svg),
                   "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                   "fill=\"{}\" rx=\"2\" ry=\"2\"/>",
                   kPadX + x[i], y, w, kFrameHeight - 1,
                   i == 0 ? "rgb(200,200,200)" : colour(kind, name));
    const auto fit = static_cast<std::size_t>(w / (kFontSize * kFontWidth));
    if (fit >= 3) {
      fmt::format_to(std::back_inserter(svg), "<text x=\"{:.1f}\" y=\"{:.1f}\">", kPadX + x[i] + 3,
                     y + kFrameHeight - 4.5);
      if (name.size() <= fit) {
        detail::append_xml_escaped(svg, name);
      } else {
        std::size_t cut = fit - 2;
        // Never split a UTF-8 sequence.
        while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xc0u) == 0x80u) --cut;
        detail::append_xml_escaped(svg, name.substr(0, cut));
        svg += "..";
      }
      svg += "</text>";
    }
    svg += "</g>\n";
  }
  svg += "</svg>\n";
  return detail::write_all(out, svg);
}

}  // namespace perfx::report
