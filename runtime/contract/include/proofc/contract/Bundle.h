//===- Bundle.h - The bundle's model, shared by compiler and runtime -*- C++
//-*-===//
//
// The one artefact shared by compiler and runtime (IREE's executable-def
// idea): `proofc compile` writes it, the runtime verifies it before use.
// A bundle is self-contained: the program spec (host backend), the kernel
// modules (PTX from MLIR, CUDA C++ templates for NVRTC), and the GPU plan —
// buffers, bindings, weight-folding prologue, kernels and their launch order
// with the engine cond and the proof loop. Sizes are symbolic over the
// run-time symbols (B, S, A, D, d, E, R, NF, N, ...) so one bundle runs on
// any dataset. On disk it is JSON (schema "proofc-bundle", versioned).
// This header is the model only (plain structs, in the contract): the
// compiler fills it (lib/Targets/Bundle), the runtime reads, verifies and
// writes it (proofc/runtime/Bundle.h).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_CONTRACT_BUNDLE_H
#define PROOFC_CONTRACT_BUNDLE_H

#include "proofc/contract/BundleNames.h"
#include "proofc/contract/Program.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace proofc {

/// 2: each launch has a "role" (BundleNames.h). 3: the version's key is
/// "version" (as in every other proofc format; it was "format_version") and
/// the setup launches are "schedule.setup" (they were "schedule.prologue",
/// a name the weight prologue also has). 4: the program's policy lists
/// eval.select's modes ("select_modes": ["greedy"] or ["greedy",
/// "sampled"], docs/sampling.md). An older bundle is refused with
/// "recompile the program".
inline constexpr int kBundleFormatVersion = 4;

/// A symbolic extent: the product of its factors, each a decimal literal or a
/// run-time symbol name (kBundleSymbols, BundleNames.h; docs/bundle.md lists
/// them).
struct Extent {
  std::vector<std::string> factors;
};

/// A device buffer, allocated once at a fixed address before the loop.
struct BufferDecl {
  std::string name;
  DType dtype = DType::I32;
  Extent elements;
  /// Where its initial contents come from: "" (zero-filled once), a binding
  /// the runtime knows (binding::find, BundleNames.h: "kb.facts",
  /// "pool.triples", ...),
  /// or a weight or a folded table produced by the prologue
  /// ("weights:<name>"). "out.status" / "out.depth" / "out.logp" are
  /// zero-filled and read back after the loop as the candidates' outcomes.
  std::string init;
};

/// Host-side weight preparation done once when the weights load; `dst` names
/// a new tensor that buffers bind as "weights:<dst>" (it may not shadow a
/// weight of the file or an earlier dst).
/// "fold_columns": dst[r, :] = bias + table[r, :] · weight[:, colBegin:
///   colBegin+cols]^T, table [rows, cols], weight [out, >= colBegin+cols],
///   bias [out] or "" for none; computed in double, rounded once (the atom
///   embedding's linear split into pre-projected tables, as HostPolicy does).
/// "copy": dst = table, or its transpose [cols, rows] when `transpose`.
/// "tf32_fragments": table, an nn.Linear weight [out, in], split into TF32
///   high and low parts in mma.sync B-fragment order.
/// "f16_fragments": the same split into IEEE half high and low parts, two a
///   word, in mma.sync m16n8k16's B-fragment order (in a multiple of 16).
/// "fold_atom_layer": table = pred_proj [R+2, w], args = {arg0_const,
///   arg1_const, arg0_var, arg1_var} ([E, w], [E, w], [V, w], [V, w]),
///   weight = linear 0's W [out, w]: dst [atomLayerRows, out] holds W times
///   every atom's relu?(pred + arg0 + arg1) (`relu`), no bias; kernel_abi.h
///   defines its rows and budget, docs/bundle.md its index convention.
struct PrologueOp {
  std::string op;
  std::string dst, table, weight, bias;
  int64_t colBegin = 0, cols = 0;
  bool transpose = false;
  /// fold_atom_layer only (JSON "args", "relu"; absent for other ops).
  std::vector<std::string> args;
  bool relu = false;
};

struct KernelModule {
  std::string name;
  std::string format; ///< "ptx" (from MLIR) or "cuda" (CUDA C++ for NVRTC)
  std::string source;
  std::vector<std::string> options; ///< NVRTC options for "cuda"
  /// "ptx": the "cuda" modules linked into it (compiled as relocatable
  /// device code, not loaded alone); JSON field "link", absent when empty.
  std::vector<std::string> link;
};

/// A kernel argument: "buf:<buffer>" (device pointer), "sym:<symbol>" (int32
/// scalar), "i32:<literal>", "f32:<literal>", "cond:<name>" (u64 conditional
/// handle, 0 when the cond is not a native graph node), "node:<launch>"
/// (u64 device address of the record of the next graph node of that
/// launch, made device-updatable: kernel_abi.h's ArgKind::Node and
/// GraphNodeRecord; 0 outside a graph with conditional nodes, and for
/// "node:" alone).
struct Launch {
  std::string name;   ///< unique within the plan
  std::string module; ///< KernelModule::name
  std::string entry;  ///< symbol in the module
  Extent grid;        ///< 1-D grid: blocks
  int32_t block = 128;
  int32_t sharedBytes = 0;
  std::vector<std::string> args;
  LaunchRole role = LaunchRole::Policy; ///< what it does (JSON "role")
};

/// One node of the schedule: a launch, or a cond whose body runs when the
/// int32 flag buffer `flag` is non-zero (computed on the device).
struct ScheduleNode {
  std::string launch; ///< when non-empty: run Launch `launch`
  std::string cond;   ///< when non-empty: the cond's name
  std::string flag;   ///< the cond's flag buffer (int32 [1])
  std::vector<ScheduleNode> body;
};

struct Schedule {
  /// The setup launches: once, before the loop (bundle key
  /// "schedule.setup" since format 3; not the weight prologue).
  std::vector<ScheduleNode> setup;
  std::vector<ScheduleNode> step; ///< the proof-loop body
  /// Once, after the loop ends (bundle key "schedule.tail", present only
  /// when non-empty): the launches that finish the slots still active when
  /// the step schedule hands them to the persistent kernel
  /// (docs/gpu-kernels.md, "The tail hand-off").
  std::vector<ScheduleNode> tail;
  std::string loopFlag; ///< int32 [1]: non-zero while any slot is active
  std::string loopCond; ///< cond name for the WHILE node's handle
};

struct GpuPlan {
  std::vector<BufferDecl> buffers;
  std::vector<PrologueOp> prologue;
  std::vector<Launch> launches;
  Schedule schedule;
};

struct Bundle {
  int32_t formatVersion = kBundleFormatVersion;
  std::string proofcVersion;
  std::string source; ///< the program's file name, for messages
  ProgramSpec program;
  std::vector<KernelModule> modules;
  GpuPlan plan;
};

} // namespace proofc

#endif // PROOFC_CONTRACT_BUNDLE_H
