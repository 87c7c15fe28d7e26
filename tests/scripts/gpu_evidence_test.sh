#!/usr/bin/env bash
# scripts/gpu_evidence.sh on a machine without a GPU: `dry-run` names every GPU test binary this
# build registers (labelled gpu; the MPI one aside, which the GPU machine cannot start), so a new
# GPU test cannot be left out of what a lent GPU runs; and `run`, given binaries, goes through
# every step, fails where a device is needed, and still writes its summary and tarball.
# Usage: gpu_evidence_test.sh BUILD_DIR
set -euo pipefail
build=$1
cd "$(dirname "$0")/../.."
dry=$(scripts/gpu_evidence.sh dry-run)
missing=0
for t in $(ctest --test-dir "$build" -N -L gpu | sed -n 's/^ *Test *#[0-9]*: \([a-z_0-9]*\)\..*/\1/p' | sort -u); do
  [[ $t == exec_mpi_* ]] && continue
  if ! grep -q "bin/$t " <<<"$dry"; then
    echo "FAIL: scripts/gpu_evidence.sh does not run $t"
    missing=1
  fi
done
[[ $missing == 0 ]] || exit 1
for model in gpt2 gpt2-medium; do
  grep -q "zerosim validate .* --model $model --backend cuda" <<<"$dry" || { echo "FAIL: no zerosim validate of $model"; exit 1; }
  grep -q "pytorch_gpt2_baseline.py --model $model" <<<"$dry" || { echo "FAIL: no baseline of $model"; exit 1; }
done
grep -q "zerosim calibrate --backend cuda" <<<"$dry" || { echo "FAIL: no calibrate --backend cuda"; exit 1; }
grep -q "scripts/deepspeed_gpu.sh" <<<"$dry" || { echo "FAIL: no real DeepSpeed"; exit 1; }
# Real DeepSpeed at micro-batch 1, 2 and 8 and with offload (issue 34's GPU item), each config
# with simulate's prediction beside it.
ds=$(grep "scripts/deepspeed_gpu.sh" <<<"$dry")
for n in stage2_bf16_mb1 stage2_bf16_mb2 stage2_bf16 stage2_offload_bf16 stage3_offload_bf16; do
  grep -q " $n" <<<"$ds" || { echo "FAIL: real DeepSpeed does not run $n"; exit 1; }
  grep -q "zerosim simulate bench/configs/deepspeed_gpu/$n.json" <<<"$dry" || { echo "FAIL: no prediction of $n"; exit 1; }
done
grep -q '"offload_param"' bench/configs/deepspeed_gpu/stage3_offload_bf16.json || { echo "FAIL: stage3_offload_bf16 offloads no parameters"; exit 1; }
# Every config a command names is in the tree (the GPU machine has nothing else).
for cfg in $(grep -o 'bench/configs/[a-z_0-9/]*\.json' <<<"$dry" | sort -u); do
  [[ -f $cfg ]] || { echo "FAIL: $cfg is missing"; exit 1; }
done
# The Python that runs there at least compiles here (no torch here to run it).
for py in bench/pytorch_gpt2_baseline.py bench/deepspeed_gpt2.py; do
  python3 -c "import ast, sys; ast.parse(open(sys.argv[1]).read())" "$py" || { echo "FAIL: $py"; exit 1; }
done
bash -n scripts/deepspeed_gpu.sh
# GPU_EVIDENCE_ONLY keeps the matching commands and drops the rest.
only=$(GPU_EVIDENCE_ONLY='calibrate' scripts/gpu_evidence.sh dry-run | grep -v '^#')
[[ $(wc -l <<<"$only") == 1 && $only == *"zerosim calibrate"* ]] || { echo "FAIL: GPU_EVIDENCE_ONLY: $only"; exit 1; }
echo "dry-run names every GPU test, calibrate, both GPT-2 runs and real DeepSpeed"
