# SPDX-License-Identifier: MIT OR Apache-2.0
"""SP1's conventions through the Python binding (stdlib unittest): its
Poseidon2 instances against SP1's own known answers (the all-zero state,
tests/vectors/sp1_poseidon2.json) and its tensor commitment of a 4 x 3
KoalaBear matrix (expected values from the naive model of
tests/test_hash_sp1.cpp, itself checked against SP1's known answers)."""

import array
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpuprover as gp  # noqa: E402


class SP1Test(unittest.TestCase):
    def setUp(self):
        self.ctx = gp.Context(backend=gp.Backend.CPU, cpu_threads=2)

    def tearDown(self):
        self.ctx.close()

    def test_permutations(self):
        P = gp.Permutation
        self.assertEqual((int(P.POSEIDON2_KOALABEAR_16_SP1), int(P.POSEIDON2_BABYBEAR_16_SP1)), (23, 24))
        for perm, field, first2 in (
            (P.POSEIDON2_KOALABEAR_16_SP1, gp.Field.KOALABEAR, [145589356, 1876041682]),
            (P.POSEIDON2_BABYBEAR_16_SP1, gp.Field.BABYBEAR, [348670919, 1568590631]),
        ):
            self.assertEqual(gp.permutation_info(perm), (16, field))
            state = array.array("I", [0] * 16)
            self.ctx.permute_batch(perm, state)
            self.assertEqual(list(state[:2]), first2, perm)

    def test_commitment(self):
        KB = gp.Field.KOALABEAR
        buf = self.ctx.buffer_from_host(KB, array.array("I", range(12)), 4, 3, layout=gp.Layout.ROW_MAJOR)
        tree = self.ctx.merkle_commit(buf, kind=gp.MerkleKind.FIELD_SPONGE,
                                      perm=gp.Permutation.POSEIDON2_KOALABEAR_16_SP1)
        self.assertEqual(tree.root().hex(), "78d03539b94e9664a007dc79502f2437044bc9561d108f09f52e2e05b594347d")
        self.assertEqual(tree.sp1_commitment().hex(),
                         "c9de43374309654003feb36db1659245e116377abbb66808fef0c3343060cd64")
        keccak = self.ctx.merkle_commit(buf, kind=gp.MerkleKind.KECCAK_PLONKY3)
        with self.assertRaises(gp.GpuproverError) as cm:
            keccak.sp1_commitment()
        self.assertEqual(cm.exception.status, gp.Status.UNSUPPORTED)
        self.assertIn("GP_MERKLE_KECCAK_PLONKY3", str(cm.exception))

    def test_coefficient_lde(self):
        """Basefold's encoding: the LDE of coefficients equals the forward
        transform of the zero-padded coefficients on the same coset, and
        differs from the LDE of the same values read as evaluations."""
        KB = gp.Field.KOALABEAR
        coeffs = [(i * 2654435761 + 17) % 2130706433 for i in range(4 * 3)]  # 4 rows x 3 columns, column-major
        for shift in (1, 31):
            enc = self.ctx.lde_host(KB, array.array("I", coeffs), 4, 3, blowup=2, shift=shift,
                                    input_kind=gp.LdeInput.COEFFICIENTS).to_host()
            padded = []
            for c in range(3):
                padded += coeffs[4 * c:4 * c + 4] + [0] * 4
            ref = self.ctx.buffer_from_host(KB, array.array("I", padded), 8, 3)
            self.ctx.ntt(ref, shift=shift)
            self.assertEqual(list(enc), list(ref.to_host()), shift)
            evals = self.ctx.lde_host(KB, array.array("I", coeffs), 4, 3, blowup=2, shift=shift).to_host()
            self.assertNotEqual(list(enc), list(evals))
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.lde_host(KB, array.array("I", coeffs), 4, 3, input_kind=gp.LdeInput.COEFFICIENTS,
                              randomizers=array.array("I", [1, 2, 3]))
        self.assertEqual(cm.exception.status, gp.Status.UNSUPPORTED)
        with self.assertRaises(gp.GpuproverError):
            self.ctx.lde_host(KB, array.array("I", coeffs), 4, 3, input_kind=7)


if __name__ == "__main__":
    unittest.main()
