#!/usr/bin/env bash
# `mpirun -np N zerosim sweep`: N processes share one sweep and rank 0 writes the files.
# - 2 and 4 ranks write results.csv, results.json and best_ds_config.json byte for byte as one
#   process does;
# - a rank killed mid-sweep (SIGKILL: mpirun ends the job, rank 0 gets SIGTERM) and a rank
#   stopped mid-sweep (SIGSTOP: rank 0's gather times out, --collective-timeout 3) end the sweep
#   non-zero within 60 s, with the old files in --out unchanged and no staging directory left.
# Usage: sweep_under_mpirun_test.sh ZEROSIM SOURCE_DIR
set -u
# shellcheck source=tests/exec_mpi/mpirun_lib.sh
source "$(dirname "$0")/mpirun_lib.sh"
zerosim=$1
src=$2
work=$(mktemp -d)
trap 'pkill -KILL -f "$work/" 2>/dev/null; rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
status=0
cfg=$src/configs/examples/seed004_review_original.json
common=(--model llama2-7b --gpu a100-80gb --nodes 8 --gpus-per-node 8 --seq-len 4096
        --vary micro_batch=1,2,4,8 --vary stage=1,2,3 --vary overlap_comm=true,false)

# The same files from 1, 2 and 4 processes (one thread each).
small=(--vary zero_optimization.reduce_bucket_size=1e7..5e8:+7e7 --jobs 1)
"$zerosim" sweep "$cfg" "${common[@]}" "${small[@]}" --out "$work/one" > "$work/one.out" 2>&1 ||
  { echo "FAIL one process:"; cat "$work/one.out"; status=1; }
for np in 2 4; do
  if ! mpirun -np "$np" --oversubscribe "$zerosim" sweep "$cfg" "${common[@]}" "${small[@]}" \
      --out "$work/np$np" > "$work/np$np.out" 2>&1; then
    echo "FAIL $np ranks: mpirun exited non-zero"; cat "$work/np$np.out"; status=1; continue
  fi
  for f in results.csv results.json best_ds_config.json; do
    if ! cmp -s "$work/one/$f" "$work/np$np/$f"; then
      echo "FAIL $np ranks: $f differs from one process's"; status=1
    fi
  done
  echo "$np ranks: the same files as one process ($(($(wc -l < "$work/np$np/results.csv") - 1)) rows)"
done

# check NAME SIGNAL EXPECTED_TEXT
check() {
  local name=$1 signal=$2 expected=$3 out="$work/$1.out"
  rm -rf "$work/stop"
  mkdir -p "$work/stop"
  echo "old" > "$work/stop/results.csv"
  mpirun -np 2 --oversubscribe "$zerosim" sweep "$cfg" "${common[@]}" \
    --vary zero_optimization.reduce_bucket_size=1e6..5e8:+1e6 --collective-timeout 3 \
    --out "$work/stop" > "$out" 2>&1 &
  local job=$!
  # Rows are streaming once rank 0's staging directory exists.
  for _ in $(seq 1 600); do
    compgen -G "$work/stop/.zerosim-staging-*" > /dev/null && break
    sleep 0.1
  done
  sleep 0.5
  local pid
  pid=$(rank_pid "zerosim sweep .*--out $work/stop" 1)
  if [ -z "$pid" ]; then
    echo "FAIL $name: the sweep did not start"; cat "$out"; kill -KILL "$job"; status=1; return
  fi
  signal_and_wait "$name" "$signal" "$pid" "$job" "$out" "$expected" || return
  if [ "$(cat "$work/stop/results.csv")" != "old" ]; then
    echo "FAIL $name: the old results.csv was replaced"; status=1
  fi
  if compgen -G "$work/stop/.zerosim-staging-*" > /dev/null || [ -e "$work/stop/results.json" ]; then
    echo "FAIL $name: partial output left in --out:"; ls -a "$work/stop"; status=1
  fi
  echo "$name: --out as it was"
}

check killed KILL "process rank 1 "
check stopped STOP "nothing from rank 1 in 3 s"
exit $status
