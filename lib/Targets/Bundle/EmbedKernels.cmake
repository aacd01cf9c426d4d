# Writes OUTPUT: one `{"<file>", R"proofc_kernel(<text>)proofc_kernel"},` line
# per CUDA C++ template in SOURCES ('|'-separated), so the compiler carries
# the templates verbatim (docs/gpu-kernels.md: modules of format "cuda").
# A template may `#include "<other>.cu"` of the same directory or a header
# of the contract ("proofc/contract/kernel_abi.h", under INCLUDE_DIR): the
# line is replaced by that file's text, recursively, each file once
# (runtime/cmake/InlineIncludes.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/../../../runtime/cmake/InlineIncludes.cmake)
string(REPLACE "|" ";" SOURCES "${SOURCES}")
set(PROOFC_INLINE_INCLUDE_DIRS "${INCLUDE_DIR}")
set(out "// Generated from lib/Targets/CUDA/Kernels/*.cu by EmbedKernels.cmake.\n")
foreach(src IN LISTS SOURCES)
  get_filename_component(name "${src}" NAME)
  proofc_inline_includes("${src}" "[A-Za-z0-9_/]+\\.(cu|h)" text)
  string(APPEND out "{\"${name}\", R\"proofc_kernel(${text})proofc_kernel\"},\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "${out}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
