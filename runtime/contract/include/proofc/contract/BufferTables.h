//===- BufferTables.h - The knowledge-base and pool tables, once -*- C++
//-*-===//
//
// The buffers the runtime fills from the knowledge base and the candidate
// pool, or reads back as the candidates' outcomes: one X-macro, expanded by
// every place that needs the list, so that a table is added, renamed or
// reshaped here and nowhere else:
//   - the compiler's buffer components of !eval.kb and !eval.pool
//     (lib/Transforms/ValueBuffers.cpp) and of the recorded actions
//     (lib/Conversion/EvalToGPU/Lowering/LaunchArguments.cpp);
//   - the bindings a bundle may name and their dtypes (BundleNames.h:
//     binding::k<Name>, binding::find, kBufferTables);
//   - the runtime's contents of each binding (runtime/src/cuda/
//     PlanBinding.cpp: kb.<param> is KnowledgeBase::<param>);
//   - the tests' hand-built bundle (test/unit/runtime/cuda/TestBundle.h).
// docs/gpu-kernels.md ("Buffers") explains each table, docs/bundle.md the
// bindings.
//
// X(Name, param, buffer, binding, dtype, rows, cols) per table, in the
// order the kernels take them:
//   Name     identifier: binding::k<Name> (BundleNames.h)
//   param    the kernels' parameter (kernel_abi.h's lists, checked below)
//            and, for the knowledge base, KnowledgeBase's member
//   buffer   the buffer's name in a compiled plan
//   binding  BufferDecl::init ("" : zero-filled)
//   dtype    I32 or F32 (DType, BundleNames.h)
//   rows     the extent's first factor (a run-time symbol, BundleNames.h)
//   cols     its second factor, "" for none (an atom or a triple: "3")
//
// Host C++ only: the kernels take their arguments through kernel_abi.h,
// whose text the bundles carry, so its lists stay as they are and the
// static_asserts below hold them to these.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_CONTRACT_BUFFERTABLES_H
#define PROOFC_CONTRACT_BUFFERTABLES_H

#include "proofc/contract/kernel_abi.h"

#include <cstddef>

/// The knowledge base's CSR tables (!eval.kb), filled from KnowledgeBase.
#define PROOFC_KB_TABLES(X)                                                    \
  X(Facts, facts, "kb_facts", "kb.facts", I32, "NF", "3")                      \
  X(PsOffsets, psOffsets, "kb_ps_offsets", "kb.psOffsets", I32, "RE1", "")     \
  X(PoFacts, poFacts, "kb_po_facts", "kb.poFacts", I32, "NF", "")              \
  X(PoOffsets, poOffsets, "kb_po_offsets", "kb.poOffsets", I32, "RE1", "")     \
  X(PredOffsets, predOffsets, "kb_pred_offsets", "kb.predOffsets", I32, "R1",  \
    "")                                                                        \
  X(RuleHeads, ruleHeads, "kb_rule_heads", "kb.ruleHeads", I32, "NR", "3")     \
  X(RuleBodyOffsets, ruleBodyOffsets, "kb_rule_body_offsets",                  \
    "kb.ruleBodyOffsets", I32, "NR1", "")                                      \
  X(RuleBody, ruleBody, "kb_rule_body", "kb.ruleBody", I32, "NRB", "3")        \
  X(RuleNumVars, ruleNumVars, "kb_rule_num_vars", "kb.ruleNumVars", I32, "NR", \
    "")                                                                        \
  X(RulePredOffsets, rulePredOffsets, "kb_rule_pred_offsets",                  \
    "kb.rulePredOffsets", I32, "R1", "")                                       \
  X(RuleIdsByPred, ruleIdsByPred, "kb_rule_ids_by_pred", "kb.ruleIdsByPred",   \
    I32, "NR", "")

/// The candidate pool (!eval.pool): the candidates' triples in pool order,
/// the pool's counter and the outcomes read back.
#define PROOFC_POOL_TABLES(X)                                                  \
  X(PoolTriples, pool, "pool", "pool.triples", I32, "N", "3")                  \
  X(NextCand, nextCand, "next_cand", "", I32, "1", "")                         \
  X(OutStatus, outStatus, "out_status", "out.status", I32, "N", "")            \
  X(OutDepth, outDepth, "out_depth", "out.depth", I32, "N", "")                \
  X(OutLogp, outLogp, "out_logp", "out.logp", F32, "N", "")

/// The recorded actions (--proofs): N rows of ACTIONS (D when the run
/// records, else 0), declared beside the pool by the lowering.
#define PROOFC_ACTIONS_TABLES(X)                                               \
  X(OutActions, outActions, "out_actions", "out.actions", I32, "N", "ACTIONS")

/// Every table, in the order above.
#define PROOFC_BUFFER_TABLES(X)                                                \
  PROOFC_KB_TABLES(X) PROOFC_POOL_TABLES(X) PROOFC_ACTIONS_TABLES(X)

namespace proofc_abi::detail {
#define PROOFC_TABLE_PARAM(Name, param, buffer, binding, dtype, rows, cols)    \
  #param,
constexpr const char *kKbTableParams[] = {PROOFC_KB_TABLES(PROOFC_TABLE_PARAM)};
constexpr const char *kOutcomeTableParams[] = {PROOFC_POOL_TABLES(
    PROOFC_TABLE_PARAM) PROOFC_ACTIONS_TABLES(PROOFC_TABLE_PARAM)};
#undef PROOFC_TABLE_PARAM
constexpr const char *kAbiKbParams[] = {PROOFC_ABI_KB_ARGS(PROOFC_ABI_NAME)};
constexpr const char *kAbiOutcomeParams[] = {
    PROOFC_ABI_OUTCOME_ARGS(PROOFC_ABI_NAME)};

/// Whether `n` names of `a` from `ai` on equal `b`'s from `bi` on.
template <std::size_t NA, std::size_t NB>
constexpr bool sameNames(const char *const (&a)[NA], std::size_t ai,
                         const char *const (&b)[NB], std::size_t bi,
                         std::size_t n) {
  if (ai + n > NA || bi + n > NB)
    return false;
  for (std::size_t i = 0; i < n; ++i)
    if (!sameName(a[ai + i], b[bi + i]))
      return false;
  return true;
}
constexpr std::size_t kNumKbTables = sizeof(kKbTableParams) / sizeof(char *);
constexpr std::size_t kNumOutcomeTables =
    sizeof(kOutcomeTableParams) / sizeof(char *);
} // namespace proofc_abi::detail

// The kernels take the knowledge base's tables in this order, and the
// pool's counter, outcomes and actions as the tables after the triples.
static_assert(
    proofc_abi::detail::kNumKbTables ==
            sizeof(proofc_abi::detail::kAbiKbParams) / sizeof(char *) &&
        proofc_abi::detail::sameNames(proofc_abi::detail::kKbTableParams, 0,
                                      proofc_abi::detail::kAbiKbParams, 0,
                                      proofc_abi::detail::kNumKbTables),
    "BufferTables.h: PROOFC_KB_TABLES and kernel_abi.h's "
    "PROOFC_ABI_KB_ARGS disagree");
static_assert(
    proofc_abi::detail::sameNames(proofc_abi::detail::kOutcomeTableParams, 1,
                                  proofc_abi::detail::kAbiOutcomeParams, 0,
                                  proofc_abi::detail::kNumOutcomeTables - 1),
    "BufferTables.h: the pool's tables after the triples and "
    "kernel_abi.h's PROOFC_ABI_OUTCOME_ARGS disagree");

#endif // PROOFC_CONTRACT_BUFFERTABLES_H
