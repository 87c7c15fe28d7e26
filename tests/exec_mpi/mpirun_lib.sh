# Sourced by the tests that kill or stop a rank of an mpirun job.

# rank_pid PATTERN RANK: the pid of the process whose command line matches PATTERN (pgrep -f) and
# whose environment says it is rank RANK of its job.
rank_pid() {
  for p in $(pgrep -f "$1"); do
    if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
      echo "$p"
      return
    fi
  done
}

# signal_and_wait NAME SIGNAL PID JOB OUT EXPECTED: sends SIGNAL to rank PID, waits at most 60 s
# for mpirun (JOB, a background job of the caller) to end, and checks that it exited non-zero
# with EXPECTED in OUT. Sets status=1 on a failure; returns 1 when the job had to be killed.
signal_and_wait() {
  local name=$1 signal=$2 pid=$3 job=$4 out=$5 expected=$6
  kill "-$signal" "$pid"
  local start=$SECONDS
  while kill -0 "$job" 2>/dev/null && [ $((SECONDS - start)) -lt 60 ]; do sleep 0.2; done
  if kill -0 "$job" 2>/dev/null; then
    echo "FAIL $name: mpirun still runs 60 s after rank 1 got SIG$signal"
    kill -KILL "$job"; status=1; return 1
  fi
  wait "$job"
  local rc=$?
  local took=$((SECONDS - start))
  if [ "$rc" -eq 0 ]; then echo "FAIL $name: mpirun exited 0"; status=1; fi
  if ! grep -q "$expected" "$out"; then
    echo "FAIL $name: no \"$expected\" in:"; tail -20 "$out"; status=1
  fi
  echo "$name: rank 1 got SIG$signal, mpirun exited $rc after ${took} s"
}
