package commands

// builtinSystems returns the adapters of the rule systems hpkeeper plays, one
// per name in Systems.
func builtinSystems() []System {
	return []System{hitProtection{}, hpMpWp{}, harmSystem{}}
}
