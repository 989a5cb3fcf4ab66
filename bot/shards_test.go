package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot/discord"
	"github.com/hpkeeper/hpkeeper/bot/discordtest"
	"github.com/hpkeeper/hpkeeper/bot/operator"
	"github.com/hpkeeper/hpkeeper/bot/operator/operatortest"
	"github.com/hpkeeper/hpkeeper/storage"
)

// guildOn returns a made-up snowflake guild id on shard, of count shards; n
// makes it unique.
func guildOn(t *testing.T, shard, count, n int) string {
	t.Helper()
	g := discordtest.GuildOn(shard, count, n)
	if got, err := discord.ShardOf(g, count); err != nil || got != shard {
		t.Fatalf("guild %s is on shard %d of %d (%v); want %d", g, got, count, err, shard)
	}
	return g
}

// inGuild returns the fixture name as interaction id from guild (kept as
// it is when guild is "-") in channel.
func inGuild(t *testing.T, name, id, guild, channel string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(fixture(t, name), &m); err != nil {
		t.Fatal(err)
	}
	m["id"], m["channel_id"] = id, channel
	if c, ok := m["channel"].(map[string]any); ok {
		c["id"] = channel
		if guild != "-" {
			c["guild_id"] = guild
		}
	}
	if guild != "-" {
		m["guild_id"] = guild
		if g, ok := m["guild"].(map[string]any); ok {
			g["id"] = guild
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runGateway runs g until the test ends and returns the channel Run's
// error arrives on; cancel stops it.
func runGateway(t *testing.T, g *Gateway) (done chan error, cancel func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan error, 1)
	go func() { done <- g.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Gateway.Run did not return within 10 s of cancel")
		}
	})
	return done, cancel
}

// waitShards polls g until ok holds for its statuses, failing after 10 s.
func waitShards(t *testing.T, g *Gateway, what string, ok func([]operator.ShardStatus) bool) []operator.ShardStatus {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := g.ShardStatus()
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s the shards are %+v; want %s", st, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func allConnected(st []operator.ShardStatus) bool {
	for _, s := range st {
		if s.State != operator.ShardConnected || s.HeartbeatLatency <= 0 {
			return false
		}
	}
	return len(st) > 0
}

// TestGatewayFourShards runs Discord's recommended 4 shards in one process
// over one database: each identifies with its shard, two at a time
// (max_concurrency 2) and a bucket's second shard only an interval after
// its first; each shard's READY lists its guilds; an interaction on every
// shard and a DM (shard 0) are answered and written to the one file; the
// metrics and /healthz show each shard connected.
func TestGatewayFourShards(t *testing.T) {
	const interval = 300 * time.Millisecond
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), nil)
	defer db.Close()
	var guilds []string
	var interactions [][]byte
	for s := 0; s < 4; s++ {
		g := guildOn(t, s, 4, s)
		guilds = append(guilds, g)
		interactions = append(interactions, inGuild(t, "table_setup.json", "131100000000005000"+strconv.Itoa(s), g, "131100000000000500"+strconv.Itoa(s)))
	}
	guilds = append(guilds, guildOn(t, 2, 4, 10), guildOn(t, 2, 4, 11)) // shard 2: three guilds
	interactions = append(interactions, fixture(t, "dm_roll.json"))
	fake := discordtest.NewServer(t, discordtest.Options{Shards: 4, MaxConcurrency: 2, IdentifyInterval: interval, Guilds: guilds, Interactions: interactions})
	m := operator.NewMetrics()
	var logs syncBuffer
	defer func() {
		if t.Failed() {
			t.Logf("log:\n%s", logs.String())
		}
	}()
	g, err := NewGateway("test-token", Instrument(svc, m), zerolog.New(&logs), storage.ShardRange{}, append(fakeSession(t, fake), m.Session())...)
	if err != nil {
		t.Fatal(err)
	}
	g.identifyInterval = interval
	m.ObserveGateway(g)
	admin, err := operator.NewAdmin(db, m, "", zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	admin.ObserveShards(g)
	done, cancel := runGateway(t, g)

	got := fake.Collect(5, done, 10*time.Second)
	for s := 0; s < 4; s++ {
		c := got["131100000000005000"+strconv.Itoa(s)]
		if w := decodeWire(t, c.Body); w.Type != 4 || w.Data.Flags != 0 || !strings.Contains(w.text(), "now plays **hit-protection**") {
			t.Errorf("/table setup on shard %d: %s; want the public reply", s, c.Body)
		}
	}
	if w := decodeWire(t, got["1311000000000010008"].Body); w.Type != 4 || !strings.Contains(w.text(), "rolled") {
		t.Errorf("/roll in a DM (shard 0): %s; want the roll", got["1311000000000010008"].Body)
	}
	var tables []*storage.Table
	if err := db.View(func(tx *storage.Tx) error { tables, err = tx.Tables(); return err }); err != nil {
		t.Fatal(err)
	}
	if len(tables) != 4 {
		t.Fatalf("one database holds %d tables; want the 4 set up on the 4 shards", len(tables))
	}
	for s, tbl := range tables {
		if tbl.GuildID != guilds[s] {
			t.Errorf("table %s has guild %q; want %q", tbl.ChannelID, tbl.GuildID, guilds[s])
		}
	}

	ids := fake.Identifies()
	at := map[int]time.Time{}
	for _, id := range ids {
		if id.Count != 4 || id.Token != "Bot test-token" {
			t.Errorf("IDENTIFY %+v; want shard [_, 4] with the bot token", id)
		}
		at[id.Shard] = id.At
	}
	if len(ids) != 4 || len(at) != 4 {
		t.Fatalf("IDENTIFYs %+v; want one for each of shards 0-3", ids)
	}
	for _, pair := range [][2]int{{0, 2}, {1, 3}} {
		if gap := at[pair[1]].Sub(at[pair[0]]); gap < interval {
			t.Errorf("shard %d identified %v after shard %d of its bucket; want at least %v", pair[1], gap, pair[0], interval)
		}
	}
	// The two buckets start side by side: one after the other, the four
	// would take at least three intervals.
	first, last := at[0], at[0]
	for _, a := range at {
		if a.Before(first) {
			first = a
		}
		if a.After(last) {
			last = a
		}
	}
	if span := last.Sub(first); span >= 5*interval/2 {
		t.Errorf("the 4 shards identified over %v; want the two buckets side by side, under %v", span, 5*interval/2)
	}

	st := waitShards(t, g, "4 shards connected with a heartbeat", allConnected)
	for i, s := range st {
		wantGuilds := 1
		if i == 2 {
			wantGuilds = 3
		}
		if s.ID != i || s.Guilds != wantGuilds || s.Reconnects != 0 || s.Refused != 0 {
			t.Errorf("shard %d status %+v; want id %d, %d guilds, no reconnect or refusal", i, s, i, wantGuilds)
		}
	}
	fams := operatortest.Gather(t, m.Registry())
	for s := 0; s < 4; s++ {
		id := strconv.Itoa(s)
		if operatortest.Sample(fams, operator.MetricGatewayUp, operator.LabelShard, id) != 1 || operatortest.Sample(fams, operator.MetricHeartbeat, operator.LabelShard, id) <= 0 || operatortest.Sample(fams, operator.MetricReconnects, operator.LabelShard, id) != 0 {
			t.Errorf("shard %s: up %v, heartbeat %v, reconnects %v; want 1, positive, 0", id,
				operatortest.Sample(fams, operator.MetricGatewayUp, operator.LabelShard, id), operatortest.Sample(fams, operator.MetricHeartbeat, operator.LabelShard, id), operatortest.Sample(fams, operator.MetricReconnects, operator.LabelShard, id))
		}
	}
	if n := len(fams[operator.MetricGatewayUp].GetMetric()); n != 4 {
		t.Errorf("%s has %d series; want one per shard", operator.MetricGatewayUp, n)
	}
	if v := operatortest.Sample(fams, operator.MetricGatewayGuilds, operator.LabelShard, "2"); v != 3 {
		t.Errorf("%s{shard=2} = %v; want 3", operator.MetricGatewayGuilds, v)
	}

	srv := httptest.NewServer(admin.Handler())
	defer srv.Close()
	status, body := shardHealthOf(t, srv.URL)
	if status != http.StatusOK || body.Status != "ok" || len(body.Shards) != 4 {
		t.Fatalf("GET /healthz = %d %+v; want 200, ok and 4 shards", status, body)
	}
	for i, s := range body.Shards {
		if s.ID != i || s.State != operator.ShardConnected || s.HeartbeatMS <= 0 || s.HeartbeatMS > 1000 {
			t.Errorf("/healthz shard %d: %+v; want connected with a heartbeat in milliseconds", i, s)
		}
	}

	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v after cancel; want nil", err)
	}
	done <- nil // for the cleanup
	status, body = shardHealthOf(t, srv.URL)
	if status != http.StatusOK || body.Status != "degraded" || len(body.Shards) != 4 || body.Shards[3].State != operator.ShardDown {
		t.Errorf("GET /healthz after the gateway stopped = %d %+v; want 200, degraded, every shard down", status, body)
	}
}

// gatewayHealth is GET /healthz's answer in gateway mode, as far as these
// tests read it.
type gatewayHealth struct {
	Status string `json:"status"`
	Shards []struct {
		ID          int                 `json:"id"`
		State       operator.ShardState `json:"state"`
		HeartbeatMS float64             `json:"heartbeat_ms"`
	} `json:"shards"`
}

// shardHealthOf GETs /healthz in gateway mode.
func shardHealthOf(t *testing.T, base string) (int, gatewayHealth) {
	t.Helper()
	var h gatewayHealth
	return operatortest.ReadHealth(t, http.DefaultClient, base, &h), h
}

// TestGatewayShardResumesAlone drops one shard's websocket: while it is
// gone the other shards keep answering; it reconnects and resumes (RESUME,
// no new IDENTIFY) and answers again; only its reconnect is counted.
func TestGatewayShardResumesAlone(t *testing.T) {
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), nil)
	defer db.Close()
	fake := discordtest.NewServer(t, discordtest.Options{Shards: 4, MaxConcurrency: 4})
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
	done, _ := runGateway(t, g)
	waitShards(t, g, "4 shards connected", allConnected)
	setup := func(shard, n int) []byte {
		return inGuild(t, "table_setup.json", "13110000000000060"+strconv.Itoa(n), guildOn(t, shard, 4, n), "13110000000000060"+strconv.Itoa(n))
	}

	if err := fake.Drop(2); err != nil {
		t.Fatal(err)
	}
	if fake.Connected(2) {
		t.Fatal("shard 2 still connected after the drop")
	}
	for n, shard := range []int{0, 1, 3} {
		if err := fake.Dispatch(shard, setup(shard, 10+n)); err != nil {
			t.Fatal(err)
		}
	}
	for id, c := range fake.Collect(3, done, 5*time.Second) {
		if w := decodeWire(t, c.Body); w.Type != 4 || !strings.Contains(w.text(), "now plays") {
			t.Errorf("interaction %s while shard 2 was away: %s; want it answered", id, c.Body)
		}
	}

	st := waitShards(t, g, "shard 2 reconnected", func(st []operator.ShardStatus) bool {
		return allConnected(st) && st[2].Reconnects >= 1 && fake.Connected(2)
	})
	for i, s := range st {
		if (i == 2) != (s.Reconnects > 0) {
			t.Errorf("shard %d: %d reconnects; want them on shard 2 only", i, s.Reconnects)
		}
	}
	if r := fake.Resumes(); len(r) == 0 || r[0].Shard != 2 || r[0].SessionID != "fake-session-2" {
		t.Errorf("RESUMEs %+v; want shard 2 resuming its session", r)
	}
	if ids := fake.Identifies(); len(ids) != 4 {
		t.Errorf("%d IDENTIFYs; want the 4 of the start, none for the resume", len(ids))
	}
	if err := fake.Dispatch(2, setup(2, 20)); err != nil {
		t.Fatal(err)
	}
	if c := fake.Collect(1, done, 5*time.Second)["1311000000000006020"]; !strings.Contains(decodeWire(t, c.Body).text(), "now plays") {
		t.Errorf("interaction on shard 2 after its resume: %s; want it answered", c.Body)
	}
}

// TestGatewayRefusesOtherShards runs shards 0-1 of 4, as one of two
// processes: only those shards identify; an interaction of its own guild is
// answered; one of a guild on shard 3 that arrives on shard 0 (a
// misconfigured deployment), and one with a malformed guild id, are refused
// with an ephemeral answer, logged, counted, and never reach the database.
func TestGatewayRefusesOtherShards(t *testing.T) {
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), nil)
	defer db.Close()
	own, other := guildOn(t, 1, 4, 1), guildOn(t, 3, 4, 2)
	fake := discordtest.NewServer(t, discordtest.Options{Shards: 4, MaxConcurrency: 2, Interactions: [][]byte{
		inGuild(t, "table_setup.json", "1311000000000007001", own, "1311000000000007001"),
		inGuild(t, "table_setup.json", "1311000000000007002", other, "1311000000000007002"),
		inGuild(t, "autocomplete_target.json", "1311000000000007003", other, "1311000000000007003"),
		inGuild(t, "table_setup.json", "1311000000000007004", "g1", "1311000000000007004"),
	}})
	fake.Misroute(other, 0)
	var logs syncBuffer
	defer func() {
		if t.Failed() {
			t.Logf("log:\n%s", logs.String())
		}
	}()
	g, err := NewGateway("test-token", svc, zerolog.New(&logs), storage.ShardRange{Count: 4, First: 0, Last: 1}, fakeSession(t, fake)...)
	if err != nil {
		t.Fatal(err)
	}
	done, _ := runGateway(t, g)
	got := fake.Collect(4, done, 10*time.Second)
	if w := decodeWire(t, got["1311000000000007001"].Body); w.Type != 4 || w.Data.Flags != 0 || !strings.Contains(w.text(), "now plays") {
		t.Errorf("/table setup of a guild on shard 1: %s; want it answered", got["1311000000000007001"].Body)
	}
	for _, id := range []string{"1311000000000007002", "1311000000000007004"} {
		if w := decodeWire(t, got[id].Body); w.Type != 4 || w.Data.Flags != 64 || w.Data.Content != NotServedHere {
			t.Errorf("interaction %s: %s; want the ephemeral %q", id, got[id].Body, NotServedHere)
		}
		wantNoMentions(t, got[id].Body)
	}
	if w := decodeWire(t, got["1311000000000007003"].Body); w.Type != 8 || len(w.Data.Choices) != 0 {
		t.Errorf("refused autocomplete: %s; want no choices", got["1311000000000007003"].Body)
	}
	err = db.View(func(tx *storage.Tx) error {
		ts, err := tx.Tables()
		if len(ts) != 1 || ts[0].ChannelID != "1311000000000007001" {
			t.Errorf("tables %+v; want only the one of the process's own guild", ts)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := fake.Identifies()
	if len(ids) != 2 || ids[0].Shard+ids[1].Shard != 1 || ids[0].Count != 4 {
		t.Errorf("IDENTIFYs %+v; want shards 0 and 1 of 4 only", ids)
	}
	st := waitShards(t, g, "shard 0 with 3 refusals", func(st []operator.ShardStatus) bool { return len(st) == 2 && st[0].Refused == 3 })
	if st[1].Refused != 0 {
		t.Errorf("shard 1 refused %d; want 0", st[1].Refused)
	}
	l := logs.String()
	for _, want := range []string{`"guild_shard":3`, `"session_shard":0`, `"shards":"shards 0-1 of 4"`, "its guild id is not a snowflake", `"interaction_id":"1311000000000007002"`} {
		if !strings.Contains(l, want) {
			t.Errorf("the log does not say %s:\n%s", want, l)
		}
	}
	if n := strings.Count(l, `"level":"error"`); n != 3 {
		t.Errorf("%d error lines; want one per refused interaction (3)", n)
	}
}

// TestGatewaySessionStartLimit: with 2 session starts left of 3 for 3
// shards, two identify at once and the third waits, logged, for Discord's
// reset before it identifies.
func TestGatewaySessionStartLimit(t *testing.T) {
	const reset = 400 * time.Millisecond
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), nil)
	defer db.Close()
	fake := discordtest.NewServer(t, discordtest.Options{Shards: 3, Total: 3, Remaining: 2, ResetAfter: reset, MaxConcurrency: 3})
	var logs syncBuffer
	g, err := NewGateway("test-token", svc, zerolog.New(&logs), storage.ShardRange{}, fakeSession(t, fake)...)
	if err != nil {
		t.Fatal(err)
	}
	runGateway(t, g)
	waitShards(t, g, "3 shards connected", allConnected)
	ids := fake.Identifies()
	if len(ids) != 3 {
		t.Fatalf("IDENTIFYs %+v; want 3", ids)
	}
	if gap := ids[2].At.Sub(ids[0].At); gap < reset {
		t.Errorf("the third IDENTIFY came %v after the first; want at least the reset, %v", gap, reset)
	}
	l := logs.String()
	for _, want := range []string{"fewer session starts left than shards to start", "gateway session start limit exhausted", "gateway session start limit reset"} {
		if !strings.Contains(l, want) {
			t.Errorf("the log does not say %q:\n%s", want, l)
		}
	}
}

// TestGatewayRefusedForGood: when Discord closes a session with a code that
// connecting again cannot help (4011, sharding required), Run stops every
// shard and returns an error that says what to do.
func TestGatewayRefusedForGood(t *testing.T) {
	fake := discordtest.NewServer(t, discordtest.Options{Shards: 2, MaxConcurrency: 2, RefuseIdentify: 4011})
	g, err := NewGateway("test-token", &stubHandler{}, zerolog.Nop(), storage.ShardRange{Count: 2, First: 0, Last: 1}, fakeSession(t, fake)...)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- g.Run(context.Background()) }()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "4011") || !strings.Contains(err.Error(), `discord.shards = "auto"`) {
			t.Errorf("Run = %v; want the 4011 refusal with what to do", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10 s of a 4011")
	}
}

// TestShardStates: the state a shard reports from what its session did.
func TestShardStates(t *testing.T) {
	tests := []struct {
		name                           string
		opened, stopped, failed, ready bool
		disconnects                    int64
		want                           operator.ShardState
	}{
		{"waiting for its turn", false, false, false, false, 0, operator.ShardConnecting},
		{"first connection failed", false, false, true, false, 0, operator.ShardDown},
		{"connected, before its first heartbeat", true, false, false, false, 0, operator.ShardConnecting},
		{"connected", true, false, false, true, 0, operator.ShardConnected},
		{"dropped, reconnecting", true, false, false, false, 1, operator.ShardResuming},
		{"resumed", true, false, false, true, 2, operator.ShardConnected},
		{"stopped", true, true, false, false, 1, operator.ShardDown},
	}
	for _, tt := range tests {
		sh := &shard{id: 3, s: &discordgo.Session{}, guilds: map[string]struct{}{}}
		sh.opened.Store(tt.opened)
		sh.stopped.Store(tt.stopped)
		sh.failed.Store(tt.failed)
		sh.s.DataReady = tt.ready
		sh.disconnects.Store(tt.disconnects)
		if got := sh.status(); got.State != tt.want || got.ID != 3 {
			t.Errorf("%s: status %+v; want %s", tt.name, got, tt.want)
		}
	}
}

// guildCreate is a GUILD_CREATE of a modest guild: 20 text channels, 10
// roles, the bot as its one member (about 6.4 KB of JSON).
func guildCreate(id int) []byte {
	var ch, roles []string
	for c := 0; c < 20; c++ {
		ch = append(ch, fmt.Sprintf(`{"id":"%d%02d","type":0,"name":"channel-%d","position":%d,"parent_id":"1","topic":"a topic for the channel","permission_overwrites":[{"id":"%d","type":0,"allow":"0","deny":"1024"}],"nsfw":false,"rate_limit_per_user":0}`, id, c, c, c, id))
	}
	for r := 0; r < 10; r++ {
		roles = append(roles, fmt.Sprintf(`{"id":"%d%02d","name":"role-%d","color":0,"hoist":false,"position":%d,"permissions":"104324673","managed":false,"mentionable":false}`, id, r, r, r))
	}
	return fmt.Appendf(nil, `{"id":"%d","name":"Guild %d","owner_id":"1","afk_timeout":300,"verification_level":1,"features":["COMMUNITY"],"system_channel_id":"%d00",`+
		`"member_count":120,"large":false,"joined_at":"2025-01-01T00:00:00+00:00","channels":[%s],"roles":[%s],"emojis":[],`+
		`"members":[{"user":{"id":"1311000000000000001","username":"hpkeeper","bot":true},"roles":[],"joined_at":"2025-01-01T00:00:00+00:00"}],"threads":[],"voice_states":[],"presences":[],"stickers":[]}`,
		id, id, id, strings.Join(ch, ","), strings.Join(roles, ","))
}

// BenchmarkShardGuildMemory measures the heap a shard's session keeps for
// each guild of its GUILD_CREATE events (b.N guilds): as NewSession makes
// it (no state cache), and with discordgo's state cache on, its default.
func BenchmarkShardGuildMemory(b *testing.B) {
	for _, state := range []bool{false, true} {
		b.Run(fmt.Sprintf("state=%v", state), func(b *testing.B) {
			fake := discordtest.NewServer(b, discordtest.Options{})
			opts, err := LoopbackDiscord(fake.URL)
			if err != nil {
				b.Fatal(err)
			}
			g, err := NewGateway("test-token", &stubHandler{}, zerolog.Nop(), storage.ShardRange{}, append(opts, func(s *discordgo.Session) { s.StateEnabled = state })...)
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- g.Run(ctx) }()
			defer func() { cancel(); <-done }()
			waitFor := func(ok func([]operator.ShardStatus) bool) {
				for deadline := time.Now().Add(60 * time.Second); !ok(g.ShardStatus()); time.Sleep(5 * time.Millisecond) {
					if time.Now().After(deadline) {
						b.Fatalf("shards %+v after 60 s", g.ShardStatus())
					}
				}
			}
			waitFor(allConnected)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := fake.DispatchEvent(0, "GUILD_CREATE", guildCreate(1_000_000+i)); err != nil {
					b.Fatal(err)
				}
			}
			waitFor(func(st []operator.ShardStatus) bool { return len(st) == 1 && st[0].Guilds == b.N })
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heap-B/guild")
		})
	}
}
