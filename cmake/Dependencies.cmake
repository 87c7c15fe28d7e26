# Every dependency comes from the distribution's packages (scripts/ensure_deps.sh installs them).
find_package(nlohmann_json 3.10 REQUIRED)   # nlohmann-json3-dev
find_package(CLI11 2.1 REQUIRED)             # libcli11-dev
find_package(Eigen3 3.3 REQUIRED NO_MODULE)  # libeigen3-dev (CPU reference kernels)
find_package(GTest REQUIRED)                 # libgtest-dev
find_package(MPI COMPONENTS CXX)             # libopenmpi-dev: the CPU execution backend
find_package(Threads REQUIRED)

# CUDA toolkit, cuBLAS(Lt) and NCCL: built whenever present, even on machines without a GPU,
# so that CI compiles and links them; the GPU tests skip at run time without a device.
set(ZS_HAVE_CUDA OFF)
set(ZS_HAVE_CUDA_MSG "off")
if(NOT ZS_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  find_package(CUDAToolkit QUIET)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/include)
  find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/lib)
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND AND NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(ZS_HAVE_CUDA ON)
    set(ZS_HAVE_CUDA_MSG "on (CUDA ${CUDAToolkit_VERSION}, NCCL ${NCCL_LIBRARY})")
  elseif(ZS_CUDA STREQUAL "ON")
    message(FATAL_ERROR "ZS_CUDA=ON but the CUDA toolkit, cuBLAS or NCCL was not found")
  else()
    set(ZS_HAVE_CUDA_MSG "not found (CPU-only build)")
  endif()
endif()
