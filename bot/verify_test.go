package bot

import (
	"crypto/ed25519"
	crand "crypto/rand"
	"encoding/hex"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The curve's small-order points as 32-byte encodings, canonical and not
// (y ≥ p, or x = 0 with the sign bit set), from "Taming the many EdDSAs"
// (Chalkias, Garillot, Nikolaenko, 2020): the keys and R values on which
// Ed25519 implementations disagree.
var smallOrderEncodings = []string{
	"0100000000000000000000000000000000000000000000000000000000000000", // identity
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // order 2
	"0000000000000000000000000000000000000000000000000000000000000080", // order 4
	"0000000000000000000000000000000000000000000000000000000000000000", // order 4
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", // order 8
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa", // order 8
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05", // order 8
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85", // order 8
	"0100000000000000000000000000000000000000000000000000000000000080", // identity, sign bit set
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // identity as y = p+1
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", // the same, sign bit set
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p, i.e. 0
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", // the same, sign bit set
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", // order 2, sign bit set
}

// groupOrder is L, the order of the curve's prime subgroup.
var groupOrder, _ = new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)

// scalarBytes encodes n mod 2^256 as 32 little-endian bytes.
func scalarBytes(n *big.Int) []byte {
	be := new(big.Int).Mod(n, new(big.Int).Lsh(big.NewInt(1), 256)).FillBytes(make([]byte, 32))
	for i, j := 0, 31; i < j; i, j = i+1, j-1 {
		be[i], be[j] = be[j], be[i]
	}
	return be
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameAnswer checks that the expanded key answers as crypto/ed25519 does
// for key, msg and sig; key is 32 bytes.
func sameAnswer(t *testing.T, what string, key, msg, sig []byte) (valid bool) {
	t.Helper()
	want := len(sig) == ed25519.SignatureSize && ed25519.Verify(ed25519.PublicKey(key), msg, sig)
	pk, err := newPublicKey(key)
	if err != nil {
		if want {
			t.Errorf("%s: newPublicKey(%x) = %v, but crypto/ed25519 accepts a signature under it", what, key, err)
		}
		return want
	}
	if got := pk.verify(msg, sig); got != want {
		t.Errorf("%s: verify(key %x, msg %q, sig %x) = %v; crypto/ed25519 says %v", what, key, msg, sig, got, want)
	}
	return want
}

// TestVerifyMatchesStdlib holds the Endpoint's verification (an expanded
// key, verify.go) to crypto/ed25519's answers: valid signatures, every bit
// flipped, S + L (a malleated signature), S ≥ L, small-order and
// non-canonical keys and R values, and keys that are not points.
func TestVerifyMatchesStdlib(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	seed := make([]byte, ed25519.SeedSize)
	msgs := [][]byte{nil, []byte("1700000000{\"type\":1}"), make([]byte, 1500)}
	valid := 0
	for k := range 4 {
		for i := range seed {
			seed[i] = byte(rng.Uint32())
		}
		priv := ed25519.NewKeyFromSeed(seed)
		pub := []byte(priv.Public().(ed25519.PublicKey))
		for _, msg := range msgs {
			sig := ed25519.Sign(priv, msg)
			if !sameAnswer(t, "valid", pub, msg, sig) {
				t.Fatalf("key %d: crypto/ed25519 refuses its own signature", k)
			}
			valid++
			// Every single bit flipped, in the signature and in the key.
			for bit := range 8 * len(sig) {
				bad := append([]byte(nil), sig...)
				bad[bit/8] ^= 1 << (bit % 8)
				if sameAnswer(t, "flipped signature bit", pub, msg, bad) {
					t.Errorf("a signature with bit %d flipped verifies", bit)
				}
			}
			for bit := range 8 * len(pub) {
				badKey := append([]byte(nil), pub...)
				badKey[bit/8] ^= 1 << (bit % 8)
				sameAnswer(t, "flipped key bit", badKey, msg, sig)
			}
			// Malleability: S + L and S + 2^253 (both still 32 bytes).
			s := new(big.Int).SetBytes(reverse(sig[32:]))
			for _, add := range []*big.Int{groupOrder, new(big.Int).Lsh(big.NewInt(1), 253)} {
				m := append(append([]byte(nil), sig[:32]...), scalarBytes(new(big.Int).Add(s, add))...)
				if sameAnswer(t, "malleated S", pub, msg, m) {
					t.Errorf("a signature with S+%v verifies", add)
				}
			}
			// A wrong length never verifies.
			if pk, err := newPublicKey(pub); err != nil || pk.verify(msg, sig[:63]) || pk.verify(msg, append(sig, 0)) {
				t.Errorf("a 63- or 65-byte signature verifies (or the key fails: %v)", err)
			}
		}
	}
	// Small-order and non-canonical keys and R values, with S of 0, 1,
	// L-1, L and random: the cases where implementations part ways.
	scalars := [][]byte{scalarBytes(big.NewInt(0)), scalarBytes(big.NewInt(1)),
		scalarBytes(new(big.Int).Sub(groupOrder, big.NewInt(1))), scalarBytes(groupOrder)}
	for range 4 {
		n, err := crand.Int(randSource{rng}, groupOrder)
		if err != nil {
			t.Fatal(err)
		}
		scalars = append(scalars, scalarBytes(n))
	}
	accepted := 0
	for _, a := range smallOrderEncodings {
		for _, r := range smallOrderEncodings {
			for _, s := range scalars {
				for _, msg := range msgs[:2] {
					sig := append(mustHex(t, r), s...)
					if sameAnswer(t, "small order", mustHex(t, a), msg, sig) {
						accepted++
					}
				}
			}
		}
	}
	// Random 32-byte strings as keys: about half are not points at all.
	for range 64 {
		key := make([]byte, 32)
		for i := range key {
			key[i] = byte(rng.Uint32())
		}
		sig := make([]byte, 64)
		for i := range sig {
			sig[i] = byte(rng.Uint32())
		}
		sameAnswer(t, "random key", key, msgs[1], sig)
	}
	t.Logf("%d valid signatures, %d small-order cases accepted by both", valid, accepted)
	if accepted == 0 {
		t.Error("no small-order case was accepted: the test no longer reaches the cases where implementations differ")
	}
}

// TestNewPublicKeyRefusesNonPoints: a key that is not a curve point (no
// signature ever verifies under it) is an error, as is a wrong length.
func TestNewPublicKeyRefusesNonPoints(t *testing.T) {
	// y = 2 has no x on the curve.
	notPoint := mustHex(t, "0200000000000000000000000000000000000000000000000000000000000000")
	if _, err := newPublicKey(notPoint); err == nil {
		t.Errorf("newPublicKey(%x) = nil error; want an error (not a point)", notPoint)
	}
	if _, err := newPublicKey(make([]byte, 31)); err == nil {
		t.Error("newPublicKey(31 bytes) = nil error")
	}
	var zero publicKey
	if zero.verify([]byte("x"), make([]byte, 64)) {
		t.Error("a zero publicKey verified a signature")
	}
}

// FuzzVerify compares the expanded-key verification with crypto/ed25519 on
// any key, message and signature (seeded with valid and small-order ones).
func FuzzVerify(f *testing.F) {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	pub := []byte(priv.Public().(ed25519.PublicKey))
	for _, msg := range []string{"", "1700000000{\"type\":1}"} {
		f.Add(pub, []byte(msg), ed25519.Sign(priv, []byte(msg)))
	}
	id := mustHex(f, smallOrderEncodings[0])
	f.Add(id, []byte("any"), append(append([]byte(nil), id...), make([]byte, 32)...))
	f.Fuzz(func(t *testing.T, key, msg, sig []byte) {
		if len(key) != ed25519.PublicKeySize {
			return
		}
		sameAnswer(t, "fuzz", key, msg, sig)
	})
}

func reverse(b []byte) []byte {
	out := make([]byte, len(b))
	for i := range b {
		out[len(b)-1-i] = b[i]
	}
	return out
}

// randSource adapts math/rand/v2 to the io.Reader crypto/rand.Int reads.
type randSource struct{ r *rand.Rand }

func (s randSource) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(s.r.Uint32())
	}
	return len(p), nil
}
