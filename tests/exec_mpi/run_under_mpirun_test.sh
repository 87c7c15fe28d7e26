#!/usr/bin/env bash
# `mpirun -np 2 zerosim run`: a healthy run reports both ranks and exits 0; a rank that dies
# mid-step, and one that stops (hangs), must end the run, non-zero, within 60 s, with a message
# naming the rank (never a hang).
# - killed (SIGKILL): mpirun notices the death and ends the job ("process rank 1 ...").
# - stopped (SIGSTOP): rank 0's collective times out (--collective-timeout 3), says so naming
#   rank 1, and MPI_Abort ends every rank.
# Usage: run_under_mpirun_test.sh ZEROSIM
set -u
# shellcheck source=tests/exec_mpi/mpirun_lib.sh
source "$(dirname "$0")/mpirun_lib.sh"
zerosim=$1
work=$(mktemp -d)
trap 'pkill -KILL -f "$work/cfg.json" 2>/dev/null; rm -rf "$work"' EXIT
cat > "$work/cfg.json" <<'JSON'
{"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 2, "bf16": {"enabled": true},
 "zero_optimization": {"stage": 2, "reduce_bucket_size": 20000},
 "optimizer": {"type": "AdamW", "params": {"lr": 1e-3}}}
JSON
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
status=0

# check NAME SIGNAL EXPECTED_TEXT
check() {
  local name=$1 signal=$2 expected=$3 out="$work/$1.out"
  mpirun -np 2 --oversubscribe "$zerosim" run "$work/cfg.json" --model tiny-gpt --seq-len 64 \
    --steps 1000000 --collective-timeout 3 > "$out" 2>&1 &
  local job=$!
  # Training has started once rank 0 prints a step.
  for _ in $(seq 1 600); do grep -q '^step' "$out" && break; sleep 0.1; done
  local pid
  pid=$(rank_pid "zerosim run $work/cfg.json" 1)
  if [ -z "$pid" ] || ! grep -q '^step' "$out"; then
    echo "FAIL $name: the run did not start"; cat "$out"; kill -KILL "$job"; status=1; return
  fi
  signal_and_wait "$name" "$signal" "$pid" "$job" "$out" "$expected"
}

out="$work/healthy.out"
if ! mpirun -np 2 --oversubscribe "$zerosim" run "$work/cfg.json" --model tiny-gpt --seq-len 64 \
    --steps 3 > "$out" 2>&1; then
  echo "FAIL healthy: mpirun exited non-zero"; cat "$out"; status=1
fi
for want in "2 GPUs" "2 ranks (one process each)" "^step   2 " "^rank 0: step" "^rank 1: step"; do
  if ! grep -q "$want" "$out"; then echo "FAIL healthy: no \"$want\" in:"; cat "$out"; status=1; fi
done
echo "healthy: 2 ranks trained 3 steps"

check killed KILL "process rank 1 "
check stopped STOP "nothing from rank 1 in 3 s"
exit $status
