# Included by the codegen checks (cmake -P scripts): compiles SRC for
# TARGET with `TKC --emit=asm -O2 --hw=HW` into OUT and reads it into
# `lines`; fails with tkc's messages when it does not compile. HW (a
# description name or .hw path) is required: the tiles, and so the
# assembly, depend on the caches it describes (docs/testing.md).
if(NOT DEFINED HW)
  message(FATAL_ERROR "EmitAsm.cmake: -DHW=<description> is required")
endif()
execute_process(COMMAND ${TKC} --emit=asm --target=${TARGET} --hw=${HW} -O2 ${SRC} -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tkc failed (${rc}): ${out}${err}")
endif()
file(STRINGS ${OUT} lines)

# tk_function_lines(<sym> <out-var>): the lines of `lines` that belong to
# function <sym> or to its outlined parallel bodies (.L<sym>.par<N>): each
# from its `.type NAME,@function` to the next `.type`.
function(tk_function_lines sym out)
  set(inside FALSE)
  set(result "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*\\.type[ \t]+([^,]+),@function")
      if(CMAKE_MATCH_1 STREQUAL sym OR CMAKE_MATCH_1 MATCHES "^\\.L${sym}\\.par[0-9]+$")
        set(inside TRUE)
      else()
        set(inside FALSE)
      endif()
    elseif(inside)
      list(APPEND result "${line}")
    endif()
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()
