package operator

import (
	"net/http"
	"testing"
)

// TestMetricsClientLeavesOriginal: Client copies, so wrapping the default
// client does not count (or change) requests made with it elsewhere.
func TestMetricsClientLeavesOriginal(t *testing.T) {
	m := NewMetrics()
	c := m.Client(nil)
	if c == http.DefaultClient || http.DefaultClient.Transport != nil {
		t.Fatal("Client changed http.DefaultClient")
	}
	if _, ok := c.Transport.(rateLimitCounter); !ok {
		t.Errorf("Client transport %T; want the 429 counter", c.Transport)
	}
}
