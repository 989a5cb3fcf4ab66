package console

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/hpkeeper/hpkeeper/commands"
)

// ErrNotUnderstood is wrapped by every error about a console line the console
// could not act on: a line that does not parse, an unknown command, option or
// directive, a click with no such button, a submit with no open modal, bad
// :dice faces. A command the bot refuses is not such an error: the bot
// understood it and answered.
var ErrNotUnderstood = errors.New("not understood")

// notUnderstood returns an error wrapping ErrNotUnderstood.
func notUnderstood(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotUnderstood, fmt.Sprintf(format, args...))
}

// lineKind says what a console line asks for.
type lineKind int

const (
	lineBlank        lineKind = iota // an empty line
	lineComment                      // # …
	lineCommand                      // /command …
	lineAutocomplete                 // ?/command … (suggestions for the last option)
	lineClick                        // click Label
	lineSubmit                       // submit text
	lineDirective                    // :name arg
)

// line is one parsed console line.
type line struct {
	kind lineKind
	// user is the name given with an @name prefix, "" when none.
	user string
	// command and subcommand name the slash command (lineCommand, lineAutocomplete).
	command, subcommand string
	// options holds the options given, by name; users maps the values of
	// user options to display names (the console's user ids are names).
	options map[string]string
	users   map[string]string
	// focused is the last option given (lineAutocomplete).
	focused string
	// text is the button label (lineClick), the answer (lineSubmit), the
	// comment (lineComment) or the directive's argument (lineDirective).
	text string
	// directive is the directive's name without ':' (lineDirective).
	directive string
}

// parseLine parses one console line against the commands of reg. Errors wrap
// ErrNotUnderstood. Command lines must name a known command, a known
// subcommand when the command has subcommands, and known options (Discord's
// client allows nothing else); option values are checked by the bot.
func parseLine(reg *commands.Registry, s string) (line, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return line{kind: lineBlank}, nil
	case strings.HasPrefix(s, "#"):
		return line{kind: lineComment, text: s}, nil
	case strings.HasPrefix(s, ":"):
		name, arg := cutSpace(s[1:])
		if name == "" {
			return line{}, notUnderstood("%q: a directive is a name after ':', e.g. :user bob (see :help)", s)
		}
		return line{kind: lineDirective, directive: name, text: arg}, nil
	}
	var user string
	if strings.HasPrefix(s, "@") {
		var rest string
		user, rest = cutSpace(s[1:])
		if user == "" || startsWithSpace(s[1:]) {
			return line{}, notUnderstood("%q: '@' must be followed by a user name, e.g. @bob /char list", s)
		}
		if rest == "" {
			return line{}, notUnderstood("%q: what should %s do? e.g. @%s /char list", s, user, user)
		}
		if strings.HasPrefix(rest, "@") || strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "#") {
			return line{}, notUnderstood("%q: @%s can only be followed by a /command, ?/command, click or submit", s, user)
		}
		s = rest
	}
	l, err := parseAction(reg, s)
	if err != nil {
		return line{}, err
	}
	l.user = user
	return l, nil
}

// parseAction parses what a user does: a command, an autocomplete request, a
// click or a submit.
func parseAction(reg *commands.Registry, s string) (line, error) {
	switch {
	case strings.HasPrefix(s, "/"):
		return parseCommand(reg, s[1:], false)
	case strings.HasPrefix(s, "?/"):
		return parseCommand(reg, s[2:], true)
	}
	word, rest := cutSpace(s)
	switch word {
	case "click":
		label := rest
		if len(label) >= 2 && strings.HasPrefix(label, `"`) {
			v, after, err := quoted(label)
			if err != nil {
				return line{}, notUnderstood("click %s: %v", label, err)
			}
			if after != "" {
				return line{}, notUnderstood("click %s: text after the closing quote", label)
			}
			label = v
		}
		if label == "" {
			return line{}, notUnderstood("click needs a button label, e.g. click Stay Up")
		}
		return line{kind: lineClick, text: label}, nil
	case "submit":
		return line{kind: lineSubmit, text: rest}, nil
	}
	return line{}, notUnderstood("%q: start a command with / (or see :help)", clip(s, 40))
}

// parseCommand parses "command [sub] name:value …" (after the slash). With
// focus set it parses an autocomplete request, whose last option may be empty
// and is the focused one.
func parseCommand(reg *commands.Registry, s string, focus bool) (line, error) {
	kind := lineCommand
	if focus {
		kind = lineAutocomplete
	}
	name, rest := cutSpace(s)
	if name == "" {
		return line{}, notUnderstood("'/' must be followed by a command name, e.g. /help")
	}
	cmd := reg.Lookup(name)
	if cmd == nil {
		return line{}, notUnderstood("unknown command /%s; the commands are %s", clip(name, 32), commandNames(reg))
	}
	l := line{kind: kind, command: cmd.Name, options: map[string]string{}}
	defs := cmd.Options
	if len(cmd.Subcommands) > 0 {
		subs := make([]string, len(cmd.Subcommands))
		for i, sc := range cmd.Subcommands {
			subs[i] = sc.Name
		}
		var word string
		word, rest = cutSpace(rest)
		if word == "" || strings.Contains(word, ":") {
			return line{}, notUnderstood("/%s needs a subcommand first: %s", cmd.Name, strings.Join(subs, ", "))
		}
		sc := cmd.Sub(word)
		if sc == nil {
			return line{}, notUnderstood("/%s has no subcommand %q; use one of %s", cmd.Name, clip(word, 32), strings.Join(subs, ", "))
		}
		l.subcommand, defs = sc.Name, sc.Options
	}
	where := "/" + cmd.Name
	if l.subcommand != "" {
		where += " " + l.subcommand
	}
	for rest != "" {
		i := strings.IndexFunc(rest, func(r rune) bool { return r == ':' || unicode.IsSpace(r) })
		if i <= 0 || rest[i] != ':' {
			word, _ := cutSpace(rest)
			return line{}, notUnderstood("%s: %q is not an option; write name:value (quote values with spaces: name:\"a b\")", where, clip(word, 40))
		}
		opt, after := rest[:i], rest[i+1:]
		var def *commands.Option
		for j := range defs {
			if defs[j].Name == opt {
				def = &defs[j]
			}
		}
		if def == nil {
			if len(defs) == 0 {
				return line{}, notUnderstood("%s takes no options (got %q)", where, clip(opt, 32))
			}
			return line{}, notUnderstood("%s has no option %q; its options are %s", where, clip(opt, 32), optionNames(defs))
		}
		if _, dup := l.options[opt]; dup {
			return line{}, notUnderstood("%s: option %s given twice", where, opt)
		}
		var v string
		if strings.HasPrefix(after, `"`) {
			var err error
			v, rest, err = quoted(after)
			if err != nil {
				return line{}, notUnderstood("%s: option %s: %v", where, opt, err)
			}
			if rest != "" && !startsWithSpace(rest) {
				return line{}, notUnderstood("%s: option %s: a space must follow the closing quote", where, opt)
			}
		} else {
			j := valueEnd(after, defs)
			v, rest = strings.TrimRightFunc(after[:j], unicode.IsSpace), after[j:]
		}
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if def.Type == commands.OptionUser {
			v = strings.TrimLeft(v, "@") // "@bob" and "@@bob" both name bob
		}
		if v == "" && !(focus && rest == "") {
			return line{}, notUnderstood("%s: option %s has no value", where, opt)
		}
		if def.Type == commands.OptionUser && v != "" {
			if strings.ContainsFunc(v, unicode.IsSpace) {
				return line{}, notUnderstood("%s: option %s: a user name has no spaces", where, opt)
			}
			if l.users == nil {
				l.users = map[string]string{}
			}
			l.users[v] = v
		}
		l.options[opt] = v
		l.focused = opt
	}
	if focus {
		if l.focused == "" {
			return line{}, notUnderstood("?%s: give the option being typed last, e.g. ?/damage target:Li", where)
		}
		for _, d := range defs {
			if d.Name == l.focused && !d.Autocomplete {
				return line{}, notUnderstood("?%s: option %s has no suggestions", where, l.focused)
			}
		}
	} else {
		l.focused = ""
	}
	return l, nil
}

// valueEnd returns where an unquoted option value at the start of s ends:
// before the white space that precedes the next option of defs
// ("target:Bandit Captain amount:3" gives the value "Bandit Captain", as
// Discord's client takes it), else at the end of s.
func valueEnd(s string, defs []commands.Option) int {
	for i, r := range s {
		if !unicode.IsSpace(r) {
			continue
		}
		next := strings.TrimLeftFunc(s[i:], unicode.IsSpace)
		for _, d := range defs {
			if strings.HasPrefix(next, d.Name+":") {
				return i
			}
		}
	}
	return len(s)
}

// quoted reads a double-quoted string at the start of s (which begins with
// '"'), where \" stands for a quote and \\ for a backslash; any other
// backslash is kept as it is. It returns the value and the text after the
// closing quote.
func quoted(s string) (value, rest string, err error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return b.String(), s[i+1:], nil
		case c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			b.WriteByte(s[i+1])
			i++
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errors.New("no closing quote")
}

// cutSpace splits s at its first run of white space into the first word and
// the rest, both trimmed.
func cutSpace(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

func startsWithSpace(s string) bool {
	return strings.IndexFunc(s, unicode.IsSpace) == 0
}

func commandNames(reg *commands.Registry) string {
	var names []string
	for _, c := range reg.Commands() {
		names = append(names, "/"+c.Name)
	}
	return strings.Join(names, ", ")
}

func optionNames(defs []commands.Option) string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}

// clip shortens s to at most n runes for quoting in messages.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Face limits for ParseFaces: the lowest face of any die (a Fudge −1) and the
// highest (a d1000's 1000), RULES.md §0.3.
const (
	minFace = -1
	maxFace = 1000
)

// ParseFaces parses die faces for the console's --dice flag and :dice
// directive: integers separated by commas and/or spaces, e.g. "1,2,6" or
// "-1,0,1" (Fudge faces, RULES.md §0.3). It returns an error when s holds no
// face, a face that is not an integer, or one that no die has (below −1 or
// above 1000). Whether a face fits the die it is used for is checked when it
// is rolled.
func ParseFaces(s string) ([]int, error) {
	words := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	if len(words) == 0 {
		return nil, errors.New("no die faces given; write them like 1,2,6")
	}
	faces := make([]int, len(words))
	for i, w := range words {
		n, err := strconv.Atoi(w)
		if err != nil {
			return nil, fmt.Errorf("die face %q is not a whole number", clip(w, 20))
		}
		if n < minFace || n > maxFace {
			return nil, fmt.Errorf("no die has the face %d (faces run from %d on a Fudge die to %d on a d%d)", n, minFace, maxFace, maxFace)
		}
		faces[i] = n
	}
	return faces, nil
}
