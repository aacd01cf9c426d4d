//===- KernelAbiTest.cpp - kernel_abi.h against the docs and the runtime --===//
//
// kernel_abi.h defines the kernels' argument lists once; step.cu and
// engine.cu declare their parameters from it, so those cannot drift. What
// can: the signatures docs/gpu-kernels.md shows (compared here name for
// name), and a bundle built against other kernels (the runtime's binding
// must refuse it with one clear error, never launch it). The compiler's
// side is checked by eval-lower-to-gpu itself on every compile.
//
//===----------------------------------------------------------------------===//
#include "proofc/contract/kernel_abi.h"

#include "TestUtil.h"
#include "cuda/PlanBinding.h"
#include "data/KnowledgeBase.h"
#include "proofc/runtime/Error.h"
#include "runtime/cuda/TestBundle.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

namespace proofc::test {
namespace {

/// The parameter names of `extern "C" ... <entry>(...)` in a ```c++ block of
/// `doc`, comments removed; empty when the page shows no such signature.
std::vector<std::string> documentedParams(const std::string &doc,
                                          const std::string &entry) {
  const size_t at = doc.find("void " + entry + "(");
  if (at == std::string::npos)
    return {};
  const size_t open = doc.find('(', at), close = doc.find(");", open);
  std::string text = doc.substr(open + 1, close - open - 1), clean;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos)
        break;
    } else if (text.compare(i, 2, "/*") == 0) {
      i = text.find("*/", i) + 1;
    } else {
      clean += text[i];
    }
  }
  std::vector<std::string> names;
  size_t begin = 0;
  for (size_t end = 0; end <= clean.size(); ++end) {
    if (end < clean.size() && clean[end] != ',')
      continue;
    std::string param = clean.substr(begin, end - begin);
    size_t last = param.find_last_not_of(" \n\t");
    size_t first = last;
    while (first != std::string::npos && first > 0 &&
           (std::isalnum(static_cast<unsigned char>(param[first - 1])) ||
            param[first - 1] == '_'))
      --first;
    if (last != std::string::npos)
      names.push_back(param.substr(first, last - first + 1));
    begin = end + 1;
  }
  return names;
}

TEST(KernelAbi, DocsShowEveryKernelsArgumentList) {
  const std::string doc = readFile(sourceDir() + "/docs/gpu-kernels.md");
  for (const proofc_abi::KernelSignature &sig : proofc_abi::kKernels) {
    SCOPED_TRACE(sig.entry);
    const std::vector<std::string> names = documentedParams(doc, sig.entry);
    ASSERT_EQ(names.size(), static_cast<size_t>(sig.numArgs))
        << "docs/gpu-kernels.md shows another argument count";
    for (int i = 0; i < sig.numArgs; ++i)
      EXPECT_EQ(names[static_cast<size_t>(i)], sig.names[i])
          << "argument " << i;
  }
}

TEST(KernelAbi, SlotStepIsTheFusedKernelsMiddle) {
  // slot.cu's words are proofc_advance_engine's without the guard before
  // and the counters, the flags, the policy grid's, B and its own grid's
  // after (docs/gpu-kernels.md).
  const proofc_abi::KernelSignature *fused =
      proofc_abi::findKernel("proofc_advance_engine");
  ASSERT_NE(fused, nullptr);
  const proofc_abi::KernelSignature &slot = proofc_abi::kSlotStep;
  ASSERT_EQ(fused->numArgs, 1 + slot.numArgs + 13);
  for (int i = 0; i < slot.numArgs; ++i)
    EXPECT_STREQ(fused->names[1 + i], slot.names[i]);
}

/// `f` throws proofc::Error with exactly `message`.
template <typename F> void expectError(F f, const std::string &message) {
  try {
    f();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

/// The reference bundle with launch `entry`'s arguments changed by `edit`.
Bundle editedBundle(const std::string &entry,
                    void (*edit)(std::vector<std::string> &)) {
  Bundle bundle = makeTestBundle(v10Program(), 32, /*fusedStep=*/true);
  for (Launch &l : bundle.plan.launches)
    if (l.entry == entry)
      edit(l.args);
  return bundle;
}

TEST(KernelAbi, BindingRefusesLaunchesOfOtherKernels) {
  Dataset ds = loadDataset(dataDir("countries_s1"));
  TensorMap weights = readSafetensors(weightsFile("countries_s1"));
  CandidateOptions opts;
  opts.queries = 2;
  CandidateSet set = buildCandidates(ds, opts);
  ProgramSpec program = v10Program();
  EvalInputs inputs{program, ds, weights, set, false};
  KnowledgeBase kb = buildKnowledgeBase(ds, false);

  // The reference bundle binds: its launches follow kernel_abi.h.
  EXPECT_NO_THROW(
      PlanBinding(makeTestBundle(program, 32, true), inputs, kb, "test.pcb"));

  Bundle fewer =
      editedBundle("proofc_advance_engine",
                   [](std::vector<std::string> &a) { a.pop_back(); });
  expectError(
      [&] { PlanBinding(fewer, inputs, kb, "test.pcb"); },
      "test.pcb: launch 'advance_engine': proofc_advance_engine takes 47 "
      "arguments, the launch passes 46 (a bundle of other kernels: recompile "
      "it)");

  Bundle kind = editedBundle("proofc_init", [](std::vector<std::string> &a) {
    a[1] = "buf:pool"; // N
  });
  expectError([&] { PlanBinding(kind, inputs, kb, "test.pcb"); },
              "test.pcb: launch 'init': argument 1 of proofc_init ('N') must "
              "be sym:/i32:, not 'buf:pool' (a bundle of other kernels: "
              "recompile it)");
}

} // namespace
} // namespace proofc::test
