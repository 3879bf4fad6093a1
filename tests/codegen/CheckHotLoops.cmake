# cmake -DTKC=... -DSRC=file.tk -DTARGET=x86_64-avx512 -DVREG=zmm -DOUT=file.s -P CheckHotLoops.cmake
#
# Compiles SRC to assembly and checks every hot loop — a single-block loop
# (a block that jumps back to its own label) doing packed vector FMAs
# without lane masks: the in-range reduction loops of register-blocked
# tiles (edge tiles, which run masked and one vector column at a time, are
# not hot). It must use VREG registers and must not touch the
# stack — no spills or reloads, i.e. no `(%rsp)` operands (generated code
# omits the frame pointer, so %rbp is an ordinary register). Fails
# when there is no hot block.
cmake_policy(SET CMP0007 NEW)
execute_process(COMMAND ${TKC} --emit=asm --target=${TARGET} -O2 ${SRC} -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tkc failed (${rc}): ${out}${err}")
endif()
file(STRINGS ${OUT} lines)
set(fma_loops 0)
set(block "")
set(label "")
# A sentinel label closes the last block.
list(APPEND lines ".Lend:")
foreach(line IN LISTS lines)
  if(line MATCHES "^([.A-Za-z_][A-Za-z0-9_.]*):")
    set(next_label ${CMAKE_MATCH_1})
    set(self_loop FALSE)
    if(NOT label STREQUAL "" AND block MATCHES "\n[ \t]+j[a-z]+[ \t]+${label}\n")
      set(self_loop TRUE)
    endif()
    if(self_loop AND block MATCHES "vfmadd[0-9]+p[sd]" AND NOT block MATCHES "\\{%k[1-7]\\}|vmaskmov")
      math(EXPR fma_loops "${fma_loops} + 1")
      if(block MATCHES "\\(%rsp\\)")
        message(FATAL_ERROR "stack access in an FMA loop of ${SRC} (${TARGET}):\n${block}")
      endif()
      if(NOT block MATCHES "vfmadd[0-9]+p[sd][ \t]+[^\n]*%${VREG}")
        message(FATAL_ERROR "FMA loop of ${SRC} (${TARGET}) does not use ${VREG} registers:\n${block}")
      endif()
    endif()
    set(block "")
    set(label ${next_label})
  endif()
  string(APPEND block "${line}\n")
endforeach()
if(fma_loops EQUAL 0)
  message(FATAL_ERROR "no packed FMA loop found in ${SRC} (${TARGET})")
endif()
message(STATUS "${fma_loops} FMA loops without stack traffic in ${SRC} (${TARGET})")
