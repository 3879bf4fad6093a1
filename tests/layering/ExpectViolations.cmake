# ExpectViolations.cmake: runs CheckLayering.cmake on the fixture tree and
# passes only when it fails reporting exactly the lines of expected.txt (so a
# rule that stopped firing, or one that fires on an allowed include, shows).
#
#   cmake -DCHECK=<CheckLayering.cmake> -DFIXTURES=<fixtures dir> -P ExpectViolations.cmake
cmake_minimum_required(VERSION 3.25)

execute_process(
  COMMAND ${CMAKE_COMMAND} -DROOT=${FIXTURES} -DANTLR_DIR=${FIXTURES}/antlr4-runtime -P ${CHECK}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "CheckLayering passed on ${FIXTURES}, which has seeded violations:\n${out}${err}")
endif()

# One reported violation per line, "file:line: #include ...", in order.
string(REGEX MATCHALL "[^\n]+:[0-9?]+: #include [^\n]*" got "${err}")
file(STRINGS ${FIXTURES}/expected.txt want)
if(NOT got STREQUAL want)
  string(REPLACE ";" "\n" got_text "${got}")
  string(REPLACE ";" "\n" want_text "${want}")
  message(NOTICE "CheckLayering on ${FIXTURES} reported\n${got_text}\n\nexpected (expected.txt)\n${want_text}\n")
  message(FATAL_ERROR "CheckLayering's report on the fixtures differs from expected.txt")
endif()
list(LENGTH want n)
message(STATUS "CheckLayering reported the ${n} seeded violations and nothing else")
