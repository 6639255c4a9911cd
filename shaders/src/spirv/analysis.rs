//! What each entry point of a SPIR-V module asks of POPS, found in one pass over the words.
//!
//! The pass records, per <id>, only what later questions need (is it a type, a pointer into
//! memory, a built-in, a label, a function), per function its blocks, calls and interlock
//! instructions, and per module its entry points and execution modes. Questions about an entry
//! point (which functions it reaches, whether an interlock instruction is in divergent control
//! flow) are then answered on that summary, in work proportional to the functions, calls and
//! blocks involved, never by reading the words again.
//!
//! # Divergent control flow
//!
//! An interlock instruction is *uniform* when its block `B`, in function `F`,
//! 1. post-dominates `F`'s entry block with respect to the function's returns — every path from
//!    the entry to an `OpReturn`/`OpReturnValue` passes through `B` (paths ending in `OpKill`,
//!    `OpTerminateInvocation` or `OpUnreachable` do not count: those invocations leave the shader
//!    and never reach the ordered section, so a `discard` before `begin` is not divergence), and
//! 2. is not on a cycle of `F`'s control-flow graph (it runs at most once per call), and
//! 3. every call site through which `F` is reached from the entry point is itself uniform in the
//!    same sense, recursively.
//!
//! Otherwise it is *divergent*: some invocations of a wave may execute it and others not, or
//! execute it more than once — what GLSL forbids (`beginInvocationInterlockARB` only in `main`,
//! outside control flow, not after `return`) and what SPIR-V alone does not. The test is sound:
//! any instruction inside a structured selection or loop construct (between an
//! `OpSelectionMerge`/`OpLoopMerge` header and its merge block) fails 1 or 2, because the construct's
//! header has a branch that bypasses it or a back edge that repeats it.

use super::module::{
    host_order_words, parse_header, words_from_bytes, Instruction, Instructions, SpirvError,
};
use super::table::{BuiltIn, Capability, Decoration, Dim, ExecutionMode, ExecutionModel, Op};
use super::table::{StorageClass, OP_SHAPE, SHAPE_RESULT, SHAPE_RESULT_TYPE};
use pm4::InterlockMode;

/// The analysis of a whole module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleInfo {
    /// SPIR-V (major, minor) version from the header.
    pub version: (u8, u8),
    /// The header's <id> bound.
    pub bound: u32,
    /// One per `OpEntryPoint`, in module order.
    pub entry_points: Vec<EntryPointInfo>,
}

impl ModuleInfo {
    /// The entry point of that name and stage, if any.
    pub fn entry_point(&self, name: &str, model: ExecutionModel) -> Option<&EntryPointInfo> {
        self.entry_points
            .iter()
            .find(|e| e.name == name && e.execution_model == model)
    }
}

/// What one entry point asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPointInfo {
    pub name: String,
    pub execution_model: ExecutionModel,
    /// The <id> of the entry point's function.
    pub function: u32,
    /// The declared interlock execution mode (PixelInterlockOrderedEXT … ShadingRateInterlockUnorderedEXT);
    /// the first one when a malformed module declares several.
    pub interlock: Option<InterlockMode>,
    /// `OpBeginInvocationInterlockEXT` instructions reachable from the entry point through the
    /// static call graph, each counted once per call path (a helper containing one, called twice
    /// from the entry function, counts 2).
    pub begin_count: u32,
    /// `OpEndInvocationInterlockEXT`, counted like `begin_count`.
    pub end_count: u32,
    /// Every reachable begin/end instruction, in module order (once each, however many paths).
    pub interlock_sites: Vec<InterlockSite>,
    /// Some reachable begin is in divergent control flow (see the module documentation).
    pub begin_in_divergent_control_flow: bool,
    /// Some reachable end is in divergent control flow.
    pub end_in_divergent_control_flow: bool,
    /// The fragment shader runs per sample: the entry point's interface has a
    /// SampleId/SamplePosition built-in input or an input decorated `Sample` (what makes Vulkan
    /// enable sample shading), or the module declares the SampleRateShading capability and this is
    /// its only fragment entry point (in a module with several, the capability cannot say which
    /// one it is for; the interface can). Always false for other stages.
    pub per_sample: bool,
    /// A reachable function stores, copies into, or atomically modifies storage buffers,
    /// physical storage buffers or storage images (`OpImageWrite`, image atomics).
    pub writes_memory: bool,
    /// A reachable function reads or writes such memory (loads, atomics, `OpImageRead` of a
    /// storage image; input attachments and sampled images do not count).
    pub accesses_memory: bool,
    /// The fragment entry point's interface has an Output variable that is not a built-in
    /// (FragDepth, SampleMask, FragStencilRefEXT are not colour). Always false for other stages.
    pub has_color_output: bool,
    /// The EarlyFragmentTests execution mode is declared.
    pub early_fragment_tests: bool,
}

/// One `OpBeginInvocationInterlockEXT` or `OpEndInvocationInterlockEXT`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterlockSite {
    /// The <id> of the function containing it.
    pub function: u32,
    /// That function's `OpName`, if the module has debug names.
    pub function_name: Option<String>,
    /// Begin (true) or end (false).
    pub is_begin: bool,
    /// In divergent control flow (see the module documentation).
    pub divergent: bool,
    /// Call paths from the entry point that reach it.
    pub paths: u32,
    /// Word index of the instruction.
    pub word: usize,
}

/// Analyses a module given as words, in either byte order.
pub fn analyze(words: &[u32]) -> Result<ModuleInfo, SpirvError> {
    let words = host_order_words(words)?;
    analyze_host(&words)
}

/// Analyses a module given as bytes (a `.spv` file), in either byte order.
pub fn analyze_bytes(bytes: &[u8]) -> Result<ModuleInfo, SpirvError> {
    let words = words_from_bytes(bytes)?;
    analyze_host(&words)
}

// Per-<id> facts, a bit each in `Ids::flags`.
const F_TYPE: u32 = 1 << 0;
/// A pointer type into memory POPS cares about: storage buffers (also the legacy Uniform +
/// BufferBlock form), physical storage buffers, and image texels (`OpImageTexelPointer`).
const F_PTR_MEMORY: u32 = 1 << 1;
const F_PTR_TYPE: u32 = 1 << 2;
const F_IMAGE_SUBPASS: u32 = 1 << 3;
const F_BUFFER_BLOCK: u32 = 1 << 4;
const F_BUILTIN: u32 = 1 << 5;
const F_BUILTIN_SAMPLE: u32 = 1 << 6;
const F_SAMPLE: u32 = 1 << 7;
const F_MEMBER_BUILTIN: u32 = 1 << 8;
const F_MEMBER_BUILTIN_SAMPLE: u32 = 1 << 9;
const F_MEMBER_SAMPLE: u32 = 1 << 10;
const F_VARIABLE: u32 = 1 << 11;
const F_FUNCTION: u32 = 1 << 12;
const F_LABEL: u32 = 1 << 13;
/// What an array type inherits from its element type.
const F_INHERITED: u32 =
    F_BUFFER_BLOCK | F_MEMBER_BUILTIN | F_MEMBER_BUILTIN_SAMPLE | F_MEMBER_SAMPLE;

/// Facts per <id>, indexed by <id> (all < bound, checked on the way in).
struct Ids {
    flags: Vec<u32>,
    /// Values: their result type. Pointer types: the pointee type. Variables: their pointer type.
    ty: Vec<u32>,
    /// Pointer types and variables: the storage class. Integer types: the width. Labels: the
    /// block index. Functions: the function index.
    aux: Vec<u32>,
}

struct Block {
    /// Range of `Parser::succs`: label <id>s while parsing, block indices after the function ends.
    succ: (u32, u32),
    returns: bool,
    /// Where its terminator is, for errors.
    term_word: usize,
    term_op: Op,
}

struct Func {
    id: u32,
    blocks: (u32, u32),
    calls: (u32, u32),
    sites: (u32, u32),
    writes: bool,
    accesses: bool,
}

struct Call {
    block: u32,
    callee: u32,
    word: usize,
}

struct Site {
    block: u32,
    is_begin: bool,
    word: usize,
}

struct RawEntry {
    model: ExecutionModel,
    function: u32,
    name: String,
    interface: (u32, u32),
    word: usize,
}

fn analyze_host(words: &[u32]) -> Result<ModuleInfo, SpirvError> {
    let header = parse_header(words)?;
    let bound = header.bound;
    let n = bound as usize;
    // vec![0; n] of a primitive is a zeroed allocation: pages a huge (but legal) bound never
    // touches cost nothing.
    let mut ids = Ids {
        flags: vec![0; n],
        ty: vec![0; n],
        aux: vec![0; n],
    };
    let mut blocks: Vec<Block> = Vec::new();
    let mut succs: Vec<u32> = Vec::new();
    let mut funcs: Vec<Func> = Vec::new();
    let mut calls: Vec<Call> = Vec::new();
    let mut sites: Vec<Site> = Vec::new();
    let mut entries: Vec<RawEntry> = Vec::new();
    let mut interfaces: Vec<u32> = Vec::new();
    let mut modes: Vec<(u32, ExecutionMode)> = Vec::new();
    let mut names: Vec<(u32, usize, usize)> = Vec::new();
    let mut sample_rate_shading = false;
    let mut in_function = false;
    let mut in_block = false;

    for inst in Instructions::new(words) {
        let inst = inst?;
        let w = inst.words;
        // Every instruction with a result type defines a typed value: remember its type (the
        // grammar's operand shape makes this exact, not a guess), and check both <id>s.
        let shape = OP_SHAPE.get(usize::from(inst.op.0)).copied().unwrap_or(0);
        if shape & SHAPE_RESULT_TYPE != 0 {
            inst.need(3)?;
            let rt = inst.check_id(w[1], bound)?;
            let res = inst.check_id(w[2], bound)?;
            ids.ty[res as usize] = rt;
        } else if shape & SHAPE_RESULT != 0 {
            inst.need(2)?;
            inst.check_id(w[1], bound)?;
        }
        match inst.op {
            Op::Capability => {
                sample_rate_shading |=
                    Capability(inst.operand(1)?) == Capability::SampleRateShading;
            }
            Op::EntryPoint => {
                let model = ExecutionModel(inst.operand(1)?);
                let function = inst.id(2, bound)?;
                let (name, next) = inst.string(3)?;
                let start = interfaces.len() as u32;
                for k in next..w.len() {
                    interfaces.push(inst.id(k, bound)?);
                }
                entries.push(RawEntry {
                    model,
                    function,
                    name,
                    interface: (start, interfaces.len() as u32),
                    word: inst.word,
                });
            }
            Op::ExecutionMode | Op::ExecutionModeId => {
                let f = inst.id(1, bound)?;
                modes.push((f, ExecutionMode(inst.operand(2)?)));
            }
            Op::Name => {
                let id = inst.id(1, bound)?;
                inst.need(3)?;
                names.push((id, inst.word, inst.word + w.len()));
            }
            Op::Decorate => {
                let target = inst.id(1, bound)? as usize;
                let f = match Decoration(inst.operand(2)?) {
                    Decoration::BuiltIn => builtin_flags(BuiltIn(inst.operand(3)?), false),
                    Decoration::Sample => F_SAMPLE,
                    Decoration::BufferBlock => F_BUFFER_BLOCK,
                    _ => 0,
                };
                ids.flags[target] |= f;
            }
            Op::MemberDecorate => {
                let target = inst.id(1, bound)? as usize;
                let f = match Decoration(inst.operand(3)?) {
                    Decoration::BuiltIn => builtin_flags(BuiltIn(inst.operand(4)?), true),
                    Decoration::Sample => F_MEMBER_SAMPLE,
                    _ => 0,
                };
                ids.flags[target] |= f;
            }
            Op::TypeInt => {
                let id = w[1] as usize;
                ids.flags[id] |= F_TYPE;
                ids.aux[id] = inst.operand(2)?;
            }
            Op::TypeImage => {
                let id = w[1] as usize;
                ids.flags[id] |= F_TYPE;
                if Dim(inst.operand(3)?) == Dim::SubpassData {
                    ids.flags[id] |= F_IMAGE_SUBPASS;
                }
            }
            Op::TypeArray | Op::TypeRuntimeArray => {
                let id = w[1] as usize;
                let elem = inst.id(2, bound)? as usize;
                ids.flags[id] |= F_TYPE | (ids.flags[elem] & F_INHERITED);
            }
            Op::TypePointer => {
                let id = w[1] as usize;
                let class = StorageClass(inst.operand(2)?);
                let pointee = inst.id(3, bound)?;
                let memory = match class {
                    StorageClass::StorageBuffer
                    | StorageClass::PhysicalStorageBuffer
                    | StorageClass::Image => true,
                    StorageClass::Uniform => ids.flags[pointee as usize] & F_BUFFER_BLOCK != 0,
                    _ => false,
                };
                ids.flags[id] |= F_TYPE | F_PTR_TYPE | if memory { F_PTR_MEMORY } else { 0 };
                ids.ty[id] = pointee;
                ids.aux[id] = class.0;
            }
            Op::Variable => {
                let id = w[2] as usize;
                ids.flags[id] |= F_VARIABLE;
                ids.aux[id] = inst.operand(3)?;
            }
            Op::Function => {
                if in_function {
                    return Err(misplaced(
                        &inst,
                        "begins a function inside another function",
                    ));
                }
                in_function = true;
                in_block = false;
                let id = w[2];
                ids.flags[id as usize] |= F_FUNCTION;
                ids.aux[id as usize] = funcs.len() as u32;
                let b = blocks.len() as u32;
                let c = calls.len() as u32;
                let s = sites.len() as u32;
                funcs.push(Func {
                    id,
                    blocks: (b, b),
                    calls: (c, c),
                    sites: (s, s),
                    writes: false,
                    accesses: false,
                });
            }
            Op::FunctionEnd => {
                if !in_function {
                    return Err(misplaced(&inst, "ends a function that was never begun"));
                }
                in_function = false;
                in_block = false;
                if let Some(f) = funcs.last_mut() {
                    f.blocks.1 = blocks.len() as u32;
                    f.calls.1 = calls.len() as u32;
                    f.sites.1 = sites.len() as u32;
                    resolve_successors(f, &mut blocks, &mut succs, &ids)?;
                }
            }
            Op::Label => {
                if !in_function {
                    return Err(misplaced(&inst, "is outside a function"));
                }
                let id = w[1] as usize;
                ids.flags[id] |= F_LABEL;
                ids.aux[id] = blocks.len() as u32;
                let s = succs.len() as u32;
                blocks.push(Block {
                    succ: (s, s),
                    returns: false,
                    term_word: inst.word,
                    term_op: inst.op,
                });
                in_block = true;
            }
            Op::Branch => {
                let t = inst.id(1, bound)?;
                terminate(&inst, in_block, &mut blocks, &mut succs, &[t], false)?;
                in_block = false;
            }
            Op::BranchConditional => {
                let a = inst.id(2, bound)?;
                let b = inst.id(3, bound)?;
                terminate(&inst, in_block, &mut blocks, &mut succs, &[a, b], false)?;
                in_block = false;
            }
            Op::Switch => {
                let selector = inst.id(1, bound)?;
                let default = inst.id(2, bound)?;
                // Case literals are as wide as the selector's integer type.
                let width = ids.aux[ids.ty[selector as usize] as usize];
                let lit = if width > 32 { 2 } else { 1 };
                let mut targets = vec![default];
                let mut k = 3;
                while k < w.len() {
                    targets.push(inst.id(k + lit, bound)?);
                    k += lit + 1;
                }
                terminate(&inst, in_block, &mut blocks, &mut succs, &targets, false)?;
                in_block = false;
            }
            Op::Return | Op::ReturnValue => {
                terminate(&inst, in_block, &mut blocks, &mut succs, &[], true)?;
                in_block = false;
            }
            Op::Kill
            | Op::Unreachable
            | Op::TerminateInvocation
            | Op::IgnoreIntersectionKHR
            | Op::TerminateRayKHR
            | Op::EmitMeshTasksEXT => {
                terminate(&inst, in_block, &mut blocks, &mut succs, &[], false)?;
                in_block = false;
            }
            Op::Store | Op::AtomicStore | Op::AtomicFlagClear => {
                let p = inst.id(1, bound)?;
                let mem = points_to_memory(&ids, p);
                body(&inst, in_block, &mut funcs)?.note(mem, mem);
            }
            Op::CopyMemory | Op::CopyMemorySized => {
                let dst = inst.id(1, bound)?;
                let src = inst.id(2, bound)?;
                let wr = points_to_memory(&ids, dst);
                let rd = points_to_memory(&ids, src);
                body(&inst, in_block, &mut funcs)?.note(wr, wr || rd);
            }
            Op::Load | Op::AtomicLoad => {
                let p = inst.id(3, bound)?;
                let mem = points_to_memory(&ids, p);
                body(&inst, in_block, &mut funcs)?.note(false, mem);
            }
            Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicCompareExchangeWeak
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
            | Op::AtomicFlagTestAndSet
            | Op::AtomicFMinEXT
            | Op::AtomicFMaxEXT
            | Op::AtomicFAddEXT => {
                let p = inst.id(3, bound)?;
                let mem = points_to_memory(&ids, p);
                body(&inst, in_block, &mut funcs)?.note(mem, mem);
            }
            Op::ImageWrite => {
                // Only storage images can be written.
                body(&inst, in_block, &mut funcs)?.note(true, true);
            }
            Op::ImageRead | Op::ImageSparseRead => {
                let image = inst.id(3, bound)?;
                let subpass = ids.flags[ids.ty[image as usize] as usize] & F_IMAGE_SUBPASS != 0;
                body(&inst, in_block, &mut funcs)?.note(false, !subpass);
            }
            Op::FunctionCall => {
                let callee = inst.id(3, bound)?;
                body(&inst, in_block, &mut funcs)?;
                calls.push(Call {
                    block: blocks.len() as u32 - 1,
                    callee,
                    word: inst.word,
                });
            }
            Op::BeginInvocationInterlockEXT | Op::EndInvocationInterlockEXT => {
                body(&inst, in_block, &mut funcs)?;
                sites.push(Site {
                    block: blocks.len() as u32 - 1,
                    is_begin: inst.op == Op::BeginInvocationInterlockEXT,
                    word: inst.word,
                });
            }
            _ => {}
        }
    }
    if in_function {
        return Err(SpirvError::Misplaced {
            word: words.len(),
            opcode: Op::FunctionEnd,
            why: "is missing: the module ends inside a function",
        });
    }

    let summary = Summary {
        words,
        ids: &ids,
        blocks: &blocks,
        succs: &succs,
        funcs: &funcs,
        calls: &calls,
        sites: &sites,
        names: &names,
    };
    // Resolve every call once: callee <id> to function index.
    let mut callee_index = Vec::with_capacity(calls.len());
    for c in &calls {
        callee_index.push(summary.function_index(c.callee).ok_or(
            SpirvError::UndefinedFunction {
                word: c.word,
                opcode: Op::FunctionCall,
                id: c.callee,
            },
        )?);
    }
    let mut divergent_memo = vec![0u8; blocks.len()];
    let fragment_entries = entries
        .iter()
        .filter(|e| e.model == ExecutionModel::Fragment)
        .count();
    let mut entry_points = Vec::with_capacity(entries.len());
    for e in entries {
        let fi = summary
            .function_index(e.function)
            .ok_or(SpirvError::UndefinedFunction {
                word: e.word,
                opcode: Op::EntryPoint,
                id: e.function,
            })?;
        let mut info = EntryPointInfo {
            name: e.name,
            execution_model: e.model,
            function: e.function,
            interlock: None,
            begin_count: 0,
            end_count: 0,
            interlock_sites: Vec::new(),
            begin_in_divergent_control_flow: false,
            end_in_divergent_control_flow: false,
            per_sample: false,
            writes_memory: false,
            accesses_memory: false,
            has_color_output: false,
            early_fragment_tests: false,
        };
        for &(f, m) in &modes {
            if f != e.function {
                continue;
            }
            if m == ExecutionMode::EarlyFragmentTests {
                info.early_fragment_tests = true;
            } else if info.interlock.is_none() {
                info.interlock = InterlockMode::from_spirv_execution_mode(m.0);
            }
        }
        if e.model == ExecutionModel::Fragment {
            info.per_sample = sample_rate_shading && fragment_entries == 1;
            for &v in &interfaces[e.interface.0 as usize..e.interface.1 as usize] {
                let v = v as usize;
                if ids.flags[v] & F_VARIABLE == 0 {
                    continue;
                }
                let pointee = ids.ty[ids.ty[v] as usize] as usize;
                let fl = ids.flags[v] | ids.flags[pointee];
                let sample =
                    F_BUILTIN_SAMPLE | F_MEMBER_BUILTIN_SAMPLE | F_SAMPLE | F_MEMBER_SAMPLE;
                match StorageClass(ids.aux[v]) {
                    StorageClass::Output => {
                        info.has_color_output |= fl & (F_BUILTIN | F_MEMBER_BUILTIN) == 0;
                    }
                    StorageClass::Input => info.per_sample |= fl & sample != 0,
                    _ => {}
                }
            }
        }
        summary.call_graph(fi, &callee_index, &mut divergent_memo, &mut info);
        entry_points.push(info);
    }
    Ok(ModuleInfo {
        version: header.version_pair(),
        bound,
        entry_points,
    })
}

fn builtin_flags(b: BuiltIn, member: bool) -> u32 {
    let sample = b == BuiltIn::SampleId || b == BuiltIn::SamplePosition;
    match (member, sample) {
        (false, false) => F_BUILTIN,
        (false, true) => F_BUILTIN | F_BUILTIN_SAMPLE,
        (true, false) => F_MEMBER_BUILTIN,
        (true, true) => F_MEMBER_BUILTIN | F_MEMBER_BUILTIN_SAMPLE,
    }
}

#[inline]
fn points_to_memory(ids: &Ids, pointer: u32) -> bool {
    ids.flags[ids.ty[pointer as usize] as usize] & F_PTR_MEMORY != 0
}

fn misplaced(inst: &Instruction<'_>, why: &'static str) -> SpirvError {
    SpirvError::Misplaced {
        word: inst.word,
        opcode: inst.op,
        why,
    }
}

impl Func {
    #[inline]
    fn note(&mut self, writes: bool, accesses: bool) {
        self.writes |= writes;
        self.accesses |= accesses;
    }
}

/// The current function, for an instruction that must be inside one of its blocks.
#[inline]
fn body<'f>(
    inst: &Instruction<'_>,
    in_block: bool,
    funcs: &'f mut [Func],
) -> Result<&'f mut Func, SpirvError> {
    match funcs.last_mut() {
        Some(f) if in_block => Ok(f),
        _ => Err(misplaced(inst, "is outside a block of a function")),
    }
}

fn terminate(
    inst: &Instruction<'_>,
    in_block: bool,
    blocks: &mut [Block],
    succs: &mut Vec<u32>,
    targets: &[u32],
    returns: bool,
) -> Result<(), SpirvError> {
    let Some(b) = blocks.last_mut().filter(|_| in_block) else {
        return Err(misplaced(inst, "is outside a block of a function"));
    };
    succs.extend_from_slice(targets);
    b.succ.1 = succs.len() as u32;
    b.returns = returns;
    b.term_word = inst.word;
    b.term_op = inst.op;
    Ok(())
}

/// Turns the finished function's branch targets from label <id>s into block indices, checking
/// each is a block of the same function.
fn resolve_successors(
    f: &Func,
    blocks: &mut [Block],
    succs: &mut [u32],
    ids: &Ids,
) -> Result<(), SpirvError> {
    for b in &blocks[f.blocks.0 as usize..f.blocks.1 as usize] {
        for s in &mut succs[b.succ.0 as usize..b.succ.1 as usize] {
            let label = *s as usize;
            let idx = ids.aux[label];
            if ids.flags[label] & F_LABEL == 0 || idx < f.blocks.0 || idx >= f.blocks.1 {
                return Err(SpirvError::BadBranchTarget {
                    word: b.term_word,
                    opcode: b.term_op,
                    target: *s,
                });
            }
            *s = idx;
        }
    }
    Ok(())
}

struct Summary<'a> {
    words: &'a [u32],
    ids: &'a Ids,
    blocks: &'a [Block],
    succs: &'a [u32],
    funcs: &'a [Func],
    calls: &'a [Call],
    sites: &'a [Site],
    names: &'a [(u32, usize, usize)],
}

impl Summary<'_> {
    fn function_index(&self, id: u32) -> Option<usize> {
        let i = id as usize;
        if i < self.ids.flags.len() && self.ids.flags[i] & F_FUNCTION != 0 {
            let fi = self.ids.aux[i] as usize;
            (fi < self.funcs.len()).then_some(fi)
        } else {
            None
        }
    }

    fn name_of(&self, id: u32) -> Option<String> {
        let &(_, start, end) = self.names.iter().find(|n| n.0 == id)?;
        let inst = Instruction {
            word: start,
            op: Op::Name,
            words: self.words.get(start..end)?,
        };
        inst.string(2).ok().map(|(s, _)| s)
    }

    fn successors(&self, b: usize) -> &[u32] {
        let (s, e) = self.blocks[b].succ;
        &self.succs[s as usize..e as usize]
    }

    /// Whether block `b` of function `f` is in divergent control flow within `f` (rules 1 and 2
    /// of the module documentation), memoized per block.
    fn block_divergent(&self, f: &Func, b: u32, memo: &mut [u8]) -> bool {
        if memo[b as usize] != 0 {
            return memo[b as usize] == 2;
        }
        let d = self.block_divergent_uncached(f, b as usize);
        memo[b as usize] = if d { 2 } else { 1 };
        d
    }

    fn block_divergent_uncached(&self, f: &Func, b: usize) -> bool {
        let base = f.blocks.0 as usize;
        let n = f.blocks.1 as usize - base;
        let mut seen = vec![false; n];
        // Rule 2: on a cycle — b reachable from its own successors.
        let mut stack: Vec<usize> = self.successors(b).iter().map(|&s| s as usize).collect();
        while let Some(x) = stack.pop() {
            if x == b {
                return true;
            }
            if std::mem::replace(&mut seen[x - base], true) {
                continue;
            }
            stack.extend(self.successors(x).iter().map(|&s| s as usize));
        }
        // Rule 1: a path from the entry block to a return that avoids b.
        if b == base {
            return false;
        }
        seen.fill(false);
        stack.clear();
        stack.push(base);
        while let Some(x) = stack.pop() {
            if x == b || std::mem::replace(&mut seen[x - base], true) {
                continue;
            }
            if self.blocks[x].returns {
                return true;
            }
            stack.extend(self.successors(x).iter().map(|&s| s as usize));
        }
        false
    }

    /// Walks the static call graph from the entry function: reachable functions, call-path
    /// counts, call-site divergence, and the interlock sites and memory accesses they contain.
    fn call_graph(
        &self,
        entry: usize,
        callee_index: &[usize],
        memo: &mut [u8],
        info: &mut EntryPointInfo,
    ) {
        let nf = self.funcs.len();
        // Iterative depth-first search for a postorder of the reachable functions. A call back
        // into a function still on the stack (recursion, which Vulkan forbids) is ignored.
        let mut state = vec![0u8; nf];
        let mut post = Vec::new();
        let mut stack = vec![(entry, self.funcs[entry].calls.0 as usize)];
        state[entry] = 1;
        while let Some(top) = stack.last_mut() {
            let (f, next) = *top;
            if next < self.funcs[f].calls.1 as usize {
                top.1 += 1;
                let g = callee_index[next];
                if state[g] == 0 {
                    state[g] = 1;
                    stack.push((g, self.funcs[g].calls.0 as usize));
                }
            } else {
                state[f] = 2;
                post.push(f);
                stack.pop();
            }
        }
        let calls_of = |f: usize| {
            let (s, e) = self.funcs[f].calls;
            s as usize..e as usize
        };
        // Functions that contain, or call something that contains, an interlock instruction.
        let mut has_sites = vec![false; nf];
        for &f in &post {
            let (s, e) = self.funcs[f].sites;
            has_sites[f] = s != e || calls_of(f).any(|c| has_sites[callee_index[c]]);
        }
        // Call paths and divergent calling context, callers before callees.
        let mut paths = vec![0u32; nf];
        let mut divergent_ctx = vec![false; nf];
        paths[entry] = 1;
        for &f in post.iter().rev() {
            for c in calls_of(f) {
                let g = callee_index[c];
                if state[g] != 2 || g == entry {
                    continue;
                }
                paths[g] = paths[g].saturating_add(paths[f]);
                if has_sites[g]
                    && !divergent_ctx[g]
                    && (divergent_ctx[f]
                        || self.block_divergent(&self.funcs[f], self.calls[c].block, memo))
                {
                    divergent_ctx[g] = true;
                }
            }
        }
        let mut reachable: Vec<usize> = post.clone();
        reachable.sort_unstable();
        for f in reachable {
            let func = &self.funcs[f];
            info.writes_memory |= func.writes;
            info.accesses_memory |= func.accesses;
            let (s, e) = func.sites;
            for site in &self.sites[s as usize..e as usize] {
                let divergent = divergent_ctx[f] || self.block_divergent(func, site.block, memo);
                if site.is_begin {
                    info.begin_count = info.begin_count.saturating_add(paths[f]);
                    info.begin_in_divergent_control_flow |= divergent;
                } else {
                    info.end_count = info.end_count.saturating_add(paths[f]);
                    info.end_in_divergent_control_flow |= divergent;
                }
                info.interlock_sites.push(InterlockSite {
                    function: func.id,
                    function_name: self.name_of(func.id),
                    is_begin: site.is_begin,
                    divergent,
                    paths: paths[f],
                    word: site.word,
                });
            }
        }
    }
}
