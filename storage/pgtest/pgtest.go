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
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatal(err)
	}
	name := "hpkeeper_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		tb.Fatalf("connect to the test server %s: %v", EnvURL, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("create test database: %v", err)
	}
	tb.Cleanup(func() { Drop(tb, server, name) })
	u, err := WithDatabase(server, name)
	if err != nil {
		tb.Fatal(err)
	}
	return u
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
