package bench

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// systemWorkload is how the workload plays one rule system.
type systemWorkload struct {
	name  string
	stats string
	// damage, heal and rest build the system's commands for character c
	// (other is another character at the table, e.g. a healer).
	damage func(c string) commandData
	heal   func(c, other string) commandData
	rest   func(c string) commandData
}

// systemWorkloads are the three systems; table n plays systemWorkloads[n%3].
var systemWorkloads = []systemWorkload{
	{
		name:   "hit-protection",
		stats:  "level=3 hit-die=d10",
		damage: func(c string) commandData { return cmd("damage", "", "target", c, "amount", "1d4") },
		heal:   func(c, _ string) commandData { return cmd("rest", "", "kind", "turn", "target", c) },
		rest:   func(string) commandData { return cmd("rest", "", "kind", "night") },
	},
	{
		name:   "hp-mp-wp",
		stats:  "hp-max=30 class=fighter con=14",
		damage: func(c string) commandData { return cmd("damage", "", "target", c, "amount", "1d4") },
		heal:   func(c, _ string) commandData { return cmd("heal", "", "target", c, "amount", "1d4") },
		rest:   func(string) commandData { return cmd("rest", "", "kind", "night") },
	},
	{
		name:   "harm",
		stats:  "endure=2 react=1 first-aid=2 vigor=4",
		damage: func(c string) commandData { return cmd("damage", "", "target", c, "amount", "1", "kind", "physical") },
		heal: func(c, other string) commandData {
			return cmd("heal", "", "target", c, "trigger", "first-aid", "healer", other)
		},
		rest: func(string) commandData { return cmd("rest", "", "kind", "day") },
	},
}

// cmd builds a command from name, subcommand and option name/value pairs.
func cmd(name, sub string, kv ...string) commandData {
	c := commandData{name: name, sub: sub}
	for i := 0; i+1 < len(kv); i += 2 {
		c.opts = append(c.opts, [2]string{kv[i], kv[i+1]})
	}
	return c
}

var characterNames = []string{"Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo"}

// charName is the name of character i at every table.
func charName(i int) string {
	if i < len(characterNames) {
		return characterNames[i]
	}
	return "PC" + strconv.Itoa(i+1)
}

// actionKind is one kind of user action: one request, or two for the pairs.
type actionKind int

const (
	opDamageUndo actionKind = iota // /damage, then /undo of it (two writes)
	opHeal                         // the system's healing (a write)
	opRoll                         // /roll expr:1d20+3 (a write: the roll is recorded)
	opRest                         // the system's table-wide rest (a write)
	opCharShow                     // /char show (read-only)
	opTableShow                    // /table show (read-only)
	opCharList                     // /char list (read-only)
	opHistory                      // /history (read-only)
	opButton                       // /char delete, then press Cancel
)

type weighted struct {
	op     actionKind
	weight int
}

// mixes are the workloads, by name.
var mixes = map[string][]weighted{
	"mixed": {{opDamageUndo, 25}, {opHeal, 10}, {opRoll, 10}, {opRest, 5}, {opCharShow, 15}, {opTableShow, 10},
		{opCharList, 5}, {opHistory, 5}, {opButton, 10}},
	"write": {{opDamageUndo, 50}, {opHeal, 20}, {opRoll, 20}, {opRest, 10}},
	"read":  {{opCharShow, 40}, {opTableShow, 30}, {opCharList, 15}, {opHistory, 15}},
}

// client sends signed interactions to one server, or in turn to each of
// several (replicas behind a round-robin balancer).
type client struct {
	urls []string
	next atomic.Uint64
	priv ed25519.PrivateKey
	hc   *http.Client
}

// url returns the server of the next request: each in turn.
func (c *client) url() string {
	if len(c.urls) == 1 {
		return c.urls[0]
	}
	return c.urls[(c.next.Add(1)-1)%uint64(len(c.urls))]
}

func newClient(url string, priv ed25519.PrivateKey, conns int) *client {
	return newClientOf([]string{url}, priv, conns)
}

// newClientOf is newClient over several servers, taken in turn.
func newClientOf(urls []string, priv ed25519.PrivateKey, conns int) *client {
	tr := &http.Transport{
		DialContext:         loopbackDialer(),
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		Proxy:               nil, // never through a proxy: loopback only
	}
	return &client{urls: urls, priv: priv, hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// up reports whether the server answers HTTP at all.
func (c *client) up(ctx context.Context) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.urls[0], bytes.NewReader([]byte(`{"type":1}`)))
	if err != nil {
		return false
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return true
}

// signedReq is one request body with its signature, made before it is sent.
type signedReq struct {
	body       []byte
	stamp, sig string
}

// sign signs body with a timestamp of now, as Discord does on its own
// machines before it sends a request.
func (c *client) sign(body []byte) signedReq {
	stamp := strconv.FormatInt(time.Now().Unix(), 10)
	return signedReq{body: body, stamp: stamp, sig: sign(c.priv, stamp, body)}
}

// send signs body now and posts it (see post).
func (c *client) send(ctx context.Context, body []byte) (wireReply, time.Duration, error) {
	return c.post(ctx, c.sign(body))
}

// post sends a signed request and returns the decoded reply and the latency
// from sending the request to having read the whole reply. A transport
// error, a status other than 200 or an apology is an error.
func (c *client) post(ctx context.Context, sr signedReq) (wireReply, time.Duration, error) {
	var reply wireReply
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url(), bytes.NewReader(sr.body))
	if err != nil {
		return reply, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "DiscordBot (hpkeeper-bench)")
	req.Header.Set("X-Signature-Ed25519", sr.sig)
	req.Header.Set("X-Signature-Timestamp", sr.stamp)
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		return reply, time.Since(start), err
	}
	out, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	lat := time.Since(start)
	if err != nil {
		return reply, lat, err
	}
	if resp.StatusCode != http.StatusOK {
		return reply, lat, fmt.Errorf("status %d: %.200s", resp.StatusCode, out)
	}
	if err := json.Unmarshal(out, &reply); err != nil {
		return reply, lat, fmt.Errorf("reply: %w", err)
	}
	if reply.Data.Content == commands.Apology {
		return reply, lat, fmt.Errorf("apology (an internal error; see the server log)")
	}
	return reply, lat, nil
}

// setup creates the tables and characters, spreading them over clients.
func (c *client) setup(ctx context.Context, cfg *config) error {
	var wg sync.WaitGroup
	errs := make(chan error, cfg.setupClients)
	for w := range cfg.setupClients {
		wg.Go(func() {
			for n := w; n < cfg.tables; n += cfg.setupClients {
				sys := systemWorkloads[n%len(systemWorkloads)]
				reqs := []commandData{cmd("table", "setup", "system", sys.name)}
				users := []sender{gmOf(n)}
				for i := range cfg.chars {
					// Each player creates (and so owns) their character.
					reqs = append(reqs, cmd("char", "create", "name", charName(i), "stats", sys.stats))
					users = append(users, playerOf(n, i))
				}
				for i, bc := range reqs {
					body, err := bc.body(users[i], n)
					if err != nil {
						errs <- err
						return
					}
					if _, _, err := c.send(ctx, body); err != nil {
						errs <- fmt.Errorf("table %d: /%s %s: %w", n, bc.name, bc.sub, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// worker is one client's state during a run.
type worker struct {
	c       *client
	id      int
	tables  []int
	rng     *rand.Rand
	chars   int
	res     runResult
	measure bool
	// null: the server is the null endpoint, whose fixed reply has no
	// buttons; the press that follows /char delete is then signed ahead
	// with a made-up custom_id, like every other request.
	null bool
	// script holds the actions of the measured window, signed before the
	// run (Discord signs on its own machines); next is the next to play.
	// The warm-up, and any action past the end of the script, is signed
	// as it is played and counted in res.signedLate when measured.
	script []action
	next   int
	// late is how long the current action started after its scheduled
	// time (open loop only); it is added to the latency of the action's
	// first request.
	late time.Duration
}

// action is one user action of a worker, its requests signed: one request,
// or two for damage+undo (and delete+Cancel at the null endpoint; at hpkeeper
// the press is built from the reply's button and signed when it comes).
type action struct {
	op     actionKind
	n      int    // the table
	player sender // who presses Cancel after /char delete
	reqs   []signedReq
}

// plan chooses the table and character of one op and signs its requests.
func (wk *worker) plan(op actionKind) (action, error) {
	n := wk.tables[wk.rng.IntN(len(wk.tables))]
	sys := systemWorkloads[n%len(systemWorkloads)]
	ci := wk.rng.IntN(wk.chars)
	ch, other := charName(ci), charName((ci+1)%wk.chars)
	// The GM deals damage, heals and rests the table; players roll, look
	// and act on their own characters.
	gm, player := gmOf(n), playerOf(n, ci)
	a := action{op: op, n: n, player: player}
	type part struct {
		u  sender
		bc commandData
	}
	var parts []part
	switch op {
	case opDamageUndo:
		parts = []part{{gm, sys.damage(ch)}, {gm, cmd("undo", "")}}
	case opHeal:
		parts = []part{{gm, sys.heal(ch, other)}}
	case opRoll:
		parts = []part{{player, cmd("roll", "", "expr", "1d20+3")}}
	case opRest:
		parts = []part{{gm, sys.rest(ch)}}
	case opCharShow:
		parts = []part{{player, cmd("char", "show", "name", ch)}}
	case opTableShow:
		parts = []part{{player, cmd("table", "show")}}
	case opCharList:
		parts = []part{{player, cmd("char", "list")}}
	case opHistory:
		parts = []part{{player, cmd("history", "")}}
	case opButton:
		parts = []part{{player, cmd("char", "delete", "name", ch)}}
	}
	for _, p := range parts {
		body, err := p.bc.body(p.u, n)
		if err != nil {
			return a, err
		}
		a.reqs = append(a.reqs, wk.c.sign(body))
	}
	if op == opButton && wk.null {
		body, err := pressBody(player, n, "chardel:0:0:cancel")
		if err != nil {
			return a, err
		}
		a.reqs = append(a.reqs, wk.c.sign(body))
	}
	return a, nil
}

// pick draws an op from mix (weights summing to total).
func (wk *worker) pick(mix []weighted, total int) actionKind {
	x := wk.rng.IntN(total)
	for _, w := range mix {
		if x < w.weight {
			return w.op
		}
		x -= w.weight
	}
	return mix[len(mix)-1].op
}

// presign fills the script with n actions drawn from mix.
func (wk *worker) presign(mix []weighted, total, n int) error {
	wk.script, wk.next = make([]action, 0, n), 0
	for range n {
		a, err := wk.plan(wk.pick(mix, total))
		if err != nil {
			return err
		}
		wk.script = append(wk.script, a)
	}
	return nil
}

// take returns the next action to play: from the script while measuring,
// else signed now.
func (wk *worker) take(mix []weighted, total int) (action, error) {
	if wk.measure && wk.next < len(wk.script) {
		wk.next++
		return wk.script[wk.next-1], nil
	}
	a, err := wk.plan(wk.pick(mix, total))
	if wk.measure {
		wk.res.signedLate += len(a.reqs)
	}
	return a, err
}

// run runs one phase for cfg.warmup and then measures it for cfg.duration.
// pid is the server's process (for its CPU time); writerStats, when the
// server runs in this process, reads its storage writer's counters. expect is
// how many requests a second the run may reach: the measured window's
// requests are signed before the run for that rate (see presign).
func (c *client) run(ctx context.Context, cfg *config, mix []weighted, pid int, writerStats func() storage.WriterStats, null bool, expect float64) (runResult, error) {
	total := 0
	for _, w := range mix {
		total += w.weight
	}
	workers := make([]*worker, cfg.concurrency)
	for w := range workers {
		wk := &worker{c: c, id: w, rng: rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano()))), chars: cfg.chars, null: null}
		for n := w; n < cfg.tables; n += cfg.concurrency {
			wk.tables = append(wk.tables, n)
		}
		if len(wk.tables) == 0 {
			wk.tables = []int{w % cfg.tables}
		}
		wk.res.readLatencies = make([]time.Duration, 0, 4096)
		workers[w] = wk
	}
	// Sign the measured window's actions ahead, a core's share of workers
	// at a time: an action is one request or more, so expect requests a
	// second is at least as many actions.
	perWorker := int(math.Ceil(expect*cfg.duration.Seconds()/float64(cfg.concurrency))) + 2
	signStart, signCPU := time.Now(), processCPU(os.Getpid())
	var sg sync.WaitGroup
	errs := make(chan error, len(workers))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, wk := range workers {
		sg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := wk.presign(mix, total, perWorker); err != nil {
				errs <- err
			}
		})
	}
	sg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return runResult{}, err
	}
	presigned := 0
	for _, wk := range workers {
		for _, a := range wk.script {
			presigned += len(a.reqs)
		}
	}
	presignWall, presignCPU := time.Since(signStart), processCPU(os.Getpid())-signCPU

	measureAt := time.Now().Add(cfg.warmup)
	end := measureAt.Add(cfg.duration)
	var wg sync.WaitGroup
	// CPU time of the server (and of this process) over the measured window.
	// With an in-process server, also what its writer did in the window.
	cpuDone := make(chan [2]time.Duration, 1)
	var writer storage.WriterStats
	go func() {
		time.Sleep(time.Until(measureAt))
		s0, g0 := processCPU(pid), processCPU(os.Getpid())
		var w0 storage.WriterStats
		if writerStats != nil {
			w0 = writerStats()
		}
		time.Sleep(time.Until(end))
		if writerStats != nil {
			w1 := writerStats()
			writer = storage.WriterStats{Groups: w1.Groups - w0.Groups, Updates: w1.Updates - w0.Updates,
				Functions: w1.Functions - w0.Functions, Commits: w1.Commits - w0.Commits}
		}
		cpuDone <- [2]time.Duration{processCPU(pid) - s0, processCPU(os.Getpid()) - g0}
	}()
	// Open loop: each client starts an action every interval, from a random
	// phase, whatever the replies' speed.
	var interval time.Duration
	if cfg.rate > 0 {
		interval = time.Duration(float64(cfg.concurrency) / cfg.rate * float64(time.Second))
	}
	start := time.Now()
	for _, wk := range workers {
		wg.Go(func() {
			var next time.Time
			if interval > 0 {
				next = start.Add(time.Duration(wk.rng.Int64N(int64(interval))))
			}
			for {
				if interval > 0 {
					// An action is late only when the client was still busy
					// with the previous one at its scheduled time; the timer
					// waking a little after it is the generator's delay, not
					// the server's, and is not counted.
					if d := time.Until(next); d > 0 {
						select {
						case <-time.After(d):
						case <-ctx.Done():
							return
						}
						wk.late = 0
					} else {
						wk.late = -d
					}
					next = next.Add(interval)
				}
				// Every client plays at least one measured action, even one
				// that starts after the window: a machine too slow for the
				// window (a warm-up request that outlasts it) still reports
				// what its requests took, not an empty run.
				now := time.Now()
				if (now.After(end) && wk.res.actions > 0) || ctx.Err() != nil {
					return
				}
				wk.measure = !now.Before(measureAt)
				if wk.measure {
					wk.res.actions++
				}
				a, err := wk.take(mix, total)
				if err != nil {
					wk.fail(err)
					continue
				}
				wk.do(ctx, a)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return runResult{}, err
	}
	var r runResult
	for _, wk := range workers {
		r.requests += wk.res.requests
		r.actions += wk.res.actions
		r.writes += wk.res.writes
		r.refused += wk.res.refused
		r.errors += wk.res.errors
		r.signedLate += wk.res.signedLate
		if r.firstErr == "" {
			r.firstErr = wk.res.firstErr
		}
		if r.firstRefusal == "" {
			r.firstRefusal = wk.res.firstRefusal
		}
		r.readLatencies = append(r.readLatencies, wk.res.readLatencies...)
		r.writeLatencies = append(r.writeLatencies, wk.res.writeLatencies...)
		wk.script = nil
	}
	r.latencies = slices.Concat(r.readLatencies, r.writeLatencies)
	slices.Sort(r.latencies)
	slices.Sort(r.readLatencies)
	slices.Sort(r.writeLatencies)
	r.elapsed = cfg.duration
	r.targetRate = cfg.rate
	cpu := <-cpuDone
	r.serverCPU, r.selfCPU = cpu[0], cpu[1]
	r.inProcess = pid == os.Getpid()
	r.writer = writer
	r.presigned, r.presignWall, r.presignCPU = presigned, presignWall, presignCPU
	return r, nil
}

// processCPU returns the user+system CPU time process pid has used so far,
// from /proc (0 when it cannot be read, or pid is 0).
func processCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the parenthesised command name; utime and stime are the
	// 14th and 15th fields of the line, in clock ticks (USER_HZ = 100).
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// do plays one action.
func (wk *worker) do(ctx context.Context, a action) {
	switch a.op {
	case opDamageUndo:
		if _, ok := wk.req(ctx, a.reqs[0], true); ok {
			wk.req(ctx, a.reqs[1], true)
		}
	case opHeal, opRoll, opRest:
		wk.req(ctx, a.reqs[0], true)
	case opCharShow, opTableShow, opCharList, opHistory:
		wk.req(ctx, a.reqs[0], false)
	case opButton:
		reply, ok := wk.req(ctx, a.reqs[0], false)
		if !ok || reply.ephemeral() {
			return
		}
		var press signedReq
		if len(a.reqs) > 1 {
			press = a.reqs[1]
		} else {
			id, err := reply.button("Cancel")
			if err != nil {
				wk.fail(err)
				return
			}
			body, err := pressBody(a.player, a.n, id)
			if err != nil {
				wk.fail(err)
				return
			}
			press = wk.c.sign(body)
			if wk.measure {
				wk.res.signedLate++
			}
		}
		reply, lat, err := wk.c.post(ctx, press)
		wk.record(reply, lat, err, false)
	}
}

// req sends a signed request and records it; write marks a state-changing
// command (counted as a write unless refused). ok is false on an error or a
// refusal.
func (wk *worker) req(ctx context.Context, sr signedReq, write bool) (wireReply, bool) {
	reply, lat, err := wk.c.post(ctx, sr)
	ok := wk.record(reply, lat, err, write)
	if ok && write && wk.measure {
		wk.res.writes++
	}
	return reply, ok
}

// record counts one request (when measuring), a state-changing one when
// write, and reports whether it succeeded without a refusal.
func (wk *worker) record(reply wireReply, lat time.Duration, err error, write bool) bool {
	if err != nil && ctx0Err(err) {
		return false
	}
	lat += wk.late // only the action's first request waited for its start
	wk.late = 0
	if wk.measure {
		wk.res.requests++
		if write {
			wk.res.writeLatencies = append(wk.res.writeLatencies, lat)
		} else {
			wk.res.readLatencies = append(wk.res.readLatencies, lat)
		}
	}
	if err != nil {
		wk.fail(err)
		return false
	}
	if reply.ephemeral() {
		if wk.measure {
			wk.res.refused++
			if wk.res.firstRefusal == "" {
				wk.res.firstRefusal = reply.Data.Content
			}
		}
		return false
	}
	return true
}

func (wk *worker) fail(err error) {
	if !wk.measure {
		return
	}
	wk.res.errors++
	if wk.res.firstErr == "" {
		wk.res.firstErr = err.Error()
	}
}

// ctx0Err reports whether err is the run being cancelled (not counted).
func ctx0Err(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
