# Installs the build at BUILD_DIR into a fresh PREFIX (`cmake --install`, as
# an embedder would) and checks the layout: the library, the package config
# and exactly the public headers of runtime/include and runtime/contract/
# include -- nothing of
# runtime/src, whose headers are internal.
#
#   cmake -DBUILD_DIR=<build> -DPREFIX=<dir> -DSOURCE_INCLUDE=<runtime/include>
#         -P InstallPrefix.cmake
foreach(var BUILD_DIR PREFIX SOURCE_INCLUDE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "InstallPrefix.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}"
                        --prefix "${PREFIX}"
  OUTPUT_VARIABLE log ERROR_VARIABLE log RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} failed:\n${log}")
endif()

foreach(file lib/libproofc_runtime.a lib/cmake/proofc/proofcConfig.cmake
             lib/cmake/proofc/proofcConfigVersion.cmake
             lib/cmake/proofc/proofcTargets.cmake)
  if(NOT EXISTS "${PREFIX}/${file}")
    message(FATAL_ERROR "cmake --install wrote no ${file}:\n${log}")
  endif()
endforeach()

# SOURCE_INCLUDE: the public include directories, '|'-separated (the
# runtime's and the contract's).
string(REPLACE "|" ";" source_includes "${SOURCE_INCLUDE}")
set(public "")
foreach(dir IN LISTS source_includes)
  file(GLOB_RECURSE headers RELATIVE "${dir}" "${dir}/*")
  list(APPEND public ${headers})
endforeach()
file(GLOB_RECURSE installed RELATIVE "${PREFIX}/include" "${PREFIX}/include/*")
list(SORT public)
list(SORT installed)
if(NOT public STREQUAL installed)
  message(FATAL_ERROR "installed headers differ from runtime/include:\n"
          "  runtime/include: ${public}\n  installed: ${installed}")
endif()
list(LENGTH installed count)
message(STATUS "installed into ${PREFIX}: the library, the package config "
        "and ${count} public headers")
