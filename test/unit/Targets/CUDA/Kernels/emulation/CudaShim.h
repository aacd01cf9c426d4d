//===- CudaShim.h - Run the CUDA C++ kernel templates on the CPU -*- C++
//-*-===//
//
// Test-only. The kernel templates (lib/Targets/CUDA/Kernels/*.cu) use a small
// subset of CUDA: __global__/__device__/__shared__/__noinline__,
// threadIdx/blockIdx/ blockDim, gridDim, __syncthreads(), __threadfence(),
// atomicAdd/CAS/Min/Max/Exch, the warp's __shfl_sync, __shfl_xor_sync and
// __any_sync (a full mask, every lane of the warp taking part), __trap and
// cudaGraphSetConditional.
// Including this header before a .cu file compiles it as plain C++; launch()
// then runs a grid block by block, each block's threads as cooperative fibers
// on one OS thread. __syncthreads() is a barrier of the block's threads still
// running (a thread that returned is not waited for), a warp operation one of
// the warp's: a fiber waits there, switching to the others, until all have
// arrived. Shared memory is a function-local static (one block runs at a
// time). This lets the exact kernel code be checked against the host engine
// on a machine with no GPU.
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

/// A barrier of the fibers still running in a group (the block, a warp):
/// `arrived` of them are waiting in its generation.
struct Barrier {
  unsigned arrived = 0;
  unsigned long long generation = 0;
};

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
  unsigned running = 0;              // the block's fibers not done
  Barrier block;                     // __syncthreads
  std::vector<Barrier> warps;        // a warp operation's, a warp each
  std::vector<unsigned> warpRunning; // the warp's fibers not done
  std::vector<unsigned> exchange;    // a word a lane, 32 a warp
};

inline FiberState &fiberState() {
  static FiberState state;
  return state;
}

/// Switches to the scheduler, which runs the other fibers in turn.
inline void yieldFiber() {
  FiberState &fs = fiberState();
  swapcontext(&fs.fibers[fs.current].context, &fs.scheduler);
}

/// Opens the barrier's next generation once `running` fibers are waiting.
inline void releaseIfAll(Barrier &b, unsigned running) {
  if (b.arrived > 0 && b.arrived >= running) {
    b.arrived = 0;
    ++b.generation;
  }
}

/// Waits at b until every fiber of its group still running has arrived.
inline void arrive(Barrier &b, unsigned running) {
  const unsigned long long generation = b.generation;
  ++b.arrived;
  releaseIfAll(b, running);
  while (b.generation == generation)
    yieldFiber();
}

inline void fiberEntry() {
  FiberState &fs = fiberState();
  (*fs.body)();
  // A returned thread is not waited for: the barriers it would have held
  // open are released when the others are all there.
  const unsigned warp = fs.current / 32;
  fs.fibers[fs.current].done = true;
  fs.exchange[fs.current] = 0u; // neutral in __any_sync
  --fs.running;
  --fs.warpRunning[warp];
  releaseIfAll(fs.block, fs.running);
  releaseIfAll(fs.warps[warp], fs.warpRunning[warp]);
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
  const unsigned warps = (block + 31) / 32;
  fs.exchange.assign(warps * 32, 0u);
  gridDim.x = grid;
  blockDim.x = block;
  for (unsigned b = 0; b < grid; ++b) {
    blockIdx.x = b;
    fs.running = block;
    fs.block = Barrier{};
    fs.warps.assign(warps, Barrier{});
    fs.warpRunning.assign(warps, 0u);
    for (unsigned t = 0; t < block; ++t) {
      ++fs.warpRunning[t / 32];
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

/// The warp operation's exchange: every lane publishes `bits`, waits for
/// the others, reads what `read` picks from the warp's words, and waits
/// again so that no lane's next operation overwrites a word still read.
template <typename Read> unsigned warpExchange(unsigned bits, Read read) {
  FiberState &fs = fiberState();
  const unsigned me = fs.current, warp = me / 32;
  fs.exchange[me] = bits;
  arrive(fs.warps[warp], fs.warpRunning[warp]);
  const unsigned out = read(&fs.exchange[warp * 32], me % 32);
  arrive(fs.warps[warp], fs.warpRunning[warp]);
  return out;
}

template <typename T> unsigned toBits(T v) {
  static_assert(sizeof(T) == 4, "the shim's warp operations move 32 bits");
  unsigned u;
  std::memcpy(&u, &v, 4);
  return u;
}

template <typename T> T fromBits(unsigned u) {
  T v;
  std::memcpy(&v, &u, 4);
  return v;
}

} // namespace proofc::emu

inline void __syncthreads() {
  proofc::emu::FiberState &fs = proofc::emu::fiberState();
  proofc::emu::arrive(fs.block, fs.running);
}

template <typename T> T __shfl_sync(unsigned, T v, int src) {
  return proofc::emu::fromBits<T>(proofc::emu::warpExchange(
      proofc::emu::toBits(v),
      [src](const unsigned *lanes, unsigned) { return lanes[src & 31]; }));
}

template <typename T> T __shfl_xor_sync(unsigned, T v, int laneMask) {
  return proofc::emu::fromBits<T>(proofc::emu::warpExchange(
      proofc::emu::toBits(v), [laneMask](const unsigned *lanes, unsigned me) {
        return lanes[(me ^ static_cast<unsigned>(laneMask)) & 31];
      }));
}

inline int __any_sync(unsigned, int predicate) {
  return static_cast<int>(proofc::emu::warpExchange(
      predicate != 0 ? 1u : 0u, [](const unsigned *words, unsigned) {
        unsigned any = 0;
        for (unsigned l = 0; l < 32; ++l)
          any |= words[l];
        return any;
      }));
}

#endif // PROOFC_TEST_UNIT_CUDA_EMULATION_CUDASHIM_H
