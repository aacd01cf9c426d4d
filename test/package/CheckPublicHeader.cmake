# Compiles one public header alone against an include directory and checks
# that it includes nothing but the C++ standard library and public proofc
# headers from that directory (what an embedder's compiler sees after
# `cmake --install`):
#
#   cmake -DCXX=c++ -DINCLUDE_DIR=<prefix>/include -DHEADER=proofc/runtime/X.h
#         -DWORK_DIR=<scratch> [-DEXTRA_FLAGS=<;-list>] -P CheckPublicHeader.cmake
#
# 1. `#include <HEADER>` alone compiles (-std=c++17 -Wall -Wextra -Werror)
#    with INCLUDE_DIR as the only include directory besides the compiler's.
# 2. Every file the preprocessor opens for it (-M) is under INCLUDE_DIR or is
#    one that the C++17 standard library headers themselves open (found by
#    preprocessing a file that includes all of them). Third-party headers
#    in the default search path (/usr/include/fmt, nlohmann, cuda.h) are
#    thus caught although they would compile.
# EXTRA_FLAGS (the negative tests: a third-party directory) go to both steps.
foreach(var CXX INCLUDE_DIR HEADER WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CheckPublicHeader.cmake: -D${var}=... is required")
  endif()
endforeach()

# A refusal: the text unformatted (message(FATAL_ERROR) would rewrap it),
# then a non-zero exit.
function(refuse text)
  message(NOTICE "${text}")
  message(FATAL_ERROR "${HEADER}: refused")
endfunction()

string(MAKE_C_IDENTIFIER "${HEADER}" stem)
file(MAKE_DIRECTORY "${WORK_DIR}")
set(flags -std=c++17 -Wall -Wextra -Werror ${EXTRA_FLAGS} -I "${INCLUDE_DIR}")

# The preprocessor's dependency list of `source`, as real paths.
function(dependencies source out)
  execute_process(COMMAND "${CXX}" ${flags} -M "${source}"
    OUTPUT_VARIABLE text ERROR_VARIABLE errors RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    refuse("${CXX} -M ${source} failed:\n${errors}")
  endif()
  string(REPLACE "\\\n" " " text "${text}")
  string(REGEX REPLACE "^[^:]*:" "" text "${text}")
  string(REGEX REPLACE "[ \t\n]+" ";" text "${text}")
  set(paths)
  foreach(path IN LISTS text)
    if(NOT path STREQUAL "" AND NOT path STREQUAL "${source}")
      file(REAL_PATH "${path}" real)
      list(APPEND paths "${real}")
    endif()
  endforeach()
  set(${out} ${paths} PARENT_SCOPE)
endfunction()

# 1. Alone, it compiles.
set(source "${WORK_DIR}/${stem}.cpp")
file(WRITE "${source}" "#include <${HEADER}>\n")
execute_process(COMMAND "${CXX}" ${flags} -fsyntax-only "${source}"
  ERROR_VARIABLE errors OUTPUT_VARIABLE errors RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  refuse("${HEADER} does not compile alone against ${INCLUDE_DIR}:\n${errors}")
endif()

# 2. It opens only standard-library files and public proofc headers.
set(standard_source "${WORK_DIR}/${stem}.standard.cpp")
set(standard_headers algorithm any array atomic bitset cassert cctype cerrno
    cfenv cfloat charconv chrono cinttypes climits clocale cmath complex
    condition_variable csetjmp csignal cstdarg cstddef cstdint cstdio cstdlib
    cstring ctime cwchar cwctype deque exception filesystem forward_list
    fstream functional future initializer_list iomanip ios iosfwd iostream
    istream iterator limits list locale map memory memory_resource mutex new
    numeric optional ostream queue random ratio regex scoped_allocator set
    shared_mutex sstream stack stdexcept streambuf string string_view
    system_error thread tuple type_traits typeindex typeinfo unordered_map
    unordered_set utility valarray variant vector)
set(text "")
foreach(name IN LISTS standard_headers)
  string(APPEND text "#include <${name}>\n")
endforeach()
file(WRITE "${standard_source}" "${text}")
dependencies("${standard_source}" standard)
dependencies("${source}" opened)

file(REAL_PATH "${INCLUDE_DIR}" include_real)
set(foreign)
foreach(path IN LISTS opened)
  string(FIND "${path}" "${include_real}/proofc/" at)
  if(NOT at EQUAL 0)
    list(FIND standard "${path}" index)
    if(index EQUAL -1)
      list(APPEND foreign "${path}")
    endif()
  endif()
endforeach()
if(foreign)
  list(JOIN foreign "\n  " listed)
  refuse("${HEADER} includes files that are neither the C++ standard \
library nor public proofc headers under ${INCLUDE_DIR}:\n  ${listed}")
endif()
list(LENGTH opened count)
message(STATUS "${HEADER}: compiles alone; opens ${count} files, all "
        "standard or public")
