# CheckLayering.cmake: fails when an #include in ir/, frontend/, scheduler/ or
# backends/ crosses the dependency direction of docs/architecture.md.
#
#   cmake -DROOT=<source tree> [-DANTLR_DIR=<ANTLR runtime include dir>] -P CheckLayering.cmake
#
# Prints "file:line: #include "x" breaks the layering: <rule>" for each
# offending include and exits non-zero when there is one. Only directives at
# the start of a line count (an "#include" inside a string literal does not).
# A quoted include resolves against the including file's directory first, as
# the compiler does; a name neither there nor under a layer directory is a
# system or third-party header, checked only for being ANTLR's.
cmake_minimum_required(VERSION 3.25)

if(NOT ROOT OR NOT IS_DIRECTORY "${ROOT}")
  message(FATAL_ERROR "CheckLayering: pass -DROOT=<source tree> (got '${ROOT}')")
endif()
get_filename_component(ROOT "${ROOT}" ABSOLUTE)

# The scheduler target directory each backend may use besides scheduler/.
set(_sched_dir_of_x86 cpu)
set(_sched_dir_of_nvptx cuda)

# tk_layer(<out> <path relative to ROOT>): the layer a file belongs to:
# ir, frontend, frontend/antlr, driver, scheduler, scheduler/<cpu|cuda>,
# backends (files directly in backends/), backends/common, backends/<target>,
# runtime/<target>; "" for none.
function(tk_layer out rel)
  set(l "")
  if(rel MATCHES "^ir/")
    set(l ir)
  elseif(rel MATCHES "^frontend/driver/")
    set(l driver)
  elseif(rel MATCHES "^frontend/antlr/")
    set(l frontend/antlr)
  elseif(rel MATCHES "^frontend/")
    set(l frontend)
  elseif(rel MATCHES "^scheduler/(cpu|cuda|sunway)/")
    set(l scheduler/${CMAKE_MATCH_1})
  elseif(rel MATCHES "^scheduler/")
    set(l scheduler)
  elseif(rel MATCHES "^backends/[^/]+$")
    set(l backends)
  elseif(rel MATCHES "^backends/common/")
    set(l backends/common)
  elseif(rel MATCHES "^backends/([^/]+)/runtime/")
    set(l runtime/${CMAKE_MATCH_1})
  elseif(rel MATCHES "^backends/([^/]+)/")
    set(l backends/${CMAKE_MATCH_1})
  endif()
  set(${out} "${l}" PARENT_SCOPE)
endfunction()

# tk_rule(<out> <from layer> <to layer> <including file>): "" when a file of
# layer <from> may include a header of layer <to>, else the rule it breaks.
# <to> is "antlr" for ANTLR's runtime and generated parser headers.
function(tk_rule out from to file)
  set(r "")
  if(to STREQUAL "antlr" OR to STREQUAL "frontend/antlr")
    # frontend/antlr/ and frontend/*.cpp are the parser's implementation; the
    # other frontend headers are tk_frontend's interface and the build gives
    # ANTLR's include paths to tk_frontend alone.
    if(NOT (from STREQUAL "frontend/antlr" OR (from STREQUAL "frontend" AND NOT file MATCHES "\\.(h|hpp|inc)$")))
      set(r "ANTLR headers (and frontend/antlr/, which includes them) are visible only to frontend/antlr/ and frontend/*.cpp")
    endif()
  elseif(to STREQUAL "")
    # system and third-party headers
  elseif(from STREQUAL "ir")
    if(NOT to STREQUAL "ir")
      set(r "ir/ includes only ir/")
    endif()
  elseif(from MATCHES "^frontend")
    if(NOT to MATCHES "^(ir|frontend)$")
      set(r "frontend/ (driver/ aside) includes only ir/ and frontend/")
    endif()
  elseif(from STREQUAL "scheduler")
    if(NOT to MATCHES "^(ir|scheduler|scheduler/.*)$")
      set(r "scheduler/ includes only ir/ and scheduler/")
    elseif(to MATCHES "^scheduler/." AND NOT file MATCHES "/scheduler/Pipeline\\.cpp$")
      # Target passes run only from their target's hooks, which Pipeline.cpp calls.
      set(r "target-neutral scheduler/ includes scheduler/<target>/ only in Pipeline.cpp (through the target's hooks)")
    endif()
  elseif(from MATCHES "^scheduler/(.*)$")
    set(t ${CMAKE_MATCH_1})
    if(NOT (to MATCHES "^(ir|scheduler)$" OR to STREQUAL from))
      set(r "scheduler/${t}/ includes only ir/, target-neutral scheduler/ and scheduler/${t}/")
    endif()
  elseif(from STREQUAL "backends")
    # backends/*.h is the interface every backend implements; the registry
    # (backends/*.cpp) is the one place that sees every backend.
    if(file MATCHES "\\.(h|hpp|inc)$")
      if(NOT to MATCHES "^(ir|scheduler|backends|backends/common)$")
        set(r "backends/*.h (the Backend interface) includes only ir/, target-neutral scheduler/, backends/*.h and backends/common/")
      endif()
    elseif(NOT to MATCHES "^(ir|scheduler|backends|backends/common)$" AND NOT to MATCHES "^backends/")
      set(r "the backend registry (backends/*.cpp) includes only ir/, target-neutral scheduler/ and backends/ (no runtime)")
    endif()
  elseif(from STREQUAL "backends/common")
    if(NOT to MATCHES "^(ir|scheduler|backends/common)$")
      set(r "backends/common/ includes only ir/, target-neutral scheduler/ and backends/common/")
    endif()
  elseif(from MATCHES "^backends/(.*)$")
    set(t ${CMAKE_MATCH_1})
    set(sched "")
    set(sched_text "")
    if(DEFINED _sched_dir_of_${t})
      set(sched scheduler/${_sched_dir_of_${t}})
      set(sched_text " or ${sched}/")
    endif()
    if(NOT (to MATCHES "^(ir|scheduler|backends|backends/common)$" OR to STREQUAL from OR to STREQUAL "runtime/${t}"
            OR (sched AND to STREQUAL sched)))
      set(r "backends/${t}/ includes only ir/, scheduler/ (target-neutral${sched_text}), backends/*.h, backends/common/ and backends/${t}/, never another backend")
    endif()
  elseif(from MATCHES "^runtime/(.*)$")
    set(t ${CMAKE_MATCH_1})
    if(NOT to STREQUAL from)
      set(r "backends/${t}/runtime/ is linked into user programs: it includes only its own headers, nothing from the compiler")
    endif()
  endif()
  set(${out} "${r}" PARENT_SCOPE)
endfunction()

# tk_target_layer(<out> <including file, absolute> <delimiter> <name>): the
# layer of an included header, "antlr" for ANTLR's, "" for other outside ones.
function(tk_target_layer out file delim name)
  set(rel "")
  if(name MATCHES "^(ir|frontend|scheduler|backends)/")
    set(rel "${name}")
  elseif(delim STREQUAL "\"")
    get_filename_component(dir "${file}" DIRECTORY)
    if(EXISTS "${dir}/${name}")
      get_filename_component(abs "${dir}/${name}" ABSOLUTE)
      file(RELATIVE_PATH rel "${ROOT}" "${abs}")
    endif()
  endif()
  if(rel AND NOT rel MATCHES "^\\.\\./")
    tk_layer(l "${rel}")
  elseif(name MATCHES "^(Tk(Lexer|Parser|Visitor|BaseVisitor)\\.h|antlr4-runtime\\.h|antlr4-runtime/.*)$"
         OR (ANTLR_DIR AND EXISTS "${ANTLR_DIR}/${name}"))
    set(l antlr)
  else()
    set(l "")
  endif()
  set(${out} "${l}" PARENT_SCOPE)
endfunction()

# tk_line_of(<out> <file> <name>): the line number of the first directive
# including <name>.
function(tk_line_of out file name)
  file(STRINGS "${file}" lines)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    string(FIND "${line}" "${name}" at)
    if(line MATCHES "^[ \t]*#[ \t]*include" AND at GREATER -1)
      set(${out} ${n} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "?" PARENT_SCOPE)
endfunction()

set(_globs "")
foreach(d ir frontend scheduler backends)
  foreach(ext h hpp inc c cc cpp)
    list(APPEND _globs "${ROOT}/${d}/*.${ext}")
  endforeach()
endforeach()
file(GLOB_RECURSE _files LIST_DIRECTORIES false ${_globs})
list(SORT _files)

set(_violations 0)
set(_includes 0)
foreach(f IN LISTS _files)
  file(RELATIVE_PATH rel "${ROOT}" "${f}")
  tk_layer(from "${rel}")
  file(STRINGS "${f}" directives REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  foreach(d IN LISTS directives)
    if(NOT d MATCHES "#[ \t]*include[ \t]*([<\"])([^>\"]*)[>\"]")
      continue()
    endif()
    set(delim "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    math(EXPR _includes "${_includes} + 1")
    tk_target_layer(to "${f}" "${delim}" "${name}")
    tk_rule(r "${from}" "${to}" "${f}")
    if(r)
      tk_line_of(line "${f}" "${name}")
      if(delim STREQUAL "<")
        set(shown "<${name}>")
      else()
        set(shown "\"${name}\"")
      endif()
      message(NOTICE "${rel}:${line}: #include ${shown} breaks the layering: ${r}")
      math(EXPR _violations "${_violations} + 1")
    endif()
  endforeach()
endforeach()

list(LENGTH _files _nfiles)
if(_violations GREATER 0)
  message(FATAL_ERROR "${_violations} include(s) break the layering (docs/architecture.md, \"Dependency direction\"); "
                      "checked ${_includes} includes in ${_nfiles} files under ${ROOT}")
endif()
message(STATUS "layering: ${_includes} includes in ${_nfiles} files, none crosses a layer")
