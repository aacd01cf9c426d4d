//===- ExportBundle.cpp - A lowered module -> proofc::Bundle --------------===//
//
// One op, one bundle entry: eval.buffer -> BufferDecl, eval.fold_columns /
// eval.transpose_weight -> PrologueOp, eval.launch -> Launch (with its role
// tag), the program's
// top-level launches and conds -> the schedule's setup launches,
// eval.launch_loop
// -> the step with loop_flag/loop_cond, eval.cuda_module -> a "cuda" module
// (the template embedded at build time; with link_into, named in that "ptx"
// module's link list), gpu.binary -> a "ptx" module.
//
//===----------------------------------------------------------------------===//
#include "proofc/Target/ExportBundle.h"

#include "proofc/Dialect/Eval/EvalOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <tuple>

using namespace mlir;
using namespace mlir::eval;

namespace {
struct EmbeddedKernel {
  const char *file;
  const char *source;
};
const EmbeddedKernel kEmbeddedKernels[] = {
#include "EmbeddedKernels.inc"
};

InFlightDiagnostic exportError(Operation *op) {
  return op->emitError() << "cannot export the bundle: ";
}

std::vector<std::string> strings(ArrayAttr array) {
  std::vector<std::string> out;
  for (Attribute a : array)
    out.push_back(cast<StringAttr>(a).getValue().str());
  return out;
}

FailureOr<proofc::KernelModule> exportPtxModule(gpu::BinaryOp binary) {
  auto objects = binary.getObjects().getAsRange<gpu::ObjectAttr>();
  if (llvm::range_size(objects) != 1)
    return exportError(binary) << "gpu.binary @" << binary.getSymName()
                               << " must hold exactly one object";
  gpu::ObjectAttr object = *objects.begin();
  if (object.getFormat() != gpu::CompilationTarget::Assembly)
    return exportError(binary)
           << "gpu.binary @" << binary.getSymName()
           << " must hold PTX text (gpu-module-to-binary{format=isa})";
  proofc::KernelModule module;
  module.name = binary.getSymName().str();
  module.format = "ptx";
  module.source = object.getObject().getValue().str();
  return module;
}

/// Schedule nodes of `block` (launches and conds, in order); at the top
/// level, the launches after the loop go to `tail`.
LogicalResult exportNodes(Block &block, std::vector<proofc::ScheduleNode> &out,
                          bool topLevel, LaunchLoopOp *loop,
                          std::vector<proofc::ScheduleNode> *tail = nullptr) {
  for (Operation &op : block) {
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      // After the loop: the tail (the tail hand-off's kernel), run once
      // before the outcomes are read.
      proofc::ScheduleNode node;
      node.launch = launch.getName().str();
      (loop && *loop ? *tail : out).push_back(std::move(node));
    } else if (auto cond = dyn_cast<LaunchCondOp>(op)) {
      if (loop && *loop)
        return exportError(cond) << "conds after the proof loop are not "
                                    "supported";
      proofc::ScheduleNode node;
      node.cond = cond.getName().str();
      node.flag = cond.getFlag().str();
      if (failed(
              exportNodes(cond.getBody().front(), node.body, false, nullptr)))
        return failure();
      out.push_back(std::move(node));
    } else if (auto inner = dyn_cast<LaunchLoopOp>(op)) {
      if (!topLevel || !loop)
        return exportError(inner) << "the proof loop must be at the top "
                                     "level of the program";
      *loop = inner;
    }
  }
  return success();
}
} // namespace

std::optional<StringRef> mlir::eval::getEmbeddedKernelSource(StringRef file) {
  for (const EmbeddedKernel &kernel : kEmbeddedKernels)
    if (file == kernel.file)
      return StringRef(kernel.source);
  return std::nullopt;
}

FailureOr<std::string> mlir::eval::exportPtx(ModuleOp module) {
  auto binaries = llvm::to_vector(module.getOps<gpu::BinaryOp>());
  if (binaries.size() != 1) {
    InFlightDiagnostic diag =
        module.emitError()
        << "cannot write the policy kernel's PTX: expected one gpu.binary, "
           "found "
        << binaries.size();
    for (gpu::BinaryOp binary : binaries)
      diag << " @" << binary.getSymName();
    return diag << " (a tail hand-off's persistent kernel is a module of "
                   "its own: write the bundle, or compile with "
                   "--tail-handoff 0)";
  }
  FailureOr<proofc::KernelModule> ptx = exportPtxModule(binaries.front());
  if (failed(ptx))
    return failure();
  return ptx->source;
}

FailureOr<proofc::Bundle>
mlir::eval::exportBundle(ModuleOp module, const proofc::ProgramSpec &program) {
  auto programs = llvm::to_vector(module.getOps<ProgramOp>());
  if (programs.size() != 1)
    return exportError(module)
           << "expected one eval.program, found " << programs.size();
  ProgramOp programOp = programs.front();
  for (gpu::GPUModuleOp gpuModule : module.getOps<gpu::GPUModuleOp>())
    return exportError(gpuModule) << "gpu.module @" << gpuModule.getSymName()
                                  << " is not serialized (run "
                                     "gpu-module-to-binary)";

  // The kernels bake in the shape the lowered program has; the plan passes
  // the ProgramSpec's at run time. One value, or the bundle would run
  // kernels made for another B (export the spec after
  // eval-specialize-shapes).
  const proofc::ShapeParams &shape = program.shape;
  for (auto [name, lowered, planned] :
       {std::tuple{"A", programOp.getAAttr(), shape.A},
        std::tuple{"S", programOp.getSAttr(), shape.S},
        std::tuple{"D", programOp.getDAttr(), shape.D},
        std::tuple{"B", programOp.getBAttr(), shape.B}})
    if (!lowered || lowered.getInt() != planned)
      return exportError(programOp)
             << "the kernels were made for " << name << " = "
             << (lowered ? lowered.getInt() : 0) << " but the plan has " << name
             << " = " << planned
             << " (export the ProgramSpec after eval-specialize-shapes)";

  proofc::Bundle bundle;
  bundle.program = program;
  for (gpu::BinaryOp binary : module.getOps<gpu::BinaryOp>()) {
    FailureOr<proofc::KernelModule> ptx = exportPtxModule(binary);
    if (failed(ptx))
      return failure();
    bundle.modules.push_back(std::move(*ptx));
  }

  proofc::GpuPlan &plan = bundle.plan;
  Block &body = programOp.getBody().front();
  for (Operation &op : body) {
    if (auto cuda = dyn_cast<CudaModuleOp>(op)) {
      std::optional<StringRef> source =
          getEmbeddedKernelSource(cuda.getSource());
      if (!source)
        return exportError(cuda) << "no kernel template '" << cuda.getSource()
                                 << "' is embedded in this compiler";
      bundle.modules.push_back({cuda.getSymName().str(), "cuda", source->str(),
                                strings(cuda.getOptions())});
      if (FlatSymbolRefAttr into = cuda.getLinkIntoAttr()) {
        auto target = llvm::find_if(bundle.modules, [&](const auto &m) {
          return m.format == "ptx" && m.name == into.getValue();
        });
        if (target == bundle.modules.end())
          return exportError(cuda)
                 << "link_into " << into << " names no gpu.binary";
        target->link.push_back(cuda.getSymName().str());
      }
    } else if (auto buffer = dyn_cast<BufferOp>(op)) {
      proofc::BufferDecl decl;
      decl.name = buffer.getSymName().str();
      decl.dtype =
          buffer.getDtype().isF32() ? proofc::DType::F32 : proofc::DType::I32;
      decl.elements.factors = strings(buffer.getElements());
      decl.init = buffer.getInit().str();
      plan.buffers.push_back(std::move(decl));
    } else if (auto fold = dyn_cast<FoldColumnsOp>(op)) {
      proofc::PrologueOp p;
      p.op = "fold_columns";
      p.dst = fold.getDst().str();
      p.table = fold.getTable().str();
      p.weight = fold.getWeight().str();
      p.bias = fold.getBias().str();
      p.colBegin = fold.getColBeginAttr().getInt();
      p.cols = fold.getColsAttr().getInt();
      plan.prologue.push_back(std::move(p));
    } else if (auto transpose = dyn_cast<TransposeWeightOp>(op)) {
      proofc::PrologueOp p;
      p.op = "copy";
      p.dst = transpose.getDst().str();
      p.table = transpose.getTable().str();
      p.transpose = true;
      plan.prologue.push_back(std::move(p));
    } else if (auto split = dyn_cast<SplitTf32WeightOp>(op)) {
      proofc::PrologueOp p;
      p.op = "tf32_fragments";
      p.dst = split.getDst().str();
      p.table = split.getTable().str();
      plan.prologue.push_back(std::move(p));
    } else if (auto split = dyn_cast<SplitF16WeightOp>(op)) {
      proofc::PrologueOp p;
      p.op = "f16_fragments";
      p.dst = split.getDst().str();
      p.table = split.getTable().str();
      plan.prologue.push_back(std::move(p));
    } else if (auto layer = dyn_cast<FoldAtomLayerOp>(op)) {
      proofc::PrologueOp p;
      p.op = "fold_atom_layer";
      p.dst = layer.getDst().str();
      p.table = layer.getPredProj().str();
      p.weight = layer.getWeight().str();
      p.args = {layer.getArg0Const().str(), layer.getArg1Const().str(),
                layer.getArg0Var().str(), layer.getArg1Var().str()};
      p.relu = layer.getRelu();
      plan.prologue.push_back(std::move(p));
    } else if (isa<DeviceLoopOp, ProofLoopOp, InitSlotsOp, EngineOp,
                   ScoreSelectOp, AdvanceOp, CondOp, CopyOp>(op)) {
      return exportError(&op) << "'" << op.getName()
                              << "' is not lowered (run eval-lower-to-gpu)";
    }
  }
  programOp.walk([&](LaunchOp launch) {
    proofc::Launch l;
    l.name = launch.getName().str();
    // The verifier has checked the role is one of BundleNames.h's.
    l.role = *proofc::launchRoleNamed(std::string_view(launch.getRole()));
    l.module = launch.getKernel().getRootReference().str();
    l.entry = launch.getKernel().getLeafReference().str();
    l.grid.factors = strings(launch.getGrid());
    l.block = static_cast<int32_t>(launch.getBlockAttr().getInt());
    l.sharedBytes = static_cast<int32_t>(launch.getSharedBytesAttr().getInt());
    l.args = strings(launch.getArgs());
    plan.launches.push_back(std::move(l));
  });

  LaunchLoopOp loop;
  if (failed(exportNodes(body, plan.schedule.setup, true, &loop,
                         &plan.schedule.tail)))
    return failure();
  if (!loop)
    return exportError(programOp) << "the program has no eval.launch_loop";
  plan.schedule.loopFlag = loop.getFlag().str();
  plan.schedule.loopCond = loop.getName().str();
  if (failed(exportNodes(loop.getBody().front(), plan.schedule.step, false,
                         nullptr)))
    return failure();
  return bundle;
}
