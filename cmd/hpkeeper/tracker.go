package main

import (
	"github.com/hpkeeper/hpkeeper/bot"
	"github.com/hpkeeper/hpkeeper/bot/operator"
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/gmscreen"
	"github.com/hpkeeper/hpkeeper/commands/tracker"
)

// The bot's tracker updater posts for the tracker feature, and its GM
// channel poster for the GM screen.
var (
	_ tracker.Poster  = (*bot.Tracker)(nil)
	_ gmscreen.Poster = (*bot.GMChannel)(nil)
)

// wireTracker gives svc's tracker (commands/tracker) the bot's updater,
// and its GM screen (commands/gmscreen) the bot's poster of GM channels,
// when a bot token is configured: the tracker message is posted and edited
// through Discord's REST API with the token, in gateway and HTTP modes
// alike, and so are the posts in a table's GM channel (without a token a
// table names none, and each GM is caught up at the table instead).
// Without a token /table tracker answers that it needs DISCORD_TOKEN, and
// serve (which needs no token otherwise) warns at start. The tracker's edits
// and Discord's 429s are counted in m.
func (a *App) wireTracker(svc *commands.Service, m *operator.Metrics) *bot.Tracker {
	const why = "The tracker needs the bot token: set DISCORD_TOKEN (or discord.token in the config) so the bot can post and edit the tracker message."
	feature := tracker.Of(svc.Registry())
	if feature == nil {
		return nil
	}
	gms := gmscreen.Of(svc.Registry())
	if gms != nil {
		gms.SetPoster(nil, "A GM channel needs the bot token: set DISCORD_TOKEN (or discord.token in the config) so the bot can post there.")
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
	if gms != nil {
		gms.SetPoster(bot.NewGMChannel(session), "")
	}
	svc.OnChange(trk.Changed)
	return trk
}
