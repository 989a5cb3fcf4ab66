package bot

import (
	"context"
	"time"

	"github.com/hpkeeper/hpkeeper/bot/operator"
	"github.com/hpkeeper/hpkeeper/commands"
)

// routeNamer names a request for metrics from a bounded set;
// *commands.Service implements it.
type routeNamer interface {
	RouteName(r *commands.Request) string
}

var _ routeNamer = (*commands.Service)(nil)

// Instrument returns h counting every interaction it answers in m by kind,
// command and outcome (commands.Response.Outcome; a nil response or a
// panic counts as internal) and timing its replies by kind and command
// (operator.Metrics.CountInteraction, ObserveReply). The command label is
// h's RouteName when h has one (*commands.Service does), else "unknown".
// Under a transport of this package, an interaction is counted once its
// answer has been delivered (delivery.go): one whose first answer, deferred
// answer, files or follow-up messages did not reach Discord counts as
// undelivered instead of ok or user_error (an internal error stays
// internal).
func Instrument(h Handler, m *operator.Metrics) Handler {
	namer, _ := h.(routeNamer)
	return &meteredHandler{h: h, m: m, namer: namer}
}

type meteredHandler struct {
	h     Handler
	m     *operator.Metrics
	namer routeNamer
}

func (mh *meteredHandler) Handle(ctx context.Context, r *commands.Request) (resp *commands.Response) {
	start := time.Now()
	defer func() {
		outcome := commands.OutcomeInternal
		if resp != nil {
			outcome = resp.Outcome
		}
		name := ""
		if mh.namer != nil {
			name = mh.namer.RouteName(r)
		}
		mh.m.ObserveReply(r.Kind, name, time.Since(start))
		count := func(err error) { mh.m.CountInteraction(r.Kind, name, outcome, err) }
		if d := deliveryFrom(ctx); d != nil {
			d.await(count)
			return
		}
		count(nil)
	}()
	return mh.h.Handle(ctx, r)
}
