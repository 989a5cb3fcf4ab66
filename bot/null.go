package bot

import (
	"crypto/ed25519"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// nullReply is the fixed answer of the NullEndpoint: a public message.
var nullReply = []byte(`{"type":4,"data":{"content":"ok"}}`)

// NullEndpoint returns the least any Discord interactions endpoint must do
// for a request, for hpkeeper bench to measure the machine's ceiling on the
// same HTTP stack and load: it reads the body as the Endpoint does (POST only,
// at most MaxBodyBytes), verifies its Ed25519 signature under key as the
// Endpoint does (401 when it fails or the timestamp is more than
// MaxClockSkew from now), and answers every request that passes with one
// fixed reply, without decoding it or remembering it. It returns an error
// when key is not an Ed25519 public key that a signature can verify under.
func NullEndpoint(key ed25519.PublicKey) (http.Handler, error) {
	pk, err := newPublicKey(key)
	if err != nil {
		return nil, fmt.Errorf("null endpoint: %w", err)
	}
	length := strconv.Itoa(len(nullReply))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		stamp := r.Header.Get("X-Signature-Timestamp")
		signed, err := readAfter(http.MaxBytesReader(w, r.Body, MaxBodyBytes), stamp, r.ContentLength)
		if err != nil {
			http.Error(w, "cannot read request body", http.StatusBadRequest)
			return
		}
		if _, ok := verifySignature(pk, r.Header.Get("X-Signature-Ed25519"), stamp, signed); !ok || !freshAt(stamp, time.Now()) {
			http.Error(w, "invalid request signature", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", length)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(nullReply)
	}), nil
}

// freshAt reports whether ts, Unix seconds, is within MaxClockSkew of now.
func freshAt(ts string, now time.Time) bool {
	sec, err := strconv.ParseInt(strings.TrimSpace(ts), 10, 64)
	if err != nil {
		return false
	}
	d := now.Sub(time.Unix(sec, 0))
	return d <= MaxClockSkew && d >= -MaxClockSkew
}
