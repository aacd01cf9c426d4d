//===- FuzzUtil.h - Shared helpers of the libFuzzer targets -----*- C++ -*-===//
//
// FUZZ_CHECK reports a broken invariant of an accepted input and aborts, so
// libFuzzer saves the input as a crash; checkMessage holds a rejected input's
// message to the contract of docs/errors.md. ScratchDir is one temporary
// directory per fuzzer process (under $TMPDIR, /tmp by default), removed at
// exit, for the parsers that only read files.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_FUZZ_FUZZUTIL_H
#define PROOFC_TEST_FUZZ_FUZZUTIL_H

#include "support/MessageText.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

#include <unistd.h>

#define FUZZ_CHECK(cond, ...)                                                  \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "%s:%d: invariant broken: %s: ", __FILE__,          \
                   __LINE__, #cond);                                           \
      std::fprintf(stderr, __VA_ARGS__);                                       \
      std::fputc('\n', stderr);                                                \
      std::abort();                                                            \
    }                                                                          \
  } while (0)

namespace proofc::fuzz {

/// Longest message allowed: names from the input are echoed escaped and
/// elided (MessageText.h), so no input makes a longer one (the fuzzers'
/// paths are short).
constexpr size_t kMaxMessageBytes = 4096;

/// One line of printable, valid UTF-8, bounded whatever the input.
inline void checkMessage(const char *what) {
  std::string_view message(what);
  FUZZ_CHECK(message.size() <= kMaxMessageBytes, "message of %zu bytes: %.300s",
             message.size(), what);
  FUZZ_CHECK(proofc::isValidUtf8(message), "message is not UTF-8: %s", what);
  for (char c : message)
    FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f,
               "control byte 0x%02x in the message: %s",
               static_cast<unsigned char>(c), what);
}

class ScratchDir {
public:
  /// The process's directory, created on first use.
  static const ScratchDir &get() {
    static ScratchDir dir;
    return dir;
  }

  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

  /// Writes `bytes` to file(name), exactly; aborts when that fails (a broken
  /// harness, not a finding in the parser).
  std::string write(const std::string &name, std::string_view bytes) const {
    std::string p = file(name);
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::fprintf(stderr, "fuzz harness: cannot write %s\n", p.c_str());
      std::abort();
    }
    return p;
  }

  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

private:
  ScratchDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/proofc-fuzz-XXXXXX";
    if (!::mkdtemp(pattern.data())) {
      std::fprintf(stderr, "fuzz harness: mkdtemp failed for %s\n",
                   pattern.c_str());
      std::abort();
    }
    path_ = pattern;
  }

  std::string path_;
};

} // namespace proofc::fuzz

#endif // PROOFC_TEST_FUZZ_FUZZUTIL_H
