//===- MessageTextTest.cpp - Untrusted bytes inside error messages --------===//
#include "support/MessageText.h"

#include <gtest/gtest.h>

#include <string>

using namespace proofc;
using namespace std::string_literals;

namespace {

TEST(MessageText, PrintableTextIsKept) {
  EXPECT_EQ(escapeForMessage("locatedIn"), "locatedIn");
  EXPECT_EQ(escapeForMessage("New York's"), "New York's");
  EXPECT_EQ(escapeForMessage("e\xc3\xa9 \xe6\x9d\xb1 \xf0\x9f\x98\x80"),
            "e\xc3\xa9 \xe6\x9d\xb1 \xf0\x9f\x98\x80");
  EXPECT_EQ(escapeForMessage(""), "");
}

TEST(MessageText, ControlBytesAndBackslashAreEscaped) {
  EXPECT_EQ(escapeForMessage("a\0b"s), "a\\x00b");
  EXPECT_EQ(escapeForMessage("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(escapeForMessage("line\nnext\r\t\x7f"),
            "line\\x0anext\\x0d\\x09\\x7f");
  EXPECT_EQ(escapeForMessage("a\\x00"), "a\\\\x00");
  // C1 controls (U+0080..U+009F), e.g. U+009B (CSI), byte by byte.
  EXPECT_EQ(escapeForMessage("\xc2\x9b"s + "2J"), "\\xc2\\x9b2J");
  EXPECT_EQ(escapeForMessage("\xc2\xa0"), "\xc2\xa0"); // U+00A0 is text
}

TEST(MessageText, InvalidUtf8IsEscapedByteByByte) {
  EXPECT_EQ(escapeForMessage("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(escapeForMessage("q\xe9(X"), "q\\xe9(X");             // Latin-1
  EXPECT_EQ(escapeForMessage("\xc0\xaf"), "\\xc0\\xaf");          // overlong
  EXPECT_EQ(escapeForMessage("\xed\xa0\x80"), "\\xed\\xa0\\x80"); // surrogate
  EXPECT_EQ(escapeForMessage("\xf4\x90\x80\x80"),
            "\\xf4\\x90\\x80\\x80");                         // > U+10FFFF
  EXPECT_EQ(escapeForMessage("ab\xe6\x9d"), "ab\\xe6\\x9d"); // cut sequence
}

TEST(MessageText, LongTextIsElidedWithItsLength) {
  std::string huge(10u << 20, 'x');
  std::string shown = escapeForMessage(huge);
  EXPECT_EQ(shown, std::string(kMessageEchoBytes, 'x') +
                       "\xe2\x80\xa6(10485760 bytes)");
  EXPECT_EQ(escapeForMessage(std::string(kMessageEchoBytes, 'y')),
            std::string(kMessageEchoBytes, 'y')); // at the limit: whole
  EXPECT_EQ(escapeForMessage("abcdef", 3), "abc\xe2\x80\xa6(6 bytes)");
}

TEST(MessageText, ElisionNeverSplitsACharacter) {
  // 79 ASCII bytes, then a 3-byte character that would end past byte 80.
  std::string text = std::string(79, 'a') + "\xe6\x9d\xb1" + "tail";
  EXPECT_EQ(escapeForMessage(text),
            std::string(79, 'a') + "\xe2\x80\xa6(86 bytes)");
}

TEST(MessageText, ResultIsBoundedValidUtf8WithoutControlBytes) {
  // Every byte value, many times over: the worst case for escaping.
  std::string all;
  for (int round = 0; round < 64; ++round)
    for (int b = 0; b < 256; ++b)
      all.push_back(static_cast<char>(b));
  std::string shown = escapeForMessage(all);
  EXPECT_LE(shown.size(), 4 * kMessageEchoBytes + 32);
  EXPECT_TRUE(isValidUtf8(shown)) << shown;
  for (char c : shown)
    EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << shown;
}

TEST(MessageText, Utf8Validation) {
  EXPECT_TRUE(isValidUtf8(""));
  EXPECT_TRUE(isValidUtf8("a\0b"s));
  EXPECT_TRUE(isValidUtf8("\xf0\x9f\x98\x80"));
  EXPECT_FALSE(isValidUtf8("\x80"));
  EXPECT_FALSE(isValidUtf8("\xe0\x80\x80")); // overlong
  EXPECT_EQ(utf8SequenceLength("a\xc3\xa9", 1), 2u);
  EXPECT_EQ(utf8SequenceLength("a\xc3", 1), 0u);
}

} // namespace
