package bot

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Every IDENTIFY through the start limiter.
//
// discordgo identifies by itself when Discord invalidates a session (op 9),
// at once and outside the Gateway's start limiter: an op 9 to 8 shards made
// 8 IDENTIFYs within 1 ms, where Discord allows one per rate-limit bucket
// every 5 s, and each spends a session start. discordgo has no hook for
// it, so the Gateway wraps the connection each session dials: the frames
// the session writes pass through identifyGate, which holds a frame that
// is an IDENTIFY until the limiter gives the shard its turn (the first
// IDENTIFY of a connection that startBucket opened has had its turn
// already). Everything else passes untouched. The session's heartbeats wait
// behind a held IDENTIFY; there is nothing to keep alive until it is sent.

// identifyPrefix is how an IDENTIFY's JSON begins as discordgo writes it
// (its identifyOp: the op, then the data).
var identifyPrefix = []byte(`{"op":2,`)

// gatedDialer returns a copy of d (websocket.DefaultDialer when nil) whose
// connections pass every frame the session writes through gate. For a
// wss:// URL it makes the TLS connection itself (through d's proxy, an
// HTTP proxy, when d names one for the URL), so that the frames are seen
// before they are encrypted.
func gatedDialer(d *websocket.Dialer, gate gateFunc) *websocket.Dialer {
	if d == nil {
		d = websocket.DefaultDialer
	}
	g := *d
	plain := d.NetDialContext
	if plain == nil {
		plain = (&net.Dialer{}).DialContext
	}
	g.NetDialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := plain(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return newIdentifyGate(c, gate), nil
	}
	proxy, tlsDial := d.Proxy, d.NetDialTLSContext
	g.Proxy = nil // handled below, below the TLS
	g.NetDialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var c net.Conn
		var err error
		if tlsDial != nil {
			c, err = tlsDial(ctx, network, addr)
		} else {
			c, err = dialTLS(ctx, network, addr, plain, proxy, d.TLSClientConfig)
		}
		if err != nil {
			return nil, err
		}
		return newIdentifyGate(c, gate), nil
	}
	if proxy != nil {
		// A ws:// URL through a proxy: the frames are plain on the
		// proxied connection too.
		g.NetDialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialProxied(ctx, network, addr, "http", plain, proxy)
			if err != nil {
				return nil, err
			}
			return newIdentifyGate(c, gate), nil
		}
	}
	return &g
}

// dialTLS connects to addr (through the proxy proxy names for it, if any)
// and makes the TLS handshake, as gorilla's Dialer would.
func dialTLS(ctx context.Context, network, addr string, plain func(context.Context, string, string) (net.Conn, error), proxy func(*http.Request) (*url.URL, error), cfg *tls.Config) (net.Conn, error) {
	raw, err := dialProxied(ctx, network, addr, "https", plain, proxy)
	if err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		raw.Close()
		return nil, err
	}
	if cfg == nil {
		cfg = &tls.Config{}
	} else {
		cfg = cfg.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	c := tls.Client(raw, cfg)
	if err := c.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, err
	}
	return c, nil
}

// dialProxied connects to addr, through an HTTP proxy (CONNECT) when proxy
// names one for scheme://addr.
func dialProxied(ctx context.Context, network, addr, scheme string, plain func(context.Context, string, string) (net.Conn, error), proxy func(*http.Request) (*url.URL, error)) (net.Conn, error) {
	var pu *url.URL
	if proxy != nil {
		var err error
		if pu, err = proxy(&http.Request{URL: &url.URL{Scheme: scheme, Host: addr}}); err != nil {
			return nil, err
		}
	}
	if pu == nil {
		return plain(ctx, network, addr)
	}
	if pu.Scheme != "http" {
		return nil, fmt.Errorf("gateway proxy %s: only http:// proxies are supported for the gateway", pu.Redacted())
	}
	proxyAddr := pu.Host
	if pu.Port() == "" {
		proxyAddr = net.JoinHostPort(pu.Hostname(), "80")
	}
	c, err := plain(ctx, network, proxyAddr)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
		defer c.SetDeadline(time.Time{})
	}
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: addr}, Host: addr, Header: http.Header{}}
	if u := pu.User; u != nil {
		pass, _ := u.Password()
		req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pass)))
	}
	if err := req.Write(c); err != nil {
		c.Close()
		return nil, err
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		c.Close()
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		c.Close()
		return nil, fmt.Errorf("gateway proxy %s: CONNECT %s: %s", pu.Redacted(), addr, resp.Status)
	}
	if br.Buffered() > 0 {
		c.Close()
		return nil, errors.New("gateway proxy: data after the CONNECT answer")
	}
	return c, nil
}

// gateFunc returns when an IDENTIFY may be written, or an error when ctx
// is done first; sent is called once it has been written.
type gateFunc func(ctx context.Context) (sent func(), err error)

// identifyGate is a connection whose writes are the frames of a websocket
// client: a frame that carries an IDENTIFY waits for gate before it is
// written.
type identifyGate struct {
	net.Conn
	gate gateFunc

	mu sync.Mutex // writes come one at a time (discordgo's wsMutex); held for the state below
	// rest is how many bytes of the frame being written are still to come:
	// a write that starts inside a frame is not a frame's start.
	rest uint64
	// ctx ends a wait for the gate when the connection is closed.
	ctx    context.Context
	cancel context.CancelFunc
}

func newIdentifyGate(c net.Conn, gate gateFunc) *identifyGate {
	ctx, cancel := context.WithCancel(context.Background())
	return &identifyGate{Conn: c, gate: gate, ctx: ctx, cancel: cancel}
}

// Write waits for the gate before writing a frame that is an IDENTIFY.
func (g *identifyGate) Write(b []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var sent func()
	if g.rest == 0 {
		if size, identify := frameOf(b); size > 0 {
			if identify {
				var err error
				if sent, err = g.gate(g.ctx); err != nil {
					return 0, fmt.Errorf("identify held by the session start limiter: %w", err)
				}
			}
			g.rest = size
		}
	}
	n, err := g.Conn.Write(b)
	g.rest -= min(g.rest, uint64(n))
	if sent != nil {
		sent()
	}
	return n, err
}

// Close ends a wait for the gate, then closes the connection.
func (g *identifyGate) Close() error {
	g.cancel()
	return g.Conn.Close()
}

// frameOf reads the header of the client frame b begins with: its whole
// size in bytes, and whether it is a final text frame whose payload begins
// with an IDENTIFY. It returns 0 when b is too short to tell.
func frameOf(b []byte) (size uint64, identify bool) {
	if len(b) < 2 {
		return 0, false
	}
	opcode, masked := b[0]&0x0F, b[1]&0x80 != 0
	n, at := uint64(b[1]&0x7F), 2
	switch n {
	case 126:
		if len(b) < 4 {
			return 0, false
		}
		n, at = uint64(b[2])<<8|uint64(b[3]), 4
	case 127:
		if len(b) < 10 {
			return 0, false
		}
		n, at = 0, 10
		for _, x := range b[2:10] {
			n = n<<8 | uint64(x)
		}
	}
	var key []byte
	if masked {
		if len(b) < at+4 {
			return 0, false
		}
		key, at = b[at:at+4], at+4
	}
	size = uint64(at) + n
	if b[0]&0x80 == 0 || opcode != websocket.TextMessage || n < uint64(len(identifyPrefix)) || len(b) < at+len(identifyPrefix) {
		return size, false
	}
	head := bytes.Clone(b[at : at+len(identifyPrefix)])
	for i := range head {
		if key != nil {
			head[i] ^= key[i%4]
		}
	}
	return size, bytes.Equal(head, identifyPrefix)
}
