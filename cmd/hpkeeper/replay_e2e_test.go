package main

// End-to-end test of replay protection across restarts (SECURITY.md,
// promise 5): a signed request accepted by `hpkeeper serve`, posted again
// with the very same bytes and headers after the process was killed
// (SIGKILL) or stopped (SIGTERM) and started again on the same file, is
// refused with 401 and not applied.

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
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
	status, b, err := p.deliver(context.Background(), http.DefaultClient, addr)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	return status, b
}

// deliver posts p to addr with client and returns the status and the whole
// reply body, or the error of the exchange.
func (p signedPost) deliver(ctx context.Context, client *http.Client, addr string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/", bytes.NewReader(p.body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-Signature-Ed25519", p.sig)
	req.Header.Set("X-Signature-Timestamp", p.stamp)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// post is deliver with the reply decoded when the status is 200.
func (p signedPost) post(ctx context.Context, client *http.Client, addr string) (int, reply, error) {
	var rep reply
	status, b, err := p.deliver(ctx, client, addr)
	if err != nil || status != http.StatusOK {
		return status, rep, err
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return status, rep, fmt.Errorf("decode reply %s: %w", b, err)
	}
	return status, rep, nil
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

// TestFutureStampedRequestAppliedOnce is issue 26's: a request signed 120 s
// ahead of the server's clock passes the rule of an unclean start (it is
// signed after the start), so after a SIGKILL the replay guard does not
// stop it; the interaction recorded with its change does. Each round posts
// such a /damage and kills the process 0–40 ms later (before it answered,
// or after), restarts it and sends the very same request again: the damage
// is applied at most once (by the first post, or by the replay when the
// kill came first), and exactly once when the first post was answered, the
// replay then refused ephemerally with the event it wrote.
func TestFutureStampedRequestAppliedOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes; skipped with -short")
	}
	bin := buildHpkeeper(t)
	dbPath := filepath.Join(t.TempDir(), "hpkeeper.db")
	pub, priv := genKey(t)
	const gm = "1311000000000001001"
	c := startServe(t, bin, dbPath, pub, true)
	mustPost(t, c.addr, priv, interaction(1, gm, "table", "setup", "system", "hit-protection"))
	mustPost(t, c.addr, priv, interaction(2, gm, "char", "create", "name", "Rimmer", "stats", "class=fighter hit-die=d8 hp=8 level=6"))
	hp := 8
	for round := range 6 {
		damage := signAt(priv, interaction(100+round, gm, "damage", "", "target", "Rimmer", "amount", "1"), time.Now().Add(120*time.Second))
		answered := make(chan bool, 1)
		go func(addr string) {
			status, b, err := damage.deliver(context.Background(), http.DefaultClient, addr)
			answered <- err == nil && status == http.StatusOK && bytes.Contains(b, []byte("Rimmer")) && !bytes.Contains(b, []byte(`"flags":64`))
		}(c.addr)
		time.Sleep(time.Duration(round*8) * time.Millisecond)
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-c.done
		acked := <-answered
		c = startServe(t, bin, dbPath, pub, true)
		status, b := damage.send(t, c.addr)
		var rep reply
		_ = json.Unmarshal(b, &rep)
		now := currentHP(t, c.addr, priv, 1000+round)
		switch {
		case now < hp-1:
			t.Fatalf("round %d: HP %d after HP %d: the damage was applied twice", round, now, hp)
		case acked && now != hp-1:
			t.Fatalf("round %d: the damage was answered but HP is %d, not %d", round, now, hp-1)
		case acked && (status != http.StatusOK || rep.Data.Flags&64 == 0 || !strings.Contains(rep.Data.Content, "applied already")):
			t.Errorf("round %d: the replay of an answered damage: %d %s; want the ephemeral refusal naming it", round, status, b)
		}
		t.Logf("round %d: first post answered: %v; HP %d → %d; the replay: %d %.80s", round, acked, hp, now, status, rep.Data.Content)
		hp = now
	}
}

// cardHP matches the HP bar of a hit-protection card, its current HP
// first: "HP █████████░ 7/8".
var cardHP = regexp.MustCompile(`HP [█░]* ?(-?\d+)/\d+`)

// currentHP reads Rimmer's HP through /char show, signed after the start
// (a fresh request, retried while the rule of an unclean start refuses it).
func currentHP(t *testing.T, addr string, priv ed25519.PrivateKey, id int) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		status, b := signAt(priv, interaction(id, "1311000000000001001", "char", "show", "name", "Rimmer"), time.Now()).send(t, addr)
		if status == http.StatusOK {
			// The card's bar: "HP █████████░ 7/8".
			m := cardHP.FindSubmatch(b)
			if m == nil {
				t.Fatalf("/char show: %s", b)
			}
			hp, err := strconv.Atoi(string(m[1]))
			if err != nil {
				t.Fatalf("/char show: %s: %v", b, err)
			}
			return hp
		}
		if status != http.StatusUnauthorized || time.Now().After(deadline) {
			t.Fatalf("/char show after the restart: %d %s", status, b)
		}
		id += 10_000
		time.Sleep(50 * time.Millisecond)
	}
}
