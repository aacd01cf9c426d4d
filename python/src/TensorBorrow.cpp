//===- TensorBorrow.cpp - Python tensors as proofc::TensorViews -----------===//
#include "TensorBorrow.h"

#include PROOFC_DLPACK_HEADER // dlpack/dlpack.h (python/CMakeLists.txt)
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace py = pybind11;

namespace proofc::python {

std::string Placement::name() const {
  return cuda ? fmt::format("cuda:{}", ordinal) : "cpu";
}

void BorrowedTensors::BufferRelease::operator()(Py_buffer *buffer) const {
  PyBuffer_Release(buffer);
  delete buffer;
}

void BorrowedTensors::DlpackRelease::operator()(DLManagedTensor *tensor) const {
  if (tensor->deleter)
    tensor->deleter(tensor);
}

BorrowedTensors::~BorrowedTensors() = default;

namespace {

/// How a tensor's memory is laid out, whichever protocol described it.
struct Layout {
  const void *data = nullptr;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides; ///< elements; empty: C-contiguous
  bool float32 = false;
  std::string dtype; ///< for errors, when not float32
  MemoryKind memory = MemoryKind::Host;
  int device = 0;
};

std::string shapeText(const std::vector<int64_t> &shape) {
  if (shape.size() == 1)
    return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

/// The tensor's own name for its dtype (numpy, torch), else `fallback`.
std::string dtypeName(py::handle tensor, const std::string &fallback) {
  if (py::hasattr(tensor, "dtype"))
    return py::str(tensor.attr("dtype"));
  return fallback;
}

/// CUDA memory is read only on the session's own device.
void checkDevice(const std::string &label, const Layout &layout,
                 const Placement &placement) {
  if (layout.memory != MemoryKind::Cuda)
    return;
  if (!placement.cuda)
    throw py::value_error(fmt::format(
        "{}: on cuda:{}, but the evaluator runs on the cpu; pass CPU "
        "tensors, or create the Evaluator with device='cuda'",
        label, layout.device));
  if (layout.device != placement.ordinal)
    throw py::value_error(fmt::format("{}: on cuda:{}, but the evaluator "
                                      "runs on {}",
                                      label, layout.device, placement.name()));
}

std::string dlpackDtype(const DLDataType &t) {
  const char *kind = t.code == kDLInt       ? "int"
                     : t.code == kDLUInt    ? "uint"
                     : t.code == kDLFloat   ? "float"
                     : t.code == kDLBfloat  ? "bfloat"
                     : t.code == kDLComplex ? "complex"
                                            : "dlpack-code-";
  std::string name = fmt::format("{}{}", kind, int(t.bits));
  if (t.lanes != 1)
    name += fmt::format("x{}", int(t.lanes));
  return name;
}

/// torch's Tensor class and float32 dtype when torch is imported (it is
/// never imported here), else none.
struct TorchTypes {
  py::object tensor, float32;
  static TorchTypes get() {
    TorchTypes t;
    py::dict modules = py::module_::import("sys").attr("modules");
    if (modules.contains("torch")) {
      py::object torch = modules["torch"];
      if (py::hasattr(torch, "Tensor") && py::hasattr(torch, "float32")) {
        t.tensor = torch.attr("Tensor");
        t.float32 = torch.attr("float32");
      }
    }
    return t;
  }
  bool isTensor(py::handle object) const {
    return tensor && PyObject_IsInstance(object.ptr(), tensor.ptr()) == 1;
  }
};

/// A torch tensor read through its own accessors (data_ptr, shape, stride,
/// dtype, device), which are C calls: DLPack's __dlpack__ is Python code in
/// torch, tens of microseconds a tensor. The memory is the tensor's own
/// (data_ptr includes the storage offset); no autograd history is touched.
Layout torchLayout(py::handle tensor, const TorchTypes &torch) {
  Layout layout;
  py::object dtype = tensor.attr("dtype");
  layout.float32 = dtype.is(torch.float32);
  if (!layout.float32)
    layout.dtype = py::str(dtype);
  if (py::bool_(tensor.attr("is_cuda"))) {
    layout.memory = MemoryKind::Cuda;
    layout.device = tensor.attr("get_device")().cast<int>();
  }
  layout.data = reinterpret_cast<const void *>(
      tensor.attr("data_ptr")().cast<uintptr_t>());
  for (py::handle d : tensor.attr("shape"))
    layout.shape.push_back(d.cast<int64_t>());
  for (py::handle st : tensor.attr("stride")().cast<py::tuple>())
    layout.strides.push_back(st.cast<int64_t>());
  return layout;
}

/// CUDA torch tensors are written on torch's current stream. The session's
/// stream is a blocking stream, ordered after the legacy default stream
/// (torch's current stream unless the caller chose another): work queued
/// on any other stream is waited for here, once per call.
void orderAfterTorch(int device) {
  py::object cuda = py::module_::import("torch").attr("cuda");
  py::object stream = cuda.attr("current_stream")(device);
  if (stream.attr("cuda_stream").cast<uintptr_t>() != 0)
    stream.attr("synchronize")();
}

} // namespace

BorrowedTensors borrowTensors(py::handle weights,
                              const std::vector<TensorSpec> &expected,
                              const Placement &placement) {
  std::map<std::string, const TensorSpec *> specs;
  for (const TensorSpec &spec : expected)
    specs.emplace(spec.name, &spec);

  BorrowedTensors out;
  const TorchTypes torch = TorchTypes::get();
  bool torchOnCuda = false;
  auto items = py::reinterpret_borrow<py::object>(weights).attr("items")();
  for (py::handle item : items) {
    auto pair = py::reinterpret_borrow<py::tuple>(item);
    py::handle key = pair[0];
    py::object tensor = pair[1];
    if (!py::isinstance<py::str>(key))
      throw py::type_error(
          fmt::format("weights: tensor names are str, got {} {}",
                      std::string(py::str(key.get_type().attr("__name__"))),
                      std::string(py::repr(key))));
    const std::string name = key.cast<std::string>();
    const std::string label = fmt::format("weights['{}']", name);
    auto spec = specs.find(name);
    if (spec == specs.end()) {
      std::vector<std::string> names;
      for (const TensorSpec &s : expected)
        names.push_back(s.name);
      throw py::value_error(fmt::format(
          "{}: the program has no tensor of this name (it needs {})", label,
          fmt::join(names, ", ")));
    }

    Layout layout;
    const bool isTorch = torch.isTensor(tensor);
    if (!isTorch && py::hasattr(tensor, "requires_grad") &&
        py::hasattr(tensor, "detach") &&
        py::bool_(tensor.attr("requires_grad")))
      // A tensor-like with autograd history exports only without it; the
      // detached tensor shares its memory.
      tensor = tensor.attr("detach")();

    if (isTorch) {
      layout = torchLayout(tensor, torch);
      if (layout.memory == MemoryKind::Cuda) {
        checkDevice(label, layout, placement);
        torchOnCuda = true;
      }
    } else if (PyObject_CheckBuffer(tensor.ptr())) {
      std::unique_ptr<Py_buffer, BorrowedTensors::BufferRelease> buffer(
          new Py_buffer{});
      if (PyObject_GetBuffer(tensor.ptr(), buffer.get(), PyBUF_RECORDS_RO) !=
          0) {
        buffer.release(); // nothing to release on failure
        throw py::error_already_set();
      }
      const Py_buffer &b = *buffer;
      std::string format = b.format ? b.format : "B";
      if (!format.empty() &&
          (format[0] == '<' || format[0] == '=' || format[0] == '@'))
        format.erase(0, 1);
      layout.float32 = format == "f" && b.itemsize == 4;
      layout.dtype = dtypeName(
          tensor, fmt::format("buffer format '{}'", b.format ? b.format : "B"));
      layout.data = b.buf;
      for (int i = 0; i < b.ndim; ++i) {
        layout.shape.push_back(b.shape[i]);
        // Byte strides; a float32 buffer's are whole elements when it is
        // C-contiguous, and any other one is refused below.
        layout.strides.push_back(b.strides[i] /
                                 std::max<Py_ssize_t>(b.itemsize, 1));
        if (b.strides[i] % std::max<Py_ssize_t>(b.itemsize, 1) != 0)
          layout.strides.back() = -1;
      }
      out.buffers_.push_back(std::move(buffer));
    } else if (py::hasattr(tensor, "__dlpack__") &&
               py::hasattr(tensor, "__dlpack_device__")) {
      auto device = tensor.attr("__dlpack_device__")().cast<py::tuple>();
      const int type = device[0].cast<int>();
      const int id = device[1].cast<int>();
      if (type == kDLCUDA) {
        layout.memory = MemoryKind::Cuda;
        layout.device = id;
        checkDevice(label, layout, placement); // before the producer syncs
      } else if (type != kDLCPU && type != kDLCUDAHost) {
        throw py::value_error(fmt::format(
            "{}: on DLPack device type {} (id {}); proofc reads CPU and CUDA "
            "memory only",
            label, type, id));
      }
      // CUDA: the producer orders its work before the legacy default
      // stream, which the Session's (blocking) stream follows.
      py::object capsule =
          layout.memory == MemoryKind::Cuda
              ? tensor.attr("__dlpack__")(py::arg("stream") = 1)
              : tensor.attr("__dlpack__")();
      if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
        throw py::type_error(fmt::format(
            "{}: __dlpack__ did not return a DLPack capsule", label));
      auto *managed = static_cast<DLManagedTensor *>(
          PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
      // Consumed: the capsule no longer frees it, the deleter below does.
      PyCapsule_SetName(capsule.ptr(), "used_dltensor");
      out.dlpack_.emplace_back(managed);
      out.objects_.push_back(capsule);
      const DLTensor &dl = managed->dl_tensor;
      layout.float32 = dl.dtype.code == kDLFloat && dl.dtype.bits == 32 &&
                       dl.dtype.lanes == 1;
      layout.dtype = dtypeName(tensor, dlpackDtype(dl.dtype));
      layout.data = static_cast<const char *>(dl.data) + dl.byte_offset;
      layout.shape.assign(dl.shape, dl.shape + dl.ndim);
      if (dl.strides)
        layout.strides.assign(dl.strides, dl.strides + dl.ndim);
    } else if (py::hasattr(tensor, "__cuda_array_interface__")) {
      auto cai = tensor.attr("__cuda_array_interface__").cast<py::dict>();
      if (cai.contains("mask") && !cai["mask"].is_none())
        throw py::value_error(
            fmt::format("{}: masked CUDA arrays are not supported", label));
      const std::string typestr = py::str(cai["typestr"]);
      layout.float32 = typestr == "<f4";
      layout.dtype = dtypeName(tensor, typestr);
      layout.memory = MemoryKind::Cuda;
      // The interface does not say which device: the Session checks that
      // the pointer is on its own.
      layout.device = placement.ordinal;
      if (!placement.cuda)
        throw py::value_error(fmt::format(
            "{}: a CUDA array, but the evaluator runs on the cpu; pass CPU "
            "tensors, or create the Evaluator with device='cuda'",
            label));
      auto data = cai["data"].cast<py::tuple>();
      layout.data = reinterpret_cast<const void *>(data[0].cast<uintptr_t>());
      for (py::handle d : cai["shape"].cast<py::tuple>())
        layout.shape.push_back(d.cast<int64_t>());
      if (cai.contains("strides") && !cai["strides"].is_none()) {
        for (py::handle s : cai["strides"].cast<py::tuple>()) {
          const int64_t bytes = s.cast<int64_t>();
          layout.strides.push_back(bytes % 4 == 0 ? bytes / 4 : -1);
        }
      }
    } else {
      throw py::type_error(fmt::format(
          "{}: a {} is not a tensor; pass a numpy array, a torch tensor, or "
          "an object with __dlpack__ or __cuda_array_interface__",
          label, std::string(py::str(tensor.get_type().attr("__name__")))));
    }
    out.objects_.push_back(tensor);

    if (!layout.float32)
      throw py::type_error(fmt::format(
          "{}: dtype {}; proofc evaluates float32 weights (torch: .float(), "
          "numpy: .astype(np.float32))",
          label, layout.dtype));
    const TensorSpec &want = *spec->second;
    if (layout.shape != want.shape)
      throw py::value_error(fmt::format("{}: shape {}, the program needs {}",
                                        label, shapeText(layout.shape),
                                        shapeText(want.shape)));
    if (!layout.strides.empty()) {
      int64_t step = 1;
      for (size_t i = layout.shape.size(); i-- > 0;) {
        if (layout.shape[i] != 1 && layout.strides[i] != step)
          throw py::value_error(
              fmt::format("{}: not C-contiguous (strides {} in elements); pass "
                          ".contiguous() (torch) or np.ascontiguousarray(...)",
                          label, shapeText(layout.strides)));
        step *= layout.shape[i];
      }
    }
    checkDevice(label, layout, placement);

    TensorView view;
    view.data = layout.data;
    view.shape = std::move(layout.shape);
    view.strides = std::move(layout.strides);
    view.dtype = "F32";
    view.memory = layout.memory;
    view.device = layout.device;
    out.views_.emplace(name, std::move(view));
  }

  // One memory for all: the session uploads host tensors or copies device
  // ones, not a mix.
  const TensorViews &views = out.views_;
  for (const auto &[name, view] : views)
    if (view.memory != views.begin()->second.memory) {
      const bool firstOnCuda = views.begin()->second.memory == MemoryKind::Cuda;
      throw py::value_error(fmt::format(
          "weights['{}'] is on {} but weights['{}'] on {}; give every tensor "
          "on one device ({} or the cpu)",
          views.begin()->first, firstOnCuda ? placement.name() : "the cpu",
          name, firstOnCuda ? "the cpu" : placement.name(), placement.name()));
    }

  if (torchOnCuda)
    orderAfterTorch(placement.ordinal);

  std::vector<std::string> missing;
  for (const TensorSpec &spec : expected)
    if (!out.views_.count(spec.name))
      missing.push_back(spec.name);
  if (!missing.empty())
    throw py::value_error(fmt::format(
        "weights: missing tensor{} {} (expected_tensors() lists the {} the "
        "program needs)",
        missing.size() == 1 ? "" : "s", fmt::join(missing, ", "),
        expected.size()));
  return out;
}

} // namespace proofc::python
