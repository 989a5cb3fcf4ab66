package commands

import (
	"context"
	"slices"

	"github.com/hpkeeper/hpkeeper/commands/memo"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Replies kept ready (commands/memo): a read-only command renders its
// reply once per version of its table's state and audience, and answers
// from the memo while neither changed. The key is what the reply depends
// on and nothing more: the table's version (storage.Tx.Version, read in
// the View that reads the state), the command and the options it reads,
// and who reads it as far as the reply tells them apart (a GM, the owner
// of the hidden characters it shows, anyone else), so that no reader gets
// what another must not see and a player's reply is shared by every
// player it is the same for. What is not the table's state nor in the
// key (the GM inbox, the caller's work allowance, the clock) is left to
// the steps around the handler, which run for every request, or redone
// (Ready.Again).

// Ready is a reply the memo keeps (Service.Memoized).
type Ready struct {
	// Response is the reply as rendered; the memo keeps a copy, which
	// nothing changes, and answers with copies of it.
	Response *Response
	// Again, when set, runs before a kept reply answers again, as the
	// rendering did for the caller: a /history page pays for the events it
	// read. Its error is the answer.
	Again func(ctx context.Context, s *Service, r *Request) error
	// Once: the reply is not kept (it holds what its key does not say).
	Once bool
}

// memoFor returns the memo of replies over db: a share of its state
// cache's budget (storage.CacheShare), or nil (none) for a store without
// one.
func memoFor(db Store) *memo.Memo[Ready] {
	sh, ok := db.(interface{ CacheShare() *storage.CacheShare })
	if !ok {
		return nil
	}
	share := sh.CacheShare()
	return memo.New[Ready](share.Limit(), share.Charge)
}

// Memoized answers r, a read-only request at its table read in tx (a
// View), with the reply kept for what, the words that say all it depends on
// besides the table's state (see above), when the memo holds one at the
// version tx reads; else with render's reply, which it keeps.
func (s *Service) Memoized(ctx context.Context, tx *storage.Tx, r *Request, what string, render func() (Ready, error)) (*Response, error) {
	v, err := tx.Version(r.ChannelID)
	if err != nil {
		return nil, err
	}
	k := memo.Key{Channel: r.ChannelID, Version: v, What: what}
	if rd, ok := s.memo.Get(k); ok {
		if rd.Again != nil {
			if err := rd.Again(ctx, s, r); err != nil {
				return nil, err
			}
		}
		return rd.Response.clone(), nil
	}
	rd, err := render()
	if err != nil || rd.Response == nil {
		return rd.Response, err
	}
	if !rd.Once && v != 0 && s.memo.Limit() > 0 {
		kept := rd
		kept.Response = rd.Response.clone()
		s.memo.Put(k, kept, kept.Response.size())
	}
	return rd.Response, nil
}

// MemoStats returns the counters of the service's memo of replies.
func (s *Service) MemoStats() memo.Stats { return s.memo.Stats() }

// clone returns a copy of r that shares no slice with it (the strings
// are shared).
func (r *Response) clone() *Response {
	n := *r
	n.Embeds = slices.Clone(r.Embeds)
	for i := range n.Embeds {
		n.Embeds[i].Fields = slices.Clone(n.Embeds[i].Fields)
	}
	if r.Components != nil {
		n.Components = make([][]Button, len(r.Components))
		for i, row := range r.Components {
			n.Components[i] = slices.Clone(row)
		}
	}
	if r.Modal != nil {
		m := *r.Modal
		m.Inputs = slices.Clone(m.Inputs)
		n.Modal = &m
	}
	n.Choices, n.Files = slices.Clone(r.Choices), slices.Clone(r.Files)
	n.Mentions, n.blocks = slices.Clone(r.Mentions), slices.Clone(r.blocks)
	if r.FollowUps != nil {
		n.FollowUps = make([]*Response, len(r.FollowUps))
		for i, f := range r.FollowUps {
			n.FollowUps[i] = f.clone()
		}
	}
	return &n
}

// size estimates the bytes r holds, for the memo's bound.
func (r *Response) size() int {
	n := 256 + len(r.Content) + 16*len(r.blocks) + 8*len(r.Mentions)
	for _, b := range r.blocks {
		n += len(b) // a block may be its own string, not a part of Content
	}
	for _, e := range r.Embeds {
		n += 128 + len(e.Title) + len(e.Description) + len(e.Footer)
		for _, f := range e.Fields {
			n += 48 + len(f.Name) + len(f.Value)
		}
	}
	for _, row := range r.Components {
		for _, b := range row {
			n += 64 + len(b.Label) + len(b.CustomID)
		}
	}
	for _, f := range r.Files {
		n += 64 + len(f.Name) + len(f.Data)
	}
	for _, f := range r.FollowUps {
		n += f.size()
	}
	return n
}
