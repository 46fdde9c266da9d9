# The one place that says how device code is compiled. Exactness needs IEEE
# division and square root and no contraction (--fmad=false -prec-div=true
# -prec-sqrt=true, never fast math); the host side of .cu files gets the same
# host flags as the rest (-ffp-contract=off, GCC's SLP vectorizer off).
# Every CUDA target links speedqa_cuda_exact: the engine's kernels and the
# device tests (the FP-contract test checks exactly these flags).
# Device code is C++20 like the rest; CMake 3.25 does not know nvcc's flag for it.
if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
set(CMAKE_CUDA_STANDARD 20)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
add_library(speedqa_cuda_exact INTERFACE)
target_compile_options(speedqa_cuda_exact INTERFACE
  $<$<COMPILE_LANGUAGE:CUDA>:--fmad=false -prec-div=true -prec-sqrt=true --extended-lambda -Xcompiler=-ffp-contract=off ${SPEEDQA_CUDA_HOST_FLAGS}>)
target_link_libraries(speedqa_cuda_exact INTERFACE CUDA::cudart_static)

# speedqa_cuda_target(TARGET): position independent, with the exactness flags.
function(speedqa_cuda_target target)
  target_link_libraries(${target} PUBLIC speedqa_cuda_exact)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
