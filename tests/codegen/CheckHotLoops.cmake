# cmake -DTKC=... -DHW=zen5-2c -DSRC=file.tk -DTARGET=x86_64-avx512 -DVREG=zmm -DOUT=file.s -P CheckHotLoops.cmake
#
# Compiles SRC to assembly and checks every hot loop — a single-block loop
# (a block that jumps back to its own label) doing packed vector FMAs
# without lane masks: the in-range reduction loops of register-blocked
# tiles (edge tiles, which run masked and one vector column at a time, are
# not hot). It must use VREG registers and must not touch the
# stack — no spills or reloads, i.e. no `(%rsp)` operands other than a
# compare with a trip count kept in the frame (generated code omits the
# frame pointer, so %rbp is an ordinary register). Fails
# when there is no hot block. Options: -DMASKED=ON also counts loops with
# lane masks computed before the loop (a convolution's tiles read the padded
# image masked in their hot loop; a loop that compares lanes on every step
# is an edge tile evaluating its guard per step, not hot); -DMIN_FMAS=N
# requires some hot loop with at least N FMAs (the full register tile);
# -DSYMBOLS="a;b" looks only at those functions (and the parallel loop
# bodies outlined from them, which follow them).
cmake_policy(SET CMP0007 NEW)
include(${CMAKE_CURRENT_LIST_DIR}/EmitAsm.cmake)
set(fma_loops 0)
set(most_fmas 0)
set(block "")
set(label "")
# A sentinel label closes the last block.
list(APPEND lines ".Lend:")
# A loop block ends at its backward jump: what falls through after it (the
# stores of a finished tile) is not part of the loop.
set(loop_block "")
set(in_scope TRUE)
foreach(line IN LISTS lines)
  if(DEFINED SYMBOLS AND line MATCHES "^([A-Za-z_][A-Za-z0-9_]*):")
    list(FIND SYMBOLS ${CMAKE_MATCH_1} found)
    if(found EQUAL -1)
      set(in_scope FALSE)
    else()
      set(in_scope TRUE)
    endif()
  endif()
  if(NOT in_scope)
    continue()
  endif()
  set(back_jump FALSE)
  if(NOT label STREQUAL "" AND line MATCHES "^[ \t]+j[a-z]+[ \t]+${label}$")
    set(back_jump TRUE)
    string(APPEND block "${line}\n")
    set(loop_block "${block}")
    set(block "")
  endif()
  if(line MATCHES "^([.A-Za-z_][A-Za-z0-9_.]*):")
    set(next_label ${CMAKE_MATCH_1})
    set(self_loop FALSE)
    if(NOT loop_block STREQUAL "")
      set(self_loop TRUE)
      set(block "${loop_block}")
    endif()
    # An inline exp (its floor is a vrndscaleps) evaluates a polynomial
    # with FMAs but accumulates nothing: elementwise math, whose vector
    # epilogue may run narrower vectors, not a register tile.
    if(self_loop AND block MATCHES "vfmadd[0-9]+p[sd]" AND NOT block MATCHES "vrndscalep"
       AND (MASKED OR NOT block MATCHES "\\{%k[1-7]\\}|vmaskmov")
       AND NOT (MASKED AND block MATCHES "vpcmp"))
      math(EXPR fma_loops "${fma_loops} + 1")
      string(REGEX MATCHALL "vfmadd[0-9]+p[sd]" fmas "${block}")
      list(LENGTH fmas n_fmas)
      if(n_fmas GREATER most_fmas)
        set(most_fmas ${n_fmas})
      endif()
      # Vector spills and reloads, and any store to the stack, fail. A
      # compare with a trip count kept in the frame (`cmpq %r15, -120(%rsp)`)
      # is one scalar load per iteration, which the load ports absorb; the
      # register allocator may keep a bound there when the enclosing
      # function holds many values (the fallback paths of a convolution).
      string(REGEX MATCHALL "[^\n]*\\(%rsp\\)[^\n]*" stack_lines "${block}")
      foreach(sl IN LISTS stack_lines)
        if(NOT sl MATCHES "^[ \t]+cmp[bwlq][ \t]+%r[a-z0-9]+, -?[0-9]*\\(%rsp\\)$")
          message(FATAL_ERROR "stack access in an FMA loop of ${SRC} (${TARGET}):\n${block}")
        endif()
      endforeach()
      if(NOT block MATCHES "vfmadd[0-9]+p[sd][ \t]+[^\n]*%${VREG}")
        message(FATAL_ERROR "FMA loop of ${SRC} (${TARGET}) does not use ${VREG} registers:\n${block}")
      endif()
    endif()
    set(block "")
    set(loop_block "")
    set(label ${next_label})
  endif()
  if(NOT back_jump)
    string(APPEND block "${line}\n")
  endif()
endforeach()
if(fma_loops EQUAL 0)
  message(FATAL_ERROR "no packed FMA loop found in ${SRC} (${TARGET})")
endif()
if(DEFINED MIN_FMAS AND most_fmas LESS MIN_FMAS)
  message(FATAL_ERROR "the largest FMA loop of ${SRC} (${TARGET}) has ${most_fmas} FMAs, fewer than ${MIN_FMAS}")
endif()
message(STATUS "${fma_loops} FMA loops without stack traffic in ${SRC} (${TARGET})")
