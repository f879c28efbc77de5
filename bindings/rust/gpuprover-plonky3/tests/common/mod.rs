//! Configurations of the tests: the stock Plonky3 types and their
//! gpuprover counterparts, for each field and hash.
#![allow(dead_code)]

use gpuprover::{Backend, Context};

/// The context the tests run on: `GP_TEST_BACKEND=cuda` asks for CUDA (the
/// device runs), anything else the best backend present.
pub fn context() -> Context {
    match std::env::var("GP_TEST_BACKEND").as_deref() {
        Ok("cuda") => Context::with_backend(Backend::Cuda).expect("a CUDA context"),
        Ok("cpu") => Context::with_backend(Backend::Cpu).expect("a CPU context"),
        _ => Context::new().expect("a context"),
    }
}

/// A xorshift generator: fixed inputs without `rand`.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Changes the first number under `path` (object keys and array indices)
/// of a JSON document, keeping it a small valid value: what a forged
/// commitment or opening looks like to a verifier.
pub fn tamper(json: &str, path: &[&str]) -> String {
    let mut v: serde_json::Value = serde_json::from_str(json).expect("proof JSON");
    let mut at = &mut v;
    for key in path {
        at = match key.parse::<usize>() {
            Ok(i) => &mut at[i],
            Err(_) => &mut at[*key],
        };
    }
    assert!(bump_first_number(at), "no number under {path:?}");
    serde_json::to_string(&v).unwrap()
}

fn bump_first_number(v: &mut serde_json::Value) -> bool {
    match v {
        serde_json::Value::Number(n) => {
            let x = n.as_u64().expect("an unsigned number");
            *v = serde_json::Value::from(if x > 0 { x - 1 } else { 1 });
            true
        }
        serde_json::Value::Array(a) => a.iter_mut().any(bump_first_number),
        serde_json::Value::Object(o) => o.values_mut().any(bump_first_number),
        _ => false,
    }
}
