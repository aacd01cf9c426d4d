//===- ToolRunner.h - Run a tool binary and capture its output -*- C++ -*-===//
//
// Test-only: the tests that run the real proofc-run (PROOFC_RUN_BINARY).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_TOOLRUNNER_H
#define PROOFC_TEST_UNIT_TOOLRUNNER_H

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace proofc::test {

struct ToolResult {
  int status = -1;    ///< exit status, -1 when the tool did not exit normally
  std::string output; ///< stdout and stderr
};

/// Runs `<binary> <args>` through the shell, stderr merged into stdout.
inline ToolResult runBinary(const std::string &binary,
                            const std::string &args) {
  ToolResult r;
  const std::string command = binary + " " + args + " 2>&1";
  std::FILE *pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    return r;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
    r.output.append(buffer, n);
  const int raw = ::pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

#ifdef PROOFC_RUN_BINARY
/// Runs the proofc-run binary this test suite was built with.
inline ToolResult runProofcRun(const std::string &args) {
  return runBinary(PROOFC_RUN_BINARY, args);
}
#endif

} // namespace proofc::test

#endif // PROOFC_TEST_UNIT_TOOLRUNNER_H
