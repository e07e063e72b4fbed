//! The step's promise of the same bits on every platform rests on one rule: the library
//! calls no function of the platform's math library (whose last bits differ between C
//! libraries and CPUs), only IEEE operations (+ - * / sqrt, correctly rounded everywhere)
//! and the crate's own `wgpu_sat::math`. This test reads the library's source and finds
//! every call that would break the rule, outside `src/math.rs` and the unit tests.

use std::path::{Path, PathBuf};

/// Calls that reach the platform's math library (directly or through glam).
const PLATFORM_CALLS: [&str; 20] = [
    ".sin()",
    ".cos()",
    ".tan()",
    ".sin_cos()",
    ".asin()",
    ".acos()",
    ".atan()",
    ".atan2(",
    ".sinh()",
    ".cosh()",
    ".tanh()",
    ".exp()",
    ".exp2()",
    ".exp_m1()",
    ".ln()",
    ".log(",
    ".log2()",
    ".log10()",
    ".powf(",
    ".hypot(",
];

/// glam's functions that call the platform's sine, cosine or arctangent.
const GLAM_CALLS: [&str; 5] = [
    "from_angle(",
    ".to_angle()",
    ".angle_to(",
    ".angle_between(",
    "Mat2::from_scale_angle(",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of `text` before its unit-test module, without comments.
fn library_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, line)| line.trim() != "#[cfg(test)]")
        .map(|(i, line)| (i + 1, line.split("//").next().unwrap_or("")))
}

/// Every use of a platform math function in the library's source, as "file:line: call".
fn platform_math_calls(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let own = file.ends_with("math.rs") && file.parent() == Some(src);
        if own {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a source file is readable");
        for (number, code) in library_lines(&text) {
            for call in PLATFORM_CALLS.iter().chain(&GLAM_CALLS) {
                // `math::from_angle(` is ours.
                let ours = code.contains(&format!("math::{}", call.trim_start_matches('.')));
                if code.contains(call) && !ours {
                    found.push(format!("{}:{number}: {call}", file.display()));
                }
            }
        }
    }
    found
}

#[test]
fn the_library_calls_no_platform_math_function() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = platform_math_calls(&src);
    assert!(
        found.is_empty(),
        "platform math calls (use wgpu_sat::math instead):\n{}",
        found.join("\n")
    );
}

/// The scan finds what it looks for: a planted call in a copy of a source file is reported.
#[test]
fn the_scan_finds_a_planted_call() {
    let dir = std::env::temp_dir().join(format!("wgpu_sat_platform_math_{}", std::process::id()));
    std::fs::create_dir_all(dir.join("world")).expect("a temporary directory");
    std::fs::write(
        dir.join("world").join("planted.rs"),
        "fn turn(a: f32) -> f32 {\n    let (s, c) = a.sin_cos(); // a comment .cos()\n    s * c\n}\n\n#[cfg(test)]\nmod tests { fn t() { 1f32.exp(); } }\n",
    )
    .expect("a planted file");
    std::fs::write(dir.join("math.rs"), "fn own(a: f32) -> f32 { a.sin() }\n")
        .expect("the crate's own math file");
    let found = platform_math_calls(&dir);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ends_with("planted.rs:2: .sin_cos()"), "{found:?}");
}
