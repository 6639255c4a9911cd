#!/usr/bin/env python3
"""Ratios of two functions' inclusive callgrind events (used by layer-overhead-callgrind.sh).

usage: callgrind-ratio.py ANNOTATED STDOUT NAME [UNIT LAYERED PLAIN [PART]]
  ANNOTATED: `callgrind_annotate --inclusive=yes --show=Ir,I1mr,D1mr,D1mw,ILmr,DLmr,DLmw` output
  STDOUT:    what the scenario printed (its last line's UNIT key gives the count; default
             `pipelines`, from `pops-vk-scenario bench`)
  NAME:      the configuration's name, for the printed line
  LAYERED, PLAIN: the two measured functions (default bench_create_layered, bench_create_plain)
  PART:      a function the layer runs on a thread of its own (the verify_isa verifier), not
             inside LAYERED: its inclusive instructions per unit, against PLAIN, and the ratio
             of LAYERED and PART together (all the work, whichever thread does it)
"""
import json
import re
import sys

EVENTS = 7  # Ir, I1mr, D1mr, D1mw, ILmr, DLmr, DLmw


def events(text, fn, missing_is_zero=False):
    """The function's inclusive events: callgrind_annotate may list it once per source file its
    inlined code comes from; the function-level line has the largest inclusive count. A function
    that never ran is not listed: an error, or zero events where `missing_is_zero`."""
    best = None
    for line in text.splitlines():
        if "=>" in line or not re.search(r"::" + fn + r"( |$)", line):
            continue
        head = line[: line.find(":")] if ":" in line else line
        # "292,480,996 (40.85%)    951 ( 0.45%) ..." -> the numbers outside parentheses
        head = re.sub(r"\([^)]*\)", " ", head)
        # A column callgrind left empty prints as "." (no event): zero.
        nums = [
            0 if x == "." else int(x.replace(",", ""))
            for x in re.findall(r"\d[\d,]*|(?<![\w.])\.(?![\w.])", head)
        ]
        if len(nums) >= EVENTS and (best is None or nums[0] > best[0]):
            best = nums[:EVENTS]
    if best is None and missing_is_zero:
        return [0] * EVENTS
    if best is None:
        sys.exit(f"{fn} not found in the callgrind output")
    return best


def cycles(v):
    # KCachegrind's cycle estimate: Ir + 10 x L1 misses + 100 x last-level misses.
    return v[0] + 10 * (v[1] + v[2] + v[3]) + 100 * (v[4] + v[5] + v[6])


def main():
    text = open(sys.argv[1]).read()
    unit = sys.argv[4] if len(sys.argv) > 4 else "pipelines"
    layered = sys.argv[5] if len(sys.argv) > 5 else "bench_create_layered"
    plain = sys.argv[6] if len(sys.argv) > 6 else "bench_create_plain"
    n = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])[unit]
    name = sys.argv[3]
    w, wo = events(text, layered), events(text, plain)
    r, c = w[0] / wo[0], cycles(w) / cycles(wo)
    print(
        f"{name}: instruction ratio {r:.4f} ({(r - 1) * 100:+.2f} %), "
        f"{wo[0] / n:,.0f} -> {w[0] / n:,.0f} instructions per {unit[:-1]} "
        f"({(w[0] - wo[0]) / n:+,.0f}); "
        f"estimated-cycle ratio {c:.4f} ({(c - 1) * 100:+.2f} %); {n} {unit} per device"
    )
    if len(sys.argv) > 7:
        part = sys.argv[7]
        p = events(text, part, missing_is_zero=True)[0]
        print(
            f"  on the layer's own thread, {part}{'' if p else ' (never called)'}: {p / n:+,.0f} "
            f"instructions per {unit[:-1]} ({p / wo[0] * 100:+.2f} % of {plain}); "
            f"both threads together: instruction ratio {(w[0] + p) / wo[0]:.4f}"
        )


main()
