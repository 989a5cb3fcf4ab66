package storage

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// TestFailoverURL: the URL docs/deploy/compose.yaml gives the replicas
// names a primary and a standby and asks for the one that takes writes;
// it parses as such, and its password never reaches a message.
func TestFailoverURL(t *testing.T) {
	const u = "postgres://hpkeeper:s3cret@db-primary:5432,db-standby:5432/hpkeeper?target_session_attrs=read-write&sslmode=disable"
	if !IsPostgresURL(u) {
		t.Fatal("IsPostgresURL = false")
	}
	cfg, err := pgxpool.ParseConfig(u)
	if err != nil {
		t.Fatal(err)
	}
	hosts := []string{cfg.ConnConfig.Host}
	for _, f := range cfg.ConnConfig.Fallbacks {
		hosts = append(hosts, f.Host)
	}
	if len(hosts) != 2 || hosts[0] != "db-primary" || hosts[1] != "db-standby" || cfg.ConnConfig.ValidateConnect == nil {
		t.Errorf("hosts %v, a check of each connection: %v; want db-primary then db-standby, checked for read-write", hosts, cfg.ConnConfig.ValidateConnect != nil)
	}
	if r := RedactURL(u); strings.Contains(r, "s3cret") || !strings.Contains(r, "db-standby") {
		t.Errorf("RedactURL = %q", r)
	}
}
