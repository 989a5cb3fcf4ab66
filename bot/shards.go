package bot

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot/discord"
	"github.com/hpkeeper/hpkeeper/bot/operator"
	"github.com/hpkeeper/hpkeeper/storage"
)

// DefaultIdentifyInterval is the least time between two IDENTIFYs of one
// rate-limit bucket (shard_id % max_concurrency), as Discord requires: a
// bucket's next shard starts this long after the previous one connected.
const DefaultIdentifyInterval = 5 * time.Second

// maxOpenBackoff bounds the wait between two attempts at a shard's first
// connection.
const maxOpenBackoff = 2 * time.Minute

// closeWait bounds how long Run waits for the sessions to close and for a
// connection attempt in progress to give up.
const closeWait = 5 * time.Second

var _ operator.ShardReporter = (*Gateway)(nil)

// Gateway runs a range of a bot's gateway shards in one process, one
// discordgo session each, and answers the interactions of all of them with
// one Handler (one database). Sessions are started as Discord's session
// start limit allows: one IDENTIFY per rate-limit bucket (shard_id %
// max_concurrency) every DefaultIdentifyInterval, none while no start is
// left (it logs, waits for the limit's reset_after and asks again). A shard
// that disconnects reconnects and resumes alone. An interaction for a guild
// outside the process's shards (discord.Owns) is refused: logged
// at error level, answered with an ephemeral refusal, never handled.
type Gateway struct {
	log  zerolog.Logger
	want storage.ShardRange
	opts []SessionOption
	rest *discordgo.Session // GET /gateway/bot
	disp *answerer

	// identifyInterval is DefaultIdentifyInterval (shorter in tests).
	identifyInterval time.Duration

	mu     sync.Mutex
	shards []*shard
	rng    storage.ShardRange

	// leases, when set (ShareShards), share the shards with the other
	// processes of the database (leases.go).
	leases *leaseManager
}

// NewGateway returns a Gateway for the bot token that will run the shards
// of want: every shard of Discord's recommended count (GET /gateway/bot)
// when want.Count is 0, else shards want.First…want.Last of want.Count.
// opts configure each session (WithHTTPClient, WithDialer, metrics). It
// returns an error for a nil handler or an empty token.
func NewGateway(token string, h Handler, log zerolog.Logger, want storage.ShardRange, opts ...SessionOption) (*Gateway, error) {
	if h == nil {
		return nil, errors.New("run gateway: nil handler")
	}
	rest, err := NewSession(token, log, opts...)
	if err != nil {
		return nil, fmt.Errorf("run gateway: %w", err)
	}
	return &Gateway{
		log: log, want: want, opts: opts, rest: rest,
		disp:             &answerer{h: h, log: log, deferAfter: DefaultDeferAfter},
		identifyInterval: DefaultIdentifyInterval,
	}, nil
}

// Run asks Discord for the shard count (when not fixed) and the session
// start limit, starts the sessions, and answers interactions until ctx is
// cancelled; then it closes every session (about a second, all at once) and
// waits for the interactions in flight to be answered, so the caller may
// close the database after it returns.
//
// It returns nil after ctx is cancelled, or an error when Discord cannot be
// asked (a bad token, Discord unreachable), when the shard range does not
// fit Discord's count, or when Discord closes a session for good (a wrong
// token, sharding required, a shard out of range). A shard whose first
// connection fails otherwise is retried, with a backoff, while the others run.
func (g *Gateway) Run(ctx context.Context) error {
	if g.leases != nil {
		return g.runLeased(ctx)
	}
	g.disp.base = context.WithoutCancel(ctx)
	gb, err := g.rest.GatewayBot()
	if err != nil {
		return fmt.Errorf("run gateway: GET /gateway/bot: %w", redactErr(err))
	}
	rng := g.want
	if rng.Count == 0 {
		rng = storage.AllShards(max(gb.Shards, 1))
	}
	if rng.Count > storage.MaxShards || rng.Last >= rng.Count {
		return fmt.Errorf("run gateway: shards %s do not fit", rng)
	}
	limit := newStartLimit(gb.SessionStartLimit, g.rest.GatewayBot, g.log, g.identifyInterval)
	ev := g.log.Info().Int("shard_count", rng.Count).Int("first_shard", rng.First).Int("last_shard", rng.Last).
		Int("recommended_shards", gb.Shards).Int("max_concurrency", limit.concurrency)
	if limit.known {
		ev = ev.Int("session_starts_remaining", limit.remaining).Int("session_starts_total", gb.SessionStartLimit.Total)
	}
	ev.Msg("gateway shards")
	if gb.Shards > rng.Count {
		g.log.Warn().Int("recommended_shards", gb.Shards).Int("shard_count", rng.Count).
			Msg("Discord recommends more shards than configured: it refuses a session past 2,500 guilds a shard (use discord.shards = \"auto\", or raise it and run hpkeeper shard split)")
	}
	if limit.known && limit.remaining < rng.Len() {
		g.log.Warn().Int("session_starts_remaining", limit.remaining).Int("shards", rng.Len()).Dur("reset_after", time.Until(limit.resetAt)).
			Msg("fewer session starts left than shards to start: the others wait for Discord's reset")
	}

	wctx, stopStarting := context.WithCancel(ctx)
	defer stopStarting()
	shards := make([]*shard, 0, rng.Len())
	for id := rng.First; id <= rng.Last; id++ {
		sh, err := g.newShard(id, rng.Count)
		if err != nil {
			return err
		}
		sh.limit, sh.bucket, sh.running = limit, discord.IdentifyBucket(id, limit.concurrency), wctx
		shards = append(shards, sh)
	}
	g.disp.shards = rng
	g.disp.refused = func(id int) {
		if id >= rng.First && id <= rng.Last {
			shards[id-rng.First].refused.Add(1)
		}
	}
	g.mu.Lock()
	g.shards, g.rng = shards, rng
	g.mu.Unlock()

	buckets := make([][]*shard, limit.concurrency)
	for _, sh := range shards {
		b := discord.IdentifyBucket(sh.id, limit.concurrency)
		buckets[b] = append(buckets[b], sh)
	}
	fatal := make(chan error, 1)
	var starting sync.WaitGroup
	for _, list := range buckets {
		if len(list) == 0 {
			continue
		}
		starting.Add(1)
		go func() {
			defer starting.Done()
			if err := g.startBucket(wctx, limit, list); err != nil {
				select {
				case fatal <- err:
				default:
				}
			}
		}()
	}
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-fatal:
		g.log.Error().Err(runErr).Msg("gateway stopping")
	}
	stopStarting()
	g.log.Info().Msg("gateway closing")
	g.disp.stop()
	var closing sync.WaitGroup
	for _, sh := range shards {
		closing.Add(1)
		go func() {
			defer closing.Done()
			if err := sh.close(); err != nil {
				sh.log.Warn().Err(redactErr(err)).Msg("closing gateway session")
			}
		}()
	}
	if !waitFor(&closing, closeWait) || !waitFor(&starting, closeWait) {
		g.log.Warn().Dur("after", closeWait).Msg("a gateway session did not close in time; leaving it")
	}
	if !waitFor(&g.disp.wg, StopGrace) {
		g.disp.inflight.settle(g.log) // inflight.go: the deferred commands still running are told
	}
	g.disp.wg.Wait()
	return runErr
}

// newShard makes the session of shard id of count.
func (g *Gateway) newShard(id, count int) (*shard, error) {
	s, err := NewSession(g.rest.Token, g.log, g.opts...)
	if err != nil {
		return nil, fmt.Errorf("run gateway: %w", err)
	}
	s.ShardID, s.ShardCount = id, count
	sh := &shard{id: id, s: s, log: g.log.With().Int("shard", id).Logger(), guilds: map[string]struct{}{}}
	// Every IDENTIFY the session writes waits for the limiter
	// (identify.go), discordgo's own after an invalid session included.
	s.Dialer = gatedDialer(s.Dialer, sh.identify)
	s.AddHandler(g.disp.onEvent)
	s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) {
		sh.setGuilds(r.Guilds)
		ev := sh.log.Info().Int("guilds", len(r.Guilds))
		if r.User != nil {
			ev = ev.Str("user", r.User.Username).Str("user_id", r.User.ID)
		}
		ev.Msg("gateway ready")
	})
	s.AddHandler(func(_ *discordgo.Session, c *discordgo.GuildCreate) {
		if c.Guild != nil {
			sh.addGuild(c.ID)
		}
	})
	s.AddHandler(func(_ *discordgo.Session, d *discordgo.GuildDelete) {
		if d.Guild != nil && !d.Unavailable { // unavailable: an outage, still the bot's
			sh.removeGuild(d.ID)
		}
	})
	s.AddHandler(func(*discordgo.Session, *discordgo.Connect) {
		if sh.connects.Add(1) > 1 {
			sh.log.Info().Msg("gateway shard reconnected")
		}
	})
	s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) {
		sh.disconnects.Add(1)
		if !sh.stopped.Load() {
			sh.log.Warn().Msg("gateway shard disconnected; resuming")
		}
	})
	return sh, nil
}

// startBucket starts the shards of one rate-limit bucket in order, each
// identifyInterval after the previous one connected, retrying a shard whose
// first connection fails. It returns an error when Discord refuses a
// session for good, nil when ctx is done.
func (g *Gateway) startBucket(ctx context.Context, limit *startLimit, list []*shard) error {
	for i, sh := range list {
		if i > 0 && !sleep(ctx, g.identifyInterval) {
			return nil
		}
		backoff := time.Second
		for {
			// The turn is taken before dialling, and the connection's
			// first IDENTIFY spends it (shard.identify); one that was not
			// sent (the dial failed) is kept for the next attempt.
			if !sh.prepaid.Load() {
				if limit.take(ctx, sh.bucket) != nil {
					return nil
				}
				sh.prepaid.Store(true)
			}
			err := sh.open()
			if err == nil {
				sh.log.Info().Msg("gateway shard connected")
				break
			}
			if ctx.Err() != nil || errors.Is(err, errShardStopped) {
				return nil
			}
			if ferr := fatalClose(err, sh.id, sh.s.ShardCount); ferr != nil {
				return ferr
			}
			wait := max(backoff, g.identifyInterval)
			sh.log.Error().Err(redactErr(err)).Dur("retry_in", wait).Msg("gateway shard could not connect")
			if !sleep(ctx, wait) {
				return nil
			}
			backoff = min(2*backoff, maxOpenBackoff)
		}
	}
	return nil
}

// fatalClose returns the error for a close code after which connecting
// again cannot help, or nil.
func fatalClose(err error, shard, count int) error {
	var ce *websocket.CloseError
	if !errors.As(err, &ce) {
		return nil
	}
	why := map[int]string{
		4004: "authentication failed: the bot token is wrong",
		4010: "invalid shard",
		4011: fmt.Sprintf("sharding required: Discord wants more than %d shards (use discord.shards = \"auto\", or raise it and run hpkeeper shard split)", count),
		4012: "invalid API version",
		4013: "invalid intents",
		4014: "disallowed intents",
	}[ce.Code]
	if why == "" {
		return nil
	}
	return fmt.Errorf("run gateway: shard %d: Discord closed the session with %d: %s", shard, ce.Code, why)
}

// ShardStatus returns each shard's status, in shard id order; none before
// Run has learnt the shard count.
func (g *Gateway) ShardStatus() []operator.ShardStatus {
	g.mu.Lock()
	shards := g.shards
	g.mu.Unlock()
	out := make([]operator.ShardStatus, len(shards))
	for i, sh := range shards {
		out[i] = sh.status()
	}
	return out
}

// ShardRange returns the shards Run runs, of the bot's count; the zero
// ShardRange before Run has learnt the count.
func (g *Gateway) ShardRange() storage.ShardRange {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.rng
}

// errShardStopped is returned by shard.open once the gateway is stopping.
var errShardStopped = errors.New("gateway stopping")

// shard is one session of a Gateway.
type shard struct {
	id  int
	s   *discordgo.Session
	log zerolog.Logger

	// limit gives the shard its turns to identify, in its rate-limit
	// bucket, while running is not done (Gateway.Run sets them).
	limit   *startLimit
	bucket  int
	running context.Context
	// prepaid: startBucket took a turn for the connection it opens, which
	// its first IDENTIFY spends.
	prepaid atomic.Bool

	mu      sync.Mutex // held by open and close
	opened  atomic.Bool
	stopped atomic.Bool
	failed  atomic.Bool // the last first-connection attempt failed

	connects, disconnects atomic.Int64 // Connect and Disconnect events
	refused               atomic.Int64
	ready                 atomic.Bool  // DataReady as last read
	latency               atomic.Int64 // nanoseconds

	gmu    sync.Mutex
	guilds map[string]struct{}
}

// open makes the session's first connection (discordgo makes the later
// ones itself); it fails with errShardStopped once close has run.
func (sh *shard) open() error {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.stopped.Load() {
		return errShardStopped
	}
	sh.failed.Store(false)
	if err := sh.s.Open(); err != nil {
		sh.failed.Store(true)
		return err
	}
	sh.opened.Store(true)
	return nil
}

// identify is the shard's session's gate (identifyGate): it returns when
// the IDENTIFY the session is writing may go, at once when startBucket
// took its turn already, else (discordgo identifying again after Discord
// invalidated the session, op 9) once the limiter gives the shard's bucket
// a turn. It returns an error when conn (the connection) is closed or the
// gateway stops first.
func (sh *shard) identify(conn context.Context) (sent func(), err error) {
	if sh.limit == nil {
		return nil, errors.New("the gateway has not started")
	}
	// The bucket's next turn counts from when the IDENTIFY left, which
	// is when Discord counts it from too.
	sent = func() {
		sh.limit.sent(sh.bucket)
		if sh.limit.sharedSent != nil {
			sh.limit.sharedSent(sh.bucket)
		}
	}
	if sh.prepaid.CompareAndSwap(true, false) {
		return sent, nil
	}
	sh.log.Warn().Int("bucket", sh.bucket).Msg("gateway shard identifying again (Discord invalidated its session): waiting for its turn in the session start limit")
	ctx, cancel := context.WithCancel(sh.running)
	defer cancel()
	defer context.AfterFunc(conn, cancel)()
	if err := sh.limit.take(ctx, sh.bucket); err != nil {
		return nil, err
	}
	return sent, nil
}

// close closes the session for good.
func (sh *shard) close() error {
	sh.stopped.Store(true)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if !sh.opened.Load() {
		return nil
	}
	return sh.s.Close()
}

// status reads the shard's state without waiting for the session's lock,
// which discordgo holds while it connects (and for a second while it
// closes): a scrape never stalls behind a reconnecting shard.
//
// discordgo sets DataReady under the session lock after it has written
// LastHeartbeatSent, so the latency is read only once DataReady is set;
// it writes LastHeartbeatSent of later heartbeats without that lock, which
// leaves a window of one websocket write per heartbeat interval (about
// 41 s) in which a read may see a value being written. A latency that is
// not positive (a heartbeat sent and not yet acknowledged) keeps the last.
func (sh *shard) status() operator.ShardStatus {
	st := operator.ShardStatus{ID: sh.id, Reconnects: max(sh.connects.Load()-1, 0), Refused: sh.refused.Load()}
	sh.gmu.Lock()
	st.Guilds = len(sh.guilds)
	sh.gmu.Unlock()
	switch {
	case sh.stopped.Load():
		st.State = operator.ShardDown
	case !sh.opened.Load():
		st.State = operator.ShardConnecting
		if sh.failed.Load() {
			st.State = operator.ShardDown
		}
	default:
		if sh.s.TryRLock() {
			ready := sh.s.DataReady
			if ready {
				if lat := sh.s.HeartbeatLatency(); lat > 0 {
					sh.latency.Store(int64(lat))
				}
			}
			sh.s.RUnlock()
			sh.ready.Store(ready)
		}
		switch {
		case sh.ready.Load():
			st.State = operator.ShardConnected
		case sh.disconnects.Load() > 0:
			st.State = operator.ShardResuming
		default:
			st.State = operator.ShardConnecting
		}
	}
	st.HeartbeatLatency = time.Duration(sh.latency.Load())
	return st
}

func (sh *shard) setGuilds(gs []*discordgo.Guild) {
	sh.gmu.Lock()
	defer sh.gmu.Unlock()
	clear(sh.guilds)
	for _, g := range gs {
		if g != nil {
			sh.guilds[g.ID] = struct{}{}
		}
	}
}

func (sh *shard) addGuild(id string) {
	sh.gmu.Lock()
	sh.guilds[id] = struct{}{}
	sh.gmu.Unlock()
}

func (sh *shard) removeGuild(id string) {
	sh.gmu.Lock()
	delete(sh.guilds, id)
	sh.gmu.Unlock()
}

// startLimit spends Discord's session starts (session_start_limit of GET
// /gateway/bot): one per IDENTIFY; when none is left it waits for the
// limit's reset and asks again.
type startLimit struct {
	fetch func(...discordgo.RequestOption) (*discordgo.GatewayBotResponse, error)
	log   zerolog.Logger
	// concurrency is max_concurrency, the number of rate-limit buckets (at
	// least 1), as Discord said it at the start.
	concurrency int

	turn      chan struct{} // one taker at a time
	known     bool          // Discord gave a limit
	remaining int
	resetAt   time.Time

	// interval is the least time between two turns of one bucket; next
	// holds each bucket's next turn, guarded by its own one-slot
	// semaphore in buckets (the buckets wait side by side).
	interval time.Duration
	buckets  []chan struct{}
	nmu      sync.Mutex
	next     []time.Time

	// shared, when set, waits for the bucket's turn in the queue every
	// process of a shared database keeps (leases.go) before the turn is
	// taken here.
	shared func(ctx context.Context, bucket int) error
	// sharedSent, when set, tells that queue that the bucket's IDENTIFY
	// has been written, so that its next turn counts from then (the turn
	// was given before the dial).
	sharedSent func(bucket int)
}

// minLimitWait keeps a limit that reports no starts and no reset from
// being asked again in a tight loop.
const minLimitWait = 100 * time.Millisecond

func newStartLimit(l discordgo.SessionInformation, fetch func(...discordgo.RequestOption) (*discordgo.GatewayBotResponse, error), log zerolog.Logger, interval time.Duration) *startLimit {
	sl := &startLimit{fetch: fetch, log: log, concurrency: max(l.MaxConcurrency, 1), turn: make(chan struct{}, 1), interval: interval}
	sl.buckets, sl.next = make([]chan struct{}, sl.concurrency), make([]time.Time, sl.concurrency)
	for i := range sl.buckets {
		sl.buckets[i] = make(chan struct{}, 1)
	}
	sl.update(l)
	return sl
}

// update takes a fresh session_start_limit.
func (sl *startLimit) update(l discordgo.SessionInformation) {
	sl.known = l.Total > 0 || l.Remaining > 0 || l.ResetAfter > 0
	sl.remaining = l.Remaining
	sl.resetAt = time.Now().Add(time.Duration(l.ResetAfter) * time.Millisecond)
}

// take gives bucket (shard_id % max_concurrency) its turn to identify:
// it waits until interval has passed since the bucket's last turn, then
// spends one session start, first waiting (logged) for Discord's reset
// while none is left. It returns ctx's error when ctx is done first.
func (sl *startLimit) take(ctx context.Context, bucket int) error {
	b := sl.buckets[bucket%len(sl.buckets)]
	select {
	case b <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-b }()
	if sl.shared != nil {
		if err := sl.shared(ctx, bucket); err != nil {
			return err
		}
	}
	for {
		sl.nmu.Lock()
		wait := time.Until(sl.next[bucket%len(sl.next)])
		sl.nmu.Unlock()
		if wait <= 0 {
			break
		}
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
	}
	if err := sl.spend(ctx); err != nil {
		return err
	}
	sl.sent(bucket)
	return nil
}

// sent notes that bucket's IDENTIFY has been written now: its next turn
// is an interval on.
func (sl *startLimit) sent(bucket int) {
	sl.nmu.Lock()
	defer sl.nmu.Unlock()
	if next := time.Now().Add(sl.interval); next.After(sl.next[bucket%len(sl.next)]) {
		sl.next[bucket%len(sl.next)] = next
	}
}

// spend spends one session start, first waiting (logged) for Discord's
// reset while none is left. It returns ctx's error when ctx is done first.
func (sl *startLimit) spend(ctx context.Context) error {
	select {
	case sl.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-sl.turn }()
	for sl.known && sl.remaining <= 0 {
		wait := max(time.Until(sl.resetAt), minLimitWait)
		sl.log.Warn().Dur("wait", wait).Time("until", sl.resetAt).
			Msg("gateway session start limit exhausted: waiting for Discord's reset (session_start_limit.reset_after) before identifying again")
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
		gb, err := sl.fetch()
		if err != nil {
			sl.log.Warn().Err(redactErr(err)).Msg("GET /gateway/bot for the session start limit failed; asking again in 10 s")
			sl.resetAt = time.Now().Add(10 * time.Second)
			continue
		}
		sl.update(gb.SessionStartLimit)
		sl.log.Info().Int("session_starts_remaining", sl.remaining).Msg("gateway session start limit reset")
	}
	sl.remaining--
	return nil
}

// sleep waits d, or until ctx is done; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// waitFor waits for wg up to d; it reports whether wg finished.
func waitFor(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}
