#include "list_options.hpp"

#include <charconv>
#include <sstream>

namespace perfx::cli {
namespace {

template <typename T>
bool parse_ints(const std::string& s, std::vector<T>& out) {
  for (const auto& tok : split_list(s)) {
    T v = 0;
    const auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec != std::errc{} || end != tok.data() + tok.size()) return false;
    out.push_back(v);
  }
  return true;
}

}  // namespace

std::vector<std::string> split_list(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

bool parse_int_list(const std::string& s, std::vector<int>& out) { return parse_ints(s, out); }

bool parse_cpu_list(const std::string& s, std::vector<unsigned>& out) {
  for (const auto& tok : split_list(s)) {
    const auto dash = tok.find('-');
    std::vector<unsigned> ends;
    if (!parse_ints(dash == std::string::npos ? tok : tok.substr(0, dash), ends)) return false;
    if (dash != std::string::npos && !parse_ints(tok.substr(dash + 1), ends)) return false;
    if (ends.size() != (dash == std::string::npos ? 1u : 2u) || ends.front() > ends.back())
      return false;
    for (unsigned c = ends.front(); c <= ends.back(); ++c) out.push_back(c);
  }
  return true;
}

}  // namespace perfx::cli
