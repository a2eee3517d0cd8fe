//! Emitted code is judged by the real tools: every example and golden case, and 200 random valid
//! schedules, through ptxas (sm_80, sm_90a), llvm-mc-22 (gfx942, gfx950) and llvm-as-22 + opt-22 (IR).
//! The tools come from scripts/setup.sh; a missing tool fails the test with that instruction.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::emit::{emit, EmitOptions, Target};
use stagecraft::explore::{explore, Options};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn ptxas() -> PathBuf {
    if let Ok(p) = std::env::var("PTXAS") {
        return PathBuf::from(p);
    }
    for venv in [root().join(".tools/venv"), PathBuf::from("/work/.venv-ptx")] {
        if let Ok(entries) = std::fs::read_dir(venv.join("lib")) {
            for e in entries.flatten() {
                let p = e.path().join("site-packages/nvidia/cuda_nvcc/bin/ptxas");
                if p.exists() {
                    return p;
                }
            }
        }
    }
    PathBuf::from("ptxas")
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    match cmd.output() {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "{what} rejected it:\n{}",
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .take(6)
                .collect::<Vec<_>>()
                .join("\n")
        )),
        Err(e) => panic!("{what} could not run ({e}); run scripts/setup.sh to install the judges"),
    }
}

/// Judges one source; returns how many outputs were accepted.
fn judge(name: &str, source: &str, dir: &Path) -> Result<usize, String> {
    let ex = explore(
        source,
        &Options {
            verify: false,
            timeline: false,
            targets: Vec::new(),
            ..Options::default()
        },
    );
    let programs = ex
        .programs
        .as_ref()
        .ok_or_else(|| format!("{name}: not a valid schedule"))?;
    let mut accepted = 0;
    for target in Target::ALL {
        let out = emit(
            programs.peeled.as_ref().ok_or("no peeled program")?,
            &programs.params,
            target,
            &EmitOptions::default(),
        );
        if let Some(e) = &out.error {
            return Err(format!("{name} ({}): {e}", target.name()));
        }
        let file = dir.join(format!("{name}.{}", target.name()));
        std::fs::write(&file, &out.text).unwrap();
        let f = file.to_str().unwrap();
        let o = format!("{f}.o");
        let result = match target {
            Target::Ptx => run(
                Command::new(ptxas()).args(["-arch=sm_80", f, "-o", &o]),
                "ptxas (sm_80)",
            ),
            Target::PtxSm90 => run(
                Command::new(ptxas()).args(["-arch=sm_90a", f, "-o", &o]),
                "ptxas (sm_90a)",
            ),
            Target::Amdgpu => run(
                Command::new("llvm-mc-22").args([
                    "-triple=amdgcn-amd-amdhsa",
                    "-mcpu=gfx942",
                    "-filetype=obj",
                    f,
                    "-o",
                    &o,
                ]),
                "llvm-mc-22 (gfx942)",
            ),
            Target::AmdgpuGfx950 => run(
                Command::new("llvm-mc-22").args([
                    "-triple=amdgcn-amd-amdhsa",
                    "-mcpu=gfx950",
                    "-filetype=obj",
                    f,
                    "-o",
                    &o,
                ]),
                "llvm-mc-22 (gfx950)",
            ),
            Target::AmdgpuIr => run(Command::new("llvm-as-22").args([f, "-o", &o]), "llvm-as-22")
                .and_then(|()| {
                    run(
                        Command::new("opt-22").args(["-passes=verify", &o, "-o", "/dev/null"]),
                        "opt-22 -passes=verify",
                    )
                }),
        };
        result.map_err(|e| {
            format!(
                "{name} ({}): {e}\n{}",
                target.name(),
                out.text.lines().take(3).collect::<Vec<_>>().join("\n")
            )
        })?;
        accepted += 1;
    }
    Ok(accepted)
}

/// A case whose emitted kernel is a refusal (`# error: …` in its golden, which emit_golden keeps
/// current): there is no kernel to judge.
fn refused_to_emit(name: &str) -> bool {
    Target::ALL.iter().any(|t| {
        std::fs::read_to_string(root().join(format!("tests/emit/{name}.{}", t.name())))
            .is_ok_and(|text| text.starts_with("# error:"))
    })
}

/// Only what the transform needs: is this a valid schedule?
fn accepted_schedule(source: &str) -> bool {
    explore(
        source,
        &Options {
            verify: false,
            timeline: false,
            targets: Vec::new(),
            ..Options::default()
        },
    )
    .ok
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("stagecraft-judges-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn every_example_and_golden_case_is_accepted_by_the_assemblers() {
    let dir = scratch("cases");
    let mut accepted = 0;
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.extend(
        std::fs::read_dir(root().join("tests/cases"))
            .unwrap()
            .map(|e| e.unwrap().path()),
    );
    for f in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
    {
        let source = std::fs::read_to_string(f).unwrap();
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        if !accepted_schedule(&source) || refused_to_emit(&name) {
            continue;
        }
        accepted += judge(&name, &source, &dir).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(
        accepted >= Target::ALL.len() * 15,
        "only {accepted} outputs judged"
    );
}

/// A deterministic stream of random valid schedules over copy / compute statement templates.
fn random_schedule(seed: u64) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n.max(1)
    };
    let n = 1 + next(6) as usize;
    let mut s = String::new();
    let mut stages = Vec::new();
    let mut body = String::new();
    for k in 0..n {
        let kind = next(3);
        let prev_stage = stages.last().copied().unwrap_or(0);
        let stage = prev_stage + next(3) as i64;
        stages.push(stage);
        match (kind, k) {
            (0, _) | (_, 0) => {
                s.push_str(&format!("S{k} = alloc([2], scope=\"shared\")\n"));
                body.push_str(&format!(
                    "    for t in range(2):\n        S{k}[t] = A{k}[2 * i + t]\n"
                ));
            }
            (1, _) => {
                s.push_str(&format!("S{k} = alloc([2], scope=\"local\")\n"));
                body.push_str(&format!(
                    "    for t in range(2):\n        S{k}[t] = S{}[t] * 2 + {k}\n",
                    k - 1
                ));
            }
            _ => {
                s.push_str(&format!("S{k} = alloc([2], scope=\"shared\")\n"));
                body.push_str(&format!(
                    "    S{k}[0] = max(S{0}[0], S{0}[1])\n    S{k}[1] = fma(S{0}[0], 3, S{0}[1])\n",
                    k - 1
                ));
                stages.push(stage);
            }
        }
    }
    let extent = 1 + next(20);
    let m = stages.len();
    let list = |v: &[i64]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let asyncs: Vec<i64> = (0..=stages.iter().copied().max().unwrap_or(0))
        .filter(|_| next(2) == 0)
        .collect();
    format!(
        "{s}for i in range({extent}):\n{body}    O[i] = S{}[0]\nsch.annotate(i, \"software_pipeline_stage\", [{}, {}])\nsch.annotate(i, \"software_pipeline_order\", [{}])\nsch.annotate(i, \"software_pipeline_async_stages\", [{}])\n",
        n - 1,
        list(&stages),
        stages.last().copied().unwrap_or(0),
        list(&(0..=m as i64).collect::<Vec<_>>()),
        list(&asyncs)
    )
}

#[test]
fn two_hundred_random_schedules_are_accepted_by_the_assemblers() {
    let dir = scratch("random");
    let mut schedules = 0;
    let mut accepted = 0;
    let mut seed = 0;
    while schedules < 200 && seed < 5000 {
        seed += 1;
        let source = random_schedule(seed);
        if !accepted_schedule(&source) {
            continue;
        }
        schedules += 1;
        accepted += judge(&format!("random{seed}"), &source, &dir)
            .unwrap_or_else(|e| panic!("{e}\n{source}"));
    }
    assert_eq!(
        schedules, 200,
        "the generator should yield 200 valid schedules"
    );
    assert_eq!(accepted, 200 * Target::ALL.len());
}
