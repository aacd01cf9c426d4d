//===- SourceNesting.h - Refuse deep nesting before parsing -----*- C++ -*-===//
//
// MLIR's parser, verifier and printer recurse once per nesting level of an
// attribute, a type, a location or a region: a 20 KB file of 10,000 nested
// `[` (or `{a = {a = ...}}`, or `loc(callsite(...))`) exhausts the stack and
// the process dies with SIGSEGV instead of an error. Every entry point that
// parses a program -- the proofc driver, proofc-opt, the program fuzzer --
// first runs this linear scan and refuses a file nested deeper than
// kMaxSourceNesting brackets with one `file:line:col` error.
//
// The scan counts `(`, `[`, `{` and `<` outside string literals and `//`
// comments, exactly as MLIR's lexer delimits those, and lets any of `)`,
// `]`, `}`, `>` close one level (not the `>` of `->` or `>=`). It never
// undercounts what the parser will recurse on; it may overcount odd text,
// which then only needs to stay below the limit. Real programs nest about 10
// deep (the lowered GPU module about 20), so the limit is far above them and
// far below the depth that crashes (MLIR passes 5,000 levels on an 8 MiB
// stack; the lit test nesting.test runs 256 levels on a 1 MiB stack).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_SUPPORT_SOURCENESTING_H
#define PROOFC_SUPPORT_SOURCENESTING_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace proofc {

/// Deepest bracket nesting a program may have.
inline constexpr unsigned kMaxSourceNesting = 256;

/// Where a text first opens more than its nesting limit.
struct NestingExcess {
  size_t offset;   ///< of the bracket that opened one level too many
  unsigned line;   ///< 1-based
  unsigned column; ///< 1-based, in bytes
};

/// What the tools say, after `file:line:col: error: `, of a file that nests
/// deeper than `limit`.
inline std::string excessNestingMessage(unsigned limit = kMaxSourceNesting) {
  return "nesting deeper than " + std::to_string(limit) +
         " levels (brackets ( [ { <); refused before parsing";
}

/// The first bracket of `text` that opens level `limit + 1`, or nullopt when
/// `text` never nests deeper than `limit`. Linear in the size of `text`.
inline std::optional<NestingExcess>
findExcessNesting(std::string_view text, unsigned limit = kMaxSourceNesting) {
  unsigned depth = 0;
  unsigned line = 1;
  size_t lineStart = 0;
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    const char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      lineStart = i + 1;
      break;
    case '"':
      // A string literal as MLIR lexes it: up to the next unescaped quote,
      // and never past a line end (an error for MLIR, which stops there).
      for (++i; i < n && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\' && i + 1 < n && text[i + 1] != '\n')
          ++i;
      if (i < n && text[i] == '\n')
        --i; // counted by the outer loop
      break;
    case '/':
      if (i + 1 < n && text[i + 1] == '/') {
        while (i + 1 < n && text[i + 1] != '\n')
          ++i;
      }
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (++depth > limit)
        return NestingExcess{i, line, static_cast<unsigned>(i - lineStart + 1)};
      break;
    case '>':
      if ((i > 0 && text[i - 1] == '-') || (i + 1 < n && text[i + 1] == '='))
        break; // `->`, `>=`: no bracket
      [[fallthrough]];
    case ')':
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

} // namespace proofc

#endif // PROOFC_SUPPORT_SOURCENESTING_H
