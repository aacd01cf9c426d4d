//===- LaunchArguments.cpp - the kernels' argument lists
//--------------------===//
//
// The argument lists the launches pass, in the order kernel_abi.h declares
// and docs/gpu-kernels.md documents: the flag handles, the advance's and
// the engine's buffers, the recorded actions, the step memo's buffers
// (memo.cu's entry layout, kernel_abi.h's memoEntryWords), slot.cu's
// words; and checkKernelAbi, which holds every launch built here against
// kernel_abi.h.
//
//===----------------------------------------------------------------------===//
#include "ProgramLowering.h"

#include "proofc/contract/kernel_abi.h"

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::lowering;

LogicalResult ProgramLowering::checkKernelAbi() {
  LogicalResult result = success();
  program.walk([&](LaunchOp launch) {
    std::vector<std::string> args;
    for (Attribute a : launch.getArgs())
      args.push_back(cast<StringAttr>(a).getValue().str());
    const int n = static_cast<int>(args.size());
    std::string entry = launch.getKernel().getLeafReference().str();
    const proofc_abi::KernelSignature *sig =
        proofc_abi::findKernel(entry.c_str());
    int first = 0; // the persistent kernel's slot.cu words come last
    const std::string_view role(launch.getRole());
    if (!sig &&
        role == proofc::launchRoleName(proofc::LaunchRole::Persistent)) {
      sig = &proofc_abi::kSlotStep;
      first = std::max(n - sig->numArgs, 0);
    } else if (!sig && advancesInPolicy() &&
               role == proofc::launchRoleName(proofc::LaunchRole::Policy)) {
      // The advancing policy's: slot.cu's advance words come last.
      sig = &proofc_abi::kPolicyAdvance;
      first = std::max(n - sig->numArgs, 0);
    }
    if (!sig)
      return;
    const int bad = proofc_abi::firstMismatch(
        *sig, n, first, [&](int i) { return args[i].c_str(); });
    if (bad < 0 && n - first == sig->numArgs)
      return;
    InFlightDiagnostic diag = launch.emitOpError()
                              << "eval-lower-to-gpu: the arguments of "
                              << sig->entry << " disagree with "
                              << "kernel_abi.h (" << sig->numArgs
                              << " expected, " << n - first << " built";
    if (bad >= 0 && bad < sig->numArgs)
      diag << "; '" << sig->names[bad] << "' is not "
           << proofc_abi::kindPrefix(sig->kinds[bad]);
    diag << ")";
    result = failure();
  });
  return result;
}

SmallVector<std::string> ProgramLowering::flagArgs(BufferOp flag) {
  return {bufArg(flag), bufArg(flag), "cond:" + engineCond,
          "cond:" + kLoopCond.str()};
}

FailureOr<SmallVector<std::string>> ProgramLowering::slotStepArgs() {
  FailureOr<AdvanceBuffers> a = advanceBuffers(fusedAdvance);
  auto engine = cast<EngineOp>(fusedCond.getBody().front().front());
  auto kb = buffers(engine.getKb(), engine);
  if (failed(a) || failed(kb))
    return failure();
  return advanceEngineArgs(fusedAdvance, *a, *kb);
}

FailureOr<SmallVector<std::string>> ProgramLowering::policyAdvanceArgs() {
  FailureOr<SmallVector<std::string>> args = slotStepArgs();
  if (failed(args))
    return failure();
  const auto &[policyWords, policyList] = policyGridBuffers();
  const auto &[engineWords, engineList] = engineGridBuffers();
  // ChildrenPerPart's value is the policy kernel's own (buildPolicyKernel).
  llvm::append_range(
      *args, SmallVector<std::string>{"buf:" + stepCounters(), "i32:0",
                                      "buf:" + policyWords, "buf:" + policyList,
                                      "sym:B", "buf:" + engineWords,
                                      "buf:" + engineList});
  return args;
}

const std::string &ProgramLowering::stepCounters() {
  if (countersBuffer.empty())
    countersBuffer =
        addScratchBuffer("advance_engine_counters",
                         IntegerType::get(program.getContext(), 32), {"2"});
  return countersBuffer;
}

SmallVector<std::string> ProgramLowering::memoArgs() {
  // One step memo a program, declared at the first call: every kernel that
  // advances the slots (the advance-engine and the tail hand-off's
  // persistent kernel after it) reads and fills the same entries, and a
  // slot's claim made in one is published by the other.
  if (memoBuffers.first.empty()) {
    Type i32 = IntegerType::get(program.getContext(), 32);
    std::string words = std::to_string(memoEntryWords());
    memoBuffers = {addScratchBuffer("memo_table", i32, {"MEMO", words}),
                   addScratchBuffer("memo_claims", i32, {"B"})};
  }
  return {"buf:" + memoBuffers.first, "buf:" + memoBuffers.second, "sym:MEMO"};
}

int64_t ProgramLowering::memoEntryWords() {
  return proofc_abi::memoEntryWords(
      static_cast<int>(program.getAAttr().getInt()));
}

SmallVector<std::string> ProgramLowering::outActionsArgs() {
  // The contract's one table of recorded actions (BufferTables.h), i32.
  const proofc::BufferTable &t = proofc::kActionsTables[0];
  static_assert(std::size(proofc::kActionsTables) == 1 &&
                    proofc::kActionsTables[0].dtype == proofc::DType::I32,
                "the recorded actions are one i32 table");
  if (outActionsBuffer.empty()) {
    const std::vector<std::string_view> factors = t.factors();
    outActionsBuffer = addScratchBuffer(
        t.buffer, IntegerType::get(program.getContext(), 32),
        SmallVector<StringRef>(factors.begin(), factors.end()), t.binding);
  }
  return {"buf:" + outActionsBuffer, "sym:ACTIONS"};
}

FailureOr<AdvanceBuffers> ProgramLowering::advanceBuffers(AdvanceOp advance) {
  auto pool = buffers(advance.getPool(), advance);
  auto derived = buffers(advance.getDerived(), advance);
  auto action = buffers(advance.getAction(), advance);
  auto logp = buffers(advance.getLogp(), advance);
  auto slots = buffers(advance.getSlots(), advance);
  auto result = buffers(advance.getResult(), advance);
  auto flag = buffers(advance.getActive(), advance);
  if (failed(pool) || failed(derived) || failed(action) || failed(logp) ||
      failed(slots) || failed(result) || failed(flag) ||
      failed(checkLoopFlag(advance, (*flag)[0])))
    return failure();
  if (*slots != *result)
    return advance.emitOpError("eval-lower-to-gpu: the kernel advances the "
                               "slots in place; operand and result must "
                               "share buffers (run eval-plan-buffers)");
  return AdvanceBuffers{*pool, *derived, *action, *logp, *slots, *flag};
}

void ProgramLowering::appendSlotsAndOutcomes(SmallVector<std::string> &args,
                                             const AdvanceBuffers &a) {
  for (BufferOp b : a.slots)
    args.push_back(bufArg(b));
  for (BufferOp b : ArrayRef<BufferOp>(a.pool).drop_front())
    args.push_back(bufArg(b)); // next_cand, out_status, out_depth, out_logp
  llvm::append_range(args, outActionsArgs());
}

std::string ProgramLowering::maxDepthArg(AdvanceOp advance) {
  return "i32:" + std::to_string(advance.getMaxDepthAttr().getInt());
}

SmallVector<std::string>
ProgramLowering::advanceEngineArgs(AdvanceOp advance, const AdvanceBuffers &a,
                                   ArrayRef<BufferOp> kb) {
  SmallVector<std::string> args = {bufArg(a.pool[0]),    "sym:N",
                                   maxDepthArg(advance), "sym:R",
                                   bufArg(a.action[0]),  bufArg(a.logp[0])};
  appendSlotsAndOutcomes(args, a);
  for (BufferOp b : kb)
    args.push_back(bufArg(b));
  args.push_back("sym:E");
  args.push_back(bufArg(a.derived[0]));
  args.push_back(bufArg(a.derived[1]));
  llvm::append_range(args, memoArgs());
  return args;
}
