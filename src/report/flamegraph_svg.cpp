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
constexpr double kMinWidth = 0.5;  // px: narrower frames are not drawn (as the HTML page)

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
    case FoldedKind::kOffCpu:  // FlameGraph's --color=io: off-CPU time in blues
      return fmt::format("rgb({},{},{})", c(60, 40, h), c(90, 50, h), c(200, 55, h));
    case FoldedKind::kRunQueue:  // waiting for a CPU: purples
      return fmt::format("rgb({},{},{})", c(160, 40, h), c(110, 40, h), c(200, 55, h));
    case FoldedKind::kUnknown:
      break;
  }
  return fmt::format("rgb({0},{0},{0})", c(170, 30, h));
}

// flamegraph.pl's interactivity, rewritten small: click a frame to zoom to it (its callers
// stay as faded full-width bars, "Reset Zoom" or a click on them goes back), Search (the
// button, Ctrl-F, or ?s=regex in the URL) paints matches magenta and prints the share of
// samples they cover. Frames are <g><title>name (N samples, P%)</title><rect/><text/></g>
// inside <g id="frames">; the first lines of the script (written above) give the layout.
constexpr std::string_view kSvgScript = R"js("use strict";
var frames, unzoombtn, matchedtxt, detailstxt, searchbtn, current = null, searching = false;
function init(evt) {
  frames = document.getElementById("frames");
  unzoombtn = document.getElementById("unzoom");
  matchedtxt = document.getElementById("matched");
  detailstxt = document.getElementById("details");
  searchbtn = document.getElementById("search");
  for (const g of frames.children) {
    const r = g.querySelector("rect");
    g.dataset.x = r.getAttribute("x");
    g.dataset.w = r.getAttribute("width");
    g.dataset.fill = r.getAttribute("fill");
    g.addEventListener("click", () => g.classList.contains("parent") || g === frames.children[0] ? unzoom() : zoom(g));
    g.addEventListener("mouseover", () => { detailstxt.textContent = "Function: " + g.querySelector("title").textContent; });
    g.addEventListener("mouseout", () => { detailstxt.textContent = " "; });
  }
  unzoombtn.addEventListener("click", unzoom);
  searchbtn.addEventListener("click", search_prompt);
  window.addEventListener("keydown", (e) => {
    if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) { e.preventDefault(); search_prompt(); }
  });
  const s = new URLSearchParams(document.location.search).get("s");
  if (s) search(s);
}
function name_of(g) {
  return g.querySelector("title").textContent.replace(/ \([0-9]+ samples, [0-9.]+%\)$/, "");
}
function place(g, x, w) {
  const r = g.querySelector("rect"), t = g.querySelector("text");
  r.setAttribute("x", x.toFixed(2));
  r.setAttribute("width", w.toFixed(2));
  t.setAttribute("x", (x + 3).toFixed(2));
  const name = name_of(g), fit = Math.floor(w / (FONT * FONT_WIDTH));
  t.textContent = fit < 3 ? "" : name.length <= fit ? name : name.substring(0, fit - 2) + "..";
}
function zoom(node) {
  const xmin = +node.dataset.x, w = +node.dataset.w, xmax = xmin + w;
  const ymin = +node.querySelector("rect").getAttribute("y"), ratio = CHART / w, fudge = 0.05;
  current = node;
  unzoombtn.style.display = "";
  for (const g of frames.children) {
    const ex = +g.dataset.x, ew = +g.dataset.w, ey = +g.querySelector("rect").getAttribute("y");
    const rootward = INVERTED ? ey < ymin : ey > ymin;
    g.classList.remove("parent");
    if (rootward && ex <= xmin + fudge && ex + ew + fudge >= xmax) {
      g.classList.add("parent");  // a caller: full width, faded
      g.style.display = "";
      place(g, XPAD, CHART);
    } else if (!rootward && ex + fudge >= xmin && ex + ew <= xmax + fudge) {
      g.style.display = "";  // the frame and its callees, scaled
      place(g, XPAD + (ex - xmin) * ratio, ew * ratio);
    } else {
      g.style.display = "none";
    }
  }
}
function unzoom() {
  current = null;
  unzoombtn.style.display = "none";
  for (const g of frames.children) {
    g.classList.remove("parent");
    g.style.display = "";
    place(g, +g.dataset.x, +g.dataset.w);
  }
}
function search_prompt() {
  if (searching) { search(""); return; }  // the button reads "Reset Search"
  const term = prompt("Enter a search term (regexp allowed, eg: ^ext4_)", "");
  if (term !== null) search(term);
}
function search(term) {
  let re;
  try { re = new RegExp(term); } catch (e) { re = new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")); }
  const spans = [];
  for (const g of frames.children) {
    const r = g.querySelector("rect");
    const hit = term !== "" && g !== frames.children[0] && re.test(name_of(g));
    r.setAttribute("fill", hit ? "rgb(230,0,230)" : g.dataset.fill);
    if (hit) spans.push([+g.dataset.x, +g.dataset.w]);
  }
  // The share of samples under any match: the union of the matched frames' spans (a match
  // nested in another match is counted once), as flamegraph.pl computes it.
  spans.sort((a, b) => a[0] - b[0]);
  let covered = 0, end = -Infinity;
  for (const [x, w] of spans) {
    if (x + w <= end) continue;
    covered += x + w - Math.max(x, end);
    end = x + w;
  }
  searching = term !== "";
  searchbtn.textContent = searching ? "Reset Search" : "Search";
  matchedtxt.textContent = term === "" ? " " : "Matched: " + (100 * covered / CHART).toFixed(1) + "%";
  return matchedtxt.textContent;
}
)js";

}  // namespace

Result<void> write_flamegraph_svg(const profile::Profile& profile, std::ostream& out,
                                  const ExportOptions& options) {
  ExportOptions fold_options = options;
  fold_options.annotate_kernel = false;
  PERFX_TRY(folded, fold(profile, fold_options));
  const std::vector<FlameNode> nodes = build_flame_tree(folded, false);

  const double width = std::max<double>(200.0, options.width);
  const double chart_width = width - 2 * kPadX;
  const double total = static_cast<double>(std::max<std::uint64_t>(nodes[0].value, 1));
  const double scale = chart_width / total;
  // Depth of each node (parents come before children in `nodes`). The picture is as tall
  // as the deepest frame wide enough to draw, not the deepest stack: one garbage
  // 128-frame sample must not push the whole graph below the first screen.
  std::vector<std::uint32_t> depth(nodes.size(), 0);
  std::uint32_t max_depth = 0;
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    depth[i] = depth[nodes[i].parent] + 1;
    if (static_cast<double>(nodes[i].value) * scale >= kMinWidth)
      max_depth = std::max(max_depth, depth[i]);
  }
  const double height = kPadTop + kPadBottom + (max_depth + 1) * kFrameHeight;
  const std::string title = detail::display_title(profile, options);

  std::string svg;
  fmt::format_to(std::back_inserter(svg),
                 "<?xml version=\"1.0\" standalone=\"no\"?>\n"
                 "<svg version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                 "onload=\"init(evt)\" xmlns=\"http://www.w3.org/2000/svg\">\n"
                 "<style>text {{ font-family: Verdana, sans-serif; font-size: {2}px; "
                 "fill: rgb(0,0,0); }} rect {{ stroke: white; stroke-width: 0.5; }} "
                 "#frames > g {{ cursor: pointer; }} #frames > g:hover > rect {{ stroke: black; }} "
                 ".parent {{ opacity: 0.5; }} .button {{ cursor: pointer; }} "
                 ".button:hover {{ fill: rgb(0,0,160); }}</style>\n"
                 "<script type=\"text/ecmascript\"><![CDATA[\n"
                 "var XPAD = {3}, CHART = {4}, FONT = {2}, FONT_WIDTH = {5}, INVERTED = {6};\n",
                 width, height, kFontSize, kPadX, chart_width, kFontWidth,
                 options.inverted ? "true" : "false");
  svg += kSvgScript;
  svg += "]]></script>\n";
  fmt::format_to(std::back_inserter(svg),
                 "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"rgb(248,248,248)\" "
                 "stroke=\"none\"/>\n"
                 "<text x=\"{2}\" y=\"24\" text-anchor=\"middle\" "
                 "style=\"font-size:17px\">",
                 width, height, width / 2);
  detail::append_xml_escaped(svg, title);
  const std::string event_name =
      folded.event < profile.events.size() ? profile.events[folded.event].name : "samples";
  svg += "</text>\n";
  fmt::format_to(std::back_inserter(svg),
                 "<text x=\"{}\" y=\"40\" text-anchor=\"middle\" fill=\"rgb(80,80,80)\">event ",
                 width / 2);
  detail::append_xml_escaped(svg, event_name);
  if (folded.weighted) {
    fmt::format_to(std::back_inserter(svg),
                   ": {:.3f} s on and off CPU (off-CPU frames in blue)</text>\n",
                   static_cast<double>(nodes[0].value) / 1e9);
  } else {
    fmt::format_to(std::back_inserter(svg), ": {} samples</text>\n", folded.total_samples);
  }
  // flamegraph.pl's controls: Reset Zoom (shown when zoomed), Search, the matched share
  // and the details of the frame under the mouse.
  fmt::format_to(std::back_inserter(svg),
                 "<text id=\"unzoom\" class=\"button\" x=\"{0}\" y=\"24\" "
                 "style=\"display:none\">Reset Zoom</text>\n"
                 "<text id=\"search\" class=\"button\" x=\"{1}\" y=\"24\" "
                 "text-anchor=\"end\">Search</text>\n"
                 "<text id=\"matched\" x=\"{1}\" y=\"{2}\" text-anchor=\"end\"> </text>\n"
                 "<text id=\"details\" x=\"{0}\" y=\"{2}\"> </text>\n"
                 "<g id=\"frames\">\n",
                 kPadX, width - kPadX, height - 8);

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
    fmt::format_to(std::back_inserter(svg), " ({} {}, {:.2f}%", node.value, folded.unit(),
                   100.0 * static_cast<double>(node.value) / total);
    if (node.off_cpu > 0) {
      fmt::format_to(std::back_inserter(svg), ", off-CPU {:.2f}%",
                     100.0 * static_cast<double>(node.off_cpu) / static_cast<double>(node.value));
    }
    if (node.run_queue > 0) {
      fmt::format_to(std::back_inserter(svg), ", run-queue {:.2f}%",
                     100.0 * static_cast<double>(node.run_queue) / static_cast<double>(node.value));
    }
    svg += ")</title>";
    fmt::format_to(std::back_inserter(svg),
                   "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" "
                   "fill=\"{}\" rx=\"2\" ry=\"2\"/>",
                   kPadX + x[i], y, w, kFrameHeight - 1,
                   i == 0 ? "rgb(200,200,200)"
                          // Mostly blocked (or waiting for a CPU) below this frame: the
                          // off-CPU (run-queue) palette.
                          : colour(2 * node.off_cpu > node.value     ? FoldedKind::kOffCpu
                                   : 2 * node.run_queue > node.value ? FoldedKind::kRunQueue
                                                                     : kind,
                                   name));
    // Every frame has its label element (empty when too narrow): zooming refills it.
    fmt::format_to(std::back_inserter(svg), "<text x=\"{:.2f}\" y=\"{:.1f}\">", kPadX + x[i] + 3,
                   y + kFrameHeight - 4.5);
    const auto fit = static_cast<std::size_t>(w / (kFontSize * kFontWidth));
    if (fit >= 3) {
      if (name.size() <= fit) {
        detail::append_xml_escaped(svg, name);
      } else {
        std::size_t cut = fit - 2;
        // Never split a UTF-8 sequence.
        while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xc0u) == 0x80u) --cut;
        detail::append_xml_escaped(svg, name.substr(0, cut));
        svg += "..";
      }
    }
    svg += "</text>";
    svg += "</g>\n";
  }
  svg += "</g>\n</svg>\n";
  return detail::write_all(out, svg);
}

}  // namespace perfx::report
