//! Malformed modules give typed errors naming what and where; no input makes the analysis panic.

use proptest::prelude::*;
use shaders::corpus;
use shaders::spirv::module::MAX_ID_BOUND;
use shaders::spirv::{analyze, analyze_bytes, Op, SpirvError, MAGIC};

fn inst(op: Op, operands: &[u32]) -> Vec<u32> {
    let mut v = vec![((operands.len() as u32 + 1) << 16) | u32::from(op.0)];
    v.extend_from_slice(operands);
    v
}

fn module(bound: u32, body: &[Vec<u32>]) -> Vec<u32> {
    let mut w = vec![MAGIC, 0x0001_0500, 0, bound, 0];
    for i in body {
        w.extend_from_slice(i);
    }
    w
}

fn string(s: &str) -> Vec<u32> {
    let mut b = s.as_bytes().to_vec();
    b.push(0);
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// %1 void, %2 fn type, %3 main: a valid fragment shader with one block %4 and `body` inside it.
fn fragment(bound: u32, body: &[Vec<u32>]) -> Vec<u32> {
    let mut ep = vec![4, 3];
    ep.extend(string("main"));
    let mut v = vec![
        inst(Op::Capability, &[1]),
        inst(Op::MemoryModel, &[0, 1]),
        inst(Op::EntryPoint, &ep),
        inst(Op::ExecutionMode, &[3, 5366]),
        inst(Op::TypeVoid, &[1]),
        inst(Op::TypeFunction, &[2, 1]),
        inst(Op::Function, &[1, 3, 0, 2]),
        inst(Op::Label, &[4]),
    ];
    v.extend_from_slice(body);
    v.push(inst(Op::Return, &[]));
    v.push(inst(Op::FunctionEnd, &[]));
    module(bound, &v)
}

#[test]
fn the_minimal_module_analyses() {
    let m = fragment(
        10,
        &[
            inst(Op::BeginInvocationInterlockEXT, &[]),
            inst(Op::EndInvocationInterlockEXT, &[]),
        ],
    );
    let info = analyze(&m).unwrap();
    let e = &info.entry_points[0];
    assert_eq!(e.name, "main");
    assert_eq!(e.interlock.map(|m| m.name()), Some("pixel-ordered"));
    assert_eq!((e.begin_count, e.end_count), (1, 1));
    assert!(!e.begin_in_divergent_control_flow);
}

#[test]
fn header_problems() {
    assert_eq!(analyze(&[]), Err(SpirvError::HeaderTooShort { words: 0 }));
    assert_eq!(
        analyze(&[MAGIC, 0, 0]),
        Err(SpirvError::HeaderTooShort { words: 3 })
    );
    assert_eq!(
        analyze(&[0xdead_beef, 0, 0, 1, 0]),
        Err(SpirvError::BadMagic { found: 0xdead_beef })
    );
    assert_eq!(
        analyze_bytes(&[3, 2, 0x23, 7, 1, 2]),
        Err(SpirvError::ByteLengthNotWordMultiple { len: 6 })
    );
    assert_eq!(
        analyze(&[MAGIC, 0, 0, u32::MAX, 0]),
        Err(SpirvError::IdBoundTooLarge { bound: u32::MAX })
    );
    // The limit itself is legal, and costs nothing while unused.
    assert!(analyze(&[MAGIC, 0, 0, MAX_ID_BOUND, 0]).is_ok());
}

#[test]
fn stream_problems_name_the_word() {
    let mut m = fragment(10, &[]);
    let at = m.len() - 2; // the OpReturn
    m[at] = u32::from(Op::Return.0); // word count 0
    assert_eq!(
        analyze(&m),
        Err(SpirvError::ZeroWordCount {
            word: at,
            opcode: Op::Return
        })
    );
    let mut m = fragment(10, &[]);
    let last = m.len() - 1;
    m[last] = (9 << 16) | u32::from(Op::FunctionEnd.0);
    let e = analyze(&m).unwrap_err();
    assert_eq!(
        e,
        SpirvError::Truncated {
            word: last,
            opcode: Op::FunctionEnd,
            word_count: 9,
            remaining: 1
        }
    );
    assert_eq!(
        e.to_string(),
        format!("OpFunctionEnd at word {last} declares 9 words but only 1 remain in the module")
    );
}

#[test]
fn ids_at_or_above_the_bound_are_rejected() {
    // %3 = OpFunction needs bound > 4 for the label; bound 4 puts label %4 out of range.
    let e = analyze(&fragment(4, &[])).unwrap_err();
    assert!(
        matches!(e, SpirvError::IdOutOfBound { id: 4, bound: 4, opcode, .. } if opcode == Op::Label),
        "{e}"
    );
    // An operand <id> the analysis follows: OpStore to %99.
    let e = analyze(&fragment(10, &[inst(Op::Store, &[99, 1])])).unwrap_err();
    assert!(matches!(e, SpirvError::IdOutOfBound { id: 99, .. }), "{e}");
}

#[test]
fn structural_problems() {
    // Branch to something that is not a label of the function.
    let e = analyze(&fragment(
        10,
        &[inst(Op::Branch, &[2]), inst(Op::Label, &[5])],
    ))
    .unwrap_err();
    assert!(
        matches!(e, SpirvError::BadBranchTarget { target: 2, .. }),
        "{e}"
    );
    // Call of an undefined function.
    let e = analyze(&fragment(10, &[inst(Op::FunctionCall, &[1, 6, 7])])).unwrap_err();
    assert!(
        matches!(e, SpirvError::UndefinedFunction { id: 7, opcode, .. } if opcode == Op::FunctionCall),
        "{e}"
    );
    // Entry point naming a function that does not exist.
    let mut ep = vec![4, 8];
    ep.extend(string("main"));
    let e = analyze(&module(10, &[inst(Op::EntryPoint, &ep)])).unwrap_err();
    assert!(
        matches!(e, SpirvError::UndefinedFunction { id: 8, .. }),
        "{e}"
    );
    // A begin outside any function.
    let e = analyze(&module(10, &[inst(Op::BeginInvocationInterlockEXT, &[])])).unwrap_err();
    assert!(matches!(e, SpirvError::Misplaced { word: 5, .. }), "{e}");
    // Unterminated entry point name.
    let e = analyze(&module(10, &[inst(Op::EntryPoint, &[4, 3, 0x6e69_616d])])).unwrap_err();
    assert!(
        matches!(e, SpirvError::UnterminatedString { word: 5, .. }),
        "{e}"
    );
    // The module ends inside a function.
    let mut m = fragment(10, &[]);
    m.pop();
    assert!(matches!(
        analyze(&m),
        Err(SpirvError::Misplaced { opcode, .. }) if opcode == Op::FunctionEnd
    ));
}

fn corpus_words() -> Vec<Vec<u32>> {
    corpus::all().iter().map(|s| s.words()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_words_never_panic(words in proptest::collection::vec(any::<u32>(), 0..64), bound in 0u32..64) {
        let _ = analyze(&words);
        let mut m = vec![MAGIC, 0x0001_0500, 0, bound, 0];
        m.extend_from_slice(&words);
        let _ = analyze(&m);
    }

    #[test]
    fn random_instruction_streams_never_panic(
        insts in proptest::collection::vec(
            (prop::sample::select(vec![
                5u16, 15, 16, 17, 19, 21, 25, 28, 29, 32, 33, 54, 55, 56, 57, 59, 61, 62, 63, 65,
                71, 72, 98, 99, 227, 228, 234, 247, 248, 249, 250, 251, 252, 253, 254, 255,
                4416, 5364, 5365, 5366,
            ]), proptest::collection::vec(0u32..24, 0..6)),
            0..48),
    ) {
        let body: Vec<Vec<u32>> = insts.iter().map(|(op, ops)| inst(Op(*op), ops)).collect();
        let _ = analyze(&module(24, &body));
        let _ = analyze(&fragment(24, &body));
    }

    #[test]
    fn mutated_corpus_modules_never_panic(
        which in any::<prop::sample::Index>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u32>(), 0u8..4), 1..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let all = corpus_words();
        let mut m = all[which.index(all.len())].clone();
        for (at, value, how) in edits {
            let i = at.index(m.len());
            m[i] = match how {
                0 => value,
                1 => m[i] ^ (1 << (value % 32)),
                2 => (m[i] & 0xffff) | ((value % 8) << 16),
                _ => m[i].wrapping_add(value % 5),
            };
        }
        let _ = analyze(&m);
        let truncated = &m[..cut.index(m.len() + 1)];
        let _ = analyze(truncated);
        let bytes: Vec<u8> = m.iter().flat_map(|w| w.to_le_bytes()).collect();
        let _ = analyze_bytes(&bytes[..cut.index(bytes.len() + 1)]);
    }
}
