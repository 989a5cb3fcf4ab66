package bot

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/rs/zerolog"
)

// MaxBodyBytes is the largest request body the Endpoint reads (1 MiB); a
// larger one is answered with 413.
const MaxBodyBytes = 1 << 20

// MaxClockSkew is how far X-Signature-Timestamp may be from the Endpoint's
// clock, in the past or the future, before a request is refused with 401 as
// a possible replay.
const MaxClockSkew = 5 * time.Minute

// ShutdownTimeout is how long Serve waits for in-flight requests after its
// context is cancelled before closing their connections.
const ShutdownTimeout = 10 * time.Second

// Endpoint is the http.Handler for Discord's interactions endpoint URL. It
// accepts only POST; reads at most MaxBodyBytes (413 beyond); answers 401 to a
// request whose Ed25519 signature does not verify, whose timestamp is more
// than MaxClockSkew away, or that repeats a request already accepted (the
// same signature; with WithReplayStore also across restarts, see replay.go);
// 400 to a body that is not an interaction or an
// interaction type it does not handle; {"type":1} to a PING; and any other
// interaction with the Handler's reply, written inline as JSON, or, when the
// Handler takes longer than the deferral delay (WithDeferAfter), with a
// deferred response followed by the reply through the interaction's webhook
// (deferred.go). It is safe for concurrent use; Wait waits for the replies
// and files still being sent.
type Endpoint struct {
	h       Handler
	key     publicKey // verify.go
	log     zerolog.Logger
	now     func() time.Time
	replays replayGuard
	// store keeps replays across a graceful restart (replay.go); nil: memory only.
	store ReplayStore
	// shared, when set, is the replay guard every replica shares
	// (sharedreplay.go).
	shared SharedReplayGuard
	// followUps sends the files of answers (files.go) and the answers that
	// came after a deferral (deferred.go).
	followUps followUps
	// deferAfter is how long a handler may take before a deferred answer.
	deferAfter time.Duration
	// inflight holds the deferred commands still running (inflight.go).
	inflight inflight
}

// EndpointOption configures an Endpoint.
type EndpointOption func(*Endpoint)

// WithClock makes the Endpoint read the time from now (tests); it checks
// request timestamps against it and sets commands.Request.Now from it.
func WithClock(now func() time.Time) EndpointOption {
	return func(e *Endpoint) { e.now = now }
}

// NewEndpoint returns an Endpoint answering with h (a *commands.Service) and
// checking signatures with key, the application's public key (see
// ParsePublicKey). It logs to log, each interaction with its interaction_id,
// guild_id, channel_id and user_id. It returns an error when key is not 32
// bytes long or h is nil, or when the replay store (WithReplayStore) cannot
// be read. The key is decompressed here, once for every request (verify.go);
// a key that is not a point of the curve is logged as a warning, and no
// request verifies under it (as with crypto/ed25519).
func NewEndpoint(h Handler, key ed25519.PublicKey, log zerolog.Logger, opts ...EndpointOption) (*Endpoint, error) {
	if len(key) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("new endpoint: public key is %d bytes, want %d", len(key), ed25519.PublicKeySize)
	}
	pk, err := newPublicKey(key)
	if err != nil {
		// crypto/ed25519 accepts such a key and verifies nothing under it;
		// so does the Endpoint, and says so.
		log.Warn().Err(err).Msg("the public key is not a point of the curve: no request will verify")
	}
	if h == nil {
		return nil, errors.New("new endpoint: nil handler")
	}
	e := &Endpoint{h: h, key: pk, log: log, now: time.Now, deferAfter: DefaultDeferAfter}
	for _, o := range opts {
		o(e)
	}
	if err := e.restoreReplays(); err != nil { // replay.go
		return nil, fmt.Errorf("new endpoint: %w", err)
	}
	return e, nil
}

// ParsePublicKey decodes the application public key shown in Discord's
// developer portal (64 hexadecimal digits). It returns an error when s is not
// hexadecimal or not 32 bytes long.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("parse public key: %w", err)
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("parse public key: %d bytes, want %d", len(b), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// ServeHTTP answers one request as the type's documentation says.
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	sigHex, stamp := r.Header.Get("X-Signature-Ed25519"), r.Header.Get("X-Signature-Timestamp")
	// The signed message is the timestamp followed by the body: read the body
	// straight after the timestamp, so verifying copies nothing.
	signed, err := readAfter(http.MaxBytesReader(w, r.Body, MaxBodyBytes), stamp, r.ContentLength)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			e.log.Warn().Str("remote", r.RemoteAddr).Int64("limit", tooBig.Limit).Msg("interaction request body too large")
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read request body", http.StatusBadRequest)
		return
	}
	body := signed[len(stamp):]
	sig, ok := verifySignature(e.key, sigHex, stamp, signed)
	if !ok {
		e.log.Debug().Str("remote", r.RemoteAddr).Msg("interaction request with a bad signature")
		http.Error(w, "invalid request signature", http.StatusUnauthorized)
		return
	}
	if !e.fresh(stamp) {
		e.log.Warn().Str("remote", r.RemoteAddr).Str("timestamp", stamp).Msg("interaction request with a stale timestamp")
		http.Error(w, "request timestamp too far from now", http.StatusUnauthorized)
		return
	}
	switch e.replays.record([16]byte(sig[:16]), stamp, e.now()) { // replay.go
	case replaySeen:
		e.log.Warn().Str("remote", r.RemoteAddr).Msg("interaction request replayed")
		http.Error(w, "request already received", http.StatusUnauthorized)
		return
	case replayBeforeStart:
		e.log.Warn().Str("remote", r.RemoteAddr).Str("timestamp", stamp).Msg("interaction request signed before an unclean restart")
		http.Error(w, "request signed before the endpoint restarted", http.StatusUnauthorized)
		return
	case replayClosed:
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	if !e.acceptShared(w, r, sig[:], stamp) { // sharedreplay.go
		return
	}
	i, err := decodeInteraction(body)
	if err != nil {
		e.log.Warn().Err(err).Msg("undecodable interaction")
		http.Error(w, "malformed interaction", http.StatusBadRequest)
		return
	}
	received := time.Now() // the token's life runs on the real clock
	ilog := interactionLogger(e.log, i)
	var (
		first reply
		late  <-chan reply
		d     = new(delivery) // finished once the answer and its follow-ups are sent (delivery.go)
	)
	if i.Type == discordgo.InteractionPing {
		first.resp = &discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong}
	} else {
		first, late, err = dispatch(withDelivery(withFilesClient(r.Context(), e.followUps.httpClient()), d), e.h, ilog, i, e.now(), e.deferAfter, &e.inflight)
		if err != nil {
			ilog.Warn().Err(err).Msg("interaction not handled")
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	out, err := EncodeResponse(first.resp)
	if err != nil {
		ilog.Error().Err(err).Msg("cannot encode interaction response")
		if out, err = EncodeResponse(apology()); err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(out)
	if late != nil {
		// The handler goes on past this request: Wait (and Close) wait for
		// it, and its answer is delivered once the deferral was written.
		e.followUps.wg.Add(1)
		go func(writeErr error) { // the deferral's
			defer e.followUps.wg.Done()
			defer contain(ilog, "deferred answer")
			if writeErr != nil {
				<-late
				d.finish(writeErr)
				return
			}
			d.finish(awaitLate(e.followUps.httpClient(), e.log, i, received, first.resp, late, &e.inflight)) // deferred.go
		}(err)
	}
	if err != nil {
		ilog.Warn().Err(err).Msg("cannot write interaction response")
		if late == nil {
			d.finish(err)
		}
		return
	}
	if late == nil {
		e.followUps.sendLater(ilog, i, first, d.finish) // files and follow-ups, after the inline answer (files.go)
	}
}

// signedSizeHint caps the buffer readAfter sizes from Content-Length before
// anything is read or verified (8 KiB, above an interaction's 1.5–3 KB), so a
// request announcing a large body costs memory only as the body arrives.
const signedSizeHint = 8 << 10

// readAfter reads r to its end into a new slice that starts with prefix, and
// returns prefix followed by everything read. size is the expected length of
// r in bytes (a request's ContentLength, -1 when unknown); up to
// signedSizeHint it sizes the buffer so the body is read without copying. It
// returns what was read with the first error other than io.EOF (for a body
// cut by http.MaxBytesReader, an *http.MaxBytesError).
func readAfter(r io.Reader, prefix string, size int64) ([]byte, error) {
	n := int64(512)
	if size >= 0 && size < signedSizeHint {
		n = size + 1 // one byte more, so the read that meets EOF needs no growth
	}
	buf := make([]byte, len(prefix), int64(len(prefix))+n)
	copy(buf, prefix)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grow
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// fresh reports whether ts, Unix seconds, is within MaxClockSkew of the
// Endpoint's clock.
func (e *Endpoint) fresh(ts string) bool { return freshAt(ts, e.now()) }

// Serve listens on addr (e.g. ":8080") and serves h until ctx is cancelled,
// then shuts down gracefully: it stops accepting connections and waits up to
// ShutdownTimeout for in-flight requests to finish. It returns nil after a
// clean shutdown, and an error when it cannot listen or the server fails.
func Serve(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ServeListener(ctx, ln, h)
}

// DrainWindow is how long a stopping server keeps accepting: the
// connections the kernel had already queued on the listener when the stop
// began (and any that arrive meanwhile) are accepted and served, not reset;
// then the listener closes and new connections are refused.
const DrainWindow = 500 * time.Millisecond

// ServeListener is Serve on a listener the caller opened (tests listen on
// 127.0.0.1:0). It closes ln. When ctx is cancelled it drains ln for
// DrainWindow, then waits up to ShutdownTimeout for the requests in flight.
func ServeListener(ctx context.Context, ln net.Listener, h http.Handler) error {
	dl := &drainListener{Listener: ln}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(dl) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve http on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	// Serve returns once the queued connections are accepted and the
	// listener is closed; Shutdown then waits for their requests.
	dl.drain(DrainWindow)
	serveErr := <-done
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
		return fmt.Errorf("shut down http server: %w", err)
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) && !errors.Is(serveErr, net.ErrClosed) {
		return fmt.Errorf("serve http on %s: %w", ln.Addr(), serveErr)
	}
	return nil
}

// drainListener is a listener that, once drain is called, accepts what is
// queued (and what arrives) for a window, then closes itself and reports
// net.ErrClosed, which ends http.Server.Serve: closing a listener at once
// would reset the connections the kernel had accepted but the server not
// yet. Close may be called more than once.
type drainListener struct {
	net.Listener
	draining  atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

func (l *drainListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil && l.draining.Load() {
		l.Close()
		return nil, net.ErrClosed
	}
	return c, err
}

// drain starts the window: a listener with deadlines (TCP, Unix) accepts
// until window has passed; any other closes at once.
func (l *drainListener) drain(window time.Duration) {
	l.draining.Store(true)
	if d, ok := l.Listener.(interface{ SetDeadline(time.Time) error }); ok && d.SetDeadline(time.Now().Add(window)) == nil {
		return
	}
	l.Close()
}

func (l *drainListener) Close() error {
	l.closeOnce.Do(func() { l.closeErr = l.Listener.Close() })
	return l.closeErr
}
