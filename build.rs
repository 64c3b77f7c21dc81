//! Embeds the built-in packs (`patterns/*.toml`) and check sets
//! (`patterns/checks/*.toml`) into the binary, whatever files are there.

use std::path::Path;

fn embed(dir: &Path, out: &mut String, name: &str) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
    files.sort();
    out.push_str(&format!("pub(crate) const {name}: &[(&str, &str)] = &[\n"));
    for f in files {
        println!("cargo:rerun-if-changed={}", f.display());
        let file = f.file_name().unwrap().to_string_lossy().into_owned();
        let abs = std::fs::canonicalize(&f).unwrap();
        out.push_str(&format!(
            "    ({file:?}, include_str!({:?})),\n",
            abs.display().to_string()
        ));
    }
    out.push_str("];\n");
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = String::new();
    embed(&root.join("patterns"), &mut out, "BUILTIN_PACKS");
    embed(&root.join("patterns/checks"), &mut out, "BUILTIN_CHECKS");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("builtin.rs");
    std::fs::write(dest, out).unwrap();
}
