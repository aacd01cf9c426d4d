//===- EmulatedLaunch.h - bound launches on the CPU ----------- -*- C++ -*-===//
//
// What the emulated plans (EmulatedPlanTest.cpp, EmulatedPolicyAdvanceTest
// .cpp) share: a bound launch's arguments converted to the parameter types
// the emulated kernel declares (kernel_abi.h's lists make step.cu's), and
// the kernel's call with them, over the plan's buffers in host memory.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_TARGETS_CUDA_KERNELS_EMULATEDLAUNCH_H
#define PROOFC_TEST_UNIT_TARGETS_CUDA_KERNELS_EMULATEDLAUNCH_H

#include "cuda/PlanBinding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace proofc::test {

/// Every buffer of a binding in host memory, a word a uint32_t.
using EmulatedMemory = std::vector<std::vector<uint32_t>>;

/// The address a "node:<launch>" argument passes (0 for "node:").
using NodeAddress = std::function<unsigned long long(const std::string &)>;

/// Argument i of launch l as a kernel parameter of type T: a pointer takes
/// a buffer, int an int32, float an f32, unsigned long long a conditional
/// handle (0: no native conditional nodes) or a node record's address
/// (`node`; none named: 0).
template <typename T>
T emulatedArg(EmulatedMemory &memory, const BoundLaunch &l, size_t i,
              const NodeAddress &node) {
  const BoundArg &a = l.args.at(i);
  if constexpr (std::is_pointer_v<T>) {
    EXPECT_EQ(a.kind, BoundArg::Kind::Buffer) << "arg " << i;
    return reinterpret_cast<T>(memory[a.buffer].data());
  } else if constexpr (std::is_same_v<T, int>) {
    EXPECT_EQ(a.kind, BoundArg::Kind::I32) << "arg " << i;
    return a.i32;
  } else if constexpr (std::is_same_v<T, float>) {
    EXPECT_EQ(a.kind, BoundArg::Kind::F32) << "arg " << i;
    return a.f32;
  } else {
    static_assert(std::is_same_v<T, unsigned long long>);
    EXPECT_TRUE(a.kind == BoundArg::Kind::Cond ||
                a.kind == BoundArg::Kind::Node)
        << "arg " << i;
    return a.kind == BoundArg::Kind::Node && !a.node.empty() ? node(a.node)
                                                             : 0ull;
  }
}

template <typename... P, size_t... I>
std::function<void()> emulatedCall(void (*kernel)(P...), const BoundLaunch &l,
                                   EmulatedMemory &memory, NodeAddress node,
                                   std::index_sequence<I...>) {
  EXPECT_EQ(l.args.size(), sizeof...(P)) << l.launch->entry;
  if (l.args.size() != sizeof...(P))
    return nullptr;
  return [kernel, &l, &memory, node] {
    kernel(emulatedArg<P>(memory, l, I, node)...);
  };
}

/// The body that calls `kernel` with launch l's arguments; none (after a
/// failure) when the counts differ.
template <typename... P>
std::function<void()> emulatedCall(void (*kernel)(P...), const BoundLaunch &l,
                                   EmulatedMemory &memory, NodeAddress node) {
  return emulatedCall(kernel, l, memory, std::move(node),
                      std::index_sequence_for<P...>{});
}

} // namespace proofc::test

#endif
