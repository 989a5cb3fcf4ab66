package bot

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"

	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"
)

// The Endpoint verifies every request's Ed25519 signature with one public
// key. crypto/ed25519 decompresses the key (a square root in the field) on
// every Verify and computes the verification equation with a generic
// double-scalar multiplication; curve25519-voi takes the key decompressed
// once, with a table of its multiples precomputed (an ExpandedPublicKey,
// about 1.5 KiB), which halves the time of a verification. Its
// VerifyOptionsStdLib preset gives crypto/ed25519's exact rules: S must be
// below the group order (no malleable signatures), R is compared as the
// canonical encoding of the cofactorless equation's result, and small-order
// and non-canonically encoded keys are accepted as crypto/ed25519 accepts
// them. verify_test.go holds the two to the same answers on valid, invalid,
// malleable and small-order cases, and FuzzVerify on any input.

// stdLibRules makes curve25519-voi accept exactly what crypto/ed25519 accepts.
var stdLibRules = &voi.Options{Verify: voi.VerifyOptionsStdLib}

// publicKey is an application's Ed25519 public key, decompressed once for
// every verification to come. A zero publicKey verifies nothing.
type publicKey struct {
	expanded *voi.ExpandedPublicKey
}

// newPublicKey decompresses key. It fails when key is not 32 bytes or is
// not the encoding of a curve point, a key no signature verifies under
// (crypto/ed25519.Verify answers false for it, every time).
func newPublicKey(key ed25519.PublicKey) (publicKey, error) {
	if len(key) != ed25519.PublicKeySize {
		return publicKey{}, fmt.Errorf("public key is %d bytes, want %d", len(key), ed25519.PublicKeySize)
	}
	x, err := voi.NewExpandedPublicKey(voi.PublicKey(key))
	if err != nil {
		return publicKey{}, fmt.Errorf("public key %x is not a point of the curve: %w", []byte(key), err)
	}
	return publicKey{expanded: x}, nil
}

// verify reports whether sig is a valid signature of msg under k, by
// crypto/ed25519.Verify's rules.
func (k publicKey) verify(msg, sig []byte) bool {
	if k.expanded == nil || len(sig) != ed25519.SignatureSize {
		return false
	}
	return voi.VerifyExpandedWithOptions(k.expanded, msg, sig, stdLibRules)
}

// verifySignature reports whether sigHex, the X-Signature-Ed25519 header (128
// hexadecimal digits), is key's Ed25519 signature of signed, which is stamp
// (the X-Signature-Timestamp header) followed by the request body; it also
// returns the decoded 64-byte signature. A missing header, a signature that is
// not hexadecimal or not 64 bytes long, or an empty stamp is false, as in
// discordgo.VerifyInteraction, which this replaces without re-reading the
// body.
func verifySignature(key publicKey, sigHex, stamp string, signed []byte) (sig [ed25519.SignatureSize]byte, ok bool) {
	if stamp == "" || len(sigHex) != 2*ed25519.SignatureSize {
		return sig, false
	}
	var digits [2 * ed25519.SignatureSize]byte
	copy(digits[:], sigHex)
	if _, err := hex.Decode(sig[:], digits[:]); err != nil {
		return sig, false
	}
	return sig, key.verify(signed, sig[:])
}
