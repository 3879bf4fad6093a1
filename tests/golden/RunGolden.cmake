# cmake -DTKC=<tkc> -DSRC=<name.tk> -DEXPECTED=<name.stage.expected> "-DFLAGS=<flags>" -P RunGolden.cmake
# FLAGS is the text of the RUN line (split like a shell command line).
# Runs `tkc [--hw=zen5-2c] FLAGS SRC` from SRC's directory and compares its stdout with
# EXPECTED byte for byte. With UPDATE_GOLDEN=1 in the environment it
# rewrites EXPECTED instead (review the diff before committing).
get_filename_component(_dir ${SRC} DIRECTORY)
get_filename_component(_file ${SRC} NAME)
separate_arguments(_flags UNIX_COMMAND "${FLAGS}")
# Expected text is exact, so CPU outputs are for one fixed description (the
# tiles the construction optimizer picks depend on it), never the host's:
# --hw=zen5-2c comes first, and a RUN line's own --hw wins over it. CUDA
# targets name their own GPU description.
if(NOT FLAGS MATCHES "--target=cuda")
  list(PREPEND _flags --hw=zen5-2c)
endif()
execute_process(COMMAND ${TKC} ${_flags} ${_file}
  WORKING_DIRECTORY ${_dir}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tkc ${FLAGS} ${_file} exited with ${rc}\n${err}")
endif()
if("$ENV{UPDATE_GOLDEN}" STREQUAL "1")
  file(WRITE ${EXPECTED} "${out}")
  message(STATUS "updated ${EXPECTED}")
  return()
endif()
if(NOT EXISTS ${EXPECTED})
  message(FATAL_ERROR "missing ${EXPECTED} (run with UPDATE_GOLDEN=1 to create it)")
endif()
file(READ ${EXPECTED} want)
if(NOT out STREQUAL want)
  file(WRITE ${EXPECTED}.actual "${out}")
  execute_process(COMMAND diff -u ${EXPECTED} ${EXPECTED}.actual OUTPUT_VARIABLE d)
  message(FATAL_ERROR "output differs from ${EXPECTED} (actual output in ${EXPECTED}.actual):\n${d}")
endif()
