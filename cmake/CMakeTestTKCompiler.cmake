# CMakeTestTKCompiler.cmake - enable_language(TK): check that tkc runs.
# A try_compile would need a whole TK project; `tkc --version` is enough to
# know the path is an executable tkc, and compile errors show in the build.
if(NOT CMAKE_TK_COMPILER_WORKS)
  message(CHECK_START "Check for working TK compiler: ${CMAKE_TK_COMPILER}")
  execute_process(COMMAND "${CMAKE_TK_COMPILER}" --version
    OUTPUT_VARIABLE _tk_out ERROR_VARIABLE _tk_out RESULT_VARIABLE _tk_rc)
  if(NOT _tk_rc EQUAL 0 OR NOT _tk_out MATCHES "^tkc ")
    message(CHECK_FAIL "broken")
    message(FATAL_ERROR "The TK compiler\n  ${CMAKE_TK_COMPILER}\ndoes not run (`--version` gave ${_tk_rc}):\n${_tk_out}")
  endif()
  message(CHECK_PASS "works")
  set(CMAKE_TK_COMPILER_WORKS TRUE)
  unset(_tk_out)
  unset(_tk_rc)
  # Record the result so the next configure run skips the check.
  configure_file(${CMAKE_CURRENT_LIST_DIR}/CMakeTKCompiler.cmake.in
    ${CMAKE_PLATFORM_INFO_DIR}/CMakeTKCompiler.cmake @ONLY)
endif()
