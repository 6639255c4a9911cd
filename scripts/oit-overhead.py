#!/usr/bin/env python3
"""Compares pops-oit runs with and without the layer from one log of interleaved runs.

The log holds sections headed `===== matrix off|on N =====` (pops-oit --matrix output) and
`===== perf|heavy off|on AA [N] =====` (single pops-oit runs). Prints, per combination, whether the image
hashes agree across every run, and the ratio with/without layer of the median GPU and CPU frame
times (mean over the interleaved pairs), then the overall figures.
Usage: scripts/oit-overhead.py LOG
"""
import re
import statistics
import sys
from collections import defaultdict

ROW = re.compile(r"^(\S+_(?:noaa|msaa4|msaa8|ssaa4))\s+(PASS|FAIL|ERROR)\s+\S+\s+\S+\s+\S+\s+([\d.]+)ms\s+([\d.]+)ms\s+([0-9a-f]{16})")
SINGLE = re.compile(r"^(\S+): (PASS|FAIL).*image fnv64 ([0-9a-f]{16})")
GPU = re.compile(r"^\s+gpu: min ([\d.]+) / median ([\d.]+) / mean ([\d.]+) / max ([\d.]+) ms over (\d+)")
CPU = re.compile(r"^\s+cpu wall \(submit to fence\): min ([\d.]+) / median ([\d.]+) / mean ([\d.]+) / max ([\d.]+)")


def parse(path):
    # runs[(kind, layer, n)] = {combo: (result, gpu_med, cpu_med, hash, gpu_stats, cpu_stats)}
    runs = defaultdict(dict)
    key = None
    last = None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^===== (matrix|perf|heavy) (off|on)(?: ([a-z][a-z0-9]*))?(?: (\d+))? =====", line)
        if m:
            key = (m.group(1) + (":" + m.group(3) if m.group(3) else ""), m.group(2), int(m.group(4) or 1))
            continue
        if line.startswith("====="):
            key = None
            continue
        if key is None:
            continue
        if key[0] == "matrix":
            r = ROW.match(line)
            if r:
                runs[key][r.group(1)] = dict(result=r.group(2), gpu=float(r.group(3)), cpu=float(r.group(4)), hash=r.group(5))
        else:
            s = SINGLE.match(line)
            if s:
                last = s.group(1)
                runs[key][last] = dict(result=s.group(2), hash=s.group(3))
            g = GPU.match(line)
            if g and last:
                runs[key][last].update(gpu=float(g.group(2)), gpu_stats=tuple(float(x) for x in g.groups()[:4]))
            c = CPU.match(line)
            if c and last:
                runs[key][last].update(cpu=float(c.group(2)), cpu_stats=tuple(float(x) for x in c.groups()))
    return runs


def main():
    runs = parse(sys.argv[1])
    kinds = sorted({k[0] for k in runs})
    all_gpu, all_cpu = [], []
    for kind in kinds:
        ns = sorted({k[2] for k in runs if k[0] == kind})
        combos = list(runs[(kind, "off", ns[0])].keys())
        print(f"## {kind}: {len(ns)} interleaved off/on pairs")
        print(f"{'combination':<40} {'results':<8} {'hashes':<10} {'gpu off ms':>10} {'gpu on ms':>10} {'gpu on/off':>10} {'cpu on/off':>10}")
        for c in combos:
            rows = [runs[(kind, l, n)].get(c) for n in ns for l in ("off", "on")]
            if any(r is None for r in rows):
                print(f"{c:<40} missing in some run")
                continue
            results = "all PASS" if all(r["result"] == "PASS" for r in rows) else "FAIL"
            hashes = "identical" if len({r["hash"] for r in rows}) == 1 else "DIFFER"
            gr = [runs[(kind, "on", n)][c]["gpu"] / runs[(kind, "off", n)][c]["gpu"] for n in ns]
            cr = [runs[(kind, "on", n)][c]["cpu"] / runs[(kind, "off", n)][c]["cpu"] for n in ns]
            goff = statistics.mean(runs[(kind, "off", n)][c]["gpu"] for n in ns)
            gon = statistics.mean(runs[(kind, "on", n)][c]["gpu"] for n in ns)
            all_gpu += gr
            all_cpu += cr
            print(f"{c:<40} {results:<8} {hashes:<10} {goff:>10.3f} {gon:>10.3f} {statistics.mean(gr):>10.4f} {statistics.mean(cr):>10.4f}")
        print()
    print(f"overall median-frame-time ratio with/without layer over {len(all_gpu)} pairs: "
          f"GPU mean {statistics.mean(all_gpu):.4f}, median {statistics.median(all_gpu):.4f} "
          f"(range {min(all_gpu):.4f}..{max(all_gpu):.4f}); CPU wall mean {statistics.mean(all_cpu):.4f}, "
          f"median {statistics.median(all_cpu):.4f} (range {min(all_cpu):.4f}..{max(all_cpu):.4f})")


if __name__ == "__main__":
    main()
