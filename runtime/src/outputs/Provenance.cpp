//===- Provenance.cpp - What a report's numbers came from -----------------===//
#include "outputs/Provenance.h"

#include "GitCommit.inc" // PROOFC_GIT_COMMIT, generated at build time

#include <fmt/format.h>

#include <ctime>

#include <limits.h>
#include <unistd.h>

namespace proofc {

const char *proofcVersion() { return PROOFC_VERSION; }
const char *proofcGitCommit() { return PROOFC_GIT_COMMIT; }

std::string utcTimestamp(std::chrono::system_clock::time_point t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string hostName() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0')
    return "unknown";
  return name;
}

} // namespace proofc
