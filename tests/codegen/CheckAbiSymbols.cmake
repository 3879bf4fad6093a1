# cmake -DTKC=... -DNM=nm -DHW=zen5-2c -DTARGET=x86_64 -DDOC=docs/abi.md
#       -DSOURCES="a.tk;b.tk" [-DOPTS="0;3"] [-DMAPPING_SOURCES="p.tk"] -DOUT=dir
#       -P CheckAbiSymbols.cmake
#
# docs/abi.md promises which symbols a tkc object may need from outside
# (the marked table "abi:undefined-symbols").  Compiles each of SOURCES at
# each -O level in OPTS (and each of MAPPING_SOURCES once more with
# --check-mappings, which calls its own runtime entry points), reads the
# undefined symbols with `nm -u`, and fails naming the file, flags and
# symbol for every symbol the table does not list.
cmake_minimum_required(VERSION 3.20)
foreach(_v TKC NM HW TARGET DOC SOURCES OUT)
  if(NOT DEFINED ${_v} OR "${${_v}}" STREQUAL "")
    message(FATAL_ERROR "CheckAbiSymbols.cmake: -D${_v}=... missing")
  endif()
endforeach()
if(NOT DEFINED OPTS)
  set(OPTS 0 3)
endif()

# --- the documented list: backticked names in the first column of the rows
# between the two markers (several names may share a row).  The block is cut
# out of the whole text first: file(STRINGS) would merge lines at unbalanced
# '[' elsewhere in the doc (a list-splitting rule of CMake).
file(READ "${DOC}" _doc)
set(_begin_marker "<!-- abi:undefined-symbols begin")
set(_end_marker "<!-- abi:undefined-symbols end")
string(FIND "${_doc}" "${_begin_marker}" _begin)
string(FIND "${_doc}" "${_end_marker}" _end)
set(_allowed "")
if(_begin GREATER -1 AND _end GREATER _begin)
  math(EXPR _len "${_end} - ${_begin}")
  string(SUBSTRING "${_doc}" ${_begin} ${_len} _block)
  string(REGEX REPLACE "[][;]" " " _block "${_block}")
  string(REPLACE "\n" ";" _rows "${_block}")
  foreach(_row IN LISTS _rows)
    if(_row MATCHES "^\\|([^|]*)\\|")
      string(REGEX MATCHALL "`[^`]+`" _names "${CMAKE_MATCH_1}")
      foreach(_n IN LISTS _names)
        string(REPLACE "`" "" _n "${_n}")
        list(APPEND _allowed "${_n}")
      endforeach()
    endif()
  endforeach()
endif()
list(LENGTH _allowed _n_allowed)
if(_n_allowed EQUAL 0)
  message(FATAL_ERROR "${DOC}: no symbols between '${_begin_marker}' and '${_end_marker}'")
endif()
message(STATUS "${DOC} lists ${_n_allowed} symbols: ${_allowed}")

# --- the objects
file(MAKE_DIRECTORY "${OUT}")
set(_jobs "")
foreach(_src IN LISTS SOURCES)
  foreach(_o IN LISTS OPTS)
    list(APPEND _jobs "${_src}|-O${_o}")
  endforeach()
endforeach()
foreach(_src IN LISTS MAPPING_SOURCES)
  list(APPEND _jobs "${_src}|--check-mappings")
endforeach()

set(_failures "")
foreach(_job IN LISTS _jobs)
  string(REPLACE "|" ";" _parts "${_job}")
  list(GET _parts 0 _src)
  list(GET _parts 1 _flag)
  get_filename_component(_stem "${_src}" NAME_WE)
  string(REPLACE "-" "" _tag "${_flag}")
  set(_obj "${OUT}/${_stem}-${TARGET}-${_tag}.o")
  execute_process(
    COMMAND "${TKC}" "${_src}" -o "${_obj}" --target=${TARGET} --hw=${HW} ${_flag}
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "tkc ${_src} --target=${TARGET} ${_flag} failed (${_rc}):\n${_out}${_err}")
  endif()
  execute_process(COMMAND "${NM}" -u "${_obj}"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _nm ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${NM} -u ${_obj} failed (${_rc}): ${_err}")
  endif()
  # nm prints "                 U name" per undefined symbol.
  string(REGEX MATCHALL "U [^\n]+" _undef "${_nm}")
  set(_names "")
  foreach(_u IN LISTS _undef)
    string(REGEX REPLACE "^U +" "" _u "${_u}")
    string(STRIP "${_u}" _u)
    list(APPEND _names "${_u}")
    if(NOT _u IN_LIST _allowed)
      list(APPEND _failures "${_src} (--target=${TARGET} ${_flag}): '${_u}' is not listed in ${DOC}")
    endif()
  endforeach()
  message(STATUS "${_stem}.tk ${_flag}: ${_names}")
endforeach()

if(_failures)
  list(JOIN _failures "\n  " _msg)
  message(FATAL_ERROR "undefined symbols that ${DOC} does not list:\n  ${_msg}")
endif()
message(STATUS "every undefined symbol is listed in ${DOC}")
