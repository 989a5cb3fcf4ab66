package bot

import (
	"context"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
)

// A handler runs on a goroutine other than the request's, so that the
// transport can send the deferral and return while the handler goes on
// (dispatch, deferred.go). A fresh goroutine starts with a small stack,
// which a handler's calls (the kernel, storage, rendering) grow several
// times over, each time by copying it: in BenchmarkEndpoint's profile that
// growth and the goroutine's start were a tenth of the endpoint's CPU for a
// read (issue 29). So the goroutines that ran a handler are kept, up to
// maxIdleWorkers of them, and given the next one, their stacks grown
// already (until the garbage collector shrinks an idle one). Whether a
// handler runs on a new goroutine or a kept one changes nothing else: it
// gets the same context, and its answer comes back on its own channel.

// maxIdleWorkers is how many goroutines wait for the next handler at most;
// one more that finishes its handler ends. 64 covers the 50 requests in
// flight of `hpkeeper bench` with a few KB of stack each once idle.
const maxIdleWorkers = 64

// handlerCall is one handler to run: answer's arguments, the run to end in
// fl once it has answered, and where its reply goes.
type handlerCall struct {
	ctx      context.Context
	h        Handler
	ilog     zerolog.Logger
	req      *commands.Request
	fl       *inflight
	ru       *run
	answered chan<- reply
}

// workerPool is the goroutines waiting for a handler to run, each on its
// own channel, the one that waited least last. Its zero value has none; it
// is safe for concurrent use.
type workerPool struct {
	mu   sync.Mutex
	idle []chan handlerCall
}

// workers runs the handlers of every transport of the process.
var workers workerPool

// run runs c on a waiting goroutine, or on a new one when none waits.
func (p *workerPool) run(c handlerCall) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		w <- c // buffered: never blocks
		return
	}
	p.mu.Unlock()
	w := make(chan handlerCall, 1)
	w <- c
	go p.work(w)
}

// work runs the calls sent on w, waiting for the next one between them,
// until maxIdleWorkers others wait already.
func (p *workerPool) work(w chan handlerCall) {
	for {
		p.answer(<-w)
		p.mu.Lock()
		if len(p.idle) >= maxIdleWorkers {
			p.mu.Unlock()
			return
		}
		p.idle = append(p.idle, w)
		p.mu.Unlock()
	}
}

// answer runs c: its handler's reply (answer recovers a panic) goes to
// c.answered once the run has ended.
func (p *workerPool) answer(c handlerCall) {
	r := answer(c.ctx, c.h, c.ilog, c.req)
	c.fl.end(c.ru)
	c.answered <- r
}

// awaiting is what dispatch waits on for one handler: the channel of its
// answer (room for one) and the deferral's timer, stopped. Both are reused
// for the next request when the answer came in time (awaitPool).
type awaiting struct {
	answered chan reply
	timer    *time.Timer
}

// awaitPool keeps awaitings between requests: a timer and a channel fewer
// to make for each.
var awaitPool = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &awaiting{answered: make(chan reply, 1), timer: t}
}}
