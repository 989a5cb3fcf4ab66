package bot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/gorilla/websocket"
)

// LoopbackDiscord returns the session options that send every REST request
// of a session (the gateway lookup, callbacks, webhooks, attachments) and
// its gateway websocket to base instead of Discord, whatever host discordgo
// names: for end-to-end tests that run hpkeeper as a child process against
// a loopback fake of Discord (bot/discordtest), through the environment
// variable HPKEEPER_TEST_DISCORD_URL.
//
// base must be http://IP:port with a loopback IP (127.0.0.0/8 or ::1): a
// name, even localhost, or any other address is refused with an error, so
// the bot token can never be sent to another machine this way.
func LoopbackDiscord(base string) ([]SessionOption, error) {
	c, err := LoopbackClient(base)
	if err != nil {
		return nil, err
	}
	host := c.Transport.(loopbackTransport).host
	d := &websocket.Dialer{
		HandshakeTimeout: 10 * time.Second,
		NetDialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, host)
		},
	}
	return []SessionOption{WithHTTPClient(c), WithDialer(d)}, nil
}

// LoopbackClient returns the HTTP client of LoopbackDiscord's sessions:
// every request it makes, whatever host it names, goes over plain HTTP to
// base, http://IP:port with a loopback IP, and through no proxy. The HTTP
// endpoint's follow-up messages and deferred answers use it too
// (WithFilesClient), so that they reach the same fake. It returns an error
// for any other base, as LoopbackDiscord does.
func LoopbackClient(base string) (*http.Client, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" || u.Port() == "" || (u.Path != "" && u.Path != "/") || u.User != nil || u.RawQuery != "" {
		return nil, fmt.Errorf("test Discord URL %q: want http://<loopback IP>:<port>", base)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("test Discord URL %q: %w", base, errNotLoopback)
	}
	return &http.Client{Transport: loopbackTransport{host: u.Host, next: &http.Transport{}}, Timeout: 30 * time.Second}, nil
}

// errNotLoopback refuses a test Discord URL that is not a loopback IP.
var errNotLoopback = errors.New("not a loopback IP address: it would receive the bot token")

// loopbackTransport sends every request over plain HTTP to host, a
// loopback address, through next (which uses no proxy).
type loopbackTransport struct {
	host string
	next http.RoundTripper
}

func (rt loopbackTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r2 := r.Clone(r.Context())
	r2.URL.Scheme, r2.URL.Host, r2.Host = "http", rt.host, rt.host
	return rt.next.RoundTrip(r2)
}
