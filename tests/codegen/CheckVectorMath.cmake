# cmake -DTKC=... -DHW=zen5-2c -DSRC=file.tk -DTARGET=x86_64-avx512 -DSYMBOLS="a;b" -DOUT=file.s -P CheckVectorMath.cmake
#
# Compiles SRC to assembly and checks each function in SYMBOLS, with its
# outlined parallel bodies (.L<sym>.par<N>): the math functions it calls
# were expanded inline (backends/x86/EmitVectorMath.h), so the loop runs
# fused multiply-adds on zmm vectors and calls no libm function.
cmake_policy(SET CMP0007 NEW)
include(${CMAKE_CURRENT_LIST_DIR}/EmitAsm.cmake)
foreach(sym IN LISTS SYMBOLS)
  set(vector_fmas 0)
  set(math_calls "")
  tk_function_lines(${sym} body)
  foreach(line IN LISTS body)
    if(line MATCHES "vfmadd[0-9]+ps.*zmm")
      math(EXPR vector_fmas "${vector_fmas} + 1")
    elseif(line MATCHES "call.*(exp|log|tanh|erf)")
      string(STRIP "${line}" call)
      list(APPEND math_calls "${call}")
    endif()
  endforeach()
  if(math_calls)
    message(FATAL_ERROR "${sym}: libm calls in ${OUT}: ${math_calls}")
  endif()
  if(vector_fmas EQUAL 0)
    message(FATAL_ERROR "${sym}: no zmm fused multiply-adds (the loop did not vectorize) in ${OUT}")
  endif()
  message(STATUS "${sym}: ${vector_fmas} zmm fused multiply-adds, no libm calls")
endforeach()
