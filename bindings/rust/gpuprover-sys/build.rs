// SPDX-License-Identifier: MIT OR Apache-2.0
//! Finds gpuprover (an installed one, or, with the `bundled` feature, one it
//! builds from the checkout), generates the FFI declarations from its
//! `gpuprover.h` with bindgen and links `libgpuprover`.
//!
//! Where the library comes from:
//!
//! - With the `bundled` feature: built from the checkout this crate lives in
//!   (the repository root, three directories above this file) with CMake
//!   through the `cmake` crate, and installed into `$OUT_DIR/gpuprover`;
//!   see `bundled` below for the options and the environment variables.
//!   `GPUPROVER_DIR` and pkg-config are not consulted.
//! - Otherwise `GPUPROVER_DIR`, if set: the install prefix
//!   (`<dir>/include/gpuprover.h` and `<dir>/lib{,64,/<multiarch>}/libgpuprover.*`).
//! - Otherwise `pkg-config gpuprover` (set `PKG_CONFIG_PATH` to
//!   `<prefix>/lib/pkgconfig` for a non-system prefix). `pkg-config` is run as
//!   a process, so the `pkg-config` crate is not needed.
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
#[cfg(not(feature = "bundled"))]
use std::process::Command;

struct Install {
    include_dir: PathBuf,
    lib_dir: PathBuf,
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // pkg-config matters to a bundled build too: CMake looks for gRPC with it.
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
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR is not set"));
    let install = find_library(&target_os, &out_dir);

    let header = install.include_dir.join("gpuprover.h");
    if !header.is_file() {
        fail(&format!("{} does not exist", header.display()));
    }
    // A bundled build watches the checkout's sources instead (the installed
    // copy is rewritten by every build).
    if !cfg!(feature = "bundled") {
        println!("cargo:rerun-if-changed={}", header.display());
    }

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

#[cfg(not(feature = "bundled"))]
fn find_library(target_os: &str, _out_dir: &Path) -> Install {
    match env::var_os("GPUPROVER_DIR") {
        Some(dir) if !dir.is_empty() => from_prefix(Path::new(&dir), target_os, "GPUPROVER_DIR"),
        _ => from_pkg_config(),
    }
}

#[cfg(feature = "bundled")]
fn find_library(target_os: &str, out_dir: &Path) -> Install {
    bundled::build(target_os, out_dir)
}

fn fail(msg: &str) -> ! {
    let hint = if cfg!(feature = "bundled") {
        "The `bundled` feature builds gpuprover from the checkout that contains this crate \
         (CMake 3.24+, a C++17 compiler, libmimalloc-dev, libdlpack-dev; nvcc for CUDA). \
         Without the feature, install gpuprover and point PKG_CONFIG_PATH or GPUPROVER_DIR at it."
    } else {
        "Install gpuprover (cmake --install), then either set PKG_CONFIG_PATH to \
         <prefix>/lib/pkgconfig or set GPUPROVER_DIR to the install prefix \
         (or enable the `bundled` feature to build it from the checkout)."
    };
    panic!("\ngpuprover-sys: {}\n{}\n", msg, hint);
}

fn library_names(target_os: &str) -> &'static [&'static str] {
    match target_os {
        "macos" | "ios" => &["libgpuprover.dylib"],
        "windows" => &["gpuprover.lib", "gpuprover.dll.lib"],
        _ => &["libgpuprover.so"],
    }
}

/// The install under `prefix`; `what` names it in errors (`GPUPROVER_DIR`).
fn from_prefix(prefix: &Path, target_os: &str, what: &str) -> Install {
    let prefix = prefix
        .canonicalize()
        .unwrap_or_else(|e| fail(&format!("{}={}: {}", what, prefix.display(), e)));
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
                "{}={}: no {} under its lib, lib64 or lib/<multiarch> directories",
                what,
                prefix.display(),
                names[0]
            ))
        });
    Install {
        include_dir: prefix.join("include"),
        lib_dir,
    }
}

#[cfg(not(feature = "bundled"))]
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

#[cfg(not(feature = "bundled"))]
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

/// The `bundled` feature: gpuprover built from the checkout with CMake, the
/// way `cmake -S <checkout> -DCMAKE_BUILD_TYPE=Release -DGP_BUILD_TESTS=OFF
/// -DGP_BUILD_BENCH=OFF -DGP_ENABLE_REMOTE=OFF && cmake --install` would,
/// into `$OUT_DIR/gpuprover` (build tree `$OUT_DIR/gpuprover/build`, kept and
/// rebuilt incrementally). The environment may change the configuration:
///
/// - `GPUPROVER_CUDA`: `auto` (the default: CMake's own default,
///   `GP_ENABLE_CUDA=ON`, which builds the CUDA backend when it finds nvcc),
///   `ON` (the same, and fail when the result has no CUDA backend) or `OFF`
///   (CPU backend only).
/// - `CUDA_ARCHS`: the CUDA architectures, read by the top-level
///   CMakeLists.txt from the environment of CMake (`90`, `89,90`, `89;90`;
///   its default is 90). It is left in the environment rather than passed as
///   `-DCUDA_ARCHS`, which CMake would keep in its cache after the variable
///   is unset.
/// - `GPUPROVER_REMOTE`: `ON` builds the remote backend and gpuprover-server
///   (needs gRPC and protobuf; fails without them); default `OFF`.
///
/// Which backends the configuration has is read back from CMake's file API
/// (the sources of the `gp_objs` target) and exported as
/// `DEP_GPUPROVER_CUDA` and `DEP_GPUPROVER_REMOTE` (`ON` or `OFF`).
#[cfg(feature = "bundled")]
mod bundled {
    use super::{fail, from_prefix, Install};
    use std::env;
    use std::fs;
    use std::path::{Path, PathBuf};

    /// What the build script sees of the checkout; each path, relative to the
    /// repository root, is watched (cargo scans directories recursively).
    const INPUTS: &[&str] = &[
        "CMakeLists.txt",
        "cmake",
        "include",
        "src",
        "kernels",
        "pkgconfig",
        "proto",
        "examples/demo.c",
    ];

    /// Environment variables that change the configuration or the tools.
    const ENV: &[&str] = &[
        "GPUPROVER_CUDA",
        "GPUPROVER_REMOTE",
        "CUDA_ARCHS",
        "CMAKE",
        "CMAKE_GENERATOR",
        "CMAKE_PREFIX_PATH",
        "CMAKE_TOOLCHAIN_FILE",
        "CC",
        "CXX",
        "CFLAGS",
        "CXXFLAGS",
        "CUDACXX",
        "CUDAFLAGS",
    ];

    pub fn build(target_os: &str, out_dir: &Path) -> Install {
        let root = checkout_root();
        for var in ENV {
            println!("cargo:rerun-if-env-changed={}", var);
        }
        for input in INPUTS {
            let path = root.join(input);
            if path.exists() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
        if env::var_os("GPUPROVER_DIR").map_or(false, |d| !d.is_empty()) {
            println!(
                "cargo:warning=gpuprover-sys: GPUPROVER_DIR is ignored: the `bundled` feature \
                 builds the library from {}",
                root.display()
            );
        }

        let cuda = switch("GPUPROVER_CUDA", true);
        let remote = switch("GPUPROVER_REMOTE", false).unwrap_or(false);

        let prefix = out_dir.join("gpuprover");
        let build_dir = prefix.join("build");
        // Ask CMake's file API for the code model, to read back which
        // backends were configured. CMake replaces the reply at every
        // configure, which the cmake crate runs at every build.
        let query = build_dir.join(".cmake/api/v1/query");
        fs::create_dir_all(&query)
            .and_then(|_| fs::write(query.join("codemodel-v2"), b""))
            .unwrap_or_else(|e| fail(&format!("cannot write {}: {}", query.display(), e)));

        let mut config = cmake::Config::new(&root);
        config
            .out_dir(&prefix)
            .profile("Release")
            .define("GP_BUILD_TESTS", "OFF")
            .define("GP_BUILD_BENCH", "OFF")
            .define("GP_BUILD_FUZZ", "OFF")
            .define("GP_ENABLE_REMOTE", on_off(remote))
            // auto and ON are both GP_ENABLE_CUDA=ON (CUDA when nvcc is
            // found); passed either way so that an earlier OFF in the cache
            // does not stick.
            .define("GP_ENABLE_CUDA", on_off(cuda != Some(false)))
            // <prefix>/lib whatever GNUInstallDirs would choose (lib64).
            .define("CMAKE_INSTALL_LIBDIR", "lib");
        if let Ok(archs) = env::var("CUDA_ARCHS") {
            config.env("CUDA_ARCHS", archs);
        }
        let dst = config.build();

        let sources = configured_sources(&build_dir);
        let has = |file: &str| sources.as_deref().map(|s| s.contains(file));
        let built_cuda = has("\"src/cuda/cuda_context.cu\"");
        let built_remote = has("\"src/remote/remote_backend.cpp\"");
        match built_cuda {
            Some(on) => println!("cargo:cuda={}", on_off(on)),
            None => println!(
                "cargo:warning=gpuprover-sys: no CMake file-API reply in {}; cannot tell \
                 which backends were built",
                build_dir.display()
            ),
        }
        if let Some(on) = built_remote {
            println!("cargo:remote={}", on_off(on));
        }
        if cuda == Some(true) && built_cuda == Some(false) {
            fail(
                "GPUPROVER_CUDA=ON, but CMake configured gpuprover without its CUDA backend \
                 (no usable nvcc: put it on PATH or in /usr/local/cuda/bin, or set \
                 GPUPROVER_CUDA=OFF for a CPU-only library)",
            );
        }
        if remote && built_remote == Some(false) {
            fail(
                "GPUPROVER_REMOTE=ON, but CMake found no gRPC/protobuf \
                 (apt-get install libgrpc++-dev protobuf-compiler-grpc)",
            );
        }

        from_prefix(&dst, target_os, "the bundled install")
    }

    /// The repository root: three directories above this crate's manifest
    /// (`<root>/bindings/rust/gpuprover-sys`), checked to be gpuprover's.
    fn checkout_root() -> PathBuf {
        let manifest_dir = PathBuf::from(
            env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR is not set"),
        );
        let guess = manifest_dir.join("../../..");
        let root = guess.canonicalize().unwrap_or(guess);
        let is_checkout = fs::read_to_string(root.join("CMakeLists.txt"))
            .map_or(false, |text| text.contains("project(gpuprover "))
            && root.join("include/gpuprover.h").is_file()
            && root.join("src").is_dir();
        if !is_checkout {
            fail(&format!(
                "the `bundled` feature builds gpuprover from the checkout this crate lives in, \
                 but {} (three directories above {}) is not a gpuprover checkout. Depend on \
                 gpuprover-sys (or gpuprover) by path into a checkout, e.g. \
                 `gpuprover = {{ path = \"/path/to/gpuprover/bindings/rust/gpuprover\", \
                 features = [\"bundled\"] }}`, rather than on a copy of the crate",
                root.display(),
                manifest_dir.display()
            ));
        }
        root
    }

    /// `ON` / `OFF` (also 1/0, true/false, yes/no, any case) from `var`;
    /// `None` when it is unset, empty or (where `auto` is allowed) `auto`.
    fn switch(var: &str, auto: bool) -> Option<bool> {
        let value = env::var(var).unwrap_or_default();
        match value.trim().to_ascii_lowercase().as_str() {
            "" => None,
            "auto" if auto => None,
            "on" | "1" | "true" | "yes" => Some(true),
            "off" | "0" | "false" | "no" => Some(false),
            _ => fail(&format!(
                "{}={:?}: expected ON or OFF{}",
                var,
                value,
                if auto { " or auto" } else { "" }
            )),
        }
    }

    fn on_off(on: bool) -> &'static str {
        if on {
            "ON"
        } else {
            "OFF"
        }
    }

    /// The text of the file-API reply for the `gp_objs` target (its source
    /// list names the backends' files), if there is one.
    fn configured_sources(build_dir: &Path) -> Option<String> {
        let reply = build_dir.join(".cmake/api/v1/reply");
        fs::read_dir(reply)
            .ok()?
            .filter_map(|e| e.ok())
            .find(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("target-gp_objs-")
            })
            .and_then(|e| fs::read_to_string(e.path()).ok())
    }
}
