#!/usr/bin/env bash
# Runs the repro of each of issue 13's items (and, at the end, issue 28's round 3) against a zerosim binary and prints, per item, the
# exit code, the seconds it took, the peak memory, and the first line it printed (or the measure
# that matters: a file's size, whether a file survived). reports/reliability.md quotes its output.
# Every probe runs under a 120-second timeout: exit 124 means it hung.
# Usage: scripts/probe_reliability.sh [ZEROSIM=build/zerosim]
set -uo pipefail
cd "$(dirname "$0")/.."
Z=$(realpath "${1:-build/zerosim}")
T=$(mktemp -d /tmp/zs_probe.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"
echo '{"train_micro_batch_size_per_gpu":1,"bf16":{"enabled":true},"zero_optimization":{"stage":2}}' > c.json
echo '{"train_micro_batch_size_per_gpu":1,"bf16":{"enabled":true},"zero_optimization":{"stage":3}}' > c3.json

# probe ITEM COMMAND...: runs it, prints "ITEM | exit | seconds | peak MiB | first line".
probe() {
  local item=$1
  shift
  local start end rc line rss
  start=$(date +%s.%N)
  /usr/bin/time -f "%M" -o rss.txt timeout 120 "$@" > out.txt 2>&1
  rc=$?
  end=$(date +%s.%N)
  rss=$(tail -1 rss.txt 2>/dev/null)
  # An error ends the output; a result starts it.
  if [[ $rc -eq 0 ]]; then
    line=$(grep -v '^\s*$' out.txt | head -1 | cut -c1-220)
  else
    line=$(grep -v '^\s*$' out.txt | tail -1 | cut -c1-220)
  fi
  printf '%s | %s | %.2f | %s | %s\n' "$item" "$rc" "$(echo "$end - $start" | bc)" \
    "$(( ${rss:-0} / 1024 ))" "$line"
}

echo "zerosim $("$Z" --version 2>&1), $(date -u +%F), $(nproc) cores"
echo "item | exit | seconds | peak MiB | first line of output"

# 1. Outputs onto a device or a link.
probe "1 trace onto /dev/null" "$Z" simulate c.json --model gpt2 --gpu a100-80gb --trace /dev/null
echo "  /dev/null is still: $(stat -c %F /dev/null)"
echo old > real.json && ln -sf real.json link.json
probe "1 trace onto a link" "$Z" simulate c.json --model gpt2 --gpu a100-80gb --trace link.json
echo "  link.json is still: $(stat -c %F link.json); real.json: $(stat -c %s real.json) bytes"
# 2. A link planted at the old temporary name.
echo secret > victim && ln -sf "$T/victim" t.json.tmp
probe "2 planted t.json.tmp" "$Z" simulate c.json --model gpt2 --gpu a100-80gb --trace t.json
echo "  victim holds: $(cat victim)"
# 3, 4 and 17. An interrupted sweep.
"$Z" sweep c.json --model gpt2 --gpu a100-80gb --vary stage=1,2 --out sweep > /dev/null 2>&1
before=$(cd sweep && md5sum * | md5sum)
"$Z" sweep c.json --model gpt2 --gpu a100-80gb --jobs 2 --vary micro_batch=1..250:+1 \
  --vary zero_optimization.reduce_bucket_size=1e6..1e8:+1e6 --vary overlap_comm=true,false \
  --vary stage=0,1,2,3 --out sweep > sweep_out.txt 2> sweep_err.txt &
pid=$!
sleep 3
kill -TERM $pid
wait $pid
rc=$?
echo "3 sweep SIGTERM after 3 s | $rc | | | $(grep -v warning sweep_err.txt | head -1)"
echo "  warning: $(grep warning sweep_err.txt | cut -c1-200)"
echo "  old set unchanged: $([[ $(cd sweep && md5sum * | md5sum) == "$before" ]] && echo yes || echo NO); entries: $(ls -A sweep | tr '\n' ' ')"
# 5. A report over its own input.
probe "5 report -o results.json" "$Z" report sweep -o sweep/results.json
# 6. stdout on a full device.
probe "6 check > /dev/full" sh -c "'$Z' check c.json > /dev/full"
# 7. Non-finite gradients in bf16 and fp32.
probe "7 run bf16 inject step 0" "$Z" run c.json --model tiny-gpt --steps 2 --inject-overflow-step 0
grep -m1 "step   0" out.txt | sed 's/^/  /'
echo '{"train_micro_batch_size_per_gpu":1,"optimizer":{"type":"AdamW","params":{"lr":1e30}},"zero_optimization":{"stage":0}}' > lr.json
probe "7 run fp32 lr 1e30" "$Z" run lr.json --model tiny-gpt --steps 3
grep -m1 "step   1" out.txt | sed 's/^/  /'
# 8, 9 and 10. Absurd rates.
echo '{"preset": "h100", "overrides": {"gpu": {"bf16_flops_per_s": 1}}}' > flops.json
probe "8 bf16_flops_per_s 1" "$Z" simulate c.json --model gpt2 --cluster flops.json
echo '{"hbm_efficiency": 1e-20}' > hbm.json
probe "8/10 hbm_efficiency 1e-20" "$Z" simulate c.json --model gpt2 --gpu h100 --profile hbm.json
echo '{"preset": "h100", "nodes": 2, "overrides": {"node": {"nic_bw_bytes_per_s": 0.01}}}' > nic.json
probe "9 nic_bw_bytes_per_s 0.01" "$Z" simulate c.json --model gpt2 --cluster nic.json
echo '{"nic_busbw_bytes_per_s": 1e-7}' > busbw.json
probe "9 nic_busbw 1e-7" "$Z" simulate c.json --model gpt2 --gpu h100 --nodes 2 --profile busbw.json
# 11. A model that cannot fit in host memory.
echo '{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":128,"vocab_size":8589934592}' > vocab.json
probe "11 vocab 8589934592" "$Z" run c.json --model vocab.json --steps 1
probe "11 micro-batch 1000000" "$Z" run c.json --model tiny-gpt --steps 1 --micro-batch 1000000
# 12. Overflowing counts.
probe "12 micro 1e6 x seq 1e7" "$Z" simulate c.json --model llama2-7b --gpu h100 --micro-batch 1000000 --seq-len 10000000
# 13. Unbounded inputs.
probe "13 check /dev/zero" "$Z" check /dev/zero
head -c 200000000 /dev/zero | tr '\0' ' ' > big.json
probe "13 200 MB config" "$Z" check big.json
# 14. A trace of 100,000 micro-steps.
probe "14 --grad-accum 100000 --trace" "$Z" simulate c.json --model gpt2 --gpu a100-80gb --grad-accum 100000 --trace long.json
echo "  long.json: $(stat -c %s long.json 2>/dev/null || echo 0) bytes"
# 15. A million layers.
echo '{"model_type":"llama","hidden_size":4096,"num_hidden_layers":1000000,"num_attention_heads":32,"intermediate_size":11008,"vocab_size":32000}' > layers.json
probe "15 1e6 layers" "$Z" check c.json --model layers.json
# 16. 400,000 keys.
python3 -c "
import json
d={'train_micro_batch_size_per_gpu':1}
for i in range(400000): d['k%d'%i]=i
open('keys.json','w').write(json.dumps(d))"
probe "16 400,000 keys" "$Z" check keys.json
# 18. A 50,000-component --vary path.
probe "18 --vary depth 50,000" "$Z" sweep c.json --model gpt2 --gpu a100-80gb --out deep \
  --vary "$(python3 -c "print('.'.join(['a']*50000))")=1,2"
# 19. An empty --data file.
: > empty.txt
probe "19 --data empty" "$Z" run c.json --model tiny-gpt --steps 1 --data empty.txt
# 20. A malformed best_ds_config.json.
head -c 40 sweep/best_ds_config.json > cut.json && cp cut.json sweep/best_ds_config.json
probe "20 malformed best config" "$Z" report sweep -o report.html
# 21. --json errors.
probe "21 check missing --json" bash -c "set -o pipefail; '$Z' check missing.json --json 2>/dev/null | tr -s '\n ' ' '"
# 22. Messages.
probe "22 --gpu h100-80g" "$Z" check c.json --gpu h100-80g
# 23. An impossible global batch.
probe "23 tune --global-batch 3" "$Z" tune c.json --model gpt2 --gpu a100-80gb --global-batch 3 --out t
# 24. An injected step past the run.
probe "24 inject 5 of 2 steps" "$Z" run c.json --model tiny-gpt --steps 2 --inject-overflow-step 5
# 25. Offload in run.
echo '{"train_micro_batch_size_per_gpu":1,"bf16":{"enabled":true},"zero_optimization":{"stage":3,"offload_optimizer":{"device":"cpu"},"offload_param":{"device":"cpu"}}}' > off.json
probe "25 run with offload" "$Z" run off.json --model tiny-gpt --steps 1
grep -m1 "^note:" out.txt | cut -c1-160 | sed 's/^/  /'
# 26. HF numbers as strings.
echo '{"model_type":"llama","hidden_size":"4096","num_hidden_layers":2,"num_attention_heads":32,"intermediate_size":11008,"vocab_size":32000}' > str.json
probe "26 hidden_size \"4096\"" "$Z" check c.json --model str.json
# 27. Step lines through a pipe, interrupted.
# SIGTERM: a script's background jobs ignore SIGINT (the test, tests/cli/reliability_test.cc,
# sends SIGINT to a child that does not).
"$Z" run c.json --model tiny-gpt --steps 100000 > >(cat > piped.txt) 2>&1 &
pid=$!
sleep 4
kill -TERM $pid
wait $pid
rc=$?
sleep 0.5
echo "27 run | cat, SIGTERM after 4 s | $rc | | | $(grep -c '^step' piped.txt) step lines arrived before it ended"
# 28. A string row id.
"$Z" sweep c.json --model gpt2 --gpu a100-80gb --vary stage=1,2 --out s28 > /dev/null 2>&1
python3 -c "
import json
j=json.load(open('s28/results.json')); j['best']=str(j['best']); json.dump(j, open('s28/results.json','w'))"
probe "28 \"best\": \"1\"" "$Z" report s28 -o r28.html
# 29. fp16 FLOP/s of a custom cluster.
echo '{"train_micro_batch_size_per_gpu":8,"fp16":{"enabled":true},"zero_optimization":{"stage":2}}' > fp16.json
echo '{"preset": "a100-80gb", "overrides": {"gpu": {"fp16_flops_per_s": 156e12}}}' > half.json
probe "29 fp16 at half the bf16 rate" "$Z" simulate fp16.json --model gpt2 --cluster half.json --json
python3 -c "
import json,sys; j=json.load(open('out.txt')); print('  step %.4f s, MFU %.3f' % (j['time']['step_s'], j['throughput']['mfu']))"
"$Z" simulate fp16.json --model gpt2 --gpu a100-80gb --json > full.txt
python3 -c "
import json,sys; j=json.load(open('full.txt')); print('  (the preset, fp16 at the bf16 rate: step %.4f s, MFU %.3f)' % (j['time']['step_s'], j['throughput']['mfu']))"
# 30. NVMe without a path.
echo '{"train_micro_batch_size_per_gpu":1,"bf16":{"enabled":true},"zero_optimization":{"stage":3,"offload_param":{"device":"nvme"}}}' > nvme.json
probe "30 nvme without nvme_path" bash -c "'$Z' check nvme.json | grep nvme-path-missing; exit \${PIPESTATUS[0]}"

# ---- Round 3 (issue 28): calibrate, validate and run, and report on validation files. ----
echo "round 3"
cat > cpu.cluster.json <<'JSON'
{"gpu": {"name": "one core", "backend": "cpu", "fp32_flops_per_s": 4e10, "hbm_bytes": 4294967296,
  "hbm_bw_bytes_per_s": 2e10, "sm_count": 1, "pcie_gen": 1, "pcie_bw_bytes_per_s": 1e10},
 "node": {"name": "host", "max_gpus_per_node": 2, "nic_count": 0, "nic_bw_bytes_per_s": 1e9,
  "host_memory_bytes": 8589934592, "cpu_cores": 2}, "gpus_per_node": 1}
JSON
V=(validate c.json --model tiny-gpt --seq-len 16 --steps 3 --warmup 1 --cluster cpu.cluster.json --tolerance 10)
# 1. More ranks than cores: the cluster file must be one simulate reads.
if command -v mpirun > /dev/null; then
  [[ $(id -u) -eq 0 ]] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  probe "R3-1 mpirun -np 3 calibrate" mpirun -np 3 --oversubscribe "$Z" calibrate --repeats 1 --rounds 1 -o p3.json
  probe "R3-1 simulate its cluster" "$Z" simulate c.json --model tiny-gpt --seq-len 16 --cluster p3.cluster.json --profile p3.json
fi
probe "R3-2 -o same --cluster-out same" "$Z" calibrate -o same.json --cluster-out same.json
probe "R3-3 CPU profile without backend on a GPU" bash -c "python3 -c \"
import json; d=json.load(open('p3.json')) if __import__('os').path.exists('p3.json') else {'mpi_latency_s': 1e-6}; d.pop('backend', None); json.dump(d, open('nob.json','w'))\"; '$Z' simulate c.json --model gpt2 --gpu a100-80gb --profile nob.json"
probe "R3-4 CPU validate without --cluster" "$Z" validate c.json --model tiny-gpt --seq-len 16 --steps 2 -o v4
probe "R3-5 run --world 4 on one rank" "$Z" run c.json --model tiny-gpt --seq-len 16 --steps 1 --world 4
echo x > file
probe "R3-6 validate -o under a file" "$Z" "${V[@]}" -o file/sub
probe "R3-6 validate --name of 300 characters" "$Z" "${V[@]}" -o v6 --name "$(printf 'n%.0s' {1..300})"
mkdir -p s7 && "$Z" sweep c.json --model gpt2 --gpu a100-80gb --vary stage=1,2 --out s7 > /dev/null 2>&1
mkdir -p s7/validation && "$Z" "${V[@]}" -o s7/validation --name ok > /dev/null 2>&1
python3 -c "
import json
j=json.load(open('s7/validation/ok.json'))
j['steps']=j['steps']*70000; json.dump(j, open('s7/validation/long.json','w'))
z=dict(j); z['steps']=j['steps'][:3]; z['time']=dict(j['time'], step_s=0); json.dump(z, open('s7/validation/zero.json','w'))"
probe "R3-7,8 report with a 70000-step validation file and a 0 s step" "$Z" report s7 -o r7.html
grep -c "n/a" r7.html | sed 's/^/  n\/a cells: /'
rm -f s7/validation/long.json s7/validation/zero.json
python3 -c "
import json
j=json.load(open('s7/validation/ok.json')); j['time']['step_s']=1e308; json.dump(j, open('s7/validation/big.json','w'))"
probe "R3-10 step_s 1e308" "$Z" report s7 -o r10.html
python3 -c "
import json
j=json.load(open('s7/validation/ok.json')); j['time']['step_s']='0.01'; json.dump(j, open('s7/validation/big.json','w'))"
probe "R3-11 step_s \"0.01\"" "$Z" report s7 -o r11.html
rm -f s7/validation/big.json
cp s7/validation/ok.json "s7/validation/x$(printf '\xff').json"
probe "R3-12 a file name with byte 0xff" bash -c "'$Z' report s7 -o r12.html && python3 -c \"open('r12.html','rb').read().decode('utf-8'); print('valid UTF-8')\""
rm -f s7/validation/x*.json
probe "R3-13 --cluster-out /dev/full" bash -c "'$Z' calibrate --repeats 1 --rounds 1 -o half13.json --cluster-out /dev/full; rc=\$?; ls half13.json 2>/dev/null || echo 'no half13.json'; exit \$rc"
probe "R3-14 -o /dev/null" "$Z" calibrate -o /dev/null
mkdir -p d15
probe "R3-15 -o a directory, --repeats 100" "$Z" calibrate --repeats 100 -o d15
probe "R3-16 a failed validate's -o" bash -c "'$Z' ${V[*]} --data file -o v16; rc=\$?; ls -d v16 2>/dev/null || echo 'no v16'; exit \$rc"
echo '{"hbm_efficiency": NaN}' > nan.json
probe "R3-17 a profile value NaN" "$Z" simulate c.json --model gpt2 --gpu a100-80gb --profile nan.json
head -c $((16 * 1024 * 1024 + 1)) /dev/zero | tr '\0' ' ' > big16.json
probe "R3-18 a config one byte over 16 MiB" "$Z" check big16.json
probe "R3-21 validate --steps 2, no --warmup" "$Z" validate c.json --model tiny-gpt --seq-len 16 --steps 2 --cluster cpu.cluster.json --tolerance 10 -o v21
probe "R3-22 simulate on a CPU cluster" bash -c "'$Z' simulate c.json --model tiny-gpt --seq-len 16 --cluster cpu.cluster.json | grep '^  other '"
