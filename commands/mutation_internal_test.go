package commands

import (
	"reflect"
	"testing"

	"github.com/hpkeeper/hpkeeper/storage"
)

// TestCloneTable: the "before" copy of a table shares nothing with the table
// a handler changes, and an untouched table equals its copy (nil stays nil),
// so a mutation records a table change exactly when there is one.
func TestCloneTable(t *testing.T) {
	orig := &storage.Table{ChannelID: "c", GMs: []string{"a"}, Options: map[string]string{"dice": "bot"}}
	cp := cloneTable(orig)
	if !reflect.DeepEqual(cp, orig) {
		t.Fatalf("cloneTable(%+v) = %+v; want an equal copy", orig, cp)
	}
	cp.GMs[0], cp.Options["dice"] = "b", "manual"
	if orig.GMs[0] != "a" || orig.Options["dice"] != "bot" {
		t.Errorf("changing the copy changed the table: %+v", orig)
	}
	bare := &storage.Table{ChannelID: "c"}
	if got := cloneTable(bare); !reflect.DeepEqual(got, bare) {
		t.Errorf("cloneTable(%+v) = %+v; nil slices and maps must stay nil", bare, got)
	}
}
