//===- RolloutBundleTest.cpp - Which bundles rollouts on cuda run ---------===//
//
// rolloutBundle (runtime/src/bundle/RolloutBundle.h) without a GPU: the
// modules with rollout.cu's hook get -DPROOFC_ROLLOUT=1 and no other does,
// and each step that cannot record is refused with its one error, naming
// the bundle's path (docs/errors.md, "Bundles"). GpuRolloutsTest runs the
// rollouts themselves.
//
//===----------------------------------------------------------------------===//
#include "bundle/RolloutBundle.h"
#include "TestUtil.h"
#include "bundle/Bundle.h"
#include "proofc/contract/kernel_abi.h"
#include "runtime/cuda/TestBundle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

namespace proofc::test {
namespace {

/// The reference plan with the compiler's default step (the policy, then
/// proofc_advance_engine): one that records.
Bundle fusedBundle() {
  return makeTestBundle(v10Program(), 128, /*fusedStep=*/true);
}

/// rolloutBundle's error text for `bundle` ("(no error)" when accepted).
std::string refusal(const Bundle &bundle) {
  return errorOf([&] { rolloutBundle(bundle, "b.pcb"); });
}

bool hasOption(const KernelModule &m, const std::string &option) {
  return std::find(m.options.begin(), m.options.end(), option) !=
         m.options.end();
}

TEST(RolloutBundle, HookedModulesAloneGetTheRolloutOption) {
  const Bundle in = fusedBundle();
  const Bundle out = rolloutBundle(in, "b.pcb");
  ASSERT_EQ(out.modules.size(), in.modules.size());
  int hooked = 0;
  for (size_t i = 0; i < in.modules.size(); ++i) {
    const KernelModule &m = out.modules[i];
    const bool hook =
        m.source.find(proofc_abi::kRolloutHook) != std::string::npos;
    hooked += hook;
    EXPECT_EQ(hasOption(m, proofc_abi::kRolloutOption), hook) << m.name;
    // Nothing else changes: the same options before it, once.
    std::vector<std::string> expected = in.modules[i].options;
    if (hook)
      expected.push_back(proofc_abi::kRolloutOption);
    EXPECT_EQ(m.options, expected) << m.name;
  }
  EXPECT_GT(hooked, 0); // step.cu
}

TEST(RolloutBundle, RefusesTheUnfusedStep) {
  // The reference plan's own step: proofc_advance, one block every slot.
  EXPECT_EQ(refusal(makeTestBundle(v10Program())),
            "b.pcb: rollouts on cuda need the fused step or the persistent "
            "schedule (the default); this bundle was compiled with "
            "--unfused-step");
}

TEST(RolloutBundle, RefusesABundleWithoutTheHook) {
  Bundle b = fusedBundle();
  for (KernelModule &m : b.modules) {
    std::string &s = m.source;
    for (size_t at;
         (at = s.find(proofc_abi::kRolloutHook)) != std::string::npos;)
      s.replace(at, std::strlen(proofc_abi::kRolloutHook),
                "#ifdef PROOFC_OLDHOOK");
  }
  EXPECT_EQ(refusal(b),
            "b.pcb: rollouts on cuda need a bundle compiled by this proofc "
            "(its step modules have no rollout code); recompile it with "
            "proofc compile");
  // The hook in a module that is not CUDA C++ (PTX) does not count.
  b.modules.back().format = "ptx";
  b.modules.back().source = std::string("// ") + proofc_abi::kRolloutHook;
  EXPECT_NE(refusal(b).find("have no rollout code"), std::string::npos);
}

TEST(RolloutBundle, RefusesAPolicyThatAdvances) {
  Bundle b = fusedBundle();
  // The policy launch's module links another (slot.cu), as
  // --advance-in-policy compiles it; refused before the other checks.
  KernelModule *policy = nullptr;
  for (KernelModule &m : b.modules)
    if (m.name == "policy")
      policy = &m;
  ASSERT_NE(policy, nullptr);
  policy->link = {"engine"};
  ASSERT_TRUE(advancesInPolicy(b));
  EXPECT_EQ(refusal(b),
            "b.pcb: rollouts on cuda do not run a bundle compiled with "
            "--advance-in-policy (its policy kernel advances the slots, and "
            "records no trajectories); recompile it without that option");
  Bundle unfused = makeTestBundle(v10Program());
  for (KernelModule &m : unfused.modules)
    if (m.name == "policy")
      m.link = {"engine"};
  EXPECT_NE(refusal(unfused).find("--advance-in-policy"), std::string::npos);
}

} // namespace
} // namespace proofc::test
