package commands_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
	"github.com/hpkeeper/hpkeeper/storage/pgtest"
)

// readySeed replays a run of the randomised tests of the memo of replies.
var readySeed = flag.Uint64("ready.seed", 0, "seed of the memo's randomised tests (0: a new one)")

// seedOf returns the seed of a randomised test, printed so that a failure
// can be replayed with -ready.seed.
func seedOf(t *testing.T) uint64 {
	t.Helper()
	seed := *readySeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (-ready.seed=%d replays it)", seed, seed)
	return seed
}

// freshDB is a store whose service keeps no reply ready: every reply it
// gives is rendered afresh, what a memoized one must equal.
type freshDB struct{ *storage.DB }

// CacheShare gives the service's memo nothing.
func (freshDB) CacheShare() *storage.CacheShare { return &storage.CacheShare{} }

// twins are two services over one database: ready keeps replies ready,
// fresh renders every one.
type twins struct {
	t            *testing.T
	ready, fresh *commands.Service
	db           *storage.DB
	now          time.Time
}

func newTwins(t *testing.T, db *storage.DB, seed uint64) *twins {
	return &twins{t: t, db: db, now: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC),
		ready: commands.New(db, dice.NewRandom(seed), allSystems, commandstest.Features()...),
		fresh: commands.New(freshDB{db}, dice.NewRandom(seed), allSystems, commandstest.Features()...)}
}

// req is the request of line at channel ch by user ('!' first: with
// Manage Channels), a minute after the one before.
func (tw *twins) req(ch, user, line string) *commands.Request {
	tb := &commandstest.Table{T: tw.t, Channel: ch}
	r := tb.Request(user, line)
	tw.now = tw.now.Add(time.Minute)
	r.Now = tw.now
	return r
}

// do runs line through the ready service (a change, or a read whose reply
// is not compared).
func (tw *twins) do(ch, user, line string) *commands.Response {
	return tw.ready.Handle(context.Background(), tw.req(ch, user, line))
}

// read answers line as user from both services and fails the test unless
// the replies are equal, field by field; it returns the ready one.
func (tw *twins) read(ch, user, line string) *commands.Response {
	tw.t.Helper()
	// A GM's first request gives them the GM inbox's results (package
	// gmscreen), once: taken before, so that both replies come without.
	tw.do(ch, user, "/help")
	r := tw.req(ch, user, line)
	r2 := *r
	r2.Options = map[string]string{}
	for k, v := range r.Options {
		r2.Options[k] = v
	}
	got := tw.ready.Handle(context.Background(), r)
	want := tw.fresh.Handle(context.Background(), &r2)
	if !reflect.DeepEqual(got, want) {
		tw.t.Fatalf("%s as %s: kept reply\n%s\nwant the fresh one\n%s", line, user, commandstest.Text(got)+commandstest.FollowUp(got), commandstest.Text(want)+commandstest.FollowUp(want))
	}
	return got
}

// everything is all the text of a reply and its follow-ups: what any
// reader of it reads.
func everything(resp *commands.Response) string {
	var b strings.Builder
	for _, m := range append([]*commands.Response{resp}, resp.FollowUps...) {
		b.WriteString(m.Content + "\n")
		for _, e := range m.Embeds {
			fmt.Fprintf(&b, "%s\n%s\n%s\n%d\n", e.Title, e.Description, e.Footer, e.Color)
			for _, f := range e.Fields {
				b.WriteString(f.Name + ": " + f.Value + "\n")
			}
		}
		for _, row := range m.Components {
			for _, bt := range row {
				b.WriteString(bt.Label + " " + bt.CustomID + "\n")
			}
		}
	}
	return b.String()
}

// readyTable sets up a table of sys at ch: GM gm, players p1 (Ann), p2
// (Bob, and the hidden Spy) and p3 (nothing), and the GM's hidden Orc.
func (tw *twins) readyTable(ch, sys, stats string) {
	tw.t.Helper()
	for _, line := range []string{
		"/table setup system:" + sys,
		`/char create name:Ann owner:p1 stats:"` + stats + `"`,
		`/char create name:Bob owner:p2 stats:"` + stats + `"`,
		`/char create name:Spy owner:p2 stats:"` + stats + ` hidden=true"`,
		`/char create name:Orc stats:"` + stats + ` hidden=true"`,
	} {
		if resp := tw.do(ch, "gm", line); resp.Outcome != commands.OutcomeOK {
			tw.t.Fatalf("%s: %s", line, resp.Content)
		}
	}
}

// readLines are the read-only commands the memo keeps, with the options
// each reads.
var readLines = []string{
	"/char show name:Ann", "/char show name:Spy", "/char show name:Orc", "/char show name:bob", "/char show",
	"/char list", "/table show",
	"/history", "/history page:2", "/history target:Spy", "/history target:Ann", "/history user:p2", "/history before:#3",
}

// readers are the audiences: the GM, a member with Manage Channels, the
// owner of a hidden character, a player, a user with no character.
var readers = []string{"gm", "!mc", "p2", "p1", "p3"}

// TestReadyRepliesAreFresh runs a random game at a table of each system
// and reads every kept command as every audience after each change: a
// reply kept ready equals the one rendered afresh, and is kept at all.
func TestReadyRepliesAreFresh(t *testing.T) {
	seed := seedOf(t)
	rng := rand.New(rand.NewPCG(seed, 29))
	tw := newTwins(t, commandstest.OpenDB(t), seed)
	changes := []string{
		"/damage target:Ann amount:%d", "/damage target:Spy amount:%d", "/damage target:Orc amount:%d",
		"/heal target:Bob amount:%d", `/char set name:Spy stats:"hidden=%s"`, `/char set name:Ann stats:"hidden=%s"`,
		"/table gm user:p1 action:%s", "/undo", "/roll expr:1d20+%d",
	}
	for i, sys := range benchSystems {
		ch := fmt.Sprintf("chan-%d", i)
		tw.readyTable(ch, sys.name, sys.stats)
		for range 12 {
			line := changes[rng.IntN(len(changes))]
			switch {
			case strings.Contains(line, "hidden=%s"):
				line = fmt.Sprintf(line, []string{"true", "false"}[rng.IntN(2)])
			case strings.Contains(line, "action:%s"):
				line = fmt.Sprintf(line, []string{"add", "remove"}[rng.IntN(2)])
			case strings.Contains(line, "%d"):
				line = fmt.Sprintf(line, 1+rng.IntN(4))
			}
			tw.do(ch, "!gm", line)
			for _, who := range readers {
				read := readLines[rng.IntN(len(readLines))]
				tw.read(ch, who, read)
				tw.read(ch, who, read) // kept now, when it could be
			}
		}
		for _, who := range readers {
			for _, read := range readLines {
				tw.read(ch, who, read)
			}
		}
	}
	if st := tw.ready.MemoStats(); st.Hits == 0 || st.Replies == 0 {
		t.Errorf("memo %+v: no reply was kept or served", st)
	}
}

// hiddenNumbers are the words of a hidden character's reply that players
// must not read: its status line (its numbers) from Describe.
func hiddenNumbers(t *testing.T, tw *twins, ch, name string) string {
	t.Helper()
	var status string
	err := tw.db.View(func(tx *storage.Tx) error {
		tab, err := tx.Table(ch)
		if err != nil {
			return err
		}
		c, err := tx.CharacterByName(ch, name)
		if err != nil {
			return err
		}
		sys, err := tw.ready.System(tab.System)
		if err != nil {
			return err
		}
		status, _, err = sys.Describe(c)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return status
}

// TestReadyNeverShowsHidden: for every kept command, a reply rendered for
// a reader who sees the hidden characters (a GM, a Manage Channels member,
// the owner) and kept is never what a player or a user with no character
// reads: they get the fresh reply, without the hidden ones' numbers.
func TestReadyNeverShowsHidden(t *testing.T) {
	seed := seedOf(t)
	for i, sys := range benchSystems {
		t.Run(sys.name, func(t *testing.T) {
			tw := newTwins(t, commandstest.OpenDB(t), seed)
			ch := fmt.Sprintf("chan-%d", i)
			tw.readyTable(ch, sys.name, sys.stats)
			// Hurt the hidden ones until their numbers read unlike the
			// others' (a creation's dice may make them alike).
			var secrets []string
			for try := 0; try < 6 && len(secrets) == 0; try++ {
				tw.do(ch, "gm", "/damage target:Spy amount:1")
				tw.do(ch, "gm", "/damage target:Orc amount:2")
				for _, name := range []string{"Spy", "Orc"} {
					if s := hiddenNumbers(t, tw, ch, name); s != hiddenNumbers(t, tw, ch, "Ann") && s != hiddenNumbers(t, tw, ch, "Bob") {
						secrets = append(secrets, s)
					}
				}
			}
			if len(secrets) == 0 {
				t.Fatal("the hidden characters read as the others: nothing to look for")
			}
			for _, read := range readLines {
				for _, seer := range []string{"gm", "!mc", "p2"} {
					tw.read(ch, seer, read) // kept for the seer
					for _, player := range []string{"p1", "p3"} {
						got := everything(tw.read(ch, player, read))
						for _, s := range secrets {
							if strings.Contains(got, s) {
								t.Errorf("%s as %s after %s read it: reply holds a hidden status %q:\n%s", read, player, seer, s, got)
							}
						}
					}
				}
			}
		})
	}
}

// TestReadyOutlivesNoVersion: a reply kept ready is not served once its
// table changed: a write, then a read, reads the new numbers; so after a
// change that only appends an event, /history shows it.
func TestReadyOutlivesNoVersion(t *testing.T) {
	tw := newTwins(t, commandstest.OpenDB(t), 1)
	testOutlivesNoVersion(t, tw, tw)
}

// TestReadyOutlivesNoVersionReplicas is TestReadyOutlivesNoVersion on
// PostgreSQL with two replicas: one keeps the reply ready, the other
// writes; the first reads the new numbers.
func TestReadyOutlivesNoVersionReplicas(t *testing.T) {
	u := pgtest.NewDatabase(t)
	open := func() *storage.DB {
		db, err := storage.OpenPostgres(u, storage.PostgresOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	testOutlivesNoVersion(t, newTwins(t, open(), 1), newTwins(t, open(), 2))
}

func testOutlivesNoVersion(t *testing.T, reader, writer *twins) {
	t.Helper()
	const ch = "chan-v"
	writer.readyTable(ch, "hp-mp-wp", "hp-max=30 class=fighter con=14")
	card := func(name string) string {
		return everything(reader.read(ch, "p1", "/char show name:"+name))
	}
	list := func() string { return everything(reader.read(ch, "p1", "/char list")) }
	card("Ann")
	list()
	reader.read(ch, "p1", "/table show")
	if !strings.Contains(card("Ann"), " 30/30`") || !strings.Contains(list(), "HP 30/30") {
		t.Fatalf("Ann before: %s", card("Ann"))
	}
	if resp := writer.do(ch, "gm", "/damage target:Ann amount:7"); resp.Outcome != commands.OutcomeOK {
		t.Fatal(resp.Content)
	}
	if got := card("Ann"); !strings.Contains(got, " 23/30`") {
		t.Errorf("Ann's card after 7 damage:\n%s\nwant HP 23/30", got)
	}
	if got := list(); !strings.Contains(got, "HP 23/30") {
		t.Errorf("/char list after 7 damage:\n%s\nwant HP 23/30", got)
	}
	if got := everything(reader.read(ch, "p1", "/table show")); !strings.Contains(got, "HP 23/30") {
		t.Errorf("/table show after 7 damage:\n%s\nwant HP 23/30", got)
	}
	before := everything(reader.read(ch, "p1", "/history"))
	// An event alone, no record changed: on a bbolt file the table's
	// version stays; the newest event is in the page's key.
	err := writer.db.Update(func(tx *storage.Tx) error {
		return tx.AppendEvent(&storage.Event{ChannelID: ch, At: writer.now, UserID: "p1", UserName: "p1",
			Command: "/roll expr:1d20+3", Summary: "A roll of the table's own."})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := everything(reader.read(ch, "p1", "/history")); got == before || !strings.Contains(got, "A roll of the table's own.") {
		t.Errorf("/history after an event:\n%s\nwant the event", got)
	}
	if st := reader.ready.MemoStats(); st.Hits == 0 {
		t.Errorf("memo %+v: nothing served from it", st)
	}
}

// TestStatusIsDescribes: every system's Status says Describe's status,
// word for word, over the states a random game reaches.
func TestStatusIsDescribes(t *testing.T) {
	seed := seedOf(t)
	rng := rand.New(rand.NewPCG(seed, 3))
	for _, sys := range allSystems {
		st, ok := sys.(commands.Statuser)
		if !ok {
			continue
		}
		t.Run(sys.Name(), func(t *testing.T) {
			tw := newTwins(t, commandstest.OpenDB(t), seed)
			const ch = "chan-s"
			stats := ""
			for _, b := range benchSystems {
				if b.name == sys.Name() {
					stats = b.stats
				}
			}
			tw.readyTable(ch, sys.Name(), stats)
			names := []string{"Ann", "Bob", "Spy", "Orc"}
			var lines []string
			for _, o := range sys.Options() {
				if strings.Contains(o.Command, " ") {
					continue
				}
				v := "true"
				if len(o.Values) > 0 {
					v = o.Values[rng.IntN(len(o.Values))]
				}
				lines = append(lines, fmt.Sprintf("/%s %s:%s", o.Command, o.Name, v))
			}
			checked := map[string]bool{}
			for range 200 {
				name := names[rng.IntN(len(names))]
				var line string
				switch rng.IntN(4) {
				case 0:
					line = fmt.Sprintf("/damage target:%s amount:%d", name, rng.IntN(9))
				case 1:
					line = fmt.Sprintf("/heal target:%s amount:%d", name, rng.IntN(9))
				case 2:
					keys := sys.StatKeys()
					line = fmt.Sprintf(`/char set name:%s stats:"%s=%d"`, name, keys[rng.IntN(len(keys))], rng.IntN(16)-2)
				default:
					line = lines[rng.IntN(len(lines))] + " target:" + name
					if rng.IntN(2) == 0 {
						line += fmt.Sprintf(" amount:%d kind:%s", rng.IntN(6), []string{"physical", "short", "long", "night"}[rng.IntN(4)])
					}
				}
				tw.do(ch, "!gm", line)
				err := tw.db.View(func(tx *storage.Tx) error {
					chars, err := tx.Characters(ch)
					for _, c := range chars {
						status, _, err := sys.Describe(c)
						if err != nil {
							return err
						}
						got, err := st.Status(c)
						if err != nil {
							return err
						}
						if got != status {
							t.Errorf("after %s: Status(%s) = %q; Describe's status %q", line, c.Name, got, status)
						}
						checked[status] = true
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(checked) < 6 {
				t.Errorf("only %d statuses reached: %v", len(checked), checked)
			}
		})
	}
}
