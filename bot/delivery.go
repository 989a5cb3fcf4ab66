package bot

import (
	"context"
	"sync"
)

// A delivery follows one interaction's answer until it has reached Discord
// or failed to: the first answer (written inline, or the gateway's
// callback), a deferred answer sent later through the webhook, the files
// and the follow-up messages. The transport (Endpoint, the gateway) puts
// one in the context it hands the handler and calls finish once, when all
// of it is sent or has failed; the metrics' handler (Instrument) waits for
// it with await, so that an interaction whose answer never reached the
// player is counted as undelivered and not as ok.
type delivery struct {
	mu       sync.Mutex
	finished bool
	err      error
	report   func(err error)
}

type deliveryKey struct{}

// withDelivery returns ctx carrying d.
func withDelivery(ctx context.Context, d *delivery) context.Context {
	return context.WithValue(ctx, deliveryKey{}, d)
}

// deliveryFrom returns the delivery in ctx, nil when there is none (a
// handler called by something other than a transport).
func deliveryFrom(ctx context.Context) *delivery {
	d, _ := ctx.Value(deliveryKey{}).(*delivery)
	return d
}

// await calls report with the delivery's error (nil: all of it reached
// Discord) once finish has been called, at once if it has been.
func (d *delivery) await(report func(err error)) {
	d.mu.Lock()
	if !d.finished {
		d.report = report
		d.mu.Unlock()
		return
	}
	err := d.err
	d.mu.Unlock()
	report(err)
}

// finish records the outcome of the delivery: nil when the answer and its
// follow-ups all reached Discord, else the first failure. Calls after the
// first change nothing.
func (d *delivery) finish(err error) {
	if d == nil {
		return
	}
	d.mu.Lock()
	if d.finished {
		d.mu.Unlock()
		return
	}
	d.finished, d.err = true, err
	report := d.report
	d.mu.Unlock()
	if report != nil {
		report(err)
	}
}
