#include "exec/cuda_library.h"

#include <string>

namespace zs::exec {

Result<const CudaLibrary*> load_cuda_library() {
#if defined(ZS_WITH_CUDA)
  auto cuda = load_backend<CudaLibrary>(kCudaLibraryFile, kCudaLibraryEntry, kCudaLibraryAbi,
                                        /*global=*/false);
  if (!cuda.ok()) {
    return Status::invalid_argument("--backend cuda: " + cuda.status().message() +
                                    "; use --backend cpu");
  }
  return cuda;
#else
  return Status::invalid_argument(
      "--backend cuda: this zerosim was built without CUDA; use --backend cpu");
#endif
}

}  // namespace zs::exec
