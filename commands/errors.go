package commands

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/hpkeeper/hpkeeper/storage"
)

// Code classifies an error by what the user can do about it.
type Code int

// Error codes. Every code but CodeInternal is the user's to fix and is
// answered with its message as an ephemeral reply; CodeInternal is logged and
// answered with a short apology.
const (
	// CodeInvalid: a bad option value, dice expression, stats pair or number.
	CodeInvalid Code = iota + 1
	// CodeNotFound: no such character, table or event.
	CodeNotFound
	// CodeConflict: the state does not allow it now (a pending choice, a name
	// taken, a stale button, a dead character).
	CodeConflict
	// CodeForbidden: the caller may not do this (not the owner, not a GM).
	CodeForbidden
	// CodeUnavailable: the command exists but the table's system does not
	// implement it (yet).
	CodeUnavailable
	// CodeInternal: a fault of ours (storage, encoding); never shown in detail.
	CodeInternal
	// CodeRateLimited: the caller asked for too much expensive work (large
	// dice pools, history pages) in a short time (HTTP 429 in spirit); the
	// message says when to try again.
	CodeRateLimited
)

// Error is an error with a Code and a message a player can read.
type Error struct {
	Code    Code
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the Code of err: the code of the first *Error in its
// chain, CodeInternal for any other non-nil error, 0 for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the player-readable message of err: the message of the
// first *Error in its chain; NotSaved when the commit of the change failed
// (storage.ErrCommitFailed: a full or failing disk); CommitUnknown or
// Unavailable when the database could not say or could not answer
// (store.go); or a short apology for any other internal error.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Code != CodeInternal {
		return e.Message
	}
	switch {
	case errors.Is(err, storage.ErrCommitFailed):
		return NotSaved
	case errors.Is(err, storage.ErrCommitUnknown):
		return CommitUnknown
	case errors.Is(err, storage.ErrUnavailable):
		return Unavailable
	}
	return Apology
}

// quotedText matches a "double-quoted" Go string literal, as %q writes one.
var quotedText = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// ourMention matches a user mention the bot wrote (mention) after
// literalText put a zero-width space in it: user text never has one
// unescaped, as Escape turns its '<' and '>' into "\<" and "\>".
var ourMention = regexp.MustCompile("<@\u200b([0-9A-Za-z_-]+)>")

// literalText makes the user text an error message quotes show literally:
// inside "double quotes" markdown and mentions are escaped (see Escape), and
// anywhere else every '@' gets a zero-width space after it, so no refusal
// ever renders a mention or formatting a user typed. The bot's own
// mentions of a user (which never ping: allowed mentions parse nothing)
// stay mentions.
func literalText(msg string) string {
	msg = quotedText.ReplaceAllStringFunc(msg, func(q string) string {
		return `"` + Escape(q[1:len(q)-1]) + `"`
	})
	msg = strings.ReplaceAll(strings.ReplaceAll(msg, "@\u200b", "@"), "@", "@\u200b")
	return ourMention.ReplaceAllString(msg, "<@$1>")
}

// NotSaved is the reply to a change whose commit failed (a full or failing
// disk): the player learns that nothing of it was kept, so that the dice
// and the message they saw do not count.
const NotSaved = "The table could not be saved; nothing changed. Please try again in a moment."

// Apology is the reply to an interaction that failed on our side (an
// internal error or a panic): short, and never a detail of the fault.
const Apology = "Sorry, something went wrong on our side. Nothing was changed; please try again."
