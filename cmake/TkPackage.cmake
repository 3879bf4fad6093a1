# CMake package "tk" for users: find_package(tk) + tk_add_library() or enable_language(TK).
# Two configs are produced from cmake/tkConfig.cmake.in:
#   build tree:   ${CMAKE_BINARY_DIR}/tkConfig.cmake       (tk_DIR=<build>)
#   install tree: <prefix>/lib/cmake/tk/tkConfig.cmake      (tk_DIR=<prefix>/lib/cmake/tk)
# Included after backends/, so it knows whether this build has the CUDA
# runtime (target tkrt_cuda, with the NVPTX backend) and the PTX executor
# (target tk_cuda_emu, where cuda.h was found); the configs describe only
# what was built (TK_CFG_HAVE_TKRT_CUDA, TK_CFG_HAVE_CUDA_EMU).
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
set(TK_CFG_HAVE_TKRT_CUDA FALSE)
set(TK_CFG_TKRT_CUDA "")
set(TK_CFG_TKRT_CUDA_INCLUDE_DIR "")
if(TARGET tkrt_cuda)
  set(TK_CFG_HAVE_TKRT_CUDA TRUE)
  set(TK_CFG_TKRT_CUDA "${CMAKE_BINARY_DIR}/lib/libtkrt_cuda.a")
  set(TK_CFG_TKRT_CUDA_INCLUDE_DIR "${CMAKE_SOURCE_DIR}/backends/nvptx/runtime")
endif()
# The executor's file: <LIBRARY_OUTPUT_DIRECTORY>/lib<OUTPUT_NAME>.so.<SOVERSION>
# (lib/cuda-emu/libcuda.so.1, backends/nvptx/emulator/CMakeLists.txt), its
# name also in the install tree.
set(TK_CFG_HAVE_CUDA_EMU FALSE)
set(TK_CFG_CUDA_EMU "")
set(TK_CFG_CUDA_EMU_INCLUDE_DIR "")
set(_tk_emu_file "")
if(TARGET tk_cuda_emu)
  get_target_property(_tk_emu_dir tk_cuda_emu LIBRARY_OUTPUT_DIRECTORY)
  get_target_property(_tk_emu_name tk_cuda_emu OUTPUT_NAME)
  get_target_property(_tk_emu_sover tk_cuda_emu SOVERSION)
  set(_tk_emu_file "${CMAKE_SHARED_LIBRARY_PREFIX}${_tk_emu_name}${CMAKE_SHARED_LIBRARY_SUFFIX}.${_tk_emu_sover}")
  set(TK_CFG_HAVE_CUDA_EMU TRUE)
  set(TK_CFG_CUDA_EMU "${_tk_emu_dir}/${_tk_emu_file}")
  set(TK_CFG_CUDA_EMU_INCLUDE_DIR "${CMAKE_SOURCE_DIR}/backends/nvptx/emulator")
endif()
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
if(TK_CFG_HAVE_TKRT_CUDA)
  set(TK_CFG_TKRT_CUDA "\${_tk_prefix}/${CMAKE_INSTALL_LIBDIR}/libtkrt_cuda.a")
  set(TK_CFG_TKRT_CUDA_INCLUDE_DIR "\${_tk_prefix}/${CMAKE_INSTALL_INCLUDEDIR}/tk")
endif()
if(TK_CFG_HAVE_CUDA_EMU)   # install(TARGETS tk_cuda_emu ...) in backends/nvptx/emulator
  set(TK_CFG_CUDA_EMU "\${_tk_prefix}/${CMAKE_INSTALL_LIBDIR}/tk/cuda-emu/${_tk_emu_file}")
  set(TK_CFG_CUDA_EMU_INCLUDE_DIR "\${_tk_prefix}/${CMAKE_INSTALL_INCLUDEDIR}/tk")
endif()
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
