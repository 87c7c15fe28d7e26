#!/usr/bin/env python3
"""The rules of docs/ARCHITECTURE.md that a program can check, checked:

  1. rooms include only the rooms below them (ALLOWED: a room's #include "room/..." lines);
  2. CUDA's headers appear only in kernels/cuda/ and exec/cuda/;
  3. no function in plan/ is longer than 80 lines (scripts/function_lengths.py).

  python3 scripts/check_architecture.py [ROOT]   # prints each breach, exits 1 when there is one
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import function_lengths  # noqa: E402

# Each room and the rooms its sources may include (besides its own). configs/hardware is part of
# configs. The order is the floors' order: nothing includes a room above it.
ALLOWED = {
    "common": set(),
    "configs": {"common"},
    "models": {"common"},
    "kernels": {"common", "models"},
    "plan": {"common", "configs", "models", "kernels"},
    "sim": {"common", "configs", "models", "kernels", "plan"},
    "exec": {"common", "configs", "models", "kernels", "plan"},
    "calibrate": {"common", "configs", "models", "kernels", "plan", "sim", "exec"},
    "tuning": {"common", "configs", "models", "kernels", "plan", "sim"},
    "reports": {"common", "configs", "models", "kernels", "plan", "sim", "tuning"},
    "cli": {"common", "configs", "models", "kernels", "plan", "sim", "exec", "calibrate", "tuning",
            "reports"},
    "bench": {"common", "configs", "models", "kernels", "plan", "sim"},
}
CUDA_HEADERS = re.compile(r'#include [<"](cuda_runtime|cuda_runtime_api|cuda|cublasLt|cublas_v2|nccl|'
                          r'cuda_bf16|cuda_fp16)(\.h)?[>"]')
CUDA_ROOMS = ("kernels/cuda/", "exec/cuda/")
SOURCES = (".cc", ".h", ".cu", ".cuh")
PLAN_MAX_LINES = 80


def breaches(root):
    out = []
    for room, allowed in ALLOWED.items():
        for where, _, names in os.walk(os.path.join(root, room)):
            for name in sorted(names):
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(where, name)
                rel = os.path.relpath(path, root)
                for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                    m = re.match(r'\s*#include "([a-z_]+)/', line)
                    if m and m.group(1) in ALLOWED and m.group(1) != room and m.group(1) not in allowed:
                        out.append(f"{rel}:{n}: {room}/ includes {m.group(1)}/, a room it may not "
                                   f"use (docs/ARCHITECTURE.md)")
                    if CUDA_HEADERS.match(line) and not rel.startswith(CUDA_ROOMS):
                        out.append(f"{rel}:{n}: a CUDA header outside kernels/cuda/ and exec/cuda/")
    for path in sorted(os.path.join(w, f) for w, _, fs in os.walk(os.path.join(root, "plan"))
                       for f in fs if f.endswith(SOURCES)):
        for name, first, last in function_lengths.functions(path):
            if last - first + 1 > PLAN_MAX_LINES:
                out.append(f"{os.path.relpath(path, root)}:{first}: {name} is {last - first + 1} "
                           f"lines; plan/'s functions are at most {PLAN_MAX_LINES}")
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    found = breaches(root)
    for b in found:
        print(b)
    print(f"{len(found)} breaches of docs/ARCHITECTURE.md's rules", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
