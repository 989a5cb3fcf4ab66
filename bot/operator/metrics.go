package operator

import (
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// The name of every metric and label hpkeeper exports, in one place:
// README.md ("Health and metrics") lists them for operators, and what
// reads the metrics (tests, dashboards) refers to them by these names.
const (
	MetricInteractions     = "hpkeeper_interactions_total"
	MetricReplyDuration    = "hpkeeper_reply_duration_seconds"
	MetricQueueDepth       = "hpkeeper_writer_queue_depth"
	MetricGroupSize        = "hpkeeper_writer_group_size"
	MetricFunctionDuration = "hpkeeper_writer_functions_duration_seconds"
	MetricCommitDuration   = "hpkeeper_writer_commit_duration_seconds"
	MetricCommitFailures   = "hpkeeper_writer_commit_failures_total"
	MetricDatabaseSize     = "hpkeeper_database_size_bytes"
	MetricSchemaVersion    = "hpkeeper_database_schema_version"
	MetricFreeBytes        = "hpkeeper_database_free_bytes"
	MetricHealth           = "hpkeeper_health_status"
	MetricCacheBytes       = "hpkeeper_cache_bytes"
	MetricCacheLookups     = "hpkeeper_cache_lookups_total"
	MetricWorkFallbacks    = "hpkeeper_work_limit_fallbacks_total"
	MetricBackups          = "hpkeeper_backups_total"
	MetricTrackerEdits     = "hpkeeper_tracker_edits_total"
	MetricRateLimited      = "hpkeeper_discord_rate_limited_total"
	MetricHeartbeat        = "hpkeeper_gateway_heartbeat_latency_seconds"
	MetricGatewayUp        = "hpkeeper_gateway_up"
	MetricReconnects       = "hpkeeper_gateway_reconnects_total"
	MetricGatewayGuilds    = "hpkeeper_gateway_guilds"
	MetricGatewayRefused   = "hpkeeper_gateway_refused_interactions_total"
	MetricShardCount       = "hpkeeper_gateway_shard_count"
	MetricBuildInfo        = "hpkeeper_build_info"

	// LabelKind is an interaction's kind: one of the Kind values.
	LabelKind = "kind"
	// LabelCommand is the command name or custom_id prefix the service
	// knows a request by, or ValueUnknown.
	LabelCommand = "command"
	// LabelOutcome is how an interaction, a backup or a tracker edit
	// ended: one of the Outcome values.
	LabelOutcome = "outcome"
	// LabelStatus is a health state: ok, degraded or unavailable.
	LabelStatus = "status"
	// LabelShard is a gateway shard's id: one of the process's shards, a
	// bounded set.
	LabelShard = "shard"
)

// Label values. kind and command are "unknown" for requests refused before
// they were decoded; command is also "unknown" for a command or custom_id
// the service does not know (commands.Service.RouteName), so no user input
// becomes a label value of its own.
const (
	KindCommand      = "command"
	KindComponent    = "component"
	KindModal        = "modal"
	KindAutocomplete = "autocomplete"
	ValueUnknown     = "unknown"

	OutcomeOK               = "ok"
	OutcomeUserError        = "user_error"
	OutcomeInternal         = "internal"
	OutcomeRefusedSignature = "refused_signature" // 401: bad signature, stale timestamp or replay
	OutcomeBadRequest       = "bad_request"       // 400, 405, 413: not an interaction we handle
	OutcomeUndelivered      = "undelivered"       // answered, but the answer or a follow-up never reached Discord
	OutcomeError            = "error"             // tracker edits, backups
)

// Histogram buckets, in seconds and in Updates.
var (
	// replyBuckets reach Discord's 3 s deadline for a first reply.
	replyBuckets = []float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 3, 5}
	// commitBuckets cover a commit's two fdatasyncs on a fast disk (about
	// 1 ms) to a stalled one.
	commitBuckets = []float64{0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2}
	// groupBuckets go up to the writer's largest group (storage's maxGroup).
	groupBuckets = []float64{1, 2, 4, 8, 16, 32, 64, 128, 256}
)

// Metrics holds hpkeeper's Prometheus metrics in a registry of its own (not
// the global default one), with the Go runtime and process collectors. The
// parts of the bot report to it through the hooks below; Handler serves it in
// the Prometheus text format. It is safe for concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	interactions   *prometheus.CounterVec
	reply          *prometheus.HistogramVec
	groupSize      prometheus.Histogram
	functions      prometheus.Histogram
	commit         prometheus.Histogram
	commitFailures prometheus.Counter
	backups        *prometheus.CounterVec
	trackerEdits   *prometheus.CounterVec
	rateLimited    prometheus.Counter
}

// NewMetrics returns a Metrics with every hpkeeper metric registered (the
// database ones once ObserveDB is called).
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.interactions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: MetricInteractions,
		Help: "Interactions by kind (command, component, modal, autocomplete), command (the command name or the custom_id prefix) and outcome (ok, user_error, internal, undelivered, refused_signature, bad_request).",
	}, []string{LabelKind, LabelCommand, LabelOutcome})
	m.reply = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    MetricReplyDuration,
		Help:    "Time from an interaction reaching the service to its reply being ready, durable commit included (not the signature check or the network), by kind and command.",
		Buckets: replyBuckets,
	}, []string{LabelKind, LabelCommand})
	m.groupSize = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    MetricGroupSize,
		Help:    "Updates committed together in one write transaction by the writer goroutine (group commit).",
		Buckets: groupBuckets,
	})
	m.functions = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    MetricFunctionDuration,
		Help:    "Time the writer spent running the functions of one group (rules, encoding) before committing it.",
		Buckets: commitBuckets,
	})
	m.commit = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    MetricCommitDuration,
		Help:    "Time the writer spent committing one group: bbolt's page writes and its two fdatasyncs.",
		Buckets: commitBuckets,
	})
	m.commitFailures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: MetricCommitFailures,
		Help: "Groups whose commit failed (a full or failing disk): none of their changes were written.",
	})
	m.backups = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: MetricBackups,
		Help: "Backups served by POST /admin/backup, by outcome (ok, error).",
	}, []string{LabelOutcome})
	m.trackerEdits = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: MetricTrackerEdits,
		Help: "Edits of tracker messages sent to Discord, by outcome (ok, error).",
	}, []string{LabelOutcome})
	m.rateLimited = prometheus.NewCounter(prometheus.CounterOpts{
		Name: MetricRateLimited,
		Help: "HTTP 429 (Too Many Requests) responses from Discord's REST API, retries included.",
	})
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.interactions, m.reply, m.groupSize, m.functions, m.commit, m.commitFailures,
		m.backups, m.trackerEdits, m.rateLimited,
	)
	for _, o := range []string{OutcomeOK, OutcomeError} {
		m.trackerEdits.WithLabelValues(o)
		m.backups.WithLabelValues(o)
	}
	return m
}

// Registry returns the registry holding every metric (tests gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in the Prometheus text format (or in a format
// the scraper asks for); GET /metrics answers with it.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// ObservedDB is what ObserveDB reads of a database; *storage.DB implements it.
type ObservedDB interface {
	WriterStats() storage.WriterStats
	CacheStats() storage.CacheStats
	WorkLimitFailures() int64
	Health() storage.Health
	Path() string
}

var _ ObservedDB = (*storage.DB)(nil)

// ObserveDB registers the gauges read from db at each scrape: the writer's
// queue depth, the file's size on disk, the free space on its filesystem,
// the schema version and the state cache's size and lookups. Call it once per Metrics. Pass ObserveCommit as
// the database's storage.Options.OnCommit for the writer's histograms.
func (m *Metrics) ObserveDB(db ObservedDB) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: MetricQueueDepth,
			Help: "Updates waiting for the writer goroutine at the time of the scrape.",
		}, func() float64 { return float64(db.WriterStats().Queued) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: MetricDatabaseSize,
			Help: "Size of the database file on disk in bytes (bbolt files never shrink; compaction is a copy).",
		}, func() float64 {
			fi, err := os.Stat(db.Path())
			if err != nil {
				return 0
			}
			return float64(fi.Size())
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: MetricFreeBytes,
			Help: "Bytes free for hpkeeper on the filesystem of the database file (statfs; -1 when unknown). Commits fail when the file must grow and this is 0.",
		}, func() float64 { return float64(db.Health().FreeBytes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: MetricSchemaVersion,
			Help: "Schema version of the database this program reads and writes (files are migrated to it at start).",
		}, func() float64 { return float64(storage.SchemaVersion) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: MetricCacheBytes,
			Help: "Estimated bytes of decoded tables and characters in the state cache, and of the replies kept ready beside it (together bounded by storage.cache_mb).",
		}, func() float64 { st := db.CacheStats(); return float64(st.Bytes + st.Shared) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: MetricWorkFallbacks,
			Help: "Spends of a user's work allowance that the shared database (PostgreSQL) could not answer: this process's own allowance answered each instead (0 on a bbolt file).",
		}, func() float64 { return float64(db.WorkLimitFailures()) }),
		cacheLookups(db, "hit", func(s storage.CacheStats) int64 { return s.Hits }),
		cacheLookups(db, "miss", func(s storage.CacheStats) int64 { return s.Misses }),
	)
}

// cacheLookups is the hpkeeper_cache_lookups_total series of one result.
func cacheLookups(db ObservedDB, result string, n func(storage.CacheStats) int64) prometheus.Collector {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name:        MetricCacheLookups,
		Help:        "Lookups of a table's state in the state cache, by result: hit, or miss (decoded from the file).",
		ConstLabels: prometheus.Labels{"result": result},
	}, func() float64 { return float64(n(db.CacheStats())) })
}

// ObserveBuild registers hpkeeper_build_info, a gauge that is always 1,
// labelled with the program's version, revision (its first 12 hex digits,
// "" when unknown) and goversion, so that a dashboard can show which build
// each process runs: `max by (version, revision) (hpkeeper_build_info)`.
// Call it once per Metrics.
func (m *Metrics) ObserveBuild(b BuildInfo) {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        MetricBuildInfo,
		Help:        "Always 1; the labels name the running build: the module version, the VCS revision and the Go version.",
		ConstLabels: prometheus.Labels{"version": b.Version, "revision": shortRevision(b.Revision), "goversion": b.GoVersion},
	})
	g.Set(1)
	m.reg.MustRegister(g)
}

// ObserveCommit records one group the writer ran; pass it as
// storage.Options.OnCommit.
func (m *Metrics) ObserveCommit(g storage.GroupStats) {
	m.groupSize.Observe(float64(g.Updates))
	m.functions.Observe(g.Functions.Seconds())
	m.commit.Observe(g.Commit.Seconds())
	if g.Err != nil {
		m.commitFailures.Inc()
	}
}

// ObserveReply times one reply of the service, took being how long its
// handler ran, by kind and command: command is the service's name of the
// request (commands.Service.RouteName), "" when it has none ("unknown").
func (m *Metrics) ObserveReply(kind commands.Kind, command string, took time.Duration) {
	m.reply.WithLabelValues(kindLabel(kind), commandLabel(command)).Observe(took.Seconds())
}

// CountInteraction counts one interaction the service answered, by kind,
// command (as ObserveReply) and the outcome its reply was given
// (commands.Response.Outcome): an interaction whose answer, deferred
// answer, files or follow-up messages did not reach Discord (undelivered
// not nil) counts as undelivered instead of ok or user_error, and an
// internal error stays internal.
func (m *Metrics) CountInteraction(kind commands.Kind, command string, outcome commands.Outcome, undelivered error) {
	o := outcomeLabel(outcome)
	if undelivered != nil && o != OutcomeInternal {
		o = OutcomeUndelivered
	}
	m.interactions.WithLabelValues(kindLabel(kind), commandLabel(command), o).Inc()
}

// commandLabel is the command label of a request the service named
// command: "unknown" for "".
func commandLabel(command string) string {
	if command == "" {
		return ValueUnknown
	}
	return command
}

func kindLabel(k commands.Kind) string {
	switch k {
	case commands.KindCommand:
		return KindCommand
	case commands.KindComponent:
		return KindComponent
	case commands.KindModal:
		return KindModal
	case commands.KindAutocomplete:
		return KindAutocomplete
	}
	return ValueUnknown
}

func outcomeLabel(o commands.Outcome) string {
	switch o {
	case commands.OutcomeOK:
		return OutcomeOK
	case commands.OutcomeUserError:
		return OutcomeUserError
	}
	return OutcomeInternal
}

// InstrumentEndpoint returns the interactions endpoint h counting the requests it
// refuses before they reach the service: a 401 (bad signature, stale
// timestamp or replay, see Endpoint) as refused_signature, any other 4xx as
// bad_request, both with kind and command "unknown". Requests that reach the
// service are counted by the handler given to NewEndpoint when it is wrapped
// with Instrument.
func (m *Metrics) InstrumentEndpoint(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&statusWriter{ResponseWriter: w, m: m}, r)
	})
}

// statusWriter counts a refusal when its status is written, before the
// client can see it. It hides the server's own writer from
// http.MaxBytesReader, which then cannot mark the connection for closing
// after a 413; the server still closes it when more than 256 KiB of the
// body are left unread.
type statusWriter struct {
	http.ResponseWriter
	m     *Metrics
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		switch {
		case code == http.StatusUnauthorized:
			w.m.interactions.WithLabelValues(ValueUnknown, ValueUnknown, OutcomeRefusedSignature).Inc()
		case code >= 400 && code < 500:
			w.m.interactions.WithLabelValues(ValueUnknown, ValueUnknown, OutcomeBadRequest).Inc()
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true // an implicit 200
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Client returns a copy of c (http.DefaultClient when nil) that counts the
// 429 responses it receives; c itself is not changed.
func (m *Metrics) Client(c *http.Client) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	cp := *c
	next := cp.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	cp.Transport = rateLimitCounter{next: next, count: m.rateLimited}
	return &cp
}

// rateLimitCounter counts HTTP 429 responses.
type rateLimitCounter struct {
	next  http.RoundTripper
	count prometheus.Counter
}

func (rt rateLimitCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := rt.next.RoundTrip(r)
	if err == nil && res.StatusCode == http.StatusTooManyRequests {
		rt.count.Inc()
	}
	return res, err
}

// Session returns a session option (a bot.SessionOption) that makes the
// session's REST client (and so the interaction callbacks and tracker
// edits sent with it) count Discord's 429s. Give it after
// bot.WithHTTPClient.
func (m *Metrics) Session() func(*discordgo.Session) {
	return func(s *discordgo.Session) { s.Client = m.Client(s.Client) }
}

// ObserveGateway registers the gateway's series, read from g at each
// scrape, one series per shard of the process (label shard): whether it is
// connected, its last heartbeat's latency, its reconnects, its guilds, the
// interactions refused on it for a guild outside the process's shards; and
// the shard count. Call it once per Metrics, in gateway mode only.
func (m *Metrics) ObserveGateway(g ShardReporter) {
	m.reg.MustRegister(&gatewayCollector{g: g,
		up:         prometheus.NewDesc(MetricGatewayUp, "1 while the shard's gateway session is connected and heartbeating, else 0.", []string{LabelShard}, nil),
		heartbeat:  prometheus.NewDesc(MetricHeartbeat, "Latency of the shard's last gateway heartbeat Discord acknowledged (0 before the first).", []string{LabelShard}, nil),
		reconnects: prometheus.NewDesc(MetricReconnects, "Times the shard's gateway session connected again after its first connection.", []string{LabelShard}, nil),
		guilds:     prometheus.NewDesc(MetricGatewayGuilds, "Guilds on the shard (its READY and GUILD_CREATE events, less the guilds the bot left); Discord wants at most 2,500 a shard.", []string{LabelShard}, nil),
		refused:    prometheus.NewDesc(MetricGatewayRefused, "Interactions that arrived on the shard for a guild outside the process's shards (or with a malformed guild id), refused unhandled.", []string{LabelShard}, nil),
		count:      prometheus.NewDesc(MetricShardCount, "The bot's shard count (of all its processes) the gateway identified with.", nil, nil),
	})
}

// gatewayCollector reads a gateway's shards at scrape time.
type gatewayCollector struct {
	g                                                 ShardReporter
	up, heartbeat, reconnects, guilds, refused, count *prometheus.Desc
}

func (c *gatewayCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.up, c.heartbeat, c.reconnects, c.guilds, c.refused, c.count} {
		ch <- d
	}
}

func (c *gatewayCollector) Collect(ch chan<- prometheus.Metric) {
	shards := c.g.ShardStatus()
	for _, s := range shards {
		id := strconv.Itoa(s.ID)
		up := 0.0
		if s.State == ShardConnected {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, up, id)
		ch <- prometheus.MustNewConstMetric(c.heartbeat, prometheus.GaugeValue, s.HeartbeatLatency.Seconds(), id)
		ch <- prometheus.MustNewConstMetric(c.reconnects, prometheus.CounterValue, float64(s.Reconnects), id)
		ch <- prometheus.MustNewConstMetric(c.guilds, prometheus.GaugeValue, float64(s.Guilds), id)
		ch <- prometheus.MustNewConstMetric(c.refused, prometheus.CounterValue, float64(s.Refused), id)
	}
	if n := c.g.ShardRange().Count; n > 0 {
		ch <- prometheus.MustNewConstMetric(c.count, prometheus.GaugeValue, float64(n))
	}
}

// TrackerEdited counts one edit of a tracker message: err is its error (nil:
// Discord took it). bot.ReportEdits makes a tracker call it.
func (m *Metrics) TrackerEdited(err error) {
	if err != nil {
		m.trackerEdits.WithLabelValues(OutcomeError).Inc()
		return
	}
	m.trackerEdits.WithLabelValues(OutcomeOK).Inc()
}

// backedUp counts one backup served.
func (m *Metrics) backedUp(err error) {
	if m == nil {
		return
	}
	if err != nil {
		m.backups.WithLabelValues(OutcomeError).Inc()
		return
	}
	m.backups.WithLabelValues(OutcomeOK).Inc()
}

// healthCollector is the hpkeeper_health_status gauge: 1 for the state
// GET /healthz would answer now, 0 for the others. It is judged from the
// database's state alone (storage.DB.Health), without a probe of the
// writer, so a scrape never waits: a writer busy with one group longer
// than the health timeout counts as not answering.
type healthCollector struct {
	a    *Admin
	desc *prometheus.Desc
}

func newHealthCollector(a *Admin) *healthCollector {
	return &healthCollector{a: a, desc: prometheus.NewDesc(MetricHealth,
		"1 for the health state GET /healthz reports (ok, degraded, unavailable; its reason is in the answer), 0 for the others. The gateway's shards are left out: see hpkeeper_gateway_up.",
		[]string{LabelStatus}, nil)}
}

func (c *healthCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *healthCollector) Collect(ch chan<- prometheus.Metric) {
	now := c.a.assess(c.a.db.Health(), nil).status
	for _, s := range []string{healthOK, healthDegraded, healthUnavailable} {
		v := 0.0
		if s == now {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, v, s)
	}
}
