package bot

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot/discordtest"
	"github.com/hpkeeper/hpkeeper/bot/operator"
	"github.com/hpkeeper/hpkeeper/bot/operator/operatortest"
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// newMeteredServer is newSecServer wired as `hpkeeper serve` wires it: the
// service counted by Metrics, the endpoint behind Admin.WithInteractions on
// one loopback listener, the writer's commits observed.
func newMeteredServer(t *testing.T, token string) (*secServer, *operator.Metrics, *operator.Admin) {
	t.Helper()
	s := &secServer{t: t, path: filepath.Join(t.TempDir(), "hpkeeper.db"), kp: newKeyPair(t), logs: &syncBuffer{}}
	s.now.Store(time.Now().Unix())
	m := operator.NewMetrics()
	db, err := storage.Open(s.path, storage.Options{Timeout: time.Second, OnCommit: m.ObserveCommit})
	if err != nil {
		t.Fatal(err)
	}
	s.db = db
	m.ObserveDB(db)
	log := zerolog.New(s.logs)
	ep, err := NewEndpoint(Instrument(commands.New(db, dice.NewRandom(1), systems, features()...), m), s.kp.pub, log, WithClock(func() time.Time { return time.Unix(s.now.Load(), 0) }), WithDeferAfter(0),
		WithFilesClient(offline))
	if err != nil {
		t.Fatal(err)
	}
	admin, err := operator.NewAdmin(db, m, token, log)
	if err != nil {
		t.Fatal(err)
	}
	s.srv = httptest.NewServer(admin.WithInteractions(m.InstrumentEndpoint(ep)))
	s.client = &http.Client{Timeout: 30 * time.Second}
	t.Cleanup(s.close)
	return s, m, admin
}

// TestMetricsCountInteractions drives real interactions through the HTTP
// endpoint and reads /metrics on the same loopback listener: each is counted
// by kind, command and outcome, replies are timed, and the writer's and the
// database's series move with the writes.
func TestMetricsCountInteractions(t *testing.T) {
	s, _, _ := newMeteredServer(t, "")
	url := s.srv.URL + operator.PathMetrics
	before := operatortest.Scrape(t, s.client, url)
	for _, name := range []string{operator.MetricQueueDepth, operator.MetricDatabaseSize, operator.MetricSchemaVersion, operator.MetricCacheBytes, operator.MetricCacheLookups, operator.MetricWorkFallbacks, "go_goroutines", "process_resident_memory_bytes"} {
		if before[name] == nil {
			t.Errorf("no %s in /metrics", name)
		}
	}
	// The gateway's series are per shard, and serve has no shards.
	for _, name := range []string{operator.MetricHeartbeat, operator.MetricGatewayUp, operator.MetricReconnects, operator.MetricShardCount} {
		if before[name] != nil {
			t.Errorf("%s in serve's /metrics: %v; want the gateway's series in run only", name, before[name])
		}
	}
	if v := operatortest.Sample(before, operator.MetricSchemaVersion); v != float64(storage.SchemaVersion) {
		t.Errorf("%s = %v; want %d", operator.MetricSchemaVersion, v, storage.SchemaVersion)
	}
	if v := operatortest.Sample(before, operator.MetricGroupSize); v != 0 {
		t.Errorf("%s count = %v before any write; want 0", operator.MetricGroupSize, v)
	}

	s.ok(s.command(gmUser, "table", "setup", "system", "hit-protection"))
	s.ok(s.command(playerUser, "char", "create", "name", "Lister", "stats", "hit-die=d6 hp=4"))
	s.refused(s.command(playerUser, "char", "show", "name", "Nobody"), "No character named")
	s.ok(s.command(playerUser, "roll", "", "expr", "1d6"))
	s.refused(s.press(playerUser, "forged:1:2"), "no longer handled")
	wrong := newKeyPair(t)
	if status, _ := do(t, s.client, wrong.signedRequest(t, s.srv.URL, s.command(playerUser, "roll", "", "expr", "1d6"), time.Now())); status != http.StatusUnauthorized {
		t.Fatalf("wrong key: status %d; want 401", status)
	}
	if status, _ := s.post([]byte("not json")); status != http.StatusBadRequest {
		t.Fatalf("not json: status %d; want 400", status)
	}

	after := operatortest.Scrape(t, s.client, url)
	counts := []struct {
		kind, command, outcome string
		want                   float64
	}{
		{operator.KindCommand, "table", operator.OutcomeOK, 1},
		{operator.KindCommand, "char", operator.OutcomeOK, 1},
		{operator.KindCommand, "char", operator.OutcomeUserError, 1},
		{operator.KindCommand, "roll", operator.OutcomeOK, 1},
		{operator.KindComponent, operator.ValueUnknown, operator.OutcomeUserError, 1},
		{operator.ValueUnknown, operator.ValueUnknown, operator.OutcomeRefusedSignature, 1},
		{operator.ValueUnknown, operator.ValueUnknown, operator.OutcomeBadRequest, 1},
	}
	for _, c := range counts {
		if got := operatortest.Sample(after, operator.MetricInteractions, operator.LabelKind, c.kind, operator.LabelCommand, c.command, operator.LabelOutcome, c.outcome); got != c.want {
			t.Errorf("%s{kind=%q,command=%q,outcome=%q} = %v; want %v", operator.MetricInteractions, c.kind, c.command, c.outcome, got, c.want)
		}
	}
	if n := len(after[operator.MetricInteractions].GetMetric()); n != len(counts) {
		t.Errorf("%s has %d series; want exactly the %d above", operator.MetricInteractions, n, len(counts))
	}
	// Replies are timed by kind and command; the refused requests never
	// reach the service.
	for _, c := range []struct {
		kind, command string
		want          float64
	}{{operator.KindCommand, "table", 1}, {operator.KindCommand, "char", 2}, {operator.KindCommand, "roll", 1}, {operator.KindComponent, operator.ValueUnknown, 1}} {
		if got := operatortest.Sample(after, operator.MetricReplyDuration, operator.LabelKind, c.kind, operator.LabelCommand, c.command); got != c.want {
			t.Errorf("%s{kind=%q,command=%q} count = %v; want %v", operator.MetricReplyDuration, c.kind, c.command, got, c.want)
		}
	}
	if n := len(after[operator.MetricReplyDuration].GetMetric()); n != 4 {
		t.Errorf("%s has %d series; want the 4 above", operator.MetricReplyDuration, n)
	}
	// Two state-changing commands committed (the roll is recorded too).
	groups := operatortest.Sample(after, operator.MetricGroupSize)
	if groups < 2 || operatortest.Sample(after, operator.MetricCommitDuration) != groups || operatortest.Sample(after, operator.MetricFunctionDuration) != groups {
		t.Errorf("writer histograms: %v groups, %v commit times, %v function times; want at least 2, all equal",
			groups, operatortest.Sample(after, operator.MetricCommitDuration), operatortest.Sample(after, operator.MetricFunctionDuration))
	}
	if h0, h1 := operatortest.Sample(before, operator.MetricCacheLookups, "result", "hit"), operatortest.Sample(after, operator.MetricCacheLookups, "result", "hit"); h1 <= h0 {
		t.Errorf("%s{result=hit} went from %v to %v over commands at one table; want it to grow", operator.MetricCacheLookups, h0, h1)
	}
	if b := operatortest.Sample(after, operator.MetricCacheBytes); b <= 0 {
		t.Errorf("%s = %v after a table was used; want more than 0", operator.MetricCacheBytes, b)
	}
	if sum := after[operator.MetricGroupSize].GetMetric()[0].GetHistogram().GetSampleSum(); sum < 2 {
		t.Errorf("%s sum = %v updates; want at least 2", operator.MetricGroupSize, sum)
	}
	if v := operatortest.Sample(after, operator.MetricCommitFailures); v != 0 {
		t.Errorf("%s = %v; want 0", operator.MetricCommitFailures, v)
	}
	if v := operatortest.Sample(after, operator.MetricDatabaseSize); v <= 0 || v < operatortest.Sample(before, operator.MetricDatabaseSize) {
		t.Errorf("%s = %v (before: %v); want a positive size that did not shrink", operator.MetricDatabaseSize, v, operatortest.Sample(before, operator.MetricDatabaseSize))
	}
	if v := operatortest.Sample(after, operator.MetricQueueDepth); v != 0 {
		t.Errorf("%s = %v with nothing in flight; want 0", operator.MetricQueueDepth, v)
	}

	// A fault of ours: the database is gone, the reply is the apology.
	if err := s.db.Close(); err != nil {
		t.Fatal(err)
	}
	w := s.refused(s.command(playerUser, "char", "show", "name", "Lister"), "Sorry")
	_ = w
	final := operatortest.Scrape(t, s.client, url)
	if got := operatortest.Sample(final, operator.MetricInteractions, operator.LabelKind, operator.KindCommand, operator.LabelCommand, "char", operator.LabelOutcome, operator.OutcomeInternal); got != 1 {
		t.Errorf("%s{command=char,outcome=internal} = %v after a storage failure; want 1", operator.MetricInteractions, got)
	}
}

// TestMetricsGateway runs the gateway against the loopback fake Discord,
// which drops the shard's websocket once it has answered: the interaction
// is counted, the session reconnects (counted), and the heartbeat latency
// and the up gauge are read from the live session, all with the shard's
// label.
func TestMetricsGateway(t *testing.T) {
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), nil)
	defer db.Close()
	m := operator.NewMetrics()
	fake := fakeDiscord(t, fixture(t, "dm_roll.json"))
	var logs syncBuffer
	defer func() {
		if t.Failed() {
			t.Logf("log:\n%s", logs.String())
		}
	}()
	g, err := NewGateway("test-token", Instrument(svc, m), zerolog.New(&logs).Level(zerolog.InfoLevel), storage.ShardRange{},
		append(fakeSession(t, fake), m.Session())...)
	if err != nil {
		t.Fatal(err)
	}
	m.ObserveGateway(g)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- g.Run(ctx) }()
	fake.Collect(1, done, 5*time.Second)
	if err := fake.Drop(0); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	var fams map[string]*dto.MetricFamily
	for {
		fams = operatortest.Gather(t, m.Registry())
		// discordgo's reader and its heartbeat may both see the dropped
		// connection and each reconnect: at least one reconnect.
		if operatortest.Sample(fams, operator.MetricReconnects, operator.LabelShard, "0") >= 1 && operatortest.Sample(fams, operator.MetricGatewayUp, operator.LabelShard, "0") == 1 && operatortest.Sample(fams, operator.MetricHeartbeat, operator.LabelShard, "0") > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: reconnects %v, up %v, heartbeat %v s; want at least 1, 1 and a positive latency",
				operatortest.Sample(fams, operator.MetricReconnects), operatortest.Sample(fams, operator.MetricGatewayUp), operatortest.Sample(fams, operator.MetricHeartbeat))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if lat := operatortest.Sample(fams, operator.MetricHeartbeat, operator.LabelShard, "0"); lat >= 1 {
		t.Errorf("heartbeat latency %v s over loopback; want well under a second", lat)
	}
	if got := operatortest.Sample(fams, operator.MetricInteractions, operator.LabelKind, operator.KindCommand, operator.LabelCommand, "roll", operator.LabelOutcome, operator.OutcomeOK); got != 1 {
		t.Errorf("%s{command=roll,outcome=ok} = %v; want 1", operator.MetricInteractions, got)
	}
	if got := operatortest.Sample(fams, operator.MetricShardCount); got != 1 {
		t.Errorf("%s = %v; want 1", operator.MetricShardCount, got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if v := operatortest.Sample(operatortest.Gather(t, m.Registry()), operator.MetricGatewayUp, operator.LabelShard, "0"); v != 0 {
		t.Errorf("%s = %v after the session closed; want 0", operator.MetricGatewayUp, v)
	}
}

// rateLimitedREST answers a tracker post, refuses the first edit with 429
// (Discord's rate limit, which discordgo waits out and retries) and then
// answers edits with the status in status.
type rateLimitedREST struct {
	edits  atomic.Int32
	status atomic.Int32
}

func (f *rateLimitedREST) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost:
		fmt.Fprint(w, `{"id":"msg-1","channel_id":"chan-1"}`)
	case f.edits.Add(1) == 1:
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"message":"You are being rate limited.","retry_after":0.01,"global":false}`)
	default:
		w.WriteHeader(int(f.status.Load()))
		fmt.Fprint(w, `{"id":"msg-1","channel_id":"chan-1","message":"x","code":0}`)
	}
}

func TestMetricsTrackerEditsAndRateLimits(t *testing.T) {
	fake := &rateLimitedREST{}
	fake.status.Store(http.StatusOK)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	m := operator.NewMetrics()
	session, err := NewSession("test-token", zerolog.Nop(), WithHTTPClient(loopbackClient(t, srv.URL)), m.Session())
	if err != nil {
		t.Fatal(err)
	}
	src := &countingSource{}
	tr := NewTracker(src, session, zerolog.Nop(), ReportEdits(m.TrackerEdited))
	_, first, _ := src.Tracker("chan-1")
	id, err := tr.PostTracker(context.Background(), "chan-1", first)
	if err != nil {
		t.Fatal(err)
	}
	src.id.Store(id)
	src.version.Store(1)
	tr.Changed("chan-1")
	tr.Wait()
	fams := operatortest.Gather(t, m.Registry())
	if v := operatortest.Sample(fams, operator.MetricRateLimited); v != 1 {
		t.Errorf("%s = %v; want 1", operator.MetricRateLimited, v)
	}
	if ok, bad := operatortest.Sample(fams, operator.MetricTrackerEdits, operator.LabelOutcome, operator.OutcomeOK), operatortest.Sample(fams, operator.MetricTrackerEdits, operator.LabelOutcome, operator.OutcomeError); ok != 1 || bad != 0 {
		t.Errorf("tracker edits ok %v, error %v; want 1 and 0 (the 429 was retried)", ok, bad)
	}
	fake.status.Store(http.StatusNotFound) // the message was deleted
	src.version.Store(2)
	tr.Changed("chan-1")
	tr.Wait()
	if bad := operatortest.Sample(operatortest.Gather(t, m.Registry()), operator.MetricTrackerEdits, operator.LabelOutcome, operator.OutcomeError); bad != 1 {
		t.Errorf("tracker edits with error = %v after a 404; want 1", bad)
	}
}

// BenchmarkMetricsPerRequest is what the metrics add to one interaction on
// serve, without the interaction: Instrument around a handler that answers
// at once, InstrumentEndpoint around an endpoint that answers at once.
func BenchmarkMetricsPerRequest(b *testing.B) {
	m := operator.NewMetrics()
	svc := commands.New(nil, dice.NewRandom(1), systems, features()...) // RouteName needs no database
	h := Instrument(handlerFunc(func(ctx context.Context, r *commands.Request) *commands.Response {
		return &commands.Response{Content: "ok"}
	}), m)
	mh := h.(*meteredHandler)
	mh.namer = svc
	r := &commands.Request{Kind: commands.KindCommand, Command: "roll"}
	ep := m.InstrumentEndpoint(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }))
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		h.Handle(context.Background(), r)
		ep.ServeHTTP(w, req)
	}
}

// TestMetricsCountUndelivered: an interaction whose answer or follow-up
// never reached Discord is counted as undelivered, not ok: the /odds chart
// that serve posts as a follow-up through the webhook, and an answer that
// came after the deferral; with a Discord that takes them, both are ok.
func TestMetricsCountUndelivered(t *testing.T) {
	slow := handlerFunc(func(ctx context.Context, r *commands.Request) *commands.Response {
		time.Sleep(100 * time.Millisecond) // past the deferral below
		return &commands.Response{Content: "late"}
	})
	for _, tt := range []struct {
		name    string
		fake    bool
		outcome string
	}{
		{"Discord unreachable", false, operator.OutcomeUndelivered},
		{"Discord takes them", true, operator.OutcomeOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client := offline
			if tt.fake {
				client = loopbackClient(t, discordtest.NewServer(t, discordtest.Options{}).URL)
			}
			db, err := storage.Open(filepath.Join(t.TempDir(), "hpkeeper.db"), storage.Options{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			m := operator.NewMetrics()
			kp := newKeyPair(t)
			svc := commands.New(db, dice.NewRandom(1), systems, features()...)
			odds, err := NewEndpoint(Instrument(svc, m), kp.pub, zerolog.Nop(), WithFilesClient(client), WithDeferAfter(0))
			if err != nil {
				t.Fatal(err)
			}
			late, err := NewEndpoint(Instrument(slow, m), kp.pub, zerolog.Nop(), WithFilesClient(client), WithDeferAfter(10*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			s := &secServer{t: t}
			for _, ep := range []*Endpoint{odds, late} {
				rec := httptest.NewRecorder()
				ep.ServeHTTP(rec, signed(kp, s.command(playerUser, "odds", "", "expr", "4dF"), time.Now()))
				if rec.Code != http.StatusOK {
					t.Fatalf("POST /odds: %d %s", rec.Code, rec.Body)
				}
				ep.Wait() // the follow-up, or the deferred answer, has been sent or has failed
			}
			fams := operatortest.Gather(t, m.Registry())
			if got := operatortest.Sample(fams, operator.MetricInteractions, operator.LabelCommand, "odds", operator.LabelOutcome, tt.outcome); got != 1 {
				t.Errorf("%s{command=odds,outcome=%s} = %v; want 1 (the chart's follow-up)", operator.MetricInteractions, tt.outcome, got)
			}
			if got := operatortest.Sample(fams, operator.MetricInteractions, operator.LabelCommand, operator.ValueUnknown, operator.LabelOutcome, tt.outcome); got != 1 {
				t.Errorf("%s{command=unknown,outcome=%s} = %v; want 1 (the deferred answer)", operator.MetricInteractions, tt.outcome, got)
			}
			if n := len(fams[operator.MetricInteractions].GetMetric()); n != 2 {
				t.Errorf("%s has %d series; want the 2 above, each interaction counted once", operator.MetricInteractions, n)
			}
		})
	}
}
