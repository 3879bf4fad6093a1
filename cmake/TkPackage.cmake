# CMake package "tk" for users: find_package(tk) + tk_add_library() or enable_language(TK).
# Two configs are produced from cmake/tkConfig.cmake.in:
#   build tree:   ${CMAKE_BINARY_DIR}/tkConfig.cmake       (tk_DIR=<build>)
#   install tree: <prefix>/lib/cmake/tk/tkConfig.cmake      (tk_DIR=<prefix>/lib/cmake/tk)
set(_tk_pkg_version_file ${CMAKE_BINARY_DIR}/tkConfigVersion.cmake)
write_basic_package_version_file(${_tk_pkg_version_file}
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)

# --- build tree: absolute paths into the build and source trees
set(TK_CFG_PREFIX_CODE "")
set(TK_CFG_TKC "${CMAKE_BINARY_DIR}/bin/tkc")
set(TK_CFG_TKRT "${CMAKE_BINARY_DIR}/lib/libtkrt.a")
set(TK_CFG_INCLUDE_DIR "${CMAKE_SOURCE_DIR}/backends/x86/runtime")
set(TK_CFG_STDLIB_DIR "${CMAKE_SOURCE_DIR}/stdlib")
set(TK_CFG_MODULE_DIR "${CMAKE_SOURCE_DIR}/cmake")
configure_file(${CMAKE_SOURCE_DIR}/cmake/tkConfig.cmake.in
  ${CMAKE_BINARY_DIR}/tkConfig.cmake @ONLY)

# --- install tree: paths relative to the config file's location
set(_tk_cfg_install_dir ${CMAKE_INSTALL_LIBDIR}/cmake/tk)
file(RELATIVE_PATH _tk_rel_prefix "/${_tk_cfg_install_dir}" "/")
set(TK_CFG_PREFIX_CODE
  "get_filename_component(_tk_prefix \"\${CMAKE_CURRENT_LIST_DIR}/${_tk_rel_prefix}\" ABSOLUTE)")
set(TK_CFG_TKC "\${_tk_prefix}/${CMAKE_INSTALL_BINDIR}/tkc")
set(TK_CFG_TKRT "\${_tk_prefix}/${CMAKE_INSTALL_LIBDIR}/libtkrt.a")
set(TK_CFG_INCLUDE_DIR "\${_tk_prefix}/${CMAKE_INSTALL_INCLUDEDIR}/tk")
set(TK_CFG_STDLIB_DIR "\${_tk_prefix}/${CMAKE_INSTALL_DATADIR}/tk/stdlib")
set(TK_CFG_MODULE_DIR "\${CMAKE_CURRENT_LIST_DIR}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/tkConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/install/tkConfig.cmake @ONLY)

install(FILES
  ${CMAKE_BINARY_DIR}/cmake/install/tkConfig.cmake
  ${_tk_pkg_version_file}
  ${CMAKE_SOURCE_DIR}/cmake/TkAddLibrary.cmake
  ${CMAKE_SOURCE_DIR}/cmake/CMakeDetermineTKCompiler.cmake
  ${CMAKE_SOURCE_DIR}/cmake/CMakeTKCompiler.cmake.in
  ${CMAKE_SOURCE_DIR}/cmake/CMakeTKInformation.cmake
  ${CMAKE_SOURCE_DIR}/cmake/CMakeTestTKCompiler.cmake
  DESTINATION ${_tk_cfg_install_dir})
