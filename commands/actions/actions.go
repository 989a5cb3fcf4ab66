// Package actions is a feature of the commands kernel: the commands whose
// meaning the table's rule system gives (/damage, /heal, /save, /rest,
// /attend, /treat, /strain, /spend, /activity, /wake). Each runs the
// system's action (commands.System.Action) in one write transaction, after
// checking the options the system gives a meaning to; a system without
// the action answers that the command is not part of it. A command a
// system adds for its rules is one more entry here, and the system's
// Action gives it its meaning. Among them stands /roll (roll.go), which
// anyone may use at any table or none, and whose as: the system extends
// (commands.System.Roll).
package actions

import (
	"context"

	"github.com/hpkeeper/hpkeeper/commands"
)

// Feature is the system commands.
type Feature struct{}

var _ commands.Feature = Feature{}

// target is the option of the characters a command acts on.
var target = commands.Option{Name: "target", Description: "Character name; several separated by commas", Type: commands.OptionString, Required: true, Autocomplete: true, MaxLength: 200}

// Register adds the system commands where /help and Discord list them:
// /damage, /heal and /roll after /char, the others after /roll.
func (Feature) Register(g *commands.Registry) {
	g.AddAfter("char",
		&commands.Command{
			Name: "damage", Description: "Damage or harm one or more characters", Handler: action("damage"), BySystem: true,
			Topic: "`/damage target:… amount:…` applies damage (or harm) as the table's system defines it; `amount` may be a number or dice.",
			Options: []commands.Option{
				target,
				{Name: "amount", Description: "Damage: a number or dice, e.g. 7 or 2d6+1", Type: commands.OptionString, Required: true, MaxLength: 64},
				{Name: "soak", Description: "Spend and roll a hit die to soak the damage", Type: commands.OptionBoolean, BySystem: true},
				{Name: "type", Description: "Damage type", Type: commands.OptionString, BySystem: true, MaxLength: 32},
				{Name: "crit", Description: "Critical hit multiplier", Type: commands.OptionString, BySystem: true, MaxLength: 32},
				{Name: "nonlethal", Description: "Non-lethal damage", Type: commands.OptionBoolean, BySystem: true},
				{Name: "lethal", Description: "Lethal intent against a downed character (default true)", Type: commands.OptionBoolean, BySystem: true},
				{Name: "kind", Description: "Kind of harm", Type: commands.OptionString, BySystem: true, MaxLength: 32},
				{Name: "pool", Description: "Pool point to spend for a bonus die on the check", Type: commands.OptionString, BySystem: true, MaxLength: 32},
			},
		},
		&commands.Command{
			Name: "heal", Description: "Heal a character as the system defines it", Handler: action("heal"), BySystem: true,
			Options: []commands.Option{
				target,
				{Name: "amount", Description: "Points healed: a number or dice", Type: commands.OptionString, BySystem: true, MaxLength: 64},
				{Name: "pool", Description: "Which points, or a pool point to spend for a bonus die", Type: commands.OptionString, BySystem: true, MaxLength: 32},
				{Name: "trigger", Description: "What allows the healing", Type: commands.OptionString, BySystem: true, MaxLength: 32},
				{Name: "healer", Description: "The character giving the care", Type: commands.OptionString, Autocomplete: true, BySystem: true, MaxLength: 32},
				{Name: "ability", Description: "Ability for the healing check", Type: commands.OptionString, BySystem: true, MaxLength: 32},
				{Name: "spend", Description: "The points to spend, e.g. vigor=2,reason=3", Type: commands.OptionString, BySystem: true, MaxLength: 64},
				{Name: "healer-pool", Description: "Pool point the healer spends for a bonus die", Type: commands.OptionString, BySystem: true, MaxLength: 32},
			},
		},
		rollCommand(),
	)
	g.AddAfter("roll",
		&commands.Command{
			Name: "save", Description: "Roll a saving throw for a character", Handler: action("save"), BySystem: true,
			Options: []commands.Option{
				target,
				{Name: "type", Description: "Save category", Type: commands.OptionString, Required: true, BySystem: true, MaxLength: 32},
				{Name: "hd", Description: "Hit dice to add", Type: commands.OptionInteger, MinValue: 0, MaxValue: 100, BySystem: true},
				{Name: "bonus", Description: "Extra bonus or penalty", Type: commands.OptionInteger, MinValue: -100, MaxValue: 100, BySystem: true},
			},
		},
		&commands.Command{
			Name: "rest", Description: "Rest as the system defines it", Handler: action("rest"), BySystem: true,
			Options: []commands.Option{
				{Name: "kind", Description: "Kind of rest", Type: commands.OptionString, Required: true, BySystem: true, MaxLength: 32},
				{Name: "target", Description: "Character; for the GM's rests default the whole table", Type: commands.OptionString, Autocomplete: true, MaxLength: 200},
			},
		},
		&commands.Command{
			Name: "attend", Description: "Attend a downed or dying character", Handler: action("attend"), BySystem: true,
			Options: []commands.Option{
				target,
				{Name: "healer", Description: "The character giving the care", Type: commands.OptionString, Autocomplete: true, BySystem: true, MaxLength: 32},
				{Name: "skilled", Description: "A skilled healer or healing magic attends", Type: commands.OptionBoolean, BySystem: true},
				{Name: "bonus", Description: "Heal check bonus", Type: commands.OptionInteger, MinValue: -100, MaxValue: 100, BySystem: true},
			},
		},
		&commands.Command{
			Name: "treat", Description: "Treat a character's untreated wounds", Handler: action("treat"), BySystem: true,
			Options: []commands.Option{target},
		},
		&commands.Command{
			Name: "strain", Description: "A strenuous action while disabled", Handler: action("strain"), BySystem: true,
			Options: []commands.Option{target},
		},
		&commands.Command{
			Name: "spend", Description: "Spend a resource", Handler: action("spend"), BySystem: true,
			Options: []commands.Option{
				target,
				{Name: "resource", Description: "What to spend", Type: commands.OptionString, Required: true, BySystem: true, MaxLength: 32},
				{Name: "amount", Description: "How much", Type: commands.OptionInteger, Required: true, MinValue: 1, MaxValue: 10000},
			},
		},
		&commands.Command{
			Name: "activity", Description: "Set what a character does as hours pass", Handler: action("activity"), BySystem: true,
			Options: []commands.Option{
				target,
				{Name: "kind", Description: "Activity", Type: commands.OptionString, Required: true, BySystem: true, MaxLength: 32},
			},
		},
		&commands.Command{
			Name: "wake", Description: "A noise reaches a sleeper: a Will save against the Listen DC, or wake at once", Handler: action("wake"), BySystem: true,
			Topic: "`/wake target:… listen-dc:…` is a noise reaching a sleeper whose player made a Listen check against that DC: it wakes unless it succeeds at a Will save against the same DC. `stay-asleep:false` fails the save on purpose and wakes at once.",
			Options: []commands.Option{
				target,
				{Name: "listen-dc", Description: "The DC of the Listen check the player made", Type: commands.OptionInteger, Required: true, MinValue: -20, MaxValue: 100},
				{Name: "stay-asleep", Description: "Save to sleep on (default true); false wakes at once", Type: commands.OptionBoolean},
			},
		},
	)
}

// action returns the handler of a command whose meaning belongs to the
// table's rule system (/damage, /heal, /rest, …): it runs the system's action
// in one write transaction, or answers that the command is not part of that
// system (/strain, say, belongs to hp-mp-wp only).
func action(name string) commands.HandlerFunc {
	return func(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
		return s.Mutate(ctx, r, func(m *commands.Mutation) (*commands.Response, error) {
			act := m.System.Action(name)
			if act == nil {
				return nil, commands.Errorf(commands.CodeUnavailable, "/%s is not part of the %s system (/help topic:%s lists its commands).", name, m.Table.System, m.Table.System)
			}
			if err := m.CheckSystemOptions(); err != nil {
				return nil, err
			}
			return act(m)
		})
	}
}
