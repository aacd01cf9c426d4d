//===- MessageText.cpp - Untrusted bytes inside error messages ------------===//
#include "support/MessageText.h"

#include <fmt/format.h>

#include <algorithm>

namespace proofc {

size_t utf8SequenceLength(std::string_view bytes, size_t at) {
  const auto *p = reinterpret_cast<const unsigned char *>(bytes.data()) + at;
  const size_t left = bytes.size() - at;
  const unsigned c = p[0];
  if (c < 0x80)
    return 1;
  size_t len;
  unsigned lo = 0x80, hi = 0xBF; // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0)
      lo = 0xA0; // overlong
    else if (c == 0xED)
      hi = 0x9F; // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0)
      lo = 0x90; // overlong
    else if (c == 0xF4)
      hi = 0x8F; // > U+10FFFF
  } else {
    return 0;
  }
  if (left < len || p[1] < lo || p[1] > hi)
    return 0;
  for (size_t i = 2; i < len; ++i)
    if ((p[i] & 0xC0) != 0x80)
      return 0;
  return len;
}

bool isValidUtf8(std::string_view bytes) {
  for (size_t at = 0; at < bytes.size();) {
    size_t len = utf8SequenceLength(bytes, at);
    if (len == 0)
      return false;
    at += len;
  }
  return true;
}

std::string escapeForMessage(std::string_view bytes, size_t maxBytes) {
  std::string out;
  out.reserve(std::min(bytes.size(), maxBytes) + 16);
  auto hex = [&out](unsigned char byte) {
    fmt::format_to(std::back_inserter(out), "\\x{:02x}", byte);
  };
  size_t at = 0;
  while (at < bytes.size()) {
    const auto c = static_cast<unsigned char>(bytes[at]);
    size_t len = utf8SequenceLength(bytes, at);
    // An invalid byte is escaped alone; the next one starts afresh.
    if (at + (len == 0 ? 1 : len) > maxBytes)
      break;
    if (len == 0 || c < 0x20 || c == 0x7F) {
      hex(c);
      ++at;
    } else if (c == '\\') {
      out += "\\\\";
      ++at;
    } else if (c == 0xC2 && static_cast<unsigned char>(bytes[at + 1]) < 0xA0) {
      // C1 controls (U+0080..U+009F): some terminals act on them.
      hex(c);
      hex(static_cast<unsigned char>(bytes[at + 1]));
      at += 2;
    } else {
      out.append(bytes.data() + at, len);
      at += len;
    }
  }
  if (at < bytes.size())
    fmt::format_to(std::back_inserter(out), "\xe2\x80\xa6({} bytes)",
                   bytes.size());
  return out;
}

} // namespace proofc
