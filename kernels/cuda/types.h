// Element types and conventions shared by every kernel in kernels/cuda/ (each header repeats
// what applies to it).
//
// - Every kernel has a CPU twin in kernels/cpu/ with the same shape arguments (the models/ops.h
//   shape structs), layout, aliasing rules and overwrite/accumulate semantics; the CUDA function
//   adds a trailing cudaStream_t. The CPU twin is the test oracle (tests/kernels_cuda/).
// - The element type T of activations and 16-bit weights is a template parameter, explicitly
//   instantiated for float, __nv_bfloat16 and __half. Kernels convert T to fp32, compute and
//   accumulate in fp32, and round each T output to nearest even once.
//   Row statistics, lse, losses, parameter-gradient accumulators, master weights and Adam
//   states are fp32 whatever T is.
// - Buffers are contiguous device memory with the shapes the header gives; input (activation)
//   gradients are OVERWRITTEN, parameter gradients ACCUMULATE (+=), as in kernels/cpu/.
// - A call enqueues its kernels on `stream` and returns without waiting. Broken host-side
//   preconditions (REQUIRES:) abort through ZS_CHECK; a failing CUDA or cuBLAS call aborts
//   through ZS_CUDA_CHECK / ZS_CUBLAS_CHECK; device-side index checks (token ids, targets) trap,
//   which the next checked call on the stream reports.
// - Deterministic: no atomics on floats; every reduction has a fixed grid and order, so the same
//   inputs on the same device give bitwise the same outputs.
//
// This header and the public kernel headers need only the CUDA runtime headers (cuda_runtime.h
// and the bf16/fp16 types); cuBLASLt stays inside the .cu files.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
