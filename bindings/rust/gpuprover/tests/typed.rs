// SPDX-License-Identifier: MIT OR Apache-2.0
//! Fields as types: `FieldType` and the `*_typed` helpers.
mod common;

use common::*;
use gpuprover::{
    BabyBear, Buffer, Field, FieldType, FriOptions, Goldilocks, KoalaBear, Layout, LdeOptions,
    MerkleOptions, Status,
};

#[test]
fn field_types_match_the_library() {
    fn check<F: FieldType>() {
        let info = F::FIELD.info().unwrap();
        assert_eq!(info.modulus, F::MODULUS);
        assert_eq!(std::mem::size_of::<F::Repr>(), F::FIELD.element_size());
    }
    check::<Goldilocks>();
    check::<BabyBear>();
    check::<KoalaBear>();
}

#[test]
fn typed_buffers_round_trip() {
    let ctx = cpu();
    let gl = Rng::new(30).vec(8 * 2, GOLDILOCKS_P);
    let buf = Buffer::from_host_typed::<Goldilocks>(&ctx, 1, 8, 2, Layout::RowMajor, &gl).unwrap();
    assert_eq!(buf.field(), Field::Goldilocks);
    assert_eq!(
        buf.to_vec_typed::<Goldilocks>(Layout::RowMajor).unwrap(),
        gl
    );

    let bb: Vec<u32> = (0..16u32).map(|i| i * 1000 + 7).collect();
    let buf = Buffer::from_host_typed::<BabyBear>(&ctx, 4, 2, 2, Layout::ColMajor, &bb).unwrap();
    assert_eq!(buf.to_vec_typed::<BabyBear>(Layout::ColMajor).unwrap(), bb);
    // Same element size, another field: the typed accessor notices.
    let err = buf.to_vec_typed::<KoalaBear>(Layout::ColMajor).unwrap_err();
    assert_eq!(err.status(), Status::FieldMismatch, "{}", err);
    let err = buf
        .to_vec_typed::<Goldilocks>(Layout::ColMajor)
        .unwrap_err();
    assert_eq!(err.status(), Status::FieldMismatch, "{}", err);

    let zero = Buffer::new_typed::<KoalaBear>(&ctx, 1, 4, 1).unwrap();
    assert_eq!(
        zero.to_vec_typed::<KoalaBear>(Layout::ColMajor).unwrap(),
        vec![0u32; 4]
    );
    // A non-canonical KoalaBear value.
    let err = Buffer::from_host_typed::<KoalaBear>(
        &ctx,
        1,
        2,
        1,
        Layout::ColMajor,
        &[1, KoalaBear::MODULUS as u32],
    )
    .unwrap_err();
    assert_eq!(err.status(), Status::NonCanonical, "{}", err);
}

#[test]
fn typed_lde_tree_and_fri_equal_the_untyped_calls() {
    let ctx = cpu();
    let trace = Rng::new(31).vec(16 * 2, GOLDILOCKS_P);
    let options = LdeOptions::default();
    let mut a = Buffer::new_typed::<Goldilocks>(&ctx, 1, 32, 2).unwrap();
    let mut b = Buffer::new(&ctx, Field::Goldilocks, 1, 32, 2).unwrap();
    ctx.lde_host_typed::<Goldilocks>(1, &trace, 16, 2, &options, &mut a)
        .unwrap();
    ctx.lde_host(Field::Goldilocks, 1, &trace, 16, 2, &options, &mut b)
        .unwrap();
    let av = a.to_vec_typed::<Goldilocks>(Layout::ColMajor).unwrap();
    assert_eq!(av, b.to_vec::<u64>(Layout::ColMajor).unwrap());

    let tree = ctx.merkle_commit(&[&a], &MerkleOptions::default()).unwrap();
    let typed = tree.open_typed::<Goldilocks>(&[9]).unwrap();
    assert_eq!(typed, tree.open::<u64>(&[9]).unwrap());
    tree.verify(&typed[0]).unwrap();
    assert_eq!(
        tree.open_typed::<BabyBear>(&[9]).unwrap_err().status(),
        Status::FieldMismatch
    );

    let fri_options = FriOptions {
        final_size: 4,
        ..FriOptions::default()
    };
    let mut fri = ctx
        .fri_begin_host_typed::<Goldilocks>(1, &av[..32], &fri_options)
        .unwrap();
    while fri.folded() < fri.layer_count() {
        fri.fold(&[fri.folded() as u64 + 3]).unwrap();
    }
    assert_eq!(
        fri.remainder_typed::<Goldilocks>().unwrap(),
        fri.remainder::<u64>().unwrap()
    );
}
