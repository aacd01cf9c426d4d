//===- CompileTiers.h - Which kernels a cold setup starts on ----*- C++ -*-===//
//
// A cold program waits for its slowest kernel compile: about a second
// or more for V10's step schedule (NVRTC's optimizer and ptxas on the
// advance-engine's module, on the tail's slot.cu and on the runtime's own
// device prologue; docs/performance.md, "The two-tier cold start"), above
// issue 29's 1 s on some machines. So a setup whose kernels are not all in
// the disk kernel cache may start on a quick tier: every CUDA C++ module
// and the device prologue compiled with NVRTC's --Ofast-compile=mid (the
// policy's PTX is JIT-compiled as always), which takes about half the
// time, the kernels then running about 3.8x slower, while the optimized
// tier compiles beside it into the kernel cache; the runner swaps to the
// optimized kernels between calls (cuda/ModuleBuilds.h,
// CudaRunner::refreshModules). The quick tier pays only where a call is
// short: a call of T seconds on the optimized kernels ends sooner on the
// quick tier only while 3.8 T is less than the ~0.6 s the optimized
// compile takes longer, so `auto` starts on it only for pools of at most
// kQuickTierMaxCandidates (a few tenths of a second on the optimized
// kernels at the rates measured); a larger pool (a whole split's blocks)
// waits for the optimized kernels as before. Both tiers give the same
// outcomes (the kernels' integer work and explicit roundings do not
// depend on the optimization level; GpuCompileTiers compares them bit for
// bit).
//
// No CUDA headers: parsed and decided on machines without a GPU too.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CUDA_COMPILETIERS_H
#define PROOFC_RUNTIME_CUDA_COMPILETIERS_H

#include <cstdint>
#include <string>
#include <vector>

namespace proofc {

/// PROOFC_COMPILE_TIERS: "auto" (the default), "always" (the quick tier
/// first whatever the pool: for tests and measurements) or "off" (the
/// optimized kernels only, waited for: the behaviour before the tiers).
enum class CompileTiers { Auto, Always, Off };

/// The NVRTC option the quick tier adds to every CUDA C++ module (also
/// to a module linked into the policy's PTX) and to the device prologue;
/// the PTX is JIT-compiled as on the optimized tier.
inline constexpr const char *kQuickTierOption = "--Ofast-compile=mid";

/// The NVRTC options a tier compiles with: `options`, and on the quick
/// tier kQuickTierOption after them.
std::vector<std::string> tierOptions(std::vector<std::string> options,
                                     bool quick);

/// `auto`'s bound on a setup's pool for the quick tier: V10's 18,745
/// candidates take 2.8 ms on the optimized kernels at B = 8192, a whole
/// split's block of ~7 M about a second.
inline constexpr int64_t kQuickTierMaxCandidates = int64_t{1} << 19;

const char *compileTiersName(CompileTiers tiers);

/// From the environment variable PROOFC_COMPILE_TIERS (unset or empty:
/// auto). Throws proofc::Error naming the variable for another value.
CompileTiers compileTiersFromEnvironment();

/// Parses `text` ("auto", "always", "off"); throws proofc::Error naming
/// `source` for anything else.
CompileTiers parseCompileTiers(const std::string &text,
                               const std::string &source);

/// Whether a setup over `candidates` candidates starts on the quick tier:
/// never when every optimized kernel is in the kernel cache or the tiers
/// are off, always with `always`, with `auto` for pools of at most
/// kQuickTierMaxCandidates.
bool startsOnQuickTier(CompileTiers tiers, bool optimizedCached,
                       int64_t candidates);

} // namespace proofc

#endif // PROOFC_RUNTIME_CUDA_COMPILETIERS_H
