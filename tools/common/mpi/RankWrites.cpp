//===- RankWrites.cpp - The options every MPI rank must agree on ----------===//
#include "RankWrites.h"

#include "support/MessageText.h"

#include <fmt/format.h>

namespace proofc::cli {
namespace {

const char *given(const std::string &path) {
  return path.empty() ? "not given" : "given";
}

} // namespace

nlohmann::json rankWrites(const RunSessionOptions &o) {
  // An array of pairs: the order of the checks and of the messages.
  return nlohmann::json::array({
      {"--report", given(o.report)},
      {"--outcomes", given(o.outcomes)},
      {"--proofs", given(o.proofs)},
      {"--proofs-format", o.proofs.empty() ? "" : o.proofsFormat},
      {"--proofs-of", o.proofs.empty() ? "" : o.proofsOf},
      {"--checkpoint", given(o.checkpoint)},
      {"--checkpoint-every", o.checkpoint.empty() ? 0 : o.checkpointEvery},
      {"--no-shared-lists", o.shareLists ? "not given" : "given"},
  });
}

std::string rankWritesDifference(const nlohmann::json &a,
                                 const std::string &aName,
                                 const nlohmann::json &b,
                                 const std::string &bName) {
  if (!b.is_array() || b.size() != a.size())
    return fmt::format("{} sent options of another proofc", bName);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!b[i].is_array() || b[i].size() != 2 || b[i][0] != a[i][0])
      return fmt::format("{} sent options of another proofc", bName);
    if (b[i][1] != a[i][1]) {
      auto value = [](const nlohmann::json &v) {
        return escapeForMessage(v.is_string() ? v.get<std::string>()
                                              : v.dump());
      };
      return fmt::format("{} is {} on {}, {} on {}", a[i][0].get<std::string>(),
                         value(a[i][1]), aName, value(b[i][1]), bName);
    }
  }
  return "";
}

} // namespace proofc::cli
