# `cmake --install` puts the tools beside the runtime and tells the Python
# package where they are, so that an install prefix alone runs the README's
# Python loop (compiling a .mlir needs `proofc compile`) and an embedder has
# the `proofc compile` that makes its bundles:
#   <prefix>/bin/proofc, proofc-run, proofc-merge            (those built)
#   <prefix>/<PROOFC_PYTHON_INSTALL_DIR>/proofc/_installed.py BIN_DIR: the
#       tools' directory relative to the package (program.find_binary)
# Included at the end of the top-level CMakeLists.txt, after every tool's
# directory. The tools keep the link-time RPATH of the libraries they link
# outside the system directories (LLVM/MLIR's), so they start from the
# prefix without LD_LIBRARY_PATH. docs/python.md ("Install") has the layout.
include(GNUInstallDirs)

foreach(tool proofc proofc-run proofc-merge)
  if(TARGET ${tool})
    set_target_properties(${tool} PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
      COMPONENT tools)
  endif()
endforeach()

if(TARGET proofc_python)
  set(package_dir "${PROOFC_PYTHON_INSTALL_DIR}/proofc")
  if(IS_ABSOLUTE "${package_dir}" OR IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}")
    # Not both under the prefix: the tools' absolute directory.
    set(PROOFC_INSTALLED_BIN_DIR "${CMAKE_INSTALL_FULL_BINDIR}")
  else()
    # Both under the prefix: the same relative path for every --prefix.
    file(RELATIVE_PATH PROOFC_INSTALLED_BIN_DIR "/prefix/${package_dir}"
         "/prefix/${CMAKE_INSTALL_BINDIR}")
  endif()
  set(installed_py ${CMAKE_BINARY_DIR}/python/install/_installed.py)
  file(CONFIGURE OUTPUT ${installed_py} CONTENT
"\"\"\"Written by `cmake --install` (tools/Install.cmake): where the tools are.\"\"\"
# The directory of proofc, proofc-run and proofc-merge, relative to this
# package's directory (or absolute).
BIN_DIR = \"@PROOFC_INSTALLED_BIN_DIR@\"
" @ONLY)
  install(FILES ${installed_py} DESTINATION ${package_dir} COMPONENT python)

  # package.python-install: the README's Python loop from the prefix that
  # package.install wrote, with nothing set but the package's directory on
  # PYTHONPATH (test/package/ReadmeFromPrefix.py).
  if(PROOFC_BUILD_TESTS AND TARGET proofc)
    set(prefix ${PROJECT_BINARY_DIR}/test/package/prefix)
    add_test(NAME package.python-install
      COMMAND ${CMAKE_COMMAND} -E env --unset=PROOFC_BIN --unset=PROOFC_BIN_DIR
              --unset=PROOFC_CACHE_DIR PATH=/usr/bin:/bin
              PYTHONPATH=${prefix}/${PROOFC_PYTHON_INSTALL_DIR}
              ${Python3_EXECUTABLE}
              ${PROJECT_SOURCE_DIR}/test/package/ReadmeFromPrefix.py
              ${PROJECT_SOURCE_DIR} ${prefix} ${PROOFC_SHARED_DIR}
              ${CMAKE_CURRENT_BINARY_DIR}/test/package/readme-cache)
    set_tests_properties(package.python-install PROPERTIES
      FIXTURES_REQUIRED proofc_install_prefix TIMEOUT 600)

    # package.train-install: `proofc train` from the prefix alone (the
    # driver finds the prefix's package and Python, the package the prefix's
    # proofc): two CPU updates on nations (docs/training.md).
    add_test(NAME package.train-install
      COMMAND ${CMAKE_COMMAND} -E env --unset=PROOFC_BIN --unset=PROOFC_BIN_DIR
              --unset=PYTHONPATH PATH=/usr/bin:/bin
              PROOFC_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/test/package/train-cache
              ${prefix}/bin/proofc train ${PROJECT_SOURCE_DIR}/examples/v10.mlir
              --data ${PROOFC_SHARED_DIR}/data/nations --updates 2 --device cpu
              --triples-per-update 8 --valid-queries 20 --no-progress
              -o ${CMAKE_CURRENT_BINARY_DIR}/test/package/train-install.safetensors)
    set_tests_properties(package.train-install PROPERTIES
      FIXTURES_REQUIRED proofc_install_prefix TIMEOUT 600 LABELS "package;python"
      PASS_REGULAR_EXPRESSION "wrote .*train-install.safetensors: checkpoint")
  endif()
endif()
