// SPDX-License-Identifier: MIT OR Apache-2.0
//! Smoke tests of the raw bindings: the generated declarations match the
//! library (struct sizes as the library's *_options_init functions see
//! them), and a few calls work through the FFI.
use gpuprover_sys::*;
use std::ffi::CStr;
use std::mem::size_of;
use std::ptr;

#[test]
fn version_matches_header() {
    let v = unsafe { CStr::from_ptr(gp_version()) }.to_str().unwrap();
    assert_eq!(
        v,
        format!(
            "{}.{}.{}",
            GP_VERSION_MAJOR, GP_VERSION_MINOR, GP_VERSION_PATCH
        )
    );
    let number = GP_VERSION_MAJOR * 10000 + GP_VERSION_MINOR * 100 + GP_VERSION_PATCH;
    assert_eq!(unsafe { gp_version_number() }, number);
}

#[test]
fn options_structs_have_the_c_size() {
    unsafe {
        let mut o: gp_lde_options = std::mem::zeroed();
        gp_lde_options_init(&mut o);
        assert_eq!(o.struct_size as usize, size_of::<gp_lde_options>());
        assert_eq!(o.blowup, 2);

        let mut o: gp_ntt_options = std::mem::zeroed();
        gp_ntt_options_init(&mut o);
        assert_eq!(o.struct_size as usize, size_of::<gp_ntt_options>());
        assert_eq!(o.direction, gp_ntt_direction::GP_NTT_FORWARD);

        let mut o: gp_context_options = std::mem::zeroed();
        gp_context_options_init(&mut o);
        assert_eq!(o.struct_size as usize, size_of::<gp_context_options>());
        assert_eq!(o.backend, gp_backend::GP_BACKEND_AUTO);
        // The remote fields, appended after cpu_threads.
        assert!(o.endpoint.is_null() && o.token_file.is_null());
        assert_eq!(o.priority, gp_priority::GP_PRIORITY_NORMAL);
        assert_eq!(o.force_cpu, 0);
        // uint32_t struct_size, enum backend, pointer devices, two uint32_t,
        // pointer endpoint, enum priority, uint32_t force_cpu, pointer
        // token_file: on LP64, 4 + 4 + 8 + 4 + 4 + 8 + 4 + 4 + 8.
        if size_of::<*const u8>() == 8 {
            assert_eq!(size_of::<gp_context_options>(), 48);
        }
        assert_eq!(gp_backend::GP_BACKEND_REMOTE.0, 3);
        assert_eq!(
            (
                gp_priority::GP_PRIORITY_NORMAL.0,
                gp_priority::GP_PRIORITY_LOW.0,
                gp_priority::GP_PRIORITY_HIGH.0
            ),
            (0, 1, 2)
        );
        assert_eq!(gp_status::GP_ERR_REMOTE.0, 17);

        let mut o: gp_merkle_options = std::mem::zeroed();
        gp_merkle_options_init(&mut o);
        assert_eq!(o.struct_size as usize, size_of::<gp_merkle_options>());
        assert_eq!(o.kind, gp_merkle_kind::GP_MERKLE_FIELD_SPONGE);
        assert_eq!(o.perm, gp_permutation::GP_PERM_POSEIDON2_GOLDILOCKS_8);
        // compress_perm (appended last): 0, the sponge's permutation.
        assert_eq!(o.compress_perm, gp_permutation(0));
        assert_eq!(gp_merkle_kind::GP_MERKLE_KECCAK_U64.0, 7);
        assert_eq!(gp_merkle_kind::GP_MERKLE_TRITON_DIGEST.0, 9);
        assert_eq!(gp_merkle_kind::GP_MERKLE_MIDEN_LMCS.0, 10);
        assert_eq!(gp_merkle_kind::GP_MERKLE_WINTERFELL.0, 11);
        assert_eq!(
            (
                gp_permutation::GP_PERM_SHA3_256.0,
                gp_permutation::GP_PERM_BLAKE3_192.0,
                gp_permutation::GP_PERM_RP64_256.0
            ),
            (20, 21, 22)
        );
        assert_eq!(
            (
                gp_extension::GP_EXT_PLONKY3.0,
                gp_extension::GP_EXT_TRITON.0
            ),
            (0, 1)
        );

        let mut o: gp_fri_options = std::mem::zeroed();
        gp_fri_options_init(&mut o);
        assert_eq!(o.struct_size as usize, size_of::<gp_fri_options>());
        assert_eq!((o.arity, o.final_size, o.shift), (2, 1, 1));
        assert_eq!(o.order, gp_order::GP_ORDER_BIT_REVERSED);
        assert_eq!(o.merkle.struct_size as usize, size_of::<gp_merkle_options>());
        // extension and leaf (appended after merkle): Plonky3's, one group
        // per leaf.
        assert_eq!(o.extension, gp_extension::GP_EXT_PLONKY3);
        assert_eq!(o.leaf, gp_fri_leaf::GP_FRI_LEAF_GROUP);
        assert_eq!(gp_fri_leaf::GP_FRI_LEAF_ELEMENT.0, 1);

        let mut o: gp_ood_options = std::mem::zeroed();
        gp_ood_options_init(&mut o);
        assert_eq!(o.struct_size as usize, size_of::<gp_ood_options>());
        assert_eq!((o.shift, o.degree_bound, o.challenge_degree), (0, 0, 0));
        assert_eq!(o.order, gp_order::GP_ORDER_NATURAL);
        assert_eq!(o.extension, gp_extension::GP_EXT_PLONKY3);

        let mut o: gp_constraint_options = std::mem::zeroed();
        gp_constraint_options_init(&mut o);
        assert_eq!(o.struct_size as usize, size_of::<gp_constraint_options>());
        assert_eq!(o.split, gp_composition_split::GP_COMPOSITION_PLONKY3);
        assert_eq!(gp_composition_split::GP_COMPOSITION_TRITON.0, 2);
        assert_eq!((o.segments, o.blowup, o.shift), (2, 2, 0));
        assert_eq!(o.output_order, gp_order::GP_ORDER_BIT_REVERSED);
        assert_eq!(o.merkle.struct_size as usize, size_of::<gp_merkle_options>());

        let mut o: gp_commit_options = std::mem::zeroed();
        gp_commit_options_init(&mut o);
        assert_eq!(o.struct_size as usize, size_of::<gp_commit_options>());
        assert!(o.lde.is_null() && o.merkle.is_null());
        assert_eq!(o.keep, gp_keep::GP_KEEP_DEVICE);
        assert_eq!(o.device_budget, 0);
        assert_eq!(
            (
                gp_keep::GP_KEEP_DEVICE.0,
                gp_keep::GP_KEEP_HOST.0,
                gp_keep::GP_KEEP_NONE.0
            ),
            (0, 1, 2)
        );
        // data, rows, cols, ext_degree (padded), lde_host, lde_host_bytes:
        // on LP64, 8 + 8 + 8 + 8 + 8 + 8.
        if size_of::<*const u8>() == 8 {
            assert_eq!(size_of::<gp_commit_matrix>(), 48);
        }

        assert_eq!(size_of::<gp_matrix_dims>(), 16);
        // struct_size, ordinal, name[128], five uint64_t.
        assert_eq!(size_of::<gp_device_info>(), 4 + 4 + 128 + 5 * 8);
        assert_eq!(GP_DEVICES_ALL, -1);
    }
}

#[test]
fn status_names_and_last_error() {
    unsafe {
        let name = CStr::from_ptr(gp_status_name(gp_status::GP_ERR_SHAPE_MISMATCH));
        assert_eq!(name.to_str().unwrap(), "GP_ERR_SHAPE_MISMATCH");
        let s = gp_context_create(ptr::null(), ptr::null_mut());
        assert_eq!(s, gp_status::GP_ERR_NULL_POINTER);
        assert!(!CStr::from_ptr(gp_last_error()).to_bytes().is_empty());
    }
}

#[test]
fn cpu_context_round_trip() {
    unsafe {
        let mut o: gp_context_options = std::mem::zeroed();
        gp_context_options_init(&mut o);
        o.backend = gp_backend::GP_BACKEND_CPU;
        o.cpu_threads = 2;
        let mut ctx: *mut gp_context = ptr::null_mut();
        assert_eq!(gp_context_create(&o, &mut ctx), gp_status::GP_OK);
        assert_eq!(gp_context_backend(ctx), gp_backend::GP_BACKEND_CPU);
        assert_eq!(gp_context_device_count(ctx), 1);
        let mut info: gp_device_info = std::mem::zeroed();
        info.struct_size = size_of::<gp_device_info>() as u32;
        assert_eq!(gp_context_device_info(ctx, 0, &mut info), gp_status::GP_OK);
        assert_eq!(info.ordinal, -1);
        assert_eq!(
            gp_context_device_info(ctx, 1, &mut info),
            gp_status::GP_ERR_INVALID_ARGUMENT
        );

        let data: [u64; 8] = [1, 2, 3, 4, 5, 6, 7, 8];
        let mut buf: *mut gp_buffer = ptr::null_mut();
        let s = gp_buffer_from_host(
            ctx,
            gp_field::GP_FIELD_GOLDILOCKS,
            1,
            4,
            2,
            gp_layout::GP_LAYOUT_ROW_MAJOR,
            data.as_ptr().cast(),
            &mut buf,
        );
        assert_eq!(s, gp_status::GP_OK);
        assert_eq!(gp_buffer_rows(buf), 4);
        assert_eq!(gp_buffer_cols(buf), 2);
        assert_eq!(gp_buffer_size_bytes(buf), 64);
        let mut back = [0u64; 8];
        let s = gp_buffer_to_host(
            buf,
            gp_layout::GP_LAYOUT_COL_MAJOR,
            back.as_mut_ptr().cast(),
            size_of::<[u64; 8]>() as u64,
        );
        assert_eq!(s, gp_status::GP_OK);
        assert_eq!(back, [1, 3, 5, 7, 2, 4, 6, 8]);
        gp_buffer_destroy(buf);
        gp_context_destroy(ctx);
    }
}

#[test]
fn remote_options_through_the_ffi() {
    unsafe {
        let endpoint = b"/nonexistent/dir/gp.sock\0";
        let mut o: gp_context_options = std::mem::zeroed();
        gp_context_options_init(&mut o);
        o.backend = gp_backend::GP_BACKEND_REMOTE;
        o.endpoint = endpoint.as_ptr().cast();
        let mut ctx: *mut gp_context = ptr::null_mut();
        let st = gp_context_create(&o, &mut ctx);
        assert!(ctx.is_null());
        // A library configured without gRPC has no remote backend and says
        // so with GP_ERR_UNSUPPORTED; one with it cannot reach the socket.
        let no_remote = CStr::from_ptr(gp_last_error()).to_string_lossy().contains("no remote backend");
        assert_eq!(st, if no_remote { gp_status::GP_ERR_UNSUPPORTED } else { gp_status::GP_ERR_REMOTE });
        assert!(!CStr::from_ptr(gp_last_error()).to_bytes().is_empty());
        let name = CStr::from_ptr(gp_status_name(gp_status::GP_ERR_REMOTE));
        assert_eq!(name.to_str().unwrap(), "GP_ERR_REMOTE");

        // A priority that is not a gp_priority.
        let mut o: gp_context_options = std::mem::zeroed();
        gp_context_options_init(&mut o);
        o.backend = gp_backend::GP_BACKEND_CPU;
        o.priority = gp_priority(9);
        assert_eq!(
            gp_context_create(&o, &mut ctx),
            gp_status::GP_ERR_INVALID_ARGUMENT
        );
        assert!(ctx.is_null());
        assert!(!CStr::from_ptr(gp_last_error()).to_bytes().is_empty());

        // AUTO with the unreachable endpoint runs in process and says why.
        o.backend = gp_backend::GP_BACKEND_AUTO;
        o.priority = gp_priority::GP_PRIORITY_HIGH;
        o.force_cpu = 1;
        o.endpoint = endpoint.as_ptr().cast();
        assert_eq!(gp_context_create(&o, &mut ctx), gp_status::GP_OK);
        let backend = gp_context_backend(ctx);
        assert!(
            backend == gp_backend::GP_BACKEND_CPU || backend == gp_backend::GP_BACKEND_CUDA,
            "{:?}",
            backend
        );
        let why = gp_context_remote_fallback(ctx);
        assert!(!why.is_null());
        assert!(!CStr::from_ptr(why).to_bytes().is_empty());
        gp_context_destroy(ctx);
        assert!(gp_context_remote_fallback(ptr::null()).is_null());
    }
}
