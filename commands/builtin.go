package commands

// builtinFeatures are the features that still live in this package, in
// the order main will wire them; they come before those New and
// NewRegistry are given.
func builtinFeatures() []Feature {
	return []Feature{&manualDice{}}
}
