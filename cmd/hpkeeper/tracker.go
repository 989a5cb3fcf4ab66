package main

import (
	"github.com/hpkeeper/hpkeeper/bot"
	"github.com/hpkeeper/hpkeeper/bot/operator"
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/tracker"
)

// The bot's tracker updater posts for the tracker feature.
var _ tracker.Poster = (*bot.Tracker)(nil)

// wireTracker gives svc's tracker (commands/tracker) the bot's updater
// when a bot token is configured: the tracker message is posted and edited through
// Discord's REST API with the token, in gateway and HTTP modes alike.
// Without a token /table tracker answers that it needs DISCORD_TOKEN, and
// serve (which needs no token otherwise) warns at start. The tracker's edits
// and Discord's 429s are counted in m.
func (a *App) wireTracker(svc *commands.Service, m *operator.Metrics) *bot.Tracker {
	const why = "The tracker needs the bot token: set DISCORD_TOKEN (or discord.token in the config) so the bot can post and edit the tracker message."
	feature := tracker.Of(svc.Registry())
	if feature == nil {
		return nil
	}
	if a.Config.Discord.Token == "" {
		if a.Mode == "serve" {
			a.Log.Warn().Msg("no bot token: tracker messages will not be posted or edited (/table tracker says so); set DISCORD_TOKEN to have them")
		}
		feature.SetPoster(nil, why)
		return nil
	}
	session, err := bot.NewSession(a.Config.Discord.Token, a.Log, a.sessionOptions(m)...)
	if err != nil {
		a.Log.Warn().Err(err).Msg("no tracker")
		feature.SetPoster(nil, why)
		return nil
	}
	opts := []bot.TrackerOption{bot.ReportEdits(m.TrackerEdited)}
	if a.Config.Storage.URL != "" {
		opts = append(opts, bot.WithReplicas()) // other processes edit the same messages
	}
	trk := bot.NewTracker(feature, session, a.Log, opts...)
	feature.SetPoster(trk, "")
	svc.OnChange(trk.Changed)
	return trk
}
