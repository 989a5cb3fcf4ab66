package main

// End-to-end test of replay protection across restarts (SECURITY.md,
// promise 5): a signed request accepted by `hpkeeper serve`, posted again
// with the very same bytes and headers after the process was killed
// (SIGKILL) or stopped (SIGTERM) and started again on the same file, is
// refused with 401 and not applied.

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// signedPost is a request as Discord sends it: the body and its signature
// headers, to be posted as often as an attacker likes.
type signedPost struct {
	body       []byte
	sig, stamp string
}

func signAt(priv ed25519.PrivateKey, body []byte, at time.Time) signedPost {
	stamp := strconv.FormatInt(at.Unix(), 10)
	return signedPost{body: body, stamp: stamp, sig: hex.EncodeToString(ed25519.Sign(priv, append([]byte(stamp), body...)))}
}

// send posts p to addr and returns the status and the reply body.
func (p signedPost) send(t *testing.T, addr string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/", bytes.NewReader(p.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Signature-Ed25519", p.sig)
	req.Header.Set("X-Signature-Timestamp", p.stamp)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestReplayRefusedAfterRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes; skipped with -short")
	}
	bin := buildHpkeeper(t)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dbPath := filepath.Join(t.TempDir(), "hpkeeper.db")
			pub, priv := genKey(t)
			const gm = "1311000000000001001"
			c := startServe(t, bin, dbPath, pub, true)
			mustPost(t, c.addr, priv, interaction(1, gm, "table", "setup", "system", "hit-protection"))
			mustPost(t, c.addr, priv, interaction(2, gm, "char", "create", "name", "Rimmer", "stats", "class=fighter hit-die=d8 hp=8"))
			damage := signAt(priv, interaction(3, gm, "damage", "", "target", "Rimmer", "amount", "1"), time.Now())
			if status, b := damage.send(t, c.addr); status != http.StatusOK || !bytes.Contains(b, []byte("HP 8 → 7")) {
				t.Fatalf("/damage amount:1: %d %s; want it applied (HP 8 → 7)", status, b)
			}
			// Signed now, delivered only after the restart: a request in
			// flight while the process restarts.
			inFlight := signAt(priv, interaction(4, gm, "char", "show", "name", "Rimmer"), time.Now())

			if err := c.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			<-c.done
			if sig == syscall.SIGTERM && c.err != nil {
				t.Fatalf("hpkeeper exited with %v after SIGTERM\n%s", c.err, c.stderr)
			}
			restarted := time.Now()
			c2 := startServe(t, bin, dbPath, pub, true)
			ready := time.Since(restarted)

			status, b := damage.send(t, c2.addr)
			if status != http.StatusUnauthorized {
				t.Errorf("the same signed /damage after %s and a restart: %d %s; want 401", sig, status, b)
			}
			// In flight across the restart: answered after SIGTERM (the
			// guard was saved), refused after SIGKILL (the price of the
			// start rule; Discord would have shown the user a failure anyway).
			wantInFlight := http.StatusOK
			if sig == syscall.SIGKILL {
				wantInFlight = http.StatusUnauthorized
			}
			if status, b := inFlight.send(t, c2.addr); status != wantInFlight {
				t.Errorf("a request signed before the restart, delivered after it: %d %s; want %d", status, b, wantInFlight)
			}
			// Fresh requests are answered (after SIGKILL, once signed after
			// the start plus bot.RestartClockSkew), and the damage was not
			// applied twice.
			var show []byte
			var firstOK time.Duration
			for id := 10; ; id++ {
				status, b := signAt(priv, interaction(id, gm, "char", "show", "name", "Rimmer"), time.Now()).send(t, c2.addr)
				if status == http.StatusOK {
					show, firstOK = b, time.Since(restarted)
					break
				}
				if status != http.StatusUnauthorized || time.Since(restarted) > 60*time.Second {
					t.Fatalf("fresh /char show after the restart: %d %s", status, b)
				}
				time.Sleep(50 * time.Millisecond)
			}
			var rep reply
			if err := json.Unmarshal(show, &rep); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(show), "HP █████████░ 7/8") {
				t.Errorf("/char show after the replay: %s; want HP 7/8 (the damage applied once)", show)
			}
			if !strings.Contains(c2.stdout.String(), map[syscall.Signal]string{
				syscall.SIGKILL: "no replay guard saved", syscall.SIGTERM: "replay guard restored"}[sig]) {
				t.Errorf("the restarted server's log does not say how it guards replays:\n%s", c2.stdout)
			}
			t.Logf("after %s: restarted and listening in %v; first fresh request answered %v after the restart",
				sig, ready.Round(time.Millisecond), firstOK.Round(time.Millisecond))
		})
	}
}
