package bot

import (
	"errors"
	"io"
	"strconv"
	"strings"
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

func (c *cutOff) GatewayMembers(m storage.GatewayMember, ttl time.Duration) ([]storage.GatewayMember, error) {
	if c.cut.Load() {
		return nil, errCutOff
	}
	return c.ShardLeases.GatewayMembers(m, ttl)
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

// logsOnFailure returns n logs, one a process, that the test prints when it
// fails.
func logsOnFailure(t *testing.T, n int) []syncBuffer {
	logs := make([]syncBuffer, n)
	t.Cleanup(func() {
		if t.Failed() {
			for i := range logs {
				t.Logf("process %d log:\n%s", i, logs[i].String())
			}
		}
	})
	return logs
}

// leasedGateway starts a Gateway of the shards rng, on the fake's sessions,
// that shares them through the PostgreSQL database u as owner (through
// wrap's ShardLeases when wrap is not nil), identifying every interval, and
// logging to log. It returns the Gateway and the channel Run's error
// arrives on.
func leasedGateway(t *testing.T, u string, fake *discordtest.Server, rng storage.ShardRange, owner string, ttl, interval time.Duration,
	log io.Writer, wrap func(ShardLeases) ShardLeases) (*Gateway, chan error) {
	t.Helper()
	db, err := storage.OpenPostgres(u, storage.PostgresOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := commands.New(db, dice.NewRandom(1), systems, features()...)
	g, err := NewGateway("test-token", svc, zerolog.New(log), rng, fakeSession(t, fake)...)
	if err != nil {
		t.Fatal(err)
	}
	g.identifyInterval = interval
	var leases ShardLeases = db
	if wrap != nil {
		leases = wrap(db)
	}
	g.ShareShards(leases, owner, ttl)
	done, _ := runGateway(t, g)
	return g, done
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
	logs := logsOnFailure(t, 2)
	// Names that rendezvous hashing gives two shards each (the test of a
	// takeover needs both to run some).
	names := []string{"process-a", "process-b"}
	members := func() []storage.GatewayMember {
		return []storage.GatewayMember{{Owner: names[0], Shards: storage.AllShards(4)}, {Owner: names[1], Shards: storage.AllShards(4)}}
	}
	for n := 0; len(assigned(storage.AllShards(4), members(), names[0])) != 2; n++ {
		names[1] = "process-b" + strconv.Itoa(n)
	}
	var gws [2]*Gateway
	var leases [2]*cutOff
	for i := range gws {
		gws[i], _ = leasedGateway(t, u, fake, storage.AllShards(4), names[i], ttl, interval, &logs[i], func(db ShardLeases) ShardLeases {
			leases[i] = &cutOff{ShardLeases: db}
			return leases[i]
		})
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

// TestGatewayShardRangesOnPostgres: two processes on one PostgreSQL
// database, each given a range of the 8 shards (--shard-ids 0-3 and 4-7),
// run every shard between them: a shard is shared only among the members
// whose range holds it, so each process runs its whole range.
func TestGatewayShardRangesOnPostgres(t *testing.T) {
	u := pgtest.NewDatabase(t)
	const ttl = 3 * time.Second
	fake := discordtest.NewServer(t, discordtest.Options{Shards: 8, MaxConcurrency: 8})
	logs := logsOnFailure(t, 2)
	ranges := []storage.ShardRange{{Count: 8, First: 0, Last: 3}, {Count: 8, First: 4, Last: 7}}
	var gws [2]*Gateway
	for i, rng := range ranges {
		gws[i], _ = leasedGateway(t, u, fake, rng, "process-"+rng.IDs(), ttl, 100*time.Millisecond, &logs[i], nil)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		a, b := gws[0].ShardStatus(), gws[1].ShardStatus()
		if len(a) == 4 && len(b) == 4 && allConnected(a) && allConnected(b) {
			for i, st := range [][]operator.ShardStatus{a, b} {
				for _, s := range st {
					if s.ID < ranges[i].First || s.ID > ranges[i].Last {
						t.Errorf("process %d (%v) runs shard %d", i, ranges[i], s.ID)
					}
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the processes of shards 0-3 and 4-7 run %+v and %+v; want 4 shards each, connected", a, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestOrphanedShards: the shards that no member's range holds, as a
// process logs them.
func TestOrphanedShards(t *testing.T) {
	of := func(first, last int) storage.GatewayMember {
		return storage.GatewayMember{Owner: "p", Shards: storage.ShardRange{Count: 10, First: first, Last: last}}
	}
	for _, tt := range []struct {
		members []storage.GatewayMember
		want    string
	}{
		{[]storage.GatewayMember{of(0, 9)}, ""},
		{[]storage.GatewayMember{of(0, 3), of(4, 9)}, ""},
		{[]storage.GatewayMember{of(0, 3)}, "4-9"},
		{[]storage.GatewayMember{of(1, 3), of(5, 5), of(7, 8)}, "0,4,6,9"},
		{[]storage.GatewayMember{of(2, 6), of(0, 4)}, "7-9"},
		{nil, "0-9"},
	} {
		if got := orphaned(10, tt.members); got != tt.want {
			t.Errorf("orphaned(10, %+v) = %q; want %q", tt.members, got, tt.want)
		}
	}
}

// TestGatewayShardCountAgreed: the run processes of one database agree on
// the shard count. While a process runs 4 shards, one told 8 refuses to
// start, saying so in one line, and one told auto (Discord recommends 8)
// adopts the 4 and shares them: every IDENTIFY is of 4 shards.
func TestGatewayShardCountAgreed(t *testing.T) {
	u := pgtest.NewDatabase(t)
	const ttl = 3 * time.Second
	fake := discordtest.NewServer(t, discordtest.Options{Shards: 8, MaxConcurrency: 4})
	logs := logsOnFailure(t, 3)
	names := []string{"process-a", "process-b", "process-c"}
	for n := 0; len(assigned(storage.AllShards(4), []storage.GatewayMember{
		{Owner: names[0], Shards: storage.AllShards(4)}, {Owner: names[2], Shards: storage.AllShards(4)},
	}, names[2])) != 2; n++ {
		names[2] = "process-c" + strconv.Itoa(n)
	}
	start := func(i int, rng storage.ShardRange) (*Gateway, chan error) {
		return leasedGateway(t, u, fake, rng, names[i], ttl, 100*time.Millisecond, &logs[i], nil)
	}
	a, _ := start(0, storage.AllShards(4))
	deadline := time.Now().Add(30 * time.Second)
	for st := a.ShardStatus(); len(st) != 4 || !allConnected(st); st = a.ShardStatus() {
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the first process runs %+v; want 4 shards", st)
		}
		time.Sleep(20 * time.Millisecond)
	}

	_, doneB := start(1, storage.AllShards(8))
	select {
	case err := <-doneB:
		doneB <- err // for runGateway's cleanup
		if err == nil || !strings.Contains(err.Error(), "use 4 shards") || !strings.Contains(err.Error(), "told 8") || strings.Contains(err.Error(), "\n") {
			t.Errorf("a process told 8 shards among processes of 4 stopped with %q; want one line naming both counts", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("a process told 8 shards among processes of 4 still runs after 30 s: %+v", fake.Identifies())
	}

	c, _ := start(2, storage.ShardRange{})
	deadline = time.Now().Add(30 * time.Second)
	for {
		sa, sc := a.ShardStatus(), c.ShardStatus()
		if len(sa) == 2 && len(sc) == 2 && allConnected(sa) && allConnected(sc) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the processes run %+v and %+v; want the 4 shards shared, 2 each", sa, sc)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, id := range fake.Identifies() {
		if id.Count != 4 {
			t.Errorf("IDENTIFY of shard %d of %d; want every one of 4", id.Shard, id.Count)
		}
	}
}
