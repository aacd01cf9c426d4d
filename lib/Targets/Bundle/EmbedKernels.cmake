# Writes OUTPUT: one `{"<file>", R"proofc_kernel(<text>)proofc_kernel"},` line
# per CUDA C++ template in SOURCES ('|'-separated), so the compiler carries
# the templates verbatim (docs/gpu-kernels.md: modules of format "cuda").
string(REPLACE "|" ";" SOURCES "${SOURCES}")
set(out "// Generated from lib/Targets/CUDA/Kernels/*.cu by EmbedKernels.cmake.\n")
foreach(src IN LISTS SOURCES)
  get_filename_component(name "${src}" NAME)
  file(READ "${src}" text)
  string(FIND "${text}" ")proofc_kernel\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${src}: contains the raw-string delimiter )proofc_kernel\"")
  endif()
  string(APPEND out "{\"${name}\", R\"proofc_kernel(${text})proofc_kernel\"},\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "${out}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
