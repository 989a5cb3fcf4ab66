// Package discordtest is a loopback stand-in for Discord's REST API and
// gateway, for tests and for people trying the bot without Discord (`hpkeeper
// fakediscord`), in the way net/http/httptest stands in for a network:
// Server answers GET /gateway and GET /gateway/bot (with a recommended shard
// count and a session start limit it keeps), records interaction callbacks,
// answers the application, command and webhook routes that `hpkeeper
// register`, `run` and `serve` use (rest.go: the application's id, bulk
// overwrites of its commands, follow-up messages and edits of an
// interaction's original response, and the tracker's channel messages), and
// serves a websocket gateway that says
// HELLO, answers IDENTIFY (with its shard) with READY listing the shard's
// guilds, dispatches INTERACTION_CREATE events on the shard of their guild,
// answers heartbeats, and answers RESUME with RESUMED after a dropped
// connection. It speaks any API version (discordgo v0.29 speaks v9).
//
// bot.LoopbackDiscord(Server.URL) points a session at it, in the test's
// process or in a child's (hpkeeper's HPKEEPER_TEST_DISCORD_URL). Nothing
// here reaches a host beyond loopback.
package discordtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/hpkeeper/hpkeeper/bot/discord"
)

// Options configures a Server.
type Options struct {
	// Shards is the shard count GET /gateway/bot recommends (0: 1).
	Shards int
	// Total is the session start limit's total starts (0: 1,000), and
	// Remaining the starts left at first (0: Total).
	Total, Remaining int
	// ResetAfter is when the starts are given back after the first start
	// that follows a reset (0: a day).
	ResetAfter time.Duration
	// MaxConcurrency is how many rate-limit buckets of IDENTIFY there are
	// (shard_id % max_concurrency; 0: 1).
	MaxConcurrency int
	// IdentifyInterval, when set, is the least time the server accepts
	// between two IDENTIFYs of one bucket (Discord's is 5 s): a quicker one
	// fails the test.
	IdentifyInterval time.Duration
	// Guilds are the ids of the guilds the bot is in: each shard's READY
	// lists those of its shard, as unavailable guilds.
	Guilds []string
	// Interactions are dispatched in order on the shard of their guild_id
	// (a DM on shard 0) right after READY.
	Interactions [][]byte
	// HeartbeatInterval is HELLO's heartbeat_interval (0: 45 s).
	HeartbeatInterval time.Duration
	// RefuseIdentify, when set, is the close code the server answers every
	// IDENTIFY with (4011: sharding required, say).
	RefuseIdentify int
	// Listen is the loopback address to listen on ("": 127.0.0.1 and a port
	// the kernel chooses). Start refuses any address that is not loopback.
	Listen string
	// Log, when set, is told of every request the server answers, one line
	// each ("PUT /applications/…/commands: 23 commands registered").
	Log func(line string)
}

// Identify is one IDENTIFY the server received.
type Identify struct {
	// Shard and Count are the identify's shard array ([0, 1] without one).
	Shard, Count int
	// Token and Intents are as sent.
	Token   string
	Intents int
	// At is when the server read it.
	At time.Time
}

// Resume is one RESUME the server received.
type Resume struct {
	Shard     int
	SessionID string
	Seq       int64
	At        time.Time
}

// Callback is one interaction callback (POST /interactions/{id}/{token}/callback).
type Callback struct {
	ID, Token string
	// Auth is the Authorization header (none is needed: the token in the
	// URL authorises a callback).
	Auth string
	Body []byte
}

// Server is a fake Discord on a loopback port. Its methods are safe for
// concurrent use.
type Server struct {
	// URL is the base URL, http://127.0.0.1:port.
	URL string
	// Callbacks receives every interaction callback (buffered; a full
	// buffer blocks the request).
	Callbacks chan Callback

	// t is the test (NewServer) whose Fatalf Collect uses; nil for Start.
	t      testing.TB
	errorf func(format string, args ...any)
	opts   Options
	srv    *httptest.Server
	mux    *http.ServeMux

	mu         sync.Mutex
	conns      map[int]*conn // the live connection of each shard
	seqs       map[int]int64 // the last sequence number sent on each shard
	count      int           // the shard count sessions identified with
	identifies []Identify
	resumes    []Resume
	unexpected []string
	remaining  int
	resetAt    time.Time
	lastByKey  map[int]time.Time // last IDENTIFY per bucket
	misroute   map[string]int    // guild id → the shard its interactions go to instead
	rest       restState         // rest.go
}

// conn is one websocket connection.
type conn struct {
	ws    *websocket.Conn
	mu    sync.Mutex // serialises writes
	shard int
}

func (c *conn) send(v string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ws.WriteMessage(websocket.TextMessage, []byte(v))
}

// NewServer starts a Server, closed when the test ends; a request it
// cannot accept fails the test.
func NewServer(t testing.TB, opts Options) *Server {
	s, err := start(opts, t.Errorf)
	if err != nil {
		t.Fatal(err)
	}
	s.t = t
	t.Cleanup(s.Close)
	return s
}

// Start starts a Server outside a test (`hpkeeper fakediscord`): what a
// test would fail on is passed to errorf. It returns an error when
// opts.Listen is not a loopback address or cannot be bound. Close it when
// done.
func Start(opts Options, errorf func(format string, args ...any)) (*Server, error) {
	return start(opts, errorf)
}

func start(opts Options, errorf func(format string, args ...any)) (*Server, error) {
	if opts.Shards == 0 {
		opts.Shards = 1
	}
	if opts.Total == 0 {
		opts.Total = 1000
	}
	if opts.Remaining == 0 {
		opts.Remaining = opts.Total
	}
	if opts.ResetAfter == 0 {
		opts.ResetAfter = 24 * time.Hour
	}
	if opts.MaxConcurrency == 0 {
		opts.MaxConcurrency = 1
	}
	if opts.HeartbeatInterval == 0 {
		opts.HeartbeatInterval = 45 * time.Second
	}
	addr := opts.Listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("discordtest: listen address %q: want a loopback IP and a port (127.0.0.1:8090)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("discordtest: %w", err)
	}
	s := &Server{
		Callbacks: make(chan Callback, 64),
		errorf:    errorf, opts: opts,
		conns: map[int]*conn{}, seqs: map[int]int64{}, remaining: opts.Remaining,
		lastByKey: map[int]time.Time{}, misroute: map[string]int{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/{version}/gateway", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"url":%q}`, s.gatewayURL())
	})
	mux.HandleFunc("GET /api/{version}/gateway/bot", s.gatewayBot)
	mux.HandleFunc("POST /api/{version}/interactions/{id}/{token}/callback", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.logf("POST /interactions/%s/…/callback: answer of type %s", r.PathValue("id"), jsonField(b, "type"))
		s.Callbacks <- Callback{ID: r.PathValue("id"), Token: r.PathValue("token"), Auth: r.Header.Get("Authorization"), Body: b}
		w.WriteHeader(http.StatusNoContent)
	})
	s.mux = mux
	s.restRoutes(mux) // rest.go
	mux.HandleFunc("/gw/", s.gateway)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.unexpected = append(s.unexpected, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		s.logf("%s %s: not a route of this fake (404)", r.Method, r.URL.Path)
		http.NotFound(w, r)
	})
	s.srv = httptest.NewUnstartedServer(mux)
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	s.URL = s.srv.URL
	return s, nil
}

// logf passes one line to Options.Log, when set.
func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		s.opts.Log(fmt.Sprintf(format, args...))
	}
}

// Close closes every connection and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	for _, c := range s.conns {
		c.ws.Close()
	}
	s.mu.Unlock()
	s.srv.Close()
}

// Handler is the server's HTTP handler, to mount in another loopback
// server beside other fakes.
func (s *Server) Handler() http.Handler { return s.srv.Config.Handler }

func (s *Server) gatewayURL() string {
	return "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/gw"
}

// gatewayBot answers GET /gateway/bot: the recommended shards and the
// session start limit as it stands, the starts given back once their reset
// time has passed.
func (s *Server) gatewayBot(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	now := time.Now()
	if !s.resetAt.IsZero() && !now.Before(s.resetAt) {
		s.remaining, s.resetAt = s.opts.Total, time.Time{}
	}
	resetAfter := s.opts.ResetAfter
	if !s.resetAt.IsZero() {
		resetAfter = s.resetAt.Sub(now)
	}
	remaining := s.remaining
	s.mu.Unlock()
	fmt.Fprintf(w, `{"url":%q,"shards":%d,"session_start_limit":{"total":%d,"remaining":%d,"reset_after":%d,"max_concurrency":%d}}`,
		s.gatewayURL(), s.opts.Shards, s.opts.Total, remaining, resetAfter.Milliseconds(), s.opts.MaxConcurrency)
}

// gateway serves one websocket connection.
func (s *Server) gateway(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{}
	ws, err := up.Upgrade(w, r, nil)
	if err != nil {
		s.errorf("discordtest: gateway upgrade: %v", err)
		return
	}
	c := &conn{ws: ws, shard: -1}
	defer func() {
		ws.Close()
		s.mu.Lock()
		if s.conns[c.shard] == c {
			delete(s.conns, c.shard)
		}
		s.mu.Unlock()
	}()
	if err := c.send(fmt.Sprintf(`{"op":10,"d":{"heartbeat_interval":%d}}`, s.opts.HeartbeatInterval.Milliseconds())); err != nil {
		return
	}
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			return
		}
		var p struct {
			Op int             `json:"op"`
			D  json.RawMessage `json:"d"`
		}
		if err := json.Unmarshal(msg, &p); err != nil {
			s.errorf("discordtest: undecodable gateway message %s", msg)
			return
		}
		switch p.Op {
		case 1: // heartbeat
			c.send(`{"op":11}`)
		case 2:
			if !s.identify(c, p.D) {
				return
			}
		case 6:
			if !s.resume(c, p.D) {
				return
			}
		}
	}
}

// identify answers IDENTIFY with READY and the shard's interactions.
func (s *Server) identify(c *conn, d json.RawMessage) bool {
	var id struct {
		Token   string  `json:"token"`
		Intents int     `json:"intents"`
		Shard   *[2]int `json:"shard"`
	}
	if err := json.Unmarshal(d, &id); err != nil {
		s.errorf("discordtest: undecodable IDENTIFY %s", d)
		return false
	}
	shard, count := 0, 1
	if id.Shard != nil {
		shard, count = id.Shard[0], id.Shard[1]
	}
	if code := s.opts.RefuseIdentify; code != 0 {
		c.mu.Lock()
		c.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(code, "refused by discordtest"))
		c.mu.Unlock()
		return false
	}
	now := time.Now()
	s.mu.Lock()
	bucket := discord.IdentifyBucket(shard, s.opts.MaxConcurrency)
	if last, ok := s.lastByKey[bucket]; ok && s.opts.IdentifyInterval > 0 && now.Sub(last) < s.opts.IdentifyInterval {
		s.errorf("discordtest: IDENTIFY of shard %d %v after the last of its bucket %d; Discord allows one per %v", shard, now.Sub(last), bucket, s.opts.IdentifyInterval)
	}
	s.lastByKey[bucket] = now
	if s.remaining <= 0 {
		s.errorf("discordtest: IDENTIFY of shard %d with no session start left", shard)
	}
	if s.resetAt.IsZero() {
		s.resetAt = now.Add(s.opts.ResetAfter)
	}
	s.remaining--
	if shard < 0 || shard >= count || (s.count != 0 && count != s.count) {
		s.errorf("discordtest: IDENTIFY with shard [%d, %d] (other sessions: %d shards)", shard, count, s.count)
	}
	s.count = count
	s.identifies = append(s.identifies, Identify{Shard: shard, Count: count, Token: id.Token, Intents: id.Intents, At: now})
	s.logf("gateway: IDENTIFY of shard %d of %d; READY", shard, count)
	if old := s.conns[shard]; old != nil {
		s.errorf("discordtest: shard %d identified twice at once", shard)
	}
	c.shard = shard
	s.conns[shard] = c
	s.seqs[shard] = 1
	var guilds []string
	for _, g := range s.opts.Guilds {
		if shardOf(g, count) == shard {
			guilds = append(guilds, fmt.Sprintf(`{"id":%q,"unavailable":true}`, g))
		}
	}
	s.mu.Unlock()
	err := c.send(fmt.Sprintf(`{"op":0,"s":1,"t":"READY","d":{"v":10,"session_id":"fake-session-%d","resume_gateway_url":%q,`+
		`"user":{"id":"1311000000000000001","username":"hpkeeper","bot":true},"guilds":[%s],"private_channels":[],`+
		`"shard":[%d,%d],"application":{"id":"1311000000000000001","flags":0}}}`,
		shard, s.gatewayURL(), strings.Join(guilds, ","), shard, count))
	if err != nil {
		return false
	}
	for _, i := range s.opts.Interactions {
		if s.routeOf(i, count) == shard {
			if err := s.Dispatch(shard, i); err != nil {
				return false
			}
		}
	}
	return true
}

// resume answers RESUME with RESUMED on the shard its session id names.
func (s *Server) resume(c *conn, d json.RawMessage) bool {
	var r struct {
		SessionID string `json:"session_id"`
		Seq       int64  `json:"seq"`
	}
	if err := json.Unmarshal(d, &r); err != nil {
		s.errorf("discordtest: undecodable RESUME %s", d)
		return false
	}
	shard, err := strconv.Atoi(strings.TrimPrefix(r.SessionID, "fake-session-"))
	if err != nil {
		s.errorf("discordtest: RESUME of an unknown session %q", r.SessionID)
		return false
	}
	s.mu.Lock()
	if r.Seq != s.seqs[shard] {
		s.errorf("discordtest: RESUME of shard %d at seq %d; the last sent was %d", shard, r.Seq, s.seqs[shard])
	}
	s.resumes = append(s.resumes, Resume{Shard: shard, SessionID: r.SessionID, Seq: r.Seq, At: time.Now()})
	s.logf("gateway: RESUME of shard %d; RESUMED", shard)
	c.shard = shard
	s.conns[shard] = c
	s.seqs[shard]++
	seq := s.seqs[shard]
	s.mu.Unlock()
	return c.send(fmt.Sprintf(`{"op":0,"s":%d,"t":"RESUMED","d":{}}`, seq)) == nil
}

// HandleFunc adds a route to the server (`hpkeeper fakediscord` adds the
// one that lets a person send an interaction), as http.ServeMux.HandleFunc.
func (s *Server) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	s.mux.HandleFunc(pattern, h)
}

// DispatchInteraction sends payload as an INTERACTION_CREATE on the shard
// of its guild (a DM on shard 0), with the shard count the sessions
// identified with, and returns the shard. It returns an error when that
// shard has no live connection (no `hpkeeper run` connected).
func (s *Server) DispatchInteraction(payload []byte) (int, error) {
	s.mu.Lock()
	count := s.count
	s.mu.Unlock()
	if count == 0 {
		return 0, fmt.Errorf("discordtest: no gateway session has identified yet")
	}
	shard := s.routeOf(payload, count)
	return shard, s.Dispatch(shard, payload)
}

// Dispatch sends payload as an INTERACTION_CREATE on shard's live
// connection; it returns an error when the shard has none.
func (s *Server) Dispatch(shard int, payload []byte) error {
	return s.DispatchEvent(shard, "INTERACTION_CREATE", payload)
}

// DispatchEvent sends a dispatch (op 0) of type typ with data payload on
// shard's live connection; it returns an error when the shard has none.
func (s *Server) DispatchEvent(shard int, typ string, payload []byte) error {
	s.mu.Lock()
	c := s.conns[shard]
	if c == nil {
		s.mu.Unlock()
		return fmt.Errorf("discordtest: shard %d is not connected", shard)
	}
	s.seqs[shard]++
	seq := s.seqs[shard]
	s.mu.Unlock()
	return c.send(fmt.Sprintf(`{"op":0,"s":%d,"t":%q,"d":%s}`, seq, typ, payload))
}

// Drop closes shard's live connection without a close frame, as a network
// failure does; the session is expected to reconnect and RESUME. It
// returns an error when the shard has none.
func (s *Server) Drop(shard int) error {
	c, err := s.disconnect(shard)
	if err != nil {
		return err
	}
	return c.ws.UnderlyingConn().Close()
}

// Connected reports whether shard has a live connection that identified
// or resumed.
func (s *Server) Connected(shard int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns[shard] != nil
}

// Misroute makes the interactions of guild (Options.Interactions) arrive
// on shard instead of their own, as with a process started with the wrong
// shard count.
func (s *Server) Misroute(guild string, shard int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.misroute[guild] = shard
}

// routeOf returns the shard an interaction is dispatched on.
func (s *Server) routeOf(payload []byte, count int) int {
	var i struct {
		GuildID string `json:"guild_id"`
	}
	if err := json.Unmarshal(payload, &i); err != nil {
		s.errorf("discordtest: interaction %s: %v", payload, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if shard, ok := s.misroute[i.GuildID]; ok {
		return shard
	}
	return shardOf(i.GuildID, count)
}

// shardOf is the shard, of count, whose session Discord sends guild's
// events on (discord.ShardOf): 0 for a DM or a malformed id.
func shardOf(guild string, count int) int {
	shard, _ := discord.ShardOf(guild, count)
	return shard
}

// GuildOn returns a made-up snowflake guild id (of late 2025) whose shard,
// of count shards, is shard; n makes it unique.
func GuildOn(shard, count, n int) string {
	base := 312_000_000_000 / uint64(count) * uint64(count)
	return strconv.FormatUint((base+uint64(n*count+shard))<<22|0x3f, 10)
}

// Identifies returns the IDENTIFYs received so far, in order.
func (s *Server) Identifies() []Identify {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Identify(nil), s.identifies...)
}

// Resumes returns the RESUMEs received so far, in order.
func (s *Server) Resumes() []Resume {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Resume(nil), s.resumes...)
}

// Unexpected returns the requests the server had no answer for.
func (s *Server) Unexpected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unexpected...)
}

// Collect returns the next n interaction callbacks by interaction id. It
// fails the test when done yields first (the code under test returned) or
// timeout passes. It is for servers of NewServer.
func (s *Server) Collect(n int, done <-chan error, timeout time.Duration) map[string]Callback {
	s.t.Helper()
	got := map[string]Callback{}
	deadline := time.After(timeout)
	for len(got) < n {
		select {
		case c := <-s.Callbacks:
			got[c.ID] = c
		case err := <-done:
			s.t.Fatalf("returned %v before answering; %d of %d callbacks", err, len(got), n)
		case <-deadline:
			s.t.Fatalf("got %d interaction callbacks within %v; want %d", len(got), timeout, n)
		}
	}
	return got
}

// InvalidSession sends an invalid session (op 9, its d resumable) on
// shard's live connection, as Discord does when it ends a session: the
// shard counts as not connected until it identifies again, which a client
// does on the same connection. It returns an error when the shard has no
// live connection.
func (s *Server) InvalidSession(shard int, resumable bool) error {
	c, err := s.disconnect(shard)
	if err != nil {
		return err
	}
	return c.send(fmt.Sprintf(`{"op":9,"d":%t}`, resumable))
}

// disconnect makes shard count as not connected and returns its live
// connection, or an error when it has none.
func (s *Server) disconnect(shard int) (*conn, error) {
	s.mu.Lock()
	c := s.conns[shard]
	delete(s.conns, shard)
	s.mu.Unlock()
	if c == nil {
		return nil, fmt.Errorf("discordtest: shard %d is not connected", shard)
	}
	return c, nil
}
