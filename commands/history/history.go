// Package history is the history feature of the commands kernel (RULES.md
// §0.5): /history shows the table's events, newest first, with who, what
// and every die, a page at a time, as players may see them (a hidden
// character's event by its word; a GM gets it in full, privately); /undo
// reverts the latest event the caller may change, exactly, and refuses a
// press on a choice button whose event it undid.
package history

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Feature is /history and /undo.
type Feature struct{}

var (
	_ commands.Feature = Feature{}
	_ commands.Wrapper = Feature{}
)

// Cost is what a /history page or an /undo costs from the caller's work
// allowance besides the events it reads, in units: looking in the index
// and writing the reply. The events it reads are paid for before they are
// read, one unit per 32 KiB of their JSON parsed (cost.go).
const Cost = 2

// Register adds /history and /undo.
func (Feature) Register(g *commands.Registry) {
	g.Add(&commands.Command{
		Name: "history", Description: "Recent events with who, what and dice", Handler: history, Cost: commands.FixedCost(Cost),
		Topic: "`/history` shows the latest events, newest first, ten a page; `page:2` the next ten, or `before:#12` the ten before event #12 (each page ends with the command for the next). `target:` keeps the events that touched a character, `user:` those a user made.",
		Options: []commands.Option{
			{Name: "target", Description: "Only events touching this character", Type: commands.OptionString, Autocomplete: true, MaxLength: 32},
			{Name: "user", Description: "Only events this user made", Type: commands.OptionUser},
			{Name: "before", Description: "Only events before this one, e.g. #12", Type: commands.OptionString, MaxLength: 20},
			{Name: "page", Description: "Page 1 is the latest ten events, page 2 the ten before them, …", Type: commands.OptionInteger, MinValue: 1, MaxValue: maxHistoryPage},
		},
	})
	g.Add(&commands.Command{
		Name: "undo", Description: "Revert the latest event you may change", Handler: undo, Cost: commands.FixedCost(Cost),
		Topic: "`/undo` reverts the most recent event at the table that you may change (a GM: any), restoring every touched character exactly; dice are never rerolled. It asks before it deletes a character it created, and never reverts past a later event on the same character: it says which event stands in the way and who can undo it.",
	})
	g.Component(undoPrefix, confirmUndo)
}

// historyLimit is how many events a /history page shows; historyWindow is
// how many entries of the index one page looks through for its filters
// (past it, the page ends with the command that looks further back);
// pageUnits is the most a page reads, in work units: a page whose events
// would parse more shows fewer (at least one), and ends with the command
// for the rest.
const (
	historyLimit  = 10
	historyWindow = 1000
	pageUnits     = commands.WorkBurst / 4
	// maxHistoryPage bounds page:.
	maxHistoryPage = 100
)

// history answers /history (RULES.md §0.5): the events at the table, newest
// first, with who, what and every die, a page at a time: the latest, the
// page:N-th, or those before:#N. target keeps the events that touched that
// character, user those that user made. A page that does not hold every
// older event ends with the same line, the command that shows the next
// page: "Older events: /history before:#12".
//
// The page's events are chosen in the history's index (by character, by
// user, or all; storage.Tx.EventEntries), and only they are read, once the
// caller has paid for what reading them parses (cost.go).
func history(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	before, err := historyBefore(r)
	if err != nil {
		return nil, err
	}
	skip := 0
	if p, ok := r.Options["page"]; ok {
		if before != 0 {
			return nil, commands.Errorf(commands.CodeInvalid, "Give before or page, not both: page:2 is the page after the latest, before:#N the page of the events before #N.")
		}
		n, _ := strconv.Atoi(p)
		skip = (n - 1) * historyLimit
	}
	var resp *commands.Response
	err = s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		// A page is the same for every player, and for every GM: kept
		// ready (Service.Memoized) until the table or its history moves.
		newest, err := tx.LastEventSeq(r.ChannelID)
		if err != nil {
			return err
		}
		resp, err = s.Memoized(ctx, tx, r, pageKey(r, commands.IsGM(r, t), newest), func() (commands.Ready, error) {
			var paid []storage.ReadSize
			resp, err := page(s, r, tx, t, before, skip, func(size storage.ReadSize) error {
				if err := pay(ctx, s, r, pageRead, size); err != nil {
					return err
				}
				paid = append(paid, size)
				return nil
			})
			if err != nil {
				return commands.Ready{}, err
			}
			// A page read from a snapshot whose history moved past newest
			// (PostgreSQL's View reads its events in a later one) is not
			// kept under newest.
			now, err := tx.LastEventSeq(r.ChannelID)
			again := func(ctx context.Context, s *commands.Service, r *commands.Request) error {
				for _, size := range paid {
					if err := pay(ctx, s, r, pageRead, size); err != nil {
						return err
					}
				}
				return nil
			}
			return commands.Ready{Response: resp, Again: again, Once: now != newest}, err
		})
		return err
	})
	return resp, err
}

// pageRead is what a /history page's payment for its reads names (pay).
const pageRead = "this /history page"

// pageKey is the memo's key words of a /history page (Service.Memoized):
// besides the table's state, a page depends on the options it reads, as
// given (its last line repeats them), on whether a GM reads it, and on
// the newest event.
func pageKey(r *commands.Request, gm bool, newest uint64) string {
	b := []byte("history ")
	b = strconv.AppendUint(b, newest, 10)
	b = strconv.AppendBool(b, gm)
	for _, name := range []string{"target", "user", "before", "page"} {
		if v, ok := r.Options[name]; ok {
			b = append(b, ' ')
			b = append(b, name...)
			b = strconv.AppendQuote(b, v)
		}
	}
	return string(b)
}

// page renders a /history page (history) at table t read in tx, paying
// for what it reads with pay.
func page(s *commands.Service, r *commands.Request, tx *storage.Tx, t *storage.Table, before uint64, skip int, pay func(storage.ReadSize) error) (*commands.Response, error) {
	var resp *commands.Response
	sys, err := s.System(t.System)
	if err != nil {
		return nil, err
	}
	g := s.Registry()
	hid, err := hiddenIDs(tx, r.ChannelID)
	if err != nil {
		return nil, err
	}
	// A player's target: keeps the events players read about that
	// character (a hidden one's: those that name it or change its
	// word); a GM's target: of a hidden character keeps every event
	// about it, timers that changed nothing included, and answers the
	// GM alone, as even which events it keeps would tell players.
	var f storage.EntryFilter
	var target uint64
	private := false
	if name, ok := r.Options["target"]; ok {
		c, err := commands.CharacterByName(tx, r.ChannelID, name)
		if err != nil {
			return nil, err
		}
		private = c.Hidden && commands.IsGM(r, t)
		target, f.CharacterID = c.ID, c.ID // the index's: every event about it
	}
	user, byUser := r.Options["user"], false
	if user != "" {
		if f.CharacterID != 0 {
			byUser = true // looked for among the character's, within the window
		} else {
			f.ByUser, f.UserID = true, user
		}
	}
	// The index finds the events about the target; whether players
	// read one as about it is known without reading it unless the
	// event holds something hidden, or the target is hidden now.
	sure := func(en storage.EventEntry) bool {
		return target == 0 || private || !hid[target] && !en.Has(storage.EntryHidden)
	}
	var cands []candidate
	sures, looked, lastLooked, windowed := 0, 0, uint64(0), false
	err = tx.EventEntries(r.ChannelID, f, before, func(en storage.EventEntry) (bool, error) {
		looked++
		lastLooked = en.Seq
		if !byUser || en.UserID == user {
			cands = append(cands, candidate{seq: en.Seq, sure: sure(en)})
			if cands[len(cands)-1].sure {
				sures++
			}
		}
		if sures > skip+historyLimit {
			return false, nil
		}
		if looked >= historyWindow {
			windowed = true
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	about := func(e *storage.Event) bool { return seenAbout(e, target, sys, t.Clock, hid) }
	matches, read, decided, err := choosePage(r, tx, cands, skip+historyLimit+1, about, pay)
	if err != nil {
		return nil, err
	}
	more := windowed || len(matches) > skip+historyLimit || decided < len(cands)
	seqs := matches[min(skip, len(matches)):min(skip+historyLimit, len(matches))]
	if len(seqs) == 0 {
		resp = &commands.Response{Content: "No events here" + historyScope(r, before) + ".", Ephemeral: private}
		if more {
			last := lastLooked
			if decided < len(cands) && decided > 0 {
				last = cands[decided-1].seq
			}
			resp.Content = fmt.Sprintf("No events here%s among the %d looked through.\n%s", historyScope(r, before), looked, olderLine(r, last))
		}
		return resp, nil
	}
	// The page's events are paid for, then read (those choosePage has
	// not read already): as many as fit in pageUnits, at least one.
	var unread []uint64
	for _, seq := range seqs {
		if read[seq] == nil {
			unread = append(unread, seq)
		}
	}
	plan, err := tx.PlanEvents(r.ChannelID, unread)
	if err != nil {
		return nil, err
	}
	for len(unread) > 1 && plan.Size().Units() > pageUnits {
		unread = unread[:len(unread)-1]
		if plan, err = tx.PlanEvents(r.ChannelID, unread); err != nil {
			return nil, err
		}
	}
	if len(unread) > 0 {
		if err := pay(plan.Size()); err != nil {
			return nil, err
		}
		if err := tx.ReadEvents(plan, func(e *storage.Event) error { read[e.Seq] = e; return nil }); err != nil {
			return nil, err
		}
	}
	var shown []*storage.Event
	for _, seq := range seqs {
		e := read[seq]
		if e == nil {
			more = true // cut to pageUnits: the rest on the next page
			break
		}
		shown = append(shown, e)
	}
	// Players read hidden characters' words; a GM gets those events
	// in full privately.
	lines := []string{"**History** (newest first)"}
	var hidden []string
	for _, e := range shown {
		switch {
		case private:
			lines = append(lines, renderEvent(e))
		case eventHidden(g, e, hid):
			hidden = append(hidden, renderEvent(e))
			fallthrough
		default:
			lines = append(lines, renderEventFor(g, e, sys, t.Clock, hid))
		}
	}
	if more {
		lines = append(lines, olderLine(r, shown[len(shown)-1].Seq))
	}
	// Each event whole in one message where it fits: a long page
	// continues in follow-ups.
	resp = commands.Blocks(lines)
	resp.Ephemeral = private
	if len(hidden) > 0 {
		resp = commands.ForGM(r, t, resp, commands.Blocks(hidden))
	}
	return resp, nil
}

// candidate is an event the index found for a /history page: sure when
// it belongs on the page without being read.
type candidate struct {
	seq  uint64
	sure bool
}

// choosePage returns the seqs of the first need candidates (newest first)
// that belong on a page: the sure ones, and those about keeps once read;
// the events it read, by seq; and how many candidates it decided. It reads
// the others up to historyLimit at a time, each batch paid for first
// (pay), and stops deciding before what it reads would pass pageUnits.
func choosePage(r *commands.Request, tx *storage.Tx, cands []candidate, need int, about func(*storage.Event) bool, pay func(storage.ReadSize) error) (matches []uint64, read map[uint64]*storage.Event, decided int, err error) {
	read = map[uint64]*storage.Event{}
	spent := 0
	for ; decided < len(cands) && len(matches) < need; decided++ {
		c := cands[decided]
		if !c.sure && read[c.seq] == nil {
			var batch []uint64
			for _, n := range cands[decided:] {
				if !n.sure && len(batch) < historyLimit {
					batch = append(batch, n.seq)
				}
			}
			plan, err := tx.PlanEvents(r.ChannelID, batch)
			for err == nil && len(batch) > 1 && spent+plan.Size().Units() > pageUnits {
				batch = batch[:len(batch)-1]
				plan, err = tx.PlanEvents(r.ChannelID, batch)
			}
			if err != nil {
				return nil, nil, 0, err
			}
			if spent > 0 && spent+plan.Size().Units() > pageUnits {
				return matches, read, decided, nil // the rest on the next page
			}
			if err := pay(plan.Size()); err != nil {
				return nil, nil, 0, err
			}
			spent += plan.Size().Units()
			if err := tx.ReadEvents(plan, func(e *storage.Event) error { read[e.Seq] = e; return nil }); err != nil {
				return nil, nil, 0, err
			}
		}
		if e := read[c.seq]; c.sure || e != nil && about(e) {
			matches = append(matches, c.seq)
		}
	}
	return matches, read, decided, nil
}

// historyBefore reads the before option: an event number, "#12" or "12";
// 0 when absent.
func historyBefore(r *commands.Request) (uint64, error) {
	v, ok := r.Options["before"]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(v), "#"), 10, 64)
	if err != nil || n == 0 {
		return 0, commands.Errorf(commands.CodeInvalid, "before takes an event number as /history shows it, e.g. before:#12 (got %q).", commands.Clip(v, 20))
	}
	return n, nil
}

// olderLine is the last line of a /history page that does not hold every
// older event: the command, with the page's filters, that shows the events
// before #seq.
func olderLine(r *commands.Request, seq uint64) string {
	cmd := fmt.Sprintf("/history before:#%d", seq)
	if name, ok := r.Options["target"]; ok {
		cmd += " target:" + name
	}
	if user, ok := r.Options["user"]; ok {
		cmd += " user:" + commands.Mention(user)
	}
	return "Older events: " + commands.CodeSpan(cmd)
}

// historyScope says which events an empty /history page looked for.
func historyScope(r *commands.Request, before uint64) string {
	var parts []string
	if name, ok := r.Options["target"]; ok {
		parts = append(parts, "touching "+commands.Escape(name))
	}
	if user, ok := r.Options["user"]; ok {
		parts = append(parts, "by "+commands.Mention(user))
	}
	if before != 0 {
		parts = append(parts, fmt.Sprintf("before #%d", before))
	}
	if p, ok := r.Options["page"]; ok && p != "1" {
		parts = append(parts, "on page "+p)
	}
	if len(parts) == 0 {
		return " yet"
	}
	return " " + strings.Join(parts, ", ")
}

// touches reports whether e is about character id: it changed it, or a
// part of it is about it (a timer that fired and changed nothing, such as
// a save that keeps a character dying).
func touches(e *storage.Event, id uint64) bool {
	return slices.ContainsFunc(e.Changes, func(c storage.Change) bool { return c.CharacterID == id }) ||
		slices.ContainsFunc(e.Parts, func(p storage.EventPart) bool { return slices.Contains(p.Characters, id) })
}

// seenAbout reports whether players read e as about character id: a part
// they may read is about it, or e changed it and they read that (a hidden
// character's change when it is worded).
func seenAbout(e *storage.Event, id uint64, sys commands.System, now int64, hid map[uint64]bool) bool {
	return slices.ContainsFunc(e.Changes, func(ch storage.Change) bool {
		return ch.CharacterID == id && (!changeHidden(ch, hid) || worded(e, ch, sys, now))
	}) || slices.ContainsFunc(e.Parts, func(p storage.EventPart) bool { return slices.Contains(p.Characters, id) && !partHidden(p, hid) })
}

// hiddenIDs returns the ids of the channel's characters hidden now: an
// event about one shows players its word only, even one written before it
// was hidden (its creation's numbers were shown then; they are no longer).
func hiddenIDs(tx *storage.Tx, channelID string) (map[uint64]bool, error) {
	chars, err := tx.Characters(channelID)
	hid := map[uint64]bool{}
	for _, c := range chars {
		if c.Hidden {
			hid[c.ID] = true
		}
	}
	return hid, err
}

// renderEvent renders one event for /history: number, time (a Discord
// timestamp, in each reader's own time zone), who, the command, the dice
// its summary does not show, and the summary.
func renderEvent(e *storage.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "`#%d` %s · %s · %s", e.Seq, commands.Timestamp(e.At), commands.Escape(e.UserName), commands.Escape(e.Command))
	if dice := commands.Unshown(e.Summary, e.Dice); len(dice) > 0 {
		b.WriteString("\n   dice: " + strings.Join(dice, "; "))
	}
	if e.Summary != "" {
		for _, line := range strings.Split(e.Summary, "\n") {
			b.WriteString("\n   " + commands.Escape(line))
		}
	}
	return b.String()
}

// eventHidden reports whether e touched a character hidden then or now
// (hid), or a feature says it shows one's numbers (Registry.HidesEvent:
// the turn order's entry of a hidden combatant, whose roll an event
// written before events had parts keeps in its summary).
func eventHidden(g *commands.Registry, e *storage.Event, hid map[uint64]bool) bool {
	if g.HidesEvent(e) {
		return true
	}
	if slices.ContainsFunc(e.Changes, func(ch storage.Change) bool { return changeHidden(ch, hid) }) {
		return true
	}
	return slices.ContainsFunc(e.Parts, func(p storage.EventPart) bool { return partHidden(p, hid) })
}

// changeHidden reports whether players read ch's character by its word:
// it was hidden before or after the change, or is hidden now.
func changeHidden(ch storage.Change, hid map[uint64]bool) bool {
	return ch.Before != nil && ch.Before.Hidden || ch.After != nil && ch.After.Hidden || hid[ch.CharacterID]
}

// partHidden reports whether players may not read p: it was hidden when
// written, or every character it is about is hidden now.
func partHidden(p storage.EventPart, hid map[uint64]bool) bool {
	return p.Hidden || len(p.Characters) > 0 && !slices.ContainsFunc(p.Characters, func(id uint64) bool { return !hid[id] })
}

// worded reports whether players read the word of ch's hidden character
// after e (hidden.go's rule): e named it, made or removed it, or changed
// its word; never because its timers fired or its hidden state changed.
func worded(e *storage.Event, ch storage.Change, sys commands.System, now int64) bool {
	if ch.Before == nil || ch.After == nil || named(e.Command, ch.Name) {
		return true
	}
	was, err1 := commands.ViewOf(sys, ch.Before, now)
	is, err2 := commands.ViewOf(sys, ch.After, now)
	return err1 != nil || err2 != nil || was.Public() != is.Public()
}

// named reports whether a command line as typed (or a press, "pressed
// [Stay Up] for Goblin") names name as an option's value, or one of a
// list's: preceded by ':', '"', ',', ' ' and followed by the end of the
// line, '"', ',' or ' ' (ignoring case).
func named(line, name string) bool {
	l, n := strings.ToLower(line), strings.ToLower(name)
	for i := 0; n != ""; {
		j := strings.Index(l[i:], n)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(n)
		if j > 0 && strings.ContainsRune(`:", `, rune(l[j-1])) && (end == len(l) || strings.ContainsRune(`", `, rune(l[end]))) {
			return true
		}
		i = j + 1
	}
	return false
}

// commandName is the command of a line as typed without its options (whose
// values may be a hidden character's numbers): "/table setup".
func commandName(line string) string {
	if rest, ok := strings.CutPrefix(line, "pressed ["); ok { // a button press (Request.Line)
		if label, _, ok := strings.Cut(rest, "]"); ok {
			return "pressed [" + label + "]"
		}
	}
	fields := strings.Fields(line)
	cmd := ""
	for i, f := range fields {
		if i > 1 || strings.Contains(f, ":") {
			break
		}
		cmd = strings.TrimSpace(cmd + " " + f)
	}
	return cmd
}

// renderEventFor renders e for /history as a player sees it: in full when
// it touched no character hidden then or now (hid); otherwise the command
// without its options, the parts about characters the player may see with
// their dice, and the word after the event of each hidden character that
// is worded (events written before parts existed, or before their
// character was hidden: only the words).
func renderEventFor(g *commands.Registry, e *storage.Event, sys commands.System, now int64, hid map[uint64]bool) string {
	if !eventHidden(g, e, hid) {
		return renderEvent(e)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`#%d` %s · %s · %s", e.Seq, commands.Timestamp(e.At), commands.Escape(e.UserName), commands.Escape(commandName(e.Command)))
	var hidden []uint64
	for _, p := range e.Parts {
		if partHidden(p, hid) {
			hidden = append(hidden, p.Characters...)
			continue
		}
		if dice := commands.Unshown(p.Summary, p.Dice); len(dice) > 0 {
			b.WriteString("\n   dice: " + strings.Join(dice, "; "))
		}
		for _, line := range strings.Split(p.Summary, "\n") {
			if line != "" {
				b.WriteString("\n   " + commands.Escape(line))
			}
		}
	}
	var words []string
	for _, ch := range e.Changes {
		if len(e.Parts) > 0 && (!changeHidden(ch, hid) || !slices.Contains(hidden, ch.CharacterID)) || !worded(e, ch, sys, now) {
			continue // an event with parts: its visible characters' parts are shown above
		}
		if ch.After == nil {
			words = append(words, commands.Escape(ch.Name)+": gone")
			continue
		}
		if v, err := commands.ViewOf(sys, ch.After, now); err == nil {
			words = append(words, commands.Escape(ch.Name)+": "+v.Public().Text)
		}
	}
	if len(words) > 0 {
		b.WriteString("\n   " + strings.Join(words, "; "))
	}
	return b.String()
}
