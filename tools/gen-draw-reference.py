#!/usr/bin/env python3
"""Generates draw/src/reference_state.rs: the register state of a hardware-tested draw, per
generation. GFX9-GFX11: libdrm's draw test (../shared/reference/libdrm-draw/gfxN_draw_ib.decoded.txt,
decoded by Mesa's IB parser), packet by packet. GFX12, which libdrm has no draw test of: the state
stock RADV had programmed at its first POPS draw on gfx1201 (draw/reference/radv-gfx1201, recorded
by scripts/record-gfx12-draw-reference.sh), read here from the IBs' dwords with the PM4 facts of
../shared/reference/pm4.json and the register names of the AMD register database (gfx12.json),
not with pops's own decoder.

The draw crate starts every stream from this state and changes only what POPS or the test needs
(each change listed with its reason in draw/src/differences.rs). Run from the repository root:
    python3 tools/gen-draw-reference.py
"""
import json
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared", "reference")
REF = os.path.join(SHARED, "libdrm-draw")
RADV_GFX12 = os.path.join(ROOT, "draw", "reference", "radv-gfx1201")
STREAMS = [("GFX9", "gfx9_draw_ib.decoded.txt"), ("GFX10", "gfx10_draw_ib.decoded.txt"),
           ("GFX11", "gfx11_draw_ib.decoded.txt")]
SET = {"SET_CONTEXT_REG", "SET_SH_REG", "SET_UCONFIG_REG", "SET_SH_REG_INDEX",
       "SET_UCONFIG_REG_INDEX", "SET_SH_REG_OFFSET"}
# Packets that are not state: the stream's framing and the draw itself (built by draw::stream).
SKIP = {"CONTEXT_CONTROL", "NOP", "DRAW_INDEX_AUTO"}

head = re.compile(r"^([0-9a-f]{8}) ([A-Z_0-9]+):\s*$")
write = re.compile(r"^([0-9a-f]{8})\s+(\S+) <- ")


def parse(path):
    steps = []
    cur = None
    for line in open(path):
        m = head.match(line)
        if m:
            op = m.group(2)
            if op in SET:
                cur = ("regs", [], op, [None])
                steps.append(cur)
            elif op == "NUM_INSTANCES":
                cur = ("num_instances", [], op, [None])
                steps.append(cur)
            elif op in SKIP:
                cur = None
            else:
                sys.exit(f"{path}: unexpected packet {op}")
            continue
        if cur is not None and cur[3][0] is None and re.match(r"^[0-9a-f]{8}\s*$", line):
            cur[3][0] = int(line.split()[0], 16)
            continue
        m = write.match(line)
        if m and cur is not None:
            value, name = int(m.group(1), 16), m.group(2)
            if name == "INDEX":
                continue
            cur[1].append((name, value))
    return steps


def gfx12_state():
    """The registers RADV had written before its first POPS draw, in first-write order, each with
    the value in force at that draw; and the draw's NUM_INSTANCES."""
    pm4 = json.load(open(os.path.join(SHARED, "pm4.json")))
    ops = {int(v, 16): k for k, v in pm4["opcodes"].items()}
    spaces = {k: int(v["start"], 16) for k, v in pm4["register_spaces"].items() if isinstance(v, dict)}
    db = json.load(open(os.path.join(SHARED, "registers", "gfx12.json")))
    names = {r["map"]["at"]: r["name"] for r in db["register_mappings"] if r["map"]["to"] == "mm"}
    dsc = next(r for r in db["register_mappings"] if r["name"] == "DB_SHADER_CONTROL")
    pops = next(f for f in db["register_types"][dsc["type_ref"]]["fields"]
                if f["name"] == "PRIMITIVE_ORDERED_PIXEL_SHADER")["bits"][0]
    base = {"CONTEXT": spaces["context"], "SH": spaces["sh"], "UCONFIG": spaces["uconfig"]}
    values, order, instances = {}, [], None

    def put(addr, value):
        if addr not in values:
            order.append(addr)
        values[addr] = value

    dwords = []
    for f in ("ib-0.bin", "ib-1.bin"):
        b = open(os.path.join(RADV_GFX12, f), "rb").read()
        dwords += struct.unpack(f"<{len(b) // 4}I", b)
    i = 0
    while i < len(dwords):
        h = dwords[i]
        if h >> 30 == 2:  # type-2 filler
            i += 1
            continue
        if h == 0xffff1000:  # the CP's one-dword NOP
            i += 1
            continue
        assert h >> 30 == 3, f"dword {i}: {h:#x} is not a type-3 header"
        op = ops.get((h >> 8) & 0xff, f"{(h >> 8) & 0xff:#x}")
        body = dwords[i + 1: i + 2 + ((h >> 16) & 0x3fff)]
        i += 2 + ((h >> 16) & 0x3fff)
        kind = op.replace("SET_", "").replace("_REG", "").replace("_INDEX", "")
        if op.startswith("SET_") and op.endswith("_PAIRS") and kind.split("_")[0] in base:
            start = base[kind.split("_")[0]]
            for k in range(0, len(body), 2):
                put(start + 4 * (body[k] & 0xffff), body[k + 1])
        elif op in ("SET_CONTEXT_REG", "SET_SH_REG", "SET_UCONFIG_REG", "SET_SH_REG_INDEX",
                    "SET_UCONFIG_REG_INDEX"):
            start = base[kind]
            for k, v in enumerate(body[1:]):
                put(start + 4 * (body[0] & 0xffff) + 4 * k, v)
        elif "PACKED" in op or op in ("SET_SH_REG_OFFSET", "SET_CONFIG_REG", "LOAD_CONTEXT_REG",
                                      "LOAD_SH_REG", "LOAD_UCONFIG_REG"):
            sys.exit(f"{RADV_GFX12}: {op}: a register write this generator does not read")
        elif op in ("WRITE_DATA", "COPY_DATA") and (body[0] >> 8) & 0xf == 0:
            sys.exit(f"{RADV_GFX12}: {op} writes a register")
        elif op == "NUM_INSTANCES":
            instances = body[0]
        elif op.startswith("DRAW_") and (values.get(0x2806c, 0) >> pops) & 1:
            return names, values, order, instances
    sys.exit(f"{RADV_GFX12}: no draw with DB_SHADER_CONTROL.PRIMITIVE_ORDERED_PIXEL_SHADER set")


def gfx12_steps(out):
    names, values, order, instances = gfx12_state()
    model = {l.strip() for l in open(os.path.join(ROOT, "pm4", "registers.list")) if l.strip()}
    # RADV's compute state (its clears' dispatches) is not the draw's: left out.
    order = [a for a in order if not 0xb800 <= a < 0xc000]
    out.append("/// The state stock RADV (draw/reference/radv-gfx1201/VERSIONS) had programmed at its first")
    out.append("/// POPS draw on gfx1201 (draw/reference/radv-gfx1201), one packet per run of consecutive")
    out.append("/// registers in first-write order, each with its value at the draw; RADV's compute")
    out.append("/// registers (SH 0xb800-0xbfff, its dispatches' state) left out.")
    out.append("pub(crate) const GFX12: &[Step] = &[")
    runs = []
    for a in order:
        if runs and runs[-1][-1] + 4 == a and space_of(a) == space_of(runs[-1][0]):
            runs[-1].append(a)
        else:
            runs.append([a])
    for run in runs:
        if all(names.get(a) in model for a in run):
            regs = ", ".join(f"(Reg::{names[a]}, {values[a]:#x})" for a in run)
            out.append(f"    Step::Regs(&[{regs}]),")
        else:
            vals = ", ".join(f"{values[a]:#x}" for a in run)
            which = ", ".join(names.get(a, f"{a:#x}") for a in run)
            out.append(f"    // {which}")
            out.append(f"    Step::Raw {{ address: {run[0]:#x}, values: &[{vals}] }},")
    if instances is not None:
        out.append(f"    Step::NumInstances({instances}),")
    out.append("];")
    out.append("")


def space_of(a):
    return 0 if a < 0xc000 else 1 if a < 0x30000 else 2


def main():
    out = ['//! The register state of a hardware-tested draw, per generation: generated by',
           '//! `tools/gen-draw-reference.py` from libdrm\'s draw test',
           '//! (`shared/reference/libdrm-draw/gfxN_draw_ib.decoded.txt`, GFX9-GFX11) and from stock',
           '//! RADV\'s POPS draw on gfx1201 (`draw/reference/radv-gfx1201`, GFX12).',
           '//! Do not edit; every change the POPS draw makes is in `differences.rs`.',
           '',
           'use crate::step::Step;',
           'use pm4::Reg;',
           '']
    for const, fname in STREAMS:
        steps = parse(os.path.join(REF, fname))
        out.append(f"/// {fname}, packet by packet (framing, NOPs and the draw packet left out).")
        out.append(f"pub(crate) const {const}: &[Step] = &[")
        for kind, writes, op, first in steps:
            if kind == "num_instances":
                out.append(f"    Step::NumInstances({writes[0][1]}),")
                continue
            if any(n.startswith("0x") for n, _ in writes):
                # A register neither Mesa nor the register database names: by byte address.
                assert op == "SET_CONTEXT_REG", op
                addr = 0x28000 + 4 * (first[0] & 0xffff)
                vals = ", ".join(f"{v:#x}" for _, v in writes)
                out.append(f"    Step::Raw {{ address: {addr:#x}, values: &[{vals}] }},")
                continue
            regs = ", ".join(f"(Reg::{n}, {v:#x})" for n, v in writes)
            out.append(f"    Step::Regs(&[{regs}]),")
        out.append("];")
        out.append("")
    gfx12_steps(out)
    path = os.path.join(ROOT, "draw", "src", "reference_state.rs")
    open(path, "w").write("\n".join(out))
    print(f"wrote {path}")


main()
