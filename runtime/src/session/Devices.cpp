//===- Devices.cpp - The backends SessionOptions asks for -----------------===//
//
// openDevice, parseDeviceList, openDevices and openBackends (Devices.h): the
// host backend, or one CUDA backend per GPU asked for, each opened from the
// bundle.
// Separate from Session.cpp, which binds and runs what these open.
//
//===----------------------------------------------------------------------===//
#include "session/Devices.h"

#include "bundle/Bundle.h"
#include "cuda/CudaBackend.h"
#include "host/HostBackend.h"
#include "support/Fail.h"
#include "support/MessageText.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <map>

namespace proofc {
namespace {

/// "cuda" -> 0, "cuda:N" -> N; -1 for anything else.
int cudaOrdinal(const std::string &device) {
  if (device == "cuda")
    return 0;
  if (device.rfind("cuda:", 0) != 0 || device.size() == 5 || device.size() > 9)
    return -1;
  int ordinal = 0;
  for (size_t i = 5; i < device.size(); ++i) {
    if (device[i] < '0' || device[i] > '9')
      return -1;
    ordinal = ordinal * 10 + (device[i] - '0');
  }
  return ordinal;
}

} // namespace

SelectedDevice openDevice(const Bundle &bundle, const std::string &bundlePath,
                          const SessionOptions &options,
                          const std::string &flag) {
  SelectedDevice out;
  std::string device = options.device;
  if (device == "auto") {
    std::string why;
    device = cudaDeviceAvailable(&why) ? "cuda" : "cpu";
  }
  if (device == "cpu") {
    out.name = hostDeviceName(options.threads, bundle.program.shape.B);
    out.backend = std::make_unique<HostBackend>(hostBackendOptions(options));
    return out;
  }
  const int ordinal = cudaOrdinal(device);
  if (ordinal < 0)
    fail("{} {}: expected cpu, cuda, cuda:N or auto", flag,
         escapeForMessage(options.device));
  std::string why;
  if (!cudaDeviceAvailable(&why))
    fail("{} {}: no usable CUDA device: {}", flag, device, why);
  CudaBackendOptions cuda;
  cuda.cond = parseCondMode(options.cond, "cond");
  cuda.device = ordinal;
  cuda.unroll = options.unroll;
  cuda.memoEntries = options.memoEntries;
  out.backend = std::make_unique<CudaBackend>(bundle, bundlePath, cuda);
  out.name = device;
  return out;
}

std::vector<int> parseDeviceList(const std::string &text, int count,
                                 const std::string &flag) {
  std::vector<int> ordinals;
  if (text == "all") {
    for (int i = 0; i < count; ++i)
      ordinals.push_back(i);
    return ordinals;
  }
  const std::string shown = escapeForMessage(text);
  size_t at = 0;
  for (;;) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    if (item.empty() || item.size() > 4 ||
        item.find_first_not_of("0123456789") != std::string::npos)
      fail("{} {}: expected all or CUDA device ordinals separated by commas "
           "(e.g. 0,1)",
           flag, shown);
    const int ordinal = std::stoi(item);
    if (ordinal >= count)
      fail("{} {}: there is no CUDA device {} (the driver sees {}: 0 to {})",
           flag, shown, ordinal, count, count - 1);
    if (std::find(ordinals.begin(), ordinals.end(), ordinal) != ordinals.end())
      fail("{} {}: device {} is named twice", flag, shown, ordinal);
    ordinals.push_back(ordinal);
    if (comma == text.size())
      return ordinals;
    at = comma + 1;
  }
}

std::vector<int> parseDeviceList(const std::string &text, int count) {
  return parseDeviceList(text, count, "devices");
}

int resolveWorkersPerDevice(const BackendOptions &options, bool cuda,
                            const std::string &workersFlag) {
  const int asked = options.workersPerDevice;
  if (asked < 0 || asked > kMaxWorkersPerDevice)
    fail("{} {}: expected 0 (auto) to {}", workersFlag, asked,
         kMaxWorkersPerDevice);
  if (asked > 1 && !cuda)
    fail("{} {}: several workers share a CUDA device; the host backend "
         "runs one block at a time on all its threads (give 1, or 0 for "
         "auto)",
         workersFlag, asked);
  return asked > 0 ? asked : cuda ? 2 : 1;
}

namespace {

/// The CUDA backends' kernels: compiled once per device, starting now
/// (CudaBackend::prefetchModules), while the caller loads its dataset; a
/// device's other workers share its first one's builds.
void startKernelBuilds(std::vector<SelectedDevice> &devices) {
  std::map<int, CudaBackend *> first;
  for (SelectedDevice &d : devices) {
    auto *cuda = dynamic_cast<CudaBackend *>(d.backend.get());
    if (!cuda)
      continue;
    const auto [it, fresh] = first.emplace(cuda->deviceOrdinal(), cuda);
    if (fresh)
      cuda->prefetchModules();
    else
      cuda->shareModules(*it->second);
  }
}

} // namespace

std::vector<SelectedDevice>
openDevices(const Bundle &bundle, const std::string &bundlePath,
            const SessionOptions &options, const std::string &flag,
            const std::string &devicesFlag, const std::string &workersFlag) {
  std::vector<SelectedDevice> out;
  if (options.devices.empty()) {
    out.push_back(openDevice(bundle, bundlePath, options, flag));
    const bool cuda = out.front().backend->info().ordinal >= 0;
    const int workers = resolveWorkersPerDevice(options, cuda, workersFlag);
    if (workers > 1) {
      // The device auto chose, by name, for the other workers.
      SessionOptions same = options;
      same.device = out.front().name;
      for (int w = 1; w < workers; ++w)
        out.push_back(openDevice(bundle, bundlePath, same, flag));
    }
    startKernelBuilds(out);
    return out;
  }
  if (options.device != "cuda" && options.device != "auto")
    fail("{} {} with {} {}: several devices are CUDA devices; give {} cuda "
         "(or leave it out)",
         devicesFlag, escapeForMessage(options.devices), flag,
         escapeForMessage(options.device), flag);
  // The list's form first: a typo is one whatever the machine.
  if (options.devices != "all")
    parseDeviceList(options.devices, std::numeric_limits<int>::max(),
                    devicesFlag);
  std::string why;
  const int count = cudaDeviceCount(&why);
  if (count == 0)
    fail("{} {}: no usable CUDA device: {}", devicesFlag,
         escapeForMessage(options.devices), why);
  const std::vector<int> ordinals =
      parseDeviceList(options.devices, count, devicesFlag);
  const int workers = resolveWorkersPerDevice(options, true, workersFlag);
  for (int w = 0; w < workers; ++w)
    for (int ordinal : ordinals) {
      SessionOptions one = options;
      one.devices.clear();
      one.device = fmt::format("cuda:{}", ordinal);
      out.push_back(openDevice(bundle, bundlePath, one, flag));
    }
  startKernelBuilds(out);
  return out;
}

OpenedBackends openBackends(const Bundle &bundle, const std::string &bundlePath,
                            const SessionOptions &options,
                            const std::string &flag,
                            const std::string &devicesFlag,
                            const std::string &workersFlag) {
  OpenedBackends out;
  std::vector<std::string> names;
  for (SelectedDevice &d : openDevices(bundle, bundlePath, options, flag,
                                       devicesFlag, workersFlag)) {
    out.backends.push_back(d.backend.get());
    out.owned.push_back(std::move(d.backend));
    if (std::find(names.begin(), names.end(), d.name) == names.end())
      names.push_back(d.name);
  }
  out.device = fmt::format("{}", fmt::join(names, ","));
  return out;
}

} // namespace proofc
