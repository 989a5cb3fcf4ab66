package main

import (
	"github.com/hpkeeper/hpkeeper/bot"
	"github.com/hpkeeper/hpkeeper/commands"
)

// wireTracker gives svc the tracker updater (/table tracker) when a bot
// token is configured: the tracker message is posted and edited through
// Discord's REST API with the token, in gateway and HTTP modes alike.
// Without a token /table tracker answers that it needs DISCORD_TOKEN.
func (a *App) wireTracker(svc *commands.Service) *bot.Tracker {
	const why = "The tracker needs the bot token: set DISCORD_TOKEN (or discord.token in the config) so the bot can post and edit the tracker message."
	if a.Config.Discord.Token == "" {
		svc.SetTrackerPoster(nil, why)
		return nil
	}
	session, err := bot.NewSession(a.Config.Discord.Token, a.Log)
	if err != nil {
		a.Log.Warn().Err(err).Msg("no tracker")
		svc.SetTrackerPoster(nil, why)
		return nil
	}
	trk := bot.NewTracker(svc, session, a.Log)
	svc.SetTrackerPoster(trk, "")
	svc.OnChange(trk.Changed)
	return trk
}
