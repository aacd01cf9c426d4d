//===- KernelTestUtil.h - States and checks for kernel tests ----*- C++ -*-===//
//
// Shared by the CPU-emulated kernel tests and the GPU tests: realistic proof
// states sampled by random walks over the host engine, and the comparison of
// a kernel's derived[B][S][A] + count[B] with the host engine's derive().
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_CUDA_KERNELTESTUTIL_H
#define PROOFC_TEST_UNIT_CUDA_KERNELTESTUTIL_H

#include "data/KnowledgeBase.h"
#include "host/Engine.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace proofc::test {

/// Kernel source files of the repository (lib/Targets/CUDA/Kernels, test
/// fixtures) are read at run time by the GPU tests.
inline std::string sourceDir() { return PROOFC_SOURCE_DIR; }

/// A kernel template of lib/Targets/CUDA/Kernels as the compiler embeds it:
/// each `#include "<file>"` line replaced by that file's text (beside the
/// template, or in the contract's include directory: "proofc/contract/
/// kernel_abi.h"), recursively, each file once
/// (runtime/cmake/InlineIncludes.cmake), one self-contained NVRTC source.
inline std::string kernelTemplate(const std::string &name,
                                  std::vector<std::string> *inlined = nullptr) {
  std::vector<std::string> seen = {name};
  if (!inlined)
    inlined = &seen;
  const std::string dir = sourceDir() + (name.rfind("proofc/contract/", 0) == 0
                                             ? "/runtime/contract/include/"
                                             : "/lib/Targets/CUDA/Kernels/");
  std::string text = readFile(dir + name);
  const std::string directive = "#include \"";
  for (size_t at = text.find(directive); at != std::string::npos;
       at = text.find(directive, at)) {
    const size_t begin = at + directive.size();
    const size_t end = text.find('"', begin);
    const std::string included = text.substr(begin, end - begin);
    std::string inner;
    if (std::find(inlined->begin(), inlined->end(), included) ==
        inlined->end()) {
      inlined->push_back(included);
      inner = kernelTemplate(included, inlined);
    }
    text.replace(at, end + 1 - at, inner);
    at += inner.size();
  }
  return text;
}

/// Expects `actual` to equal `expected` byte for byte; on a difference
/// names the first differing line of each (whole files would flood the log).
inline void expectSameText(const std::string &expected,
                           const std::string &actual, const std::string &what) {
  if (expected == actual)
    return;
  size_t at = 0;
  while (at < expected.size() && at < actual.size() &&
         expected[at] == actual[at])
    ++at;
  const size_t line = expected.rfind('\n', at == 0 ? 0 : at - 1);
  const size_t begin = line == std::string::npos || at == 0 ? 0 : line + 1;
  auto lineAt = [begin](const std::string &text) {
    return text.substr(begin, text.find('\n', begin) - begin);
  };
  ADD_FAILURE() << what << " differ at byte " << at << " (sizes "
                << expected.size() << ", " << actual.size()
                << ")\nexpected: " << lineAt(expected).substr(0, 600)
                << "\nactual:   " << lineAt(actual).substr(0, 600);
}

struct SampledStates {
  std::vector<Atom> states;       ///< [count][A]
  std::vector<Triple> candidates; ///< [count]
  size_t size() const { return candidates.size(); }
};

/// `count` non-terminal states reached by random walks: a random train or
/// test triple, its head or tail replaced by a random entity half of the
/// time, then uniformly random successors until TRUE/FALSE or depth D.
inline SampledStates sampleStates(const Dataset &ds, const KnowledgeBase &kb,
                                  const ShapeParams &shape, size_t count,
                                  uint64_t seed) {
  SampledStates out;
  SplitMix64 rng(seed);
  DerivedSet derived(kb, shape);
  std::vector<Atom> state(shape.A);
  const std::vector<Triple> *splits[] = {&ds.train, &ds.test};
  while (out.size() < count) {
    const std::vector<Triple> &split = *splits[rng.next() % 2];
    Triple c = split[rng.next() % split.size()];
    switch (rng.next() % 4) {
    case 0:
      c.h = static_cast<int32_t>(rng.next() % ds.numEntities());
      break;
    case 1:
      c.t = static_cast<int32_t>(rng.next() % ds.numEntities());
      break;
    default:
      break;
    }
    initialState(c, shape.A, state.data());
    for (int32_t depth = 0; depth < shape.D && out.size() < count; ++depth) {
      out.states.insert(out.states.end(), state.begin(), state.end());
      out.candidates.push_back(c);
      derive(kb, state.data(), c, shape, derived);
      if (derived.isTrue() || derived.isFalse())
        break;
      const Atom *next = derived.state(static_cast<int32_t>(
          rng.next() % static_cast<uint64_t>(derived.count)));
      state.assign(next, next + shape.A);
    }
  }
  return out;
}

/// derived/count of slots [0, n) against the host engine on states
/// [first, first + n) of `sampled`; slots >= n must have count 0.
inline void expectSameDerived(const KnowledgeBase &kb, const ShapeParams &shape,
                              const SampledStates &sampled, size_t first,
                              size_t n, const std::vector<int32_t> &derived,
                              const std::vector<int32_t> &count,
                              const std::string &what) {
  DerivedSet host(kb, shape);
  const size_t stateInts = 3 * static_cast<size_t>(shape.A);
  for (size_t b = 0; b < count.size(); ++b) {
    if (b >= n) {
      EXPECT_EQ(count[b], 0) << what << ": inactive slot " << b;
      continue;
    }
    const Atom *goals = sampled.states.data() + (first + b) * shape.A;
    derive(kb, goals, sampled.candidates[first + b], shape, host);
    ASSERT_EQ(count[b], host.count) << what << ": state " << first + b;
    for (int32_t i = 0; i < host.count; ++i) {
      const int32_t *mine =
          derived.data() + (b * shape.S + static_cast<size_t>(i)) * stateInts;
      const int32_t *ref = reinterpret_cast<const int32_t *>(host.state(i));
      for (size_t w = 0; w < stateInts; ++w)
        ASSERT_EQ(mine[w], ref[w]) << what << ": state " << first + b
                                   << ", derived " << i << ", int " << w;
    }
  }
}

} // namespace proofc::test

#endif // PROOFC_TEST_UNIT_CUDA_KERNELTESTUTIL_H
