//===- TensorBorrow.h - Python tensors as proofc::TensorViews ---*- C++ -*-===//
//
// evaluate() reads the caller's tensors in place: numpy arrays through the
// buffer protocol, torch (and other) tensors through DLPack (`__dlpack__`,
// `__dlpack_device__`), CUDA arrays without DLPack through
// `__cuda_array_interface__`. Nothing is copied here, and CUDA memory never
// goes through the host: the Session copies it device to device. What this
// file checks is what a Python user gets wrong (names, shapes, dtypes,
// layouts, devices), as TypeError / ValueError naming the tensor, before the
// GIL is released; the Session checks its own contract again.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_PYTHON_TENSORBORROW_H
#define PROOFC_PYTHON_TENSORBORROW_H

#include "proofc/runtime/Session.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

struct DLManagedTensor;

namespace proofc::python {

/// Where the session runs: the host, or CUDA device `ordinal`.
struct Placement {
  bool cuda = false;
  int ordinal = 0;
  /// "cpu" or "cuda:N", as torch spells devices.
  std::string name() const;
};

/// The views of one evaluate() call and what keeps their memory alive.
/// Destroy with the GIL held (a DLPack deleter may release Python objects).
class BorrowedTensors {
public:
  BorrowedTensors() = default;
  BorrowedTensors(BorrowedTensors &&) = default;
  BorrowedTensors &operator=(BorrowedTensors &&) = default;
  ~BorrowedTensors();

  const TensorViews &views() const { return views_; }

private:
  friend BorrowedTensors borrowTensors(pybind11::handle weights,
                                       const std::vector<TensorSpec> &expected,
                                       const Placement &placement);
  struct BufferRelease {
    void operator()(Py_buffer *buffer) const;
  };
  struct DlpackRelease {
    void operator()(DLManagedTensor *tensor) const;
  };

  TensorViews views_;
  std::vector<pybind11::object> objects_;
  std::vector<std::unique_ptr<Py_buffer, BufferRelease>> buffers_;
  std::vector<std::unique_ptr<DLManagedTensor, DlpackRelease>> dlpack_;
};

/// Borrows every tensor of the mapping `weights` (name -> tensor), checked
/// against `expected` (Session::expectedTensors()) and `placement`. Throws
/// TypeError (not a tensor, not float32, a name that is not a str) or
/// ValueError (a missing or unexpected name, a shape other than the
/// program's, a layout other than C-contiguous, memory on another device).
BorrowedTensors borrowTensors(pybind11::handle weights,
                              const std::vector<TensorSpec> &expected,
                              const Placement &placement);

} // namespace proofc::python

#endif // PROOFC_PYTHON_TENSORBORROW_H
