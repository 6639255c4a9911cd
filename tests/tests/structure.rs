//! The shape of the workspace's code, checked from its sources: no module of any crate imports
//! another that imports it back (directly or around a longer cycle), no subcommand of `pops`
//! imports another, the layer's functions stay short, and the layer's hooks reach the device's
//! state only through its stores (no lock is taken in a hook).
//!
//! A module's imports are the `crate::…` and `super::…` paths its file names outside comments
//! and string literals (in `use` items, groups included, and in expressions), each resolved to
//! the deepest module file of the crate it reaches.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// A crate's source roots: `src/` of every workspace member (binaries under `src/bin/<name>/`
/// are crates of their own).
fn crates() -> Vec<(String, PathBuf)> {
    let root = workspace();
    let mut out = Vec::new();
    for member in [
        "pm4", "shaders", "winsys", "draw", "report", "compare", "layer", "cli", "oit", "testkit",
        "tests",
    ] {
        let src = root.join(member).join("src");
        out.push((member.to_string(), src.clone()));
        if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
            for b in bins.flatten() {
                if b.path().is_dir() {
                    out.push((
                        format!("{member}/bin/{}", b.file_name().to_string_lossy()),
                        b.path(),
                    ));
                }
            }
        }
    }
    out
}

/// The module path of a file relative to its crate's source root (`a/b.rs` and `a/b/mod.rs`
/// are `a::b`; `lib.rs`, `main.rs` are the root).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs").to_string();
    let root = parts.is_empty() && matches!(stem.as_str(), "lib" | "main");
    if !root && stem != "mod" {
        parts.push(stem);
    }
    parts
}

/// The text of a Rust file with comments and string/char literals blanked out.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if b[i] == b'r'
            && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            // Raw string r"…" / r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            j += 1;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            i = j + close.len();
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && b.get(i + 2) == Some(&b'\'') {
            i += 3;
            out.push_str("' '");
        } else if b[i] == b'\'' && b.get(i + 1) == Some(&b'\\') {
            i += 2;
            while i < b.len() && b[i] != b'\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths a file's code names from `anchor` (`crate` or `super`), with `use` groups
/// expanded: `crate::a::{b, c::d}` gives `a::b` and `a::c::d`.
fn paths_after(code: &str, anchor: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let needle = format!("{anchor}::");
    let mut from = 0;
    while let Some(k) = code[from..].find(&needle) {
        let start = from + k;
        from = start + needle.len();
        if start > 0 && code[..start].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        expand(&code[from..], Vec::new(), &mut out);
    }
    out
}

/// Expands one path (and its groups) starting at `s`, prefixed by `prefix`.
fn expand(s: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    let mut rest = s.trim_start();
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut end = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let inner = &group[..end];
            let mut depth = 0;
            let mut item_start = 0;
            for (i, c) in inner
                .char_indices()
                .chain(std::iter::once((inner.len(), ',')))
            {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        let item = inner[item_start..i].trim();
                        if !item.is_empty() && item != "self" {
                            expand(item, path.clone(), out);
                        }
                        item_start = i + 1;
                    }
                    _ => {}
                }
            }
            out.push(path);
            return;
        }
        let ident: String = rest.chars().take_while(|c| is_ident(*c)).collect();
        if ident.is_empty() {
            break;
        }
        path.push(ident.clone());
        rest = &rest[ident.len()..];
        match rest.strip_prefix("::") {
            Some(r) => rest = r.trim_start(),
            None => break,
        }
    }
    out.push(path);
}

/// The import graph of one crate: module file → the module files it names.
fn graph(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut modules: BTreeMap<Vec<String>, PathBuf> = BTreeMap::new();
    for f in &files {
        let rel = f.strip_prefix(src).expect("under src");
        if rel.starts_with("bin") && src.file_name().is_some_and(|n| n == "src") {
            continue;
        }
        modules.insert(module_of(rel), f.clone());
    }
    let deepest = |p: &[String]| -> Option<Vec<String>> {
        (1..=p.len())
            .rev()
            .map(|n| p[..n].to_vec())
            .find(|m| modules.contains_key(m))
    };
    let mut g = BTreeMap::new();
    for (m, f) in &modules {
        let code = code_only(&std::fs::read_to_string(f).expect("readable source"));
        let mut to = BTreeSet::new();
        for p in paths_after(&code, "crate") {
            if let Some(t) = deepest(&p) {
                to.insert(t);
            }
        }
        // `super::` from a file is its parent module (from a `mod.rs`, the directory's parent);
        // inline `mod tests { use super::*; }` blocks name the file itself.
        for p in paths_after(&code, "super") {
            let parent: Vec<String> = m[..m.len().saturating_sub(1)].to_vec();
            let full: Vec<String> = parent.iter().cloned().chain(p).collect();
            if let Some(t) = deepest(&full) {
                to.insert(t);
            }
        }
        to.remove(m);
        // A module's own ancestors are where it is declared, not imports.
        to.retain(|t| !m.starts_with(t));
        g.insert(m.clone(), to);
    }
    g
}

/// Strongly connected components of more than one module (Tarjan).
fn cycles(g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct T<'a> {
        g: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        on: BTreeSet<&'a Vec<String>>,
        stack: Vec<&'a Vec<String>>,
        next: usize,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a Vec<String>) {
        t.index.insert(v, t.next);
        t.low.insert(v, t.next);
        t.next += 1;
        t.stack.push(v);
        t.on.insert(v);
        for w in t.g.get(v).into_iter().flatten() {
            let Some((w, _)) = t.g.get_key_value(w) else {
                continue;
            };
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                scc.push(w.clone());
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                t.out.push(scc);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        on: BTreeSet::new(),
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let mut found = Vec::new();
    for (name, src) in crates() {
        let g = graph(&src);
        assert!(!g.is_empty(), "{name}: no sources under {}", src.display());
        for c in cycles(&g) {
            let names: Vec<String> = c.iter().map(|m| m.join("::")).collect();
            found.push(format!("{name}: {}", names.join(" <-> ")));
        }
    }
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

/// `pops`'s subcommands are thin front-ends: no `cmd_*` module imports another (what two of them
/// share lives in a module named for what it is, such as `launch` or `stream_input`).
#[test]
fn no_subcommand_imports_another() {
    let src = workspace().join("cli/src");
    let g = graph(&src);
    let cmd = |m: &Vec<String>| m.first().is_some_and(|n| n.starts_with("cmd_"));
    let found: Vec<String> = g
        .iter()
        .filter(|(m, _)| cmd(m))
        .flat_map(|(m, to)| {
            to.iter()
                .filter(|t| cmd(t))
                .map(move |t| format!("{} -> {}", m.join("::"), t.join("::")))
        })
        .collect();
    assert!(
        g.keys().filter(|m| cmd(m)).count() > 5,
        "no cmd_* modules found"
    );
    assert!(
        found.is_empty(),
        "subcommands importing each other:\n{}",
        found.join("\n")
    );
}

/// Each crate holds its own concern: `winsys` submits what it is given and decides no POPS state
/// (no `pm4::pops` derivation or driver table), and `report` describes documents without
/// emitting PM4.
#[test]
fn submission_and_report_crates_hold_no_pops_policy() {
    let mut files = Vec::new();
    for dir in ["winsys/src", "report/src"] {
        rust_files(&workspace().join(dir), &mut files);
    }
    assert!(files.len() > 5, "no sources found");
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        // The crate's own code; its unit tests may build fixtures with pm4::pops.
        let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        let code = code_only(text);
        // The policy functions of pm4::pops, called by name or by path.
        for name in [
            "derive",
            "derive_assuming",
            "emit",
            "emit_into",
            "every_mode",
            "interlock_findings",
            "out_of_order_rasterization",
            "device_features",
            "compare",
        ] {
            let called = code.match_indices(&format!("{name}(")).any(|(at, _)| {
                let before = code[..at].chars().next_back();
                !before.is_some_and(|c| is_ident(c) || c == '.' || c == '[')
            });
            if called {
                found.push(format!("{}: {name}(…)", f.display()));
            }
        }
        if code.contains("radv::TABLE") {
            found.push(format!("{}: radv::TABLE", f.display()));
        }
    }
    assert!(
        found.is_empty(),
        "POPS policy outside pm4 and its users:\n{}",
        found.join("\n")
    );
}

/// The checker finds what it must: a two-module cycle, one through a `use` group, one through
/// `super::`, and none where a path only sits in a comment or a string.
#[test]
fn the_cycle_checker_sees_groups_super_and_ignores_comments() {
    let dir = pops_testkit::scratch("structure");
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("m")).unwrap();
    let write = |p: &str, t: &str| std::fs::write(src.join(p), t).unwrap();
    write("lib.rs", "mod a; mod b; mod m;");
    write("a.rs", "use crate::{b::X, m::n};\n");
    write("b.rs", "pub fn f() { crate::a::g() }\n");
    write("m/mod.rs", "mod n; mod o;");
    write("m/n.rs", "use super::o::Y; // crate::a\n");
    write(
        "m/o.rs",
        "fn s() -> &'static str { \"crate::a\" } use super::n::Z;\n",
    );
    let g = graph(&src);
    let mut c: Vec<Vec<String>> = cycles(&g)
        .into_iter()
        .map(|c| {
            let mut n: Vec<String> = c.iter().map(|m| m.join("::")).collect();
            n.sort();
            n
        })
        .collect();
    c.sort();
    assert_eq!(
        c,
        vec![
            vec!["a".to_string(), "b".to_string()],
            vec!["m::n".to_string(), "m::o".to_string()]
        ]
    );
    assert!(!g[&vec!["m".to_string(), "n".to_string()]].contains(&vec!["a".to_string()]));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The functions of a file with their first line and length in lines (signature to closing
/// brace), found by brace matching on the code without comments and literals.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let Some(k) = t.find("fn ") else { continue };
        let head = &t[..k];
        if !head.split_whitespace().all(|w| {
            matches!(
                w,
                "pub" | "pub(crate)" | "unsafe" | "extern" | "\"\"" | "const" | "async"
            )
        }) {
            continue;
        }
        let name: String = t[k + 3..].chars().take_while(|c| is_ident(*c)).collect();
        if name.is_empty() {
            continue;
        }
        // From the signature to the matching close of the first body brace.
        let mut depth = 0i32;
        let mut opened = false;
        let mut end = None;
        'scan: for (j, line) in lines.iter().enumerate().skip(i) {
            for c in line.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => {
                        depth -= 1;
                        if opened && depth == 0 {
                            end = Some(j);
                            break 'scan;
                        }
                    }
                    ';' if !opened && depth == 0 => break 'scan,
                    _ => {}
                }
            }
        }
        if let Some(e) = end {
            out.push((name, i + 1, e - i + 1));
        }
    }
    out
}

/// The functions of `files` longer than `max` lines, as `file:line name: N lines` (files that
/// are not there, and generated ones, left out).
fn long_functions(files: &[PathBuf], max: usize) -> Vec<String> {
    let mut long = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        if text.contains("@generated") {
            continue;
        }
        for (name, line, len) in functions(&code_only(&text)) {
            if len > max {
                long.push(format!("{}:{line} {name}: {len} lines", f.display()));
            }
        }
    }
    long
}

/// Short functions, one concept each: none in the layer exceeds 100 lines.
#[test]
fn the_layers_functions_are_short() {
    const MAX: usize = 100;
    let mut files = Vec::new();
    for dir in ["layer/src", "layer-model/src"] {
        rust_files(&workspace().join(dir), &mut files);
    }
    let long = long_functions(&files, MAX);
    assert!(
        long.is_empty(),
        "functions over {MAX} lines:\n{}",
        long.join("\n")
    );
    // The counter counts: a 3-line function and a 120-line one.
    let body = "    x();\n".repeat(118);
    let text = format!("fn a() {{\n    b();\n}}\npub unsafe fn c(\n) {{\n{body}}}\n");
    assert_eq!(
        functions(&text),
        [("a".to_string(), 1, 3), ("c".to_string(), 4, 121)]
    );
}

/// No function anywhere in the workspace — product, tests, benchmarks, tools — exceeds 120 lines
/// (the layer's own bound is tighter, above). Generated tables are data, not functions to read,
/// and are left out: their generator is held to the bound.
#[test]
fn no_function_in_the_workspace_exceeds_120_lines() {
    const MAX: usize = 120;
    let root = workspace();
    let mut files = Vec::new();
    for member in [
        "pm4",
        "shaders",
        "winsys",
        "draw",
        "report",
        "compare",
        "layer",
        "layer-model",
        "cli",
        "oit",
        "testkit",
        "tests",
    ] {
        for dir in ["src", "tests", "benches", "examples"] {
            rust_files(&root.join(member).join(dir), &mut files);
        }
        files.push(root.join(member).join("build.rs"));
    }
    let long = long_functions(&files, MAX);
    assert!(
        long.is_empty(),
        "functions over {MAX} lines:\n{}",
        long.join("\n")
    );
}

/// The layer's hooks and entry points take no lock themselves: the device's state is reached
/// through its stores, whose methods own their locks.
#[test]
fn no_hook_takes_a_lock() {
    let src = workspace().join("layer/src");
    let mut files = vec![src.join("entry.rs")];
    rust_files(&src.join("hooks"), &mut files);
    let mut found = Vec::new();
    for f in files {
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        for (i, l) in code.lines().enumerate() {
            if l.contains(".lock()") || l.contains("Mutex") || l.contains("RwLock") {
                found.push(format!("{}:{}: {}", f.display(), i + 1, l.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "locks taken in hooks:\n{}",
        found.join("\n")
    );
}
