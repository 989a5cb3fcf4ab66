package main

import (
	"flag"
	"fmt"
	"strings"
)

// usageFunc returns a flag.FlagSet.Usage for the subcommand sub: one line
// of what it does, the synopsis, the flags, and the environment variables
// it reads (names from envVars, with what each sets).
func usageFunc(fs *flag.FlagSet, sub, what, synopsis string, env ...string) func() {
	return func() {
		w := fs.Output()
		fmt.Fprintf(w, "hpkeeper %s: %s\n\nUsage: hpkeeper %s %s\n\nFlags:\n", sub, what, sub, synopsis)
		fs.PrintDefaults()
		fmt.Fprint(w, envHelp(env...))
	}
}

// envHelp lists the named environment variables with what each sets.
func envHelp(names ...string) string {
	if len(names) == 0 {
		return "\nEnvironment: none (it reads no environment variable).\n"
	}
	var b strings.Builder
	b.WriteString("\nEnvironment (overrides the configuration file):\n")
	for _, name := range names {
		what := ""
		for _, v := range envVars {
			if v.name == name {
				what = v.what
			}
		}
		if what == "" {
			panic("envHelp: no environment variable " + name)
		}
		fmt.Fprintf(&b, "  %-25s %s\n", name, what)
	}
	return b.String()
}
