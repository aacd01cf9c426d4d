//===- RolloutBundle.h - The bundle that rollouts on cuda run ---*- C++ -*-===//
//
// Rollouts on the CUDA backend (docs/rollouts-cuda.md) run the bundle's plan
// with its step and slot modules compiled with -DPROOFC_ROLLOUT=1. Which
// bundles can record trajectories, and the option each module gets, depend
// only on the bundle, so they are decided here, where no CUDA is needed: the
// CPU tests check every refusal (RolloutBundleTest), and the CUDA backend
// calls this before it compiles any module.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_ROLLOUTBUNDLE_H
#define PROOFC_RUNTIME_ROLLOUTBUNDLE_H

#include "proofc/contract/Bundle.h"

#include <string>

namespace proofc {

/// `bundle` with its rollout modules: every CUDA C++ module whose source has
/// rollout.cu's hook (kernel_abi.h's kRolloutHook) gets kRolloutOption. A
/// plan whose step cannot record is an error naming `path`, thrown before
/// anything is copied: the step policy that advances the slots it selects
/// for (advancesInPolicy: its module links slot.cu), a bundle compiled
/// before rollouts (no module has the hook) and the unfused step
/// (proofc_advance, one block for every slot).
Bundle rolloutBundle(const Bundle &bundle, const std::string &path);

} // namespace proofc

#endif // PROOFC_RUNTIME_ROLLOUTBUNDLE_H
