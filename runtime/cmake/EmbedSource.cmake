# Writes OUTPUT: SOURCE as one C++ raw string literal
# R"proofc_kernel(<text>)proofc_kernel", for a runtime source file that NVRTC
# compiles at run time (the runtime never reads the file itself). Each
# `#include "<name>"` line naming a file of SOURCE's directory is replaced
# by that file's text (InlineIncludes.cmake). Rewritten only when the text
# changes.
include(${CMAKE_CURRENT_LIST_DIR}/InlineIncludes.cmake)
proofc_inline_includes("${SOURCE}" "[A-Za-z0-9_.]+" text)
get_filename_component(name "${SOURCE}" NAME)
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${name} by runtime/cmake/EmbedSource.cmake.\nR\"proofc_kernel(${text})proofc_kernel\"\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
