package commands

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/storage"
)

// OptionType is an application command option type, numbered as Discord numbers them.
type OptionType int

// Option types used by hpkeeper.
const (
	OptionString  OptionType = 3
	OptionInteger OptionType = 4
	OptionBoolean OptionType = 5
	OptionUser    OptionType = 6
	// OptionAttachment is a file upload; Request.Attachments holds it.
	OptionAttachment OptionType = 11
)

// String names the type for error messages.
func (t OptionType) String() string {
	switch t {
	case OptionString:
		return "text"
	case OptionInteger:
		return "a whole number"
	case OptionBoolean:
		return "true or false"
	case OptionUser:
		return "a user"
	case OptionAttachment:
		return "a file"
	}
	return fmt.Sprintf("option type %d", int(t))
}

// Option defines one option of a command or subcommand.
type Option struct {
	Name        string
	Description string
	Type        OptionType
	Required    bool
	// Choices, when set, are the only values accepted (shown as a list in Discord).
	Choices []string
	// Autocomplete makes Discord ask for suggestions while the option is typed
	// (character names; for an option BySystem, the values of the table's
	// system, as Discord's static Choices cannot depend on the channel).
	Autocomplete bool
	// BySystem marks an option of a shared command that the table's system
	// gives its meaning and its values (SystemOption): the kernel refuses it
	// at a table whose system does not use it, and a value that system
	// does not take, listing the values it does.
	BySystem bool
	// MinValue and MaxValue bound an OptionInteger (both zero: unbounded).
	MinValue, MaxValue int64
	// MaxLength bounds an OptionString in characters (0: Discord's 6,000).
	MaxLength int
}

// HandlerFunc answers one request. A returned error becomes an ephemeral reply
// (see Error); a nil error with a nil response is an internal error.
type HandlerFunc func(ctx context.Context, s *Service, r *Request) (*Response, error)

// Every command, button and modal request passes through the steps of its
// chain (Middleware) on its way to its HandlerFunc.

// Command is one top-level application command: either it has Subcommands, or
// it has Options and its own handler.
type Command struct {
	Name        string
	Description string
	Options     []Option
	Subcommands []*Subcommand
	// Topic is the help text shown by /help for this command.
	Topic string
	// BySystem marks a command whose meaning the table's system gives
	// (System.Action: /damage, /heal, /rest …), which a system may not
	// have.
	BySystem bool
	// Cost is what answering the command costs from its user's work
	// allowance, in units (ratelimit.go); nil: DiceCost, the dice its
	// options roll.
	Cost func(r *Request) int
	// HelpFor, when set, says for /help topic:<command> what the command
	// does at a table of sys ("" for nothing particular): one bullet per
	// system, e.g. what /odds charts there.
	HelpFor func(sys System) string
	// Handler answers the command when it has no Subcommands.
	Handler HandlerFunc
	// run is Handler with the steps of its chain (Registry.finish).
	run HandlerFunc
}

// Subcommand is one subcommand of a Command.
type Subcommand struct {
	Name        string
	Description string
	Options     []Option
	// Cost is what answering the subcommand costs, as Command.Cost.
	Cost func(r *Request) int
	// Handler answers the subcommand.
	Handler HandlerFunc
	// run is Handler with the steps of its chain (Registry.finish).
	run HandlerFunc
}

// Registry lists every application command and every component handler. It is
// the single source for routing requests and for registering the commands
// with Discord.
type Registry struct {
	commands   []*Command
	byName     map[string]*Command
	components map[string]HandlerFunc
	// systems are the rule systems in registration order.
	systems []System
	// features are the features in the order main gave them (feature.go).
	features []Feature
}

// Commands returns the commands in registration order.
func (g *Registry) Commands() []*Command { return g.commands }

// Lookup returns the command with the given name, or nil.
func (g *Registry) Lookup(name string) *Command { return g.byName[name] }

// Sub returns the subcommand with the given name, or nil.
func (c *Command) Sub(name string) *Subcommand {
	for _, s := range c.Subcommands {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Add registers the command c: a feature adds its commands in
// Feature.Register. It panics when a command of that name exists.
func (g *Registry) Add(c *Command) {
	if g.byName == nil {
		g.byName = map[string]*Command{}
	}
	if _, dup := g.byName[c.Name]; dup {
		panic("commands: duplicate command " + c.Name)
	}
	g.commands = append(g.commands, c)
	g.byName[c.Name] = c
}

// addSystem registers sys and its component handlers.
func (g *Registry) addSystem(sys System) {
	if g.System(sys.Name()) != nil {
		panic("commands: duplicate system " + sys.Name())
	}
	g.systems = append(g.systems, sys)
	for prefix, h := range sys.Components() {
		g.Component(prefix, h)
	}
}

// addSystemOptions merges the options each system gives a meaning to
// (System.Options) into the commands: an option the kernel does not define is
// added for it, and an option with values of its own in some system is
// autocompleted (Discord's static choices cannot depend on the table). It
// panics when a system declares an option of a command path that does not
// take options (a command with subcommands), or that the kernel gives its own
// meaning (not BySystem), or two systems give one option two types.
func (g *Registry) addSystemOptions() {
	for _, sys := range g.systems {
		for _, so := range sys.Options() {
			opts := g.optionsOf(so.Command)
			if opts == nil {
				panic("commands: system " + sys.Name() + " declares an option of /" + so.Command + ", which takes no options")
			}
			typ := so.Type
			if typ == 0 {
				typ = OptionString
			}
			i := slices.IndexFunc(*opts, func(o Option) bool { return o.Name == so.Name })
			if i < 0 {
				*opts = append(*opts, Option{Name: so.Name, Description: Clip(so.Help, 100), Type: typ, BySystem: true, MaxLength: 100})
				i = len(*opts) - 1
			}
			o := &(*opts)[i]
			switch {
			case !o.BySystem:
				panic("commands: system " + sys.Name() + " declares /" + so.Command + " " + so.Name + ", which the kernel gives its own meaning")
			case so.Type != 0 && so.Type != o.Type:
				panic("commands: system " + sys.Name() + " gives /" + so.Command + " " + so.Name + " another type")
			}
			if len(so.Values) > 0 {
				o.Autocomplete = true
			}
		}
	}
}

// optionsOf returns the options of the command path, "damage" or "init
// join", or nil when the path names nothing that takes options.
func (g *Registry) optionsOf(path string) *[]Option {
	name, sub, _ := strings.Cut(path, " ")
	c := g.Lookup(name)
	switch {
	case c == nil:
		return nil
	case sub == "" && len(c.Subcommands) == 0:
		return &c.Options
	case sub == "":
		return nil
	}
	if s := c.Sub(sub); s != nil {
		return &s.Options
	}
	return nil
}

// SystemOptionOf returns what the option name of the command path
// ("damage", "init join") means in sys, or nil when sys does not use it.
func SystemOptionOf(sys System, command, name string) *SystemOption {
	for _, so := range sys.Options() {
		if so.Command == command && so.Name == name {
			return &so
		}
	}
	return nil
}

// checkSystemOptions refuses the options of r (a shared command or
// subcommand at a table of sys, defined by defs) that are BySystem and that sys does not use, or
// whose value sys does not take, listing the values it does; a value is
// matched ignoring case and normalised to sys's spelling.
func checkSystemOptions(r *Request, sys System, defs []Option) error {
	names := make([]string, 0, len(r.Options))
	for name := range r.Options {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		i := slices.IndexFunc(defs, func(o Option) bool { return o.Name == name })
		if i < 0 || !defs[i].BySystem {
			continue
		}
		so := SystemOptionOf(sys, r.Path(), name)
		if so == nil {
			return Errorf(CodeInvalid, "/%s %s: is not used by the %s system (/help topic:%s says what each system takes).", r.Path(), name, sys.Name(), r.Command)
		}
		if len(so.Values) == 0 {
			continue
		}
		v := r.Options[name]
		j := slices.IndexFunc(so.Values, func(x string) bool { return strings.EqualFold(x, strings.TrimSpace(v)) })
		if j < 0 {
			which := "one of " + strings.Join(so.Values, ", ")
			if len(so.Values) == 1 {
				which = so.Values[0]
			}
			return Errorf(CodeInvalid, "Option %s must be %s at this %s table (got %q); /help topic:%s says what each means.", name, which, sys.Name(), Clip(v, 40), r.Command)
		}
		r.Options[name] = so.Values[j]
	}
	return nil
}

// System returns the registered system with the name, or nil.
func (g *Registry) System(name string) System {
	for _, sys := range g.systems {
		if sys.Name() == name {
			return sys
		}
	}
	return nil
}

// systemNames lists the names of the registered systems in registration
// order.
func (g *Registry) systemNames() []string {
	names := make([]string, len(g.systems))
	for i, sys := range g.systems {
		names[i] = sys.Name()
	}
	return names
}

// AddAfter adds the commands cs after the registered command named after,
// in that order: where /help and Discord list them (the system commands of
// commands/actions come after /char and /roll). It panics when there is no
// such command, or a command of one of their names exists.
func (g *Registry) AddAfter(after string, cs ...*Command) {
	at := slices.IndexFunc(g.commands, func(c *Command) bool { return c.Name == after })
	if at < 0 {
		panic("commands: no command /" + after + " to add commands after")
	}
	for _, c := range cs {
		g.Add(c)
	}
	added := slices.Clone(g.commands[len(g.commands)-len(cs):])
	g.commands = slices.Insert(g.commands[:len(g.commands)-len(cs)], at+1, added...)
}

// AddSubcommand adds subs to the registered command named command, after
// its subcommand named after (first when after is ""): /table export
// is a subcommand of the kernel's /table that the export feature adds. It
// panics when there is no such command or subcommand, or a subcommand of
// that name exists.
func (g *Registry) AddSubcommand(command, after string, subs ...*Subcommand) {
	c := g.Lookup(command)
	if c == nil {
		panic("commands: no command /" + command + " to add subcommands to")
	}
	at := 0
	if after != "" {
		at = slices.IndexFunc(c.Subcommands, func(s *Subcommand) bool { return s.Name == after })
		if at < 0 {
			panic("commands: /" + command + " has no subcommand " + after)
		}
		at++
	}
	for _, s := range subs {
		if c.Sub(s.Name) != nil {
			panic("commands: duplicate subcommand /" + command + " " + s.Name)
		}
	}
	c.Subcommands = slices.Insert(c.Subcommands, at, subs...)
}

// Component registers the handler of every custom_id that starts with
// prefix followed by ':' (a button or modal). It panics when the prefix is
// taken.
func (g *Registry) Component(prefix string, h HandlerFunc) {
	if g.components == nil {
		g.components = map[string]HandlerFunc{}
	}
	if _, dup := g.components[prefix]; dup {
		panic("commands: duplicate component prefix " + prefix)
	}
	g.components[prefix] = h
}

// route is where a command request goes: its handler with the steps of its
// chain and the definitions of its options.
type route struct {
	handle  HandlerFunc
	options []Option
}

// route finds the route of a command request.
func (g *Registry) route(r *Request) (route, error) {
	c := g.Lookup(r.Command)
	if c == nil {
		return route{}, Errorf(CodeInvalid, "Unknown command /%s. Try /help.", r.Command)
	}
	if len(c.Subcommands) == 0 {
		if r.Subcommand != "" {
			return route{}, Errorf(CodeInvalid, "/%s has no subcommand %q.", c.Name, r.Subcommand)
		}
		return route{c.run, c.Options}, nil
	}
	s := c.Sub(r.Subcommand)
	if s == nil {
		names := make([]string, len(c.Subcommands))
		for i, s := range c.Subcommands {
			names[i] = s.Name
		}
		if r.Subcommand == "" {
			return route{}, Errorf(CodeInvalid, "/%s needs a subcommand: %s.", c.Name, strings.Join(names, ", "))
		}
		return route{}, Errorf(CodeInvalid, "/%s has no subcommand %q; use one of %s.", c.Name, r.Subcommand, strings.Join(names, ", "))
	}
	return route{s.run, s.Options}, nil
}

// finish builds the chain of every handler once every command, component
// and feature is registered: the kernel's steps closest to the handler (the
// work limit of a command), then each feature's (Wrapper), the first
// feature's outermost.
func (g *Registry) finish() {
	for _, c := range g.commands {
		if c.Handler != nil {
			c.run = g.chain(c.Handler, limitWork(c.Cost))
		}
		for _, s := range c.Subcommands {
			s.run = g.chain(s.Handler, limitWork(s.Cost))
		}
	}
	for prefix, h := range g.components {
		g.components[prefix] = g.chain(h)
	}
}

// chain wraps h in steps, the first innermost, then in the features'
// steps (Wrapper).
func (g *Registry) chain(h HandlerFunc, steps ...Middleware) HandlerFunc {
	for _, step := range steps {
		h = step(h)
	}
	for i := len(g.features) - 1; i >= 0; i-- {
		if w, ok := g.features[i].(Wrapper); ok {
			h = w.Wrap(h)
		}
	}
	return h
}

// Features returns the features in the order they were given.
func (g *Registry) Features() []Feature { return g.features }

// Systems returns the rule systems in the order /table setup offers them.
func (g *Registry) Systems() []System { return g.systems }

// HidesEvent reports whether a feature says that event e shows a hidden
// character's numbers (EventHider).
func (g *Registry) HidesEvent(e *storage.Event) bool {
	for _, f := range g.features {
		if h, ok := f.(EventHider); ok && h.HidesEvent(e) {
			return true
		}
	}
	return false
}

// Summary returns the features' parts of the summary of table t, of
// system sys, in order (Summarizer).
func (g *Registry) Summary(tx *storage.Tx, t *storage.Table, sys System) ([]Field, error) {
	var out []Field
	for _, f := range g.features {
		s, ok := f.(Summarizer)
		if !ok {
			continue
		}
		field, ok, err := s.Summary(tx, t, sys)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, field)
		}
	}
	return out, nil
}

// validate checks the request's options against their definitions: every
// option known, required ones present, values of the right type, in range and
// among the choices. It normalises booleans to "true"/"false" and integers to
// decimal.
func validate(r *Request, defs []Option) error {
	known := map[string]*Option{}
	for i := range defs {
		known[defs[i].Name] = &defs[i]
	}
	names := make([]string, 0, len(r.Options))
	for name := range r.Options {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		d := known[name]
		if d == nil {
			valid := make([]string, len(defs))
			for i, d := range defs {
				valid[i] = d.Name
			}
			if len(valid) == 0 {
				return Errorf(CodeInvalid, "%s takes no options (got %q).", r.commandName(), name)
			}
			return Errorf(CodeInvalid, "%s has no option %q; its options are %s.", r.commandName(), name, strings.Join(valid, ", "))
		}
		v := r.Options[name]
		switch d.Type {
		case OptionInteger:
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return Errorf(CodeInvalid, "Option %s must be a whole number, not %q.", name, Clip(v, 40))
			}
			if (d.MinValue != 0 || d.MaxValue != 0) && (n < d.MinValue || n > d.MaxValue) {
				return Errorf(CodeInvalid, "Option %s must be from %d to %d (got %d).", name, d.MinValue, d.MaxValue, n)
			}
			v = strconv.FormatInt(n, 10)
		case OptionBoolean:
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true", "yes", "on", "1":
				v = "true"
			case "false", "no", "off", "0":
				v = "false"
			default:
				return Errorf(CodeInvalid, "Option %s must be true or false, not %q.", name, Clip(v, 40))
			}
		case OptionString, OptionUser:
			v = Unquote(strings.TrimSpace(v))
			max := d.MaxLength
			if max == 0 {
				max = 6000
			}
			if len([]rune(v)) > max {
				return Errorf(CodeInvalid, "Option %s is %d characters long; at most %d.", name, len([]rune(v)), max)
			}
		}
		if len(d.Choices) > 0 && r.Kind != KindAutocomplete {
			ok := false
			for _, c := range d.Choices {
				if strings.EqualFold(c, v) {
					v, ok = c, true
					break
				}
			}
			if !ok {
				return Errorf(CodeInvalid, "Option %s must be one of %s (got %q).", name, strings.Join(d.Choices, ", "), Clip(v, 40))
			}
		}
		r.Options[name] = v
	}
	if r.Kind == KindAutocomplete {
		return nil
	}
	for _, d := range defs {
		if _, ok := r.Options[d.Name]; d.Required && !ok {
			return Errorf(CodeInvalid, "%s needs the option %s.", r.commandName(), d.Name)
		}
	}
	return nil
}

// Unquote returns s without one pair of double quotes around it, straight
// or curly (a phone's): Discord passes the quotes of an option along, and
// a name or stats copied from a reply or the console may carry them. A
// value with a quote inside ("A", "B": two names) keeps its quotes.
func Unquote(s string) string {
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}} {
		if in, ok := strings.CutPrefix(s, q[0]); ok && len(in) > len(q[1]) && strings.HasSuffix(in, q[1]) && !strings.ContainsAny(in[:len(in)-len(q[1])], `"“”`) {
			return strings.TrimSpace(in[:len(in)-len(q[1])])
		}
	}
	return s
}

// Path is the command path of the request, as System.Options names it:
// "damage", "table setup".
func (r *Request) Path() string { return strings.TrimPrefix(r.commandName(), "/") }

// commandName renders "/table setup".
func (r *Request) commandName() string {
	if r.Subcommand == "" {
		return "/" + r.Command
	}
	return "/" + r.Command + " " + r.Subcommand
}

// Line renders the request as typed, e.g. `/damage target:Lister amount:4`,
// options in name order, values with spaces quoted, or a press of a button
// as `pressed [Stay Up] for Lister` (Pressed, and the target option when
// set). It is what the history shows.
func (r *Request) Line() string { return r.line(true) }

// line is Line, with values quoted as the console takes them (quote) or as
// Discord's client does, bare.
func (r *Request) line(quote bool) string {
	if r.Pressed != "" {
		line := "pressed [" + r.Pressed + "]"
		if t := r.Options["target"]; t != "" {
			line += " for " + t
		}
		return line
	}
	var b strings.Builder
	b.WriteString(r.commandName())
	names := make([]string, 0, len(r.Options))
	for n := range r.Options {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := r.Options[n]
		if quote && (strings.ContainsAny(v, " \t\"") || v == "") {
			v = strconv.Quote(v)
		}
		fmt.Fprintf(&b, " %s:%s", n, v)
	}
	return b.String()
}
