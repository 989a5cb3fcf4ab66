package bot

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot/operator"
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// benchWithData returns the fixture body with its "data" replaced by data.
func benchWithData(b *testing.B, body []byte, data string) []byte {
	b.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		b.Fatal(err)
	}
	m["data"] = json.RawMessage(data)
	out, err := json.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// benchSigned is a request body with its signature headers.
type benchSigned struct {
	body       []byte
	sig, stamp string
}

func benchSign(kp keyPair, body []byte, at time.Time) benchSigned {
	stamp := strconv.FormatInt(at.Unix(), 10)
	return benchSigned{body: body, stamp: stamp, sig: hex.EncodeToString(ed25519.Sign(kp.priv, append([]byte(stamp), body...)))}
}

func (s benchSigned) request() *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(s.body))
	req.Header.Set("X-Signature-Ed25519", s.sig)
	req.Header.Set("X-Signature-Timestamp", s.stamp)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// BenchmarkVerifyInteraction is the Endpoint's Ed25519 check of one
// benchSigned request: building the request, reading its body after the
// timestamp and verifying the signature, as ServeHTTP does.
func BenchmarkVerifyInteraction(b *testing.B) {
	kp := newKeyPair(b)
	s := benchSign(kp, fixture(b, "damage.json"), time.Now())
	key, err := newPublicKey(kp.pub)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r := s.request()
		stamp := r.Header.Get("X-Signature-Timestamp")
		signed, err := readAfter(r.Body, stamp, r.ContentLength)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := verifySignature(key, r.Header.Get("X-Signature-Ed25519"), stamp, signed); !ok {
			b.Fatal("does not verify")
		}
	}
}

// BenchmarkDecodeInteraction decodes Discord's JSON (a /damage command and a
// button press carrying its message) into a commands.Request.
func BenchmarkDecodeInteraction(b *testing.B) {
	for _, name := range []string{"damage.json", "component_button.json"} {
		body := fixture(b, name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				i, err := decodeInteraction(body)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := RequestFrom(i, time.Now()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncodeResponse converts and encodes a typical reply.
func BenchmarkEncodeResponse(b *testing.B) {
	resp := &commands.Response{
		Content: "Damage 1d4 [3] = 3\n**Lister** takes 3 damage: HP 12 → 9 · WP 14 → 14",
		Components: [][]commands.Button{{{Label: "Delete", CustomID: "del:3:17:yes"},
			{Label: "Cancel", CustomID: "del:3:17:no"}}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeResponse(ResponseFrom(commands.KindCommand, resp)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEndpoint is one whole request through Endpoint.ServeHTTP without
// the network: signature, decoding, the service (a durable bbolt commit for
// the writes) and the encoded reply.
func BenchmarkEndpoint(b *testing.B) { benchmarkEndpoint(b, false, DefaultDeferAfter) }

// BenchmarkEndpointNoDeferral is BenchmarkEndpoint with the deferral off
// (WithDeferAfter(0)): the handler runs on the request's goroutine. The
// difference to BenchmarkEndpoint is what arming the deferral costs a
// request.
func BenchmarkEndpointNoDeferral(b *testing.B) { benchmarkEndpoint(b, false, 0) }

// BenchmarkEndpointMetered is BenchmarkEndpoint wired as serve wires it:
// the service counted by Metrics, the writer's commits observed, the
// endpoint behind InstrumentEndpoint and Admin.WithInteractions. The
// difference to BenchmarkEndpoint is what the metrics cost a request.
func BenchmarkEndpointMetered(b *testing.B) { benchmarkEndpoint(b, true, DefaultDeferAfter) }

func benchmarkEndpoint(b *testing.B, metered bool, deferAfter time.Duration) {
	var m *operator.Metrics
	var opts storage.Options
	if metered {
		m = operator.NewMetrics()
		opts.OnCommit = m.ObserveCommit
	}
	svc, db := benchService(b, opts)
	kp := newKeyPair(b)
	var h Handler = svc
	if metered {
		m.ObserveDB(db)
		h = Instrument(svc, m)
	}
	ep, err := NewEndpoint(h, kp.pub, zerolog.Nop(), WithFilesClient(offline), WithDeferAfter(deferAfter))
	if err != nil {
		b.Fatal(err)
	}
	var handler http.Handler = ep
	if metered {
		admin, err := operator.NewAdmin(db, m, "", zerolog.Nop())
		if err != nil {
			b.Fatal(err)
		}
		handler = admin.WithInteractions(m.InstrumentEndpoint(ep))
	}
	damage := fixture(b, "damage.json")
	now := time.Now()
	show := benchWithData(b, damage, benchCharShow)
	undo := benchWithData(b, damage, `{"id":"1","name":"undo","type":1}`)
	// The Endpoint refuses a replayed signature, so every request gets its
	// own interaction id and signature, made with the timer stopped.
	var seq atomic.Int64
	seq.Store(1311000000000010004)
	sign := func(body []byte) benchSigned {
		id := []byte(strconv.FormatInt(seq.Add(1), 10))
		return benchSign(kp, bytes.Replace(body, []byte(`"1311000000000010004"`), append(append([]byte{'"'}, id...), '"'), 1), now)
	}
	serve := func(b *testing.B, s benchSigned) {
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, s.request())
		if w.Code != http.StatusOK || bytes.Contains(w.Body.Bytes(), []byte(`"flags":64`)) {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	b.Run("char-show", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			s := sign(show)
			b.StartTimer()
			serve(b, s)
		}
	})
	b.Run("damage+undo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			hit, un := sign(damage), sign(undo)
			b.StartTimer()
			serve(b, hit)
			serve(b, un)
		}
	})
}

// benchCharShow is the data of /char show Lister.
const benchCharShow = `{"id":"1","name":"char","type":1,"options":[{"name":"show","type":1,"options":[{"name":"name","type":3,"value":"Lister"}]}]}`

// benchService returns a service over a new database opened with opts,
// holding the table of the fixtures' channel (hp-mp-wp) with one character,
// Lister.
func benchService(b *testing.B, opts storage.Options) (*commands.Service, *storage.DB) {
	db, err := storage.Open(filepath.Join(b.TempDir(), "hpkeeper.db"), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	svc := commands.New(db, dice.NewRandom(1), systems, features()...)
	ctx := context.Background()
	for _, r := range []*commands.Request{
		{Command: "table", Subcommand: "setup", Options: map[string]string{"system": "hp-mp-wp"}},
		{Command: "char", Subcommand: "create", Options: map[string]string{"name": "Lister", "stats": "hp-max=40 con=14"}},
	} {
		r.Kind, r.ChannelID, r.UserID, r.Permissions = commands.KindCommand, fixtureChannel, "gm", commands.ManageChannels
		if resp := svc.Handle(ctx, r); resp.Ephemeral {
			b.Fatal(resp.Content)
		}
	}
	return svc, db
}

// reportCPU reports the process's CPU time since cpu (processCPU) per
// iteration, as cpu-ns/op: on a shared machine it varies less than the
// wall time, and it counts what the goroutines the request started did.
func reportCPU(b *testing.B, cpu time.Duration) {
	if cpu != 0 {
		b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkDispatch answers one decoded /char show through dispatch, with
// the deferral armed as served (DefaultDeferAfter) and off: the service and
// the glue around it (the handler's goroutine, the deferral's timer, the
// request's context and logger), without the signature and the HTTP.
func BenchmarkDispatch(b *testing.B) {
	svc, _ := benchService(b, storage.Options{})
	i, err := decodeInteraction(benchWithData(b, fixture(b, "damage.json"), benchCharShow))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		after time.Duration
	}{{"deferral", DefaultDeferAfter}, {"no-deferral", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			var fl inflight
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				first, late, err := dispatch(context.Background(), svc, interactionLogger(zerolog.Nop(), i), i, time.Now(), bc.after, &fl)
				if err != nil || late != nil || first.resp == nil || first.resp.Data == nil || first.resp.Data.Flags != 0 {
					b.Fatalf("dispatch = %+v, %v, %v", first.resp, late, err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}
