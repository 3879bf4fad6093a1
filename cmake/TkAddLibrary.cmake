# TkAddLibrary.cmake - compile .tk sources with tkc into a static library.
#
#   tk_add_library(<name>
#     SOURCES a.tk [b.tk ...]            # relative to CMAKE_CURRENT_SOURCE_DIR
#     [TARGET host|x86_64|x86_64-avx2|x86_64-avx512    # default: host
#             |cuda|cuda-sm_80|cuda-sm_90|cuda-sm_90a]
#     [OPT 0|1|2|3]                      # default: 3
#     [INCLUDE_DIRS dir ...]             # passed as -I dir (import search path)
#     [FLAGS flag ...])                  # any further tkc flags
#
# For each source x.tk this adds one build step that runs
#   tkc x.tk -o <bin>/<name>.tk/obj/x.o --target=T -OO -I.. -MD -MF x.d -MT x.o
#   tkc x.tk --emit=header -o <bin>/<name>.tk/include/x.h --target=T -I..
# with DEPFILE x.d, so editing a file that x.tk imports rebuilds x.o.  The
# objects form STATIC library <name>, which links tk::tkrt (libtkrt.a and
# Threads) and has the header directory in its PUBLIC include path:
#   #include "x.h"   // int myop(const float* A, ..., int64_t M, ...);
#
# With a cuda target the objects are host code that launches the embedded PTX
# through libtkrt_cuda.a and reference nothing of libtkrt.a, so the library
# links tk::tkrt_cuda (libtkrt_cuda.a, tkrt_cuda.h's directory, -ldl and
# Threads) instead of tk::tkrt; the functions take device pointers and a
# trailing CUstream (docs/gpu.md):
#   int myop(const float* A, ..., int64_t M, ..., void* stream);
# tk::tkrt_cuda exists only where tk was built with its NVPTX backend.  The
# program loads the CUDA driver at run time; TK_CUDA_DRIVER=${TK_CUDA_EMU_DRIVER}
# runs it on tk's PTX executor (tkConfig.cmake).
#
# Needs tk::tkc and tk::tkrt, or tk::tkrt_cuda (defined by tkConfig.cmake).

function(tk_add_library name)
  cmake_parse_arguments(PARSE_ARGV 1 TK "" "TARGET;OPT" "SOURCES;INCLUDE_DIRS;FLAGS")
  if(TK_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tk_add_library(${name}): unknown arguments: ${TK_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TK_SOURCES)
    message(FATAL_ERROR "tk_add_library(${name}): no SOURCES given")
  endif()
  if(NOT TK_TARGET)
    set(TK_TARGET host)
  endif()
  if(NOT DEFINED TK_OPT OR TK_OPT STREQUAL "")
    set(TK_OPT 3)
  endif()
  if(NOT TK_OPT MATCHES "^[0-3]$")
    message(FATAL_ERROR "tk_add_library(${name}): OPT must be 0..3, got '${TK_OPT}'")
  endif()
  if(NOT TARGET tk::tkc OR NOT TARGET tk::tkrt)
    message(FATAL_ERROR "tk_add_library(${name}): tk::tkc / tk::tkrt missing; call find_package(tk) first")
  endif()
  # cuda targets: host objects that call libtkrt_cuda.a (and only it).
  set(_runtime tk::tkrt)
  if(TK_TARGET MATCHES "^cuda")
    if(NOT TK_TARGET MATCHES "^cuda(-sm_80|-sm_90|-sm_90a)?$")
      message(FATAL_ERROR "tk_add_library(${name}): unknown cuda target '${TK_TARGET}' (cuda, cuda-sm_80, cuda-sm_90 or cuda-sm_90a)")
    endif()
    if(NOT TARGET tk::tkrt_cuda)
      message(FATAL_ERROR "tk_add_library(${name}): TARGET ${TK_TARGET} needs tk::tkrt_cuda (libtkrt_cuda.a), "
        "which this tk package does not have: tk was built without its NVPTX (CUDA) backend")
    endif()
    set(_runtime tk::tkrt_cuda)
  endif()

  set(_out ${CMAKE_CURRENT_BINARY_DIR}/${name}.tk)
  set(_objdir ${_out}/obj)
  set(_incdir ${_out}/include)
  file(MAKE_DIRECTORY ${_objdir} ${_incdir})

  set(_iflags "")
  foreach(_d IN LISTS TK_INCLUDE_DIRS)
    get_filename_component(_d "${_d}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _iflags -I ${_d})
  endforeach()

  get_target_property(_tkc tk::tkc IMPORTED_LOCATION)

  # tkc leaves outputs whose bytes did not change untouched.  Ninja restats
  # custom command outputs; Make does not, so mark them up to date there.
  set(_make_gen FALSE)
  if(CMAKE_GENERATOR MATCHES "Make")
    set(_make_gen TRUE)
  endif()

  set(_objs "")
  set(_hdrs "")
  set(_stems "")
  foreach(_src IN LISTS TK_SOURCES)
    get_filename_component(_abs "${_src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(_stem "${_src}" NAME_WE)
    if(_stem IN_LIST _stems)
      message(FATAL_ERROR "tk_add_library(${name}): two sources named ${_stem}.tk")
    endif()
    list(APPEND _stems ${_stem})
    set(_obj ${_objdir}/${_stem}.o)
    set(_hdr ${_incdir}/${_stem}.h)
    set(_dep ${_objdir}/${_stem}.d)
    set(_touch "")
    if(_make_gen)
      set(_touch COMMAND ${CMAKE_COMMAND} -E touch_nocreate ${_obj} ${_hdr})
    endif()
    add_custom_command(
      OUTPUT ${_obj} ${_hdr}
      COMMAND tk::tkc ${_abs} -o ${_obj} --target=${TK_TARGET} -O${TK_OPT} ${_iflags} ${TK_FLAGS}
              -MD -MF ${_dep} -MT ${_obj}
      COMMAND tk::tkc ${_abs} --emit=header -o ${_hdr} --target=${TK_TARGET} ${_iflags} ${TK_FLAGS}
      ${_touch}
      MAIN_DEPENDENCY ${_abs}
      DEPENDS ${_tkc}
      DEPFILE ${_dep}
      COMMENT "tkc ${_src} -> ${name}"
      VERBATIM)
    list(APPEND _objs ${_obj})
    list(APPEND _hdrs ${_hdr})
  endforeach()

  # The library has only objects, so CMake cannot infer how to archive it:
  # name an enabled language.  Hard-coding C broke project(p CXX) at
  # generate time (no CMAKE_C_ARCHIVE_CREATE); the archive is the same
  # either way, and the tkc objects and libtkrt are C ABI.
  get_property(_langs GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("CXX" IN_LIST _langs)
    set(_linker_lang CXX)
  elseif("C" IN_LIST _langs)
    set(_linker_lang C)
  else()
    message(FATAL_ERROR "tk_add_library(${name}): enable C or CXX first, e.g. project(${PROJECT_NAME} C) or enable_language(C)")
  endif()

  add_library(${name} STATIC ${_objs} ${_hdrs})
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE ${_linker_lang})
  target_include_directories(${name} PUBLIC ${_incdir})
  target_link_libraries(${name} PUBLIC ${_runtime})
endfunction()
