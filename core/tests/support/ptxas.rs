//! `ptxas -arch=sm_80` on a kernel's text, for the tests that run kernels of loops with threads
//! (`kernels.rs`, `conventions.rs`): the one scripts/setup.sh installs, or `PTXAS`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn ptxas() -> PathBuf {
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

/// Fails the test, with ptxas's message, when ptxas rejects `text`.
pub fn ptxas_accepts(name: &str, text: &str) {
    let dir = std::env::temp_dir().join(format!("stagecraft-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(format!("{name}.ptx"));
    std::fs::write(&f, text).unwrap();
    let out = Command::new(ptxas())
        .arg("-arch=sm_80")
        .arg(&f)
        .arg("-o")
        .arg(dir.join(format!("{name}.o")))
        .output()
        .expect("ptxas runs (scripts/setup.sh installs it)");
    assert!(
        out.status.success(),
        "ptxas rejects {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
