// Package pgtest gives tests a PostgreSQL database of their own on the
// server named by HPKEEPER_TEST_POSTGRES_URL, and skips them, saying so,
// where that is not set: go test ./... passes with Go alone. .ci/run starts
// a throwaway server on loopback and sets it (README.md, "Tests").
//
// It imports nothing of hpkeeper, so that any package's tests (storage's
// own included) can use it.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL is the environment variable naming the server the tests use: a
// postgres:// URL whose user may create databases.
const EnvURL = "HPKEEPER_TEST_POSTGRES_URL"

// SkipMessage is what a test skipped for want of a server says.
const SkipMessage = EnvURL + " is not set: the PostgreSQL backend is not tested here (.ci/run starts a server on loopback and sets it)"

// ServerURL returns the URL of the test server, skipping tb when there is
// none.
func ServerURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		tb.Skip(SkipMessage)
	}
	return u
}

// NewDatabase creates an empty database on the test server, returns its
// URL, and drops it (closing what is still connected) when the test ends.
// It skips tb when HPKEEPER_TEST_POSTGRES_URL is not set.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	server := ServerURL(tb)
	name := create(tb, server, EnvURL)
	tb.Cleanup(func() { Drop(tb, server, name) })
	u, err := WithDatabase(server, name)
	if err != nil {
		tb.Fatal(err)
	}
	return u
}

// create creates a database of a new name on the server (named by the
// variable env, for messages) and returns the name.
func create(tb testing.TB, server, env string) string {
	tb.Helper()
	name := newName(tb)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		tb.Fatalf("connect to the test server %s: %v", env, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("create test database: %v", err)
	}
	return name
}

// newName returns a new database name.
func newName(tb testing.TB) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatal(err)
	}
	return "hpkeeper_test_" + hex.EncodeToString(b[:])
}

// Drop drops the database name of the server at server, closing the
// connections still open to it.
func Drop(tb testing.TB, server, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		tb.Errorf("drop test database %s: %v", name, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		tb.Errorf("drop test database %s: %v", name, err)
	}
}

// WithDatabase returns the URL server with its database replaced by name.
func WithDatabase(server, name string) (string, error) {
	u, err := url.Parse(server)
	if err != nil {
		return "", fmt.Errorf("%s: %w", EnvURL, err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// The server a test may stop and start again, apart from the one the
// other tests share so that its restart disturbs none of them.
const (
	// EnvRestartURL names it, as EnvURL does the shared one.
	EnvRestartURL = "HPKEEPER_TEST_POSTGRES_RESTART_URL"
	// EnvRestartCtl is a pg_ctl command line for it, run by sh, to which
	// "stop" or "start" is appended.
	EnvRestartCtl = "HPKEEPER_TEST_POSTGRES_RESTART_CTL"
)

// Restartable is a database on the server a test may restart.
type Restartable struct {
	// URL is the database's.
	URL string
	ctl string
	tb  testing.TB
}

// NewRestartable creates an empty database on the restartable server and
// drops it when the test ends. It skips tb, saying so, when
// HPKEEPER_TEST_POSTGRES_RESTART_URL or _RESTART_CTL is not set.
func NewRestartable(tb testing.TB) *Restartable {
	tb.Helper()
	server, ctl := os.Getenv(EnvRestartURL), os.Getenv(EnvRestartCtl)
	if server == "" || ctl == "" {
		tb.Skip(EnvRestartURL + " or " + EnvRestartCtl + " is not set: no PostgreSQL server to restart here (.ci/run starts one and sets them)")
	}
	r := &Restartable{ctl: ctl, tb: tb}
	name := create(tb, server, EnvRestartURL)
	tb.Cleanup(func() {
		r.Start() // a test that failed with the server stopped
		Drop(tb, server, name)
	})
	var err error
	if r.URL, err = WithDatabase(server, name); err != nil {
		tb.Fatal(err)
	}
	return r
}

// Stop stops the server (pg_ctl stop -m fast: every connection is closed).
func (r *Restartable) Stop() {
	r.tb.Helper()
	if out, err := exec.Command("sh", "-c", r.ctl+" -m fast stop").CombinedOutput(); err != nil {
		r.tb.Fatalf("stop the test server: %v\n%s", err, out)
	}
}

// Start starts the server again, waiting until it accepts connections; a
// server already running is left alone.
func (r *Restartable) Start() {
	r.tb.Helper()
	if exec.Command("sh", "-c", r.ctl+" status").Run() == nil {
		return
	}
	if out, err := exec.Command("sh", "-c", r.ctl+" start").CombinedOutput(); err != nil {
		r.tb.Fatalf("start the test server: %v\n%s", err, out)
	}
}
