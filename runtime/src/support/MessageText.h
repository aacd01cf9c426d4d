//===- MessageText.h - Untrusted bytes inside error messages ----*- C++ -*-===//
//
// Names read from input files (relations and entities in rules.txt, tensor
// names and JSON keys in weights and bundles) are echoed in error messages.
// They are untrusted bytes: a control byte would reach the terminal as it is,
// a NUL would end what() (a C string) early, invalid UTF-8 would make the
// message itself invalid text, and a 10 MiB name would make a 10 MiB "line".
// Every such echo goes through escapeForMessage.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_MESSAGETEXT_H
#define PROOFC_RUNTIME_MESSAGETEXT_H

#include <cstddef>
#include <string>
#include <string_view>

namespace proofc {

/// Bytes of an untrusted name kept in a message before the rest is elided.
inline constexpr size_t kMessageEchoBytes = 80;

/// Bytes of a JSON parser's error (a bundle's, a weights file's header)
/// kept in a message: nlohmann's errors quote the token they stopped in,
/// which may be a whole (huge, binary) string of the input.
inline constexpr size_t kJsonErrorEchoBytes = 320;

/// `bytes` as printable, valid UTF-8 on one line: a control byte (< 0x20,
/// 0x7F), a C1 control (U+0080..U+009F, as its two bytes) and every byte that
/// is not part of a valid UTF-8 sequence become `\xNN` (lower-case hex), a
/// backslash becomes `\\`; other text is kept. When `bytes` is longer than
/// `maxBytes`, only its first whole characters within `maxBytes` are kept,
/// followed by `…(N bytes)` with N the full length. The result is at most
/// 4 * maxBytes + 32 bytes long.
std::string escapeForMessage(std::string_view bytes,
                             size_t maxBytes = kMessageEchoBytes);

/// Length of the valid UTF-8 sequence (RFC 3629: no overlong forms, no
/// surrogates, <= U+10FFFF) that starts at `bytes[at]`, or 0 when none does.
size_t utf8SequenceLength(std::string_view bytes, size_t at);

/// Whether all of `bytes` is valid UTF-8 (in the sense above).
bool isValidUtf8(std::string_view bytes);

/// `text` without a UTF-8 byte-order mark (EF BB BF) at its very start.
/// Spreadsheet exports write one; the text files (the TSV splits, rules.txt)
/// drop it there (docs/spec-notes.md), while a BOM anywhere else stays part
/// of the name it is in. Line 1's columns count from after it.
inline std::string_view stripLeadingBom(std::string_view text) {
  if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0)
    text.remove_prefix(3);
  return text;
}

} // namespace proofc

#endif // PROOFC_RUNTIME_MESSAGETEXT_H
