//===- BundleNames.h - The names a bundle uses, defined once ----*- C++ -*-===//
//
// The vocabulary shared by the compiler, which writes bundles, and the
// runtime, which reads them: the run-time symbols of extents and arguments,
// the named bindings a buffer's init may use (the tables of BufferTables.h),
// and the role of each launch.
// Standard library only, so the runtime stays free of MLIR and the compiler
// (lib/Dialect, lib/Transforms, lib/Conversion, lib/Targets) includes it as
// it is. docs/bundle.md documents each name.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_CONTRACT_BUNDLENAMES_H
#define PROOFC_CONTRACT_BUNDLENAMES_H

#include "proofc/contract/BufferTables.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace proofc {

/// The run-time symbols an extent or a `sym:` argument may name: from the
/// program "B", "S", "A", "A2" (2A), "D", "d", "L"; from the data "E", "R",
/// "R1" (R+1), "R2" (R+2), "RE1" (R*E+1), "NF" (facts), "NR" (rules), "NR1"
/// (NR+1), "NRB" (rule body atoms), "N" (candidates); from the runtime
/// "MEMO" (the step memo's entries, memoEntriesFor()) and "ACTIONS" (D when
/// the run records the steps' actions, else 0: the rows of out.actions);
/// from program and data "AL" (the rows of the folded atom layer,
/// kernel_abi.h's atomLayerRows(R, E, 2A, d), 0 past its budget) and "AN"
/// (its argument rows atomLayerArgRows(2A, E) when AL > 0, else 0).
inline constexpr std::string_view kBundleSymbols[] = {
    "B",   "S",  "A",  "A2",  "D",   "d", "L",    "E",       "R",  "R1", "R2",
    "RE1", "NF", "NR", "NR1", "NRB", "N", "MEMO", "ACTIONS", "AL", "AN"};

inline bool isBundleSymbol(std::string_view name) {
  for (std::string_view symbol : kBundleSymbols)
    if (name == symbol)
      return true;
  return false;
}

enum class DType { I32, F32, U32 };

/// A buffer the runtime fills from the knowledge base or the pool, or reads
/// back (BufferTables.h's X-macro, expanded once here as data).
struct BufferTable {
  std::string_view param;   ///< the kernels' parameter
  std::string_view buffer;  ///< the buffer's name in a compiled plan
  std::string_view binding; ///< BufferDecl::init ("": zero-filled)
  DType dtype;
  std::string_view rows, cols; ///< the extent's factors (cols "": none)

  /// The extent's factors in order: rows, then cols when there is one (how
  /// the compiler declares the buffer and a test bundle writes it).
  std::vector<std::string_view> factors() const {
    if (cols.empty())
      return {rows};
    return {rows, cols};
  }
};
#define PROOFC_BUFFER_TABLE(Name, param, buffer, binding, dtype, rows, cols)   \
  BufferTable{#param, buffer, binding, DType::dtype, rows, cols},
/// The knowledge base's tables (!eval.kb), in the kernels' order.
inline constexpr BufferTable kKbTables[] = {
    PROOFC_KB_TABLES(PROOFC_BUFFER_TABLE)};
/// The pool's (!eval.pool): triples, counter, outcomes.
inline constexpr BufferTable kPoolTables[] = {
    PROOFC_POOL_TABLES(PROOFC_BUFFER_TABLE)};
/// The recorded actions (--proofs), declared only when a run records.
inline constexpr BufferTable kActionsTables[] = {
    PROOFC_ACTIONS_TABLES(PROOFC_BUFFER_TABLE)};
/// All of them.
inline constexpr BufferTable kBufferTables[] = {
    PROOFC_BUFFER_TABLES(PROOFC_BUFFER_TABLE)};
#undef PROOFC_BUFFER_TABLE

/// The named bindings a BufferDecl::init may use (besides "" and
/// "weights:<name>"): the tables' (BufferTables.h). The runtime fills kb.*
/// from the knowledge base and pool.triples from the candidates in pool
/// order, and reads out.* back as the candidates' outcomes (out.actions:
/// the recorded actions, --proofs).
namespace binding {
/// binding::k<Name> for every table ("kb.facts", ..., "out.actions"; ""
/// for a zero-filled one).
#define PROOFC_BINDING_NAME(Name, param, buffer, binding, dtype, rows, cols)   \
  inline constexpr std::string_view k##Name = binding;
PROOFC_BUFFER_TABLES(PROOFC_BINDING_NAME)
#undef PROOFC_BINDING_NAME
/// The prefix of a weight or prologue table: "weights:<name>".
inline constexpr std::string_view kWeightsPrefix = "weights:";
/// The prefix of the outputs read back after the loop.
inline constexpr std::string_view kOutPrefix = "out.";

/// The table bound to `name`, or null (also for "").
inline const BufferTable *find(std::string_view name) {
  for (const BufferTable &t : kBufferTables)
    if (!t.binding.empty() && t.binding == name)
      return &t;
  return nullptr;
}
} // namespace binding

/// What a launch of the plan does, written by the compiler into each launch
/// ("role") so the runtime never guesses it from a kernel's name. A reader
/// refuses a role it does not know.
enum class LaunchRole {
  Init,          ///< step.cu's proofc_init: fills the slots from the pool
  Engine,        ///< proofc_engine: derives every slot's next states
  Advance,       ///< proofc_advance: transition, terminal check, recycle
  AdvanceEngine, ///< proofc_advance_engine: advance, then derive, fused
  Finish,        ///< proofc_finish: ends the persistent schedule's loop
  Policy,        ///< the generated policy kernel (scores and selects)
  Persistent,    ///< the persistent policy kernel: runs each slot to the end
  Copy,          ///< copy_words: an eval.copy between buffers
};

struct LaunchRoleName {
  LaunchRole role;
  std::string_view name;
};
inline constexpr LaunchRoleName kLaunchRoles[] = {
    {LaunchRole::Init, "init"},
    {LaunchRole::Engine, "engine"},
    {LaunchRole::Advance, "advance"},
    {LaunchRole::AdvanceEngine, "advance_engine"},
    {LaunchRole::Finish, "finish"},
    {LaunchRole::Policy, "policy"},
    {LaunchRole::Persistent, "persistent"},
    {LaunchRole::Copy, "copy"},
};

inline std::string_view launchRoleName(LaunchRole role) {
  for (const LaunchRoleName &r : kLaunchRoles)
    if (r.role == role)
      return r.name;
  return "?";
}

inline std::optional<LaunchRole> launchRoleNamed(std::string_view name) {
  for (const LaunchRoleName &r : kLaunchRoles)
    if (r.name == name)
      return r.role;
  return std::nullopt;
}

/// "init, engine, ..." for messages.
inline std::string launchRoleList() {
  std::string out;
  for (const LaunchRoleName &r : kLaunchRoles)
    out.append(out.empty() ? "" : ", ").append(r.name);
  return out;
}

} // namespace proofc

#endif // PROOFC_CONTRACT_BUNDLENAMES_H
