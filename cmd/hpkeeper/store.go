package main

import (
	"context"
	"time"

	"github.com/hpkeeper/hpkeeper/storage"
)

// The database run and serve use: the bbolt file of storage.path (the
// default), or the PostgreSQL database of storage.url, which any number of
// processes share.

// setDB points cfg at db, a --db value: a postgres:// URL or a file.
func setDB(cfg *Config, db string) {
	if storage.IsPostgresURL(db) {
		cfg.Storage.URL = db
		return
	}
	cfg.Storage.Path, cfg.Storage.URL = db, ""
}

// dbName names the database for the log: the file, or the URL with its
// password redacted.
func (a *App) dbName() string {
	if u := a.Config.Storage.URL; u != "" {
		return storage.RedactURL(u)
	}
	return a.Config.Storage.Path
}

// openDB opens the configured database: storage.url when set, else the
// file at storage.path, waiting up to timeout for the file's lock.
// onCommit observes each write transaction; cache is the state cache's
// bound in bytes (0: the default, negative: none).
func (a *App) openDB(timeout time.Duration, onCommit func(storage.GroupStats), cache int) (*storage.DB, error) {
	if u := a.Config.Storage.URL; u != "" {
		return storage.OpenPostgres(u, storage.PostgresOptions{OnCommit: onCommit, CacheBytes: cache})
	}
	return storage.Open(a.Config.Storage.Path, storage.Options{Timeout: timeout, OnCommit: onCommit, CacheBytes: cache, AllowUnsound: a.Config.Storage.AllowUnsound})
}

// expireEvery is how often a process of a shared database drops what the
// database keeps for a while (storage.DB.Expire).
const expireEvery = time.Minute

// expireShared starts dropping, every expireEvery, what a shared database
// keeps for a while (interactions, replay guard entries, work allowances),
// and returns the function that stops it. On a file it does nothing.
func (a *App) expireShared(ctx context.Context, db *storage.DB) (stop func()) {
	if !db.Shared() {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(expireEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				if err := db.Expire(now); err != nil {
					a.Log.Warn().Err(err).Msg("could not expire the shared database's old interactions and replay guard entries; trying again in a minute")
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}
