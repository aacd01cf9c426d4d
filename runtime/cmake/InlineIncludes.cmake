# proofc_inline_includes(SOURCE PATTERN OUT): OUT receives SOURCE's text with
# every `#include "<name>"` line whose name matches PATTERN (a regex for the
# quoted name) replaced by the text of that file of SOURCE's directory, one
# level deep, because NVRTC gets one self-contained source. Fails on a
# missing file, a nested include of the same kind, or text that contains
# the raw-string delimiter )proofc_kernel" the embedding uses. Shared by
# the runtime's embedded kernels (EmbedSource.cmake) and the compiler's
# templates (lib/Targets/Bundle/EmbedKernels.cmake).
function(proofc_inline_includes source pattern out)
  get_filename_component(dir "${source}" DIRECTORY)
  file(READ "${source}" text)
  string(REGEX MATCHALL "#include \"${pattern}\"" includes "${text}")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "#include \"(${pattern})\"" "\\1" included "${line}")
    if(NOT EXISTS "${dir}/${included}")
      message(FATAL_ERROR "${source}: includes ${included}, which is not in ${dir}")
    endif()
    file(READ "${dir}/${included}" inner)
    if(inner MATCHES "#include \"${pattern}\"")
      message(FATAL_ERROR "${dir}/${included}: nested includes are not supported")
    endif()
    string(REPLACE "${line}" "${inner}" text "${text}")
  endforeach()
  string(FIND "${text}" ")proofc_kernel\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${source}: contains the raw-string delimiter )proofc_kernel\"")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
