# cmake -DCMD=<program> -DARGS=<arguments separated by |> -DEXPECT=<status> -P ExpectExit.cmake
# (| rather than ; because add_test flattens ; lists before they reach -D.)
# Runs CMD ARGS and fails unless it exits with status EXPECT.
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND ${CMD} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL EXPECT)
  message(FATAL_ERROR "${CMD} exited with '${rc}', expected ${EXPECT}\nstdout:\n${out}\nstderr:\n${err}")
endif()
