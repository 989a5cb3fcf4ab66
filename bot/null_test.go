package bot

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestNullEndpoint: the ceiling hpkeeper bench measures answers a signed
// request with its fixed reply and refuses what the Endpoint refuses before
// decoding: a bad signature, a stale timestamp, another method.
func TestNullEndpoint(t *testing.T) {
	kp := newKeyPair(t)
	h, err := NullEndpoint(kp.pub)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	body := fixture(t, "damage.json")
	if code, out := do(t, srv.Client(), kp.signedRequest(t, srv.URL, body, time.Now())); code != http.StatusOK || string(out) != string(nullReply) {
		t.Errorf("signed request: %d %s; want 200 %s", code, out, nullReply)
	}
	other := newKeyPair(t)
	if code, _ := do(t, srv.Client(), other.signedRequest(t, srv.URL, body, time.Now())); code != http.StatusUnauthorized {
		t.Errorf("request signed with another key: %d; want 401", code)
	}
	if code, _ := do(t, srv.Client(), kp.signedRequest(t, srv.URL, body, time.Now().Add(-2*MaxClockSkew))); code != http.StatusUnauthorized {
		t.Errorf("stale request: %d; want 401", code)
	}
	req := kp.signedRequest(t, srv.URL, body, time.Now())
	req.Method = http.MethodGet
	if code, _ := do(t, srv.Client(), req); code != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d; want 405", code)
	}
	if _, err := NullEndpoint(make([]byte, 31)); err == nil {
		t.Error("NullEndpoint(31-byte key) = nil error")
	}
}
