package bot

import (
	"errors"
	"testing"
)

// TestLoopbackDiscord: only a loopback IP with a port is accepted, so the
// bot token cannot be sent to another machine by this test setting.
func TestLoopbackDiscord(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:8080", "http://127.0.0.2:1", "http://[::1]:9", "http://127.0.0.1:8080/"} {
		if opts, err := LoopbackDiscord(ok); err != nil || len(opts) != 2 {
			t.Errorf("LoopbackDiscord(%q) = %d options, %v; want the client and the dialer", ok, len(opts), err)
		}
	}
	for _, bad := range []string{"http://localhost:8080", "http://10.0.0.1:80", "http://discord.com:80", "http://0.0.0.0:80"} {
		if _, err := LoopbackDiscord(bad); !errors.Is(err, errNotLoopback) {
			t.Errorf("LoopbackDiscord(%q) = %v; want it refused as not loopback", bad, err)
		}
	}
	for _, bad := range []string{"", "https://127.0.0.1:443", "http://127.0.0.1", "127.0.0.1:80", "http://u:p@127.0.0.1:80", "http://127.0.0.1:80/api", "http://127.0.0.1:80?x=1"} {
		if _, err := LoopbackDiscord(bad); err == nil {
			t.Errorf("LoopbackDiscord(%q) = nil error; want it refused", bad)
		}
	}
}
