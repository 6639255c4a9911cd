#!/usr/bin/env python3
"""Generates pm4/src/validate/tables.rs: the facts the IB validator (pm4::validate) checks against.

The validator is an oracle for everything pops encodes, so nothing here comes from pops' own
register model (pm4/registers.list, pm4/src/regs) or packet code. Every fact is taken from
material nobody in this project wrote:

- Registers: every register the AMD register database (shared/reference/registers/<level>.json,
  as published with Mesa 25.0.7) maps into a PM4 register space on that level, by byte address,
  and per space the window the database populates (rounded out to 4 KiB pages).
- Addresses outside the database that real drivers write: every register address written by
  libdrm's hardware-tested draw streams (shared/reference/libdrm-draw) and by the command buffers
  and preambles Mesa's RADV records (shared/reference/radv/ib), with the file that proves it; and
  those RADV from today's Mesa writes (pm4/data/radv-26-stream-addresses.json: read from the IBs
  it submits on the amdgpu shim, which the loader test validates on every run).
- Packet body lengths: every body length each opcode has in those streams, per level, and the
  minimum length implied by the packet field layouts of shared/reference/registers/pkt3.json.
- Kernel-owned registers: KERNEL_OWNED below, each with its provenance.

The reference streams are parsed here by a separate, minimal PM4 reader (header layout from
shared/reference/pm4.json).

Usage: python3 tools/gen-validation-tables.py [--out FILE] [SHARED_REFERENCE_DIR]
(then `cargo fmt`; pm4/tests/validate.rs regenerates into a temporary file and compares.)
"""
import glob
import json
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARGS = sys.argv[1:]
OUT = None
if ARGS[:1] == ["--out"] and len(ARGS) >= 2:
    OUT, ARGS = ARGS[1], ARGS[2:]
REF = ARGS[0] if ARGS else os.path.join(ROOT, "..", "shared", "reference")

# (Rust constant prefix, database file, pops level name)
LEVELS = [
    ("GFX9", "gfx9", "gfx9"),
    ("GFX10", "gfx10", "gfx10"),
    ("GFX10_3", "gfx103", "gfx10.3"),
    ("GFX11", "gfx11", "gfx11"),
    ("GFX11_5", "gfx115", "gfx11.5"),
    ("GFX12", "gfx12", "gfx12"),
]

# Which reference streams speak for which level.
LIBDRM_STREAMS = {
    "gfx9": ["gfx9_draw_ib.bin"],
    "gfx10": ["gfx10_draw_ib.bin"],
    "gfx103": ["gfx10_draw_ib.bin"],  # libdrm's GFX10 stream serves GFX10.1 and 10.3
    "gfx11": ["gfx11_draw_ib.bin"],
    "gfx115": [],
    "gfx12": [],
}
RADV_CHIPS = {
    "gfx9": ["vega10", "vega20"],
    "gfx10": ["navi10"],
    "gfx103": ["navi21"],
    "gfx11": ["navi31"],
    "gfx115": [],
    "gfx12": [],
}

# Registers the amdgpu kernel driver programs itself. A userspace IB never writes them: either the
# command processor does not hold them in its context space, or the kernel's golden settings own
# them. Each entry: levels, byte address, name, provenance.
KERNEL_OWNED = [
    {
        "levels": ["gfx11", "gfx115"],
        "address": 0xA960 * 4,
        "name": "PA_SC_VRS_SURFACE_CNTL_1",
        "provenance": "amdgpu gc_11_0 headers (regPA_SC_VRS_SURFACE_CNTL_1 = 0xa960, "
        "FORCE_SC_VRS_RATE_FINE_POPS bit 7), programmed by the kernel through the "
        "gfx_v11_0 golden settings; absent from the AMD register database",
    },
]

# Body lengths (dwords after the header) that packets must have. Provenance: the count argument
# of Mesa 25.0.7's PKT3(op, count, predicate) at every site that emits the packet on GFX9+
# (src/amd/vulkan/radv_cmd_buffer.c, radv_cs.h, src/amd/common/ac_cmdbuf.c, ac_pm4.c); the
# generator checks every length seen in the reference streams against these rules.
# exact: allowed lengths; min: at least this many.
PACKET_LENGTHS = {
    "CLEAR_STATE": {"exact": [1]},
    "CONTEXT_CONTROL": {"exact": [2]},
    "NUM_INSTANCES": {"exact": [1]},
    "INDEX_TYPE": {"exact": [1]},
    "INDEX_BASE": {"exact": [2]},
    "INDEX_BUFFER_SIZE": {"exact": [1]},
    "DRAW_INDEX_AUTO": {"exact": [2]},
    "DRAW_INDEX_2": {"exact": [4]},
    "DRAW_INDEX_OFFSET_2": {"exact": [3]},
    "EVENT_WRITE": {"exact": [1, 3]},  # a plain event, or an event with a sample address
    "PFP_SYNC_ME": {"exact": [1]},
    "RELEASE_MEM": {"exact": [7]},
    "ACQUIRE_MEM": {"exact": [6], "gfx10+": [7]},  # GFX10+ adds GCR_CNTL
    "INDIRECT_BUFFER": {"exact": [3]},
    "COPY_DATA": {"exact": [5]},
    "WAIT_REG_MEM": {"exact": [6]},
    "DMA_DATA": {"exact": [6]},
    "CP_DMA": {"exact": [5]},
    "SET_SH_REG_OFFSET": {"exact": [3]},
    "LOAD_CONTEXT_REG_INDEX": {"exact": [4]},
    "WRITE_DATA": {"min": 4},  # control, address lo/hi, one or more data dwords
    # pm4.json: the register offset is the first body dword, then one value per register.
    "SET_CONFIG_REG": {"min": 2},
    "SET_CONTEXT_REG": {"min": 2},
    "SET_SH_REG": {"min": 2},
    "SET_SH_REG_INDEX": {"min": 2},
    "SET_UCONFIG_REG": {"min": 2},
    "SET_UCONFIG_REG_INDEX": {"min": 2},
}


def length_rule(name, file):
    """(exact lengths, minimum) for an opcode on a level; ([], 0) when no rule applies."""
    r = PACKET_LENGTHS.get(name)
    if r is None:
        return [], 0
    exact = r.get("gfx10+", r.get("exact", [])) if file != "gfx9" else r.get("exact", [])
    return exact, r.get("min", 0)


SPACES = [
    ("Config", 0x8000, 0xB000),
    ("Sh", 0xB000, 0xC000),
    ("Context", 0x28000, 0x30000),
    ("Uconfig", 0x30000, 0x40000),
]


def space_of(addr):
    for name, a, b in SPACES:
        if a <= addr < b:
            return name
    return None


def load_pm4():
    pm4 = json.load(open(os.path.join(REF, "pm4.json")))
    h = pm4["header"]
    assert h["type_bits"] == [30, 31] and h["count_bits"] == [16, 29] and h["opcode_bits"] == [8, 15]
    for name, a, b in SPACES:
        s = pm4["register_spaces"][name.lower()]
        assert int(s["start"], 16) == a and int(s["end"], 16) == b, name
    return {int(v, 16): k for k, v in pm4["opcodes"].items()}


SET_SPACE = {
    "SET_CONFIG_REG": "Config",
    "SET_CONTEXT_REG": "Context",
    "SET_SH_REG": "Sh",
    "SET_SH_REG_INDEX": "Sh",
    "SET_UCONFIG_REG": "Uconfig",
    "SET_UCONFIG_REG_INDEX": "Uconfig",
}


def parse_stream(path, opcodes):
    """Yields (opcode name, body dwords, [(address, value)]) for each type-3 packet."""
    data = open(path, "rb").read()
    dw = struct.unpack("<%dI" % (len(data) // 4), data[: len(data) // 4 * 4])
    i = 0
    while i < len(dw):
        h = dw[i]
        if h >> 30 != 3:
            raise SystemExit(f"{path}: dword {i}: not a type-3 header {h:#x}")
        op = (h >> 8) & 0xFF
        count = (h >> 16) & 0x3FFF
        name = opcodes.get(op)
        if name is None:
            raise SystemExit(f"{path}: dword {i}: opcode {op:#x} not in pm4.json")
        if name == "NOP" and count == 0x3FFF:
            i += 1
            continue
        body = dw[i + 1 : i + 2 + count]
        if len(body) != count + 1:
            raise SystemExit(f"{path}: dword {i}: truncated {name}")
        writes = []
        if name in SET_SPACE:
            start = dict((n, a) for n, a, _ in SPACES)[SET_SPACE[name]]
            off = body[0] & 0xFFFF
            writes = [(start + 4 * (off + k), v) for k, v in enumerate(body[1:])]
        yield name, len(body), writes
        i += 2 + count


# Addresses RADV from today's Mesa writes outside the database, per database file.
RADV_CURRENT_FILE = os.path.join(ROOT, "pm4", "data", "radv-26-stream-addresses.json")
RADV_CURRENT = {
    {"gfx10.3": "gfx103", "gfx11.5": "gfx115"}.get(level, level): addresses
    for level, addresses in json.load(open(RADV_CURRENT_FILE))["levels"].items()
}


def main():
    opcodes = load_pm4()
    pkt3 = json.load(open(os.path.join(REF, "registers", "pkt3.json")))
    # pkt3.json maps a packet field to (opcode << 4) | position; position counts the header as 1
    # (ACQUIRE_MEM's GCR_CNTL, its 7th body dword, sits at 0x586 + 1 = header + 7). The minimum
    # body a packet needs is its last listed field's position.
    # Positions are numbered from 0 or from 1 depending on the packet (INDIRECT_BUFFER's
    # IB_BASE_LO is 0x3F0, DMA_DATA's first dword DMA_DATA_WORD0 is 0x501), so the numbering base
    # is the lowest position a packet lists; an entry whose comment says it sits at 0xNNN
    # "instead of" its true position counts at its true position.
    moved = {}
    for m in pkt3["register_mappings"]:
        note = m.get("comment", "")
        if "instead of 0x" in note:
            moved[m["map"]["at"]] = int(note.split("instead of 0x")[1].split()[0], 16)
    positions = {}
    for m in pkt3["register_mappings"]:
        if m["map"].get("to") != "pkt3":
            continue
        at = moved.get(m["map"]["at"], m["map"]["at"])
        op, pos = at >> 4, at & 0xF
        name = opcodes.get(op)
        if name is None:
            continue
        for chip in m.get("chips", []):
            positions.setdefault((chip, name), []).append(pos)
    min_body = {k: max(p) - min(p) + 1 for k, p in positions.items()}

    out = []
    w = out.append
    w("// @generated by tools/gen-validation-tables.py from shared/reference (the AMD register")
    w("// database, pm4.json, pkt3.json, libdrm's and RADV's recorded streams). Do not edit by hand.")
    w("// The IB validator's facts: independent of pops' register model and packet code.")
    w("#![allow(clippy::all)]")
    w("")
    w("use super::{BodyLength, KernelOwned, LevelTables, SpaceWindow, StreamAddress};")
    w("")
    w("/// Type-3 opcodes of shared/reference/pm4.json: (opcode, name), sorted by opcode.")
    w(f"pub(super) static OPCODES: [(u8, &str); {len(opcodes)}] = [")
    for op in sorted(opcodes):
        w(f'    (0x{op:02X}, "{opcodes[op]}"),')
    w("];")
    w("")
    for const, file, level in LEVELS:
        db = json.load(open(os.path.join(REF, "registers", file + ".json")))
        regs = {}
        for m in db["register_mappings"]:
            if m["map"].get("to") != "mm":
                continue
            a = m["map"]["at"]
            if space_of(a) is None:
                continue
            regs.setdefault(a, m["name"])
        windows = []
        for name, a, b in SPACES:
            inside = [x for x in regs if a <= x < b]
            if not inside:
                continue
            lo = min(inside) & ~0xFFF
            hi = (max(inside) + 4 + 0xFFF) & ~0xFFF
            windows.append((name, lo, hi))
        # Reference streams of this level.
        files = [os.path.join(REF, "libdrm-draw", f) for f in LIBDRM_STREAMS[file]]
        for chip in RADV_CHIPS[file]:
            files += sorted(glob.glob(os.path.join(REF, "radv", "ib", f"{chip}_*.bin")))
        extra = {}
        for a, why in RADV_CURRENT.get(file, {}).items():
            a = int(a, 16)
            if a in regs:
                raise SystemExit(f"{file}: 0x{a:05X} is in the database: drop it from {RADV_CURRENT_FILE}")
            extra[a] = why
        lengths = {}
        for path in files:
            rel = os.path.relpath(path, REF)
            for name, body, writes in parse_stream(path, opcodes):
                lengths.setdefault(name, set()).add(body)
                for a, _ in writes:
                    if a not in regs and a not in extra:
                        extra[a] = rel
        kernel = [k for k in KERNEL_OWNED if file in k["levels"]]
        for k in kernel:
            if k["address"] in regs or k["address"] in extra:
                raise SystemExit(f"{k['name']} is kernel-owned but listed or written on {file}")
        w(f"static {const}_REGISTERS: [(u32, &str); {len(regs)}] = [")
        for a in sorted(regs):
            w(f'    (0x{a:05X}, "{regs[a]}"),')
        w("];")
        w(f"static {const}_STREAM_ADDRESSES: [StreamAddress; {len(extra)}] = [")
        for a in sorted(extra):
            w(f'    StreamAddress {{ address: 0x{a:05X}, provenance: "{extra[a]}" }},')
        w("];")
        w(f"static {const}_KERNEL_OWNED: [KernelOwned; {len(kernel)}] = [")
        for k in kernel:
            w(f'    KernelOwned {{ address: 0x{k["address"]:05X}, name: "{k["name"]}", provenance: "{k["provenance"]}" }},')
        w("];")
        rules = {}
        for name in sorted(set(PACKET_LENGTHS) | {n for (c, n) in min_body if c == file}):
            exact, least = length_rule(name, file)
            least = max(least, min_body.get((file, name), 0))
            if exact and min(exact) < least:
                raise SystemExit(f"{file}: {name}: exact lengths {exact} below pkt3.json's minimum {least}")
            rules[name] = (exact, least)
        for name, seen in lengths.items():
            exact, least = rules.get(name, ([], 0))
            for n in seen:
                if (exact and n not in exact) or n < least:
                    raise SystemExit(f"{file}: reference streams have a {name} body of {n} dwords, "
                                     f"against the rule {exact or ''} min {least}")
        w(f"static {const}_BODY_LENGTHS: [BodyLength; {len(rules)}] = [")
        for name, (exact, least) in sorted(rules.items()):
            seen = sorted(lengths.get(name, []))
            w(f'    BodyLength {{ opcode: "{name}", exact: &[{", ".join(map(str, exact))}], '
              f'min: {least}, seen_in_references: &[{", ".join(map(str, seen))}] }},')
        w("];")
        w(f"pub(super) static {const}: LevelTables = LevelTables {{")
        w(f'    database: "registers/{file}.json",')
        w(f"    registers: &{const}_REGISTERS,")
        w("    windows: &[")
        for name, lo, hi in windows:
            w(f"        SpaceWindow {{ space: super::Space::{name}, start: 0x{lo:05X}, end: 0x{hi:05X} }},")
        w("    ],")
        w(f"    stream_addresses: &{const}_STREAM_ADDRESSES,")
        w(f"    kernel_owned: &{const}_KERNEL_OWNED,")
        w(f"    body_lengths: &{const}_BODY_LENGTHS,")
        w(f"    streams: {len(files)},")
        w("};")
        w("")
        print(f"{level}: {len(regs)} registers, windows {[(n, hex(a), hex(b)) for n, a, b in windows]}, "
              f"{len(extra)} stream-only addresses, {len(files)} streams, {len(lengths)} opcodes seen",
              file=sys.stderr)
    path = OUT or os.path.join(ROOT, "pm4", "src", "validate", "tables.rs")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
