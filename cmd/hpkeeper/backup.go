package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/hpkeeper/hpkeeper/bot/operator"
	"github.com/hpkeeper/hpkeeper/storage"
)

// backupMain runs `hpkeeper backup`: a consistent, checked copy of the
// database at --to, made directly when no process holds the file and
// otherwise through the running process (POST /admin/backup). It returns 0
// when the copy is written, 1 when it is not (dst is then untouched), 2 for
// a usage error.
func backupMain(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("hpkeeper backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.String("to", "", "write the copy to this `file`: written beside it, synced, checked, then renamed over it (never half-written)")
	from := fs.String("from", "", "copy through the running process at this `URL` (default: admin.listen of the config, else http.listen)")
	dbPath := fs.String("db", "", "the database `file` (default: storage.path of the config); copied directly when no process holds it, else through the running process")
	fs.Usage = usageFunc(fs, "backup", "write a consistent, checked copy of the live database, through the running process when one holds the file (POST /admin/backup) and directly otherwise.",
		"--to FILE [--from URL | --db FILE] [--config FILE]",
		"HPKEEPER_CONFIG", "HPKEEPER_DB", "HPKEEPER_ADMIN_LISTEN", "HPKEEPER_LISTEN", "HPKEEPER_ADMIN_TOKEN", "HPKEEPER_ADMIN_TOKEN_FILE")
	cfg, code, ok := opsFlags(fs, args, stderr, getenv)
	if !ok {
		return code
	}
	if *to == "" {
		fmt.Fprintln(stderr, "hpkeeper backup: --to FILE is required")
		return 2
	}
	if *from != "" && *dbPath != "" {
		fmt.Fprintln(stderr, "hpkeeper backup: give --from or --db, not both")
		return 2
	}
	if *dbPath != "" {
		setDB(&cfg, *dbPath)
	}
	if cfg.Storage.URL != "" && *from == "" {
		return backupPostgres(cfg.Storage.URL, *to, stderr) // pgops.go
	}
	if storage.SamePath(cfg.Storage.Path, *to) {
		fmt.Fprintf(stderr, "hpkeeper backup: --to %s is the database itself; name another file\n", *to)
		return 2
	}
	how := "directly (no process holds " + cfg.Storage.Path + ")"
	var rep *storage.Report
	var err error
	if *from == "" {
		rep, err = storage.BackupFile(cfg.Storage.Path, *to, -1)
		if errors.Is(err, storage.ErrLocked) {
			*from, err = cfg.AdminURL()
		}
	}
	if err == nil && rep == nil {
		var target string
		target, rep, err = remoteBackup(ctx, *from, cfg.Admin.Token, *to)
		how = "through " + target
	}
	if err != nil {
		fmt.Fprintf(stderr, "hpkeeper backup: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: written %s, and checked\n%s", rep.Path, how, describeReport(rep))
	return 0
}

// backupHeaderTimeout bounds the wait for the running process to start
// sending the copy.
const backupHeaderTimeout = 30 * time.Second

// remoteBackup asks the process at base (a URL; its path defaults to
// operator.PathBackup) for a copy, sending token as a bearer token when set, and
// saves it at dst with storage.SaveBackup. It returns the URL it used.
func remoteBackup(ctx context.Context, base, token, dst string) (string, *storage.Report, error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return base, nil, fmt.Errorf("--from %q is not an http(s) URL", base)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = operator.PathBackup
	}
	target := u.String()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, nil)
	if err != nil {
		return target, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	// No proxy: the request carries the token and is meant for this host.
	client := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: backupHeaderTimeout}}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return target, nil, fmt.Errorf("the database is held by a process, but nothing answers at %s: give its admin URL with --from, or set admin.listen (HPKEEPER_ADMIN_LISTEN) for it and for this command", target)
		}
		return target, nil, fmt.Errorf("POST %s: %w", target, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		err := fmt.Errorf("POST %s: %s: %s", target, resp.Status, bytes.TrimSpace(msg))
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			err = fmt.Errorf("%w\n(give this command the process's admin.token, e.g. with HPKEEPER_ADMIN_TOKEN, or use its admin listener from this host)", err)
		}
		return target, nil, err
	}
	rep, err := storage.SaveBackup(dst, func(w io.Writer) error {
		n, err := io.Copy(w, resp.Body)
		if err != nil {
			return fmt.Errorf("read the copy from %s: %w", target, err)
		}
		if resp.ContentLength >= 0 && n != resp.ContentLength {
			return fmt.Errorf("the copy from %s ended after %d of %d bytes", target, n, resp.ContentLength)
		}
		return nil
	})
	return strings.TrimSuffix(target, operator.PathBackup), rep, err
}
