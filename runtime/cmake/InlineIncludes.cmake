# proofc_inline_includes(SOURCE PATTERN OUT): OUT receives SOURCE's text with
# every `#include "<name>"` line whose name matches PATTERN (a regex for the
# quoted name) replaced by the text of that file of SOURCE's directory,
# because NVRTC gets one self-contained source. Included files are inlined
# the same way, each file once: a later include of a file already inlined
# is dropped (the files carry include guards, so the text means the same).
# Fails on a missing file or text that contains the raw-string delimiter
# )proofc_kernel" the embedding uses. Shared by the runtime's embedded
# kernels (EmbedSource.cmake) and the compiler's templates
# (lib/Targets/Bundle/EmbedKernels.cmake).
function(proofc_inline_includes source pattern out)
  set_property(GLOBAL PROPERTY PROOFC_INLINED "${source}")
  _proofc_inline_includes("${source}" "${pattern}" text)
  string(FIND "${text}" ")proofc_kernel\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${source}: contains the raw-string delimiter )proofc_kernel\"")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(_proofc_inline_includes source pattern out)
  get_filename_component(dir "${source}" DIRECTORY)
  file(READ "${source}" text)
  string(REGEX MATCHALL "#include \"${pattern}\"" includes "${text}")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "#include \"(${pattern})\"" "\\1" included "${line}")
    set(path "")
    foreach(candidate IN ITEMS "${dir}" ${PROOFC_INLINE_INCLUDE_DIRS})
      if(NOT path AND EXISTS "${candidate}/${included}")
        set(path "${candidate}/${included}")
      endif()
    endforeach()
    if(NOT path)
      message(FATAL_ERROR "${source}: includes ${included}, which is not in "
              "${dir} ${PROOFC_INLINE_INCLUDE_DIRS}")
    endif()
    get_property(inlined GLOBAL PROPERTY PROOFC_INLINED)
    # list(FIND), not IN_LIST: script mode (-P) sets no policies.
    list(FIND inlined "${path}" seen)
    if(NOT seen EQUAL -1)
      set(inner "")
    else()
      set_property(GLOBAL APPEND PROPERTY PROOFC_INLINED "${path}")
      _proofc_inline_includes("${path}" "${pattern}" inner)
    endif()
    string(REPLACE "${line}" "${inner}" text "${text}")
  endforeach()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
