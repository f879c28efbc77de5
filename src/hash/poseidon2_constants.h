// SPDX-License-Identifier: MIT OR Apache-2.0
// GENERATED FILE -- DO NOT EDIT.
// Produced by src/hash/gen_constants.py from tests/vectors/poseidon2_{goldilocks,
// babybear,koalabear}.json; rerun the script to regenerate it.
//
// Poseidon2 instance constants as plain data: every value is the canonical
// integer in [0, p) (never Montgomery). One struct per instance; poseidon2.h
// turns a struct into a Poseidon2Params object in __constant__ memory
// (poseidon2_params<Instance>()), which is what host and device code use. The
// arrays here are only read at compile time, or at run time on the host.
//
// Per instance: Field, WIDTH, ROUNDS_P, SBOX_DEGREE, MAT4 (the 4x4 block of
// the external layer), external_initial[4][WIDTH], internal[ROUNDS_P] (added
// to state[0] only), external_terminal[4][WIDTH], internal_diag[WIDTH] (V in
// M_I = 1 + diag(V)), SOURCE (instance id in the JSON files).
#pragma once

#include <cstdint>

#include "math/field.h"

namespace gp {

// Which 4x4 matrix the external layer applies to each 4-element block.
enum class Poseidon2Mat4 : int {
    Plonky3 = 0,      // MDSMat4 [[2,3,1,1],[1,2,3,1],[1,1,2,3],[3,1,1,2]]
    HorizenLabs = 1,  // HLMDSMat4 [[5,7,1,3],[4,6,1,1],[1,3,5,7],[1,1,4,6]]
};

namespace poseidon2_constants {

// Plonky3 default_goldilocks_poseidon2_8()
// source: Plonky3/Plonky3@5dc50e51436a goldilocks/src/poseidon2.rs
// JSON instance 'plonky3_default_goldilocks_w8'; 1 upstream vector(s) re-checked by the generator.
struct GoldilocksW8 {
    using Field = ::gp::Goldilocks;
    using T = Field::T;
    static constexpr int WIDTH = 8;
    static constexpr int ROUNDS_P = 22;
    static constexpr int SBOX_DEGREE = 7;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::Plonky3;
    static constexpr const char *SOURCE = "plonky3_default_goldilocks_w8";
    static constexpr T external_initial[4][8] = {
        {
            0xdd5743e7f2a5a5d9ull, 0xcb3a864e58ada44bull, 0xffa2449ed32f8cdcull, 0x42025f65d6bd13eeull,
            0x7889175e25506323ull, 0x34b98bb03d24b737ull, 0xbdcc535ecc4faa2aull, 0x5b20ad869fc0d033ull,
        },
        {
            0xf1dda5b9259dfcb4ull, 0x27515210be112d59ull, 0x4227d1718c766c3full, 0x26d333161a5bd794ull,
            0x49b938957bf4b026ull, 0x4a56b5938b213669ull, 0x1120426b48c8353dull, 0x6b323c3f10a56cadull,
        },
        {
            0xce57d6245ddca6b2ull, 0xb1fc8d402bba1eb1ull, 0xb5c5096ca959bd04ull, 0x6db55cd306d31f7full,
            0xc49d293a81cb9641ull, 0x1ce55a4fe979719full, 0xa92e60a9d178a4d1ull, 0x002cc64973bcfd8cull,
        },
        {
            0xcea721cce82fb11bull, 0xe5b55eb8098ece81ull, 0x4e30525c6f1ddd66ull, 0x43c6702827070987ull,
            0xaca68430a7b5762aull, 0x3674238634df9c93ull, 0x88cee1c825e33433ull, 0xde99ae8d74b57176ull,
        },
    };
    static constexpr T internal[22] = {
        0x488897d85ff51f56ull, 0x1140737ccb162218ull, 0xa7eeb9215866ed35ull, 0x9bd2976fee49fcc9ull,
        0xc0c8f0de580a3fccull, 0x4fb2dae6ee8fc793ull, 0x343a89f35f37395bull, 0x223b525a77ca72c8ull,
        0x56ccb62574aaa918ull, 0xc4d507d8027af9edull, 0xa080673cf0b7e95cull, 0xf0184884eb70dcf8ull,
        0x044f10b0cb3d5c69ull, 0xe9e3f7993938f186ull, 0x1b761c80e772f459ull, 0x606cec607a1b5facull,
        0x14a0c2e1d45f03cdull, 0x4eace8855398574full, 0xf905ca7103eff3e6ull, 0xf8c8f8d20862c059ull,
        0xb524fe8bdd678e5aull, 0xfbb7865901a1ec41ull,
    };
    static constexpr T external_terminal[4][8] = {
        {
            0x014ef1197d341346ull, 0x9725e20825d07394ull, 0xfdb25aef2c5bae3bull, 0xbe5402dc598c971eull,
            0x93a5711f04cdca3dull, 0xc45a9a5b2f8fb97bull, 0xfe8946a924933545ull, 0x2af997a27369091cull,
        },
        {
            0xaa62c88e0b294011ull, 0x058eb9d810ce9f74ull, 0xb3cb23eced349ae4ull, 0xa3648177a77b4a84ull,
            0x43153d905992d95dull, 0xf4e2a97cda44aa4bull, 0x5baa2702b908682full, 0x082923bdf4f750d1ull,
        },
        {
            0x98ae09a325893803ull, 0xf8a6475077968838ull, 0xceb0735bf00b2c5full, 0x0a1a5d953888e072ull,
            0x2fcb190489f94475ull, 0xb5be06270dec69fcull, 0x739cb934b09acf8bull, 0x537750b75ec7f25bull,
        },
        {
            0xe9dd318bae1f3961ull, 0xf7462137299efe1aull, 0xb1f6b8eee9adb940ull, 0xbdebcc8a809dfe6bull,
            0x40fc1f791b178113ull, 0x3ac1c3362d014864ull, 0x9a016184bdb8aebaull, 0x95f2394459fbc25eull,
        },
    };
    static constexpr T internal_diag[8] = {
        0xfffffffeffffffffull, 0x0000000000000001ull, 0x0000000000000002ull, 0x7fffffff80000001ull,
        0x0000000000000003ull, 0x7fffffff80000000ull, 0xfffffffefffffffeull, 0xfffffffefffffffdull,
    };
};

// Plonky3 default_goldilocks_poseidon2_12()
// source: Plonky3/Plonky3@5dc50e51436a goldilocks/src/poseidon2.rs
// JSON instance 'plonky3_default_goldilocks_w12'; 1 upstream vector(s) re-checked by the generator.
struct GoldilocksW12 {
    using Field = ::gp::Goldilocks;
    using T = Field::T;
    static constexpr int WIDTH = 12;
    static constexpr int ROUNDS_P = 22;
    static constexpr int SBOX_DEGREE = 7;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::Plonky3;
    static constexpr const char *SOURCE = "plonky3_default_goldilocks_w12";
    static constexpr T external_initial[4][12] = {
        {
            0x13dcf33aba214f46ull, 0x30b3b654a1da6d83ull, 0x1fc634ada6159b56ull, 0x937459964dc03466ull,
            0xedd2ef2ca7949924ull, 0xede9affde0e22f68ull, 0x8515b9d6bac9282dull, 0x6b5c07b4e9e900d8ull,
            0x1ec66368838c8a08ull, 0x9042367d80d1fbabull, 0x400283564a3c3799ull, 0x4a00be0466bca75eull,
        },
        {
            0x7913beee58e3817full, 0xf545e88532237d90ull, 0x22f8cb8736042005ull, 0x6f04990e247a2623ull,
            0xfe22e87ba37c38cdull, 0xd20e32c85ffe2815ull, 0x117227674048fe73ull, 0x4e9fb7ea98a6b145ull,
            0xe0866c232b8af08bull, 0x00bbc77916884964ull, 0x7031c0fb990d7116ull, 0x240a9e87cf35108full,
        },
        {
            0x2e6363a5a12244b3ull, 0x5e1c3787d1b5011cull, 0x4132660e2a196e8bull, 0x3a013b648d3d4327ull,
            0xf79839f49888ea43ull, 0xfe85658ebafe1439ull, 0xb6889825a14240bdull, 0x578453605541382bull,
            0x4508cda8f6b63ce9ull, 0x9c3ef35848684c91ull, 0x0812bde23c87178cull, 0xfe49638f7f722c14ull,
        },
        {
            0x8e3f688ce885cbf5ull, 0xb8e110acf746a87dull, 0xb4b2e8973a6dabefull, 0x9e714c5da3d462ecull,
            0x6438f9033d3d0c15ull, 0x24312f7cf1a27199ull, 0x23f843bb47acbf71ull, 0x9183f11a34be9f01ull,
            0x839062fbb9d45dbfull, 0x24b56e7e6c2e43faull, 0xe1683da61c962a72ull, 0xa95c63971a19bfa7ull,
        },
    };
    static constexpr T internal[22] = {
        0x4adf842aa75d4316ull, 0xf8fbb871aa4ab4ebull, 0x68e85b6eb2dd6aebull, 0x07a0b06b2d270380ull,
        0xd94e0228bd282de4ull, 0x8bdd91d3250c5278ull, 0x209c68b88bba778full, 0xb5e18cdab77f3877ull,
        0xb296a3e808da93faull, 0x8370ecbda11a327eull, 0x3f9075283775dad8ull, 0xb78095bb23c6aa84ull,
        0x3f36b9fe72ad4e5full, 0x69bc96780b10b553ull, 0x3f1d341f2eb7b881ull, 0x4e939e9815838818ull,
        0xda366b3ae2a31604ull, 0xbc89db1e7287d509ull, 0x6102f411f9ef5659ull, 0x58725c5e7ac1f0abull,
        0x0df5856c798883e7ull, 0xf7bb62a8da4c961bull,
    };
    static constexpr T external_terminal[4][12] = {
        {
            0xc68be7c94882a24dull, 0xaf996d5d5cdaedd9ull, 0x9717f025e7daf6a5ull, 0x6436679e6e7216f4ull,
            0x8a223d99047af267ull, 0xbb512e35a133ba9aull, 0xfbbf44097671aa03ull, 0xf04058ebf6811e61ull,
            0x5cca84703fac7ffbull, 0x9b55c7945de6469full, 0x8e05bf09808e934full, 0x2ea900de876307d7ull,
        },
        {
            0x7748fff2b38dfb89ull, 0x6b99a676dd3b5d81ull, 0xac4bb7c627cf7c13ull, 0xadb6ebe5e9e2f5baull,
            0x2d33378cafa24ae3ull, 0x1e5b73807543f8c2ull, 0x09208814bfebb10full, 0x782e64b6bb5b93ddull,
            0xadd5a48eac90b50full, 0xadd4c54c736ea4b1ull, 0xd58dbb86ed817fd8ull, 0x6d5ed1a533f34dddull,
        },
        {
            0x28686aa3e36b7cb9ull, 0x591abd3476689f36ull, 0x047d766678f13875ull, 0xa2a11112625f5b49ull,
            0x21fd10a3f8304958ull, 0xf9b40711443b0280ull, 0xd2697eb8b2bde88eull, 0x3493790b51731b3full,
            0x11caf9dd73764023ull, 0x7acfb8f72878164eull, 0x744ec4db23cefc26ull, 0x1e00e58f422c6340ull,
        },
        {
            0x21dd28d906a62ddaull, 0xf32a46ab5f465b5full, 0xbfce13201f3f7e6bull, 0xf30d2e7adb5304e2ull,
            0xecdf4ee4abad48e9ull, 0xf94e82182d395019ull, 0x4ee52e3744d887c5ull, 0xa1341c7cac0083b2ull,
            0x2302fb26c30c834aull, 0xaea3c587273bf7d3ull, 0xf798e24961823ec7ull, 0x962deba3e9a2cd94ull,
        },
    };
    static constexpr T internal_diag[12] = {
        0xfffffffeffffffffull, 0x0000000000000001ull, 0x0000000000000002ull, 0x7fffffff80000001ull,
        0x0000000000000003ull, 0x0000000000000004ull, 0x7fffffff80000000ull, 0xfffffffefffffffeull,
        0xfffffffefffffffdull, 0xbfffffff40000001ull, 0x3fffffffc0000000ull, 0xdfffffff20000001ull,
    };
};

// Plonky3 default_goldilocks_poseidon2_16()
// source: Plonky3/Plonky3@5dc50e51436a goldilocks/src/poseidon2.rs
// JSON instance 'plonky3_default_goldilocks_w16'; 1 upstream vector(s) re-checked by the generator.
struct GoldilocksW16 {
    using Field = ::gp::Goldilocks;
    using T = Field::T;
    static constexpr int WIDTH = 16;
    static constexpr int ROUNDS_P = 22;
    static constexpr int SBOX_DEGREE = 7;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::Plonky3;
    static constexpr const char *SOURCE = "plonky3_default_goldilocks_w16";
    static constexpr T external_initial[4][16] = {
        {
            0x15ebea3fc73397c3ull, 0xd73cd9fbfe8e275cull, 0x8c096bfce77f6c26ull, 0x4e128f68b53d8feaull,
            0x29b779a36b2763f6ull, 0xfe2adc6fb65acd08ull, 0x8d2520e725ad0955ull, 0x1c2392b214624d2aull,
            0x37482118206dcc6eull, 0x2f829bed19be019aull, 0x2fe298cb6f8159b0ull, 0x2bbad982deccdbbfull,
            0xbad568b8cc60a81eull, 0xb86a814265baad10ull, 0xbec2005513b3acb3ull, 0x6bf89b59a07c2a94ull,
        },
        {
            0xa25deeb835e230f5ull, 0x3c5bad8512b8b12aull, 0x7230f73c3cb7a4f2ull, 0xa70c87f095c74d0full,
            0x6b7606b830bb2e80ull, 0x6cd467cfc4f24274ull, 0xfeed794df42a9b0aull, 0x8cf7cf6163b7dbd3ull,
            0x9a6e9dda597175a0ull, 0xaa52295a684faf7bull, 0x017b811cc3589d8dull, 0x55bfb699b6181648ull,
            0xc2ccaf71501c2421ull, 0x1707950327596402ull, 0xdd2fcdcd42a8229full, 0x8b9d7d5b27778a21ull,
        },
        {
            0xac9a05525f9cf512ull, 0x2ba125c58627b5e8ull, 0xc74e91250a8147a5ull, 0xa3e64b640d5bb384ull,
            0xf53047d18d1f9292ull, 0xbaaeddacae3a6374ull, 0xf2d0914a808b3db1ull, 0x18af1a3742bfa3b0ull,
            0x9a621ef50c55bdb8ull, 0xc615f4d1cc5466f3ull, 0xb7fbac19a35cf793ull, 0xd2b1a15ba517e46dull,
            0x4a290c4d7fd26f6full, 0x4f0cf1bb1770c4c4ull, 0x548345386cd377f5ull, 0x33978d2789fddd42ull,
        },
        {
            0xab78c59deb77e211ull, 0xc485b2a933d2be7full, 0xbde3792c00c03c53ull, 0xab4cefe8f893d247ull,
            0xc5c0e752eab7f85full, 0xdbf5a76f893bafeaull, 0xa91f6003e3d984deull, 0x099539077f311e87ull,
            0x097ec52232f9559eull, 0x53641bdf8991e48cull, 0x2afe9711d5ed9d7cull, 0xa7b13d3661b5d117ull,
            0x5a0e243fe7af6556ull, 0x1076fae8932d5f00ull, 0x9b53a83d434934e3ull, 0xed3fd595a3c0344aull,
        },
    };
    static constexpr T internal[22] = {
        0x28eff4b01103d100ull, 0x60400ca3e2685a45ull, 0x1c8636beb3389b84ull, 0xac1332b60e13eff0ull,
        0x2adafcc364e20f87ull, 0x79ffc2b14054ea0bull, 0x3f98e4c0908f0a05ull, 0xcdb230bc4e8a06c4ull,
        0x1bcaf7705b152a74ull, 0xd9bca249a82a7470ull, 0x91e24af19bf82551ull, 0xa62b43ba5cb78858ull,
        0xb4898117472e797full, 0xb3228bca606cdaa0ull, 0x844461051bca39c9ull, 0xf3411581f6617d68ull,
        0xf7fd50646782b533ull, 0x6ca664253c18fb48ull, 0x2d2fcdec0886a08full, 0x29da00dd799b575eull,
        0x47d966cc3b6e1e93ull, 0xde884e9a17ced59eull,
    };
    static constexpr T external_terminal[4][16] = {
        {
            0xdacf46dc1c31a045ull, 0x5d2e3c121eb387f2ull, 0x51f8b0658b124499ull, 0x1e7dbd1daa72167dull,
            0x8275015a25c55b88ull, 0xe8521c24ac7a70b3ull, 0x6521d121c40b3f67ull, 0xac12de797de135b0ull,
            0xafa28ead79f6ed6aull, 0x685174a7a8d26f0bull, 0xeff92a08d35d9874ull, 0x3058734b76dd123aull,
            0xfa55dcfba429f79cull, 0x559294d4324c7728ull, 0x7a770f53012dc178ull, 0xedd8f7c408f3883bull,
        },
        {
            0x39b533cf8d795fa5ull, 0x160ef9de243a8c0aull, 0x431d52da6215fe3full, 0x54c51a2a2ef6d528ull,
            0x9b13892b46ff9d16ull, 0x263c46fcee210289ull, 0xb738c96d25aabdc4ull, 0x5c33a5203996d38full,
            0x2626496e7c98d8ddull, 0xc669e0a52785903aull, 0xaecde726c8ae1f47ull, 0x039343ef3a81e999ull,
            0x2615ceaf044a54f9ull, 0x7e41e834662b66e1ull, 0x4ca5fd4895335783ull, 0x64b334d02916f2b0ull,
        },
        {
            0x87268837389a6981ull, 0x034b75bcb20a6274ull, 0x58e658296cc2cd6eull, 0xe2d0f759acc31df4ull,
            0x81a652e435093e20ull, 0x0b72b6e0172eaf47ull, 0x4aec43cec577d66dull, 0xde78365b028a84e6ull,
            0x444e19569adc0ee4ull, 0x942b2451fa40d1daull, 0xe24506623ea5bd6cull, 0x082854bf2ef7c743ull,
            0x69dbbc566f59d62eull, 0x248c38d02a7b5cb2ull, 0x4f4e8f8c09d15edbull, 0xd96682f188d310cfull,
        },
        {
            0x6f9a25d56818b54cull, 0xb6cefed606546cd9ull, 0x5bc07523da38a67bull, 0x7df5a3c35b8111cfull,
            0xaaa2cc5d4db34bb0ull, 0x9e673ff22a4653f8ull, 0xbd8b278d60739c62ull, 0xe10d20f6925b8815ull,
            0xf6c87b91dd4da2bfull, 0xfed623e2f71b6f1aull, 0xa0f02fa52a94d0d3ull, 0xbb5794711b39fa16ull,
            0xd3b94fba9d005c7full, 0x15a26e89fad946c9ull, 0xf3cb87db8a67cf49ull, 0x400d2bf56aa2a577ull,
        },
    };
    static constexpr T internal_diag[16] = {
        0xfffffffeffffffffull, 0x0000000000000001ull, 0x0000000000000002ull, 0x7fffffff80000001ull,
        0x0000000000000003ull, 0x0000000000000004ull, 0x7fffffff80000000ull, 0xfffffffefffffffeull,
        0xfffffffefffffffdull, 0xdfffffff20000001ull, 0xefffffff10000001ull, 0xf7ffffff08000001ull,
        0x1fffffffe0000000ull, 0x0ffffffff0000000ull, 0x07fffffff8000000ull, 0xfffffffe00000002ull,
    };
};

// HorizenLabs-compatible width 8 (older Plonky3 Poseidon2GoldilocksHL<8>; = HorizenLabs RC8 / MAT_DIAG8_M_1)
// source: Plonky3/Plonky3@658115aae283 goldilocks/src/poseidon2.rs
// JSON instance 'plonky3_old_horizenlabs_compatible_goldilocks_w8'; 3 upstream vector(s) re-checked by the generator.
struct GoldilocksHLW8 {
    using Field = ::gp::Goldilocks;
    using T = Field::T;
    static constexpr int WIDTH = 8;
    static constexpr int ROUNDS_P = 22;
    static constexpr int SBOX_DEGREE = 7;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::HorizenLabs;
    static constexpr const char *SOURCE = "plonky3_old_horizenlabs_compatible_goldilocks_w8";
    static constexpr T external_initial[4][8] = {
        {
            0xdd5743e7f2a5a5d9ull, 0xcb3a864e58ada44bull, 0xffa2449ed32f8cdcull, 0x42025f65d6bd13eeull,
            0x7889175e25506323ull, 0x34b98bb03d24b737ull, 0xbdcc535ecc4faa2aull, 0x5b20ad869fc0d033ull,
        },
        {
            0xf1dda5b9259dfcb4ull, 0x27515210be112d59ull, 0x4227d1718c766c3full, 0x26d333161a5bd794ull,
            0x49b938957bf4b026ull, 0x4a56b5938b213669ull, 0x1120426b48c8353dull, 0x6b323c3f10a56cadull,
        },
        {
            0xce57d6245ddca6b2ull, 0xb1fc8d402bba1eb1ull, 0xb5c5096ca959bd04ull, 0x6db55cd306d31f7full,
            0xc49d293a81cb9641ull, 0x1ce55a4fe979719full, 0xa92e60a9d178a4d1ull, 0x002cc64973bcfd8cull,
        },
        {
            0xcea721cce82fb11bull, 0xe5b55eb8098ece81ull, 0x4e30525c6f1ddd66ull, 0x43c6702827070987ull,
            0xaca68430a7b5762aull, 0x3674238634df9c93ull, 0x88cee1c825e33433ull, 0xde99ae8d74b57176ull,
        },
    };
    static constexpr T internal[22] = {
        0x488897d85ff51f56ull, 0x1140737ccb162218ull, 0xa7eeb9215866ed35ull, 0x9bd2976fee49fcc9ull,
        0xc0c8f0de580a3fccull, 0x4fb2dae6ee8fc793ull, 0x343a89f35f37395bull, 0x223b525a77ca72c8ull,
        0x56ccb62574aaa918ull, 0xc4d507d8027af9edull, 0xa080673cf0b7e95cull, 0xf0184884eb70dcf8ull,
        0x044f10b0cb3d5c69ull, 0xe9e3f7993938f186ull, 0x1b761c80e772f459ull, 0x606cec607a1b5facull,
        0x14a0c2e1d45f03cdull, 0x4eace8855398574full, 0xf905ca7103eff3e6ull, 0xf8c8f8d20862c059ull,
        0xb524fe8bdd678e5aull, 0xfbb7865901a1ec41ull,
    };
    static constexpr T external_terminal[4][8] = {
        {
            0x014ef1197d341346ull, 0x9725e20825d07394ull, 0xfdb25aef2c5bae3bull, 0xbe5402dc598c971eull,
            0x93a5711f04cdca3dull, 0xc45a9a5b2f8fb97bull, 0xfe8946a924933545ull, 0x2af997a27369091cull,
        },
        {
            0xaa62c88e0b294011ull, 0x058eb9d810ce9f74ull, 0xb3cb23eced349ae4ull, 0xa3648177a77b4a84ull,
            0x43153d905992d95dull, 0xf4e2a97cda44aa4bull, 0x5baa2702b908682full, 0x082923bdf4f750d1ull,
        },
        {
            0x98ae09a325893803ull, 0xf8a6475077968838ull, 0xceb0735bf00b2c5full, 0x0a1a5d953888e072ull,
            0x2fcb190489f94475ull, 0xb5be06270dec69fcull, 0x739cb934b09acf8bull, 0x537750b75ec7f25bull,
        },
        {
            0xe9dd318bae1f3961ull, 0xf7462137299efe1aull, 0xb1f6b8eee9adb940ull, 0xbdebcc8a809dfe6bull,
            0x40fc1f791b178113ull, 0x3ac1c3362d014864ull, 0x9a016184bdb8aebaull, 0x95f2394459fbc25eull,
        },
    };
    static constexpr T internal_diag[8] = {
        0xa98811a1fed4e3a5ull, 0x1cc48b54f377e2a0ull, 0xe40cd4f6c5609a26ull, 0x11de79ebca97a4a3ull,
        0x9177c73d8b7e929cull, 0x2a6fe8085797e791ull, 0x3de6e93329f8d5adull, 0x3f7af9125da962feull,
    };
};

// HorizenLabs poseidon2 Goldilocks width 12 (RC12 / MAT_DIAG12_M_1)
// source: HorizenLabs/poseidon2@055bde3f4782 plain_implementations/src/poseidon2/poseidon2_instance_goldilocks.rs
// JSON instance 'horizenlabs_goldilocks_w12'; 1 upstream vector(s) re-checked by the generator.
struct GoldilocksHLW12 {
    using Field = ::gp::Goldilocks;
    using T = Field::T;
    static constexpr int WIDTH = 12;
    static constexpr int ROUNDS_P = 22;
    static constexpr int SBOX_DEGREE = 7;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::HorizenLabs;
    static constexpr const char *SOURCE = "horizenlabs_goldilocks_w12";
    static constexpr T external_initial[4][12] = {
        {
            0x13dcf33aba214f46ull, 0x30b3b654a1da6d83ull, 0x1fc634ada6159b56ull, 0x937459964dc03466ull,
            0xedd2ef2ca7949924ull, 0xede9affde0e22f68ull, 0x8515b9d6bac9282dull, 0x6b5c07b4e9e900d8ull,
            0x1ec66368838c8a08ull, 0x9042367d80d1fbabull, 0x400283564a3c3799ull, 0x4a00be0466bca75eull,
        },
        {
            0x7913beee58e3817full, 0xf545e88532237d90ull, 0x22f8cb8736042005ull, 0x6f04990e247a2623ull,
            0xfe22e87ba37c38cdull, 0xd20e32c85ffe2815ull, 0x117227674048fe73ull, 0x4e9fb7ea98a6b145ull,
            0xe0866c232b8af08bull, 0x00bbc77916884964ull, 0x7031c0fb990d7116ull, 0x240a9e87cf35108full,
        },
        {
            0x2e6363a5a12244b3ull, 0x5e1c3787d1b5011cull, 0x4132660e2a196e8bull, 0x3a013b648d3d4327ull,
            0xf79839f49888ea43ull, 0xfe85658ebafe1439ull, 0xb6889825a14240bdull, 0x578453605541382bull,
            0x4508cda8f6b63ce9ull, 0x9c3ef35848684c91ull, 0x0812bde23c87178cull, 0xfe49638f7f722c14ull,
        },
        {
            0x8e3f688ce885cbf5ull, 0xb8e110acf746a87dull, 0xb4b2e8973a6dabefull, 0x9e714c5da3d462ecull,
            0x6438f9033d3d0c15ull, 0x24312f7cf1a27199ull, 0x23f843bb47acbf71ull, 0x9183f11a34be9f01ull,
            0x839062fbb9d45dbfull, 0x24b56e7e6c2e43faull, 0xe1683da61c962a72ull, 0xa95c63971a19bfa7ull,
        },
    };
    static constexpr T internal[22] = {
        0x4adf842aa75d4316ull, 0xf8fbb871aa4ab4ebull, 0x68e85b6eb2dd6aebull, 0x07a0b06b2d270380ull,
        0xd94e0228bd282de4ull, 0x8bdd91d3250c5278ull, 0x209c68b88bba778full, 0xb5e18cdab77f3877ull,
        0xb296a3e808da93faull, 0x8370ecbda11a327eull, 0x3f9075283775dad8ull, 0xb78095bb23c6aa84ull,
        0x3f36b9fe72ad4e5full, 0x69bc96780b10b553ull, 0x3f1d341f2eb7b881ull, 0x4e939e9815838818ull,
        0xda366b3ae2a31604ull, 0xbc89db1e7287d509ull, 0x6102f411f9ef5659ull, 0x58725c5e7ac1f0abull,
        0x0df5856c798883e7ull, 0xf7bb62a8da4c961bull,
    };
    static constexpr T external_terminal[4][12] = {
        {
            0xc68be7c94882a24dull, 0xaf996d5d5cdaedd9ull, 0x9717f025e7daf6a5ull, 0x6436679e6e7216f4ull,
            0x8a223d99047af267ull, 0xbb512e35a133ba9aull, 0xfbbf44097671aa03ull, 0xf04058ebf6811e61ull,
            0x5cca84703fac7ffbull, 0x9b55c7945de6469full, 0x8e05bf09808e934full, 0x2ea900de876307d7ull,
        },
        {
            0x7748fff2b38dfb89ull, 0x6b99a676dd3b5d81ull, 0xac4bb7c627cf7c13ull, 0xadb6ebe5e9e2f5baull,
            0x2d33378cafa24ae3ull, 0x1e5b73807543f8c2ull, 0x09208814bfebb10full, 0x782e64b6bb5b93ddull,
            0xadd5a48eac90b50full, 0xadd4c54c736ea4b1ull, 0xd58dbb86ed817fd8ull, 0x6d5ed1a533f34dddull,
        },
        {
            0x28686aa3e36b7cb9ull, 0x591abd3476689f36ull, 0x047d766678f13875ull, 0xa2a11112625f5b49ull,
            0x21fd10a3f8304958ull, 0xf9b40711443b0280ull, 0xd2697eb8b2bde88eull, 0x3493790b51731b3full,
            0x11caf9dd73764023ull, 0x7acfb8f72878164eull, 0x744ec4db23cefc26ull, 0x1e00e58f422c6340ull,
        },
        {
            0x21dd28d906a62ddaull, 0xf32a46ab5f465b5full, 0xbfce13201f3f7e6bull, 0xf30d2e7adb5304e2ull,
            0xecdf4ee4abad48e9ull, 0xf94e82182d395019ull, 0x4ee52e3744d887c5ull, 0xa1341c7cac0083b2ull,
            0x2302fb26c30c834aull, 0xaea3c587273bf7d3ull, 0xf798e24961823ec7ull, 0x962deba3e9a2cd94ull,
        },
    };
    static constexpr T internal_diag[12] = {
        0xc3b6c08e23ba9300ull, 0xd84b5de94a324fb6ull, 0x0d0c371c5b35b84full, 0x7964f570e7188037ull,
        0x5daf18bbd996604bull, 0x6743bc47b9595257ull, 0x5528b9362c59bb70ull, 0xac45e25b7127b68bull,
        0xa2077d7dfbb606b5ull, 0xf3faac6faee378aeull, 0x0c6388b51545e883ull, 0xd27dbb6944917b60ull,
    };
};

// Plonky3 default_babybear_poseidon2_16()
// source: Plonky3/Plonky3@5dc50e51436a baby-bear/src/poseidon2.rs
// JSON instance 'plonky3_default_babybear_w16'; 1 upstream vector(s) re-checked by the generator.
struct BabyBearW16 {
    using Field = ::gp::BabyBear;
    using T = Field::T;
    static constexpr int WIDTH = 16;
    static constexpr int ROUNDS_P = 13;
    static constexpr int SBOX_DEGREE = 7;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::Plonky3;
    static constexpr const char *SOURCE = "plonky3_default_babybear_w16";
    static constexpr T external_initial[4][16] = {
        {
            0x69cbb6afu, 0x46ad93f9u, 0x60a00f4eu, 0x6b1297cdu, 0x23189afeu, 0x732e7befu,
            0x72c246deu, 0x2c941900u, 0x0557eedeu, 0x1580496fu, 0x3a3ea77bu, 0x54f3f271u,
            0x0f49b029u, 0x47872fe1u, 0x221e2e36u, 0x1ab7202eu,
        },
        {
            0x487779a6u, 0x3851c9d8u, 0x38dc17c0u, 0x209f8849u, 0x268dcee8u, 0x350c48dau,
            0x5b9ad32eu, 0x0523272bu, 0x3f89055bu, 0x01e894b2u, 0x13ddeddeu, 0x1b2ef334u,
            0x7507d8b4u, 0x6ceeb94eu, 0x52eb6ba2u, 0x50642905u,
        },
        {
            0x05453f3fu, 0x06349efcu, 0x6922787cu, 0x04bfff9cu, 0x768c714au, 0x3e9ff21au,
            0x15737c9cu, 0x2229c807u, 0x0d47f88cu, 0x097e0eccu, 0x27eadba0u, 0x2d7d29e4u,
            0x3502aaa0u, 0x0f475fd7u, 0x29fbda49u, 0x018afffdu,
        },
        {
            0x0315b618u, 0x6d4497d1u, 0x1b171d9eu, 0x52861abdu, 0x2e5d0501u, 0x3ec8646cu,
            0x6e5f250au, 0x148ae8e6u, 0x17f5fa4au, 0x3e66d284u, 0x0051aa3bu, 0x483f7913u,
            0x2cfe5f15u, 0x023427cau, 0x2cc78315u, 0x1e36ea47u,
        },
    };
    static constexpr T internal[13] = {
        0x5a8053c0u, 0x693be639u, 0x3858867du, 0x19334f6bu, 0x128f0fd8u, 0x4e2b1ccbu,
        0x61210ce0u, 0x3c318939u, 0x0b5b2f22u, 0x2edb11d5u, 0x213effdfu, 0x0cac4606u,
        0x241af16du,
    };
    static constexpr T external_terminal[4][16] = {
        {
            0x7290a80du, 0x6f7e5329u, 0x598ec8a8u, 0x76a859a0u, 0x6559e868u, 0x657b83afu,
            0x13271d3fu, 0x1f876063u, 0x0aeeae37u, 0x706e9ca6u, 0x46400ceeu, 0x72a05c26u,
            0x2c589c9eu, 0x20bd37a7u, 0x6a2d3d10u, 0x20523767u,
        },
        {
            0x5b8fe9c4u, 0x2aa501d6u, 0x1e01ac3eu, 0x1448bc54u, 0x5ce5ad1cu, 0x4918a14du,
            0x2c46a83fu, 0x4fcf6876u, 0x61d8d5c8u, 0x6ddf4ff9u, 0x11fda4d3u, 0x02933a8fu,
            0x170eaf81u, 0x5a9c314fu, 0x49a12590u, 0x35ec52a1u,
        },
        {
            0x58eb1611u, 0x5e481e65u, 0x367125c9u, 0x0eba33bau, 0x1fc28dedu, 0x066399adu,
            0x0cbec0eau, 0x75fd1af0u, 0x50f5bf4eu, 0x643d5f41u, 0x6f4fe718u, 0x5b3cbbdeu,
            0x1e3afb3eu, 0x296fb027u, 0x45e1547bu, 0x4a8db2abu,
        },
        {
            0x59986d19u, 0x30bcdfa3u, 0x1db63932u, 0x1d7c2824u, 0x53b33681u, 0x0673b747u,
            0x038a98a3u, 0x2c5bce60u, 0x351979cdu, 0x5008fb73u, 0x547bca78u, 0x711af481u,
            0x3f93bf64u, 0x644d987bu, 0x3c8bcd87u, 0x608758b8u,
        },
    };
    static constexpr T internal_diag[16] = {
        0x77ffffffu, 0x00000001u, 0x00000002u, 0x3c000001u, 0x00000003u, 0x00000004u,
        0x3c000000u, 0x77fffffeu, 0x77fffffdu, 0x77880001u, 0x5a000001u, 0x69000001u,
        0x77fffff2u, 0x00780000u, 0x07800000u, 0x0000000fu,
    };
};

// Plonky3 default_babybear_poseidon2_24()
// source: Plonky3/Plonky3@5dc50e51436a baby-bear/src/poseidon2.rs
// JSON instance 'plonky3_default_babybear_w24'; 1 upstream vector(s) re-checked by the generator.
struct BabyBearW24 {
    using Field = ::gp::BabyBear;
    using T = Field::T;
    static constexpr int WIDTH = 24;
    static constexpr int ROUNDS_P = 21;
    static constexpr int SBOX_DEGREE = 7;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::Plonky3;
    static constexpr const char *SOURCE = "plonky3_default_babybear_w24";
    static constexpr T external_initial[4][24] = {
        {
            0x0fa20c37u, 0x0795bb97u, 0x12c60b9cu, 0x0eabd88eu, 0x096485cau, 0x07093527u,
            0x1b1d4e50u, 0x30a01aceu, 0x3bd86f5au, 0x69af7c28u, 0x3f94775fu, 0x731560e8u,
            0x465a0ecdu, 0x574ef807u, 0x62fd4870u, 0x52ccfe44u, 0x14772b14u, 0x4dedf371u,
            0x260acd7cu, 0x1f51dc58u, 0x75125532u, 0x686a4d7bu, 0x54bac179u, 0x31947706u,
        },
        {
            0x29799d3bu, 0x6e01ae90u, 0x203a7a64u, 0x4f7e25beu, 0x72503f77u, 0x45bd3b69u,
            0x769bd6b4u, 0x5a867f08u, 0x4fdba082u, 0x251c4318u, 0x28f06201u, 0x6788c43au,
            0x4c6d6a99u, 0x357784a8u, 0x2abaf051u, 0x770f7de6u, 0x1794b784u, 0x4796c57au,
            0x724b7a10u, 0x449989a7u, 0x64935cf1u, 0x59e14aacu, 0x0e620bb8u, 0x3af5a33bu,
        },
        {
            0x4465cc0eu, 0x019df68fu, 0x4af8d068u, 0x08784f82u, 0x0cefdeaeu, 0x6337a467u,
            0x32fa7a16u, 0x486f62d6u, 0x386a7480u, 0x20f17c4au, 0x54e50da8u, 0x2012cf03u,
            0x5fe52950u, 0x09afb6cdu, 0x2523044eu, 0x5c54d0efu, 0x71c01f3cu, 0x60b2c4fbu,
            0x4050b379u, 0x5e6a70a5u, 0x418543f5u, 0x71debe56u, 0x1aad2994u, 0x3368a483u,
        },
        {
            0x07a86f3au, 0x5ea43ff1u, 0x2443780eu, 0x4ce444f7u, 0x146f9882u, 0x3132b089u,
            0x197ea856u, 0x667030c3u, 0x2317d5dcu, 0x0c2c48a7u, 0x56b2df66u, 0x67bd81e9u,
            0x4fcdfb19u, 0x4baaef32u, 0x0328d30au, 0x6235760du, 0x12432912u, 0x0a49e258u,
            0x030e1b70u, 0x48caeb03u, 0x49e4d9e9u, 0x1051b5c6u, 0x6a36dbbeu, 0x4cff27a5u,
        },
    };
    static constexpr T internal[21] = {
        0x1da78ec2u, 0x730b0924u, 0x3eb56cf3u, 0x5bd93073u, 0x37204c97u, 0x51642d89u,
        0x66e943e8u, 0x1a3e72deu, 0x70beb1e9u, 0x30ff3b3fu, 0x4240d1c4u, 0x12647b8du,
        0x65d86965u, 0x49ef4d7cu, 0x47785697u, 0x46b3969fu, 0x5c7b7a0eu, 0x7078fc60u,
        0x4f22d482u, 0x482a9aeeu, 0x6beb839du,
    };
    static constexpr T external_terminal[4][24] = {
        {
            0x032959adu, 0x2b18af6au, 0x55d3dc8cu, 0x43bd26c8u, 0x0c41595fu, 0x7048d2e2u,
            0x00db8983u, 0x2af563d7u, 0x6e84758fu, 0x611d64e1u, 0x1f9977e2u, 0x64163a0au,
            0x5c5fc27bu, 0x02e22561u, 0x3a2d75dbu, 0x1ba7b71au, 0x34343f64u, 0x7406b35du,
            0x19df8299u, 0x6ff4480au, 0x514a81c8u, 0x57ab52ceu, 0x6ad69f52u, 0x3e0c0e0du,
        },
        {
            0x48126114u, 0x2a9d62ccu, 0x17441f23u, 0x485762bbu, 0x2f218674u, 0x06fdc64au,
            0x0861b7f2u, 0x3b36eee6u, 0x70a11040u, 0x04b31737u, 0x3722a872u, 0x2a351c63u,
            0x623560dcu, 0x62584ab2u, 0x382c7c04u, 0x3bf9edc7u, 0x0e38fe51u, 0x376f3b10u,
            0x5381e178u, 0x3afc61c7u, 0x5c1bcb4du, 0x6643ce1fu, 0x2d0af1c1u, 0x08f583ccu,
        },
        {
            0x5d6ff60fu, 0x6324c1e5u, 0x74412fb7u, 0x70c0192eu, 0x0b72f141u, 0x4067a111u,
            0x57388c4fu, 0x351009ecu, 0x0974c159u, 0x539a58b3u, 0x038c0cffu, 0x476c0392u,
            0x3f7bc15fu, 0x4491dd2cu, 0x4d1fef55u, 0x04936ae3u, 0x58214dd4u, 0x683c6aadu,
            0x1b42f16bu, 0x6dc79135u, 0x2d4e71ecu, 0x3e2946eau, 0x59dce8dbu, 0x6cee892au,
        },
        {
            0x47f07350u, 0x7106ce93u, 0x3bd4a7a9u, 0x2bfe636au, 0x430011e9u, 0x001cd66au,
            0x307faf5bu, 0x0d9ef3feu, 0x6d40043au, 0x2e8f470cu, 0x1b6865e8u, 0x0c0e6c01u,
            0x4d41981fu, 0x423b9d3du, 0x410408ccu, 0x263f0884u, 0x5311bbd0u, 0x4dae58d8u,
            0x30401ceau, 0x09afa575u, 0x4b3d5b42u, 0x63ac0b37u, 0x5fe5bb14u, 0x5244e9d4u,
        },
    };
    static constexpr T internal_diag[24] = {
        0x77ffffffu, 0x00000001u, 0x00000002u, 0x3c000001u, 0x00000003u, 0x00000004u,
        0x3c000000u, 0x77fffffeu, 0x77fffffdu, 0x77880001u, 0x5a000001u, 0x69000001u,
        0x70800001u, 0x77100001u, 0x77c40001u, 0x77fffff2u, 0x00780000u, 0x1e000000u,
        0x0f000000u, 0x07800000u, 0x03c00000u, 0x01e00000u, 0x00f00000u, 0x0000000fu,
    };
};

// Plonky3 default_babybear_poseidon2_32()
// source: Plonky3/Plonky3@5dc50e51436a baby-bear/src/poseidon2.rs
// JSON instance 'plonky3_default_babybear_w32'; 1 upstream vector(s) re-checked by the generator.
struct BabyBearW32 {
    using Field = ::gp::BabyBear;
    using T = Field::T;
    static constexpr int WIDTH = 32;
    static constexpr int ROUNDS_P = 30;
    static constexpr int SBOX_DEGREE = 7;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::Plonky3;
    static constexpr const char *SOURCE = "plonky3_default_babybear_w32";
    static constexpr T external_initial[4][32] = {
        {
            0x6710e381u, 0x01ab3dadu, 0x49bdc51fu, 0x41c98c65u, 0x23885d8au, 0x24ea7d7cu,
            0x6b65fc6du, 0x6106615au, 0x084957f3u, 0x157c3634u, 0x4dada10fu, 0x6cdfa46du,
            0x1bf208beu, 0x5bd22facu, 0x4c8bcbdfu, 0x27f79490u, 0x70495412u, 0x2a41844eu,
            0x51bb69f1u, 0x3215dc21u, 0x67114819u, 0x27aa6a09u, 0x5f4d3cadu, 0x5fd6c724u,
            0x1b4c108du, 0x5799d04du, 0x568c212fu, 0x680821dbu, 0x62073729u, 0x229ee780u,
            0x3b4f94c3u, 0x17a3ac54u,
        },
        {
            0x6c388279u, 0x4876fe55u, 0x3170f20au, 0x33703e4eu, 0x03980ab1u, 0x012fb0fau,
            0x145ee8dbu, 0x49815b30u, 0x46ad879cu, 0x52bc503du, 0x586530d7u, 0x5c36f9e5u,
            0x028e6503u, 0x08310368u, 0x75546646u, 0x732516f1u, 0x33483e5au, 0x04a0842cu,
            0x1a3135d9u, 0x537b2eb1u, 0x5baf4f77u, 0x4b78cd6du, 0x5aed2c4au, 0x66c893e1u,
            0x3c5493a6u, 0x46c62bfcu, 0x564e591au, 0x52ded7a7u, 0x00d1032du, 0x2b30d801u,
            0x101dabf7u, 0x2efb21cdu,
        },
        {
            0x4a361c39u, 0x49eff572u, 0x2e13caf4u, 0x016e6799u, 0x1b5cdb44u, 0x17ca2dc6u,
            0x0e500ee0u, 0x0141ca9bu, 0x279b2376u, 0x6647c40bu, 0x0dcaee3cu, 0x16e7fcf9u,
            0x59e6d65cu, 0x1eb730c9u, 0x28607848u, 0x45727f9cu, 0x4e543ffbu, 0x03ee2550u,
            0x010cd54bu, 0x02dc4b76u, 0x2b3a9a3cu, 0x2eabb2d9u, 0x06928553u, 0x2d23b3f5u,
            0x6da322b1u, 0x1527ec07u, 0x0e450b7au, 0x53961612u, 0x20f16b10u, 0x16f00c60u,
            0x4c39d50fu, 0x41d59d76u,
        },
        {
            0x5253f822u, 0x3b53d381u, 0x1b7f470au, 0x5e3d895cu, 0x52658125u, 0x012190d3u,
            0x65563b80u, 0x1d0faa47u, 0x3575b3c9u, 0x4c0d9d20u, 0x18cff09fu, 0x64a7da5cu,
            0x2f140b25u, 0x139f9e31u, 0x66e36bd5u, 0x6442c811u, 0x58879bceu, 0x5fcc87c6u,
            0x6807ae0cu, 0x4111c657u, 0x633c8929u, 0x74962971u, 0x3fc18eb8u, 0x456cf288u,
            0x31f6c8d2u, 0x6c3a31a8u, 0x6d82df50u, 0x3d432793u, 0x4195a297u, 0x6bce9b95u,
            0x3c822af0u, 0x7629e5b3u,
        },
    };
    static constexpr T internal[30] = {
        0x3dddd04eu, 0x5a3d0558u, 0x763e6c75u, 0x676f1d88u, 0x77b82255u, 0x25df8a51u,
        0x697c3b10u, 0x03cf6edfu, 0x12b54f78u, 0x6633d534u, 0x426fbcb7u, 0x554665dcu,
        0x5689bdb2u, 0x12e747deu, 0x60c28745u, 0x11ca4ba5u, 0x3f0f9583u, 0x56c7d993u,
        0x20f6875fu, 0x69e597c8u, 0x3c911573u, 0x29c7f702u, 0x1a58e115u, 0x29113198u,
        0x776b289fu, 0x1e922ee2u, 0x2165fbf0u, 0x28ccaf78u, 0x1983287du, 0x492b22e0u,
    };
    static constexpr T external_terminal[4][32] = {
        {
            0x77cc4657u, 0x39005c27u, 0x48cd8089u, 0x267cfcbbu, 0x1c41ca85u, 0x41b3943fu,
            0x20e7727au, 0x64ad78f3u, 0x13dd4413u, 0x1042e3dcu, 0x74adeb2cu, 0x2dcdd3c7u,
            0x06006fbcu, 0x35a609e9u, 0x0daf273cu, 0x3a4f694fu, 0x59fd101du, 0x27d2112bu,
            0x1937b69fu, 0x2e8880bcu, 0x40c12429u, 0x067965a6u, 0x6ea1b36du, 0x6e01476eu,
            0x29cd718au, 0x5406c693u, 0x51de2e9au, 0x6ddc388au, 0x53763473u, 0x17a25cbfu,
            0x1f2982cdu, 0x19ca5afdu,
        },
        {
            0x2d703c93u, 0x0c2840e4u, 0x2cda82cdu, 0x5c7f51e0u, 0x1db58806u, 0x3cb62bd1u,
            0x2b45461bu, 0x6204ba50u, 0x6857f0bcu, 0x4af2a368u, 0x32c146f4u, 0x1acfdd93u,
            0x2dc39570u, 0x0dbdeb4eu, 0x50bef84du, 0x6f83a22cu, 0x434c3741u, 0x2060e160u,
            0x68f58f0bu, 0x2529b2bdu, 0x112c4768u, 0x70409ce2u, 0x1b57460eu, 0x21dc818cu,
            0x5f6b5330u, 0x443f8fbau, 0x211a90deu, 0x591d4a30u, 0x5b5a3e75u, 0x635c333au,
            0x1efd6a70u, 0x5d35445fu,
        },
        {
            0x5637cf22u, 0x6e9ba8b1u, 0x10b54e2cu, 0x04291eb8u, 0x2d4ea543u, 0x720a5c61u,
            0x1a5b6323u, 0x68e176e7u, 0x26149775u, 0x58f30bebu, 0x450402abu, 0x24928255u,
            0x32c59955u, 0x2b5b7261u, 0x6279779fu, 0x599b6a8eu, 0x70d145d3u, 0x3786c4d1u,
            0x11363460u, 0x22ff2181u, 0x4d06fc50u, 0x27a8a3dfu, 0x647df984u, 0x3a748cc3u,
            0x4aa91ea2u, 0x21ead2a1u, 0x50cd5d8du, 0x06d6ffc6u, 0x5bc51117u, 0x45f848bcu,
            0x12c3d5f1u, 0x487f9065u,
        },
        {
            0x1617243cu, 0x5c8774e4u, 0x76bcd3ecu, 0x349c8a4bu, 0x265d6a36u, 0x39fc652eu,
            0x246831a8u, 0x488058fcu, 0x0a5c75d6u, 0x760d4eedu, 0x2d2957adu, 0x6188b6feu,
            0x2084c575u, 0x67c5ff60u, 0x3d6d899bu, 0x2759464au, 0x1e4319d2u, 0x09fef836u,
            0x305660e4u, 0x2437e398u, 0x698e8badu, 0x51a1c08au, 0x6f6b42eau, 0x4e7a622cu,
            0x3359b875u, 0x6fc9bf1du, 0x349ecd95u, 0x402affedu, 0x0e7d1f4au, 0x7568ff95u,
            0x6d26f65bu, 0x527b8ff5u,
        },
    };
    static constexpr T internal_diag[32] = {
        0x77ffffffu, 0x00000001u, 0x00000002u, 0x3c000001u, 0x00000003u, 0x00000004u,
        0x3c000000u, 0x77fffffeu, 0x77fffffdu, 0x77880001u, 0x5a000001u, 0x69000001u,
        0x70800001u, 0x74400001u, 0x76200001u, 0x77100001u, 0x77c40001u, 0x77e20001u,
        0x77f88001u, 0x77fffff2u, 0x00780000u, 0x1e000000u, 0x0f000000u, 0x07800000u,
        0x03c00000u, 0x01e00000u, 0x00f00000u, 0x003c0000u, 0x001e0000u, 0x00078000u,
        0x0001e000u, 0x0000000fu,
    };
};

// HorizenLabs poseidon2 BabyBear width 16 (RC16 / MAT_DIAG16_M_1)
// source: HorizenLabs/poseidon2@055bde3f4782 plain_implementations/src/poseidon2/poseidon2_instance_babybear.rs
// JSON instance 'horizenlabs_babybear_w16'; 0 upstream vector(s) re-checked by the generator.
struct BabyBearHLW16 {
    using Field = ::gp::BabyBear;
    using T = Field::T;
    static constexpr int WIDTH = 16;
    static constexpr int ROUNDS_P = 13;
    static constexpr int SBOX_DEGREE = 7;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::HorizenLabs;
    static constexpr const char *SOURCE = "horizenlabs_babybear_w16";
    static constexpr T external_initial[4][16] = {
        {
            0x69cbb6afu, 0x46ad93f9u, 0x60a00f4eu, 0x6b1297cdu, 0x23189afeu, 0x732e7befu,
            0x72c246deu, 0x2c941900u, 0x0557eedeu, 0x1580496fu, 0x3a3ea77bu, 0x54f3f271u,
            0x0f49b029u, 0x47872fe1u, 0x221e2e36u, 0x1ab7202eu,
        },
        {
            0x487779a6u, 0x3851c9d8u, 0x38dc17c0u, 0x209f8849u, 0x268dcee8u, 0x350c48dau,
            0x5b9ad32eu, 0x0523272bu, 0x3f89055bu, 0x01e894b2u, 0x13ddeddeu, 0x1b2ef334u,
            0x7507d8b4u, 0x6ceeb94eu, 0x52eb6ba2u, 0x50642905u,
        },
        {
            0x05453f3fu, 0x06349efcu, 0x6922787cu, 0x04bfff9cu, 0x768c714au, 0x3e9ff21au,
            0x15737c9cu, 0x2229c807u, 0x0d47f88cu, 0x097e0eccu, 0x27eadba0u, 0x2d7d29e4u,
            0x3502aaa0u, 0x0f475fd7u, 0x29fbda49u, 0x018afffdu,
        },
        {
            0x0315b618u, 0x6d4497d1u, 0x1b171d9eu, 0x52861abdu, 0x2e5d0501u, 0x3ec8646cu,
            0x6e5f250au, 0x148ae8e6u, 0x17f5fa4au, 0x3e66d284u, 0x0051aa3bu, 0x483f7913u,
            0x2cfe5f15u, 0x023427cau, 0x2cc78315u, 0x1e36ea47u,
        },
    };
    static constexpr T internal[13] = {
        0x5a8053c0u, 0x693be639u, 0x3858867du, 0x19334f6bu, 0x128f0fd8u, 0x4e2b1ccbu,
        0x61210ce0u, 0x3c318939u, 0x0b5b2f22u, 0x2edb11d5u, 0x213effdfu, 0x0cac4606u,
        0x241af16du,
    };
    static constexpr T external_terminal[4][16] = {
        {
            0x7290a80du, 0x6f7e5329u, 0x598ec8a8u, 0x76a859a0u, 0x6559e868u, 0x657b83afu,
            0x13271d3fu, 0x1f876063u, 0x0aeeae37u, 0x706e9ca6u, 0x46400ceeu, 0x72a05c26u,
            0x2c589c9eu, 0x20bd37a7u, 0x6a2d3d10u, 0x20523767u,
        },
        {
            0x5b8fe9c4u, 0x2aa501d6u, 0x1e01ac3eu, 0x1448bc54u, 0x5ce5ad1cu, 0x4918a14du,
            0x2c46a83fu, 0x4fcf6876u, 0x61d8d5c8u, 0x6ddf4ff9u, 0x11fda4d3u, 0x02933a8fu,
            0x170eaf81u, 0x5a9c314fu, 0x49a12590u, 0x35ec52a1u,
        },
        {
            0x58eb1611u, 0x5e481e65u, 0x367125c9u, 0x0eba33bau, 0x1fc28dedu, 0x066399adu,
            0x0cbec0eau, 0x75fd1af0u, 0x50f5bf4eu, 0x643d5f41u, 0x6f4fe718u, 0x5b3cbbdeu,
            0x1e3afb3eu, 0x296fb027u, 0x45e1547bu, 0x4a8db2abu,
        },
        {
            0x59986d19u, 0x30bcdfa3u, 0x1db63932u, 0x1d7c2824u, 0x53b33681u, 0x0673b747u,
            0x038a98a3u, 0x2c5bce60u, 0x351979cdu, 0x5008fb73u, 0x547bca78u, 0x711af481u,
            0x3f93bf64u, 0x644d987bu, 0x3c8bcd87u, 0x608758b8u,
        },
    };
    static constexpr T internal_diag[16] = {
        0x0a632d94u, 0x6db657b7u, 0x56fbdc9eu, 0x052b3d8au, 0x33745201u, 0x5c03108cu,
        0x0beba37bu, 0x258c2e8bu, 0x12029f39u, 0x694909ceu, 0x6d231724u, 0x21c3b222u,
        0x3c0904a5u, 0x01d6acdau, 0x27705c83u, 0x5231c802u,
    };
};

// HorizenLabs poseidon2 BabyBear width 24 (RC24 / MAT_DIAG24_M_1)
// source: HorizenLabs/poseidon2@055bde3f4782 plain_implementations/src/poseidon2/poseidon2_instance_babybear.rs
// JSON instance 'horizenlabs_babybear_w24'; 1 upstream vector(s) re-checked by the generator.
struct BabyBearHLW24 {
    using Field = ::gp::BabyBear;
    using T = Field::T;
    static constexpr int WIDTH = 24;
    static constexpr int ROUNDS_P = 21;
    static constexpr int SBOX_DEGREE = 7;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::HorizenLabs;
    static constexpr const char *SOURCE = "horizenlabs_babybear_w24";
    static constexpr T external_initial[4][24] = {
        {
            0x0fa20c37u, 0x0795bb97u, 0x12c60b9cu, 0x0eabd88eu, 0x096485cau, 0x07093527u,
            0x1b1d4e50u, 0x30a01aceu, 0x3bd86f5au, 0x69af7c28u, 0x3f94775fu, 0x731560e8u,
            0x465a0ecdu, 0x574ef807u, 0x62fd4870u, 0x52ccfe44u, 0x14772b14u, 0x4dedf371u,
            0x260acd7cu, 0x1f51dc58u, 0x75125532u, 0x686a4d7bu, 0x54bac179u, 0x31947706u,
        },
        {
            0x29799d3bu, 0x6e01ae90u, 0x203a7a64u, 0x4f7e25beu, 0x72503f77u, 0x45bd3b69u,
            0x769bd6b4u, 0x5a867f08u, 0x4fdba082u, 0x251c4318u, 0x28f06201u, 0x6788c43au,
            0x4c6d6a99u, 0x357784a8u, 0x2abaf051u, 0x770f7de6u, 0x1794b784u, 0x4796c57au,
            0x724b7a10u, 0x449989a7u, 0x64935cf1u, 0x59e14aacu, 0x0e620bb8u, 0x3af5a33bu,
        },
        {
            0x4465cc0eu, 0x019df68fu, 0x4af8d068u, 0x08784f82u, 0x0cefdeaeu, 0x6337a467u,
            0x32fa7a16u, 0x486f62d6u, 0x386a7480u, 0x20f17c4au, 0x54e50da8u, 0x2012cf03u,
            0x5fe52950u, 0x09afb6cdu, 0x2523044eu, 0x5c54d0efu, 0x71c01f3cu, 0x60b2c4fbu,
            0x4050b379u, 0x5e6a70a5u, 0x418543f5u, 0x71debe56u, 0x1aad2994u, 0x3368a483u,
        },
        {
            0x07a86f3au, 0x5ea43ff1u, 0x2443780eu, 0x4ce444f7u, 0x146f9882u, 0x3132b089u,
            0x197ea856u, 0x667030c3u, 0x2317d5dcu, 0x0c2c48a7u, 0x56b2df66u, 0x67bd81e9u,
            0x4fcdfb19u, 0x4baaef32u, 0x0328d30au, 0x6235760du, 0x12432912u, 0x0a49e258u,
            0x030e1b70u, 0x48caeb03u, 0x49e4d9e9u, 0x1051b5c6u, 0x6a36dbbeu, 0x4cff27a5u,
        },
    };
    static constexpr T internal[21] = {
        0x1da78ec2u, 0x730b0924u, 0x3eb56cf3u, 0x5bd93073u, 0x37204c97u, 0x51642d89u,
        0x66e943e8u, 0x1a3e72deu, 0x70beb1e9u, 0x30ff3b3fu, 0x4240d1c4u, 0x12647b8du,
        0x65d86965u, 0x49ef4d7cu, 0x47785697u, 0x46b3969fu, 0x5c7b7a0eu, 0x7078fc60u,
        0x4f22d482u, 0x482a9aeeu, 0x6beb839du,
    };
    static constexpr T external_terminal[4][24] = {
        {
            0x032959adu, 0x2b18af6au, 0x55d3dc8cu, 0x43bd26c8u, 0x0c41595fu, 0x7048d2e2u,
            0x00db8983u, 0x2af563d7u, 0x6e84758fu, 0x611d64e1u, 0x1f9977e2u, 0x64163a0au,
            0x5c5fc27bu, 0x02e22561u, 0x3a2d75dbu, 0x1ba7b71au, 0x34343f64u, 0x7406b35du,
            0x19df8299u, 0x6ff4480au, 0x514a81c8u, 0x57ab52ceu, 0x6ad69f52u, 0x3e0c0e0du,
        },
        {
            0x48126114u, 0x2a9d62ccu, 0x17441f23u, 0x485762bbu, 0x2f218674u, 0x06fdc64au,
            0x0861b7f2u, 0x3b36eee6u, 0x70a11040u, 0x04b31737u, 0x3722a872u, 0x2a351c63u,
            0x623560dcu, 0x62584ab2u, 0x382c7c04u, 0x3bf9edc7u, 0x0e38fe51u, 0x376f3b10u,
            0x5381e178u, 0x3afc61c7u, 0x5c1bcb4du, 0x6643ce1fu, 0x2d0af1c1u, 0x08f583ccu,
        },
        {
            0x5d6ff60fu, 0x6324c1e5u, 0x74412fb7u, 0x70c0192eu, 0x0b72f141u, 0x4067a111u,
            0x57388c4fu, 0x351009ecu, 0x0974c159u, 0x539a58b3u, 0x038c0cffu, 0x476c0392u,
            0x3f7bc15fu, 0x4491dd2cu, 0x4d1fef55u, 0x04936ae3u, 0x58214dd4u, 0x683c6aadu,
            0x1b42f16bu, 0x6dc79135u, 0x2d4e71ecu, 0x3e2946eau, 0x59dce8dbu, 0x6cee892au,
        },
        {
            0x47f07350u, 0x7106ce93u, 0x3bd4a7a9u, 0x2bfe636au, 0x430011e9u, 0x001cd66au,
            0x307faf5bu, 0x0d9ef3feu, 0x6d40043au, 0x2e8f470cu, 0x1b6865e8u, 0x0c0e6c01u,
            0x4d41981fu, 0x423b9d3du, 0x410408ccu, 0x263f0884u, 0x5311bbd0u, 0x4dae58d8u,
            0x30401ceau, 0x09afa575u, 0x4b3d5b42u, 0x63ac0b37u, 0x5fe5bb14u, 0x5244e9d4u,
        },
    };
    static constexpr T internal_diag[24] = {
        0x409133f0u, 0x1667a8a1u, 0x06a6c7b6u, 0x6f53160eu, 0x273b11d1u, 0x03176c5du,
        0x72f9bbf9u, 0x73ceba91u, 0x5cdef81du, 0x01393285u, 0x46daee06u, 0x065d7ba6u,
        0x52d72d6fu, 0x05dd05e0u, 0x3bab4b63u, 0x6ada3842u, 0x2fc5fbecu, 0x770d61b0u,
        0x5715aae9u, 0x03ef0e90u, 0x75b6c770u, 0x242adf5fu, 0x00d0ca4cu, 0x36c0e388u,
    };
};

// Plonky3 default_koalabear_poseidon2_16()
// source: Plonky3/Plonky3@5dc50e51436a koala-bear/src/poseidon2.rs
// JSON instance 'plonky3_default_koalabear_w16'; 1 upstream vector(s) re-checked by the generator.
struct KoalaBearW16 {
    using Field = ::gp::KoalaBear;
    using T = Field::T;
    static constexpr int WIDTH = 16;
    static constexpr int ROUNDS_P = 20;
    static constexpr int SBOX_DEGREE = 3;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::Plonky3;
    static constexpr const char *SOURCE = "plonky3_default_koalabear_w16";
    static constexpr T external_initial[4][16] = {
        {
            0x7ee56a48u, 0x11367045u, 0x12e41941u, 0x7ebbc12bu, 0x1970b7d5u, 0x662b60e8u,
            0x3e4990c6u, 0x679f91f5u, 0x350813bbu, 0x00874ad4u, 0x28a0081au, 0x18fa5872u,
            0x5f25b071u, 0x5e5d5998u, 0x5e6fd3e7u, 0x5b2e2660u,
        },
        {
            0x6f1837bfu, 0x3fe6182bu, 0x1edd7ac5u, 0x57470d00u, 0x43d486d5u, 0x1982c70fu,
            0x0ea53af9u, 0x61d6165bu, 0x51639c00u, 0x2dec352cu, 0x2950e531u, 0x2d2cb947u,
            0x08256cefu, 0x1a0109f6u, 0x1f51faf3u, 0x5cef1c62u,
        },
        {
            0x3d65e50eu, 0x33d91626u, 0x133d5a1eu, 0x0ff49b0du, 0x38900cd1u, 0x2c22cc3fu,
            0x28852bb2u, 0x06c65a02u, 0x7b2cf7bcu, 0x68016e1au, 0x15e16bc0u, 0x5248149au,
            0x6dd212a0u, 0x18d6830au, 0x5001be82u, 0x64dac34eu,
        },
        {
            0x5902b287u, 0x426583a0u, 0x0c921632u, 0x3fe028a5u, 0x245f8e49u, 0x43bb297eu,
            0x7873dbd9u, 0x3cc987dfu, 0x286bb4ceu, 0x640a8dcdu, 0x512a8e36u, 0x03a4cf55u,
            0x481837a2u, 0x03d6da84u, 0x73726ac7u, 0x760e7fdfu,
        },
    };
    static constexpr T internal[20] = {
        0x54dfeb5du, 0x7d40afd6u, 0x722cb316u, 0x106a4573u, 0x45a7ccdbu, 0x44061375u,
        0x154077a5u, 0x45744faau, 0x4eb5e5eeu, 0x3794e83fu, 0x47c7093cu, 0x5694903cu,
        0x69cb6299u, 0x373df84cu, 0x46a0df58u, 0x46b8758au, 0x3241ebcbu, 0x0b09d233u,
        0x1af42357u, 0x1e66cec2u,
    };
    static constexpr T external_terminal[4][16] = {
        {
            0x43e7dc24u, 0x259a5d61u, 0x27e85a3bu, 0x1b9133fau, 0x343e5628u, 0x485cd4c2u,
            0x16e269f5u, 0x165b60c6u, 0x25f683d9u, 0x124f81f9u, 0x174331f9u, 0x77344dc5u,
            0x5a821dbau, 0x5fc4177fu, 0x54153bf5u, 0x5e3f1194u,
        },
        {
            0x3bdbf191u, 0x088c84a3u, 0x68256c9bu, 0x3c90bbc6u, 0x6846166au, 0x03f4238du,
            0x463335fbu, 0x5e3d3551u, 0x6e59ae6fu, 0x32d06cc0u, 0x596293f3u, 0x6c87edb2u,
            0x08fc60b5u, 0x34bcca80u, 0x24f007f3u, 0x62731c6fu,
        },
        {
            0x1e1db6c6u, 0x0ca409bbu, 0x585c1e78u, 0x56e94edcu, 0x16d22734u, 0x18e11467u,
            0x7b2c3730u, 0x770075e4u, 0x35d1b18cu, 0x22be3db5u, 0x4fb1fbb7u, 0x477cb3edu,
            0x7d5311c6u, 0x5b62ae7du, 0x559c5fa8u, 0x77f15048u,
        },
        {
            0x3211570bu, 0x490fef6au, 0x77ec311fu, 0x2247171bu, 0x4e0ac711u, 0x2edf69c9u,
            0x3b5a8850u, 0x65809421u, 0x5619b4aau, 0x362019a7u, 0x6bf9d4edu, 0x5b413dffu,
            0x617e181eu, 0x5e7ab57bu, 0x33ad7833u, 0x3466c7cau,
        },
    };
    static constexpr T internal_diag[16] = {
        0x7effffffu, 0x00000001u, 0x00000002u, 0x3f800001u, 0x00000003u, 0x00000004u,
        0x3f800000u, 0x7efffffeu, 0x7efffffdu, 0x7e810001u, 0x6f200001u, 0x7effff82u,
        0x007f0000u, 0x0fe00000u, 0x07f00000u, 0x0000007fu,
    };
};

// Plonky3 default_koalabear_poseidon2_24()
// source: Plonky3/Plonky3@5dc50e51436a koala-bear/src/poseidon2.rs
// JSON instance 'plonky3_default_koalabear_w24'; 1 upstream vector(s) re-checked by the generator.
struct KoalaBearW24 {
    using Field = ::gp::KoalaBear;
    using T = Field::T;
    static constexpr int WIDTH = 24;
    static constexpr int ROUNDS_P = 23;
    static constexpr int SBOX_DEGREE = 3;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::Plonky3;
    static constexpr const char *SOURCE = "plonky3_default_koalabear_w24";
    static constexpr T external_initial[4][24] = {
        {
            0x1d0939dcu, 0x6d050f8du, 0x628058adu, 0x2681385du, 0x3e3c62beu, 0x032cfad8u,
            0x5a91ba3cu, 0x015a56e6u, 0x696b889cu, 0x0dbcd780u, 0x5881b5c9u, 0x2a076f2eu,
            0x55393055u, 0x6513a085u, 0x547ac78fu, 0x4281c5b8u, 0x3e7a3f6cu, 0x34562c19u,
            0x2c04e679u, 0x0ed78234u, 0x5f7a1aa9u, 0x0177640eu, 0x0ea4f8d1u, 0x15be7692u,
        },
        {
            0x6eafdd62u, 0x71a572c6u, 0x72416f0au, 0x31ce1ad3u, 0x2136a0cfu, 0x1507c0ebu,
            0x1eb6e07au, 0x3a0ccf7bu, 0x38e4bf31u, 0x44128286u, 0x6b05e976u, 0x244a9b92u,
            0x6e4b32a8u, 0x78ee2496u, 0x4761115bu, 0x3d3a7077u, 0x75d3c670u, 0x396a2475u,
            0x26dd00b4u, 0x7df50f59u, 0x0cb922dfu, 0x0568b190u, 0x5bd3fcd6u, 0x1351f58eu,
        },
        {
            0x52191b5fu, 0x119171b8u, 0x1e8bb727u, 0x27d21f26u, 0x36146613u, 0x1ee817a2u,
            0x71abe84eu, 0x44b88070u, 0x5dc04410u, 0x2aeaa2f6u, 0x2b7bb311u, 0x6906884du,
            0x0522e053u, 0x0c45a214u, 0x1b016998u, 0x479b1052u, 0x3acc89beu, 0x0776021au,
            0x7a34a1f5u, 0x70f87911u, 0x2caf9d9eu, 0x026aff1bu, 0x2c42468eu, 0x67726b45u,
        },
        {
            0x09b6f53cu, 0x73d76589u, 0x5793eeb0u, 0x29e720f3u, 0x75fc8bdfu, 0x4c2fae0eu,
            0x20b41db3u, 0x7e491510u, 0x2cadef18u, 0x57fc24d6u, 0x4d1ade4au, 0x36bf8e3cu,
            0x3511b63cu, 0x64d8476fu, 0x732ba706u, 0x46634978u, 0x0521c17cu, 0x5ee69212u,
            0x3559cba9u, 0x2b33df89u, 0x653538d6u, 0x5fde8344u, 0x4091605du, 0x2933bddeu,
        },
    };
    static constexpr T internal[23] = {
        0x1395d4cau, 0x5dbac049u, 0x51fc2727u, 0x13407399u, 0x39ac6953u, 0x45e8726cu,
        0x75a7311cu, 0x599f82c9u, 0x702cf13bu, 0x026b8955u, 0x44e09bbcu, 0x2211207fu,
        0x5128b4e3u, 0x591c41afu, 0x674f5c68u, 0x3981d0d3u, 0x2d82f898u, 0x707cd267u,
        0x3b4cca45u, 0x2ad0dc3cu, 0x0cb79b37u, 0x23f2f4e8u, 0x3de4e739u,
    };
    static constexpr T external_terminal[4][24] = {
        {
            0x7d232359u, 0x389d82f9u, 0x259b2e6cu, 0x45a94defu, 0x0d497380u, 0x5b049135u,
            0x3c268399u, 0x78feb2f9u, 0x300a3eecu, 0x505165bbu, 0x20300973u, 0x2327c081u,
            0x1a45a2f4u, 0x5b32ea2eu, 0x2d5d1a70u, 0x053e613eu, 0x5433e39fu, 0x495529f0u,
            0x1eaa1aa9u, 0x578f572au, 0x698ede71u, 0x5a0f9dbau, 0x398a2e96u, 0x0c7b2925u,
        },
        {
            0x2e6b9564u, 0x026b00deu, 0x7644c1e9u, 0x5c23d0bdu, 0x3470b5efu, 0x6013cf3au,
            0x48747288u, 0x13b7a543u, 0x3eaebd44u, 0x0004e60cu, 0x1e8363a2u, 0x2343259au,
            0x69da0c2au, 0x06e3e4c4u, 0x1095018eu, 0x0deea348u, 0x1f4c5513u, 0x4f9a3a98u,
            0x3179112bu, 0x524abb1fu, 0x21615ba2u, 0x23ab4065u, 0x1202a1d1u, 0x21d25b83u,
        },
        {
            0x6ed17c2fu, 0x391e6b09u, 0x5e4ed894u, 0x6a2f58f2u, 0x5d980d70u, 0x3fa48c5eu,
            0x1f6366f7u, 0x63540f5fu, 0x6a8235edu, 0x14c12a78u, 0x6edde1c9u, 0x58ce1c22u,
            0x718588bbu, 0x334313adu, 0x7478dbc7u, 0x647ad52fu, 0x39e82049u, 0x6fee146au,
            0x082c2f24u, 0x1f093015u, 0x30173c18u, 0x53f70c0du, 0x6028ab0cu, 0x2f47a1eeu,
        },
        {
            0x26a6780eu, 0x3540bc83u, 0x1812b49fu, 0x5149c827u, 0x631dd925u, 0x001f2deau,
            0x7dc05194u, 0x3789672eu, 0x7cabf72eu, 0x242dbe2fu, 0x0b07a51du, 0x38653650u,
            0x50785c4eu, 0x60e8a7e0u, 0x07464338u, 0x3482d6e1u, 0x08a69f1eu, 0x3f2aff24u,
            0x5814c30du, 0x13fecab2u, 0x61cb291au, 0x68c8226fu, 0x5c757eeau, 0x289b4e1eu,
        },
    };
    static constexpr T internal_diag[24] = {
        0x7effffffu, 0x00000001u, 0x00000002u, 0x3f800001u, 0x00000003u, 0x00000004u,
        0x3f800000u, 0x7efffffeu, 0x7efffffdu, 0x7e810001u, 0x5f400001u, 0x6f200001u,
        0x77100001u, 0x7b080001u, 0x7d040001u, 0x7effff82u, 0x007f0000u, 0x0fe00000u,
        0x07f00000u, 0x03f80000u, 0x01fc0000u, 0x00fe0000u, 0x003f8000u, 0x0000007fu,
    };
};

// Plonky3 default_koalabear_poseidon2_32()
// source: Plonky3/Plonky3@5dc50e51436a koala-bear/src/poseidon2.rs
// JSON instance 'plonky3_default_koalabear_w32'; 1 upstream vector(s) re-checked by the generator.
struct KoalaBearW32 {
    using Field = ::gp::KoalaBear;
    using T = Field::T;
    static constexpr int WIDTH = 32;
    static constexpr int ROUNDS_P = 31;
    static constexpr int SBOX_DEGREE = 3;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::Plonky3;
    static constexpr const char *SOURCE = "plonky3_default_koalabear_w32";
    static constexpr T external_initial[4][32] = {
        {
            0x6cbcbbb5u, 0x31d46ed6u, 0x1752884bu, 0x2147e0b9u, 0x30268ec8u, 0x24854c55u,
            0x2ad2a8edu, 0x5af10aaau, 0x22c32c33u, 0x5e3b2427u, 0x4c1c623au, 0x7ef45d95u,
            0x42c0aa17u, 0x59349a46u, 0x5532352au, 0x346e0330u, 0x2fa4db76u, 0x29f90612u,
            0x096bb607u, 0x0e81a6cbu, 0x5069eb07u, 0x7969a482u, 0x5cec76a5u, 0x2ec28c4eu,
            0x3e06d352u, 0x5b00dfd7u, 0x02931eb9u, 0x34d9652bu, 0x25a15f1du, 0x6a941abeu,
            0x642da572u, 0x02c813cdu,
        },
        {
            0x2ccb3c08u, 0x73ffa278u, 0x38df69abu, 0x12bdc123u, 0x00c2bcafu, 0x02d14932u,
            0x703122cdu, 0x1d992510u, 0x31d76d0eu, 0x2d50980cu, 0x1eb8e3b9u, 0x7e46bbcbu,
            0x0f2458e3u, 0x2c7ad6b7u, 0x27006d3au, 0x1d99231du, 0x6784d824u, 0x08f002f4u,
            0x40be37dau, 0x61600ad5u, 0x47106494u, 0x567d108au, 0x1cec22d7u, 0x472ab65fu,
            0x53de0b8au, 0x58934eadu, 0x6ad7cb58u, 0x79c06e0cu, 0x1693cf73u, 0x4dc89cdbu,
            0x6789658cu, 0x120c0a2fu,
        },
        {
            0x13163e2cu, 0x1fb6cb8bu, 0x31a3c44eu, 0x2927575bu, 0x203414a7u, 0x3b9d6233u,
            0x7552d671u, 0x198f4f5cu, 0x28154355u, 0x4f120cebu, 0x1fb7bdb2u, 0x6d3ed994u,
            0x348c01deu, 0x31b3da0cu, 0x26921554u, 0x3b6e033fu, 0x6f8832ecu, 0x262573fau,
            0x3d144e77u, 0x6406d2eau, 0x7b083af4u, 0x3a059440u, 0x2f212c5fu, 0x37b332bdu,
            0x6ad0067eu, 0x0d45a598u, 0x5ab2ee24u, 0x01b4a052u, 0x73c6ce43u, 0x68dfc9bdu,
            0x098578f6u, 0x2aebc78du,
        },
        {
            0x0f001512u, 0x740cefecu, 0x381af84eu, 0x5b59b365u, 0x239f96dau, 0x66055d99u,
            0x587ae9a9u, 0x10d4d005u, 0x1bddc199u, 0x69f5a006u, 0x1878e207u, 0x6a9c9b74u,
            0x1fc4723bu, 0x5bd65f4au, 0x64326a74u, 0x549a5168u, 0x549fbce6u, 0x6e71c982u,
            0x6ccc2aa2u, 0x5f9f5bb2u, 0x4214374bu, 0x43740726u, 0x72ba084au, 0x55aeb581u,
            0x741f0cf4u, 0x1e670eb7u, 0x0ac2add2u, 0x058e31e1u, 0x42b40e1bu, 0x480f67deu,
            0x581b588fu, 0x1a482069u,
        },
    };
    static constexpr T internal[31] = {
        0x5462b710u, 0x50e5b2b2u, 0x4e35ccbdu, 0x451e41d7u, 0x39801f08u, 0x7a019412u,
        0x31452edcu, 0x3aa05984u, 0x3851d57eu, 0x71b0fdd4u, 0x2f61ea1au, 0x78e7dd6cu,
        0x3b59d897u, 0x7ed20f98u, 0x2b6bc922u, 0x3251876au, 0x5821a296u, 0x2fba6dacu,
        0x60716ce8u, 0x2749384bu, 0x0d77ed6du, 0x10d48539u, 0x014b0138u, 0x4e28fd38u,
        0x1f60aa33u, 0x7c2bd657u, 0x197307d0u, 0x695dde77u, 0x7e724a79u, 0x27ce6eefu,
        0x76eb55a0u,
    };
    static constexpr T external_terminal[4][32] = {
        {
            0x6b68f975u, 0x1d9d19a1u, 0x341b5abeu, 0x32455de3u, 0x466e6036u, 0x170c8de8u,
            0x6cf95055u, 0x1bf29568u, 0x359563f2u, 0x24b22df8u, 0x41dcc75bu, 0x47d4ce2fu,
            0x71c80d43u, 0x45823472u, 0x492599ddu, 0x36b5b94bu, 0x14030388u, 0x74c94443u,
            0x2697c276u, 0x3e6a7e87u, 0x215b54bfu, 0x047b35f0u, 0x2b0ee2d6u, 0x5bc93c0cu,
            0x01055f6au, 0x7590e77cu, 0x6925bc41u, 0x14c669a5u, 0x41ca509du, 0x621de5adu,
            0x488da847u, 0x3e438bc6u,
        },
        {
            0x48721c4cu, 0x046de07eu, 0x3582908du, 0x1f968128u, 0x72812864u, 0x39f41016u,
            0x4f5288deu, 0x0cab0843u, 0x1c129a9du, 0x4607cac6u, 0x15a92452u, 0x52a003f9u,
            0x13f99794u, 0x3e52535au, 0x7950a771u, 0x638def02u, 0x57cdcd6fu, 0x08604d38u,
            0x5aaa6c3au, 0x5d7a8393u, 0x4e989b91u, 0x20ee6733u, 0x34c4e63cu, 0x112b38b0u,
            0x294313adu, 0x0b57bf64u, 0x5c2a2f54u, 0x62d7edadu, 0x3c900343u, 0x6a72c527u,
            0x1be9dfb0u, 0x67730252u,
        },
        {
            0x78261b7cu, 0x44e16766u, 0x6d24808fu, 0x6e35b7b9u, 0x4749dd9au, 0x2e57a6cdu,
            0x28e8475fu, 0x31e1bd4fu, 0x609112b5u, 0x10deabaeu, 0x224c5c01u, 0x64bf4fcfu,
            0x16618202u, 0x166da382u, 0x18a08be8u, 0x6eb4544cu, 0x0b5f55e8u, 0x458cd991u,
            0x221226fau, 0x317e5770u, 0x24cc011bu, 0x063e1a7eu, 0x37c9f0c7u, 0x077e5002u,
            0x3de07f8eu, 0x49132073u, 0x6a2e0147u, 0x22c6a806u, 0x0fded1cfu, 0x4981770fu,
            0x630f9f68u, 0x31669248u,
        },
        {
            0x4c21ea39u, 0x100af84fu, 0x3e225184u, 0x54008359u, 0x229867cbu, 0x61d0c246u,
            0x1f04fd38u, 0x72c99359u, 0x468df15du, 0x3df5699du, 0x1072a5b9u, 0x7cef7c09u,
            0x4b831676u, 0x2631cbd1u, 0x1f8a455bu, 0x4e561bbfu, 0x7d6857ddu, 0x51b82ca2u,
            0x4d1eff98u, 0x0faeb7c8u, 0x51db9b8fu, 0x154e9ff4u, 0x732a4c6bu, 0x5755d2c9u,
            0x7d796f4du, 0x6ed008a4u, 0x16431671u, 0x150905beu, 0x3aed8c8du, 0x666861e6u,
            0x6ab2ed45u, 0x59797352u,
        },
    };
    static constexpr T internal_diag[32] = {
        0x7effffffu, 0x00000001u, 0x00000002u, 0x3f800001u, 0x00000003u, 0x00000004u,
        0x3f800000u, 0x7efffffeu, 0x7efffffdu, 0x7e810001u, 0x5f400001u, 0x6f200001u,
        0x77100001u, 0x7b080001u, 0x7d040001u, 0x7ee04001u, 0x7ef81001u, 0x7efe0401u,
        0x7eff8101u, 0x7effff82u, 0x007f0000u, 0x0fe00000u, 0x07f00000u, 0x03f80000u,
        0x01fc0000u, 0x00fe0000u, 0x003f8000u, 0x001fc000u, 0x0007f000u, 0x0001fc00u,
        0x00007f00u, 0x0000007fu,
    };
};

}  // namespace poseidon2_constants
}  // namespace gp
