//===- CudaShim.h - Run the CUDA C++ kernel templates on the CPU -*- C++
//-*-===//
//
// Test-only. The kernel templates (lib/Targets/CUDA/Kernels/*.cu) use a small
// subset of CUDA: __global__/__device__/__shared__/__noinline__,
// threadIdx/blockIdx/ blockDim, gridDim, __syncthreads(), __threadfence(),
// atomicAdd/CAS/Min/Max/Exch,
// __trap and cudaGraphSetConditional.
// Including this header before a .cu file compiles it as plain C++; launch()
// then runs a grid block by block, each block's threads as cooperative fibers
// on one OS thread: __syncthreads() switches to the next fiber, so a round
// over the fibers takes every thread from one barrier to the next. Shared
// memory is a function-local static (one block runs at a time). This lets the
// exact kernel code be checked against the host engine on a machine with no
// GPU.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_CUDA_EMULATION_CUDASHIM_H
#define PROOFC_TEST_UNIT_CUDA_EMULATION_CUDASHIM_H

#include <ucontext.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace proofc::emu {
struct Dim3 {
  unsigned x = 0, y = 1, z = 1;
};
} // namespace proofc::emu

inline proofc::emu::Dim3 threadIdx, blockIdx, blockDim, gridDim;

#define __global__
#define __device__
#define __shared__ static
#define __forceinline__ inline
#define __noinline__

inline void __trap() {
  std::fprintf(stderr, "emulated kernel executed __trap()\n");
  std::abort();
}

template <typename T> T atomicAdd(T *address, T value) {
  T old = *address;
  *address += value;
  return old;
}

template <typename T> T atomicCAS(T *address, T compare, T value) {
  T old = *address;
  if (old == compare)
    *address = value;
  return old;
}

template <typename T> T atomicExch(T *address, T value) {
  T old = *address;
  *address = value;
  return old;
}

/// Blocks run one at a time on one OS thread: memory is always in order.
inline void __threadfence() {}

template <typename T> T atomicMin(T *address, T value) {
  T old = *address;
  if (value < old)
    *address = value;
  return old;
}

template <typename T> T atomicMax(T *address, T value) {
  T old = *address;
  if (value > old)
    *address = value;
  return old;
}

namespace proofc::emu {

/// The cooperative fibers of the block being run.
struct FiberState {
  struct Fiber {
    ucontext_t context;
    std::vector<char> stack;
    bool done = false;
  };
  ucontext_t scheduler;
  std::vector<Fiber> fibers;
  unsigned current = 0;
  const std::function<void()> *body = nullptr;
};

inline FiberState &fiberState() {
  static FiberState state;
  return state;
}

inline void fiberEntry() {
  FiberState &fs = fiberState();
  (*fs.body)();
  fs.fibers[fs.current].done = true;
  swapcontext(&fs.fibers[fs.current].context, &fs.scheduler);
}

/// Runs body() as a grid of `grid` blocks of `block` threads.
inline void launch(unsigned grid, unsigned block,
                   const std::function<void()> &body) {
  constexpr size_t kStackBytes = 256 * 1024;
  FiberState &fs = fiberState();
  fs.body = &body;
  if (fs.fibers.size() < block)
    fs.fibers.resize(block);
  gridDim.x = grid;
  blockDim.x = block;
  for (unsigned b = 0; b < grid; ++b) {
    blockIdx.x = b;
    for (unsigned t = 0; t < block; ++t) {
      FiberState::Fiber &f = fs.fibers[t];
      f.stack.resize(kStackBytes);
      f.done = false;
      getcontext(&f.context);
      f.context.uc_stack.ss_sp = f.stack.data();
      f.context.uc_stack.ss_size = f.stack.size();
      f.context.uc_link = nullptr;
      makecontext(&f.context, fiberEntry, 0);
    }
    for (bool alive = true; alive;) {
      alive = false;
      for (unsigned t = 0; t < block; ++t) {
        if (fs.fibers[t].done)
          continue;
        fs.current = t;
        threadIdx.x = t;
        swapcontext(&fs.scheduler, &fs.fibers[t].context);
        alive = alive || !fs.fibers[t].done;
      }
    }
  }
}

} // namespace proofc::emu

inline void __syncthreads() {
  proofc::emu::FiberState &fs = proofc::emu::fiberState();
  swapcontext(&fs.fibers[fs.current].context, &fs.scheduler);
}

#endif // PROOFC_TEST_UNIT_CUDA_EMULATION_CUDASHIM_H
