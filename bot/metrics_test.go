package bot

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot/discordtest"
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// newMeteredServer is newSecServer wired as `hpkeeper serve` wires it: the
// service counted by Metrics, the endpoint behind Admin.WithInteractions on
// one loopback listener, the writer's commits observed.
func newMeteredServer(t *testing.T, token string) (*secServer, *Metrics, *Admin) {
	t.Helper()
	s := &secServer{t: t, path: filepath.Join(t.TempDir(), "hpkeeper.db"), kp: newKeyPair(t), logs: &syncBuffer{}}
	s.now.Store(time.Now().Unix())
	m := NewMetrics()
	db, err := storage.Open(s.path, storage.Options{Timeout: time.Second, OnCommit: m.ObserveCommit})
	if err != nil {
		t.Fatal(err)
	}
	s.db = db
	m.ObserveDB(db)
	log := zerolog.New(s.logs)
	ep, err := NewEndpoint(m.Instrument(commands.New(db, dice.NewRandom(1), systems, features()...)), s.kp.pub, log, WithClock(func() time.Time { return time.Unix(s.now.Load(), 0) }), WithDeferAfter(0),
		WithFilesClient(offline))
	if err != nil {
		t.Fatal(err)
	}
	admin, err := NewAdmin(db, m, token, log)
	if err != nil {
		t.Fatal(err)
	}
	s.srv = httptest.NewServer(admin.WithInteractions(m.InstrumentEndpoint(ep)))
	s.client = &http.Client{Timeout: 30 * time.Second}
	t.Cleanup(s.close)
	return s, m, admin
}

// scrape GETs url (a /metrics route) and parses the Prometheus text format.
func scrape(t *testing.T, c *http.Client, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s %s; want 200 in the text format", url, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return fams
}

// gather reads the registry the way a scrape does, without HTTP.
func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	fs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fs {
		out[f.GetName()] = f
	}
	return out
}

// sample returns the value of the sample of family name whose labels
// include the given name/value pairs: a counter's or gauge's value, or a
// histogram's sample count; -1 when there is none.
func sample(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.GetMetric() {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, l := range m.GetLabel() {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

// TestMetricsCountInteractions drives real interactions through the HTTP
// endpoint and reads /metrics on the same loopback listener: each is counted
// by kind, command and outcome, replies are timed, and the writer's and the
// database's series move with the writes.
func TestMetricsCountInteractions(t *testing.T) {
	s, _, _ := newMeteredServer(t, "")
	url := s.srv.URL + PathMetrics
	before := scrape(t, s.client, url)
	for _, name := range []string{metricQueueDepth, metricDatabaseSize, metricSchemaVersion, metricCacheBytes, metricCacheLookups, metricWorkFallbacks, "go_goroutines", "process_resident_memory_bytes"} {
		if before[name] == nil {
			t.Errorf("no %s in /metrics", name)
		}
	}
	// The gateway's series are per shard, and serve has no shards.
	for _, name := range []string{metricHeartbeat, metricGatewayUp, metricReconnects, metricShardCount} {
		if before[name] != nil {
			t.Errorf("%s in serve's /metrics: %v; want the gateway's series in run only", name, before[name])
		}
	}
	if v := sample(before, metricSchemaVersion); v != float64(storage.SchemaVersion) {
		t.Errorf("%s = %v; want %d", metricSchemaVersion, v, storage.SchemaVersion)
	}
	if v := sample(before, metricGroupSize); v != 0 {
		t.Errorf("%s count = %v before any write; want 0", metricGroupSize, v)
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

	after := scrape(t, s.client, url)
	counts := []struct {
		kind, command, outcome string
		want                   float64
	}{
		{kindCommand, "table", outcomeOK, 1},
		{kindCommand, "char", outcomeOK, 1},
		{kindCommand, "char", outcomeUserError, 1},
		{kindCommand, "roll", outcomeOK, 1},
		{kindComponent, valueUnknown, outcomeUserError, 1},
		{valueUnknown, valueUnknown, outcomeRefusedSignature, 1},
		{valueUnknown, valueUnknown, outcomeBadRequest, 1},
	}
	for _, c := range counts {
		if got := sample(after, metricInteractions, labelKind, c.kind, labelCommand, c.command, labelOutcome, c.outcome); got != c.want {
			t.Errorf("%s{kind=%q,command=%q,outcome=%q} = %v; want %v", metricInteractions, c.kind, c.command, c.outcome, got, c.want)
		}
	}
	if n := len(after[metricInteractions].GetMetric()); n != len(counts) {
		t.Errorf("%s has %d series; want exactly the %d above", metricInteractions, n, len(counts))
	}
	// Replies are timed by kind and command; the refused requests never
	// reach the service.
	for _, c := range []struct {
		kind, command string
		want          float64
	}{{kindCommand, "table", 1}, {kindCommand, "char", 2}, {kindCommand, "roll", 1}, {kindComponent, valueUnknown, 1}} {
		if got := sample(after, metricReplyDuration, labelKind, c.kind, labelCommand, c.command); got != c.want {
			t.Errorf("%s{kind=%q,command=%q} count = %v; want %v", metricReplyDuration, c.kind, c.command, got, c.want)
		}
	}
	if n := len(after[metricReplyDuration].GetMetric()); n != 4 {
		t.Errorf("%s has %d series; want the 4 above", metricReplyDuration, n)
	}
	// Two state-changing commands committed (the roll is recorded too).
	groups := sample(after, metricGroupSize)
	if groups < 2 || sample(after, metricCommitDuration) != groups || sample(after, metricFunctionDuration) != groups {
		t.Errorf("writer histograms: %v groups, %v commit times, %v function times; want at least 2, all equal",
			groups, sample(after, metricCommitDuration), sample(after, metricFunctionDuration))
	}
	if h0, h1 := sample(before, metricCacheLookups, "result", "hit"), sample(after, metricCacheLookups, "result", "hit"); h1 <= h0 {
		t.Errorf("%s{result=hit} went from %v to %v over commands at one table; want it to grow", metricCacheLookups, h0, h1)
	}
	if b := sample(after, metricCacheBytes); b <= 0 {
		t.Errorf("%s = %v after a table was used; want more than 0", metricCacheBytes, b)
	}
	if sum := after[metricGroupSize].GetMetric()[0].GetHistogram().GetSampleSum(); sum < 2 {
		t.Errorf("%s sum = %v updates; want at least 2", metricGroupSize, sum)
	}
	if v := sample(after, metricCommitFailures); v != 0 {
		t.Errorf("%s = %v; want 0", metricCommitFailures, v)
	}
	if v := sample(after, metricDatabaseSize); v <= 0 || v < sample(before, metricDatabaseSize) {
		t.Errorf("%s = %v (before: %v); want a positive size that did not shrink", metricDatabaseSize, v, sample(before, metricDatabaseSize))
	}
	if v := sample(after, metricQueueDepth); v != 0 {
		t.Errorf("%s = %v with nothing in flight; want 0", metricQueueDepth, v)
	}

	// A fault of ours: the database is gone, the reply is the apology.
	if err := s.db.Close(); err != nil {
		t.Fatal(err)
	}
	w := s.refused(s.command(playerUser, "char", "show", "name", "Lister"), "Sorry")
	_ = w
	final := scrape(t, s.client, url)
	if got := sample(final, metricInteractions, labelKind, kindCommand, labelCommand, "char", labelOutcome, outcomeInternal); got != 1 {
		t.Errorf("%s{command=char,outcome=internal} = %v after a storage failure; want 1", metricInteractions, got)
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
	m := NewMetrics()
	fake := fakeDiscord(t, fixture(t, "dm_roll.json"))
	var logs syncBuffer
	defer func() {
		if t.Failed() {
			t.Logf("log:\n%s", logs.String())
		}
	}()
	g, err := NewGateway("test-token", m.Instrument(svc), zerolog.New(&logs).Level(zerolog.InfoLevel), storage.ShardRange{},
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
		fams = gather(t, m)
		// discordgo's reader and its heartbeat may both see the dropped
		// connection and each reconnect: at least one reconnect.
		if sample(fams, metricReconnects, labelShard, "0") >= 1 && sample(fams, metricGatewayUp, labelShard, "0") == 1 && sample(fams, metricHeartbeat, labelShard, "0") > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: reconnects %v, up %v, heartbeat %v s; want at least 1, 1 and a positive latency",
				sample(fams, metricReconnects), sample(fams, metricGatewayUp), sample(fams, metricHeartbeat))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if lat := sample(fams, metricHeartbeat, labelShard, "0"); lat >= 1 {
		t.Errorf("heartbeat latency %v s over loopback; want well under a second", lat)
	}
	if got := sample(fams, metricInteractions, labelKind, kindCommand, labelCommand, "roll", labelOutcome, outcomeOK); got != 1 {
		t.Errorf("%s{command=roll,outcome=ok} = %v; want 1", metricInteractions, got)
	}
	if got := sample(fams, metricShardCount); got != 1 {
		t.Errorf("%s = %v; want 1", metricShardCount, got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if v := sample(gather(t, m), metricGatewayUp, labelShard, "0"); v != 0 {
		t.Errorf("%s = %v after the session closed; want 0", metricGatewayUp, v)
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
	m := NewMetrics()
	session, err := NewSession("test-token", zerolog.Nop(), WithHTTPClient(loopbackClient(t, srv.URL)), m.Session())
	if err != nil {
		t.Fatal(err)
	}
	src := &countingSource{}
	tr := NewTracker(src, session, zerolog.Nop(), m.Tracker())
	_, first, _ := src.Tracker("chan-1")
	id, err := tr.PostTracker(context.Background(), "chan-1", first)
	if err != nil {
		t.Fatal(err)
	}
	src.id.Store(id)
	src.version.Store(1)
	tr.Changed("chan-1")
	tr.Wait()
	fams := gather(t, m)
	if v := sample(fams, metricRateLimited); v != 1 {
		t.Errorf("%s = %v; want 1", metricRateLimited, v)
	}
	if ok, bad := sample(fams, metricTrackerEdits, labelOutcome, outcomeOK), sample(fams, metricTrackerEdits, labelOutcome, outcomeError); ok != 1 || bad != 0 {
		t.Errorf("tracker edits ok %v, error %v; want 1 and 0 (the 429 was retried)", ok, bad)
	}
	fake.status.Store(http.StatusNotFound) // the message was deleted
	src.version.Store(2)
	tr.Changed("chan-1")
	tr.Wait()
	if bad := sample(gather(t, m), metricTrackerEdits, labelOutcome, outcomeError); bad != 1 {
		t.Errorf("tracker edits with error = %v after a 404; want 1", bad)
	}
}

// TestMetricsClientLeavesOriginal: Client copies, so wrapping the default
// client does not count (or change) requests made with it elsewhere.
func TestMetricsClientLeavesOriginal(t *testing.T) {
	m := NewMetrics()
	c := m.Client(nil)
	if c == http.DefaultClient || http.DefaultClient.Transport != nil {
		t.Fatal("Client changed http.DefaultClient")
	}
	if _, ok := c.Transport.(rateLimitCounter); !ok {
		t.Errorf("Client transport %T; want the 429 counter", c.Transport)
	}
}

// BenchmarkMetricsPerRequest is what the metrics add to one interaction on
// serve, without the interaction: Instrument around a handler that answers
// at once, InstrumentEndpoint around an endpoint that answers at once.
func BenchmarkMetricsPerRequest(b *testing.B) {
	m := NewMetrics()
	svc := commands.New(nil, dice.NewRandom(1), systems, features()...) // RouteName needs no database
	h := m.Instrument(handlerFunc(func(ctx context.Context, r *commands.Request) *commands.Response {
		return &commands.Response{Content: "ok"}
	}))
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
		{"Discord unreachable", false, outcomeUndelivered},
		{"Discord takes them", true, outcomeOK},
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
			m := NewMetrics()
			kp := newKeyPair(t)
			svc := commands.New(db, dice.NewRandom(1), systems, features()...)
			odds, err := NewEndpoint(m.Instrument(svc), kp.pub, zerolog.Nop(), WithFilesClient(client), WithDeferAfter(0))
			if err != nil {
				t.Fatal(err)
			}
			late, err := NewEndpoint(m.Instrument(slow), kp.pub, zerolog.Nop(), WithFilesClient(client), WithDeferAfter(10*time.Millisecond))
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
			fams := gather(t, m)
			if got := sample(fams, metricInteractions, labelCommand, "odds", labelOutcome, tt.outcome); got != 1 {
				t.Errorf("%s{command=odds,outcome=%s} = %v; want 1 (the chart's follow-up)", metricInteractions, tt.outcome, got)
			}
			if got := sample(fams, metricInteractions, labelCommand, valueUnknown, labelOutcome, tt.outcome); got != 1 {
				t.Errorf("%s{command=unknown,outcome=%s} = %v; want 1 (the deferred answer)", metricInteractions, tt.outcome, got)
			}
			if n := len(fams[metricInteractions].GetMetric()); n != 2 {
				t.Errorf("%s has %d series; want the 2 above, each interaction counted once", metricInteractions, n)
			}
		})
	}
}
