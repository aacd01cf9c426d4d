//===- CompileTiers.cpp - Which kernels a cold setup starts on ------------===//
//
// See CompileTiers.h: the PROOFC_COMPILE_TIERS setting and the decision
// (compiled with or without the CUDA headers, tested without a GPU).
//
//===----------------------------------------------------------------------===//
#include "cuda/CompileTiers.h"

#include "support/Fail.h"

#include <cstdlib>

namespace proofc {

const char *compileTiersName(CompileTiers tiers) {
  switch (tiers) {
  case CompileTiers::Auto:
    return "auto";
  case CompileTiers::Always:
    return "always";
  case CompileTiers::Off:
    return "off";
  }
  return "?";
}

CompileTiers parseCompileTiers(const std::string &text,
                               const std::string &source) {
  for (CompileTiers t :
       {CompileTiers::Auto, CompileTiers::Always, CompileTiers::Off})
    if (text == compileTiersName(t))
      return t;
  fail("{}: '{}' is not auto, always or off", source, text);
}

CompileTiers compileTiersFromEnvironment() {
  const char *v = std::getenv("PROOFC_COMPILE_TIERS");
  if (!v || !*v)
    return CompileTiers::Auto;
  return parseCompileTiers(v, "PROOFC_COMPILE_TIERS");
}

std::vector<std::string> tierOptions(std::vector<std::string> options,
                                     bool quick) {
  if (quick)
    options.push_back(kQuickTierOption);
  return options;
}

bool startsOnQuickTier(CompileTiers tiers, bool optimizedCached,
                       int64_t candidates) {
  if (optimizedCached)
    return false;
  switch (tiers) {
  case CompileTiers::Always:
    return true;
  case CompileTiers::Auto:
    return candidates <= kQuickTierMaxCandidates;
  case CompileTiers::Off:
    return false;
  }
  return false;
}

} // namespace proofc
