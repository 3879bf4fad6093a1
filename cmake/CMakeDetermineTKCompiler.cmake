# CMakeDetermineTKCompiler.cmake - enable_language(TK): find tkc.
#
# CMake loads this from CMAKE_MODULE_PATH (tkConfig.cmake appends this
# directory) the first time a project enables TK.  Order of preference:
#   1. CMAKE_TK_COMPILER (cache variable, -DCMAKE_TK_COMPILER=/path/to/tkc)
#   2. the TKC environment variable
#   3. the package's compiler: tk::tkc / TK_TKC_EXECUTABLE from find_package(tk)
#   4. tkc on PATH
# The result is cached and written to CMakeFiles/<ver>/CMakeTKCompiler.cmake,
# which later configure runs load instead of searching again.

if(NOT CMAKE_GENERATOR MATCHES "Make|Ninja")
  message(FATAL_ERROR "enable_language(TK): the ${CMAKE_GENERATOR} generator is not supported (use Unix Makefiles or Ninja)")
endif()

if(NOT CMAKE_TK_COMPILER)
  set(_tk_found "")
  if(NOT "$ENV{TKC}" STREQUAL "")
    set(_tk_found "$ENV{TKC}")
    if(NOT EXISTS "${_tk_found}")
      message(FATAL_ERROR "enable_language(TK): TKC=$ENV{TKC} does not exist")
    endif()
  elseif(TARGET tk::tkc)
    get_target_property(_tk_found tk::tkc IMPORTED_LOCATION)
  elseif(TK_TKC_EXECUTABLE)
    set(_tk_found "${TK_TKC_EXECUTABLE}")
  endif()
  if(NOT _tk_found)
    find_program(_tk_found_prog NAMES tkc)
    set(_tk_found "${_tk_found_prog}")
    unset(_tk_found_prog CACHE)
  endif()
  if(NOT _tk_found)
    message(FATAL_ERROR "enable_language(TK): tkc not found; call find_package(tk) first or set CMAKE_TK_COMPILER")
  endif()
  set(CMAKE_TK_COMPILER "${_tk_found}" CACHE FILEPATH "The tk compiler (tkc)")
  unset(_tk_found)
endif()
mark_as_advanced(CMAKE_TK_COMPILER)

# "tkc 0.1.0 (LLVM ...)" -> 0.1.0; a failure here is reported by the test step.
set(CMAKE_TK_COMPILER_ID "tkc")
set(CMAKE_TK_COMPILER_VERSION "")
execute_process(COMMAND "${CMAKE_TK_COMPILER}" --version
  OUTPUT_VARIABLE _tk_version_out ERROR_QUIET RESULT_VARIABLE _tk_version_rc)
if(_tk_version_rc EQUAL 0 AND _tk_version_out MATCHES "^tkc ([0-9]+(\\.[0-9]+)*)")
  set(CMAKE_TK_COMPILER_VERSION "${CMAKE_MATCH_1}")
endif()
unset(_tk_version_out)

# A static library made only of .tk objects is archived by TK's own rules
# (CMakeTKInformation.cmake), which need ar/ranlib even in a project that
# enabled no C-family language.
if(NOT CMAKE_AR)
  find_program(CMAKE_AR NAMES ar)
endif()
if(NOT CMAKE_RANLIB)
  find_program(CMAKE_RANLIB NAMES ranlib)
endif()

configure_file(${CMAKE_CURRENT_LIST_DIR}/CMakeTKCompiler.cmake.in
  ${CMAKE_PLATFORM_INFO_DIR}/CMakeTKCompiler.cmake @ONLY)
set(CMAKE_TK_COMPILER_ENV_VAR "TKC")
