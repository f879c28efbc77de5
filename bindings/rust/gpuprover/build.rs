// SPDX-License-Identifier: MIT OR Apache-2.0
//! Gives this crate's integration tests and examples an rpath to the directory
//! of libgpuprover, so they run without LD_LIBRARY_PATH. gpuprover-sys
//! exports the directory as DEP_GPUPROVER_LIBDIR (its `links = "gpuprover"`
//! metadata); link arguments themselves do not propagate between crates.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_GPUPROVER_LIBDIR");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if let Ok(dir) = std::env::var("DEP_GPUPROVER_LIBDIR") {
        if target_os != "windows" {
            // Only the target kinds this package has: cargo rejects
            // rustc-link-arg-benches without such targets.
            println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{}", dir);
            println!("cargo:rustc-link-arg-examples=-Wl,-rpath,{}", dir);
        }
    }
}
