//===- CommandLine.h - Parsing and error reporting of the tools -*- C++ -*-===//
//
// What proofc and proofc-run do alike around CLI11: integer flags parsed
// strictly, the parse with its one-line errors, and the mapping of a
// command's failure to one `<tool>: error: ...` line and an exit code.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TOOLS_COMMON_COMMANDLINE_H
#define PROOFC_TOOLS_COMMON_COMMANDLINE_H

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
class Validator;
} // namespace CLI

namespace proofc::cli {

/// Adds an integer option `name` (e.g. "--queries") that accepts a decimal
/// integer (optional sign, digits only) in [lo, hi] and stores it in
/// `target`, whose value is the default shown in --help. Anything else is one
/// error `--queries: '12x' is not an integer` or `--queries:
/// 99999999999999999999 is out of range [lo, hi]` -- CLI11's own conversion
/// saturates at the type's bounds and wraps negative values of unsigned
/// types without a word.
CLI::Option *addIntegerOption(CLI::App &app, const std::string &name,
                              int64_t &target, const std::string &description,
                              int64_t lo = std::numeric_limits<int64_t>::min(),
                              int64_t hi = std::numeric_limits<int64_t>::max());
CLI::Option *
addIntegerOption(CLI::App &app, const std::string &name, uint64_t &target,
                 const std::string &description, uint64_t lo = 0,
                 uint64_t hi = std::numeric_limits<uint64_t>::max());
CLI::Option *addIntegerOption(CLI::App &app, const std::string &name,
                              int &target, const std::string &description,
                              int lo = std::numeric_limits<int>::min(),
                              int hi = std::numeric_limits<int>::max());

/// The check of every path option and argument (--data, --weights,
/// --report, --outcomes, -o, PROGRAM, BUNDLE): an empty value is one error
/// naming the flag, `--report: empty path (an empty argument names no
/// file)`, rather than a missing file named `` or an output silently
/// dropped.
CLI::Validator nonEmptyPath();

/// Adds a path option or argument `name` (e.g. "--report", "parts") stored
/// in `target`, checked by nonEmptyPath() and shown as `typeName` in --help:
/// the one way every path flag of the tools is declared.
CLI::Option *addPathOption(CLI::App &app, const std::string &name,
                           std::string &target, const std::string &description,
                           const std::string &typeName);
/// The same for a list of paths (a positional argument such as "parts").
CLI::Option *addPathOption(CLI::App &app, const std::string &name,
                           std::vector<std::string> &target,
                           const std::string &description,
                           const std::string &typeName);

/// The argv given to parseCommandLine (the report's provenance).
const std::vector<std::string> &commandLine();

/// Parses the command line (and installs the interrupt hooks,
/// tooling/Interrupts.h). Returns nullopt when the tool should go on, else
/// the exit code: 0 after --help or --version, 1 after printing a usage
/// error as `<tool>: error: <message>` on stderr.
std::optional<int> parseCommandLine(CLI::App &app, int argc, char **argv,
                                    const std::string &tool);

/// Runs `command` and returns its exit code. A proofc::Error ends as one line
/// `<tool>: error: <message>` on stderr and exit code 1 (any other exception
/// the same, as an internal error); an interrupted run as `<tool>:
/// interrupted by SIGINT` and 128 + the signal (130, or 143 for SIGTERM).
int runReportingErrors(const std::string &tool,
                       const std::function<int()> &command);

} // namespace proofc::cli

#endif // PROOFC_TOOLS_COMMON_COMMANDLINE_H
