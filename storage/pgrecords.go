package storage

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The PostgreSQL side of the seam (seam.go): one channel's rows as
// channelRecords. A transaction reads the channel's row (and, unless the
// state cache holds the row's version, its characters) when it first needs
// the channel, in one round trip, under the row's lock in an Update. Writes
// change the records in memory and queue their statements, which
// pgTx.commit sends with the COMMIT.

var _ channelRecords = (*pgChannel)(nil)

// pgChannel is one channel's records in a pgTx.
type pgChannel struct {
	tx     *pgTx
	chanID string
	// inserted: this transaction inserted the channel's row (to lock a
	// channel that had none); exists: the row exists (or will).
	inserted, exists bool
	// version is the row's version as read (0: no row); next is the one
	// the commit of a write gives it (pgVersion), chosen at the first
	// write.
	version, next int64
	// table is the table record (nil: none); lastChar and lastEvent the
	// sequences.
	table               []byte
	lastChar, lastEvent uint64
	// newest is the seq and form of the newest stored event, as read.
	newest     uint64
	newestForm eventForm
	// chars holds the character records known (read or written; nil: the
	// character is absent); allChars says it holds every one.
	chars    map[uint64][]byte
	allChars bool
	// written are the characters this transaction wrote.
	written map[uint64]bool
	// appended are the events this transaction wrote, by ascending seq.
	appended []pgEvent
	// cached is the state cache's state of the channel, when the row still
	// had its version (the characters were then not read).
	cached *channelState
	// dirty: the transaction changed the channel.
	dirty bool
}

// pgEvent is an event written in the transaction.
type pgEvent struct {
	seq uint64
	d   eventData
}

// channel returns the channel's records in t, reading its row (under its
// lock in an Update, inserting it first when it has none) on first use.
func (t *pgTx) channel(channelID string) (*pgChannel, error) {
	if ch := t.chans[channelID]; ch != nil {
		return ch, nil
	}
	if channelID == "" {
		return nil, errNoChannel
	}
	if strings.IndexByte(channelID, 0) >= 0 || !utf8.ValidString(channelID) {
		return nil, fmt.Errorf("channel %q: %w", channelID, errBadChannel)
	}
	ch := &pgChannel{tx: t, chanID: channelID, chars: map[uint64][]byte{}, written: map[uint64]bool{}}
	known := int64(-1)
	if st := t.s.cache.get(channelID); st != nil {
		ch.cached, known = st, int64(st.version)
	}
	if !t.writable && !t.begun {
		// A View's first read: one statement, one snapshot, no
		// transaction (most Views read nothing else; see upgrade).
		if err := t.loadAlone(ch, known); err != nil {
			return nil, fmt.Errorf("read table %s: %w", channelID, err)
		}
		t.chans[channelID] = ch
		return ch, nil
	}
	b := &pgx.Batch{}
	if t.writable {
		b.Queue(`INSERT INTO tables (channel_id) VALUES ($1) ON CONFLICT (channel_id) DO NOTHING`, channelID).
			Exec(func(ct pgconn.CommandTag) error { ch.inserted = ct.RowsAffected() == 1; return nil })
	}
	lock := ""
	if t.writable {
		lock = " FOR UPDATE"
	}
	b.Queue(`SELECT record, last_character_id, last_event_seq, version FROM tables WHERE channel_id = $1`+lock, channelID).
		Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var lastChar, lastEvent int64
				if err := rows.Scan(&ch.table, &lastChar, &lastEvent, &ch.version); err != nil {
					return err
				}
				ch.exists, ch.lastChar, ch.lastEvent = true, uint64(lastChar), uint64(lastEvent)
			}
			return rows.Err()
		})
	// Statements after the lock see every commit before it: the newest
	// event and the characters (unless the cache has the row's version)
	// are those of the locked row, and the record of the interaction the
	// transaction records there is any committed before.
	if in := t.interaction; in != nil && in.ChannelID == channelID && t.writable {
		t.queueInteraction(b)
	}
	b.Queue(`SELECT seq, form FROM events WHERE channel_id = $1 ORDER BY seq DESC LIMIT 1`, channelID).
		Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var seq int64
				var form int16
				if err := rows.Scan(&seq, &form); err != nil {
					return err
				}
				ch.newest, ch.newestForm = uint64(seq), eventForm(form)
			}
			return rows.Err()
		})
	b.Queue(`SELECT id, record FROM characters WHERE channel_id = $1
		AND (SELECT version FROM tables WHERE channel_id = $1) <> $2 ORDER BY id`, channelID, known).
		Query(func(rows pgx.Rows) error {
			n, err := ch.readChars(rows)
			if err != nil {
				return err
			}
			if n > 0 || ch.cached == nil || ch.version != known {
				// The characters were read (there are none, or the
				// cache's version is not the row's).
				ch.allChars, ch.cached = true, nil
			}
			return nil
		})
	if err := t.send(b); err != nil {
		return nil, fmt.Errorf("read table %s: %w", channelID, err)
	}
	if !ch.exists {
		ch.version = 0
		ch.allChars, ch.cached = true, nil
	}
	t.chans[channelID] = ch
	return ch, nil
}

// loadAlone reads the channel's row, its newest event and (unless the
// cache holds the row's version known) its characters in one statement,
// outside any transaction: a View's first read.
func (t *pgTx) loadAlone(ch *pgChannel, known int64) error {
	b := &pgx.Batch{}
	n := 0
	b.Queue(`SELECT t.record, t.last_character_id, t.last_event_seq, t.version,
		COALESCE(n.seq, 0), COALESCE(n.form, 0), c.id, c.record
		FROM tables t
		LEFT JOIN LATERAL (SELECT seq, form FROM events e WHERE e.channel_id = t.channel_id ORDER BY seq DESC LIMIT 1) n ON true
		LEFT JOIN characters c ON c.channel_id = t.channel_id AND t.version <> $2
		WHERE t.channel_id = $1 ORDER BY c.id`, ch.chanID, known).
		Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var lastChar, lastEvent, newest int64
				var form int16
				var id *int64
				var rec []byte
				if err := rows.Scan(&ch.table, &lastChar, &lastEvent, &ch.version, &newest, &form, &id, &rec); err != nil {
					return err
				}
				ch.exists, ch.lastChar, ch.lastEvent = true, uint64(lastChar), uint64(lastEvent)
				ch.newest, ch.newestForm = uint64(newest), eventForm(form)
				if id != nil {
					ch.chars[uint64(*id)] = rec
					n++
				}
			}
			return rows.Err()
		})
	t.loading = true
	err := t.send(b)
	t.loading = false
	if err != nil {
		return err
	}
	t.alone = true
	if !ch.exists {
		ch.version = 0
	}
	if !ch.exists || n > 0 || ch.cached == nil || ch.version != known {
		ch.allChars, ch.cached = true, nil
	}
	return nil
}

// upgrade queues, ahead of b's statements, the start of the View's
// transaction and the reading again, in its snapshot, of every channel the
// View read alone (loadAlone), its characters included: the records a
// history walk starts from must
// be those of the snapshot its events come from. What the View decoded
// from the first read (its channel states) stays as read, as a bbolt View
// may hold a cached state a commit older than the file its events come
// from (DB.View).
func (t *pgTx) upgrade(b *pgx.Batch) {
	head := &pgx.Batch{}
	head.Queue(t.beginSQL())
	for _, ch := range t.chans {
		ch.exists, ch.table, ch.lastChar, ch.lastEvent, ch.newest, ch.newestForm = false, nil, 0, 0, 0, formNone
		clear(ch.chars)
		ch.allChars = false
		head.Queue(`SELECT t.record, t.last_character_id, t.last_event_seq, t.version,
			COALESCE((SELECT seq FROM events e WHERE e.channel_id = t.channel_id ORDER BY seq DESC LIMIT 1), 0),
			COALESCE((SELECT form FROM events e WHERE e.channel_id = t.channel_id ORDER BY seq DESC LIMIT 1), 0)
			FROM tables t WHERE t.channel_id = $1`, ch.chanID).
			Query(func(rows pgx.Rows) error {
				for rows.Next() {
					var lastChar, lastEvent, newest int64
					var form int16
					if err := rows.Scan(&ch.table, &lastChar, &lastEvent, &ch.version, &newest, &form); err != nil {
						return err
					}
					ch.exists, ch.lastChar, ch.lastEvent = true, uint64(lastChar), uint64(lastEvent)
					ch.newest, ch.newestForm = uint64(newest), eventForm(form)
				}
				return rows.Err()
			})
		// The characters too: a walk of the history reads them.
		head.Queue(`SELECT id, record FROM characters WHERE channel_id = $1 ORDER BY id`, ch.chanID).
			Query(func(rows pgx.Rows) error {
				_, err := ch.readChars(rows)
				ch.allChars = err == nil
				return err
			})
	}
	b.QueuedQueries = append(head.QueuedQueries, b.QueuedQueries...)
}

// state returns the channel's decoded state: the cache's, when the row
// still has its version, else decoded from the rows read (and offered to
// the cache).
func (t *pgTx) state(channelID string) (*channelState, error) {
	ch, err := t.channel(channelID)
	if err != nil {
		return nil, err
	}
	if ch.cached != nil {
		return ch.cached, nil
	}
	st, err := loadState(ch, uint64(ch.version))
	if err != nil {
		return nil, err
	}
	if ch.exists && !ch.inserted {
		t.s.cache.putPG(channelID, st)
	}
	return st, nil
}

func (c *pgChannel) channelID() string { return c.chanID }

func (c *pgChannel) tableRecord() ([]byte, error) { return c.table, nil }

// write marks the channel changed, failing in a read-only transaction.
func (c *pgChannel) write() error {
	if !c.tx.writable {
		return fmt.Errorf("table %s: write in a read-only transaction", c.chanID)
	}
	if c.tx.failed != nil {
		return c.tx.failed
	}
	if !c.dirty {
		c.next = pgNextVersion(c.version)
	}
	c.dirty, c.exists = true, true
	return nil
}

// pgNextVersion returns a new version for a row at version v: a random
// number in 1…2⁶³-1 other than v. A row's version names the state a write
// left, and the state cache uses a state only while the row holds its
// version. A count of writes would not do: when the last writes are lost
// (an asynchronous standby promoted, a dump restored) and others made in
// their place, a row would come back to a count that a replica cached for
// a lost state. A random version is mistaken for a cached one only when a
// write draws the very number the cache holds: 1 in 2⁶³ per write.
func pgNextVersion(v int64) int64 {
	for {
		if n := rand.Int64N(math.MaxInt64) + 1; n != v {
			return n
		}
	}
}

func (c *pgChannel) writeTable(rec []byte) error {
	if err := c.write(); err != nil {
		return err
	}
	c.table = rec
	return nil
}

func (c *pgChannel) removeTable() error {
	if err := c.write(); err != nil {
		return err
	}
	c.table = nil
	return nil
}

// readChars takes the rows of (id, record) into c.chars, but for the
// characters the transaction wrote, and returns how many it read.
func (c *pgChannel) readChars(rows pgx.Rows) (int, error) {
	n := 0
	for rows.Next() {
		var id int64
		var rec []byte
		if err := rows.Scan(&id, &rec); err != nil {
			return n, err
		}
		if !c.written[uint64(id)] {
			c.chars[uint64(id)] = rec
		}
		n++
	}
	return n, rows.Err()
}

// loadChars reads every character record the transaction does not hold.
func (c *pgChannel) loadChars() error {
	if c.allChars {
		return nil
	}
	b := &pgx.Batch{}
	b.Queue(`SELECT id, record FROM characters WHERE channel_id = $1 ORDER BY id`, c.chanID).
		Query(func(rows pgx.Rows) error {
			_, err := c.readChars(rows)
			return err
		})
	if err := c.tx.send(b); err != nil {
		return fmt.Errorf("read characters at table %s: %w", c.chanID, err)
	}
	for id := range c.chars {
		if !c.written[id] && c.chars[id] == nil {
			delete(c.chars, id)
		}
	}
	c.allChars = true
	return nil
}

func (c *pgChannel) characterRecord(id uint64) ([]byte, error) {
	if v, ok := c.chars[id]; ok {
		return v, nil
	}
	if err := c.loadChars(); err != nil {
		return nil, err
	}
	return c.chars[id], nil
}

func (c *pgChannel) eachCharacter(fn func(id uint64, rec []byte) error) error {
	if err := c.loadChars(); err != nil {
		return err
	}
	ids := make([]uint64, 0, len(c.chars))
	for id, v := range c.chars {
		if v != nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := fn(id, c.chars[id]); err != nil {
			return err
		}
	}
	return nil
}

func (c *pgChannel) writeCharacter(id uint64, key, oldKey string, rec []byte) error {
	if err := c.write(); err != nil {
		return err
	}
	if id > math.MaxInt64 {
		return fmt.Errorf("character id %d out of range", id)
	}
	c.chars[id], c.written[id] = rec, true
	c.tx.queue(`INSERT INTO characters (channel_id, id, name_key, record) VALUES ($1, $2, $3, $4)
		ON CONFLICT (channel_id, id) DO UPDATE SET name_key = excluded.name_key, record = excluded.record`,
		c.chanID, int64(id), pgText(key), string(rec))
	return nil
}

func (c *pgChannel) removeCharacter(id uint64, _ string) error {
	if err := c.write(); err != nil {
		return err
	}
	c.chars[id], c.written[id] = nil, true
	c.tx.queue(`DELETE FROM characters WHERE channel_id = $1 AND id = $2`, c.chanID, int64(id))
	return nil
}

func (c *pgChannel) lastID(kind byte) (uint64, error) {
	switch kind {
	case kindCharacter:
		return c.lastChar, nil
	case kindEvent:
		return c.lastEvent, nil
	}
	return 0, fmt.Errorf("no sequence of kind %q", kind)
}

func (c *pgChannel) setLastID(kind byte, n uint64) error {
	if err := c.write(); err != nil {
		return err
	}
	if n > math.MaxInt64 {
		return fmt.Errorf("sequence %d out of range", n)
	}
	switch kind {
	case kindCharacter:
		c.lastChar = n
	case kindEvent:
		c.lastEvent = n
	default:
		return fmt.Errorf("no sequence of kind %q", kind)
	}
	return nil
}

func (c *pgChannel) writeEvent(seq uint64, meta eventMeta, d eventData) error {
	if err := c.write(); err != nil {
		return err
	}
	if seq > math.MaxInt64 {
		return fmt.Errorf("event seq %d out of range", seq)
	}
	js, err := d.decoded()
	if err != nil {
		return err
	}
	d = eventData{form: d.form, json: js}
	c.appended = append(c.appended, pgEvent{seq: seq, d: d})
	c.tx.queue(`INSERT INTO events (channel_id, seq, at, user_id, user_name, command, summary, undo_of, form, record)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		c.chanID, int64(seq), meta.at, pgText(meta.userID), pgText(meta.userName), pgText(meta.command),
		pgText(meta.summary), int64(meta.undoOf), int16(d.form), string(js))
	return nil
}

func (c *pgChannel) eventRecord(seq uint64) (eventData, error) {
	for _, e := range c.appended {
		if e.seq == seq {
			return e.d, nil
		}
	}
	var d eventData
	b := &pgx.Batch{}
	b.Queue(`SELECT form, record FROM events WHERE channel_id = $1 AND seq = $2`, c.chanID, int64(seq)).
		Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var form int16
				if err := rows.Scan(&form, &d.json); err != nil {
					return err
				}
				d.form = eventForm(form)
			}
			return rows.Err()
		})
	if err := c.tx.send(b); err != nil {
		return eventData{}, fmt.Errorf("read event %d at table %s: %w", seq, c.chanID, err)
	}
	return d, nil
}

func (c *pgChannel) newestEvent() (uint64, eventForm, error) {
	if n := len(c.appended); n > 0 {
		return c.appended[n-1].seq, c.appended[n-1].d.form, nil
	}
	return c.newest, c.newestForm, nil
}

// pgEventPages are the sizes of the pages of events eachEventBefore reads,
// one round trip each: a /history page or an /undo usually stops in the
// first.
var pgEventPages = []int{16, 64, 256}

func (c *pgChannel) eachEventBefore(before uint64, fn func(seq uint64, d eventData) (bool, error)) error {
	upper := uint64(math.MaxInt64)
	if before != 0 {
		upper = min(before, upper)
	}
	// The events this transaction wrote are newer than every stored one.
	appended := slices.Clone(c.appended)
	for i := len(appended) - 1; i >= 0; i-- {
		e := appended[i]
		if e.seq >= upper {
			continue
		}
		if more, err := fn(e.seq, e.d); err != nil || !more {
			return err
		}
	}
	if len(appended) > 0 {
		upper = min(upper, appended[0].seq)
	}
	for page := 0; ; page++ {
		size := pgEventPages[min(page, len(pgEventPages)-1)]
		var evs []pgEvent
		b := &pgx.Batch{}
		b.Queue(`SELECT seq, form, record FROM events WHERE channel_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3`,
			c.chanID, int64(upper), size).
			Query(func(rows pgx.Rows) error {
				for rows.Next() {
					var seq int64
					var form int16
					var js []byte
					if err := rows.Scan(&seq, &form, &js); err != nil {
						return err
					}
					evs = append(evs, pgEvent{seq: uint64(seq), d: eventData{form: eventForm(form), json: js}})
				}
				return rows.Err()
			})
		if err := c.tx.send(b); err != nil {
			return fmt.Errorf("walk events at table %s: %w", c.chanID, err)
		}
		for _, e := range evs {
			if more, err := fn(e.seq, e.d); err != nil || !more {
				return err
			}
		}
		if len(evs) < size {
			return nil
		}
		upper = evs[len(evs)-1].seq
	}
}

// queueRow queues the update of the channel's row: its table record (and
// the guild and system an operator reads from it), its sequences and its
// version.
func (c *pgChannel) queueRow(b *pgx.Batch) {
	var guild, system *string
	var rec *string
	if c.table != nil {
		var t struct {
			GuildID string `json:"guild_id"`
			System  string `json:"system"`
		}
		if json.Unmarshal(c.table, &t) == nil {
			guild, system = &t.GuildID, &t.System
		}
		s := string(c.table)
		rec = &s
	}
	b.Queue(`UPDATE tables SET record = $2, guild_id = COALESCE($3, guild_id), system = $4,
		last_character_id = $5, last_event_seq = $6, version = $7 WHERE channel_id = $1`,
		c.chanID, rec, guild, system, int64(c.lastChar), int64(c.lastEvent), c.next)
}

// pgText returns s as a TEXT column holds it: PostgreSQL refuses the 0x00
// byte and bytes that are not UTF-8, which become U+FFFD (the record's own
// JSON keeps them escaped, exactly).
func pgText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(storedString(s), "\x00", "\uFFFD")
}

// pgChannelPage is how many channels' rows eachChannel reads a round trip.
var pgChannelPage = 500

// eachChannel calls fn with every channel that has a row, in byte order of
// their ids, its characters read when fn asks for them. It reads the ids
// of every channel first, then the rows pgChannelPage at a time: what it
// holds at once is the ids and one page of records, not every table's.
func (t *pgTx) eachChannel(fn func(ch channelRecords) error) error {
	var ids []string
	b := &pgx.Batch{}
	b.Queue(`SELECT channel_id FROM tables`).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err := t.send(b); err != nil {
		return fmt.Errorf("list tables: %w", err)
	}
	slices.Sort(ids) // byte order, whatever the database's collation
	for len(ids) > 0 {
		page := ids[:min(len(ids), pgChannelPage)]
		ids = ids[len(page):]
		read := make(map[string]*pgChannel, len(page))
		b := &pgx.Batch{}
		b.Queue(`SELECT t.channel_id, t.record, t.last_character_id, t.last_event_seq, t.version,
			COALESCE((SELECT seq FROM events e WHERE e.channel_id = t.channel_id ORDER BY seq DESC LIMIT 1), 0),
			COALESCE((SELECT form FROM events e WHERE e.channel_id = t.channel_id ORDER BY seq DESC LIMIT 1), 0)
			FROM tables t WHERE t.channel_id = ANY($1)`, page).
			Query(func(rows pgx.Rows) error {
				for rows.Next() {
					ch := &pgChannel{tx: t, exists: true, chars: map[uint64][]byte{}, written: map[uint64]bool{}}
					var lastChar, lastEvent, newest int64
					var form int16
					if err := rows.Scan(&ch.chanID, &ch.table, &lastChar, &lastEvent, &ch.version, &newest, &form); err != nil {
						return err
					}
					ch.lastChar, ch.lastEvent = uint64(lastChar), uint64(lastEvent)
					ch.newest, ch.newestForm = uint64(newest), eventForm(form)
					read[ch.chanID] = ch
				}
				return rows.Err()
			})
		if err := t.send(b); err != nil {
			return fmt.Errorf("list tables: %w", err)
		}
		for _, id := range page {
			ch := read[id]
			if cur := t.chans[id]; cur != nil {
				ch = cur // what this transaction has read or written of it
			}
			if ch == nil {
				continue // gone since the ids were read
			}
			if err := fn(ch); err != nil {
				return err
			}
		}
	}
	return nil
}
