//===- CommandLine.cpp - Parsing and error reporting of the tools ---------===//
#include "CommandLine.h"

#include "proofc/runtime/Error.h"
#include "proofc/runtime/RunControl.h"
#include "support/MessageText.h"
#include "tooling/Interrupts.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <exception>

namespace proofc::cli {
namespace {

// Wide enough for every value of int64_t and uint64_t and one past them.
using Wide = __int128;

std::string wideText(Wide v) {
  if (v < 0)
    return "-" + wideText(-v);
  std::string digits;
  do {
    digits.insert(digits.begin(),
                  static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v > 0);
  return digits;
}

/// `text` as a decimal integer in [lo, hi], else the error in `*error`.
std::optional<Wide> parseWide(const std::string &text, Wide lo, Wide hi,
                              std::string *error) {
  size_t at = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+'))
    ++at;
  if (at == text.size() ||
      text.find_first_not_of("0123456789", at) != std::string::npos) {
    *error = fmt::format("'{}' is not an integer", escapeForMessage(text));
    return std::nullopt;
  }
  // Digits past 2^64 cannot be in range: stop accumulating, keep "too big".
  const Wide cap = Wide{1} << 65;
  Wide magnitude = 0;
  for (; at < text.size() && magnitude < cap; ++at)
    magnitude = magnitude * 10 + (text[at] - '0');
  const Wide value = negative ? -magnitude : magnitude;
  if (at < text.size() || value < lo || value > hi) {
    *error = fmt::format("{} is out of range [{}, {}]", escapeForMessage(text),
                         wideText(lo), wideText(hi));
    return std::nullopt;
  }
  return value;
}

template <typename T>
CLI::Option *addInteger(CLI::App &app, const std::string &name, T &target,
                        const std::string &description, T lo, T hi) {
  CLI::Option *option = app.add_option(
      name,
      [&target, name, lo, hi](const CLI::results_t &results) {
        std::string error;
        std::optional<Wide> value =
            parseWide(results.back(), Wide{lo}, Wide{hi}, &error);
        if (!value)
          throw CLI::ValidationError(name, error);
        target = static_cast<T>(*value);
        return true;
      },
      description);
  option->type_name("INT");
  option->default_str(std::to_string(target));
  return option;
}

} // namespace

CLI::Option *addIntegerOption(CLI::App &app, const std::string &name,
                              int64_t &target, const std::string &description,
                              int64_t lo, int64_t hi) {
  return addInteger(app, name, target, description, lo, hi);
}

CLI::Option *addIntegerOption(CLI::App &app, const std::string &name,
                              uint64_t &target, const std::string &description,
                              uint64_t lo, uint64_t hi) {
  return addInteger(app, name, target, description, lo, hi);
}

CLI::Option *addIntegerOption(CLI::App &app, const std::string &name,
                              int &target, const std::string &description,
                              int lo, int hi) {
  return addInteger(app, name, target, description, lo, hi);
}

CLI::Validator nonEmptyPath() {
  return CLI::Validator(
      [](std::string &value) -> std::string {
        return value.empty() ? "empty path (an empty argument names no file)"
                             : "";
      },
      "");
}

namespace {
template <typename Target>
CLI::Option *addPath(CLI::App &app, const std::string &name, Target &target,
                     const std::string &description,
                     const std::string &typeName) {
  return app.add_option(name, target, description)
      ->check(nonEmptyPath())
      ->type_name(typeName);
}
} // namespace

CLI::Option *addPathOption(CLI::App &app, const std::string &name,
                           std::string &target, const std::string &description,
                           const std::string &typeName) {
  return addPath(app, name, target, description, typeName);
}

CLI::Option *addPathOption(CLI::App &app, const std::string &name,
                           std::vector<std::string> &target,
                           const std::string &description,
                           const std::string &typeName) {
  return addPath(app, name, target, description, typeName);
}

namespace {
std::vector<std::string> &rememberedCommandLine() {
  static std::vector<std::string> words;
  return words;
}
} // namespace

const std::vector<std::string> &commandLine() {
  return rememberedCommandLine();
}

std::optional<int> parseCommandLine(CLI::App &app, int argc, char **argv,
                                    const std::string &tool) {
  rememberedCommandLine().assign(argv, argv + argc);
  // Ctrl-C and SIGTERM end a tool's writes and reads cleanly (the runtime
  // installs no handler of its own: support/Cancellation.h).
  installInterruptHooks();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    fmt::print(stderr, "{}: error: {}\n", tool, e.what());
    return 1;
  }
  return std::nullopt;
}

int runReportingErrors(const std::string &tool,
                       const std::function<int()> &command) {
  try {
    return command();
  } catch (const Interrupted &e) {
    // Ctrl-C / SIGTERM: say so and exit 128 + the signal, like a shell.
    fmt::print(stderr, "{}: {}\n", tool, e.what());
    return e.exitCode();
  } catch (const Error &e) {
    fmt::print(stderr, "{}: error: {}\n", tool, e.what());
  } catch (const std::exception &e) {
    fmt::print(stderr, "{}: error: internal error: {}\n", tool, e.what());
  }
  return 1;
}

} // namespace proofc::cli
