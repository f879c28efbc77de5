// SPDX-License-Identifier: MIT OR Apache-2.0
//! Finds an installed gpuprover, generates the FFI declarations from its
//! `gpuprover.h` with bindgen and links `libgpuprover`.
//!
//! Where the library is looked up:
//!
//! 1. `GPUPROVER_DIR`, if set: the install prefix (`<dir>/include/gpuprover.h`
//!    and `<dir>/lib{,64,/<multiarch>}/libgpuprover.*`).
//! 2. Otherwise `pkg-config gpuprover` (set `PKG_CONFIG_PATH` to
//!    `<prefix>/lib/pkgconfig` for a non-system prefix). `pkg-config` is run as
//!    a process, so the `pkg-config` crate is not needed.
//!
//! Besides linking, the build script
//!
//! - adds an rpath to the library directory to this crate's own tests, and
//!   exports the directory as `DEP_GPUPROVER_LIBDIR` (and the include
//!   directory as `DEP_GPUPROVER_INCLUDE`) to the build scripts of crates that
//!   depend on this one directly, so that they can do the same;
//! - links the library's runtime files into `$OUT_DIR/runtime` and adds that
//!   directory to the link search path. Cargo puts search paths that lie
//!   inside the target directory on the dynamic-library path of `cargo run`
//!   and `cargo test`, so binaries of every crate that depends on this one
//!   find the library when started through cargo, without `LD_LIBRARY_PATH`.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Install {
    include_dir: PathBuf,
    lib_dir: PathBuf,
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for var in [
        "GPUPROVER_DIR",
        "PKG_CONFIG",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG_LIBDIR",
        "PKG_CONFIG_SYSROOT_DIR",
    ] {
        println!("cargo:rerun-if-env-changed={}", var);
    }

    let target_os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let install = match env::var_os("GPUPROVER_DIR") {
        Some(dir) if !dir.is_empty() => from_prefix(Path::new(&dir), &target_os),
        _ => from_pkg_config(),
    };

    let header = install.include_dir.join("gpuprover.h");
    if !header.is_file() {
        fail(&format!("{} does not exist", header.display()));
    }
    println!("cargo:rerun-if-changed={}", header.display());

    // Link the shared library, and tell dependents where it is.
    let lib_dir = install.lib_dir.display().to_string();
    println!("cargo:rustc-link-search=native={}", lib_dir);
    println!("cargo:rustc-link-lib=dylib=gpuprover");
    println!("cargo:libdir={}", lib_dir);
    println!("cargo:include={}", install.include_dir.display());
    // rpath for this crate's own test binaries (link args do not propagate
    // to dependents; they use DEP_GPUPROVER_LIBDIR for that).
    if target_os != "windows" {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir);
    }

    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR is not set"));
    link_runtime_dir(&install.lib_dir, &out_dir.join("runtime"));

    let bindings = bindgen::Builder::default()
        .header(header.display().to_string())
        .clang_arg(format!("-I{}", install.include_dir.display()))
        .allowlist_function("gp_.*")
        .allowlist_type("gp_.*")
        .allowlist_var("GP_.*")
        .size_t_is_usize(true)
        // C enums become `#[repr(transparent)]` newtypes with associated
        // constants: any value the library returns is a valid Rust value.
        .default_enum_style(bindgen::EnumVariation::NewType { is_bitfield: false })
        // bindgen 0.60's layout tests dereference null pointers, which newer
        // compilers reject; tests/layout.rs checks the sizes instead.
        .layout_tests(false)
        .derive_default(true)
        .parse_callbacks(Box::new(bindgen::CargoCallbacks))
        .generate()
        .unwrap_or_else(|e| fail(&format!("bindgen failed on {}: {:?}", header.display(), e)));
    bindings
        .write_to_file(out_dir.join("bindings.rs"))
        .unwrap_or_else(|e| fail(&format!("cannot write bindings.rs: {}", e)));
}

fn fail(msg: &str) -> ! {
    panic!(
        "\ngpuprover-sys: {}\n\
         Install gpuprover (cmake --install), then either set PKG_CONFIG_PATH to \
         <prefix>/lib/pkgconfig or set GPUPROVER_DIR to the install prefix.\n",
        msg
    );
}

fn library_names(target_os: &str) -> &'static [&'static str] {
    match target_os {
        "macos" | "ios" => &["libgpuprover.dylib"],
        "windows" => &["gpuprover.lib", "gpuprover.dll.lib"],
        _ => &["libgpuprover.so"],
    }
}

fn from_prefix(prefix: &Path, target_os: &str) -> Install {
    let prefix = prefix
        .canonicalize()
        .unwrap_or_else(|e| fail(&format!("GPUPROVER_DIR={}: {}", prefix.display(), e)));
    let mut candidates = vec![prefix.join("lib"), prefix.join("lib64")];
    // Debian-style multiarch directories, e.g. lib/x86_64-linux-gnu.
    if let Ok(entries) = fs::read_dir(prefix.join("lib")) {
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        candidates.extend(dirs);
    }
    let names = library_names(target_os);
    let lib_dir = candidates
        .into_iter()
        .find(|d| names.iter().any(|n| d.join(n).exists()))
        .unwrap_or_else(|| {
            fail(&format!(
                "GPUPROVER_DIR={}: no {} under its lib, lib64 or lib/<multiarch> directories",
                prefix.display(),
                names[0]
            ))
        });
    Install {
        include_dir: prefix.join("include"),
        lib_dir,
    }
}

fn pkg_config_variable(pkg_config: &str, variable: &str) -> String {
    let output = Command::new(pkg_config)
        .arg(format!("--variable={}", variable))
        .arg("gpuprover")
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot run `{}`: {}", pkg_config, e)));
    if !output.status.success() {
        fail(&format!(
            "`{} --variable={} gpuprover` failed: {}",
            pkg_config,
            variable,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let value = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if value.is_empty() {
        fail(&format!("gpuprover.pc does not define `{}`", variable));
    }
    value
}

fn from_pkg_config() -> Install {
    let pkg_config = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_string());
    let found = Command::new(&pkg_config)
        .args(["--print-errors", "--modversion", "gpuprover"])
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot run `{}`: {}", pkg_config, e)));
    if !found.status.success() {
        fail(&format!(
            "`{} gpuprover` failed: {}",
            pkg_config,
            String::from_utf8_lossy(&found.stderr).trim()
        ));
    }
    Install {
        include_dir: PathBuf::from(pkg_config_variable(&pkg_config, "includedir")),
        lib_dir: PathBuf::from(pkg_config_variable(&pkg_config, "libdir")),
    }
}

/// Symlinks (or, where that fails, copies) `libgpuprover.*` from `lib_dir`
/// into `runtime_dir` and adds `runtime_dir` to the link search path; see the
/// comment at the top of this file.
fn link_runtime_dir(lib_dir: &Path, runtime_dir: &Path) {
    let _ = fs::remove_dir_all(runtime_dir);
    if fs::create_dir_all(runtime_dir).is_err() {
        return;
    }
    let entries = match fs::read_dir(lib_dir) {
        Ok(entries) => entries,
        Err(_) => return,
    };
    for entry in entries.filter_map(|e| e.ok()) {
        let name = entry.file_name();
        let name_str = name.to_string_lossy();
        if !(name_str.starts_with("libgpuprover.") || name_str.starts_with("gpuprover.")) {
            continue;
        }
        let src = entry.path();
        let dst = runtime_dir.join(&name);
        #[cfg(unix)]
        let linked = std::os::unix::fs::symlink(&src, &dst).is_ok();
        #[cfg(not(unix))]
        let linked = false;
        if !linked {
            let _ = fs::copy(&src, &dst);
        }
    }
    println!("cargo:rustc-link-search=native={}", runtime_dir.display());
}
