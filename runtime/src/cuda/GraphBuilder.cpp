//===- GraphBuilder.cpp - the cond mode, the launches and the graph
//---------===//
//
// How the schedule will run: the cond mode (native falls back to emulated,
// with a notice, when the probe finds no conditional graph nodes; profiled
// runs are host-driven), each launch prepared (function, limits, its
// kernel-parameter block, its role for the profile's phases), and the run's
// one CUDA graph: native, the setup launches then WHILE(loop) { step x K } with
// the first copy's conds as IF nodes, the launches named by "node:"
// arguments device-updatable and each such argument the address of the
// record (handle, grid) of the next node of its launch (the step policy's
// and the advance-engine's grids, kernel_abi.h); emulated, K copies of the
// step. And the reset graph, the zero fills before a run as memset nodes.
//
//===----------------------------------------------------------------------===//
#if PROOFC_HAVE_CUDA

#include "cuda/CudaRunner.h"
#include "proofc/contract/kernel_abi.h"
#include "proofc/runtime/Notices.h"
#include "support/Fail.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace proofc {

void CudaRunner::resolveCondMode() {
  info_.cond = options_.cond;
  if (options_.profile) {
    // Every launch timed on its own: host-driven steps, no graph.
    info_.cond = CondMode::Host;
    info_.profiled = true;
    return;
  }
  if (options_.cond != CondMode::Native)
    return;
  std::string why;
  if (!probeConditionalNodes(dev_.drv, dev_.ctx, &why)) {
    notice(fmt::format("conditional graph nodes unsupported ({}); using "
                       "--cond emulated",
                       why));
    info_.cond = CondMode::Emulated;
    info_.condFellBack = true;
  }
}

std::vector<std::string> CudaRunner::condNames() const {
  std::vector<std::string> names = {bundle_.plan.schedule.loopCond};
  std::function<void(const std::vector<ScheduleNode> &)> walk =
      [&](const std::vector<ScheduleNode> &nodes) {
        for (const ScheduleNode &n : nodes)
          if (!n.cond.empty()) {
            names.push_back(n.cond);
            walk(n.body);
          }
      };
  walk(bundle_.plan.schedule.setup);
  walk(bundle_.plan.schedule.step);
  walk(bundle_.plan.schedule.tail);
  return names;
}

void CudaRunner::prepareLaunches(
    const PlanBinding &binding,
    const std::map<std::string, CUgraphConditionalHandle> &handles) {
  CudaDriver &drv = dev_.drv;
  for (const Launch &launch : bundle_.plan.launches) {
    const BoundLaunch &bound = binding.launch(launch.name);
    PreparedLaunch p;
    p.name = launch.name;
    p.grid = bound.grid;
    p.block = static_cast<uint32_t>(launch.block);
    p.sharedBytes = static_cast<uint32_t>(launch.sharedBytes);
    CUresult r = drv.cuModuleGetFunction(
        &p.function, modules_.at(launch.module), launch.entry.c_str());
    if (r != CUDA_SUCCESS)
      fail("{}: launch '{}': module '{}' has no kernel '{}' ({})", path_,
           launch.name, launch.module, launch.entry, drv.errorName(r));
    int maxThreads = 0;
    PROOFC_CU(drv, cuFuncGetAttribute, &maxThreads,
              CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, p.function);
    if (launch.block > maxThreads)
      fail("{}: launch '{}': block of {} threads, kernel '{}' allows at most "
           "{}",
           path_, launch.name, launch.block, launch.entry, maxThreads);
    // Past 48 KiB of static plus dynamic shared memory a kernel must opt in.
    if (launch.sharedBytes > 0) {
      CUresult sr = drv.cuFuncSetAttribute(
          p.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          launch.sharedBytes);
      if (sr != CUDA_SUCCESS)
        fail("{}: launch '{}': {} bytes of dynamic shared memory for kernel "
             "'{}': {}",
             path_, launch.name, launch.sharedBytes, launch.entry,
             drv.errorName(sr));
    }
    p.storage.assign(bound.args.size(), 0);
    for (size_t i = 0; i < bound.args.size(); ++i) {
      const BoundArg &a = bound.args[i];
      uint64_t &slot = p.storage[i];
      switch (a.kind) {
      case BoundArg::Kind::Buffer:
        slot = dev_.buffers.at(a.buffer);
        break;
      case BoundArg::Kind::I32:
        std::memcpy(&slot, &a.i32, 4);
        break;
      case BoundArg::Kind::F32:
        std::memcpy(&slot, &a.f32, 4);
        break;
      case BoundArg::Kind::Cond: {
        auto it = handles.find(a.cond);
        slot = it == handles.end() ? 0 : it->second;
        break;
      }
      case BoundArg::Kind::Node:
        slot = 0; // bindNodeArgs, in the native graph
        if (!a.node.empty())
          p.nodeArgs.emplace_back(i, a.node);
        break;
      }
    }
    for (uint64_t &slot : p.storage)
      p.params.push_back(&slot);
    launches_.emplace(launch.name, std::move(p));
    // By the role the compiler wrote. The fused step kernel counts as
    // the engine (it is mostly derive).
    if (launch.role == LaunchRole::Engine ||
        launch.role == LaunchRole::AdvanceEngine)
      info_.engineLaunches.push_back(launch.name);
    else if (launch.role == LaunchRole::Persistent)
      info_.fusedLaunches.push_back(launch.name);
    else if (launch.role == LaunchRole::Policy)
      info_.policyLaunches.push_back(launch.name);
  }
}

namespace {
/// A kernel node of launch `l` with the kernel parameters `params`.
CUgraphNodeParams kernelNodeParams(const PreparedLaunch &l, void **params) {
  CUgraphNodeParams p{};
  p.type = CU_GRAPH_NODE_TYPE_KERNEL;
  p.kernel.func = l.function;
  p.kernel.gridDimX = l.grid;
  p.kernel.gridDimY = p.kernel.gridDimZ = 1;
  p.kernel.blockDimX = l.block;
  p.kernel.blockDimY = p.kernel.blockDimZ = 1;
  p.kernel.sharedMemBytes = l.sharedBytes;
  p.kernel.kernelParams = params;
  return p;
}
} // namespace

CUgraphNode CudaRunner::addKernelNode(CUgraph graph, CUgraphNode dep,
                                      PreparedLaunch &l) {
  CUgraphNodeParams params = kernelNodeParams(l, l.params.data());
  CUgraphNode node = nullptr;
  PROOFC_CU(dev_.drv, cuGraphAddNode, &node, graph, dep ? &dep : nullptr,
            nullptr, dep ? 1 : 0, &params);
  if (bindingNodes_) {
    GraphKernelNode recorded{node, &l, nullptr, fillingLoop_};
    if (nodeTargets_.count(l.name)) {
      CUlaunchAttributeValue value{};
      value.deviceUpdatableKernelNode.deviceUpdatable = 1;
      PROOFC_CU(dev_.drv, cuGraphKernelNodeSetAttribute, node,
                CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE, &value);
      CUlaunchAttributeValue out{};
      PROOFC_CU(dev_.drv, cuGraphKernelNodeGetAttribute, node,
                CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE, &out);
      recorded.devNode = out.deviceUpdatableKernelNode.devNode;
    }
    graphNodes_.push_back(recorded);
  }
  return node;
}

bool CudaRunner::bindsGraphNodes() const {
  const CudaDriver &drv = dev_.drv;
  return !nodeTargets_.empty() && drv.cuGraphKernelNodeSetAttribute &&
         drv.cuGraphKernelNodeGetAttribute && drv.cuGraphNodeSetParams &&
         drv.canUploadGraph();
}

void CudaRunner::bindNodeArgs() {
  // One GraphNodeRecord (kernel_abi.h) per device-updatable node: its
  // handle and the grid it launches now, which the kernels keep in step
  // with the node.
  std::vector<proofc_abi::GraphNodeRecord> records;
  std::vector<size_t> recordOf(graphNodes_.size(), 0);
  for (size_t i = 0; i < graphNodes_.size(); ++i)
    if (graphNodes_[i].devNode) {
      recordOf[i] = records.size();
      records.push_back({reinterpret_cast<uint64_t>(graphNodes_[i].devNode),
                         graphNodes_[i].launch->grid, 0});
    }
  // A graph built again (refreshModules) has records of its own: the
  // previous graph's go first.
  if (nodeRecords_) {
    auto it = std::find(dev_.buffers.begin(), dev_.buffers.end(), nodeRecords_);
    if (it != dev_.buffers.end())
      dev_.buffers.erase(it);
    PROOFC_CU(dev_.drv, cuMemFree, nodeRecords_);
    nodeRecords_ = 0;
  }
  CUdeviceptr base = 0;
  if (!records.empty()) {
    const size_t bytes = records.size() * sizeof(records[0]);
    PROOFC_CU(dev_.drv, cuMemAlloc, &base, bytes);
    dev_.buffers.push_back(base);
    nodeRecords_ = base;
    PROOFC_CU(dev_.drv, cuMemcpyHtoD, base, records.data(), bytes);
  }
  for (size_t i = 0; i < graphNodes_.size(); ++i) {
    const GraphKernelNode &from = graphNodes_[i];
    const PreparedLaunch &l = *from.launch;
    if (l.nodeArgs.empty())
      continue;
    std::vector<uint64_t> storage = l.storage;
    for (const std::pair<size_t, std::string> &nodeArg : l.nodeArgs) {
      const std::string &target = nodeArg.second;
      auto named = [&](const GraphKernelNode &n) {
        return n.launch->name == target;
      };
      auto next =
          std::find_if(graphNodes_.begin() + i + 1, graphNodes_.end(), named);
      // The last of the WHILE body's: the next iteration's first.
      if (from.inLoop && (next == graphNodes_.end() || !next->inLoop))
        next = std::find_if(
            graphNodes_.begin(), graphNodes_.end(),
            [&](const GraphKernelNode &n) { return n.inLoop && named(n); });
      // A launch that names its own next node has none to resize when the
      // body holds it once (--unroll 1): that node is the one running.
      const bool self = next == graphNodes_.begin() + static_cast<long>(i);
      storage[nodeArg.first] =
          next == graphNodes_.end() || !next->devNode || self
              ? 0
              : base + sizeof(records[0]) * recordOf[static_cast<size_t>(
                                                next - graphNodes_.begin())];
    }
    std::vector<void *> params;
    for (uint64_t &slot : storage)
      params.push_back(&slot);
    CUgraphNodeParams p = kernelNodeParams(l, params.data());
    PROOFC_CU(dev_.drv, cuGraphNodeSetParams, from.node, &p);
  }
}

CUgraphNode CudaRunner::addNodes(
    CUgraph graph, CUgraphNode dep, const std::vector<ScheduleNode> &nodes,
    const std::map<std::string, CUgraphConditionalHandle> &handles,
    bool inlineConds) {
  for (const ScheduleNode &n : nodes) {
    if (!n.launch.empty()) {
      dep = addKernelNode(graph, dep, launches_.at(n.launch));
    } else if (info_.cond == CondMode::Native && !inlineConds) {
      dep = addConditional(
          graph, dep, CU_GRAPH_COND_TYPE_IF, handles.at(n.cond),
          [&](CUgraph body) { addNodes(body, nullptr, n.body, handles); });
    } else {
      dep = addNodes(graph, dep, n.body, handles, inlineConds);
    }
  }
  return dep;
}

CUgraphNode
CudaRunner::addConditional(CUgraph graph, CUgraphNode dep,
                           CUgraphConditionalNodeType type,
                           CUgraphConditionalHandle handle,
                           const std::function<void(CUgraph)> &fillBody) {
  CUgraphNodeParams params = conditionalNodeParams(type, handle, dev_.ctx);
  CUgraphNode node = nullptr;
  PROOFC_CU(dev_.drv, cuGraphAddNode, &node, graph, dep ? &dep : nullptr,
            nullptr, dep ? 1 : 0, &params);
  fillBody(params.conditional.phGraph_out[0]);
  return node;
}

void CudaRunner::buildGraph(
    const std::map<std::string, CUgraphConditionalHandle> &handles) {
  const Schedule &schedule = bundle_.plan.schedule;
  graphNodes_.clear();
  nodeTargets_.clear();
  for (const auto &[name, launch] : launches_)
    for (const auto &arg : launch.nodeArgs)
      nodeTargets_.insert(arg.second);
  bindingNodes_ = info_.cond == CondMode::Native && bindsGraphNodes();
  if (info_.cond == CondMode::Native) {
    // ONE graph: the setup launches, then WHILE(loop) { step x K }. K steps per
    // iteration amortize the conditional node's cost; the steps after the
    // last candidate are no-ops (every step kernel checks the loop flag).
    // A conditional handle drives one node, so only the first copy's
    // conds are IF nodes; the later copies' are inlined.
    CUgraphNode dep = addNodes(dev_.graph, nullptr, schedule.setup, handles);
    CUgraphNode loop =
        addConditional(dev_.graph, dep, CU_GRAPH_COND_TYPE_WHILE,
                       handles.at(schedule.loopCond), [&](CUgraph body) {
                         CUgraphNode last = nullptr;
                         fillingLoop_ = true;
                         for (int k = 0; k < std::max(1, options_.unroll); ++k)
                           last = addNodes(body, last, schedule.step, handles,
                                           /*inlineConds=*/k > 0);
                         fillingLoop_ = false;
                       });
    // The tail: once, after the loop (its conds are the graph's own).
    addNodes(dev_.graph, loop, schedule.tail, handles);
    if (bindingNodes_)
      bindNodeArgs();
  } else {
    // Emulated: K copies of the step; the setup launches run once, directly.
    PROOFC_CU(dev_.drv, cuGraphCreate, &dev_.graph, 0);
    CUgraphNode dep = nullptr;
    for (int k = 0; k < std::max(1, options_.unroll); ++k)
      dep = addNodes(dev_.graph, dep, schedule.step, handles);
  }
  dev_.drv.check(dev_.drv.instantiateGraph(&dev_.exec, dev_.graph, 0),
                 "cuGraphInstantiateWithFlags");
  // A graph whose kernels update its nodes must be on the device before
  // its first launch.
  if (bindingNodes_)
    dev_.drv.check(dev_.drv.uploadGraph(dev_.exec, dev_.stream),
                   "cuGraphUpload");
  graphNodes_.clear();
  bindingNodes_ = false;
}

void CudaRunner::prepareGraph() {
  launches_.clear();
  info_.engineLaunches.clear();
  info_.policyLaunches.clear();
  info_.fusedLaunches.clear();
  std::map<std::string, CUgraphConditionalHandle> handles;
  if (info_.cond == CondMode::Native) {
    PROOFC_CU(dev_.drv, cuGraphCreate, &dev_.graph, 0);
    for (const std::string &cond : condNames())
      PROOFC_CU(dev_.drv, cuGraphConditionalHandleCreate, &handles[cond],
                dev_.graph, dev_.ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT);
  }
  prepareLaunches(*binding_, handles);
  if (info_.cond != CondMode::Host)
    buildGraph(handles);
}

void CudaRunner::buildResetGraph() {
  if (zeroBuffers_.empty())
    return;
  CudaDriver &drv = dev_.drv;
  PROOFC_CU(drv, cuGraphCreate, &dev_.resetGraph, 0);
  // Independent nodes: the driver may run them side by side. Words where
  // the size allows (every buffer starts at cuMemAlloc's alignment).
  for (size_t i : zeroBuffers_) {
    const size_t bytes = binding_->buffers()[i].bytes;
    if (bytes == 0)
      continue;
    CUgraphNodeParams p{};
    p.type = CU_GRAPH_NODE_TYPE_MEMSET;
    p.memset.dst = dev_.buffers[i];
    p.memset.value = 0;
    p.memset.elementSize = bytes % 4 == 0 ? 4 : 1;
    p.memset.width = bytes / p.memset.elementSize;
    p.memset.height = 1;
    p.memset.pitch = 0;
    p.memset.ctx = dev_.ctx;
    CUgraphNode node = nullptr;
    PROOFC_CU(drv, cuGraphAddNode, &node, dev_.resetGraph, nullptr, nullptr, 0,
              &p);
  }
  drv.check(drv.instantiateGraph(&dev_.resetExec, dev_.resetGraph, 0),
            "cuGraphInstantiateWithFlags");
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
