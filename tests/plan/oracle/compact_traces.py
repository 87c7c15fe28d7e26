#!/usr/bin/env python3
"""Turns raw DeepSpeed oracle traces (../shared/deepspeed-oracle/trace_comm.py output, 1-3 MB
each) into the compact recordings tests/plan/oracle_test.cc compares the Plan with (2-5 KB each).

Usage: compact_traces.py [--suffix S] OUT_DIR TRACE.json...
  --suffix S  appended to each recording's name (runs of another DeepSpeed version: _ds0198)

Per trace it keeps what the comparison needs:
  - the run: DeepSpeed/torch versions, world size, GA steps, micro-batch, sequence length, the
    model's transformers config and the ds_config DeepSpeed ran (the effective one: batch keys and
    the optimizer the tracer added filled in);
  - "collectives": the traced optimizer step's top-level deepspeed.comm calls of the last rank
    (the rank the Plan describes), in issue order, as "PHASE MICRO OP DTYPE BYTES GROUP". OP is
    all_reduce, all_gather (allgather_fn and all_gather_into_tensor), reduce_scatter
    (reduce_scatter_fn), reduce or broadcast; BYTES the full buffer (all-gather output,
    reduce-scatter input, all-reduce and reduce tensor), as the Plan states collective sizes;
  - "memory": per snapshot point, the bytes of distinct model-state storages of every rank, and
    the last rank's storages (bytes, count, dtype, first attribute path; layers folded) to read a mismatch by.
A trace whose run failed, or whose ranks disagree on the top-level sequence, is skipped with a
message.
"""
import json
import os
import re
import sys

OPS = {
    "all_reduce": "all_reduce",
    "allgather_fn": "all_gather",
    "all_gather_into_tensor": "all_gather",
    "reduce_scatter_fn": "reduce_scatter",
    "reduce_scatter_tensor": "reduce_scatter",
    "reduce": "reduce",
    "broadcast": "broadcast",
}
DTYPES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "float64": "fp64",
          "uint8": "u8", "int64": "i64"}
POINTS = ["after_init", "before_traced_step", "traced_after_last_backward",
          "traced_at_inner_optimizer_step", "after_traced_step"]


def top_calls(rank):
    for x in rank["records"]:
        if (x.get("kind") == "call" and x.get("level") == "ds" and not x.get("in_ds")
                and x.get("section") == "traced"):
            yield x


def compact(path, suffix=""):
    d = json.load(open(path))
    if not d.get("ok"):
        return None, "the run failed"
    meta = d["meta"]
    ws = meta["world_size"]
    if not d["summary"]["traced"].get("ranks_agree_on_top_sequence", False):
        return None, "the ranks disagree on the top-level sequence"
    last = d["ranks"][ws - 1]
    collectives = []
    for x in top_calls(last):
        op = OPS.get(x["op"])
        if op is None:
            return None, "unknown collective " + x["op"]
        collectives.append("%s %d %s %s %d %d" % (x["phase"], x["micro"], op, DTYPES[x["dtype"]],
                                                x["bytes"], x["group_size"]))
    memory = {}
    for point in POINTS:
        per_rank = [r["state"][point]["unique_storage_bytes_total"] for r in d["ranks"]]
        storages = {}
        for s in last["state"][point]["storages"]:
            # One row per (dtype, attribute path with layer numbers folded): stage 0 has a
            # storage per parameter.
            ref = re.sub(r"\.\d+\.", ".*.", s["refs"][0] if s["refs"] else "")
            row = storages.setdefault((s["dtype"], ref), [0, 0])
            row[0] += s["bytes"]
            row[1] += 1
        storages = [[b, n, dtype, ref] for (dtype, ref), (b, n) in sorted(storages.items())]
        memory[point] = {"per_rank": per_rank, "last_rank_storages": storages}
    argv = meta["argv"]
    ga = int(argv[argv.index("--ga-steps") + 1])
    micro = int(argv[argv.index("--micro-batch") + 1])
    out = {
        "trace": os.path.basename(path)[:-len(".json")] + suffix,
        "versions": {k: meta["versions"][k] for k in ("deepspeed", "torch", "transformers")},
        "world_size": ws,
        "gradient_accumulation_steps": ga,
        "micro_batch": micro,
        "seq_len": meta["seq_len"],
        "model": meta["model_spec"],
        "ds_config": meta["ds_config_effective"],
        "collectives": collectives,
        "memory": memory,
    }
    return out, None


def main():
    args = sys.argv[1:]
    suffix = ""
    if len(args) >= 2 and args[0] == "--suffix":
        suffix = args[1]
        args = args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    out_dir = args[0]
    written = 0
    for path in args[1:]:
        out, why = compact(path, suffix)
        if out is None:
            print("skipped %s: %s" % (path, why), file=sys.stderr)
            continue
        with open(os.path.join(out_dir, out["trace"] + ".json"), "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
            f.write("\n")
        written += 1
    print("wrote %d compact traces to %s" % (written, out_dir))


if __name__ == "__main__":
    main()
