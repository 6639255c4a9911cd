//! What each entry point of a SPIR-V module asks of POPS, found in one pass over the words.
//!
//! The pass records, per `<id>`, only what later questions need (is it a type, a pointer into
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
//! an instruction that an invocation can skip on its way to a return, or run twice, is always
//! flagged. In particular an instruction inside a structured selection or loop construct
//! (between an `OpSelectionMerge`/`OpLoopMerge` header and its merge block) fails 1 or 2 — the
//! header has a branch that bypasses it or a back edge that repeats it — unless every bypassing
//! path ends the invocation (`if (c) discard; else { begin … }`), which rule 1 deliberately allows.

use super::module::{
    host_order_words, parse_header, words_from_bytes, Instruction, Instructions, SpirvError,
};
use super::table::{BuiltIn, Capability, Decoration, Dim, ExecutionMode, ExecutionModel, Op};
use super::table::{StorageClass, OP_SHAPE, SHAPE_RESULT, SHAPE_RESULT_TYPE};
use pm4::InterlockMode;
use std::cell::Cell;

/// The analysis of a whole module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleInfo {
    /// SPIR-V (major, minor) version from the header.
    pub version: (u8, u8),
    /// The header's `<id>` bound.
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
    /// The `<id>` of the entry point's function.
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
    /// The fragment entry point's interface has a `SampleMask` built-in input
    /// (`gl_SampleMaskIn`): compilers declare it only where it is read. From GFX10.3 the driver
    /// then keeps the shading rate at 1x1. Always false for other stages.
    pub reads_sample_mask: bool,
}

/// One `OpBeginInvocationInterlockEXT` or `OpEndInvocationInterlockEXT`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterlockSite {
    /// The `<id>` of the function containing it.
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

// Per-<id> facts, a bit each in the `FLAGS` word of an `Ids` row.
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
/// Pointer values (variables, access chains, copies) into memory whose pointer *type* cannot say
/// so: members of a legacy Uniform + BufferBlock storage buffer have Uniform pointer types like
/// uniform-buffer members do. Set on variables of an `F_PTR_MEMORY` type and carried through
/// access chains and `OpCopyObject` within a function (not through function parameters, which
/// glslang never uses for them).
const F_MEMORY_VALUE: u32 = 1 << 15;
/// Functions: the EarlyFragmentTests execution mode.
const F_EARLY_FRAGMENT_TESTS: u32 = 1 << 14;
/// Functions: bits from here hold the first interlock execution mode minus
/// [`INTERLOCK_MODE_BASE`] (1..=6; 0 for none).
const F_INTERLOCK_SHIFT: u32 = 16;
/// The interlock bits above [`F_INTERLOCK_SHIFT`].
const F_INTERLOCK_BITS: u32 = 0x7;
/// Variables: decorated `BuiltIn SampleMask` (the bit is above the interlock bits, which only
/// functions use).
const F_BUILTIN_SAMPLE_MASK: u32 = 1 << 20;
const INTERLOCK_MODE_BASE: u32 = ExecutionMode::PixelInterlockOrderedEXT.0 - 1;
/// What an array type inherits from its element type.
const F_INHERITED: u32 =
    F_BUFFER_BLOCK | F_MEMBER_BUILTIN | F_MEMBER_BUILTIN_SAMPLE | F_MEMBER_SAMPLE;

/// Facts per `<id>`, indexed by `<id>` (all < bound, checked on the way in), one row of four words
/// per `<id>` so that what one instruction asks about an `<id>` is one cache line away.
struct Ids {
    rows: Vec<[u32; 4]>,
}

/// Row word: the `F_*` bits.
const FLAGS: usize = 0;
/// Row word: values' result type; pointer types' pointee type; variables' pointer type.
const TY: usize = 1;
/// Row word: storage class of pointer types and variables; width of integer types; block index
/// of labels; function index of functions.
const AUX: usize = 2;
/// Row word: word index of the `<id>`'s `OpName` (0, the magic number, when there is none).
const NAME: usize = 3;

struct Block {
    /// Range of `succs`: label `<id>`s while parsing, block indices after the function ends.
    succ: (u32, u32),
    returns: bool,
    /// Divergence within its function, once asked: 0 not yet, 1 uniform, 2 divergent.
    divergent: Cell<u8>,
    /// Search epoch that last visited it (saves a visited set per query).
    seen: Cell<u32>,
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
    /// Word range of the interface `<id>`s (checked against the bound while parsing).
    interface: (usize, usize),
    word: usize,
}

/// What the single pass over a module's instructions gathers.
struct Pass {
    bound: u32,
    ids: Ids,
    blocks: Vec<Block>,
    succs: Vec<u32>,
    funcs: Vec<Func>,
    calls: Vec<Call>,
    sites: Vec<Site>,
    entries: Vec<RawEntry>,
    sample_rate_shading: bool,
    in_function: bool,
    in_block: bool,
}

impl Pass {
    fn new(words: &[u32], bound: u32) -> Pass {
        Pass {
            bound,
            // vec![[0; 4]; n] is a zeroed allocation: pages a huge (but legal) bound never
            // touches cost nothing.
            ids: Ids {
                rows: vec![[0; 4]; bound as usize],
            },
            // Capacities from the module size, so realistic modules grow nothing while parsing.
            blocks: Vec::with_capacity(words.len() / 64 + 4),
            succs: Vec::with_capacity(words.len() / 48 + 4),
            funcs: Vec::with_capacity(4),
            calls: Vec::new(),
            sites: Vec::with_capacity(4),
            entries: Vec::with_capacity(2),
            sample_rate_shading: false,
            in_function: false,
            in_block: false,
        }
    }

    /// One instruction: every instruction with a result type defines a typed value (its type is
    /// remembered: the grammar's operand shape makes this exact, not a guess) and has both
    /// `<id>`s checked; the routed ones are read.
    fn instruction(&mut self, inst: &Instruction<'_>) -> Result<(), SpirvError> {
        let w = inst.words;
        let shape = ROUTE.get(usize::from(inst.op.0)).copied().unwrap_or(0);
        if shape & SHAPE_RESULT_TYPE != 0 {
            inst.need(3)?;
            let rt = inst.check_id(w[1], self.bound)?;
            let res = inst.check_id(w[2], self.bound)?;
            self.ids.rows[res as usize][TY] = rt;
        } else if shape & SHAPE_RESULT != 0 {
            inst.need(2)?;
            inst.check_id(w[1], self.bound)?;
        }
        if shape & ROUTED == 0 {
            return Ok(());
        }
        self.declaration(inst)?;
        self.structure(inst)?;
        self.access(inst)
    }

    /// Capabilities, entry points, execution modes, names, decorations, types, variables and
    /// access chains.
    fn declaration(&mut self, inst: &Instruction<'_>) -> Result<(), SpirvError> {
        let bound = self.bound;
        let w = inst.words;
        let Pass {
            ids,
            entries,
            sample_rate_shading,
            ..
        } = self;
        match inst.op {
            Op::Capability => {
                *sample_rate_shading |=
                    Capability(inst.operand(1)?) == Capability::SampleRateShading;
            }
            Op::EntryPoint => {
                let model = ExecutionModel(inst.operand(1)?);
                let function = inst.id(2, bound)?;
                let (name, next) = inst.string(3)?;
                for k in next..w.len() {
                    inst.id(k, bound)?;
                }
                entries.push(RawEntry {
                    model,
                    function,
                    name,
                    interface: (inst.word + next, inst.word + w.len()),
                    word: inst.word,
                });
            }
            Op::ExecutionMode | Op::ExecutionModeId => {
                let f = inst.id(1, bound)? as usize;
                let mode = ExecutionMode(inst.operand(2)?);
                let row = &mut ids.rows[f];
                if mode == ExecutionMode::EarlyFragmentTests {
                    row[FLAGS] |= F_EARLY_FRAGMENT_TESTS;
                } else if (row[FLAGS] >> F_INTERLOCK_SHIFT) & F_INTERLOCK_BITS == 0
                    && InterlockMode::from_spirv_execution_mode(mode.0).is_some()
                {
                    row[FLAGS] |= (mode.0 - INTERLOCK_MODE_BASE) << F_INTERLOCK_SHIFT;
                }
            }
            Op::Name => {
                let id = inst.id(1, bound)?;
                inst.need(3)?;
                ids.rows[id as usize][NAME] = inst.word as u32;
            }
            Op::Decorate => {
                let target = inst.id(1, bound)? as usize;
                let f = match Decoration(inst.operand(2)?) {
                    Decoration::BuiltIn => builtin_flags(BuiltIn(inst.operand(3)?), false),
                    Decoration::Sample => F_SAMPLE,
                    Decoration::BufferBlock => F_BUFFER_BLOCK,
                    _ => 0,
                };
                ids.rows[target][FLAGS] |= f;
            }
            Op::MemberDecorate => {
                let target = inst.id(1, bound)? as usize;
                let f = match Decoration(inst.operand(3)?) {
                    Decoration::BuiltIn => builtin_flags(BuiltIn(inst.operand(4)?), true),
                    Decoration::Sample => F_MEMBER_SAMPLE,
                    _ => 0,
                };
                ids.rows[target][FLAGS] |= f;
            }
            Op::TypeInt => {
                let id = w[1] as usize;
                ids.rows[id][FLAGS] |= F_TYPE;
                ids.rows[id][AUX] = inst.operand(2)?;
            }
            Op::TypeImage => {
                let id = w[1] as usize;
                ids.rows[id][FLAGS] |= F_TYPE;
                if Dim(inst.operand(3)?) == Dim::SubpassData {
                    ids.rows[id][FLAGS] |= F_IMAGE_SUBPASS;
                }
            }
            Op::TypeArray | Op::TypeRuntimeArray => {
                let id = w[1] as usize;
                let elem = inst.id(2, bound)? as usize;
                ids.rows[id][FLAGS] |= F_TYPE | (ids.rows[elem][FLAGS] & F_INHERITED);
            }
            Op::TypePointer => {
                let id = w[1] as usize;
                let class = StorageClass(inst.operand(2)?);
                let pointee = inst.id(3, bound)?;
                let memory = match class {
                    StorageClass::StorageBuffer
                    | StorageClass::PhysicalStorageBuffer
                    | StorageClass::Image => true,
                    StorageClass::Uniform => {
                        ids.rows[pointee as usize][FLAGS] & F_BUFFER_BLOCK != 0
                    }
                    _ => false,
                };
                ids.rows[id][FLAGS] |= F_TYPE | F_PTR_TYPE | if memory { F_PTR_MEMORY } else { 0 };
                ids.rows[id][TY] = pointee;
                ids.rows[id][AUX] = class.0;
            }
            Op::Variable => {
                let id = w[2] as usize;
                let memory = ids.rows[w[1] as usize][FLAGS] & F_PTR_MEMORY != 0;
                ids.rows[id][FLAGS] |= F_VARIABLE | if memory { F_MEMORY_VALUE } else { 0 };
                ids.rows[id][AUX] = inst.operand(3)?;
            }
            Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain
            | Op::CopyObject => {
                let base = inst.id(3, bound)? as usize;
                ids.rows[w[2] as usize][FLAGS] |= ids.rows[base][FLAGS] & F_MEMORY_VALUE;
            }
            _ => {}
        }
        Ok(())
    }

    /// Functions, blocks and their terminators.
    fn structure(&mut self, inst: &Instruction<'_>) -> Result<(), SpirvError> {
        let bound = self.bound;
        let w = inst.words;
        let Pass {
            ids,
            blocks,
            succs,
            funcs,
            calls,
            sites,
            in_function,
            in_block,
            ..
        } = self;
        match inst.op {
            Op::Function => {
                if *in_function {
                    return Err(misplaced(inst, "begins a function inside another function"));
                }
                *in_function = true;
                *in_block = false;
                let id = w[2];
                ids.rows[id as usize][FLAGS] |= F_FUNCTION;
                ids.rows[id as usize][AUX] = funcs.len() as u32;
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
                if !*in_function {
                    return Err(misplaced(inst, "ends a function that was never begun"));
                }
                *in_function = false;
                *in_block = false;
                if let Some(f) = funcs.last_mut() {
                    f.blocks.1 = blocks.len() as u32;
                    f.calls.1 = calls.len() as u32;
                    f.sites.1 = sites.len() as u32;
                    resolve_successors(f, blocks, succs, ids)?;
                }
            }
            Op::Label => {
                if !*in_function {
                    return Err(misplaced(inst, "is outside a function"));
                }
                let id = w[1] as usize;
                ids.rows[id][FLAGS] |= F_LABEL;
                ids.rows[id][AUX] = blocks.len() as u32;
                let s = succs.len() as u32;
                blocks.push(Block {
                    succ: (s, s),
                    returns: false,
                    divergent: Cell::new(0),
                    seen: Cell::new(0),
                    term_word: inst.word,
                    term_op: inst.op,
                });
                *in_block = true;
            }
            Op::Branch => {
                let t = inst.id(1, bound)?;
                terminate(inst, *in_block, blocks, succs, &[t], false)?;
                *in_block = false;
            }
            Op::BranchConditional => {
                let a = inst.id(2, bound)?;
                let b = inst.id(3, bound)?;
                terminate(inst, *in_block, blocks, succs, &[a, b], false)?;
                *in_block = false;
            }
            Op::Switch => {
                let selector = inst.id(1, bound)?;
                let default = inst.id(2, bound)?;
                // Case literals are as wide as the selector's integer type.
                let width = ids.rows[ids.rows[selector as usize][TY] as usize][AUX];
                let lit = if width > 32 { 2 } else { 1 };
                let mut targets = vec![default];
                let mut k = 3;
                while k < w.len() {
                    targets.push(inst.id(k + lit, bound)?);
                    k += lit + 1;
                }
                terminate(inst, *in_block, blocks, succs, &targets, false)?;
                *in_block = false;
            }
            Op::Return | Op::ReturnValue => {
                terminate(inst, *in_block, blocks, succs, &[], true)?;
                *in_block = false;
            }
            Op::Kill
            | Op::Unreachable
            | Op::TerminateInvocation
            | Op::IgnoreIntersectionKHR
            | Op::TerminateRayKHR
            | Op::EmitMeshTasksEXT => {
                terminate(inst, *in_block, blocks, succs, &[], false)?;
                *in_block = false;
            }
            _ => {}
        }
        Ok(())
    }

    /// Memory accesses, calls and the interlock sites, in the current block.
    fn access(&mut self, inst: &Instruction<'_>) -> Result<(), SpirvError> {
        let bound = self.bound;
        let Pass {
            ids,
            blocks,
            funcs,
            calls,
            sites,
            in_block,
            ..
        } = self;
        match inst.op {
            Op::Store | Op::AtomicStore | Op::AtomicFlagClear => {
                let p = inst.id(1, bound)?;
                let mem = points_to_memory(ids, p);
                body(inst, *in_block, funcs)?.note(mem, mem);
            }
            Op::CopyMemory | Op::CopyMemorySized => {
                let dst = inst.id(1, bound)?;
                let src = inst.id(2, bound)?;
                let wr = points_to_memory(ids, dst);
                let rd = points_to_memory(ids, src);
                body(inst, *in_block, funcs)?.note(wr, wr || rd);
            }
            Op::Load | Op::AtomicLoad => {
                let p = inst.id(3, bound)?;
                let mem = points_to_memory(ids, p);
                body(inst, *in_block, funcs)?.note(false, mem);
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
                let mem = points_to_memory(ids, p);
                body(inst, *in_block, funcs)?.note(mem, mem);
            }
            Op::ImageWrite => {
                // Only storage images can be written.
                body(inst, *in_block, funcs)?.note(true, true);
            }
            Op::ImageRead | Op::ImageSparseRead => {
                let image = inst.id(3, bound)?;
                let subpass =
                    ids.rows[ids.rows[image as usize][TY] as usize][FLAGS] & F_IMAGE_SUBPASS != 0;
                body(inst, *in_block, funcs)?.note(false, !subpass);
            }
            Op::FunctionCall => {
                let callee = inst.id(3, bound)?;
                body(inst, *in_block, funcs)?;
                calls.push(Call {
                    block: blocks.len() as u32 - 1,
                    callee,
                    word: inst.word,
                });
            }
            Op::BeginInvocationInterlockEXT | Op::EndInvocationInterlockEXT => {
                body(inst, *in_block, funcs)?;
                sites.push(Site {
                    block: blocks.len() as u32 - 1,
                    is_begin: inst.op == Op::BeginInvocationInterlockEXT,
                    word: inst.word,
                });
            }
            _ => {}
        }
        Ok(())
    }
}

fn analyze_host(words: &[u32]) -> Result<ModuleInfo, SpirvError> {
    let header = parse_header(words)?;
    let bound = header.bound;
    let mut pass = Pass::new(words, bound);
    for inst in Instructions::new(words) {
        pass.instruction(&inst?)?;
    }
    if pass.in_function {
        return Err(SpirvError::Misplaced {
            word: words.len(),
            opcode: Op::FunctionEnd,
            why: "is missing: the module ends inside a function",
        });
    }
    let Pass {
        ids,
        blocks,
        succs,
        funcs,
        calls,
        sites,
        entries,
        sample_rate_shading,
        ..
    } = pass;
    let summary = Summary {
        words,
        ids: &ids,
        blocks: &blocks,
        succs: &succs,
        funcs: &funcs,
        calls: &calls,
        sites: &sites,
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
    let mut scratch = Scratch::default();
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
            reads_sample_mask: false,
        };
        let fflags = ids.rows[e.function as usize][FLAGS];
        info.early_fragment_tests = fflags & F_EARLY_FRAGMENT_TESTS != 0;
        if (fflags >> F_INTERLOCK_SHIFT) & F_INTERLOCK_BITS != 0 {
            info.interlock = InterlockMode::from_spirv_execution_mode(
                ((fflags >> F_INTERLOCK_SHIFT) & F_INTERLOCK_BITS) + INTERLOCK_MODE_BASE,
            );
        }
        if e.model == ExecutionModel::Fragment {
            info.per_sample = sample_rate_shading && fragment_entries == 1;
            for &v in &words[e.interface.0..e.interface.1] {
                let v = v as usize;
                if ids.rows[v][FLAGS] & F_VARIABLE == 0 {
                    continue;
                }
                let pointee = ids.rows[ids.rows[v][TY] as usize][TY] as usize;
                let fl = ids.rows[v][FLAGS] | ids.rows[pointee][FLAGS];
                let sample =
                    F_BUILTIN_SAMPLE | F_MEMBER_BUILTIN_SAMPLE | F_SAMPLE | F_MEMBER_SAMPLE;
                match StorageClass(ids.rows[v][AUX]) {
                    StorageClass::Output => {
                        info.has_color_output |= fl & (F_BUILTIN | F_MEMBER_BUILTIN) == 0;
                    }
                    StorageClass::Input => {
                        info.per_sample |= fl & sample != 0;
                        info.reads_sample_mask |= ids.rows[v][FLAGS] & F_BUILTIN_SAMPLE_MASK != 0;
                    }
                    _ => {}
                }
            }
        }
        summary.call_graph(fi, &callee_index, &mut scratch, &mut info);
        entry_points.push(info);
    }
    Ok(ModuleInfo {
        version: header.version_pair(),
        bound,
        entry_points,
    })
}

/// `ROUTE[opcode]` bit: the opcode is one the analysis looks at (an arm of the big match).
const ROUTED: u8 = 4;

/// The opcodes with an arm in `analyze_host`'s match; every other instruction only has its result
/// `<id>`s checked and its type recorded.
const ROUTED_OPS: &[Op] = &[
    Op::Capability,
    Op::EntryPoint,
    Op::ExecutionMode,
    Op::ExecutionModeId,
    Op::Name,
    Op::Decorate,
    Op::MemberDecorate,
    Op::TypeInt,
    Op::TypeImage,
    Op::TypeArray,
    Op::TypeRuntimeArray,
    Op::TypePointer,
    Op::Variable,
    Op::AccessChain,
    Op::InBoundsAccessChain,
    Op::PtrAccessChain,
    Op::InBoundsPtrAccessChain,
    Op::CopyObject,
    Op::Function,
    Op::FunctionEnd,
    Op::Label,
    Op::Branch,
    Op::BranchConditional,
    Op::Switch,
    Op::Return,
    Op::ReturnValue,
    Op::Kill,
    Op::Unreachable,
    Op::TerminateInvocation,
    Op::IgnoreIntersectionKHR,
    Op::TerminateRayKHR,
    Op::EmitMeshTasksEXT,
    Op::Store,
    Op::AtomicStore,
    Op::AtomicFlagClear,
    Op::CopyMemory,
    Op::CopyMemorySized,
    Op::Load,
    Op::AtomicLoad,
    Op::AtomicExchange,
    Op::AtomicCompareExchange,
    Op::AtomicCompareExchangeWeak,
    Op::AtomicIIncrement,
    Op::AtomicIDecrement,
    Op::AtomicIAdd,
    Op::AtomicISub,
    Op::AtomicSMin,
    Op::AtomicUMin,
    Op::AtomicSMax,
    Op::AtomicUMax,
    Op::AtomicAnd,
    Op::AtomicOr,
    Op::AtomicXor,
    Op::AtomicFlagTestAndSet,
    Op::AtomicFMinEXT,
    Op::AtomicFMaxEXT,
    Op::AtomicFAddEXT,
    Op::ImageWrite,
    Op::ImageRead,
    Op::ImageSparseRead,
    Op::FunctionCall,
    Op::BeginInvocationInterlockEXT,
    Op::EndInvocationInterlockEXT,
];

/// The grammar's operand shapes plus the [`ROUTED`] bit: one table lookup per instruction
/// decides both what to check and whether to look further.
static ROUTE: [u8; OP_SHAPE.len()] = {
    let mut t = OP_SHAPE;
    let mut i = 0;
    while i < ROUTED_OPS.len() {
        t[ROUTED_OPS[i].0 as usize] |= ROUTED;
        i += 1;
    }
    t
};

fn builtin_flags(b: BuiltIn, member: bool) -> u32 {
    let sample = b == BuiltIn::SampleId || b == BuiltIn::SamplePosition;
    if b == BuiltIn::SampleMask && !member {
        return F_BUILTIN | F_BUILTIN_SAMPLE_MASK;
    }
    match (member, sample) {
        (false, false) => F_BUILTIN,
        (false, true) => F_BUILTIN | F_BUILTIN_SAMPLE,
        (true, false) => F_MEMBER_BUILTIN,
        (true, true) => F_MEMBER_BUILTIN | F_MEMBER_BUILTIN_SAMPLE,
    }
}

#[inline]
fn points_to_memory(ids: &Ids, pointer: u32) -> bool {
    let row = ids.rows[pointer as usize];
    row[FLAGS] & F_MEMORY_VALUE != 0 || ids.rows[row[TY] as usize][FLAGS] & F_PTR_MEMORY != 0
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

/// Turns the finished function's branch targets from label `<id>`s into block indices, checking
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
            let idx = ids.rows[label][AUX];
            if ids.rows[label][FLAGS] & F_LABEL == 0 || idx < f.blocks.0 || idx >= f.blocks.1 {
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

/// State shared by every divergence query of one analysis.
#[derive(Default)]
struct Scratch {
    /// Bumped per search; a block is visited in this search when its `seen` equals it.
    epoch: u32,
    stack: Vec<usize>,
}

struct Summary<'a> {
    words: &'a [u32],
    ids: &'a Ids,
    blocks: &'a [Block],
    succs: &'a [u32],
    funcs: &'a [Func],
    calls: &'a [Call],
    sites: &'a [Site],
}

impl Summary<'_> {
    fn function_index(&self, id: u32) -> Option<usize> {
        let i = id as usize;
        if i < self.ids.rows.len() && self.ids.rows[i][FLAGS] & F_FUNCTION != 0 {
            let fi = self.ids.rows[i][AUX] as usize;
            (fi < self.funcs.len()).then_some(fi)
        } else {
            None
        }
    }

    fn name_of(&self, id: u32) -> Option<String> {
        let start = self.ids.rows.get(id as usize)?[NAME] as usize;
        if start == 0 {
            return None;
        }
        let count = (*self.words.get(start)? >> 16) as usize;
        let inst = Instruction {
            word: start,
            op: Op::Name,
            words: self.words.get(start..start + count)?,
        };
        inst.string(2).ok().map(|(s, _)| s)
    }

    fn successors(&self, b: usize) -> &[u32] {
        let (s, e) = self.blocks[b].succ;
        &self.succs[s as usize..e as usize]
    }

    /// Whether block `b` of function `f` is in divergent control flow within `f` (rules 1 and 2
    /// of the module documentation), memoized per block.
    fn block_divergent(&self, f: &Func, b: u32, scratch: &mut Scratch) -> bool {
        let block = &self.blocks[b as usize];
        if block.divergent.get() == 0 {
            let d = self.block_divergent_uncached(f, b as usize, scratch);
            block.divergent.set(if d { 2 } else { 1 });
        }
        block.divergent.get() == 2
    }

    /// Marks `x` visited in the current search; false if it already was.
    fn visit(&self, x: usize, epoch: u32) -> bool {
        self.blocks[x].seen.replace(epoch) != epoch
    }

    fn block_divergent_uncached(&self, f: &Func, b: usize, scratch: &mut Scratch) -> bool {
        let base = f.blocks.0 as usize;
        let stack = &mut scratch.stack;
        // Rule 2: on a cycle — b reachable from its own successors.
        scratch.epoch = scratch.epoch.wrapping_add(1);
        let epoch = scratch.epoch;
        stack.clear();
        stack.extend(self.successors(b).iter().map(|&s| s as usize));
        while let Some(x) = stack.pop() {
            if x == b {
                return true;
            }
            if self.visit(x, epoch) {
                stack.extend(self.successors(x).iter().map(|&s| s as usize));
            }
        }
        // Rule 1: a path from the entry block to a return that avoids b.
        if b == base {
            return false;
        }
        scratch.epoch = scratch.epoch.wrapping_add(1);
        let epoch = scratch.epoch;
        stack.clear();
        stack.push(base);
        while let Some(x) = stack.pop() {
            if x == b || !self.visit(x, epoch) {
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
        scratch: &mut Scratch,
        info: &mut EntryPointInfo,
    ) {
        let (c0, c1) = self.funcs[entry].calls;
        if c0 == c1 {
            // The common case (glslang output): the entry function calls nothing.
            self.collect(entry, 1, false, scratch, info);
            return;
        }
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
                        || self.block_divergent(&self.funcs[f], self.calls[c].block, scratch))
                {
                    divergent_ctx[g] = true;
                }
            }
        }
        // Module order, so that sites are listed as they appear.
        post.sort_unstable();
        for f in post {
            self.collect(f, paths[f], divergent_ctx[f], scratch, info);
        }
    }

    /// Adds reachable function `f` (reached by `paths` call paths, in a divergent calling context
    /// or not) to the entry point's memory accesses and interlock sites.
    fn collect(
        &self,
        f: usize,
        paths: u32,
        divergent_ctx: bool,
        scratch: &mut Scratch,
        info: &mut EntryPointInfo,
    ) {
        let func = &self.funcs[f];
        info.writes_memory |= func.writes;
        info.accesses_memory |= func.accesses;
        let (s, e) = func.sites;
        for site in &self.sites[s as usize..e as usize] {
            let divergent = divergent_ctx || self.block_divergent(func, site.block, scratch);
            if site.is_begin {
                info.begin_count = info.begin_count.saturating_add(paths);
                info.begin_in_divergent_control_flow |= divergent;
            } else {
                info.end_count = info.end_count.saturating_add(paths);
                info.end_in_divergent_control_flow |= divergent;
            }
            info.interlock_sites.push(InterlockSite {
                function: func.id,
                function_name: self.name_of(func.id),
                is_begin: site.is_begin,
                divergent,
                paths,
                word: site.word,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spirv::module::MAGIC;

    fn inst(op: Op, operands: &[u32]) -> Vec<u32> {
        let mut v = vec![((operands.len() as u32 + 1) << 16) | u32::from(op.0)];
        v.extend_from_slice(operands);
        v
    }

    /// A fragment shader `main` (%3, pixel-ordered) with types `types` and body `body`
    /// (which starts after the entry label %4 and must end every block). Ids: %1 void,
    /// %2 fn type; the caller uses %10 and up.
    fn fragment(types: &[Vec<u32>], body: &[Vec<u32>]) -> Vec<u32> {
        let mut w = vec![MAGIC, 0x0001_0500, 0, 64, 0];
        let name = u32::from_le_bytes(*b"main");
        for i in [
            inst(Op::Capability, &[1]),
            inst(Op::MemoryModel, &[0, 1]),
            inst(Op::EntryPoint, &[4, 3, name, 0]),
            inst(Op::ExecutionMode, &[3, 5366]),
            inst(Op::TypeVoid, &[1]),
            inst(Op::TypeFunction, &[2, 1]),
        ]
        .iter()
        .chain(types)
        .chain(&[inst(Op::Function, &[1, 3, 0, 2]), inst(Op::Label, &[4])])
        .chain(body)
        .chain(&[inst(Op::FunctionEnd, &[])])
        {
            w.extend_from_slice(i);
        }
        w
    }

    fn main_info(m: &[u32]) -> EntryPointInfo {
        analyze(m).unwrap().entry_points.remove(0)
    }

    #[test]
    fn a_do_while_body_is_divergent_though_it_post_dominates_the_entry() {
        // %4: branch %10; %10 (body): begin, end, loop back to %10 or go to %11; %11: return.
        // Every path to the return passes %10 (rule 1 holds), but %10 repeats (rule 2 fails):
        // begin would run more than once per invocation.
        let m = fragment(
            &[inst(Op::TypeBool, &[20]), inst(Op::ConstantTrue, &[20, 21])],
            &[
                inst(Op::Branch, &[10]),
                inst(Op::Label, &[10]),
                inst(Op::BeginInvocationInterlockEXT, &[]),
                inst(Op::EndInvocationInterlockEXT, &[]),
                inst(Op::BranchConditional, &[21, 10, 11]),
                inst(Op::Label, &[11]),
                inst(Op::Return, &[]),
            ],
        );
        let e = main_info(&m);
        assert_eq!((e.begin_count, e.end_count), (1, 1));
        assert!(e.begin_in_divergent_control_flow);
        assert!(e.end_in_divergent_control_flow);
        // The same blocks without the back edge are uniform.
        let m = fragment(
            &[inst(Op::TypeBool, &[20]), inst(Op::ConstantTrue, &[20, 21])],
            &[
                inst(Op::Branch, &[10]),
                inst(Op::Label, &[10]),
                inst(Op::BeginInvocationInterlockEXT, &[]),
                inst(Op::EndInvocationInterlockEXT, &[]),
                inst(Op::Branch, &[11]),
                inst(Op::Label, &[11]),
                inst(Op::Return, &[]),
            ],
        );
        assert!(!main_info(&m).begin_in_divergent_control_flow);
    }

    #[test]
    fn switch_case_literals_are_as_wide_as_the_selector() {
        // A 64-bit selector: each case is two literal words then a label. Reading one word per
        // literal would take the high word (0) for a label and fail the branch-target check.
        let m = fragment(
            &[
                inst(Op::TypeInt, &[20, 64, 0]),
                inst(Op::Constant, &[20, 21, 7, 0]),
            ],
            &[
                inst(Op::SelectionMerge, &[12, 0]),
                inst(Op::Switch, &[21, 12, 7, 0, 10, 8, 0, 11]),
                inst(Op::Label, &[10]),
                inst(Op::BeginInvocationInterlockEXT, &[]),
                inst(Op::EndInvocationInterlockEXT, &[]),
                inst(Op::Branch, &[12]),
                inst(Op::Label, &[11]),
                inst(Op::Branch, &[12]),
                inst(Op::Label, &[12]),
                inst(Op::Return, &[]),
            ],
        );
        let e = main_info(&m);
        assert_eq!(e.begin_count, 1);
        assert!(e.begin_in_divergent_control_flow);
    }

    /// %20 uint, %21 struct { uint } decorated `decoration`, %22 pointer `class` to it, %23 the
    /// variable, %24 pointer to the member, %25 constant 0; main stores 0 to the member.
    fn store_to_block(class: StorageClass, decoration: Decoration) -> EntryPointInfo {
        // (The decoration comes after the types here; facts are kept per <id>, so the analysis
        // does not depend on the layout order.)
        let w = fragment(
            &[
                inst(Op::Decorate, &[21, decoration.0]),
                inst(Op::TypeInt, &[20, 32, 0]),
                inst(Op::TypeStruct, &[21, 20]),
                inst(Op::TypePointer, &[22, class.0, 21]),
                inst(Op::Variable, &[22, 23, class.0]),
                inst(Op::TypePointer, &[24, class.0, 20]),
                inst(Op::Constant, &[20, 25, 0]),
            ],
            &[
                inst(Op::AccessChain, &[24, 26, 23, 25]),
                inst(Op::Store, &[26, 25]),
                inst(Op::Return, &[]),
            ],
        );
        main_info(&w)
    }

    #[test]
    fn storage_buffers_in_both_spellings_are_memory_uniform_buffers_are_not() {
        let sb = store_to_block(StorageClass::StorageBuffer, Decoration::Block);
        assert!(sb.writes_memory && sb.accesses_memory);
        // SPIR-V 1.0–1.2 storage buffers: Uniform storage class + BufferBlock.
        let legacy = store_to_block(StorageClass::Uniform, Decoration::BufferBlock);
        assert!(legacy.writes_memory && legacy.accesses_memory);
        let ubo = store_to_block(StorageClass::Uniform, Decoration::Block);
        assert!(!ubo.writes_memory && !ubo.accesses_memory);
        let private = store_to_block(StorageClass::Private, Decoration::Block);
        assert!(!private.writes_memory);
    }

    #[test]
    fn interlock_mode_is_per_entry_point_and_first_wins() {
        let mut m = fragment(&[], &[inst(Op::Return, &[])]);
        // A second interlock mode for %3 (malformed): the first declared stays.
        let extra = inst(Op::ExecutionMode, &[3, 5369]);
        let at = 5 + 2 + 3 + 5; // after Capability, MemoryModel, EntryPoint(5 words)
        m.splice(at + 3..at + 3, extra);
        let e = main_info(&m);
        assert_eq!(e.interlock.map(|m| m.name()), Some("pixel-ordered"));
    }
}
