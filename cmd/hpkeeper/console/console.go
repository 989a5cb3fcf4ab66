// Package console is hpkeeper's console transport: a line-oriented REPL that
// plays a small fake Discord over the same handlers (package commands) and a
// real database, for trying the bot without Discord and for scripted tests
// (COMMANDS.md "Console").
//
// A line is one of
//
//	/command [sub] name:value name:"value with spaces"   a slash command
//	@name /command …                                     act as name for one line
//	?/command … name:partial                             suggestions for the last option
//	click Label                                          press a button
//	submit text                                          answer the open modal
//	:user name | :channel name | :gm name | :dice 1,2,6  change the fake Discord
//	# text                                               a comment
//
// Replies are printed as plain text: Discord's backslash escapes and
// zero-width spaces are removed, embeds are drawn behind a "| " bar, buttons
// as [Label] ([-Label-] when disabled), ephemeral replies start with
// "(only name sees this)" ("(only you see this)" for the default user), and
// a reply's follow-ups are printed after it as messages of their own.
package console

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Service is what the console drives: it answers requests and lists the
// commands that lines are parsed against. *commands.Service implements it.
type Service interface {
	Handle(ctx context.Context, r *commands.Request) *commands.Response
	Registry() *commands.Registry
}

var _ Service = (*commands.Service)(nil)

// The fake Discord's fixed names.
const (
	// GuildID is the guild id of every console request.
	GuildID = "console"
	// DefaultUser is the user the console acts as until :user changes it.
	DefaultUser = "you"
	// DefaultChannel is the channel (the table) the console starts in.
	DefaultChannel = "general"
)

// maxMessages bounds how many messages with buttons the console remembers
// for click; older ones are forgotten.
const maxMessages = 200

// ErrQuit is returned by Exec for the :quit directive; Run stops reading
// when it sees it and returns nil.
var ErrQuit = errors.New("quit")

// ErrRefused is wrapped by Run's error when the bot refused a script line
// the script did not mark as expected to be refused (with a leading !), or
// answered one so marked: a script whose dice ran out, or that does
// something the bot turns down, fails rather than passes unnoticed.
var ErrRefused = errors.New("refused by the bot")

// expectRefusal starts a script line that the bot must refuse (a
// demonstration of a refusal): "!@meghan /char set name:Lister stats:hp=2".
const expectRefusal = "!"

// Options configures a Console. The zero value is a script run as user
// DefaultUser in channel DefaultChannel.
type Options struct {
	// User is the user to act as at first ("" means DefaultUser).
	User string
	// Channel is the channel to start in ("" means DefaultChannel).
	Channel string
	// Interactive makes Run print a greeting and a "user@channel> " prompt
	// before each line (a terminal), instead of echoing each line after "> "
	// (a script read from a pipe or file). In an interactive session lines
	// that are not understood do not make Run fail.
	Interactive bool
	// FilesDir is the directory where the files the bot attaches (odds
	// charts, table exports) are written; "" lists them without writing.
	FilesDir string
	// StrictDice makes :dice behave like --dice: once faces were queued,
	// running out of them is an error, not a silent random roll (RULES.md
	// §0.3), so a script cannot pass by luck. Main sets it unless --seed
	// makes the random rolls repeatable.
	StrictDice bool
}

// Console is one console session: the fake Discord's state (current user and
// channel, who has Manage Channels where, the messages with buttons, the open
// modals) over a Service. A Console is not safe for concurrent use.
type Console struct {
	svc         Service
	reg         *commands.Registry
	queue       *dice.Scripted
	strictDice  bool
	out         *errWriter
	interactive bool
	// refused is set when the bot's answer to the line being run was a
	// refusal or an apology (commands.Response.Outcome other than ok).
	refused bool

	user, channel string
	// gms[channel][user] is set when the user has Manage Channels there.
	gms map[string]map[string]bool
	// messages are the posted messages that carry buttons, oldest first.
	messages []*message
	// modals holds each user's open modal.
	modals       map[string]*openModal
	interactions int
	// filesDir is Options.FilesDir (files.go).
	filesDir string
	// trackers holds the tracker last printed for each channel (tracker.go).
	trackers map[string]string
	// gmPosts are the posts in GM channels not printed yet (gmscreen.go).
	gmPosts []string
}

// message is one posted message as the fake Discord keeps it.
type message struct {
	channel string
	// ephemeralFor is the only user who sees the message, "" for everyone.
	ephemeralFor string
	resp         *commands.Response
}

// openModal is a modal shown to a user, waiting for submit.
type openModal struct {
	modal   *commands.Modal
	channel string
	// from is the message whose button opened the modal (nil when a command
	// opened it); an UpdateMessage answer to the submit replaces it.
	from *message
}

// New returns a console that sends requests to svc, queues :dice faces on
// queue (nil: :dice is refused) and prints replies to out.
func New(svc Service, queue *dice.Scripted, out io.Writer, opts Options) *Console {
	c := &Console{
		svc:         svc,
		reg:         svc.Registry(),
		queue:       queue,
		strictDice:  opts.StrictDice,
		out:         &errWriter{w: out},
		interactive: opts.Interactive,
		filesDir:    opts.FilesDir,
		user:        opts.User,
		channel:     opts.Channel,
		gms:         map[string]map[string]bool{},
		modals:      map[string]*openModal{},
	}
	if c.user == "" {
		c.user = DefaultUser
	}
	if c.channel == "" {
		c.channel = DefaultChannel
	}
	c.setupTracker()
	c.setupGMScreen()
	return c
}

// Run reads lines from in until it ends (or :quit), executing each with Exec
// and printing what it does; a line that is not understood is answered with
// an "error: …" line and the next line runs. A line that starts with ! must
// be refused by the bot (the ! is not sent). Of a script (never of an
// interactive session) it returns an error wrapping ErrNotUnderstood,
// naming the line numbers, when any line was not understood, else one
// wrapping ErrRefused when the bot refused a line not marked with !, or
// answered one that was (the scripted dice running out is a refusal); ctx's
// error when ctx is done first; or the error of reading in or writing out.
func (c *Console) Run(ctx context.Context, in io.Reader) error {
	lines := make(chan string)
	readErr := make(chan error, 1)
	done := make(chan struct{})
	defer close(done)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-done:
				return
			}
		}
		readErr <- sc.Err()
	}()

	if c.interactive {
		c.print("hpkeeper console — /help for the bot's help, :help for the console's, Ctrl-D to leave.\n")
	}
	var failed, refused, answered []string
	for n := 1; ; n++ {
		if c.interactive {
			c.print(c.user + "@" + c.channel + "> ")
		}
		if c.out.err != nil {
			return c.out.err
		}
		var s string
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case s, ok = <-lines:
		}
		if !ok {
			if c.interactive {
				c.print("\n")
			}
			break
		}
		s = strings.TrimRightFunc(s, unicode.IsSpace)
		if !c.interactive {
			c.echo(s)
		}
		line, expect := strings.CutPrefix(strings.TrimLeftFunc(s, unicode.IsSpace), expectRefusal)
		if !expect {
			line = s
		}
		c.refused = false
		err := c.Exec(ctx, line)
		if errors.Is(err, ErrQuit) {
			break
		}
		switch {
		case err != nil:
			c.print("error: " + err.Error() + "\n")
			failed = append(failed, strconv.Itoa(n))
		case c.refused && !expect:
			refused = append(refused, strconv.Itoa(n))
		case expect && !c.refused:
			answered = append(answered, strconv.Itoa(n))
		}
	}
	if c.out.err != nil {
		return c.out.err
	}
	select {
	case err := <-readErr:
		if err != nil {
			return fmt.Errorf("reading console input: %w", err)
		}
	default:
	}
	if c.interactive {
		return nil
	}
	if len(failed) > 0 {
		if len(failed) == 1 {
			return fmt.Errorf("1 script line was %w (line %s)", ErrNotUnderstood, failed[0])
		}
		return fmt.Errorf("%d script lines were %w (lines %s)", len(failed), ErrNotUnderstood, strings.Join(failed, ", "))
	}
	var errs []error
	if len(refused) > 0 {
		errs = append(errs, fmt.Errorf("%s %w (%s); a line the script expects to be refused starts with %s",
			countLines(len(refused), "script line was", "script lines were"), ErrRefused, lineList(refused), expectRefusal))
	}
	if len(answered) > 0 {
		errs = append(errs, fmt.Errorf("%s marked %s but not %w (%s)",
			countLines(len(answered), "script line was", "script lines were"), expectRefusal, ErrRefused, lineList(answered)))
	}
	return errors.Join(errs...)
}

// countLines is "1 script line was" or "N script lines were".
func countLines(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// lineList is "line 7" or "lines 7, 9".
func lineList(ns []string) string {
	if len(ns) == 1 {
		return "line " + ns[0]
	}
	return "lines " + strings.Join(ns, ", ")
}

// echo writes a script line into the transcript: comments and blank lines as
// they are, everything else after "> ".
func (c *Console) echo(s string) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		c.print("\n")
	case strings.HasPrefix(t, "#"):
		c.print(t + "\n")
	default:
		c.print("> " + s + "\n")
	}
}

// Exec executes one console line and prints its replies (it neither echoes
// the line nor prints its error; Run does both). It returns an error wrapping
// ErrNotUnderstood when the line is not understood (nothing is sent to the
// bot then), ErrQuit for :quit, and nil otherwise, including when the bot
// refuses the command: that refusal is its reply.
func (c *Console) Exec(ctx context.Context, s string) error {
	l, err := parseLine(c.reg, s)
	if err != nil {
		return err
	}
	user := c.user
	if l.user != "" {
		user = l.user
	}
	switch l.kind {
	case lineDirective:
		return c.directive(l.directive, l.text)
	case lineCommand, lineAutocomplete:
		c.command(ctx, user, l)
	case lineClick:
		return c.click(ctx, user, l.text)
	case lineSubmit:
		return c.submit(ctx, user, l.text)
	}
	return nil
}

// request starts a request from user in channel.
func (c *Console) request(kind commands.Kind, user, channel string) *commands.Request {
	c.interactions++
	r := &commands.Request{
		Kind:          kind,
		InteractionID: strconv.Itoa(c.interactions),
		GuildID:       GuildID,
		ChannelID:     channel,
		UserID:        user,
		UserName:      user,
	}
	if c.gms[channel][user] {
		r.Permissions = commands.ManageChannels
	}
	return r
}

// command sends a slash command or an autocomplete request.
func (c *Console) command(ctx context.Context, user string, l line) {
	kind := commands.KindCommand
	if l.kind == lineAutocomplete {
		kind = commands.KindAutocomplete
	}
	r := c.request(kind, user, c.channel)
	r.Command, r.Subcommand = l.command, l.subcommand
	r.Options, r.Users, r.Focused = l.options, l.users, l.focused
	c.attach(r) // attachment options name local files (files.go)
	resp := c.svc.Handle(ctx, r)
	if kind == commands.KindAutocomplete {
		c.refused = resp.Outcome != commands.OutcomeOK
		c.print(renderChoices(resp.Choices))
		return
	}
	c.answer(user, c.channel, resp, nil)
}

// click presses the button labelled label on the latest message in the
// current channel that user sees with such a button.
func (c *Console) click(ctx context.Context, user, label string) error {
	m, btn := c.findButton(user, label, false)
	if m == nil {
		m, btn = c.findButton(user, label, true)
	}
	if m == nil {
		return notUnderstood("no message in #%s that %s can see has a button %q%s", c.channel, user, label, c.latestButtons(user))
	}
	if btn.Disabled {
		c.print("(" + buttonText(btn) + " is disabled: Discord would not send the click)\n")
		return nil
	}
	r := c.request(commands.KindComponent, user, m.channel)
	r.CustomID = btn.CustomID
	c.answer(user, m.channel, c.svc.Handle(ctx, r), m)
	return nil
}

// findButton returns the latest message in the current channel visible to
// user with a button labelled label (compared ignoring case when fold is set).
func (c *Console) findButton(user, label string, fold bool) (*message, commands.Button) {
	for i := len(c.messages) - 1; i >= 0; i-- {
		m := c.messages[i]
		if m.channel != c.channel || (m.ephemeralFor != "" && m.ephemeralFor != user) {
			continue
		}
		for _, row := range m.resp.Components {
			for _, btn := range row {
				l := plain(btn.Label)
				if l == label || fold && strings.EqualFold(l, label) {
					return m, btn
				}
			}
		}
	}
	return nil, commands.Button{}
}

// latestButtons describes the buttons of the latest message user sees in the
// current channel, for an error message.
func (c *Console) latestButtons(user string) string {
	for i := len(c.messages) - 1; i >= 0; i-- {
		m := c.messages[i]
		if m.channel != c.channel || (m.ephemeralFor != "" && m.ephemeralFor != user) {
			continue
		}
		var b []string
		for _, row := range m.resp.Components {
			for _, btn := range row {
				b = append(b, buttonText(btn))
			}
		}
		if len(b) > 0 {
			return "; the latest buttons are " + strings.Join(b, " ")
		}
	}
	return ""
}

// submit answers user's open modal with text in its first input.
func (c *Console) submit(ctx context.Context, user, text string) error {
	om := c.modals[user]
	if om == nil {
		return notUnderstood("%s has no open modal to submit", user)
	}
	values := map[string]string{}
	if len(om.modal.Inputs) > 0 {
		in := om.modal.Inputs[0]
		n := utf8.RuneCountInString(text)
		switch {
		case in.Required && n == 0:
			return notUnderstood("%q needs an answer: submit <text>", plain(in.Label))
		case in.MinLength > 0 && n > 0 && n < in.MinLength:
			return notUnderstood("%q needs at least %d characters (got %d)", plain(in.Label), in.MinLength, n)
		case in.MaxLength > 0 && n > in.MaxLength:
			return notUnderstood("%q takes at most %d characters (got %d)", plain(in.Label), in.MaxLength, n)
		}
		values[in.CustomID] = text
	}
	delete(c.modals, user)
	r := c.request(commands.KindModal, user, om.channel)
	r.CustomID = om.modal.CustomID
	r.Values = values
	c.answer(user, om.channel, c.svc.Handle(ctx, r), om.from)
	return nil
}

// answer shows resp, the bot's answer to user in channel: it opens a modal,
// replaces the message from (the one whose button was pressed) or posts a
// new message.
func (c *Console) answer(user, channel string, resp *commands.Response, from *message) {
	c.refused = resp.Outcome != commands.OutcomeOK
	var b strings.Builder
	switch {
	case resp.Modal != nil:
		c.modals[user] = &openModal{modal: resp.Modal, channel: channel, from: from}
		b.WriteString(renderModal(resp.Modal))
	case resp.UpdateMessage && from != nil:
		// Discord edits the message in place; it keeps its visibility.
		from.resp = resp
		b.WriteString("(message updated)\n")
		renderMessage(&b, resp, from.ephemeralFor)
	default:
		c.post(&b, user, channel, resp)
	}
	c.writeFiles(&b, resp) // attached files (files.go)
	// Follow-ups are new messages after the answer (ephemeral ones: to
	// user alone), as Discord shows them.
	for _, f := range resp.FollowUps {
		c.post(&b, user, channel, f)
		c.writeFiles(&b, f)
	}
	c.print(b.String())
	c.printGMPosts()
	c.printTracker(channel)
}

// post renders resp as a new message to user in channel, remembering it
// when it has buttons to click.
func (c *Console) post(b *strings.Builder, user, channel string, resp *commands.Response) {
	m := &message{channel: channel, resp: resp}
	if resp.Ephemeral {
		m.ephemeralFor = user
	}
	if len(resp.Components) > 0 {
		c.messages = append(c.messages, m)
		if len(c.messages) > maxMessages {
			c.messages = append(c.messages[:0], c.messages[len(c.messages)-maxMessages:]...)
		}
	}
	renderMessage(b, resp, m.ephemeralFor)
}

// directive carries out a :name arg line.
func (c *Console) directive(name, arg string) error {
	switch name {
	case "user", "channel", "gm":
		who := arg
		if name != "channel" {
			who = strings.TrimPrefix(who, "@")
		} else {
			who = strings.TrimPrefix(who, "#")
		}
		if who == "" || strings.ContainsFunc(who, unicode.IsSpace) {
			return notUnderstood(":%s needs one name without spaces, e.g. :%s bob", name, name)
		}
		switch name {
		case "user":
			c.user = who
			c.print("(now acting as " + who + ")\n")
		case "channel":
			c.channel = who
			c.print("(now in #" + who + ")\n")
		case "gm":
			if c.gms[c.channel] == nil {
				c.gms[c.channel] = map[string]bool{}
			}
			c.gms[c.channel][who] = true
			c.print("(" + who + " has Manage Channels in #" + c.channel + ")\n")
		}
	case "dice":
		if c.queue == nil {
			return notUnderstood(":dice: this console has no dice queue")
		}
		faces, err := ParseFaces(arg)
		if err != nil {
			return notUnderstood(":dice: %v", err)
		}
		c.queue.Push(faces...)
		if c.strictDice {
			c.queue.SetFallback(nil) // from now on, every die is queued (Options.StrictDice)
		}
		s := make([]string, len(faces))
		for i, f := range faces {
			s[i] = strconv.Itoa(f)
		}
		c.print(fmt.Sprintf("(next dice: %s; %d queued)\n", strings.Join(s, ", "), c.queue.Remaining()))
	case "help":
		c.print(c.help())
	case "quit", "exit":
		return ErrQuit
	default:
		return notUnderstood("unknown directive :%s; the directives are :user, :channel, :gm, :dice, :help, :quit", clip(name, 20))
	}
	return nil
}

// help describes the console's lines.
func (c *Console) help() string {
	var gms []string
	for u := range c.gms[c.channel] {
		gms = append(gms, u)
	}
	sort.Strings(gms)
	g := "nobody"
	if len(gms) > 0 {
		g = strings.Join(gms, ", ")
	}
	return `Console lines:
  /command [sub] name:value name:a b    a slash command, as typed in Discord
                                        (a value runs to the next option; "a b" works too)
  @name /command …                      act as another user for one line
  ?/command … name:partial              suggestions for the last option
  click Label                           press the button on the latest message that has it
  submit text                           answer your open modal
  :user name                            act as name from now on (now ` + c.user + `)
  :channel name                         go to another channel (now #` + c.channel + `)
  :gm name                              give name Manage Channels here (now ` + g + `)
  :dice 1,2,6                           roll these faces next (Fudge dice: -1,0,1)
  :quit                                 leave (or Ctrl-D)
  # text                                a comment
`
}

// print writes s to the console's output.
func (c *Console) print(s string) { io.WriteString(c.out, s) }

// errWriter remembers the first write error and then drops all writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
