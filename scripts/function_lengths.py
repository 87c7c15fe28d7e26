#!/usr/bin/env python3
"""Functions longer than a limit in C++ sources: issue 31's rule that no function in plan/ runs
past 80 lines, checked.

A function body is a brace block whose opening line (or the lines just before it, up to the last
';', '{' or '}') holds a parameter list's ')' and that is not a control statement, a lambda, a
class or a namespace; its length counts the lines from the signature's first line to the closing
brace. Comments, strings and character literals are skipped. A heuristic reader, not a parser: it
reads this project's clang-formatted sources.

  python3 scripts/function_lengths.py [--max N] DIR_OR_FILE...   # exits 1 when one is longer
"""
import argparse
import os
import re
import sys

CONTROL = re.compile(r"\b(if|for|while|switch|catch|do|else)\b\s*(\(|$)")
LAMBDA = re.compile(r"\]\s*(\([^()]*\))?\s*(mutable\s*)?(->\s*[\w:<>, ]+)?\s*$")


def strip(text):
    """The text with comments, strings and character literals blanked, lines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
            out.append(c)
            i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, last line) of each function body in `path`."""
    text = strip(open(path, encoding="utf-8").read())
    lines = text.split("\n")
    found, stack = [], []  # stack: (kind, start line, name)
    head_start = 0  # offset where the current statement's text began
    pos = 0
    line_of = []
    for ln, l in enumerate(lines):
        line_of.extend([ln] * (len(l) + 1))
    for i, c in enumerate(text):
        if c == "{":
            head = text[head_start:i]
            flat = " ".join(head.split())
            kind = "block"
            inside_function = any(k == "function" for k, _, _ in stack)
            if (not inside_function and ")" in flat and not CONTROL.search(flat)
                    and not re.search(r"\b(class|struct|namespace|enum|union)\b[^()]*$", flat)
                    and not LAMBDA.search(flat) and not flat.rstrip().endswith("=")):
                kind = "function"
            name = ""
            if kind == "function":
                m = re.search(r"([~\w:]+(?:<[^<>]*>)?|operator\S+)\s*\(", flat)
                name = m.group(1) if m else flat[:40]
            first = line_of[head_start + len(head) - len(head.lstrip())] if head.strip() else line_of[i]
            stack.append((kind, first, name))
            head_start = i + 1
        elif c == "}":
            if stack:
                kind, first, name = stack.pop()
                if kind == "function":
                    found.append((name, first + 1, line_of[i] + 1))
            head_start = i + 1
        elif c == ";":
            head_start = i + 1
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=80)
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    files = []
    for p in a.paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, f) for f in names if f.endswith((".cc", ".h"))]
        else:
            files.append(p)
    long = []
    for f in sorted(files):
        for name, first, last in functions(f):
            if last - first + 1 > a.max:
                long.append((last - first + 1, f, first, name))
    for n, f, first, name in sorted(long, reverse=True):
        print(f"{n:5d}  {f}:{first}  {name}")
    print(f"{len(long)} functions longer than {a.max} lines", file=sys.stderr)
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main())
