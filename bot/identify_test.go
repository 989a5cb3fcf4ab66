package bot

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot/discordtest"
	"github.com/hpkeeper/hpkeeper/storage"
)

// TestInvalidSessionIdentifiesInsideTheLimiter runs 8 shards (two
// rate-limit buckets) against the loopback fake, then has Discord
// invalidate all 8 sessions at once (op 9). discordgo answers an op 9 with
// an IDENTIFY of its own: before, all 8 went within a millisecond; now each
// waits for its bucket's turn, so a bucket's IDENTIFYs stay an interval
// apart (the fake fails the test on a quicker one, and on one past its 16
// session starts), and every shard is connected again.
func TestInvalidSessionIdentifiesInsideTheLimiter(t *testing.T) {
	// The limiter's interval; the fake refuses IDENTIFYs of one bucket
	// closer than half of it (a loaded machine may deliver one late and
	// the next on time), where a stampede comes within a millisecond.
	const interval = 200 * time.Millisecond
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), nil)
	defer db.Close()
	fake := discordtest.NewServer(t, discordtest.Options{Shards: 8, MaxConcurrency: 2, IdentifyInterval: interval / 2, Total: 16}) // an IDENTIFY past 16 fails the test
	var logs syncBuffer
	defer func() {
		if t.Failed() {
			t.Logf("log:\n%s", logs.String())
		}
	}()
	g, err := NewGateway("test-token", svc, zerolog.New(&logs), storage.ShardRange{}, fakeSession(t, fake)...)
	if err != nil {
		t.Fatal(err)
	}
	g.identifyInterval = interval
	runGateway(t, g)
	waitShards(t, g, "8 shards connected", allConnected)
	if n := len(fake.Identifies()); n != 8 {
		t.Fatalf("%d IDENTIFYs to start 8 shards; want 8", n)
	}

	sent := time.Now()
	for s := 0; s < 8; s++ {
		if err := fake.InvalidSession(s, false); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(fake.Identifies()) < 16 {
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s, %d IDENTIFYs; want 8 more after the invalid sessions", len(fake.Identifies()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	again := fake.Identifies()[8:]
	byBucket := map[int][]time.Time{}
	var shards []int
	for _, id := range again {
		byBucket[id.Shard%2] = append(byBucket[id.Shard%2], id.At)
		shards = append(shards, id.Shard)
	}
	slices.Sort(shards)
	if !slices.Equal(shards, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("shards that identified again: %v; want each of 0-7 once", shards)
	}
	for b, at := range byBucket {
		for i := 1; i < len(at); i++ {
			if gap := at[i].Sub(at[i-1]); gap < interval/2 {
				t.Errorf("bucket %d: IDENTIFYs %v apart after the invalid sessions; want the limiter's %v", b, gap, interval)
			}
		}
	}
	// The limiter's spacing, not a stampede: the last of a bucket of 4
	// came at least three intervals after the first.
	if last := again[len(again)-1].At.Sub(sent); last < 3*interval {
		t.Errorf("the 8 shards identified again within %v of the invalid sessions; want the buckets' turns, 3 intervals at least", last)
	}
	waitShards(t, g, "8 shards connected again", allConnected)
}

// TestGatedDialerHoldsIdentify dials a loopback websocket server with the
// gated dialer, over wss:// directly and through an HTTP proxy (CONNECT),
// as the Gateway dials Discord: a large message and a heartbeat pass at
// once; an IDENTIFY reaches the server only once the gate lets it go; what
// follows passes again.
func TestGatedDialerHoldsIdentify(t *testing.T) {
	got := make(chan string, 16)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				return
			}
			got <- string(msg[:min(len(msg), 12)])
		}
	}))
	defer srv.Close()
	var connects atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		connects.Add(1)
		up, err := net.Dial("tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			up.Close()
			return
		}
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
		go func() { io.Copy(up, c); up.Close() }()
		io.Copy(c, up)
		c.Close()
	}))
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)
	tlsConfig := srv.Client().Transport.(*http.Transport).TLSClientConfig

	for _, tc := range []struct {
		name  string
		proxy func(*http.Request) (*url.URL, error)
	}{{"direct", nil}, {"through a proxy", http.ProxyURL(proxyURL)}} {
		t.Run(tc.name, func(t *testing.T) {
			release, asked := make(chan struct{}), make(chan struct{}, 4)
			var sent atomic.Int64
			gate := func(ctx context.Context) (func(), error) {
				asked <- struct{}{}
				select {
				case <-release:
					return func() { sent.Add(1) }, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			d := gatedDialer(&websocket.Dialer{TLSClientConfig: tlsConfig, Proxy: tc.proxy}, gate)
			ws, _, err := d.Dial("wss"+strings.TrimPrefix(srv.URL, "https")+"/gw", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			big := `{"op":3,"d":"` + strings.Repeat("x", 20000) + `"}`
			for _, m := range []string{big, `{"op":1,"d":null}`} {
				if err := ws.WriteMessage(websocket.TextMessage, []byte(m)); err != nil {
					t.Fatal(err)
				}
				if g := <-got; g != m[:12] {
					t.Fatalf("server read %q; want %q", g, m[:12])
				}
			}
			wrote := make(chan error, 1)
			go func() {
				wrote <- ws.WriteJSON(struct {
					Op int `json:"op"`
					D  any `json:"d"`
				}{2, map[string]any{"token": "Bot x", "shard": []int{3, 8}}})
			}()
			<-asked
			select {
			case g := <-got:
				t.Fatalf("the server read %q before the gate let the IDENTIFY go", g)
			case <-time.After(100 * time.Millisecond):
			}
			close(release)
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
			if g := <-got; g != `{"op":2,"d":` {
				t.Errorf("server read %q; want the IDENTIFY", g)
			}
			if sent.Load() != 1 {
				t.Errorf("sent called %d times; want once, after the IDENTIFY", sent.Load())
			}
			if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"op":1,"d":7}`)); err != nil {
				t.Fatal(err)
			}
			if g := <-got; g != `{"op":1,"d":` {
				t.Errorf("after the IDENTIFY the server read %q; want the heartbeat", g)
			}
			select {
			case <-asked:
				t.Error("the gate was asked for a frame that is not an IDENTIFY")
			default:
			}
		})
	}
	if connects.Load() != 1 {
		t.Errorf("the proxy saw %d CONNECTs; want 1", connects.Load())
	}
}
