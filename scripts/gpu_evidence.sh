#!/usr/bin/env bash
# What a lent GPU machine (one H100 or H200) owes the project, in one command, in this order:
# - real DeepSpeed (scripts/deepspeed_gpu.sh, from wheels carried in .whl) on GPT-2 124M with
#   torch.profiler's host/device split: ZeRO-2 at micro-batch 1, 2 and 8, ZeRO-2 with optimizer
#   offload and ZeRO-3 with optimizer and parameter offload (DeepSpeedCPUAdam), then ZeRO 0, 1
#   and 3, each beside `zerosim simulate` with the preset's profile, which describes DeepSpeed
#   (first: where zerosim's host model most needs measuring);
# - the gpu-labelled tests (every CUDA kernel against its CPU reference; the CUDA executor against
#   the CPU one, every ZeRO stage and optimizer offload on one GPU);
# - scripts/check_sdpa_backends.py: the SDPA backend PyTorch picks for Falcon-7B's multi-query
#   and DeepSeek's unequal head dims, which the CPU measurements assume fused;
# - `zerosim calibrate --backend cuda`: the profile of zerosim's own CUDA backend on this GPU,
#   which every zerosim prediction below uses when it was written;
# - zerosim training GPT-2 124M and 350M in bf16 through `zerosim validate` (the median step after
#   warm-up against the prediction, per-op differences, the allocator's peak against simulate's
#   replay; files in validation/ for `zerosim report`), beside bench/pytorch_gpt2_baseline.py;
# - the one-GPU validation matrix on GPT-2 124M (ZeRO 1-3, fp16, checkpointing, optimizer
#   offload; bench/configs/gpu_matrix).
# Every figure lands in one folder with the device, the date and the commit.
#
# The GPU machine has the CUDA toolkit, PyTorch and NCCL (a Python wheel) but not the C++
# packages zerosim builds against, and no network; so the binaries are built here and carried:
#
#   scripts/gpu_evidence.sh pack       here: a Release build for sm_90 without MPI in build-gpu/,
#                                      its GPU binaries stripped into build-gpu/evidence/
#   scripts/gpu_evidence.sh run        on the GPU machine, from the repository root, with
#                                      build-gpu/evidence (and .whl) carried: its files in
#                                      /tmp/gpu_evidence, then summary.md and gpu_evidence.tar.gz
#                                      (all of them) in $OUT (the device tool brings back at most
#                                      8 files)
#   scripts/gpu_evidence.sh dry-run    here: what `run` would run, command by command
#   scripts/gpu_evidence.sh record DIR here: DIR (the files `run` wrote) into results/gpu/
#
# .whl: DeepSpeed 0.19.6 built with DS_BUILD_OPS=0 and the wheels it needs that the GPU machine
# lacks (hjson, pydantic and its own, ninja for DeepSpeedCPUAdam's JIT build), made here by
# scripts/fetch_deepspeed_wheels.sh. Without .whl that part is skipped.
# GPU_EVIDENCE_ONLY=REGEX runs only the commands that match it (a rerun of some parts).
#
# `run` is sized for the device time a session has (15 minutes, the machine's start included):
# each part has a timeout, and past 450 s the rest is skipped (GPU_EVIDENCE_BUDGET_S); call it
# with the device tool's timeout_s 540 and carry ["build-gpu/evidence", ".whl"]. On an H100 on
# 2026-11-26 everything but DeepSpeed took 183 s, and calibrate with DeepSpeed's four runs 226 s
# (results/gpu/2026-11-26-*): the whole run needs a budget of about 420 s. DeepSpeed's part now
# has eight configs, the offload ones with a JIT build of DeepSpeedCPUAdam: it stops starting
# configs after 240 s and is killed at 330 s, and runs first; when it takes all of that, the
# parts after it get what is left of the 450 s (GPU_EVIDENCE_ONLY reruns them in a second call).
set -euo pipefail
cd "$(dirname "$0")/.."

EVIDENCE=build-gpu/evidence
GPU_TESTS=(kernels_cuda_activation_test kernels_cuda_cross_entropy_test kernels_cuda_embedding_test
  kernels_cuda_linear_test kernels_cuda_norm_test kernels_cuda_rotary_test kernels_cuda_adamw_test
  kernels_cuda_attention_test kernels_cuda_dtype_test kernels_cuda_grad_norm_test
  kernels_cuda_pack_test exec_cuda_model_runner_test exec_cuda_executor_test)
# (model, zerosim --model, micro-batch): GPT-2 124M and 350M at sequence 1024.
RUNS=("gpt2 gpt2 8" "gpt2-medium gpt2-medium 8")
STEPS=12
WARMUP=2
# The one-GPU validation matrix on GPT-2 124M (micro-batch 8, sequence 1024), after the runs
# above and inside the same budget: (name, config in bench/configs/gpu_matrix, extra flags).
MATRIX=("stage1_bf16 stage1_bf16" "stage2_overlap_bf16 stage2_overlap_bf16"
  "stage2_fp16 stage2_fp16" "stage3_bf16 stage3_bf16"
  "stage3_checkpointing stage3_bf16 --checkpointing" "stage2_offload_bf16 stage2_offload_bf16")
MATRIX_STEPS=6
# Real DeepSpeed's configs (bench/configs/deepspeed_gpu), when .whl is carried, in the order
# they run (what is cut by the budget is the end): the micro-batch sweep and offload first.
DEEPSPEED=(stage2_bf16_mb1 stage2_bf16_mb2 stage2_bf16 stage2_offload_bf16 stage3_offload_bf16
  stage0_bf16 stage1_bf16 stage3_bf16)

usage() {
  sed -n '/^#   scripts\/gpu_evidence.sh pack/,/^#   scripts\/gpu_evidence.sh record/p' "$0" |
    sed 's/^# \{0,1\}//'
  exit 1
}

# The GPU preset the predictions are for: the lent card's (H100 or H200), H100 until known.
GPU_PRESET=h100-80gb-sxm

# One `zerosim validate` of the CUDA backend on this card, predicted with $profile:
#   validate_cmd TIMEOUT CONFIG MODEL NAME STEPS "EXTRA FLAGS" OUT_FILE (its stderr: OUT_FILE's
#   stem .log). Reads run_commands' $bin, $out and $profile.
validate_cmd() {
  local to=$7
  echo "timeout $1 $bin/zerosim validate $2 --model $3 --backend cuda --gpu $GPU_PRESET" \
    "--gpus-per-node 1 --seq-len 1024 --steps $5 --warmup $WARMUP${6:+ $6} $profile" \
    "-o $out/validation --name $4 > $out/$to 2> $out/${to%.*}.log"
}

# The commands `run` executes, one per line (dry-run prints them).
run_commands() {
  local out=$1 bin=$EVIDENCE/bin
  # Real DeepSpeed (carried wheels in .whl, scripts/deepspeed_gpu.sh) on GPT-2 124M, beside
  # simulate's prediction for each config with the preset's profile (DeepSpeed on PyTorch).
  for n in "${DEEPSPEED[@]}"; do
    echo "$bin/zerosim simulate bench/configs/deepspeed_gpu/$n.json --model gpt2" \
      "--gpu $GPU_PRESET --gpus-per-node 1 --seq-len 1024 --json > $out/predict_$n.json" \
      "2> $out/predict_$n.log"
  done
  echo "[ -d .whl ] && timeout 330 scripts/deepspeed_gpu.sh $out/deepspeed 240 ${DEEPSPEED[*]}" \
    "> $out/deepspeed.txt 2>&1"
  for t in "${GPU_TESTS[@]}"; do
    echo "timeout 120 $bin/$t --gtest_output=json:$out/tests/$t.json > $out/tests/$t.log 2>&1"
  done
  echo "timeout 90 python3 scripts/check_sdpa_backends.py > $out/sdpa_backends.json" \
    "2> $out/sdpa_backends.log"
  # The profile of zerosim's own CUDA backend on this GPU; every prediction below uses it when
  # calibrate wrote it (else the preset's, which describes DeepSpeed on PyTorch).
  echo "timeout 120 $bin/zerosim calibrate --backend cuda --gpu $GPU_PRESET -o $out/cuda.json" \
    "> $out/calibrate.txt 2> $out/calibrate.log"
  local profile="\$([ -f $out/cuda.json ] && echo --profile $out/cuda.json)"
  for r in "${RUNS[@]}"; do
    read -r name model mb <<<"$r"
    validate_cmd 180 bench/configs/gpt2_bf16.json "$model" "$name" "$STEPS" \
      "--micro-batch $mb --json" "zerosim_$name.json"
    echo "timeout 180 python3 bench/pytorch_gpt2_baseline.py --model $name --micro-batch $mb" \
      "--seq-len 1024 --steps $STEPS --warmup $WARMUP > $out/pytorch_$name.json" \
      "2> $out/pytorch_$name.log"
  done
  for m in "${MATRIX[@]}"; do
    read -r name cfg flags <<<"$m"
    validate_cmd 120 "bench/configs/gpu_matrix/$cfg.json" gpt2 "$name" "$MATRIX_STEPS" \
      "$flags" "matrix_$name.txt"
  done
}

cmd_pack() {
  scripts/ensure_deps.sh
  # No MPI: the GPU machine has no libmpi; one GPU needs none.
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DZS_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_DISABLE_FIND_PACKAGE_MPI=TRUE >/dev/null
  cmake --build build-gpu -j"$(nproc)" --target zerosim "${GPU_TESTS[@]}"
  rm -rf "$EVIDENCE"
  mkdir -p "$EVIDENCE/bin"
  # zerosim loads the CUDA backend from its own directory (exec/backend_library.h).
  cp build-gpu/zerosim build-gpu/libzerosim_cuda.so "$EVIDENCE/bin/"
  for t in "${GPU_TESTS[@]}"; do
    cp "$(find build-gpu/tests -name "$t" -type f -perm -u+x | head -1)" "$EVIDENCE/bin/"
  done
  strip "$EVIDENCE"/bin/*
  git rev-parse HEAD >"$EVIDENCE/COMMIT"
  git status --porcelain --untracked-files=no | grep -q . && echo dirty >>"$EVIDENCE/COMMIT"
  du -sh "$EVIDENCE"
  echo "carry build-gpu/evidence and run: scripts/gpu_evidence.sh run"
}

cmd_run() {
  local out=/tmp/gpu_evidence dest=${OUT:-out/gpu_evidence}
  [[ -x $EVIDENCE/bin/zerosim ]] || {
    echo "no $EVIDENCE: run 'scripts/gpu_evidence.sh pack' first, here" >&2
    exit 1
  }
  rm -rf "$out"
  mkdir -p "$out/tests" "$dest"
  # The runtime libraries: the toolkit's, then every library folder of PyTorch's nvidia wheels
  # (NCCL is only there; cuBLASLt and the runtime too, should the toolkit lack them).
  local wheels
  wheels=$(python3 -c 'import glob, os, nvidia
base = list(nvidia.__path__)[0]
print(":".join(sorted({os.path.dirname(p) for p in glob.glob(base + "/**/lib*.so*", recursive=True)})))' \
    2>/dev/null || true)
  export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/lib:${wheels}:${LD_LIBRARY_PATH:-}"
  # The binaries' commit, for calibrate's stamp (this checkout's git may be another).
  ZS_COMMIT=$(head -1 "$EVIDENCE/COMMIT" | cut -c1-7)$(grep -q dirty "$EVIDENCE/COMMIT" && echo -dirty)
  export ZS_COMMIT
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >"$out/env.txt"
  ldd "$EVIDENCE/bin/zerosim" "$EVIDENCE/bin/libzerosim_cuda.so" >>"$out/env.txt" 2>&1 || true
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "commit: $(tr '\n' ' ' <"$EVIDENCE/COMMIT")"
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader ||
      echo "no GPU: nvidia-smi failed"
    python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)' 2>&1 || true
  } | tee "$out/device.txt"
  # Past the budget (seconds from the start; GPU_EVIDENCE_BUDGET_S, default 450, under a
  # device call of 540 s) the remaining commands are skipped and listed in skipped.txt, so that
  # the files written so far still come back.
  local failed=0 budget=${GPU_EVIDENCE_BUDGET_S:-450}
  while IFS= read -r c; do
    if ((SECONDS > budget)); then
      echo "skipped (the ${budget} s budget is spent): $c" | tee -a "$out/skipped.txt"
      failed=1
      continue
    fi
    echo "+ $c"
    # Exit 4 is validate's verdict NO (the step time outside --tolerance): a measurement.
    bash -c "$c" || { rc=$?; echo "  exit $rc"; ((rc == 4)) || failed=1; }
  done < <(
    if nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | grep -q H200; then
      GPU_PRESET=h200
    fi
    run_commands "$out" | grep -E -- "${GPU_EVIDENCE_ONLY:-.}"
  )
  python3 - "$out" "${RUNS[@]}" <<'EOF' | tee "$out/summary.md"
import glob, json, os, sys
out, runs = sys.argv[1], sys.argv[2:]


def last_lines(log, n=1, missing=()):
    """The last n lines of a failed command's log: why it failed."""
    return open(log).read().strip().splitlines()[-n:] if os.path.exists(log) else list(missing)


mib = lambda b: f"{b / 2**20:,.0f} MiB" if b is not None else "?"
print("## GPU tests\n\n| test | passed | failed | skipped |\n|---|---|---|---|")
for path in sorted(glob.glob(os.path.join(out, "tests", "*.json"))):
    t = json.load(open(path))
    cases = [c for s in t.get("testsuites", []) for c in s.get("testsuite", [])]
    skipped = sum(1 for c in cases if c.get("result") == "SKIPPED")
    failed = sum(1 for c in cases if c.get("failures"))
    print(f"| {os.path.basename(path)[:-5]} | {len(cases) - skipped - failed} | {failed} | {skipped} |")
cal = os.path.join(out, "calibrate.txt")
print("\n## zerosim calibrate --backend cuda\n")
if os.path.exists(os.path.join(out, "cuda.json")):
    print("```\n" + open(cal).read().strip() + "\n```")
    print("\nEvery prediction below uses this profile (cuda.json).")
else:
    last = last_lines(os.path.join(out, "calibrate.log"), 3)
    print("failed: " + " / ".join(last)[:400] + "\n\nThe predictions below use the preset's profile.")
print("\n## Training GPT-2 in bf16, sequence 1024 (zerosim's CUDA backend against PyTorch, same GPU)\n")
print("| model | micro-batch | zerosim tokens/s | PyTorch tokens/s | ratio | zerosim MFU | PyTorch MFU | zerosim peak allocated | PyTorch peak allocated | predicted step | measured step (median) | error |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
def load(what, name):
    try:
        return json.load(open(os.path.join(out, f"{what}_{name}.json")))
    except Exception:  # a failed run says why in its log: its last line here
        last = last_lines(os.path.join(out, f"{what}_{name}.log"))
        print(f"| {name} | {mb} | {what} failed: {' '.join(last)[:200]} |")
        return None
gib = lambda b: f"{b / 2**30:.2f} GiB" if b else "?"
for r in runs:
    name, _, mb = r.split()
    z, p = load("zerosim", name), load("pytorch", name)
    if z is None:
        continue
    zt = z["throughput"]["tokens_per_s"]
    pt = f"{p['throughput']['tokens_per_s']:,.0f}" if p else "-"
    ratio = f"{zt / p['throughput']['tokens_per_s']:.2f}" if p else "-"
    pmfu = f"{p['throughput']['mfu']:.3f}" if p else "-"
    pmem = gib(p["memory"]["gpu"]["peak_bytes"]) if p else "-"
    print(f"| {name} | {mb} | {zt:,.0f} | {pt} | {ratio} | {z['throughput'].get('mfu') or 0:.3f} | {pmfu} "
          f"| {gib(z['memory']['gpu']['peak_bytes'])} | {pmem} "
          f"| {z['prediction']['time']['step_s']:.4f} s | {z['time']['step_s']:.4f} s "
          f"| {z['validation']['step']['error']:+.1%} |")
print("\n## Real DeepSpeed, GPT-2 124M, sequence 1024, one GPU, against simulate\n")
# Memory like for like: PyTorch's max_memory_allocated / max_memory_reserved against simulate's
# caching-allocator replay (its peak_bytes adds the CUDA context and NCCL, which PyTorch's
# counters leave out).
print("| config | micro-batch | DeepSpeed step (median) | predicted step | error | predicted host / GPU idle | profiled: wall / host in ops / device | DeepSpeed max allocated | predicted | error | DeepSpeed max reserved | predicted | error |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for path in sorted(glob.glob(os.path.join(out, "predict_*.json"))):
    n = os.path.basename(path)[8:-5]
    try:
        pr = json.load(open(path))
    except Exception:
        continue
    try:
        d = json.load(open(os.path.join(out, "deepspeed", f"deepspeed_{n}.json")))
    except Exception:
        last = last_lines(os.path.join(out, "deepspeed", f"deepspeed_{n}.log"), missing=["not run"])
        print(f"| {n} | failed: {' '.join(last)[:200]} |")
        continue
    ms, ps = d["time"]["step_s"], pr["time"]["step_s"]
    g, pg = d["memory"]["gpu"], pr["memory"]["gpu"]
    host = pr["time"].get("host") or {}
    hs = (f"{host['busy_s'] * 1e3:.1f} / {host['gpu_idle_s'] * 1e3:.1f} ms"
          if "busy_s" in host else "-")
    p = d.get("profile")
    split = (f"{p['wall_s_per_step_profiled'] * 1e3:.1f} / {p['host_in_ops_s_per_step'] * 1e3:.1f}"
             f" / {p['device_s_per_step'] * 1e3:.1f} ms") if p else "-"
    row = (f"| {n} | {d['batch']['micro_batch_per_gpu']} | {ms * 1e3:.1f} ms | {ps * 1e3:.1f} ms "
           f"| {(ps - ms) / ms:+.1%} | {hs} | {split} ")
    for got, want in ((g["peak_bytes"], pg["allocator_allocated_peak_bytes"]),
                      (g["reserved_bytes"], pg["allocator_reserved_peak_bytes"])):
        row += f"| {mib(got)} | {mib(want)} | {(want - got) / got:+.1%} "
    print(row + "|")
print("\n## Validation matrix: GPT-2 124M, micro-batch 8, sequence 1024, one GPU\n")
print("| row | measured step (median) | min-max | predicted step | error | peak allocated measured | predicted | error |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for path in sorted(glob.glob(os.path.join(out, "validation", "*.json"))):
    name = os.path.basename(path)[:-5]
    if name in [r.split()[0] for r in runs]:
        continue
    v = json.load(open(path))["validation"]
    s, m = v["step"], v["memory"]
    err = f"{m['error']:+.2%}" if m["error"] is not None else "?"
    print(f"| {name} | {s['measured_s'] * 1e3:.1f} ms | {s['measured_min_s'] * 1e3:.1f}-{s['measured_max_s'] * 1e3:.1f} "
          f"| {s['predicted_s'] * 1e3:.1f} ms | {s['error']:+.1%} | {mib(m['measured_bytes'])} "
          f"| {mib(m['predicted_bytes'])} | {err} |")
for path in sorted(glob.glob(os.path.join(out, "matrix_*.log"))):
    name = os.path.basename(path)[7:-4]
    if not os.path.exists(os.path.join(out, "validation", name + ".json")):
        last = last_lines(path)
        print(f"| {name} | failed: {' '.join(last)[:200]} |")
EOF
  cp "$out/summary.md" "$out/device.txt" "$dest/"
  tar czf "$dest/gpu_evidence.tar.gz" -C "$out" .
  return $failed
}

cmd_record() {
  local from=${1:?record needs the folder run wrote}
  local device
  [[ -f $from/gpu_evidence.tar.gz ]] || { echo "$from has no gpu_evidence.tar.gz" >&2; exit 1; }
  device=$(head -3 "$from/device.txt" | tail -1 | cut -d, -f1 | tr ' ' '-' | tr -cd 'A-Za-z0-9-')
  local to="results/gpu/$(date -u +%Y-%m-%d)-${device:-gpu}"
  mkdir -p "$to"
  tar xzf "$from/gpu_evidence.tar.gz" -C "$to"
  echo "recorded in $to: read summary.md, then commit it"
}

case "${1:-}" in
  pack) cmd_pack ;;
  run) shift; cmd_run "$@" ;;
  dry-run)
    echo "# scripts/gpu_evidence.sh run would run, on the GPU machine (LD_LIBRARY_PATH set to the"
    echo "# toolkit's libraries and PyTorch's NCCL), after printing nvidia-smi's name, memory, driver:"
    run_commands '$OUT' | grep -E -- "${GPU_EVIDENCE_ONLY:-.}"
    ;;
  record) shift; cmd_record "$@" ;;
  *) usage ;;
esac
