#pragma once
// Files of src/report/assets/ (HTML/JS/CSS templates), embedded into libperfx at
// build time by src/report/embed_assets.cmake (see docs/design.md).

#include <string_view>

namespace perfx::report::assets {

/// The content of the asset named `name` ("flamegraph.js"), empty when there is none.
std::string_view find(std::string_view name) noexcept;

}  // namespace perfx::report::assets
