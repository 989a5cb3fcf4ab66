package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/hpkeeper/hpkeeper/commands"
)

// Discord's limits on application commands.
const (
	maxCommandOptions = 25
	maxChoices        = 25
	maxDescription    = 100
	maxChoiceName     = 100
	maxChoiceValue    = 100
	maxStringLength   = 6000
	maxCommandChars   = 4000
	maxGlobalCommands = 100
)

// commandName is Discord's rule for chat command and option names, lower case.
var commandName = regexp.MustCompile(`^[-_\p{Ll}\p{Lo}\p{N}]{1,32}$`)

// CommandDefinitions returns the Discord application commands for every
// command of reg, in registration order: slash commands usable in guilds, in
// DMs with the bot and in private channels, by a guild install and by a user
// install (so /roll works in a DM with the user-installed app).
//
// Subcommands become options of type 1 holding their own options; choices,
// autocomplete, integer bounds (when not both zero) and string max_length are
// carried over; within each option list the required options come first, in
// their original order, as Discord requires. Check the result with
// ValidateDefinitions.
func CommandDefinitions(reg *commands.Registry) []*discordgo.ApplicationCommand {
	contexts := []discordgo.InteractionContextType{
		discordgo.InteractionContextGuild,
		discordgo.InteractionContextBotDM,
		discordgo.InteractionContextPrivateChannel,
	}
	integrations := []discordgo.ApplicationIntegrationType{
		discordgo.ApplicationIntegrationGuildInstall,
		discordgo.ApplicationIntegrationUserInstall,
	}
	var out []*discordgo.ApplicationCommand
	for _, c := range reg.Commands() {
		ctxs, ints := slices.Clone(contexts), slices.Clone(integrations)
		ac := &discordgo.ApplicationCommand{
			Type:             discordgo.ChatApplicationCommand,
			Name:             c.Name,
			Description:      c.Description,
			Contexts:         &ctxs,
			IntegrationTypes: &ints,
			Options:          []*discordgo.ApplicationCommandOption{},
		}
		if len(c.Subcommands) > 0 {
			for _, s := range c.Subcommands {
				ac.Options = append(ac.Options, &discordgo.ApplicationCommandOption{
					Type:        discordgo.ApplicationCommandOptionSubCommand,
					Name:        s.Name,
					Description: s.Description,
					Options:     options(s.Options),
				})
			}
		} else {
			ac.Options = options(c.Options)
		}
		out = append(out, ac)
	}
	return out
}

// options converts option definitions, required ones first.
func options(defs []commands.Option) []*discordgo.ApplicationCommandOption {
	out := make([]*discordgo.ApplicationCommandOption, 0, len(defs))
	for _, d := range defs {
		o := &discordgo.ApplicationCommandOption{
			Type:         discordgo.ApplicationCommandOptionType(d.Type),
			Name:         d.Name,
			Description:  d.Description,
			Required:     d.Required,
			Autocomplete: d.Autocomplete,
		}
		for _, c := range d.Choices {
			var v any = c
			if d.Type == commands.OptionInteger {
				if n, err := strconv.ParseInt(c, 10, 64); err == nil {
					v = n
				}
			}
			o.Choices = append(o.Choices, &discordgo.ApplicationCommandOptionChoice{Name: c, Value: v})
		}
		if d.Type == commands.OptionInteger && (d.MinValue != 0 || d.MaxValue != 0) {
			lo := float64(d.MinValue)
			o.MinValue = &lo
			o.MaxValue = float64(d.MaxValue)
		}
		if d.Type == commands.OptionString && d.MaxLength > 0 {
			o.MaxLength = d.MaxLength
		}
		out = append(out, o)
	}
	slices.SortStableFunc(out, func(a, b *discordgo.ApplicationCommandOption) int {
		switch {
		case a.Required == b.Required:
			return 0
		case a.Required:
			return -1
		default:
			return 1
		}
	})
	return out
}

// ValidateDefinitions checks cmds against Discord's rules for chat commands:
// at most 100 commands with unique, lower-case names of 1–32 characters and
// descriptions of 1–100; at most 25 options per list with unique valid names,
// required ones before optional ones; subcommands not mixed with plain options
// and not nested; at most 25 choices with names and values of 1–100
// characters, never together with autocomplete; choices, bounds and lengths
// only on types that take them; at most 4,000 characters of names,
// descriptions and choices per command. It returns an error naming the first
// violation, or nil.
func ValidateDefinitions(cmds []*discordgo.ApplicationCommand) error {
	if len(cmds) > maxGlobalCommands {
		return fmt.Errorf("%d commands; Discord allows %d", len(cmds), maxGlobalCommands)
	}
	seen := map[string]bool{}
	for _, c := range cmds {
		if c == nil {
			return errors.New("nil command")
		}
		where := "/" + c.Name
		if !commandName.MatchString(c.Name) {
			return fmt.Errorf("%s: invalid command name %q", where, c.Name)
		}
		if seen[c.Name] {
			return fmt.Errorf("%s: duplicate command name", where)
		}
		seen[c.Name] = true
		if err := checkDescription(where, c.Description); err != nil {
			return err
		}
		chars := utf8.RuneCountInString(c.Name) + utf8.RuneCountInString(c.Description)
		n, err := validateOptions(where, c.Options, true)
		if err != nil {
			return err
		}
		if chars += n; chars > maxCommandChars {
			return fmt.Errorf("%s: %d characters of names, descriptions and choices; Discord allows %d", where, chars, maxCommandChars)
		}
	}
	return nil
}

func checkDescription(where, d string) error {
	if n := utf8.RuneCountInString(d); n < 1 || n > maxDescription {
		return fmt.Errorf("%s: description of %d characters; Discord wants 1 to %d", where, n, maxDescription)
	}
	return nil
}

// validateOptions checks one option list and returns how many characters of
// names, descriptions and choices it holds.
func validateOptions(where string, opts []*discordgo.ApplicationCommandOption, top bool) (int, error) {
	if len(opts) > maxCommandOptions {
		return 0, fmt.Errorf("%s: %d options; Discord allows %d", where, len(opts), maxCommandOptions)
	}
	chars := 0
	seen := map[string]bool{}
	subs, plain := 0, 0
	optional := false
	for _, o := range opts {
		if o == nil {
			return 0, fmt.Errorf("%s: nil option", where)
		}
		at := where + " " + o.Name
		if !commandName.MatchString(o.Name) {
			return 0, fmt.Errorf("%s: invalid option name %q", where, o.Name)
		}
		if seen[o.Name] {
			return 0, fmt.Errorf("%s: duplicate option name", at)
		}
		seen[o.Name] = true
		if err := checkDescription(at, o.Description); err != nil {
			return 0, err
		}
		chars += utf8.RuneCountInString(o.Name) + utf8.RuneCountInString(o.Description)
		switch o.Type {
		case discordgo.ApplicationCommandOptionSubCommand:
			if !top {
				return 0, fmt.Errorf("%s: a subcommand can only be at the top level", at)
			}
			subs++
			if o.Required || len(o.Choices) > 0 || o.Autocomplete {
				return 0, fmt.Errorf("%s: a subcommand cannot be required or have choices", at)
			}
			n, err := validateOptions(at, o.Options, false)
			if err != nil {
				return 0, err
			}
			chars += n
			continue
		case discordgo.ApplicationCommandOptionSubCommandGroup:
			return 0, fmt.Errorf("%s: subcommand groups are not used", at)
		case discordgo.ApplicationCommandOptionString, discordgo.ApplicationCommandOptionInteger,
			discordgo.ApplicationCommandOptionBoolean, discordgo.ApplicationCommandOptionUser,
			discordgo.ApplicationCommandOptionChannel, discordgo.ApplicationCommandOptionRole,
			discordgo.ApplicationCommandOptionMentionable, discordgo.ApplicationCommandOptionNumber,
			discordgo.ApplicationCommandOptionAttachment:
			plain++
		default:
			return 0, fmt.Errorf("%s: unknown option type %d", at, o.Type)
		}
		if len(o.Options) > 0 {
			return 0, fmt.Errorf("%s: only a subcommand has options", at)
		}
		if o.Required && optional {
			return 0, fmt.Errorf("%s: required option after an optional one", at)
		}
		optional = optional || !o.Required
		n, err := validateChoices(at, o)
		if err != nil {
			return 0, err
		}
		chars += n
		numeric := o.Type == discordgo.ApplicationCommandOptionInteger || o.Type == discordgo.ApplicationCommandOptionNumber
		if (o.MinValue != nil || o.MaxValue != 0) && !numeric {
			return 0, fmt.Errorf("%s: min/max value on a non-numeric option", at)
		}
		if o.MinValue != nil && o.MaxValue != 0 && *o.MinValue > o.MaxValue {
			return 0, fmt.Errorf("%s: min value %v above max value %v", at, *o.MinValue, o.MaxValue)
		}
		if (o.MinLength != nil || o.MaxLength != 0) && o.Type != discordgo.ApplicationCommandOptionString {
			return 0, fmt.Errorf("%s: min/max length on a non-string option", at)
		}
		if o.MaxLength < 0 || o.MaxLength > maxStringLength {
			return 0, fmt.Errorf("%s: max length %d outside 1 to %d", at, o.MaxLength, maxStringLength)
		}
	}
	if subs > 0 && plain > 0 {
		return 0, fmt.Errorf("%s: subcommands mixed with options", where)
	}
	return chars, nil
}

func validateChoices(at string, o *discordgo.ApplicationCommandOption) (int, error) {
	if len(o.Choices) == 0 {
		return 0, nil
	}
	if o.Autocomplete {
		return 0, fmt.Errorf("%s: choices and autocomplete together", at)
	}
	if len(o.Choices) > maxChoices {
		return 0, fmt.Errorf("%s: %d choices; Discord allows %d", at, len(o.Choices), maxChoices)
	}
	chars := 0
	for _, c := range o.Choices {
		if c == nil {
			return 0, fmt.Errorf("%s: nil choice", at)
		}
		if n := utf8.RuneCountInString(c.Name); n < 1 || n > maxChoiceName {
			return 0, fmt.Errorf("%s: choice name %q of %d characters", at, c.Name, n)
		}
		chars += utf8.RuneCountInString(c.Name)
		switch v := c.Value.(type) {
		case string:
			if o.Type != discordgo.ApplicationCommandOptionString {
				return 0, fmt.Errorf("%s: text choice %q on a non-string option", at, v)
			}
			if n := utf8.RuneCountInString(v); n < 1 || n > maxChoiceValue {
				return 0, fmt.Errorf("%s: choice value %q of %d characters", at, v, n)
			}
			chars += utf8.RuneCountInString(v)
		case int, int64, float64:
			if o.Type != discordgo.ApplicationCommandOptionInteger && o.Type != discordgo.ApplicationCommandOptionNumber {
				return 0, fmt.Errorf("%s: numeric choice on a non-numeric option", at)
			}
			chars += len(fmt.Sprint(v))
		default:
			return 0, fmt.Errorf("%s: choice %q has a value of type %T", at, c.Name, c.Value)
		}
	}
	return chars, nil
}

// Register publishes the commands of reg with one bulk overwrite (PUT), which
// replaces every command the application had in that scope: guild commands
// (visible at once, for development) when guildID is not empty, global
// commands otherwise. An empty appID is looked up from the token's
// application. It returns the commands as Discord stored them, or an error
// when the definitions are invalid or Discord refuses them.
func Register(ctx context.Context, s *discordgo.Session, appID, guildID string, reg *commands.Registry) ([]*discordgo.ApplicationCommand, error) {
	if s == nil || reg == nil {
		return nil, errors.New("register commands: nil session or registry")
	}
	defs := CommandDefinitions(reg)
	if err := ValidateDefinitions(defs); err != nil {
		return nil, fmt.Errorf("register commands: %w", err)
	}
	if appID == "" {
		id, err := applicationID(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("register commands: %w", err)
		}
		appID = id
	}
	created, err := s.ApplicationCommandBulkOverwrite(appID, guildID, defs, discordgo.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("register commands: %w", redactErr(err))
	}
	return created, nil
}

// applicationID asks Discord for the id of the token's application.
func applicationID(ctx context.Context, s *discordgo.Session) (string, error) {
	endpoint := discordgo.EndpointOAuth2Application("@me")
	body, err := s.RequestWithBucketID("GET", endpoint, nil, discordgo.EndpointOAuth2Application(""), discordgo.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("look up application: %w", redactErr(err))
	}
	var app struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(body, &app); err != nil || app.ID == "" {
		return "", fmt.Errorf("look up application: no id in %q", clipBytes(body, 200))
	}
	return app.ID, nil
}

// clipBytes returns at most n bytes of b as text.
func clipBytes(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}
