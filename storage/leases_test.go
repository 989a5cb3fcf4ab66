package storage

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestShardLeases: a free shard is taken; another process cannot take it
// while it is held, and can once it expired; the first holder's renewal
// then fails (its token is no longer the lease's); a released lease is
// free at once; leaving releases every lease.
func TestShardLeases(t *testing.T) {
	dbs := openReplicas(t, 2)
	a, b := dbs[0], dbs[1]
	// Long enough that no machine is slow enough to see it run out
	// between two statements; a short one where it must.
	const ttl, short = time.Minute, 200 * time.Millisecond
	la, ok, err := a.AcquireShard(4, 1, "a", ttl)
	if err != nil || !ok || la.Token != 1 {
		t.Fatalf("AcquireShard(free) = %+v, %v, %v; want held with token 1", la, ok, err)
	}
	if lb, ok, err := b.AcquireShard(4, 1, "b", ttl); err != nil || ok || lb.Owner != "a" {
		t.Fatalf("AcquireShard(held by a) = %+v, %v, %v; want refused, held by a", lb, ok, err)
	}
	if la, ok, err = a.RenewShard(la, short); err != nil || !ok {
		t.Fatalf("RenewShard(held) = %v, %v; want true", ok, err)
	}
	time.Sleep(3 * short)
	lb, ok, err := b.AcquireShard(4, 1, "b", ttl)
	if err != nil || !ok || lb.Token != 2 {
		t.Fatalf("AcquireShard(expired) = %+v, %v, %v; want held by b with token 2", lb, ok, err)
	}
	if _, ok, err := a.RenewShard(la, ttl); err != nil || ok {
		t.Errorf("RenewShard by the old holder = %v, %v; want false (fenced)", ok, err)
	}
	if err := b.ReleaseShard(lb); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.AcquireShard(4, 1, "a", ttl); err != nil || !ok {
		t.Errorf("AcquireShard(released) = %v, %v; want true", ok, err)
	}
	ma := GatewayMember{Owner: "a", Shards: ShardRange{Count: 4, First: 0, Last: 1}}
	mb := GatewayMember{Owner: "b", Shards: AllShards(4)}
	members, err := b.GatewayMembers(mb, ttl)
	if err != nil || len(members) != 1 || members[0] != mb {
		t.Errorf("GatewayMembers = %v, %v; want [b]", members, err)
	}
	if members, _ = a.GatewayMembers(ma, ttl); len(members) != 2 || members[0] != ma || members[1] != mb {
		t.Errorf("GatewayMembers = %+v; want [%+v %+v] (each with its range)", members, ma, mb)
	}
	if err := a.LeaveGateway("a"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := b.AcquireShard(4, 1, "b", ttl); !ok {
		t.Error("a shard of a process that left is not free")
	}
	if members, _ = b.GatewayMembers(mb, ttl); len(members) != 1 {
		t.Errorf("GatewayMembers after a left = %v; want [b]", members)
	}
}

// TestIdentifyTurn: one bucket gives a turn every interval, whichever
// process asks; another bucket is not held up by it.
func TestIdentifyTurn(t *testing.T) {
	dbs := openReplicas(t, 2)
	const interval = time.Minute // no machine is slow enough to see a turn come again
	if wait, err := dbs[0].IdentifyTurn(0, interval); err != nil || wait != 0 {
		t.Fatalf("first IdentifyTurn = %v, %v; want 0", wait, err)
	}
	wait, err := dbs[1].IdentifyTurn(0, interval)
	if err != nil || wait <= 0 || wait > interval {
		t.Fatalf("IdentifyTurn of the same bucket by another process = %v, %v; want a wait in (0, %v]", wait, err, interval)
	}
	if wait, err := dbs[1].IdentifyTurn(1, interval); err != nil || wait != 0 {
		t.Errorf("IdentifyTurn of another bucket = %v, %v; want 0", wait, err)
	}
}

// TestIdentifySentMovesTheNextTurn: the next turn counts from when the
// IDENTIFY left, not from when its turn was given, whichever process
// asks next.
func TestIdentifySentMovesTheNextTurn(t *testing.T) {
	dbs := openReplicas(t, 2)
	const interval = time.Minute
	if wait, err := dbs[0].IdentifyTurn(0, interval); err != nil || wait != 0 {
		t.Fatalf("first IdentifyTurn = %v, %v; want 0", wait, err)
	}
	// A second on, which the turn's reservation does not see.
	time.Sleep(time.Second)
	sent := time.Now()
	if err := dbs[0].IdentifySent(0, interval); err != nil {
		t.Fatal(err)
	}
	wait, err := dbs[1].IdentifyTurn(0, interval)
	asked := time.Since(sent)
	// The database's clock is this machine's: the next turn is at least
	// interval after sent, so the wait is at least interval less the time
	// the two calls took (the turn alone would leave interval − 1 s).
	if err != nil || wait < interval-asked {
		t.Errorf("after IdentifySent the other process waits %v (%v); want at least %v: the turn counts from the IDENTIFY", wait, err, interval-asked)
	}
	if err := dbs[0].IdentifySent(1, interval); err != nil {
		t.Errorf("IdentifySent of a bucket never asked for: %v", err)
	}
}

// TestLeasesNeedASharedDatabase: a bbolt file's process runs its shards
// alone.
func TestLeasesNeedASharedDatabase(t *testing.T) {
	db := mustOpenPath(t, filepath.Join(t.TempDir(), "hpkeeper.db"))
	if _, _, err := db.AcquireShard(1, 0, "a", time.Second); !errors.Is(err, ErrNotShared) {
		t.Errorf("AcquireShard on a file: %v; want ErrNotShared", err)
	}
}

// TestGatewayShardCount: the database records one shard count for every
// run process: the first member's; another count is refused while a
// member of the recorded one is alive, and taken once none is.
func TestGatewayShardCount(t *testing.T) {
	db := openReplicas(t, 1)[0]
	const ttl = time.Minute
	a := GatewayMember{Owner: "a", Shards: AllShards(4)}
	b := GatewayMember{Owner: "b", Shards: AllShards(8)}
	if _, err := db.GatewayMembers(a, ttl); err != nil {
		t.Fatal(err)
	}
	_, err := db.GatewayMembers(b, ttl)
	var ce *ShardCountError
	if !errors.As(err, &ce) || ce.Count != 4 || ce.Want != 8 || len(ce.Members) != 1 || ce.Members[0] != "a" {
		t.Fatalf("GatewayMembers(8 shards) while a runs 4: %v; want a *ShardCountError of 4 naming a", err)
	}
	if members, err := db.GatewayMembers(a, ttl); err != nil || len(members) != 1 {
		t.Errorf("GatewayMembers(a) after b was refused = %+v, %v; want [a] (b not recorded)", members, err)
	}
	if err := db.LeaveGateway("a"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.GatewayMembers(b, ttl); err != nil {
		t.Fatalf("GatewayMembers(8 shards) with no member alive: %v; want it to set the count", err)
	}
	if _, err := db.GatewayMembers(a, ttl); !errors.As(err, &ce) || ce.Count != 8 {
		t.Errorf("GatewayMembers(4 shards) while b runs 8: %v; want a *ShardCountError of 8", err)
	}
}
