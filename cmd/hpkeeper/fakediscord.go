package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/hpkeeper/hpkeeper/bot"
	"github.com/hpkeeper/hpkeeper/bot/discordtest"
)

// PathFakeInteractions is where a person sends an interaction to the fake
// Discord of `hpkeeper fakediscord`: it goes to the bot as Discord would
// send it, and the bot's answer comes back.
const PathFakeInteractions = "/fake/interactions"

// fakeDiscordWait bounds how long a sent interaction waits for the bot's
// answer.
const fakeDiscordWait = 30 * time.Second

// fakeDiscordMain runs `hpkeeper fakediscord`: bot/discordtest's fake of
// Discord's REST API and gateway on a loopback address, for trying
// `register`, `run` and `serve` without Discord (README.md, "Try it against
// a fake Discord"). It logs every request it answers on stdout and runs
// until ctx is cancelled. It returns 0 after a clean stop, 1 when it cannot
// listen, 2 for a usage error.
func fakeDiscordMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hpkeeper fakediscord", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8090", "the loopback `address` to listen on (a port of 0: one the kernel chooses)")
	endpoint := fs.String("endpoint", "", "send interactions to serve's endpoint at this loopback `URL` (http://127.0.0.1:8080/), signed with the fake's key; without it they go to run's gateway session")
	shards := fs.Int("shards", 1, "the shard `count` GET /gateway/bot recommends (run --shards auto uses it)")
	keySeed := fs.String("key-seed", "", "the `hex` seed (64 digits) of the Ed25519 key that signs interactions for serve (default: a new key each start)")
	fs.Usage = usageFunc(fs, "fakediscord", "a fake of Discord's REST API and gateway on loopback, for trying register, run and serve without Discord (point them at it with HPKEEPER_TEST_DISCORD_URL).",
		"[--listen ADDR] [--endpoint URL] [--shards N] [--key-seed HEX]")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hpkeeper fakediscord: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *shards < 1 {
		fmt.Fprintln(stderr, "hpkeeper fakediscord: --shards must be 1 or more")
		return 2
	}
	var priv ed25519.PrivateKey
	if *keySeed != "" {
		seed, err := hex.DecodeString(*keySeed)
		if err != nil || len(seed) != ed25519.SeedSize {
			fmt.Fprintln(stderr, "hpkeeper fakediscord: --key-seed must be 64 hex digits")
			return 2
		}
		priv = ed25519.NewKeyFromSeed(seed)
	} else {
		var err error
		if _, priv, err = ed25519.GenerateKey(rand.Reader); err != nil {
			fmt.Fprintf(stderr, "hpkeeper fakediscord: %v\n", err)
			return 1
		}
	}
	if *endpoint != "" {
		if _, err := bot.LoopbackClient(endpointBase(*endpoint)); err != nil {
			fmt.Fprintf(stderr, "hpkeeper fakediscord: --endpoint: %v\n", err)
			return 2
		}
	}
	out := &lockedWriter{w: stdout}
	logLine := func(line string) { fmt.Fprintf(out, "%s %s\n", time.Now().Format(time.TimeOnly), line) }
	srv, err := discordtest.Start(discordtest.Options{Listen: *listen, Shards: *shards, Log: logLine},
		func(format string, args ...any) { logLine("refused: " + fmt.Sprintf(format, args...)) })
	if err != nil {
		fmt.Fprintf(stderr, "hpkeeper fakediscord: %v\n", err)
		return 1
	}
	defer srv.Close()
	f := &fakeDiscord{srv: srv, priv: priv, endpoint: *endpoint, log: logLine, waiting: map[string]chan discordtest.Callback{}}
	go f.routeCallbacks(ctx)
	srv.HandleFunc("POST "+PathFakeInteractions, f.send)
	pub := priv.Public().(ed25519.PublicKey)
	fmt.Fprintf(out, "fake Discord listening on %s (loopback only: nothing here reaches Discord)\n\n", srv.URL)
	fmt.Fprintf(out, "Point hpkeeper at it, in another terminal:\n"+
		"  export %s=%s DISCORD_TOKEN=fake-token DISCORD_PUBLIC_KEY=%x\n"+
		"  hpkeeper register                     # the commands are registered here (application %s)\n"+
		"  hpkeeper run --db fake.db             # the gateway mode connects here\n"+
		"  hpkeeper serve --db fake.db           # or the HTTP endpoint: then add ?endpoint=http://127.0.0.1:8080/ below\n"+
		"Send it an interaction as Discord would (any file of bot/testdata/interactions, or your own JSON):\n"+
		"  curl -sS --data-binary @bot/testdata/interactions/table_setup.json %s%s\n\n",
		envTestDiscord, srv.URL, pub, discordtest.ApplicationID, srv.URL, PathFakeInteractions)
	<-ctx.Done()
	fmt.Fprintln(out, "fake Discord stopped")
	return 0
}

// endpointBase is the scheme and host of an endpoint URL, which
// bot.LoopbackClient checks.
func endpointBase(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint
	}
	return u.Scheme + "://" + u.Host
}

// fakeDiscord carries interactions a person sends to the bot.
type fakeDiscord struct {
	srv      *discordtest.Server
	priv     ed25519.PrivateKey
	endpoint string
	log      func(string)

	mu      sync.Mutex
	waiting map[string]chan discordtest.Callback // interaction id → its answer
}

// send answers POST /fake/interactions: the body, an interaction, goes to
// serve's endpoint signed (the query's endpoint=URL, else --endpoint) or on
// run's gateway, and the bot's first answer is the reply.
func (f *fakeDiscord) send(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, bot.MaxBodyBytes))
	var i struct {
		ID   string `json:"id"`
		Type int    `json:"type"`
	}
	if err == nil {
		err = json.Unmarshal(body, &i)
	}
	if err != nil {
		http.Error(w, "want an interaction's JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	endpoint := f.endpoint
	if q := r.URL.Query().Get("endpoint"); q != "" {
		if _, err := bot.LoopbackClient(endpointBase(q)); err != nil {
			http.Error(w, "endpoint: "+err.Error(), http.StatusBadRequest)
			return
		}
		endpoint = q
	}
	if endpoint != "" {
		f.toEndpoint(w, r.Context(), endpoint, i.ID, body)
		return
	}
	if i.Type == 1 {
		http.Error(w, "a PING goes to an HTTP endpoint (start with --endpoint); the gateway has none", http.StatusBadRequest)
		return
	}
	ch := make(chan discordtest.Callback, 1)
	f.mu.Lock()
	f.waiting[i.ID] = ch
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.waiting, i.ID)
		f.mu.Unlock()
	}()
	shard, err := f.srv.DispatchInteraction(body)
	if err != nil {
		http.Error(w, err.Error()+" (start hpkeeper run against this fake first)", http.StatusServiceUnavailable)
		return
	}
	f.log(fmt.Sprintf("gateway: INTERACTION_CREATE %s sent on shard %d", i.ID, shard))
	select {
	case c := <-ch:
		w.Header().Set("Content-Type", "application/json")
		w.Write(append(c.Body, '\n'))
	case <-time.After(fakeDiscordWait):
		http.Error(w, "no answer from the bot within "+fakeDiscordWait.String(), http.StatusGatewayTimeout)
	case <-r.Context().Done():
	}
}

// toEndpoint signs body as Discord does (Ed25519 over the timestamp and the
// body) and posts it to the endpoint, passing its answer on.
func (f *fakeDiscord) toEndpoint(w http.ResponseWriter, ctx context.Context, endpoint, id string, body []byte) {
	stamp := strconv.FormatInt(time.Now().Unix(), 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Signature-Timestamp", stamp)
	req.Header.Set("X-Signature-Ed25519", hex.EncodeToString(ed25519.Sign(f.priv, append([]byte(stamp), body...))))
	client := &http.Client{Transport: &http.Transport{}, Timeout: fakeDiscordWait} // no proxy: loopback
	res, err := client.Do(req)
	if err != nil {
		f.log(fmt.Sprintf("POST %s: %v", endpoint, err))
		http.Error(w, err.Error()+" (is hpkeeper serve running there?)", http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, bot.MaxBodyBytes))
	f.log(fmt.Sprintf("POST %s: interaction %s answered %s", endpoint, id, res.Status))
	w.Header().Set("Content-Type", res.Header.Get("Content-Type"))
	w.WriteHeader(res.StatusCode)
	w.Write(bytes.TrimRight(answer, "\n"))
	w.Write([]byte("\n"))
}

// routeCallbacks hands each interaction callback to the send waiting for
// it; the others are dropped (logged by the server already).
func (f *fakeDiscord) routeCallbacks(ctx context.Context) {
	for {
		select {
		case c := <-f.srv.Callbacks:
			f.mu.Lock()
			ch := f.waiting[c.ID]
			f.mu.Unlock()
			if ch != nil {
				select {
				case ch <- c:
				default:
				}
			}
		case <-ctx.Done():
			return
		}
	}
}

// lockedWriter serialises the lines written from the server's goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
