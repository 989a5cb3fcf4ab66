package bot

import (
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot/discordtest"
	"github.com/hpkeeper/hpkeeper/bot/operator"
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
	"github.com/hpkeeper/hpkeeper/storage/pgtest"
)

// cutOff is a ShardLeases that fails every call once cut, as a process cut
// off from the database sees it.
type cutOff struct {
	ShardLeases
	cut atomic.Bool
}

var errCutOff = errors.New("cut off from the database (test)")

func (c *cutOff) GatewayMembers(owner string, ttl time.Duration) ([]string, error) {
	if c.cut.Load() {
		return nil, errCutOff
	}
	return c.ShardLeases.GatewayMembers(owner, ttl)
}

func (c *cutOff) RenewShard(l storage.ShardLease, ttl time.Duration) (storage.ShardLease, bool, error) {
	if c.cut.Load() {
		return l, false, errCutOff
	}
	return c.ShardLeases.RenewShard(l, ttl)
}

func (c *cutOff) LeaveGateway(owner string) error {
	if c.cut.Load() {
		return errCutOff
	}
	return c.ShardLeases.LeaveGateway(owner)
}

// TestGatewaySharesShardsThroughLeases: two processes on one PostgreSQL
// database share 4 shards, each identified once, each process running some
// (rendezvous hashing); then one is cut off from the database: it stops its
// shards before its leases expire (fencing: an interaction on them is not
// answered by it), and the other takes them over and answers a command on
// each. Every IDENTIFY of a bucket is spaced by the interval, whichever
// process sent it.
func TestGatewaySharesShardsThroughLeases(t *testing.T) {
	u := pgtest.NewDatabase(t)
	const ttl = 3 * time.Second
	const interval = 200 * time.Millisecond
	guilds := []string{guildOn(t, 0, 4, 1), guildOn(t, 1, 4, 2), guildOn(t, 2, 4, 3), guildOn(t, 3, 4, 4)}
	fake := discordtest.NewServer(t, discordtest.Options{Shards: 4, MaxConcurrency: 1, Guilds: guilds})
	var logs [2]syncBuffer
	defer func() {
		if t.Failed() {
			for i := range logs {
				t.Logf("process %d log:\n%s", i, logs[i].String())
			}
		}
	}()
	// Names that rendezvous hashing gives two shards each (the test of a
	// takeover needs both to run some).
	names := []string{"process-a", "process-b"}
	for n := 0; len(assigned(storage.AllShards(4), names, names[0])) != 2; n++ {
		names[1] = "process-b" + strconv.Itoa(n)
	}
	var gws [2]*Gateway
	var leases [2]*cutOff
	for i := range gws {
		db, err := storage.OpenPostgres(u, storage.PostgresOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		svc := commands.New(db, dice.NewRandom(uint64(i+1)), systems, features()...)
		g, err := NewGateway("test-token", svc, zerolog.New(&logs[i]), storage.ShardRange{Count: 4, Last: 3}, fakeSession(t, fake)...)
		if err != nil {
			t.Fatal(err)
		}
		g.identifyInterval = interval
		leases[i] = &cutOff{ShardLeases: db}
		g.ShareShards(leases[i], names[i], ttl)
		gws[i] = g
		runGateway(t, g)
	}
	held := func() (a, b []operator.ShardStatus) { return gws[0].ShardStatus(), gws[1].ShardStatus() }
	deadline := time.Now().Add(20 * time.Second)
	for {
		a, b := held()
		if len(a) == 2 && len(b) == 2 && allConnected(a) && allConnected(b) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s the processes run %+v and %+v; want the 4 shards between them, connected", a, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	a, _ := held()
	checkIdentifies(t, fake.Identifies(), interval)
	before := len(fake.Identifies())

	// Cut the process that runs shard 0 off: it must stop answering, and
	// the other take its shards.
	victim := 0
	if a[0].ID != 0 {
		victim = 1
	}
	lost := len(gws[victim].ShardStatus())
	cut := time.Now()
	leases[victim].cut.Store(true)
	other := gws[1-victim]
	// Fencing: by the lease's time to live after the cut (its last renewal
	// was before it), the cut-off process answers on none of its shards,
	// however late its loop runs.
	time.Sleep(time.Until(cut.Add(ttl)))
	for s := range 4 {
		if gws[victim].leases.holds(s) {
			t.Errorf("the cut-off process still answers on shard %d a lease's time after it was cut", s)
		}
	}
	waitShards(t, gws[victim], "no shard left", func(st []operator.ShardStatus) bool { return len(st) == 0 })
	deadline = time.Now().Add(30 * time.Second)
	for {
		st := other.ShardStatus()
		if len(st) == 4 && allConnected(st) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the surviving process runs %+v; want all 4 shards", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d shards taken over %v after the cut (lease %v)", lost, time.Since(cut), ttl)
	ids := fake.Identifies()
	if len(ids) != before+lost {
		t.Errorf("%d IDENTIFYs after the takeover, %d before; want one for each of the %d shards taken over", len(ids), before, lost)
	}
	checkIdentifies(t, ids, interval)
	for s, guild := range guilds {
		id := "131100000000000930" + string(rune('0'+s))
		if err := fake.Dispatch(s, inGuild(t, "table_setup.json", id, guild, id)); err != nil {
			t.Fatal(err)
		}
	}
	got := fake.Collect(4, nil, 20*time.Second)
	if len(got) != 4 {
		t.Errorf("%d of 4 /table setups answered after the takeover: %v", len(got), got)
	}
}

// checkIdentifies fails unless the IDENTIFYs (one bucket) are at least
// interval apart, less a little for the fake's own timing: a lower bound,
// which a slow machine only widens.
func checkIdentifies(t *testing.T, ids []discordtest.Identify, interval time.Duration) {
	t.Helper()
	for i := 1; i < len(ids); i++ {
		if gap := ids[i].At.Sub(ids[i-1].At); gap < interval*9/10 {
			t.Errorf("IDENTIFY %d (shard %d) came %v after the one before; want at least %v (one queue for every process)", i, ids[i].Shard, gap, interval)
		}
	}
}
