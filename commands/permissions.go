package commands

import "github.com/hpkeeper/hpkeeper/storage"

// Who may do what at a table (RULES.md §0.1): a GM may do anything; a
// player changes the characters they own. Handlers check with these (or
// the Mutation's IsGM, RequireGM and CanChange) before they change
// anything.

// IsGM reports whether the user of r is a GM at table t (RULES.md §0.1): one
// of the table's GMs (the set-up user is the first, until removed) or a member
// with Manage Channels. SetupBy only records who set the table up.
func IsGM(r *Request, t *storage.Table) bool {
	if r.HasManageChannels() {
		return true
	}
	if t == nil {
		return false
	}
	for _, id := range t.GMs {
		if id == r.UserID {
			return true
		}
	}
	return false
}

// RequireGM returns a CodeForbidden error unless the user of r is a GM at
// table t; what completes "Only a GM can …".
func RequireGM(r *Request, t *storage.Table, what string) error {
	if !IsGM(r, t) {
		return Errorf(CodeForbidden, "Only a GM can %s.", what)
	}
	return nil
}

// CanChange returns a CodeForbidden error unless the user of r owns c or is
// a GM at table t (RULES.md §0.1); for a command, the error says to ask
// them to run it: as typed for a character players see, and without
// echoing it for a hidden one (the line could hold its numbers).
func CanChange(r *Request, t *storage.Table, c *storage.Character) error {
	if c.OwnerID == r.UserID || IsGM(r, t) {
		return nil
	}
	ask := ""
	if r.Kind == KindCommand {
		ask = " Ask one of them to run " + CodeSpan(r.line(false)) + "."
		if c.Hidden {
			ask = " Ask one of them to run it for you."
		}
	}
	// The owner as a mention (replies never ping): "belongs to you" read
	// as the reader, not the console's user named "you".
	return Errorf(CodeForbidden, "%s belongs to %s: only its owner or a GM can do that.%s", Escape(c.Name), Mention(c.OwnerID), ask)
}
