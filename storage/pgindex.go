package storage

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The history's index in PostgreSQL (index.go; schema version 6,
// pgschema.go): an event's entry is its row's user_id, undo_of and flags
// columns, and its characters are rows of event_characters; indexes on
// (channel_id, user_id, seq), on (channel_id, undo_of) and the key of
// event_characters, (channel_id, character_id, seq), find them. The
// entries of the events a transaction appended are in memory until its
// COMMIT sends them.

// pgEntryPages are the sizes of the pages of entries eachEntryBefore
// reads, one round trip each.
var pgEntryPages = []int{64, 512}

func (c *pgChannel) writeEntry(en EventEntry) error {
	if !c.tx.writable {
		return fmt.Errorf("table %s: write in a read-only transaction", c.chanID)
	}
	c.tx.queue(`UPDATE events SET flags = $3 WHERE channel_id = $1 AND seq = $2`, c.chanID, int64(en.Seq), int16(en.Flags))
	c.queueCharacters(en)
	return nil
}

// queueCharacters queues the rows of event_characters of en.
func (c *pgChannel) queueCharacters(en EventEntry) {
	if len(en.Characters) == 0 {
		return
	}
	ids := make([]int64, len(en.Characters))
	changed := make([]bool, len(en.Characters))
	for i, id := range en.Characters {
		ids[i] = int64(min(id, math.MaxInt64))
		changed[i] = slices.Contains(en.Changed, id)
	}
	c.tx.queue(`INSERT INTO event_characters (channel_id, character_id, seq, changed)
		SELECT $1, u.id, $3, u.changed FROM unnest($2::BIGINT[], $4::BOOLEAN[]) AS u (id, changed)`,
		c.chanID, ids, int64(en.Seq), changed)
}

func (c *pgChannel) eachEntryBefore(before uint64, f EntryFilter, fn func(EventEntry) (bool, error)) error {
	upper := uint64(math.MaxInt64)
	if before != 0 {
		upper = min(before, upper)
	}
	f.UserID = pgText(f.UserID) // as user_id holds it
	// The entries of the events this transaction appended are the newest.
	appended := slices.Clone(c.appended)
	// undoneHere returns the seq of the event appended here that undid
	// event seq, 0 for none.
	undoneHere := func(seq uint64) uint64 {
		for i := len(appended) - 1; i >= 0; i-- {
			if appended[i].entry.UndoOf == seq {
				return appended[i].seq
			}
		}
		return 0
	}
	for i := len(appended) - 1; i >= 0; i-- {
		en := appended[i].entry
		if en.Seq >= upper || !f.keeps(en) {
			continue
		}
		en.UndoneBy = undoneHere(en.Seq)
		if more, err := fn(en); err != nil || !more {
			return err
		}
	}
	if len(appended) > 0 {
		upper = min(upper, appended[0].seq)
	}
	from, where := `events e`, []string{`e.channel_id = $1`, `e.seq < $2`}
	args := []any{c.chanID, int64(upper)}
	if f.CharacterID != 0 {
		from = `event_characters k JOIN events e ON e.channel_id = k.channel_id AND e.seq = k.seq`
		where = []string{`k.channel_id = $1`, `k.seq < $2`, fmt.Sprintf(`k.character_id = $%d`, len(args)+1)}
		args = append(args, int64(min(f.CharacterID, math.MaxInt64)))
	}
	if f.ByUser {
		where = append(where, fmt.Sprintf(`e.user_id = $%d`, len(args)+1))
		args = append(args, pgText(f.UserID))
	}
	if f.SystemChanges {
		where = append(where, fmt.Sprintf(`e.flags & %d <> 0`, EntrySystemChanged))
	}
	q := `SELECT e.seq, e.user_id, e.undo_of, e.flags,
		ARRAY(SELECT c.character_id FROM event_characters c WHERE c.channel_id = e.channel_id AND c.seq = e.seq ORDER BY c.character_id),
		ARRAY(SELECT c.character_id FROM event_characters c WHERE c.channel_id = e.channel_id AND c.seq = e.seq AND c.changed ORDER BY c.character_id),
		COALESCE((SELECT MAX(u.seq) FROM events u WHERE u.channel_id = e.channel_id AND u.undo_of = e.seq), 0)
		FROM ` + from + ` WHERE ` + strings.Join(where, " AND ") + fmt.Sprintf(` ORDER BY e.seq DESC LIMIT $%d`, len(args)+1)
	for page := 0; ; page++ {
		size := pgEntryPages[min(page, len(pgEntryPages)-1)]
		var ens []EventEntry
		b := &pgx.Batch{}
		b.Queue(q, append(args, size)...).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var seq, undoOf, undoneBy int64
				var flags int16
				var en EventEntry
				var chars, changed []int64
				if err := rows.Scan(&seq, &en.UserID, &undoOf, &flags, &chars, &changed, &undoneBy); err != nil {
					return err
				}
				for _, id := range changed {
					en.Changed = append(en.Changed, uint64(id))
				}
				en.Seq, en.UndoOf, en.Flags, en.UndoneBy = uint64(seq), uint64(undoOf), EntryFlags(flags), uint64(undoneBy)
				if by := undoneHere(en.Seq); by != 0 {
					en.UndoneBy = by
				}
				for _, id := range chars {
					en.Characters = append(en.Characters, uint64(id))
				}
				ens = append(ens, en)
			}
			return rows.Err()
		})
		if err := c.tx.send(b); err != nil {
			return err
		}
		for _, en := range ens {
			if more, err := fn(en); err != nil || !more {
				return err
			}
		}
		if len(ens) < size {
			return nil
		}
		args[1] = int64(ens[len(ens)-1].Seq)
	}
}

func (c *pgChannel) undoneBy(seq uint64) (uint64, error) {
	for i := len(c.appended) - 1; i >= 0; i-- {
		if c.appended[i].entry.UndoOf == seq {
			return c.appended[i].seq, nil
		}
	}
	var by int64
	b := &pgx.Batch{}
	b.Queue(`SELECT COALESCE(MAX(seq), 0) FROM events WHERE channel_id = $1 AND undo_of = $2`, c.chanID, int64(min(seq, math.MaxInt64))).
		QueryRow(func(row pgx.Row) error { return row.Scan(&by) })
	if err := c.tx.send(b); err != nil {
		return 0, err
	}
	return uint64(by), nil
}

func (c *pgChannel) indexSize() (indexCount, error) {
	var users, chars, undone int64
	b := &pgx.Batch{}
	b.Queue(`SELECT (SELECT count(*) FROM events WHERE channel_id = $1),
		(SELECT count(*) FROM event_characters WHERE channel_id = $1),
		(SELECT count(DISTINCT undo_of) FROM events WHERE channel_id = $1 AND undo_of <> 0)`, c.chanID).
		QueryRow(func(row pgx.Row) error { return row.Scan(&users, &chars, &undone) })
	if err := c.tx.send(b); err != nil {
		return indexCount{}, err
	}
	n := indexCount{users: int(users), characters: int(chars), undone: int(undone)}
	for _, e := range c.appended {
		n.users++
		n.characters += len(e.entry.Characters)
		if e.entry.UndoOf != 0 {
			n.undone++
		}
	}
	return n, nil
}

func (c *pgChannel) eventSizes(low, high uint64, fn func(seq uint64, form eventForm, size int) error) error {
	for i := len(c.appended) - 1; i >= 0; i-- {
		e := c.appended[i]
		if e.seq < low || e.seq > high {
			continue
		}
		if err := fn(e.seq, e.d.form, len(e.d.json)); err != nil {
			return err
		}
	}
	type size struct {
		seq  uint64
		form eventForm
		n    int
	}
	var sizes []size
	b := &pgx.Batch{}
	b.Queue(`SELECT seq, form, octet_length(record) FROM events WHERE channel_id = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq DESC`,
		c.chanID, int64(min(low, math.MaxInt64)), int64(min(high, math.MaxInt64))).
		Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var seq, n int64
				var form int16
				if err := rows.Scan(&seq, &form, &n); err != nil {
					return err
				}
				sizes = append(sizes, size{uint64(seq), eventForm(form), int(n)})
			}
			return rows.Err()
		})
	if err := c.tx.send(b); err != nil {
		return fmt.Errorf("sizes of events at table %s: %w", c.chanID, err)
	}
	for _, s := range sizes {
		if err := fn(s.seq, s.form, s.n); err != nil {
			return err
		}
	}
	return nil
}
