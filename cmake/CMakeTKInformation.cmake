# CMakeTKInformation.cmake - enable_language(TK): how CMake compiles .tk files.
#
# Each x.tk in a target becomes <objdir>/x.tk.o through the ordinary compile
# rule below, with a gcc-format depfile, so an edit to a file x.tk imports
# rebuilds x.tk.o (Ninja keeps those deps in .ninja_deps; Make reads them
# through CMake's compiler-depends support).  No header is written: the rule
# has no per-source name for one (ISPC's <ISPC_HEADER> is built into CMake);
# tk_add_library() or `tkc --emit=header` provide headers.

set(CMAKE_TK_OUTPUT_EXTENSION .o)
set(CMAKE_INCLUDE_FLAG_TK "-I")
# tkc has no preprocessor: COMPILE_DEFINITIONS are not passed (no <DEFINES>).

# Defaults: -O3 for the plain and Release builds, as tk_add_library().
# tkc takes the last -O, so per-config flags override CMAKE_TK_FLAGS.
set(CMAKE_TK_FLAGS_INIT "$ENV{TKFLAGS} ${CMAKE_TK_FLAGS_INIT} -O3")
set(CMAKE_TK_FLAGS_DEBUG_INIT "-O0")
set(CMAKE_TK_FLAGS_RELEASE_INIT "-O3")
set(CMAKE_TK_FLAGS_RELWITHDEBINFO_INIT "-O2")
set(CMAKE_TK_FLAGS_MINSIZEREL_INIT "-O2")
cmake_initialize_per_config_variable(CMAKE_TK_FLAGS "Flags used by the tk compiler (tkc)")

if(NOT CMAKE_TK_COMPILER_LAUNCHER AND DEFINED ENV{CMAKE_TK_COMPILER_LAUNCHER})
  set(CMAKE_TK_COMPILER_LAUNCHER "$ENV{CMAKE_TK_COMPILER_LAUNCHER}"
    CACHE STRING "Compiler launcher for TK.")
endif()

include(CMakeCommonLanguageInclude)

# Compiler-written dependencies, the same format as gcc -MD.
set(CMAKE_DEPFILE_FLAGS_TK "-MD -MT <DEP_TARGET> -MF <DEP_FILE>")
set(CMAKE_TK_DEPFILE_FORMAT gcc)
set(CMAKE_TK_DEPENDS_USE_COMPILER TRUE)

if(NOT CMAKE_TK_COMPILE_OBJECT)
  # tkc leaves an object whose bytes did not change untouched; compile rules
  # are not restat'ed by Ninja and Make has no restat, so an older object
  # would stay dirty forever: touch it after a successful compile.
  set(CMAKE_TK_COMPILE_OBJECT
    "<CMAKE_TK_COMPILER> <INCLUDES> <FLAGS> -o <OBJECT> <SOURCE>"
    "\"${CMAKE_COMMAND}\" -E touch_nocreate <OBJECT>")
endif()

# Static libraries of .tk objects alone (linker language TK, see
# CMAKE_TK_LINKER_PREFERENCE): archive as the C-family languages do.
if(NOT DEFINED CMAKE_TK_ARCHIVE_CREATE)
  set(CMAKE_TK_ARCHIVE_CREATE "<CMAKE_AR> qc <TARGET> <LINK_FLAGS> <OBJECTS>")
endif()
if(NOT DEFINED CMAKE_TK_ARCHIVE_APPEND)
  set(CMAKE_TK_ARCHIVE_APPEND "<CMAKE_AR> q <TARGET> <LINK_FLAGS> <OBJECTS>")
endif()
if(NOT DEFINED CMAKE_TK_ARCHIVE_FINISH)
  set(CMAKE_TK_ARCHIVE_FINISH "<CMAKE_RANLIB> <TARGET>")
endif()
# No CMAKE_TK_LINK_EXECUTABLE / CREATE_SHARED_LIBRARY: executables and shared
# libraries link with their C or C++ sources' linker (docs/build-integration.md).

set(CMAKE_TK_INFORMATION_LOADED 1)
