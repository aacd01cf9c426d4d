//===- RolloutBundle.cpp - The bundle that rollouts on cuda run -----------===//
//
// RolloutBundle.h says why this is apart from the CUDA backend.
//
//===----------------------------------------------------------------------===//
#include "bundle/RolloutBundle.h"

#include "bundle/Bundle.h"
#include "proofc/contract/kernel_abi.h"
#include "support/Fail.h"

#include <algorithm>

namespace proofc {

namespace {

bool hasRolloutHook(const KernelModule &m) {
  return m.format == "cuda" &&
         m.source.find(proofc_abi::kRolloutHook) != std::string::npos;
}

} // namespace

Bundle rolloutBundle(const Bundle &bundle, const std::string &path) {
  if (advancesInPolicy(bundle))
    fail("{}: rollouts on cuda do not run a bundle compiled with "
         "--advance-in-policy (its policy kernel advances the slots, and "
         "records no trajectories); recompile it without that option",
         path);
  const auto &modules = bundle.modules;
  if (std::none_of(modules.begin(), modules.end(), hasRolloutHook))
    fail("{}: rollouts on cuda need a bundle compiled by this proofc (its "
         "step modules have no rollout code); recompile it with proofc "
         "compile",
         path);
  const auto &launches = bundle.plan.launches;
  if (std::any_of(launches.begin(), launches.end(),
                  [](const Launch &l) { return l.entry == "proofc_advance"; }))
    fail("{}: rollouts on cuda need the fused step or the persistent "
         "schedule (the default); this bundle was compiled with "
         "--unfused-step",
         path);
  Bundle out = bundle;
  for (KernelModule &m : out.modules)
    if (hasRolloutHook(m))
      m.options.push_back(proofc_abi::kRolloutOption);
  return out;
}

} // namespace proofc
