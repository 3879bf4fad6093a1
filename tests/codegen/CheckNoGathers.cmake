# cmake -DTKC=... -DHW=zen5-2c -DSRC=file.tk -DTARGET=x86_64-avx512 -DSYMBOLS="a;b" -DOUT=file.s -P CheckNoGathers.cmake
#
# Compiles SRC to assembly and checks each function in SYMBOLS, with its
# outlined parallel bodies: no vector gathers (a stride-2 read that LLVM
# vectorized element by element), and the even/odd shuffles of
# DeinterleaveStridedRows' phase-row copy.
cmake_policy(SET CMP0007 NEW)
include(${CMAKE_CURRENT_LIST_DIR}/EmitAsm.cmake)
foreach(sym IN LISTS SYMBOLS)
  set(gathers 0)
  set(shuffles 0)
  tk_function_lines(${sym} body)
  foreach(line IN LISTS body)
    if(line MATCHES "vgather")
      math(EXPR gathers "${gathers} + 1")
    elseif(line MATCHES "vpermt2ps")
      math(EXPR shuffles "${shuffles} + 1")
    endif()
  endforeach()
  if(gathers GREATER 0)
    message(FATAL_ERROR "${sym}: ${gathers} vector gathers in ${OUT}")
  endif()
  if(shuffles EQUAL 0)
    message(FATAL_ERROR "${sym}: no vpermt2ps (even/odd phase-row copy) in ${OUT}")
  endif()
  message(STATUS "${sym}: no gathers, ${shuffles} deinterleaving shuffles")
endforeach()
