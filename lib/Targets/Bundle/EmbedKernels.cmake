# Writes OUTPUT: one `{"<file>", R"proofc_kernel(<text>)proofc_kernel"},` line
# per CUDA C++ template in SOURCES ('|'-separated), so the compiler carries
# the templates verbatim (docs/gpu-kernels.md: modules of format "cuda").
# A template may `#include "<other>.cu"` of the same directory: the line is
# replaced by that template's text (one level), because NVRTC gets one
# self-contained source.
string(REPLACE "|" ";" SOURCES "${SOURCES}")
set(out "// Generated from lib/Targets/CUDA/Kernels/*.cu by EmbedKernels.cmake.\n")
foreach(src IN LISTS SOURCES)
  get_filename_component(name "${src}" NAME)
  get_filename_component(dir "${src}" DIRECTORY)
  file(READ "${src}" text)
  string(REGEX MATCHALL "#include \"[A-Za-z0-9_]+\\.cu\"" includes "${text}")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "#include \"([A-Za-z0-9_]+\\.cu)\"" "\\1" included "${line}")
    if(NOT EXISTS "${dir}/${included}")
      message(FATAL_ERROR "${src}: includes ${included}, which is not a template")
    endif()
    file(READ "${dir}/${included}" inner)
    if(inner MATCHES "#include \"[A-Za-z0-9_]+\\.cu\"")
      message(FATAL_ERROR "${dir}/${included}: nested template includes are not supported")
    endif()
    string(REPLACE "${line}" "${inner}" text "${text}")
  endforeach()
  string(FIND "${text}" ")proofc_kernel\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${src}: contains the raw-string delimiter )proofc_kernel\"")
  endif()
  string(APPEND out "{\"${name}\", R\"proofc_kernel(${text})proofc_kernel\"},\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "${out}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
