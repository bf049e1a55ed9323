#include "core/utf8.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace perfx::core {
namespace {

const std::string kFffd(kReplacementChar);

TEST(Utf8, ValidTextIsKeptAsIs) {
  for (const std::string& s : std::vector<std::string>{
           "", "plain ascii", "caf\xC3\xA9", "\xE2\x82\xAC 10", "\xF0\x9F\x94\xA5 fire",
           "\xED\x9F\xBF", "\xF4\x8F\xBF\xBF", std::string("nul\0inside", 10)}) {
    EXPECT_TRUE(is_valid_utf8(s)) << s;
    EXPECT_EQ(to_valid_utf8(s), s);
  }
}

TEST(Utf8, EachMaximalSubpartBecomesOneReplacement) {
  // The examples of Unicode 15 section 3.9 (Table 3-8 and its neighbours).
  EXPECT_EQ(to_valid_utf8("a\xFF"
                          "b"),
            "a" + kFffd + "b");
  EXPECT_EQ(to_valid_utf8("\xC0\xAF"), kFffd + kFffd);                          // overlong lead
  EXPECT_EQ(to_valid_utf8("\xE0\x80\x80"), kFffd + kFffd + kFffd);              // overlong 3-byte
  EXPECT_EQ(to_valid_utf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);              // surrogate
  EXPECT_EQ(to_valid_utf8("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // > U+10FFFF
  EXPECT_EQ(to_valid_utf8("\xE2\x82"
                          "x"),
            kFffd + "x");                               // truncated 3-byte
  EXPECT_EQ(to_valid_utf8("\xF0\x9F\x94"), kFffd);      // truncated at the end
  EXPECT_EQ(to_valid_utf8("\x80\x80"), kFffd + kFffd);  // lone continuations
  EXPECT_EQ(to_valid_utf8("\xF5"), kFffd);
  EXPECT_EQ(to_valid_utf8("ok\xC3\xA9\xC3"), "ok\xC3\xA9" + kFffd);
  for (const char* bad : {"\xFF", "\xC0\xAF", "\xED\xA0\x80", "\xE2\x82", "x\x80"})
    EXPECT_FALSE(is_valid_utf8(bad)) << bad;
  // The repaired text is always valid.
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  EXPECT_TRUE(is_valid_utf8(to_valid_utf8(all + all)));
}

TEST(Utf8, DecodeGivesCodePointsAndLengths) {
  const std::string s = "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x94\xA5";
  const Utf8Step a = decode_utf8(s, 0);
  EXPECT_TRUE(a.valid);
  EXPECT_EQ(a.code_point, 0x41u);
  EXPECT_EQ(decode_utf8(s, 1).code_point, 0xE9u);
  EXPECT_EQ(decode_utf8(s, 3).code_point, 0x20ACu);
  const Utf8Step fire = decode_utf8(s, 6);
  EXPECT_EQ(fire.code_point, 0x1F525u);
  EXPECT_EQ(fire.length, 4u);
  EXPECT_FALSE(decode_utf8(s, 7).valid);  // a continuation byte alone
}

TEST(Utf8, XmlForbiddenCharacters) {
  EXPECT_TRUE(is_xml_forbidden(0));
  EXPECT_TRUE(is_xml_forbidden(0x1B));
  EXPECT_TRUE(is_xml_forbidden(0xFFFE));
  EXPECT_TRUE(is_xml_forbidden(0xFFFF));
  EXPECT_FALSE(is_xml_forbidden('\t'));
  EXPECT_FALSE(is_xml_forbidden('\n'));
  EXPECT_FALSE(is_xml_forbidden('\r'));
  EXPECT_FALSE(is_xml_forbidden('a'));
  EXPECT_FALSE(is_xml_forbidden(0xFFFD));
  EXPECT_FALSE(is_xml_forbidden(0x10000));
}

}  // namespace
}  // namespace perfx::core
