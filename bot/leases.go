package bot

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hpkeeper/hpkeeper/bot/discord"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Gateway shards without files. Over a shared database (PostgreSQL) the run
// processes of one bot share its shards instead of each running a range of
// them over a file of its own: any process may run any shard, and a
// process that dies has its shards taken over by the others.
//
//   - Every process is a member while it renews its membership every
//     LeaseTTL/3 (storage.DB.GatewayMembers), with the range of shards it
//     may take (its --shard-ids, or every shard). The shards are spread over
//     the live members by rendezvous hashing: each shard goes to the member,
//     among those whose range holds it, whose hash of (member, shard) is
//     highest, which every member computes alike, and which moves only the
//     shards of a member that comes or goes. A shard that no live member's
//     range holds has no process; each process logs such shards.
//   - A process runs a shard only while it holds the shard's lease
//     (storage.DB.AcquireShard), renewed every LeaseTTL/3. When a renewal
//     fails for LeaseTTL·9/10 (measured on the process's own clock from
//     before the renewal it last made), or the lease was taken by another
//     process, it stops the shard's session and stops answering its
//     interactions: an interaction that still arrives on it is dropped
//     unanswered (fencing). The lease can be taken only once it expired on
//     the database's clock, after that.
//   - A dead process's shards are taken once its membership and its leases
//     expired: within LeaseTTL + LeaseTTL/3, plus the wait for the shard's
//     turn to IDENTIFY. A process that stops cleanly gives its leases up at
//     once.
//   - IDENTIFYs wait for their rate-limit bucket's turn in the database
//     (storage.DB.IdentifyTurn): one queue per bucket for every process,
//     one IDENTIFY each IdentifyInterval.

// DefaultLeaseTTL is how long a shard's lease lasts unless renewed.
const DefaultLeaseTTL = 15 * time.Second

// ShardLeases is the database the run processes of one bot share their
// shards through; *storage.DB over PostgreSQL implements it. Each method
// returns an error (wrapping storage.ErrUnavailable when the server cannot
// be reached) when the database could not answer; the gateway then tries
// again at its next step.
type ShardLeases interface {
	// GatewayMembers renews m's membership for ttl and returns every live
	// member with its range of shards, or a *storage.ShardCountError when
	// they run another shard count (storage.DB.GatewayMembers).
	GatewayMembers(m storage.GatewayMember, ttl time.Duration) ([]storage.GatewayMember, error)
	// LeaveGateway ends owner's membership and gives up its leases.
	LeaveGateway(owner string) error
	// AcquireShard takes the lease of shard of count for owner for ttl; it
	// reports false, with the holder's lease, when another holds it.
	AcquireShard(count, shard int, owner string, ttl time.Duration) (storage.ShardLease, bool, error)
	// RenewShard extends l for ttl; it reports false when the lease is
	// another's now.
	RenewShard(l storage.ShardLease, ttl time.Duration) (storage.ShardLease, bool, error)
	// ReleaseShard gives l up.
	ReleaseShard(l storage.ShardLease) error
	// IdentifyTurn reserves the bucket's next IDENTIFY, or returns how long
	// to wait before asking again.
	IdentifyTurn(bucket int, interval time.Duration) (time.Duration, error)
	// IdentifySent moves the bucket's next turn to interval after now,
	// when the IDENTIFY its turn was given for has been written.
	IdentifySent(bucket int, interval time.Duration) error
}

var _ ShardLeases = (*storage.DB)(nil)

// ShareShards makes Run share the bot's shards with the other processes of
// the database leases (see above) instead of running its range alone: the
// shard count is that of the processes running, which the database
// records (Run's own, fixed or Discord's recommendation, when none runs;
// Run returns an error when it was fixed to another), and a fixed range
// limits the shards this process may take. owner names the process
// ("" makes one of the host name, the pid and the time); ttl is the leases'
// time to live (0: DefaultLeaseTTL). Call it before Run.
func (g *Gateway) ShareShards(leases ShardLeases, owner string, ttl time.Duration) {
	if owner == "" {
		host, _ := os.Hostname()
		owner = fmt.Sprintf("%s-%d-%x", host, os.Getpid(), time.Now().UnixNano()&0xffffff)
	}
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	g.leases = &leaseManager{g: g, db: leases, owner: owner, ttl: ttl, held: map[int]*leasedShard{}}
}

// leaseManager is the state of a Gateway that shares its shards.
type leaseManager struct {
	g     *Gateway
	db    ShardLeases
	owner string
	ttl   time.Duration

	count int
	cands storage.ShardRange // the shards this process may take
	limit *startLimit
	fatal chan error

	// orphans are the shards no live member may take, as last logged.
	orphans string

	mu   sync.Mutex
	held map[int]*leasedShard
	wg   sync.WaitGroup // shards starting and stopping
}

// leasedShard is a shard whose lease the process holds.
type leasedShard struct {
	sh    *shard
	lease storage.ShardLease
	// until is when the process stops answering unless it renews: its own
	// clock, before the database's expiry.
	until time.Time
	stop  context.CancelFunc
}

// holds reports whether the process may answer on shard now: it holds the
// shard's lease, renewed in time (the fence of the dispatcher).
func (m *leaseManager) holds(shard int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	ls := m.held[shard]
	return ls != nil && time.Now().Before(ls.until)
}

// assigned returns the shards of cands that rendezvous hashing gives
// owner among the members whose range holds each.
func assigned(cands storage.ShardRange, members []storage.GatewayMember, owner string) map[int]bool {
	out := map[int]bool{}
	for id := cands.First; id <= cands.Last; id++ {
		best, bestHash := "", uint64(0)
		for _, m := range members {
			if !m.Takes(id) {
				continue
			}
			h := fnv.New64a()
			h.Write([]byte(m.Owner))
			h.Write([]byte{0})
			h.Write([]byte(strconv.Itoa(id)))
			if v := h.Sum64(); best == "" || v > bestHash {
				best, bestHash = m.Owner, v
			}
		}
		if best == owner {
			out[id] = true
		}
	}
	return out
}

// orphaned returns the shards of count that none of the members may take,
// as ranges ("4-7,9"), "" when every shard has one.
func orphaned(count int, members []storage.GatewayMember) string {
	var out []string
	for id := 0; id < count; id++ {
		if slices.ContainsFunc(members, func(m storage.GatewayMember) bool { return m.Takes(id) }) {
			continue
		}
		last := id
		for last+1 < count && !slices.ContainsFunc(members, func(m storage.GatewayMember) bool { return m.Takes(last + 1) }) {
			last++
		}
		out = append(out, storage.ShardRange{Count: count, First: id, Last: last}.IDs())
		id = last
	}
	return strings.Join(out, ",")
}

// join makes the process a member of the gateway, trying again every
// LeaseTTL/3 while the database does not answer, and agrees on the shard
// count with the live members: a process whose count was not fixed
// (Discord's recommendation, recommended) takes theirs; one given a count
// that is not theirs returns the error that stops it, in one line.
func (m *leaseManager) join(ctx context.Context, recommended int) error {
	for {
		_, err := m.db.GatewayMembers(m.member(), m.ttl)
		var ce *storage.ShardCountError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &ce) && m.g.want.Count == 0:
			m.count, m.cands = ce.Count, storage.AllShards(ce.Count)
			ev := m.g.log.Info()
			if recommended > ce.Count {
				ev = m.g.log.Warn() // as Run warns of a fixed count below it
			}
			ev.Int("shard_count", ce.Count).Int("recommended_shards", recommended).Strs("members", ce.Members).
				Msg("taking the shard count of the run processes on the database (stop them all to change it)")
			continue
		case errors.As(err, &ce):
			return fmt.Errorf("run gateway: %w: give every process the same --shards (or auto, to take theirs), or stop them all to change it", err)
		}
		m.g.log.Warn().Err(err).Msg("could not join the gateway's members; trying again")
		if !sleep(ctx, m.ttl/3) {
			return nil
		}
	}
}

// member is this process as a member of the gateway.
func (m *leaseManager) member() storage.GatewayMember {
	return storage.GatewayMember{Owner: m.owner, Shards: m.cands}
}

// runLeased is Run for a Gateway that shares its shards.
func (g *Gateway) runLeased(ctx context.Context) error {
	m := g.leases
	g.disp.base = context.WithoutCancel(ctx)
	gb, err := g.rest.GatewayBot()
	if err != nil {
		return fmt.Errorf("run gateway: GET /gateway/bot: %w", redactErr(err))
	}
	m.count = g.want.Count
	if m.count == 0 {
		m.count = max(gb.Shards, 1)
	}
	m.cands = g.want
	if m.cands.Count == 0 {
		m.cands = storage.AllShards(m.count)
	}
	// Join first and take shards from the next tick on, so that processes
	// started together see each other before they divide the shards.
	if err := m.join(ctx, gb.Shards); err != nil {
		return err
	}
	m.limit = newStartLimit(gb.SessionStartLimit, g.rest.GatewayBot, g.log, g.identifyInterval)
	m.limit.shared = m.turn // every IDENTIFY, discordgo's after an invalid session too
	m.limit.sharedSent = m.identified
	m.fatal = make(chan error, 1)
	g.log.Info().Int("shard_count", m.count).Str("shards", m.cands.String()).Str("owner", m.owner).
		Dur("lease_ttl", m.ttl).Int("max_concurrency", m.limit.concurrency).
		Msg("gateway shards shared through the database: taking the shards this process is given")
	g.disp.shards = storage.AllShards(m.count)
	g.disp.fence = m.holds
	g.disp.refused = func(id int) {
		m.mu.Lock()
		if ls := m.held[id]; ls != nil {
			ls.sh.refused.Add(1)
		}
		m.mu.Unlock()
	}
	g.mu.Lock()
	g.rng = storage.AllShards(m.count)
	g.mu.Unlock()

	tick := time.NewTicker(m.ttl / 3)
	defer tick.Stop()
	var runErr error
	for {
		select {
		case <-ctx.Done():
		case runErr = <-m.fatal:
			g.log.Error().Err(runErr).Msg("gateway stopping")
		case <-tick.C:
			m.step(ctx)
			continue
		}
		break
	}
	g.log.Info().Msg("gateway closing")
	g.disp.stop()
	m.mu.Lock()
	for id, ls := range m.held {
		m.stopLocked(id, ls, "")
	}
	m.mu.Unlock()
	if !waitFor(&m.wg, closeWait) {
		g.log.Warn().Dur("after", closeWait).Msg("a gateway session did not close in time; leaving it")
	}
	if err := m.db.LeaveGateway(m.owner); err != nil {
		g.log.Warn().Err(err).Msg("could not give the shards' leases up: the other processes take them once they expire")
	}
	g.disp.wg.Wait()
	return runErr
}

// step renews the membership and the leases held, gives up the shards no
// longer this process's, stops those whose lease was lost, and takes the
// shards it was given that it does not hold yet.
func (m *leaseManager) step(ctx context.Context) {
	log := m.g.log
	members, err := m.db.GatewayMembers(m.member(), m.ttl)
	var ce *storage.ShardCountError
	if errors.As(err, &ce) {
		// The others run another count: they started with it while this
		// process was cut off from the database past its membership.
		select {
		case m.fatal <- fmt.Errorf("run gateway: %w since it was cut off from the database: stopping", err):
		default:
		}
		return
	}
	if err != nil {
		log.Warn().Err(err).Msg("could not renew the gateway membership; trying again")
	} else if o := orphaned(m.count, members); o != m.orphans {
		m.orphans = o
		if o != "" {
			log.Warn().Str("shards", o).Int("shard_count", m.count).Msg("no live process may take these shards (their ranges, --shard-ids, leave them out): their guilds get no answer")
		} else {
			log.Info().Int("shard_count", m.count).Msg("every shard has a live process that may take it")
		}
	}
	m.mu.Lock()
	held := make(map[int]*leasedShard, len(m.held))
	for id, ls := range m.held {
		held[id] = ls
	}
	m.mu.Unlock()
	var mine map[int]bool
	if err == nil {
		mine = assigned(m.cands, members, m.owner)
	}
	for id, ls := range held {
		if mine != nil && !mine[id] {
			m.mu.Lock()
			m.stopLocked(id, ls, "the shard is another member's now")
			m.mu.Unlock()
			if err := m.db.ReleaseShard(ls.lease); err != nil {
				log.Warn().Err(err).Int("shard", id).Msg("could not give the shard's lease up; it expires")
			}
			continue
		}
		sent := time.Now()
		l, ok, err := m.db.RenewShard(ls.lease, m.ttl)
		m.mu.Lock()
		switch {
		case err != nil:
			if !time.Now().Before(ls.until) {
				m.stopLocked(id, ls, "its lease could not be renewed in time")
			} else {
				log.Warn().Err(err).Int("shard", id).Msg("could not renew the shard's lease; trying again")
			}
		case !ok:
			m.stopLocked(id, ls, "its lease was taken by another process")
		default:
			ls.lease, ls.until = l, sent.Add(m.ttl*9/10)
		}
		m.mu.Unlock()
	}
	for id := m.cands.First; id <= m.cands.Last && mine != nil; id++ {
		m.mu.Lock()
		_, have := m.held[id]
		m.mu.Unlock()
		if !mine[id] || have || ctx.Err() != nil {
			continue
		}
		sent := time.Now()
		l, ok, err := m.db.AcquireShard(m.count, id, m.owner, m.ttl)
		if err != nil {
			log.Warn().Err(err).Int("shard", id).Msg("could not take the shard's lease; trying again")
			continue
		}
		if !ok {
			log.Debug().Int("shard", id).Str("holder", l.Owner).Time("expires", l.Expires).Msg("shard given to this process is still held by another")
			continue
		}
		m.start(ctx, id, l, sent.Add(m.ttl*9/10))
	}
	m.report()
}

// start starts the session of shard id under lease l: it waits for the
// shard's turn to IDENTIFY (the database's queue and Discord's start
// limit), then connects, retrying with a backoff, until the lease is lost.
func (m *leaseManager) start(ctx context.Context, id int, l storage.ShardLease, until time.Time) {
	sh, err := m.g.newShard(id, m.count)
	if err != nil {
		m.g.log.Error().Err(err).Int("shard", id).Msg("could not make the shard's session")
		return
	}
	sctx, stop := context.WithCancel(ctx)
	sh.limit, sh.bucket, sh.running = m.limit, discord.IdentifyBucket(id, m.limit.concurrency), sctx
	ls := &leasedShard{sh: sh, lease: l, until: until, stop: stop}
	m.mu.Lock()
	m.held[id] = ls
	m.mu.Unlock()
	sh.log.Info().Int64("lease_token", l.Token).Msg("shard lease taken: starting its session")
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		backoff := time.Second
		for {
			// The turn is taken before dialling (the database's queue,
			// then the process's limit: startLimit.take), and the
			// connection's first IDENTIFY spends it (shard.identify).
			if !sh.prepaid.Load() {
				if m.limit.take(sctx, sh.bucket) != nil {
					return
				}
				sh.prepaid.Store(true)
			}
			err := sh.open()
			if err == nil {
				sh.log.Info().Int64("lease_token", l.Token).Msg("gateway shard connected")
				return
			}
			if sctx.Err() != nil || err == errShardStopped {
				return
			}
			if ferr := fatalClose(err, id, m.count); ferr != nil {
				select {
				case m.fatal <- ferr:
				default:
				}
				return
			}
			wait := max(backoff, m.g.identifyInterval)
			sh.log.Error().Err(redactErr(err)).Dur("retry_in", wait).Msg("gateway shard could not connect")
			if !sleep(sctx, wait) {
				return
			}
			backoff = min(2*backoff, maxOpenBackoff)
		}
	}()
}

// turn waits for the bucket's turn to IDENTIFY in the database's queue
// (startLimit.shared); it returns ctx's error when ctx ends first.
func (m *leaseManager) turn(ctx context.Context, bucket int) error {
	for {
		wait, err := m.db.IdentifyTurn(bucket, m.g.identifyInterval)
		if err == nil && wait == 0 {
			return nil
		}
		if err != nil {
			m.g.log.Warn().Err(err).Int("bucket", bucket).Msg("could not ask for the turn to identify; asking again")
			wait = time.Second
		}
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
	}
}

// identified tells the database's queue that the bucket's IDENTIFY has
// been written, so that the bucket's next turn, whichever process takes
// it, counts from now rather than from when the turn was given (before
// the dial). It runs beside the session's write, which it never holds
// up; a failure is logged, and the turn as given stands.
func (m *leaseManager) identified(bucket int) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		if err := m.db.IdentifySent(bucket, m.g.identifyInterval); err != nil {
			m.g.log.Warn().Err(err).Int("bucket", bucket).Msg("could not tell the database's identify queue that an IDENTIFY left; the next turn counts from when this one was given")
		}
	}()
}

// stopLocked stops the session of a held shard and forgets it; why, when
// not "", is logged. m.mu is held.
func (m *leaseManager) stopLocked(id int, ls *leasedShard, why string) {
	if m.held[id] != ls {
		return
	}
	delete(m.held, id)
	ls.stop()
	if why != "" {
		ls.sh.log.Warn().Int64("lease_token", ls.lease.Token).Msg("shard stopped: " + why)
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		if err := ls.sh.close(); err != nil {
			ls.sh.log.Warn().Err(redactErr(err)).Msg("closing gateway session")
		}
	}()
}

// report makes the shards held the Gateway's, for /healthz and /metrics.
func (m *leaseManager) report() {
	m.mu.Lock()
	ids := make([]int, 0, len(m.held))
	for id := range m.held {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	shards := make([]*shard, len(ids))
	for i, id := range ids {
		shards[i] = m.held[id].sh
	}
	m.mu.Unlock()
	m.g.mu.Lock()
	m.g.shards = shards
	m.g.mu.Unlock()
}
