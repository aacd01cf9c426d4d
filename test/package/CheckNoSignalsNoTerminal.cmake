# Fails when the static library ARCHIVE refers to a signal handler's
# installation or to terminal output: the installed runtime never installs
# a signal handler and never prints (Session.h; the tooling does both,
# runtime/tooling). Reads the archive's undefined symbols with nm.
#
#   cmake -DNM=<nm> -DARCHIVE=<lib.a> -P CheckNoSignalsNoTerminal.cmake
foreach(var NM ARCHIVE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CheckNoSignalsNoTerminal.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${ARCHIVE}")
  message(FATAL_ERROR "${ARCHIVE}: no such archive")
endif()
execute_process(COMMAND "${NM}" -u -C "${ARCHIVE}"
  OUTPUT_VARIABLE symbols ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -u ${ARCHIVE} failed:\n${err}")
endif()
# sigaction/signal/sigset: handlers; isatty/ttyname: a terminal display;
# printf/puts/perror and std::cout/cerr: printing.
set(found "")
string(REGEX MATCHALL "U [^\n]*" undefined "${symbols}")
foreach(line IN LISTS undefined)
  string(REGEX REPLACE "^U +" "" name "${line}")
  if(name MATCHES "^(sigaction|signal|sigset|bsd_signal|isatty|ttyname|printf|puts|perror|__printf_chk|std::cout|std::cerr)$")
    list(APPEND found "${name}")
  endif()
endforeach()
if(found)
  list(REMOVE_DUPLICATES found)
  list(JOIN found ", " names)
  # On one unwrapped line (FATAL_ERROR wraps), for the test that checks it.
  message(STATUS "refused: ${ARCHIVE} refers to ${names}")
  message(FATAL_ERROR "${ARCHIVE} installs signal handlers or prints: it refers to ${names}")
endif()
message(STATUS "${ARCHIVE}: no signal handler, no terminal output")
