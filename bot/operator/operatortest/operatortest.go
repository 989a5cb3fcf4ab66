// Package operatortest reads what hpkeeper tells its operator, in tests:
// the metrics as a scrape does, over HTTP from a /metrics route (Scrape)
// or straight from a registry (Gather), each family by its name, and one
// sample of a family by its labels (Sample), bot/operator naming every
// metric and label; and the answer of GET /healthz (ReadHealth).
package operatortest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are the metric families of one scrape, by name.
type Families map[string]*dto.MetricFamily

// Scrape GETs url (a /metrics route) with c and parses the Prometheus text
// format; it fails the test on anything but 200 in that format.
func Scrape(t testing.TB, c *http.Client, url string) Families {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s %s; want 200 in the text format", url, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return fams
}

// Gather reads g (operator.Metrics.Registry) the way a scrape does,
// without HTTP.
func Gather(t testing.TB, g prometheus.Gatherer) Families {
	t.Helper()
	fs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := Families{}
	for _, f := range fs {
		out[f.GetName()] = f
	}
	return out
}

// Sample returns the value of the sample of family name whose labels
// include the given name/value pairs: a counter's or gauge's value, or a
// histogram's sample count; -1 when there is none.
func Sample(fams Families, name string, labels ...string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.GetMetric() {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, l := range m.GetLabel() {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

// ReadHealth GETs base + /healthz with c, checks that its body is one line
// of JSON, decodes it into body and returns the status code.
func ReadHealth(t testing.TB, c *http.Client, base string, body any) int {
	t.Helper()
	resp, err := c.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if bytes.Count(b, []byte("\n")) != 1 || !bytes.HasSuffix(b, []byte("\n")) || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("GET /healthz body %q (%s); want one line of JSON", b, resp.Header.Get("Content-Type"))
	}
	if err := json.Unmarshal(b, body); err != nil {
		t.Fatalf("GET /healthz: %v in %q", err, b)
	}
	return resp.StatusCode
}
