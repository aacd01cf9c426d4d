# Writes OUTPUT: SOURCE as one C++ raw string literal
# R"proofc_kernel(<text>)proofc_kernel", for a runtime source file that NVRTC
# compiles at run time (the runtime never reads the file itself). Each
# `#include "<name>"` line naming a file of SOURCE's directory is replaced
# by that file's text (one level), because NVRTC gets one self-contained
# source. Rewritten only when the text changes.
get_filename_component(dir "${SOURCE}" DIRECTORY)
file(READ "${SOURCE}" text)
string(REGEX MATCHALL "#include \"[A-Za-z0-9_.]+\"" includes "${text}")
foreach(line IN LISTS includes)
  string(REGEX REPLACE "#include \"([A-Za-z0-9_.]+)\"" "\\1" included "${line}")
  if(NOT EXISTS "${dir}/${included}")
    message(FATAL_ERROR "${SOURCE}: includes ${included}, which is not in ${dir}")
  endif()
  file(READ "${dir}/${included}" inner)
  if(inner MATCHES "#include \"")
    message(FATAL_ERROR "${dir}/${included}: nested includes are not supported")
  endif()
  string(REPLACE "${line}" "${inner}" text "${text}")
endforeach()
string(FIND "${text}" ")proofc_kernel\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${SOURCE}: contains the raw-string delimiter )proofc_kernel\"")
endif()
get_filename_component(name "${SOURCE}" NAME)
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${name} by runtime/cmake/EmbedSource.cmake.\nR\"proofc_kernel(${text})proofc_kernel\"\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
