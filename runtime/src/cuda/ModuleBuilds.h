//===- ModuleBuilds.h - A bundle's kernel modules, in two tiers -*- C++ -*-===//
//
// Internal to the CUDA backend. Gets the cubins of every module of a
// bundle: from the disk kernel cache, else NVRTC (CUDA C++) or the
// driver's PTX JIT, linking the relocatable modules a PTX module names
// (slot.cu into the policy's tail kernel); each loaded module in a thread
// of its own, so that a cold program waits for its slowest module, not
// for all; and the runtime's device prologue (DevicePrologue) alike. And
// the two tiers of CompileTiers.h: a setup whose optimized kernels are
// not all in the cache may get the quick tier at once while the optimized
// tier (the prologue with it, where the setup needs one) compiles in the
// background, into the cache; the runner then swaps
// (CudaRunner::refreshModules). A Session's backends start that
// optimized build when they open (prefetch), before the dataset loads,
// so that a cold start's compile overlaps the host's work before the
// first setup. One per device of a Session (its workers on that device
// share it: one compile for all of them; CudaBackend::shareModules) and
// one for each backend's rollouts: a later setup, for another pool or
// another worker, takes what the first one started. A backend runs one
// call at a time, the workers sharing a device several at once; within a
// setup the modules and the device prologue are got from two threads,
// and the background build runs beside the calls.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CUDA_MODULEBUILDS_H
#define PROOFC_RUNTIME_CUDA_MODULEBUILDS_H

#if PROOFC_HAVE_CUDA

#include "bundle/Bundle.h"
#include "cuda/CompileTiers.h"
#include "cuda/CudaDriver.h"
#include "cuda/KernelCache.h"
#include "support/Timing.h"

#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace proofc {

/// One tier's cubins of a bundle.
struct ModuleSet {
  bool quick = false; ///< compiled with kQuickTierOption
  /// One per module of the bundle, in its order; empty for a module
  /// linked into another (compiled into that one's cubin).
  std::vector<std::string> cubins;
  /// Each loaded module's own thread: its cubin from the cache, or
  /// compiled with the modules it links.
  std::map<std::string, double> moduleSeconds;
  KernelCacheStats cache; ///< the kernel cache's counters for this set
  /// The runtime's device prologue (DevicePrologue), when the set was
  /// built with it (the background build, for a setup that needed it).
  std::string prologue;
};

/// The device the cubins are for.
struct CompileTarget {
  CUdevice device = 0;
  int major = 0, minor = 0; ///< compute capability

  /// Device `ordinal`'s, asked of the driver (cuDeviceGet and the compute
  /// capability); throws proofc::Error for a driver error.
  static CompileTarget ofOrdinal(int ordinal);
};

/// The device prologue's cubin, and whether it is the quick tier's.
struct PrologueCubin {
  std::string cubin;
  bool quick = false;
};

class ModuleBuilds {
public:
  ModuleBuilds(const Bundle &bundle, const std::string &path,
               KernelCacheOptions cache, CompileTiers tiers);
  /// Waits for a background build: it is what fills the kernel cache, so
  /// that the next program starts on the optimized kernels.
  ~ModuleBuilds();
  ModuleBuilds(const ModuleBuilds &) = delete;
  ModuleBuilds &operator=(const ModuleBuilds &) = delete;

  /// Starts the optimized tier's build (the device prologue with it when
  /// `withPrologue`) in the background before any setup: a Session's
  /// backends call it when they open, so that the compile runs while the
  /// dataset loads and the first block is built. The first setup then
  /// decides as a later one does (quickFor) and takes the build's set
  /// itself (modules(): its counters are the compile's). Nothing when a
  /// setup has decided already, a build runs, or the cache holds every
  /// optimized module (a warm start reads them at its setup, as before;
  /// the first setup takes that answer rather than asking the cache
  /// again).
  void prefetch(const CompileTarget &target, bool withPrologue);

  /// The tier a setup over `candidates` candidates compiles on (true:
  /// quick). The first setup decides (startsOnQuickTier, from whether the
  /// cache holds every optimized module) and, for the quick tier, starts
  /// the optimized build in the background: the bundle's modules, and the
  /// device prologue when `withPrologue` (the setup's first run needs
  /// it). A later setup: quick while that build runs and its pool would
  /// have started on it; otherwise the build is waited for (its error
  /// rethrown) and the tier is the optimized one.
  bool quickFor(const CompileTarget &target, int64_t candidates,
                bool withPrologue);

  /// The modules of a tier, each loaded module in a thread of its own:
  /// from the cache (which the background build filled), else compiled;
  /// without a cache, the background build's own once it has finished.
  /// The quick tier failing to compile (an NVRTC without its option)
  /// gives one notice and the optimized tier, waited for. Throws
  /// proofc::Error for a failed compile.
  std::shared_ptr<const ModuleSet> modules(const CompileTarget &target,
                                           bool quick);

  /// The device prologue's cubin on a tier, as modules() gets a module's
  /// (a quick one that does not compile: the optimized one, without a
  /// notice of its own). Needs no context.
  PrologueCubin prologue(const CompileTarget &target, bool quick);

  /// The background build's cubins once it has finished, else nullptr
  /// (also when none was started). Rethrows its error, once.
  std::shared_ptr<const ModuleSet> optimizedIfDone();

  /// Whether the first setup started on the quick tier.
  bool startedQuick() const { return startedQuick_; }

  /// Seconds from the first setup's decision (or the prefetch) until the
  /// background build finished; < 0 while it runs, or when none was
  /// started.
  double optimizedSeconds() const { return optimizedSeconds_.load(); }

private:
  /// The optimized tier's build in a thread of its own, timed from start_
  /// (with mutex_ held).
  void startOptimizedLocked(const CompileTarget &target, bool withPrologue);
  /// Every module of a tier (and the prologue with `withPrologue`).
  std::shared_ptr<const ModuleSet> build(const CompileTarget &target,
                                         bool quick, bool withPrologue) const;
  /// The cache key of module `m`'s cubin on a tier.
  KernelKey keyFor(const KernelModule &m, bool quick,
                   const CompileTarget &target) const;
  /// Whether the cache holds every loaded module's optimized cubin.
  bool optimizedCached(const CompileTarget &target) const;
  /// Module `m`'s cubin: from `cache`, else compiled (the calling thread
  /// has the device's primary context current: the PTX JIT needs it).
  std::string compileModule(const KernelModule &m, bool quick,
                            const CompileTarget &target,
                            KernelCache &cache) const;
  std::string compilePrologue(const CompileTarget &target, bool quick,
                              KernelCache &cache) const;
  /// A linked module's NVRTC options: its own, the tier's, relocatable.
  std::vector<std::string> relocatableOptions(const KernelModule &m,
                                              bool quick) const;
  /// PTX (and the relocatable cubins `objects` will give, which it calls)
  /// through the driver's JIT linker.
  std::string linkPtx(const std::string &ptx, const std::string &name,
                      std::vector<std::future<std::string>> &objects) const;
  const KernelModule &moduleNamed(const std::string &name) const;
  std::string moduleLabel(const KernelModule &m, bool quick) const;
  // With mutex_ held: the background build's set once it has finished
  // (rethrowing its error, once), and waiting for it first.
  std::shared_ptr<const ModuleSet> takeIfDone();
  void finishLocked();
  /// The background build's set when there is no cache to get it from.
  std::shared_ptr<const ModuleSet> cachelessOptimized();
  /// prefetch()'s set once it has finished, the first time it is asked
  /// for; else nullptr.
  std::shared_ptr<const ModuleSet> claimPrefetched();

  /// A copy: the workers of a device share one ModuleBuilds, which the
  /// backend that made it may not outlive.
  const Bundle bundle_;
  const std::string path_;
  const KernelCacheOptions cacheOptions_;
  const CompileTiers tiers_;
  /// Guards what follows but the atomic: a setup gets its modules and
  /// the device prologue in two threads of its own.
  std::mutex mutex_;
  bool decided_ = false; ///< the first setup has decided
  bool startedQuick_ = false;
  bool quickFailed_ = false; ///< the quick modules did not compile
  /// The background build is prefetch()'s, and its set not yet handed to
  /// a setup by modules().
  bool prefetchUnclaimed_ = false;
  /// prefetch() found every optimized module in the cache: the first
  /// setup's quickFor() does not hash the sources again to ask.
  bool prefetchFoundCached_ = false;
  Clock::time_point start_; ///< the first setup's decision, or the prefetch
  std::future<std::shared_ptr<const ModuleSet>> background_;
  std::shared_ptr<const ModuleSet> optimized_; ///< the background's, taken
  std::atomic<double> optimizedSeconds_{-1};
};

} // namespace proofc

#endif // PROOFC_HAVE_CUDA

#endif // PROOFC_RUNTIME_CUDA_MODULEBUILDS_H
